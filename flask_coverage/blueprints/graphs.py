"""Coverage graphs (SVG): ``{COVERAGE_GRAPH_URL_PREFIX}/...`` (docs/graphs.md).

Every URL names a repository and a target, the commit it shows: ``/{prov}/{owner}/{repo}`` then
nothing (the tip of the default branch), ``/branch/{branch}`` (a branch tip; the name may contain
``/``), ``/pull/{id}`` (a pull request tip) or ``/commit/{sha}`` (a full sha or a unique prefix of
at least 7 hex digits). Below it, ``/graphs/{kind}.svg`` is a graph of that commit, ``/graphs/badge.svg``
and ``.txt`` the coverage badge (``graph/`` works as ``graphs/``, as on Codecov); the file views
(``/blob/{path}``) are web pages (:mod:`flask_coverage.blueprints.web`). See docs/graphs.md.

- Private repositories need ``?token=<graph token>`` (the ``verify_graph_token`` hook); public ones
  ignore it. The graph token opens images only (graphs, badges, the trend chart), as on Codecov: the
  pages and the source of a private repository need a signed-in reader. Every failure - unknown
  provider, owner, repository, branch, pull, commit or file, a wrong or missing token, no coverage yet
  - is one and the same 404, so whether a private repository exists does not leak.
- A rendered graph is cached (``COVERAGE_CACHE_CONFIG``) under a key made of the commit's coverage
  version and everything else the drawing depends on; the same key, hashed, is the ``ETag``, so a
  conditional request is answered 304 without touching the cache, and a repeat request does no
  layout.
- Blocks link to the file view of the same target, ``../blob/{path}`` relative to the graph (a
  few bytes per block, right for every target and any spelling of the URL), without the graph token;
  the ``file_url`` hook may point them elsewhere.
- Graphs are sent gzip-compressed to clients that accept it (all browsers do): big trees shrink
  about fourfold, and the cache holds the compressed bytes.
"""

from __future__ import annotations

import gzip
import time
from importlib import metadata
from typing import Any, Callable, Optional, TypeVar

from flask import Blueprint, Response, current_app, request
from werkzeug.http import HTTP_STATUS_CODES

from ..errors import CoverageError, InvalidInput, NotFound
from ..http_errors import handle_errors
from ..identifiers import pull_number
from ..models import SERVICE_BY_SHORT, Commit, CommitFlag, Repository
from ..outage import plain_text_response
from ..queries.files import Coverage
from ..queries.graph_records import gc_paused, graph_records
from ..queries.targets import find_flag_target, find_target
from ..queries.trend import trend_points
from ..request_args import color_range, etag, graph_token, requested_flag, trend_period
from ..state import cache_errors, call_hook, get_cache
from ..svg import GRAPH_KINDS, GraphOptions, coverage_color, render_graph_svg, validate_graph_params
from ..svg.badge import PRECISIONS, UNKNOWN, UNKNOWN_COLOR, format_coverage, render_badge_svg
from ..svg.trend import render_trend_svg
from ..urls import file_links

bp = Blueprint("coverage_graphs", __name__)

F = TypeVar("F", bound=Callable[..., Any])

#: Drawn graphs of one commit's coverage (sizes, borders, kinds, links) that the cache stores.
MAX_CACHED_VARIANTS = 8
#: The share of ``COVERAGE_GRAPH_CACHE_MAX_BYTES`` one repository may store per cache timeout, so that no
#: repository (nor one of its commits) spends the budget on behalf of all.
REPOSITORY_BUDGET_SHARE = 1 / 8
# Part of every cache key and ETag: a new release may draw differently.
try:
    _RENDERER = metadata.version("flask-coverage")
except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    _RENDERER = "0"

#: Headers of every graph response (200, 304 and 404); SVG needs no script, style sheet or font.
SVG_HEADERS = {
    "Content-Security-Policy": "default-src 'none'",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
BADGE_MIMETYPES = {"svg": "image/svg+xml", "txt": "text/plain"}
#: The one answer to every graph that cannot be shown (an image, so an <img> shows the hint).
NOT_FOUND_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="330" height="44" viewBox="0 0 330 44">'
    '<rect width="330" height="44" fill="#9f9f9f"/>'
    '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="12">'
    '<text x="10" y="18">No coverage found.</text>'
    '<text x="10" y="35">Private repositories need ?token=&lt;graph token&gt;</text>'
    "</g></svg>"
)


