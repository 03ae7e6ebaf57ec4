"""The URLs the service writes into its answers, built in one place, while a request is served:
a repository's, a commit's (its page, or its tree graph), graph blocks' file links, an API list's neighbour pages.

An absolute URL (:func:`absolute_url`) starts with ``COVERAGE_PUBLIC_URL`` when it is set, so a forged
``Host`` header never reaches an answer; without it, with the request's own host (which Flask's
``TRUSTED_HOSTS`` should then bound, docs/deployment.md).
"""

from __future__ import annotations

from typing import Optional
from urllib.parse import parse_qsl, quote, urlencode

from flask import current_app, request

from .models import Commit, Repository
from .state import call_hook, get_state


def repository_path(repository: Repository, prefix_key: str) -> str:
    """``{prefix}/{gh|gl|...}/{owner}/{repo}``: app-relative, below the prefix of config ``prefix_key``."""
    owner = repository.owner
    names = "/".join(quote(name, safe="") for name in (owner.username, repository.name))
    return f"{current_app.config[prefix_key].rstrip('/')}/{owner.service.short}/{names}"


def commit_web_path(repository: Repository, sha: str) -> str:
    """The app-relative URL where a commit's coverage is shown, which uploaders print as "results will be
    available at": its page (``{COVERAGE_WEB_URL_PREFIX}/{gh|gl|...}/{owner}/{repo}/commit/{sha}``), or
    its tree graph when the web pages are not mounted
    (``{COVERAGE_GRAPH_URL_PREFIX}/{gh|gl|...}/{owner}/{repo}/commit/{sha}/graphs/tree.svg``, each block
    of which links to the file view)."""
    if current_app.config["COVERAGE_WEB_URL_PREFIX"] is not None:
        return f"{repository_path(repository, 'COVERAGE_WEB_URL_PREFIX')}/commit/{sha}"
    return f"{repository_path(repository, 'COVERAGE_GRAPH_URL_PREFIX')}/commit/{sha}/graphs/tree.svg"


def absolute_url(path: str) -> str:
    """The absolute URL of ``path``, a URL of the app (``/gh/acme/...``, without the app's mount point):
    below ``COVERAGE_PUBLIC_URL`` when it is set, else below the request's host and mount point."""
    public = current_app.config["COVERAGE_PUBLIC_URL"]
    if public:
        return public.rstrip("/") + path
    return request.url_root.rstrip("/") + path


def commit_url(repository: Repository, sha: str) -> str:
    """The absolute URL of :func:`commit_web_path`, for answers read outside the service (uploads, API)."""
    return absolute_url(commit_web_path(repository, sha))


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
    path = repository_path(repository, "COVERAGE_WEB_URL_PREFIX")
    return f"{request.script_root}{path}/commit/{commit.sha}/blob/", suffix


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
    # Werkzeug's path is decoded; a URI needs it encoded again (names may hold "%" or "é").
    path = quote(request.path, safe="/!$&'()*+,;=:@~")
    return absolute_url(f"{path}?{urlencode(args)}")
