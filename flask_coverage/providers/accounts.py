"""What a git host says of a signed-in user: who they are, their organizations (with their role) and
the repositories they can read, read with the user's own OAuth token; and where each host signs users
in (docs/sign-in.md).

The answer is plain data (:class:`HostView`): :mod:`flask_coverage.sync` writes it, and knows no HTTP.
Every list is read page after page (100 items a page) through :class:`~.http.Transport`, which bounds
each call and honours ``Retry-After`` and GitHub's rate-limit headers; a page that says the rate
limit is spent while pages remain ends the reading with a :class:`~flask_coverage.providers.ProviderError`
carrying the wait, so that nothing half-read is written.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import ProviderError
from .http import Response, Transport

#: Items asked for in each page of a list (the most every host gives).
PAGE_SIZE = 100
#: The most pages read of one list: a bound against a host that never stops answering ``next``.
MAX_PAGES = 200

_NEXT_LINK = re.compile(r'<([^>]+)>;\s*rel="next"')


@dataclass(frozen=True)
class HostOwner:
    """A user or an organization (group, workspace) as the host names it; ``service_id`` is the host's
    own id, which survives renames."""

    username: str
    service_id: str
    is_org: bool
    name: Optional[str] = None
    avatar_url: Optional[str] = None


@dataclass(frozen=True)
class HostRepository:
    """A repository the user can read, with its owner."""

    owner: HostOwner
    name: str
    service_id: str
    private: bool
    branch: str


@dataclass(frozen=True)
class HostView:
    """What the host says of one user: the user, their organizations with ``True`` where the user is
    an admin of it, and every repository they can read."""

    user: HostOwner
    organizations: tuple[tuple[HostOwner, bool], ...]
    repositories: tuple[HostRepository, ...]


@dataclass(frozen=True)
class SignInEndpoints:
    """Where a host signs users in (OAuth 2 authorization code), with the scopes asked and whether the
    host checks a PKCE verifier."""

    authorize_url: str
    token_url: str
    scope: Optional[str]
    pkce: bool


#: Per host: the web root of the public host, the API suffix its API URL ends with on a self-managed
#: one, the least-privilege scopes, and whether it checks PKCE.
_SIGN_IN = {
    "github": ("https://github.com", "/api/v3", "read:org repo", True),
    "gitlab": ("https://gitlab.com", "/api/v4", "read_user read_api", True),
    # Bitbucket Cloud's scopes are the consumer's permissions, ticked when it is registered.
    "bitbucket": ("https://bitbucket.org", "", None, False),
}
_PATHS = {
    "github": ("/login/oauth/authorize", "/login/oauth/access_token"),
    "gitlab": ("/oauth/authorize", "/oauth/token"),
    "bitbucket": ("/site/oauth2/authorize", "/site/oauth2/access_token"),
}
_FAMILY = {
    "github": "github",
    "github_enterprise": "github",
    "gitlab": "gitlab",
    "gitlab_enterprise": "gitlab",
    "bitbucket": "bitbucket",
}


def signs_in(settings: Any) -> bool:
    """Whether a ``COVERAGE_PROVIDERS`` entry configures sign-in (it has a ``client_id``)."""
    return isinstance(settings, Mapping) and bool(settings.get("client_id"))


def sign_in_endpoints(service: str, settings: Mapping[str, Any]) -> SignInEndpoints:
    """The OAuth endpoints of ``service``: ``authorize_url`` and ``token_url`` in the settings win;
    else the public host's, or those under a self-managed host's web root (its API ``url`` without
    ``/api/v3`` or ``/api/v4``, or ``web_url``). ``ValueError`` for a host without sign-in."""
    family = _FAMILY.get(service)
    if family is None:
        raise ValueError(f"COVERAGE_PROVIDERS[{service!r}]: sign-in is supported on GitHub, GitLab and Bitbucket Cloud")
    if not settings.get("client_secret"):
        raise ValueError(f"COVERAGE_PROVIDERS[{service!r}] has a 'client_id' but no 'client_secret'")
    public, api_suffix, scope, pkce = _SIGN_IN[family]
    web = settings.get("web_url")
    if not web and service.endswith("_enterprise"):
        url = str(settings.get("url") or "")
        if not url.rstrip("/").endswith(api_suffix):
            raise ValueError(f"COVERAGE_PROVIDERS[{service!r}] needs a 'web_url' (or an API 'url' ending {api_suffix})")
        web = url.rstrip("/")[: -len(api_suffix)]
    web = (web or public).rstrip("/")
    authorize, token = _PATHS[family]
    return SignInEndpoints(
        authorize_url=settings.get("authorize_url") or web + authorize,
        token_url=settings.get("token_url") or web + token,
        scope=settings.get("scope", scope),
        pkce=pkce,
    )


def read_host_view(service: str, settings: Mapping[str, Any], token: str) -> HostView:
    """Everything the host says of the user whose OAuth ``token`` this is (see the module)."""
    family = _FAMILY.get(service)
    if family is None:
        raise ValueError(f"sign-in is not supported on {service}")
    default_api = {"github": "https://api.github.com", "gitlab": "https://gitlab.com/api/v4"}
    url = settings.get("url") or default_api.get(family, "https://api.bitbucket.org/2.0")
    http = Transport(service, url, timeout=float(settings.get("timeout", 10)))
    http.secrets.append(token)
    reader = {"github": _github_view, "gitlab": _gitlab_view, "bitbucket": _bitbucket_view}[family]
    try:
        return reader(http, {"Authorization": f"Bearer {token}"})
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ProviderError(f"{service} answered the sync with something unexpected") from None


def _pages(http: Transport, path: str, headers: dict[str, str], params: dict[str, Any]) -> Iterator[Any]:
    """The items of a list, page after page: the next page from the ``Link`` header (GitHub, GitLab)
    or the body's ``next`` (Bitbucket, whose items are under ``values``)."""
    url: Optional[str] = path
    query: Optional[dict[str, Any]] = params
    for _ in range(MAX_PAGES):
        if url is None:
            return
        answer = http.request("GET", url, params=query, headers=headers)
        body = answer.json()
        items = body["values"] if isinstance(body, dict) else body
        if not isinstance(items, list):
            raise ValueError("not a list")
        yield from items
        url, query = _next_page(answer, body), None
        if url is not None:
            _check_rate_limit(http, answer)
    raise ProviderError(f"{http.name} listed more than {MAX_PAGES} pages of {path}")