def _svg_response(body: bytes, status: int = 200) -> Response:
    response = Response(body, status=status, mimetype="image/svg+xml")
    response.headers.update(SVG_HEADERS)
    return response


def _render_error(error: CoverageError) -> Response:
    """The graphs' one error answer: the "no coverage" image for every 404 (an ``<img>`` shows the
    hint), a line of text for anything else (the validators' messages name the parameter and what
    is accepted, never the value sent)."""
    if error.status == 404:
        return _svg_response(NOT_FOUND_SVG.encode())
    if error.status == 503:
        return plain_text_response(str(error))
    response = plain_text_response(f"{HTTP_STATUS_CODES.get(error.status, 'Error').capitalize()}: {error}.")
    response.headers.update(SVG_HEADERS)
    return response


handle_errors(bp, _render_error)


def _readable_target(
    prov: str,
    owner: str,
    name: str,
    branch: Optional[str],
    pullid: Optional[str],
    sha: Optional[str],
    flag: Optional[str],
) -> Optional[tuple[Repository, Commit, Coverage, Optional[str]]]:
    """The repository the URL names, the commit its target names (see the module docstring), the
    coverage to show (the commit's, or with ``flag`` that flag's in the commit) and the graph token
    accepted (read once, here; ``None`` for a public repository); if this request may read them, else
    ``None``: the one 404 (an unknown flag included). One query."""
    service = SERVICE_BY_SHORT.get(prov)
    if service is None:
        return None
    target: dict[str, Any] = {"sha": sha, "branch": branch}
    if pullid is not None:
        target = {"pullid": pull_number(pullid)}
        if target["pullid"] is None:
            return None
    if flag is None:
        found = find_target(service, owner, name, **target)
        coverage: Optional[Coverage] = None if found is None else found[1]
    else:
        flagged = find_flag_target(service, owner, name, flag, **target)
        found, coverage = (None, None) if flagged is None else (flagged[:2], flagged[2])
    if found is None or coverage is None:
        return None
    repository, token = found[0], None
    if repository.private:
        token = graph_token()
        if not call_hook("verify_graph_token", repository, token):
            return None
    return repository, found[1], coverage, token


def _private_headers(response: Response, repository: Repository) -> Response:
    if repository.private:
        # The body names a private repository's files: no shared cache may keep it.
        response.headers["Cache-Control"] = "private, no-cache"
    return response


def _etag(*parts: object) -> str:
    return etag(_RENDERER, *parts)


def _commit_identity(commit: Commit, coverage: Coverage) -> tuple[object, ...]:
    # The creation time tells a commit apart from a deleted one whose row id was reused.
    identity = (commit.repository_id, commit.id, commit.sha, commit.timestamp.isoformat(), commit.version)
    if isinstance(coverage, CommitFlag):
        return (*identity, "flag", coverage.id, coverage.flag, coverage.version)
    return identity


def _not_modified(etag: str) -> bool:
    return request.if_none_match.contains_weak(etag)


def _compressed_svg(
    key: str, options: GraphOptions, commit: Coverage, version: tuple[object, ...], repository_id: int
) -> bytes:
    """The graph, gzip-compressed: from the cache, or drawn from the database and stored."""
    cache, body = get_cache(), None
    with cache_errors("graphs"):
        body = cache.get(key)
    if isinstance(body, bytes):
        return body
    with gc_paused():
        svg = render_graph_svg(graph_records(commit, version), options)
    # Level 1: most of the gain of level 9 (SVG repeats itself) at a fraction of the time.
    body = gzip.compress(svg.encode(), compresslevel=1, mtime=0)
    with cache_errors("graphs"):
        variants_key = f"coverage-graph-variants:{_etag('variants', *version)}"
        if _may_cache(cache, variants_key, key, len(body), repository_id):
            cache.set(key, body)
    return body


