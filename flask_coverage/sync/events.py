"""The git hosts' account events: webhooks that keep the sync from the host current without a sign-in
(docs/sign-in.md#webhooks-keep-it-current).

:data:`HANDLERS` maps a host's event, ``(family, event, action)``, to a small function that reads the
payload into :mod:`~flask_coverage.providers.accounts`' plain data and calls :mod:`flask_coverage.sync`'s
writes, which hold the rules: GitHub App events (``installation``, ``installation_target``,
``installation_repositories``, ``repository``, ``member``, ``membership``, ``organization``), GitLab's
system hooks and group member hooks (``event_name``), Bitbucket Cloud's repository events
(``X-Event-Key``).

A handler changes only what the service knows: a repository by the host's id, a user or an
organization by the host's id. The events that create (an installation, repositories added to it, a
repository created) create what they name; anything else unknown is :class:`Ignored`, as is a name the
service cannot store. A payload missing a field it must have, or with a field of the wrong type, is
:class:`~flask_coverage.errors.InvalidInput`. The caller (blueprints/webhooks.py) runs one handler in
one transaction, after the signature and the delivery checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

import sqlalchemy as sa

from ..errors import InvalidInput
from ..identifiers import refused_character
from ..models import Owner, Repository, ServiceEnum
from ..providers.accounts import (
    MAX_PAGES,
    PAGE_SIZE,
    HostOwner,
    HostRepository,
    github_owner,
    optional_text,
    required_text,
)
from ..state import execute
from . import (
    forget_readers,
    mark_stale,
    read_repositories,
    set_membership,
    set_reader,
    set_repository_state,
    storable,
    upsert_owners,
    upsert_repositories,
)

Handler = Callable[[ServiceEnum, Mapping[str, Any]], str]

_FAMILY = {
    ServiceEnum.github: "github",
    ServiceEnum.github_enterprise: "github",
    ServiceEnum.gitlab: "gitlab",
    ServiceEnum.gitlab_enterprise: "gitlab",
    ServiceEnum.bitbucket: "bitbucket",
}
#: The headers of GitLab's hooks whose ``event_name`` is an account event.
_GITLAB_HOOKS = ("System Hook", "Member Hook")
#: GitLab's roles by name: Reporter (20) reads private code, Maintainer (40) and Owner administer.
_GITLAB_LEVELS = {"minimal access": 5, "guest": 10, "planner": 15, "reporter": 20, "developer": 30}
_GITLAB_LEVELS.update({"maintainer": 40, "master": 40, "owner": 50})
_READ, _ADMIN = 20, 40
#: The most repositories one event may list: as many as a sync reads (one statement's parameters).
MAX_LISTED = MAX_PAGES * PAGE_SIZE


class Ignored(Exception):
    """The event names nothing the service knows (or a name it cannot store): nothing changes."""

    def __init__(self, reason: str = "nothing known here changes") -> None:
        super().__init__(reason)


def account_event(service: ServiceEnum, headers: Any, payload: Mapping[str, Any]) -> Optional[tuple[str, str]]:
    """``(event, action)`` if the request is an account event of :data:`HANDLERS`, else ``None``."""
    family = _FAMILY.get(service)
    event: Any
    action: Any = ""
    if family == "github":
        event, action = headers.get("X-GitHub-Event", ""), payload.get("action")
    elif family == "gitlab":
        event = payload.get("event_name") if headers.get("X-Gitlab-Event") in _GITLAB_HOOKS else None
    else:
        event = headers.get("X-Event-Key", "") if family == "bitbucket" else None
    if isinstance(event, str) and isinstance(action, str) and (family, event, action) in HANDLERS:
        return event, action
    return None


def apply_account_event(service: ServiceEnum, event: tuple[str, str], payload: Mapping[str, Any]) -> str:
    """Run the event's handler (not committed): what changed, in words; :class:`Ignored` when nothing
    does, :class:`InvalidInput` for a payload without the fields its event must have."""
    handler = HANDLERS[(_FAMILY[service], *event)]
    try:
        return handler(service, payload)
    except InvalidInput:
        raise
    except (KeyError, TypeError, ValueError, AttributeError):
        name = f"{event[0]} {event[1]}".strip()
        raise InvalidInput(f"the {name} event is missing a field it must have, or has one of the wrong type") from None


# -- reading payloads ---------------------------------------------------------------------------------


def _id(value: Any) -> str:
    """A host's id: a number or a string of at most 100 characters (``service_id``) that no database
    refuses (identifiers.py's refused characters)."""
    found = required_text(value)
    if len(found) > 100 or refused_character(found) is not None:
        raise ValueError("not an id")
    return found


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("not a boolean")
    return value


def _items(value: Any) -> list[Any]:
    """A list of repositories, at most as many as a sync reads (:data:`MAX_LISTED`)."""
    if not isinstance(value, list):
        raise TypeError("not a list")
    if len(value) > MAX_LISTED:
        raise InvalidInput(f"the event lists more than {MAX_LISTED} repositories")
    return value


def _as_host(owner: Owner) -> HostOwner:
    """A stored owner as the host names it (for events that name an owner by its path alone)."""
    return HostOwner(owner.username, str(owner.service_id), owner.is_org, owner.name, owner.avatar_url)


def _known_owner(
    service: ServiceEnum,
    service_id: Optional[str] = None,
    username: Optional[str] = None,
    *,
    is_org: Optional[bool] = None,
) -> Owner:
    """The owner the host knows by this id (else by this name, if the host knows it), a user or an
    organization as ``is_org`` says (GitLab numbers users and groups apart), or :class:`Ignored`."""
    on_service = sa.select(Owner).where(Owner.service == service, Owner.service_id.is_not(None))
    if is_org is not None:
        on_service = on_service.where(Owner.is_org == is_org)
    found = None
    if service_id is not None:
        found = execute(on_service.where(Owner.service_id == service_id)).scalars().first()
    if found is None and username is not None and storable(username):
        found = execute(on_service.where(sa.func.lower(Owner.username) == username.lower())).scalars().first()
    if found is None:
        raise Ignored
    return found


def _known_repository(service: ServiceEnum, service_id: str) -> Repository:
    query = (
        sa.select(Repository)
        .join(Owner, Owner.id == Repository.owner_id)
        .where(Owner.service == service, Repository.service_id == service_id)
    )
    found = execute(query).scalars().first()
    if found is None:
        raise Ignored
    return found


def _owner_repositories(owner: Owner) -> list[Repository]:
    """The repositories of ``owner`` that the host knows."""
    query = sa.select(Repository).where(Repository.owner_id == owner.id, Repository.service_id.is_not(None))
    return list(execute(query).scalars())


def _checked(hosts: Sequence[HostRepository]) -> list[HostRepository]:
    for host in hosts:
        if not (storable(host.owner.username) and storable(host.name)):
            raise Ignored("a name this service cannot store")
    return list(hosts)


# -- what each event changes, whatever the host -----------------------------------------------------------


def _created(service: ServiceEnum, hosts: Sequence[HostRepository], *, integration: Optional[bool] = None) -> str:
    repositories = upsert_repositories(service, _checked(hosts))
    if integration is not None:
        set_repository_state(repositories, using_integration=integration)
    return f"{len(repositories)} repositories synced"


def _changed(service: ServiceEnum, host: HostRepository) -> str:
    """A repository the host knows renamed, moved, made public or private, or given another default
    branch: the same row (its tokens, its history), changed. A move or a change to private takes its
    readers away (each one's next sync says who reads it now): never wider."""
    repository = _known_repository(service, host.service_id)
    was = (repository.owner_id, repository.private)
    [repository] = upsert_repositories(service, _checked([host]))
    if repository.private and (repository.owner_id != was[0] or not was[1]):
        forget_readers(repository)
    return f"repository {repository.owner.username}/{repository.name} synced"


def _deleted(service: ServiceEnum, service_id: str) -> str:
    repository = _known_repository(service, service_id)
    set_repository_state([repository], deleted=True)
    return f"repository {repository.owner.username}/{repository.name} marked deleted"


def _reader(service: ServiceEnum, user_id: str, repository_id: str, reads: bool) -> str:
    user, repository = _known_owner(service, user_id, is_org=False), _known_repository(service, repository_id)
    set_reader(user, [repository], reads)
    return f"{user.username} {'reads' if reads else 'no longer reads'} {repository.owner.username}/{repository.name}"


def _member(
    service: ServiceEnum, user_id: str, org_id: str, admin: Optional[bool], *, reads: Optional[bool] = None
) -> str:
    """A user's membership of an organization; removed (``admin=None``): their reading of its private
    repositories goes with it. ``reads``: whether the membership itself reads every repository of the
    organization (a GitLab group's, from Reporter up), ``None`` where it does not say (GitHub)."""
    user, org = _known_owner(service, user_id, is_org=False), _known_owner(service, org_id, is_org=True)
    set_membership(user, org, admin)
    if admin is not None and reads is not None:
        set_reader(user, _owner_repositories(org), reads)
    mark_stale(user)
    role = "no longer a member" if admin is None else "an admin" if admin else "a member"
    return f"{user.username} is {role} of {org.username}"


def _renamed(service: ServiceEnum, host: HostOwner) -> str:
    """A user or an organization the host renamed: its repositories follow."""
    owner = _known_owner(service, host.service_id, is_org=host.is_org)
    if not storable(host.username):
        raise Ignored("a name this service cannot store")
    upsert_owners(service, [host])
    return f"{owner.username} synced"


# -- GitHub ---------------------------------------------------------------------------------------------


def _github_repository(item: Mapping[str, Any], owner: Optional[HostOwner] = None) -> HostRepository:
    """A repository of a payload; ``owner``: the installation's account, for the short items of an
    installation's lists (id, name, full name, private)."""
    return HostRepository(
        owner=owner or github_owner(item["owner"]),
        name=required_text(item["name"]),
        service_id=_id(item["id"]),
        private=_flag(item["private"]),
        branch=optional_text(item.get("default_branch")) or "",
    )


def _installation_account(payload: Mapping[str, Any]) -> HostOwner:
    return github_owner(payload["installation"]["account"])


def _installation_created(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    account = _installation_account(payload)
    hosts = [_github_repository(item, account) for item in _items(payload.get("repositories") or [])]
    if not storable(account.username):
        raise Ignored("a name this service cannot store")
    upsert_owners(service, [account])
    return _created(service, hosts, integration=True)


def _installation_gone(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    owner = _known_owner(service, _installation_account(payload).service_id)
    set_repository_state(_owner_repositories(owner), using_integration=False)
    return f"the repositories of {owner.username} are not covered by the installation"


def _installation_back(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    account = _installation_account(payload)
    owner = _known_owner(service, account.service_id)
    if payload["installation"].get("repository_selection") == "all":
        set_repository_state(_owner_repositories(owner), using_integration=True)
    return f"the installation of {owner.username} is back"


def _repositories_added(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    account = _installation_account(payload)
    hosts = [_github_repository(item, account) for item in _items(payload["repositories_added"])]
    return _created(service, hosts, integration=True)


def _repositories_removed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    ids = [_id(item["id"]) for item in _items(payload["repositories_removed"])]
    query = (
        sa.select(Repository)
        .join(Owner, Owner.id == Repository.owner_id)
        .where(Owner.service == service, Repository.service_id.in_(ids))
    )
    repositories = list(execute(query).scalars())
    if not repositories:
        raise Ignored
    set_repository_state(repositories, using_integration=False)
    return f"{len(repositories)} repositories not covered by the installation"


def _repository_created(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _created(service, [_github_repository(payload["repository"])])


def _repository_changed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _changed(service, _github_repository(payload["repository"]))


def _repository_deleted(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _deleted(service, _id(payload["repository"]["id"]))


def _collaborator(reads: bool) -> Handler:
    def handler(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
        return _reader(service, _id(payload["member"]["id"]), _id(payload["repository"]["id"]), reads)

    return handler


def _team_added(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    """Which repositories a team reads is not in the event: the user's next request syncs them."""
    user = _known_owner(service, _id(payload["member"]["id"]), is_org=False)
    mark_stale(user)
    return f"{user.username} is synced at their next request"


def _team_removed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    """Leaving a team may take any of the organization's repositories: all go now, and the user's next
    sync gives back what the host still grants."""
    user = _known_owner(service, _id(payload["member"]["id"]), is_org=False)
    org = _known_owner(service, _id(payload["organization"]["id"]), is_org=True)
    set_reader(user, [r for r in read_repositories(user) if r.owner_id == org.id], False)
    mark_stale(user)
    return f"{user.username} no longer reads {org.username}'s private repositories until synced"


def _org_member(removed: bool) -> Handler:
    def handler(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
        membership = payload["membership"]
        admin = None if removed else required_text(membership["role"]) == "admin"
        return _member(service, _id(membership["user"]["id"]), _id(payload["organization"]["id"]), admin)

    return handler


def _org_renamed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _renamed(service, github_owner(payload["organization"], is_org=True))


def _account_renamed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    """An installation's account (a user or an organization) renamed."""
    is_org = required_text(payload["target_type"]) == "Organization"
    return _renamed(service, github_owner(payload["account"], is_org=is_org))


# -- GitLab ---------------------------------------------------------------------------------------------


def _level(value: Any) -> int:
    """A GitLab role, by name (``"Maintainer"``) or number (40)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return _GITLAB_LEVELS[required_text(value).lower()]


def _gitlab_project(service: ServiceEnum, payload: Mapping[str, Any], private: bool) -> HostRepository:
    """A project of a system hook, whose owner is named by its path alone: it must be known here.
    ``private`` unless the payload says its visibility (``internal`` is private here)."""
    namespace, _, name = required_text(payload["path_with_namespace"]).rpartition("/")
    visibility = payload.get("project_visibility")
    if isinstance(visibility, str):
        private = visibility != "public"
    owner = _known_owner(service, username=namespace)
    return HostRepository(_as_host(owner), name, _id(payload["project_id"]), private, "")


def _project_created(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _created(service, [_gitlab_project(service, payload, private=True)])


def _project_changed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    stored = _known_repository(service, _id(payload["project_id"]))
    return _changed(service, _gitlab_project(service, payload, private=stored.private))


def _project_destroyed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _deleted(service, _id(payload["project_id"]))


def _project_member(removed: bool) -> Handler:
    def handler(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
        reads = not removed and _level(payload["access_level"]) >= _READ
        return _reader(service, _id(payload["user_id"]), _id(payload["project_id"]), reads)

    return handler


def _group_member(removed: bool) -> Handler:
    def handler(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
        user, group = _id(payload["user_id"]), _id(payload["group_id"])
        if removed:
            return _member(service, user, group, None)
        level = _level(payload["group_access"])
        return _member(service, user, group, level >= _ADMIN, reads=level >= _READ)

    return handler


def _group_renamed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _renamed(service, HostOwner(required_text(payload["full_path"]), _id(payload["group_id"]), True))


def _user_renamed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _renamed(service, HostOwner(required_text(payload["username"]), _id(payload["user_id"]), False))


# -- Bitbucket Cloud ------------------------------------------------------------------------------------


def _bitbucket_repository(service: ServiceEnum, payload: Mapping[str, Any]) -> HostRepository:
    """The event's repository; its new full name from ``changes`` where the event says it."""
    item = payload["repository"]
    workspace = item["workspace"]
    owner = _known_owner(service, _id(workspace["uuid"]), required_text(workspace["slug"]))
    renamed = (payload.get("changes") or {}).get("full_name") or {}
    name = required_text(renamed.get("new") or item["full_name"]).rpartition("/")[2]
    branch = optional_text((item.get("mainbranch") or {}).get("name")) or ""
    return HostRepository(_as_host(owner), name, _id(item["uuid"]), _flag(item["is_private"]), branch)


def _bitbucket_changed(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _changed(service, _bitbucket_repository(service, payload))


def _bitbucket_deleted(service: ServiceEnum, payload: Mapping[str, Any]) -> str:
    return _deleted(service, _id(payload["repository"]["uuid"]))


#: ``(family, event, action)`` → its handler; GitLab's and Bitbucket's events have no action (``""``).
HANDLERS: dict[tuple[str, str, str], Handler] = {
    ("github", "installation", "created"): _installation_created,
    ("github", "installation", "deleted"): _installation_gone,
    ("github", "installation", "suspend"): _installation_gone,
    ("github", "installation", "unsuspend"): _installation_back,
    ("github", "installation_target", "renamed"): _account_renamed,
    ("github", "installation_repositories", "added"): _repositories_added,
    ("github", "installation_repositories", "removed"): _repositories_removed,
    ("github", "repository", "created"): _repository_created,
    **{
        ("github", "repository", action): _repository_changed
        for action in ("renamed", "transferred", "publicized", "privatized", "edited")
    },
    ("github", "repository", "deleted"): _repository_deleted,
    ("github", "member", "added"): _collaborator(reads=True),
    ("github", "member", "edited"): _collaborator(reads=True),
    ("github", "member", "removed"): _collaborator(reads=False),
    ("github", "membership", "added"): _team_added,
    ("github", "membership", "removed"): _team_removed,
    ("github", "organization", "member_added"): _org_member(removed=False),
    ("github", "organization", "member_removed"): _org_member(removed=True),
    ("github", "organization", "renamed"): _org_renamed,
    ("gitlab", "project_create", ""): _project_created,
    ("gitlab", "project_destroy", ""): _project_destroyed,
    **{("gitlab", name, ""): _project_changed for name in ("project_rename", "project_transfer", "project_update")},
    ("gitlab", "user_add_to_team", ""): _project_member(removed=False),
    ("gitlab", "user_update_for_team", ""): _project_member(removed=False),
    ("gitlab", "user_remove_from_team", ""): _project_member(removed=True),
    ("gitlab", "user_add_to_group", ""): _group_member(removed=False),
    ("gitlab", "user_update_for_group", ""): _group_member(removed=False),
    ("gitlab", "user_remove_from_group", ""): _group_member(removed=True),
    ("gitlab", "group_rename", ""): _group_renamed,
    ("gitlab", "user_rename", ""): _user_renamed,
    ("bitbucket", "repo:updated", ""): _bitbucket_changed,
    ("bitbucket", "repo:transfer", ""): _bitbucket_changed,
    ("bitbucket", "repo:deleted", ""): _bitbucket_deleted,
}