def _next_page(answer: Response, body: Any) -> Optional[str]:
    if isinstance(body, dict):
        found = body.get("next")
        return found if isinstance(found, str) else None
    match = _NEXT_LINK.search(answer.headers.get("Link", ""))
    return match.group(1) if match else None


def _check_rate_limit(http: Transport, answer: Response) -> None:
    """A spent rate limit with pages left: stop now, with the wait until the limit resets."""
    if answer.headers.get("X-RateLimit-Remaining") != "0":
        return
    try:
        wait = max(0.0, float(answer.headers.get("X-RateLimit-Reset", "")) - time.time()) + 1
    except ValueError:
        wait = 60.0
    raise ProviderError(f"{http.name}'s rate limit is spent; the sync waits {wait:.0f}s", retry_after=wait)


def required_text(value: Any) -> str:
    """A field the host always sends, as text (an id may be a number); ``ValueError`` when it is missing."""
    if not isinstance(value, (str, int)) or isinstance(value, bool) or value == "":
        raise ValueError("missing")
    return str(value)


def optional_text(value: Any) -> Optional[str]:
    """A text field the host may leave out or send empty, else ``None``."""
    return value if isinstance(value, str) and value else None


# -- GitHub -----------------------------------------------------------------------------------------


def github_owner(item: Mapping[str, Any], is_org: Optional[bool] = None) -> HostOwner:
    """A GitHub account object (of the API or of a webhook's payload) as a :class:`HostOwner`."""
    org = item.get("type") == "Organization" if is_org is None else is_org
    return HostOwner(
        required_text(item["login"]),
        required_text(item["id"]),
        org,
        optional_text(item.get("name")),
        optional_text(item.get("avatar_url")),
    )


def _github_view(http: Transport, auth: dict[str, str]) -> HostView:
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28", **auth}
    user = github_owner(http.request("GET", "/user", headers=headers).json(), is_org=False)
    memberships = _pages(http, "/user/memberships/orgs", headers, {"state": "active", "per_page": PAGE_SIZE})
    organizations = tuple(
        (github_owner(item["organization"], is_org=True), item["role"] == "admin") for item in memberships
    )
    affiliation = {"affiliation": "owner,collaborator,organization_member", "per_page": PAGE_SIZE}
    repositories = tuple(
        HostRepository(
            owner=github_owner(item["owner"]),
            name=required_text(item["name"]),
            service_id=required_text(item["id"]),
            private=bool(item["private"]),
            branch=optional_text(item.get("default_branch")) or "main",
        )
        for item in _pages(http, "/user/repos", headers, affiliation)
        if _readable(item.get("permissions"), lambda p: bool(p.get("pull")))
    )
    return HostView(user, organizations, repositories)