def _may_cache(cache: Any, variants_key: str, key: str, size: int, repository_id: int) -> bool:
    """Whether the graph ``key`` of ``size`` bytes of repository ``repository_id`` may be stored: one of
    the first :data:`MAX_CACHED_VARIANTS` drawn of its commit's coverage, within the repository's share
    of the byte budget (:data:`REPOSITORY_BUDGET_SHARE`) and within the budget.

    Beyond them a graph is drawn on each request (from the records this process keeps) but not
    stored, so no client can fill the cache by asking for ever new sizes, and no repository can use up
    the budget of the others. The budget, ``COVERAGE_GRAPH_CACHE_MAX_BYTES``, counts the bytes stored
    during one cache timeout in counters kept in the cache itself (shared by the workers with Redis),
    which expire after two timeouts; entries live one timeout at most, so the graphs in the cache never
    exceed twice the budget.
    """
    variants = cache.get(variants_key)
    variants = variants if isinstance(variants, list) else []
    if key in variants:
        return True
    if len(variants) >= MAX_CACHED_VARIANTS:
        return False
    budget = current_app.config["COVERAGE_GRAPH_CACHE_MAX_BYTES"]
    if budget is not None:
        timeout = current_app.config["COVERAGE_CACHE_CONFIG"].get("CACHE_DEFAULT_TIMEOUT") or 86400
        period = f"coverage-graph-bytes:{int(time.time()) // timeout}"
        share = int(budget * REPOSITORY_BUDGET_SHARE)
        if not (
            _count(cache, f"{period}:{repository_id}", size, share, timeout)
            and _count(cache, period, size, budget, timeout)
        ):
            return False
    cache.set(variants_key, [*variants, key])
    return True


def _count(cache: Any, counter: str, size: int, budget: int, timeout: int) -> bool:
    """Add ``size`` to the byte counter ``counter`` (made with an expiry, so that no counter outlives its
    period) and say whether it stays within ``budget``."""
    backend = cache.cache
    client = getattr(backend, "_write_client", None)
    if client is not None:
        # Redis: INCRBY and EXPIRE in one round trip (older cachelib pickles what ``add`` stores, which
        # INCRBY then refuses).
        key = backend.key_prefix + counter
        stored, _ = client.pipeline().incrby(key, size).expire(key, 2 * timeout).execute()
    else:
        cache.add(counter, 0, timeout=2 * timeout)
        stored = backend.inc(counter, size)  # the backend's own, which keeps the expiry
    return stored is not None and stored <= budget


#: The query arguments a graph is drawn with.
GRAPH_PARAMS = ("width", "height", "border_size", "border_color")
#: What follows the repository in a URL to name its target commit (see the module docstring).
TARGETS = ("", "/branch/<path:branch>", "/pull/<pullid>", "/commit/<sha>")


def _image_routes(name: str) -> Callable[[F], F]:
    """Register a view at ``{target}/graphs/{name}`` and, as Codecov answers both,
    ``{target}/graph/{name}`` for every target (``graphs/`` first: ``url_for`` builds that one)."""

    def register(view: F) -> F:
        for folder in ("graphs", "graph"):
            for target in TARGETS:
                bp.add_url_rule(f"/<prov>/<owner>/<repo>{target}/{folder}/{name}", view_func=view, methods=["GET"])
        return view

    return register


