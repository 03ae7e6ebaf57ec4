"""The URLs the service writes into its answers, built in one place from the app's own routes: a
repository's page (a pull's, a commit's), a commit's (its page, or its tree graph), a file's view, graph
blocks' file links, an upload URL, an API list's neighbour pages.

A URL is built by the rule of its endpoint (:func:`external_url`, through a Werkzeug ``MapAdapter``), so
the routes are the one grammar. An absolute URL starts with ``COVERAGE_PUBLIC_URL`` when it is set, so a
forged ``Host`` header never reaches an answer; without it, with the request's own root (which Flask's
``TRUSTED_HOSTS`` should then bound, docs/deployment.md), or outside a request (the pull-request
feedback) with the root the caller kept from one.
"""

from __future__ import annotations

from typing import Any, Optional
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from flask import current_app, has_request_context, request, url_for
from werkzeug.routing import MapAdapter

from .models import Commit, Repository
from .state import call_hook, get_state


def public_root(base_url: Optional[str] = None) -> Optional[str]:
    """The root URL absolute URLs start with: ``COVERAGE_PUBLIC_URL``, else the request's root (its
    host and mount point), else ``base_url`` (outside a request); ``None`` when there is none."""
    public = current_app.config["COVERAGE_PUBLIC_URL"]
    if public:
        return str(public)
    return request.url_root if has_request_context() else base_url


def _adapter(root: str) -> MapAdapter:
    """The app's routes bound to ``root``'s scheme, host and path (the mount point)."""
    parts = urlsplit(root)
    return current_app.url_map.bind(parts.netloc, script_name=parts.path or "/", url_scheme=parts.scheme)


def external_url(endpoint: str, base_url: Optional[str] = None, **values: Any) -> str:
    """The absolute URL of ``endpoint``'s route with ``values`` (``None`` values left out, as
    ``url_for`` does), below :func:`public_root`."""
    root = public_root(base_url)
    if root is None:
        raise RuntimeError("An absolute URL outside a request needs COVERAGE_PUBLIC_URL or a base_url.")
    return _adapter(root).build(endpoint, values, force_external=True)


def repository_names(repository: Repository) -> dict[str, Any]:
    """The route values that name ``repository``: ``prov``, ``owner`` and ``repo``."""
    return {"prov": repository.owner.service.short, "owner": repository.owner.username, "repo": repository.name}


def _commit_route(repository: Repository, sha: str) -> tuple[str, dict[str, Any]]:
    # Its page, or its tree graph when the web pages are not mounted.
    names = repository_names(repository)
    if current_app.config["COVERAGE_WEB_URL_PREFIX"] is not None:
        return "coverage_web.repository_page", {**names, "sha": sha}
    return "coverage_graphs.graph", {**names, "sha": sha, "kind": "tree"}


def commit_web_path(repository: Repository, sha: str) -> str:
    """The app-relative URL (without the app's mount point) where a commit's coverage is shown, which
    uploaders print as "results will be available at": its page
    (``{COVERAGE_WEB_URL_PREFIX}/{gh|gl|...}/{owner}/{repo}/commit/{sha}``), or its tree graph when the
    web pages are not mounted
    (``{COVERAGE_GRAPH_URL_PREFIX}/{gh|gl|...}/{owner}/{repo}/commit/{sha}/graphs/tree.svg``, each block
    of which links to the file view)."""
    endpoint, values = _commit_route(repository, sha)
    return current_app.url_map.bind("").build(endpoint, values)


def commit_url(repository: Repository, sha: str) -> str:
    """The absolute URL of :func:`commit_web_path`, for answers read outside the service (uploads, API),
    while a request is served."""
    endpoint, values = _commit_route(repository, sha)
    return external_url(endpoint, **values)


def pull_page_url(
    repository: Repository, pullid: Optional[int], sha: str, base_url: Optional[str] = None
) -> Optional[str]:
    """The absolute URL of pull ``pullid``'s page (or commit ``sha``'s, without a pull), what
    pull-request feedback links to; ``None`` without web pages or without a :func:`public_root`."""
    if current_app.config["COVERAGE_WEB_URL_PREFIX"] is None or public_root(base_url) is None:
        return None
    target = {"pullid": pullid} if pullid is not None else {"sha": sha}
    return external_url("coverage_web.repository_page", base_url, **repository_names(repository), **target)


def repository_page_url(repository: Repository, base_url: Optional[str] = None) -> Optional[str]:
    """The absolute URL of the repository's page; ``None`` as for :func:`pull_page_url`."""
    if current_app.config["COVERAGE_WEB_URL_PREFIX"] is None or public_root(base_url) is None:
        return None
    return external_url("coverage_web.repository_page", base_url, **repository_names(repository))


def pull_file_url(repository: Repository, pullid: int, path: str, base_url: Optional[str] = None) -> Optional[str]:
    """The absolute URL of file ``path``'s view in pull ``pullid`` (the comment's file links); ``None``
    as for :func:`pull_page_url`."""
    if current_app.config["COVERAGE_WEB_URL_PREFIX"] is None or public_root(base_url) is None:
        return None
    names = repository_names(repository)
    return external_url("coverage_web.file_view", base_url, **names, pullid=pullid, path=path)


def file_links(repository: Repository, commit: Commit, flag: Optional[str]) -> tuple[Optional[str], str]:
    """``(link prefix, link suffix)`` of a graph's file blocks (``None``: no links): the ``file_url``
    hook's URL as it is, else this service's file views with the ``flag`` shown (never a graph token:
    it opens images only, and a private file view needs a signed-in reader): ``../blob/`` (from
    ``{target}/graphs/``, the same target's: a few bytes per block) when the web pages share the
    graphs' prefix, else the commit's."""
    if get_state().service.file_url_callback is not None:
        return call_hook("file_url", repository, commit), ""
    config = current_app.config
    suffix = f"?{urlencode({'flag': flag}, quote_via=quote)}" if flag is not None else ""
    if config["COVERAGE_WEB_URL_PREFIX"] == config["COVERAGE_GRAPH_URL_PREFIX"]:
        return "../blob/", suffix
    if config["COVERAGE_WEB_URL_PREFIX"] is None:
        return None, suffix
    # The file view's URL up to its path, which each block appends.
    view = url_for("coverage_web.file_view", **repository_names(repository), sha=commit.sha, path="_")
    return view[: -len("_")], suffix


def page_url(number: Optional[int]) -> Optional[str]:
    """The absolute URL of the current request with its ``page`` argument set to ``number``.

    Every other query argument is kept as it was; ``None`` stays ``None`` (no such page).
    """
    if number is None:
        return None
    pairs = parse_qsl(request.query_string.decode("utf-8", "replace"), keep_blank_values=True)
    # Replaced in place, so neighbour links differ from the request in one spot only.
    args = [(key, str(number) if key == "page" else value) for key, value in pairs]
    if all(key != "page" for key, _ in pairs):
        args.append(("page", str(number)))
    # The request's own path (as it was asked, not rebuilt from its rule); Werkzeug's is decoded, and a
    # URI needs it encoded again (names may hold "%" or "é").
    path = quote(request.path, safe="/!$&'()*+,;=:@~")
    return f"{str(public_root()).rstrip('/')}{path}?{urlencode(args)}"