def _readable(permissions: Any, test: Callable[[Mapping[str, Any]], bool]) -> bool:
    # A listing without permissions is a listing of what the user can read.
    return not isinstance(permissions, Mapping) or test(permissions)


# -- GitLab -----------------------------------------------------------------------------------------

#: GitLab's access levels: Reporter (20) reads private code; Maintainer (40) and Owner (50) administer.
_GITLAB_READ, _GITLAB_ADMIN = 20, 40


def _gitlab_group(item: Mapping[str, Any]) -> HostOwner:
    return HostOwner(
        required_text(item["full_path"]),
        required_text(item["id"]),
        True,
        optional_text(item.get("name")),
        optional_text(item.get("avatar_url")),
    )


def _gitlab_view(http: Transport, headers: dict[str, str]) -> HostView:
    me = http.request("GET", "/user", headers=headers).json()
    user = HostOwner(
        required_text(me["username"]),
        required_text(me["id"]),
        False,
        optional_text(me.get("name")),
        optional_text(me.get("avatar_url")),
    )
    listed = {"per_page": PAGE_SIZE, "order_by": "id", "sort": "asc"}
    admin_of = {
        required_text(item["id"])
        for item in _pages(http, "/groups", headers, {**listed, "min_access_level": _GITLAB_ADMIN})
    }
    groups = [_gitlab_group(item) for item in _pages(http, "/groups", headers, {**listed, "min_access_level": 10})]
    organizations = tuple((group, group.service_id in admin_of) for group in groups)
    projects = _pages(http, "/projects", headers, {**listed, "membership": "true", "min_access_level": _GITLAB_READ})
    repositories = []
    for item in projects:
        namespace = item["namespace"]
        is_group = namespace.get("kind") == "group"
        owner = HostOwner(
            required_text(namespace["full_path"]),
            required_text(namespace["id"]),
            is_group,
            optional_text(namespace.get("name")),
        )
        if not is_group and owner.username.lower() == user.username.lower():
            owner = user
        elif not is_group:
            # A personal namespace's id is not its user's (GitLab numbers them apart): the project's
            # owner says who it is, and a project that does not say is left out.
            person = item.get("owner")
            if not isinstance(person, Mapping) or person.get("id") is None:
                continue
            owner = HostOwner(owner.username, required_text(person["id"]), False, optional_text(person.get("name")))
        repositories.append(
            HostRepository(
                owner=owner,
                name=required_text(item["path"]),
                service_id=required_text(item["id"]),
                private=item.get("visibility") != "public",
                branch=optional_text(item.get("default_branch")) or "main",
            )
        )
    return HostView(user, organizations, tuple(repositories))


# -- Bitbucket Cloud ----------------------------------------------------------------------------------


def _bitbucket_view(http: Transport, headers: dict[str, str]) -> HostView:
    me = http.request("GET", "/user", headers=headers).json()
    user = HostOwner(
        required_text(me["username"]), required_text(me["uuid"]), False, optional_text(me.get("display_name"))
    )
    listed = {"pagelen": PAGE_SIZE}
    organizations = []
    for item in _pages(http, "/user/permissions/workspaces", headers, listed):
        workspace = item["workspace"]
        if required_text(workspace["slug"]).lower() == user.username.lower():
            continue  # the user's own workspace is the user
        owner = HostOwner(
            required_text(workspace["slug"]),
            required_text(workspace["uuid"]),
            True,
            optional_text(workspace.get("name")),
        )
        organizations.append((owner, item.get("permission") == "owner"))
    workspaces = {owner.username.lower(): owner for owner, _ in organizations}
    repositories = []
    for item in _pages(http, "/repositories", headers, {**listed, "role": "member"}):
        workspace = item["workspace"]
        slug = required_text(workspace["slug"])
        owner = workspaces.get(slug.lower()) or (
            user if slug.lower() == user.username.lower() else HostOwner(slug, required_text(workspace["uuid"]), True)
        )
        repositories.append(
            HostRepository(
                owner=owner,
                name=required_text(item["slug"]),
                service_id=required_text(item["uuid"]),
                private=bool(item["is_private"]),
                branch=optional_text((item.get("mainbranch") or {}).get("name")) or "main",
            )
        )
    return HostView(user, tuple(organizations), tuple(repositories))