@_image_routes("badge.<ext>")
def badge(
    prov: str,
    owner: str,
    repo: str,
    ext: str,
    branch: Optional[str] = None,
    pullid: Optional[str] = None,
    sha: Optional[str] = None,
) -> Response:
    """The coverage badge of the commit the URL's target names: ``badge.svg`` (an image) or
    ``badge.txt`` (the number alone); the one ``unknown`` badge when there is nothing to show."""
    if ext not in BADGE_MIMETYPES:
        raise NotFound()
    precision = request.args.get("precision", "0")
    if precision not in PRECISIONS:
        raise InvalidInput("precision must be 0, 1 or 2")
    flag = requested_flag()
    label = current_app.config["COVERAGE_BADGE_LABEL"]
    found = _readable_target(prov, owner, repo, branch, pullid, sha, flag)
    if found is None or found[2].lines <= 0:
        repository, value, color = None, UNKNOWN, UNKNOWN_COLOR
        # The same answer, ETag included, whatever was not found.
        etag = _etag("badge", ext, label)
    else:
        repository, commit, coverage, _ = found
        low, high = color_range(repository)
        value = format_coverage(coverage.hits, coverage.lines, int(precision))
        color = coverage_color(coverage.hits * 100 / coverage.lines, low, high)
        etag = _etag("badge", ext, label, precision, low, high, *_commit_identity(commit, coverage))
    if _not_modified(etag):
        body = b""
        status = 304
    else:
        body = render_badge_svg(label, f"{value}%" if repository else value, color) if ext == "svg" else value.encode()
        status = 200
    response = Response(body, status=status, mimetype=BADGE_MIMETYPES[ext])
    response.headers.update(SVG_HEADERS)
    response.set_etag(etag)
    return response if repository is None else _private_headers(response, repository)


@_image_routes("<kind>.svg")
def graph(
    prov: str,
    owner: str,
    repo: str,
    kind: str,
    branch: Optional[str] = None,
    pullid: Optional[str] = None,
    sha: Optional[str] = None,
) -> Response:
    """A coverage graph (``tree``, ``icicle`` or ``sunburst``) of the commit the URL's target names;
    ``commits``: the trend chart of the default branch or of the branch the URL names."""
    if kind == "commits":
        return _trend_graph(prov, owner, repo, branch, pullid, sha)
    if kind not in GRAPH_KINDS:
        raise NotFound()
    # Validated once, here at the edge: a bad one is an InvalidInput (a 400) naming it.
    params = validate_graph_params(kind, *(request.args.get(name) for name in GRAPH_PARAMS))
    flag = requested_flag()
    found = _readable_target(prov, owner, repo, branch, pullid, sha, flag)
    if found is None or not found[2].files:
        raise NotFound()
    repository, commit, coverage, token = found
    link_prefix, link_suffix = file_links(repository, commit, flag)
    options = params._replace(color_range=color_range(repository), link_prefix=link_prefix, link_suffix=link_suffix)
    etag = _etag("graph", *_commit_identity(commit, coverage), *options)
    if _not_modified(etag):
        response = _svg_response(b"", 304)
    else:
        identity = _commit_identity(commit, coverage)
        body = _compressed_svg(f"coverage-graph:{etag}", options, coverage, identity, repository.id)
        if request.accept_encodings["gzip"]:
            response = _svg_response(body)
            response.headers["Content-Encoding"] = "gzip"
        else:
            response = _svg_response(gzip.decompress(body))
    # Weak: the gzip and the plain body are the same image, and If-None-Match compares weakly.
    response.set_etag(etag, weak=True)
    response.vary.add("Accept-Encoding")
    return _private_headers(response, repository)


def _trend_graph(
    prov: str, owner: str, repo: str, branch: Optional[str], pullid: Optional[str], sha: Optional[str]
) -> Response:
    """``commits.svg``: the coverage of the last commits of a branch (a pull or a commit has none)."""
    if pullid is not None or sha is not None:
        raise NotFound()
    params = validate_graph_params("icicle", request.args.get("width"), request.args.get("height"))
    period, flag = trend_period(), requested_flag()
    found = _readable_target(prov, owner, repo, branch, None, None, None)
    if found is None:
        raise NotFound()
    repository = found[0]
    points = trend_points(repository, branch or repository.branch, period, flag)
    low, high = color_range(repository)
    # The ETag is made of what is drawn, so any upload to any of these commits changes it.
    etag = _etag("commits", repository.id, params.width, params.height, low, high, flag, *points)
    if _not_modified(etag):
        response = _svg_response(b"", 304)
    else:
        response = _svg_response(render_trend_svg(points, params.width, params.height, (low, high)))
    response.set_etag(etag)
    return _private_headers(response, repository)
