"""The versioned JSON API (v2): ``{COVERAGE_API_URL_PREFIX}/...`` (docs/api.md).

Every v2 endpoint is declared once with :func:`api_get`: its path, query and response schemas and
the lookup of what its URL names. The decorator authenticates, validates, calls the view with what
it loaded, paginates or dumps the result, answers the other methods with a JSON 405, and adds the
OpenAPI operation written from the same objects to :data:`document`, which is served at
``{COVERAGE_API_URL_PREFIX}/openapi.json``.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii
from typing import Any, Callable, Optional, TypeVar

import sqlalchemy as sa
from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context
from flask.blueprints import BlueprintSetupState
from marshmallow import Schema, ValidationError, fields
from werkzeug.routing import PathConverter

from ..commits import (
    Coverage,
    file_rows,
    find_flag,
    flags_query,
    resolve_commit,
    uploads_query,
)
from ..errors import CoverageError, InvalidInput, NotFound, Unauthorized
from ..http_errors import detail_json, handle_errors
from ..lines import LineCoverage, Totals, percent
from ..lookups import NOT_FOUND, member_org, queried_commit, readable_commit, readable_repository
from ..models import Commit, Membership, Owner, OwnerRow, Repository
from ..openapi import BEARER_AUTH, ApiDocument, error_responses
from ..pagination import Listing, paginate
from ..schemas import (
    CommitPathSchema,
    CommitReportSchema,
    FlagListQuerySchema,
    OwnerPathSchema,
    PaginatedFlagListSchema,
    PaginatedSchema,
    PaginatedUploadListSchema,
    PaginatedUserListSchema,
    PaginationQuerySchema,
    ReportQuerySchema,
    RepositoryPathSchema,
    UserListQuerySchema,
)
from ..state import call_hook, get_engine, reads_without_transaction
from ..urls import commit_url, page_url

F = TypeVar("F", bound=Callable[..., Any])

bp = Blueprint("coverage_api", __name__)


class _NameConverter(PathConverter):
    """Any non-empty text, "/" and newlines included, so every owner name reaches a view and its JSON 404."""

    regex = r"[^/][\s\S]*?"


@bp.record_once
def _add_name_converter(state: BlueprintSetupState) -> None:
    # A namespaced converter on the app's map: blueprints cannot have their own.
    state.app.url_map.converters.setdefault("coverage_name", _NameConverter)


#: The OpenAPI document of the v2 API; :func:`api_get` adds every view to it.
document = ApiDocument(
    title="flask-coverage API",
    version="2",
    description="The versioned JSON API of the coverage service. Authenticate with "
    "`Authorization: Bearer <access token>`.",
    tags={"Users": "The members of an organization."},
)

_ALLOW = "GET, HEAD, OPTIONS"
# Routed to the views only to answer them with a JSON 405 instead of the host app's error page.
_REFUSED_METHODS = ["POST", "PUT", "PATCH", "DELETE"]


def _render_error(error: CoverageError) -> Response:
    response = detail_json(error)
    if error.status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


handle_errors(bp, _render_error)


def _read_only(view: F) -> F:
    @functools.wraps(view)
    def wrapper(**kwargs: Any) -> Any:
        if request.method == "OPTIONS":
            return Response(status=200, headers={"Allow": _ALLOW})
        if request.method not in ("GET", "HEAD"):
            raise CoverageError(f'Method "{request.method}" not allowed.', status=405, headers={"Allow": _ALLOW})
        return view(**kwargs)

    return wrapper  # type: ignore[return-value]


def _route(rule: str) -> Callable[[F], F]:
    def decorator(view: F) -> F:
        methods = ["GET", "OPTIONS", *_REFUSED_METHODS]
        bp.add_url_rule(rule, view_func=_read_only(view), methods=methods, provide_automatic_options=False)
        return view

    return decorator


# The OpenAPI security of each ``auth``; ``{}`` is "or no token at all".
_SECURITY: dict[str, list[dict[str, list[str]]]] = {
    "required": [{BEARER_AUTH: []}],
    "optional": [{BEARER_AUTH: []}, {}],
}


class Endpoints:
    """Declares the JSON endpoints of one blueprint, each once: see :meth:`get`.

    ``authenticate(required)`` reads the request's credentials (``None`` when none are sent and
    ``required`` is false; an ``Unauthorized`` for bad ones); ``route(rule)`` registers a view on the
    blueprint; ``document``, if given, receives each endpoint's OpenAPI operation; ``not_found`` is
    the message of the 404 for a path value the path schema refuses (``None``: the schema's message).
    """

    def __init__(
        self,
        *,
        authenticate: Callable[[bool], Optional[Owner]],
        route: Callable[[str], Callable[[Callable[..., Any]], Any]],
        document: Optional[ApiDocument] = None,
        not_found: Optional[str] = None,
    ) -> None:
        self.authenticate = authenticate
        self.route = route
        self.document = document
        self.not_found = not_found

    def get(
        self,
        rule: str,
        *,
        lookup: Callable[..., Any],
        response: type[Schema],
        path: Optional[type[Schema]] = None,
        query: Optional[type[Schema]] = None,
        auth: Optional[str] = None,
        rows: Optional[Callable[[sa.Subquery], sa.Select]] = None,
        item: Optional[Callable[[Any], Any]] = None,
        headers: Optional[dict[str, str]] = None,
        errors: tuple[int, ...] = (),
        **operation: str,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Declare a ``GET`` endpoint at ``rule``: route, authenticate, validate, inject, dump, document.

        A request is answered in this order, so that nothing about a resource the caller may not
        see leaks through a different status:

        1. ``auth``: ``"required"`` reads the credentials (a 401 without them), ``"optional"`` reads
           them when sent (bad ones are still a 401), ``None`` reads none; the user (or ``None``) goes on.
        2. ``path`` loads the URL's arguments (a value it refuses, such as an unknown service, is a
           404); without it they go on as the URL has them.
        3. ``lookup(user, **path_arguments)`` returns what the URL names, or raises the 404.
        4. ``query`` loads the query string (a 400 naming each bad argument); ``{}`` without it.
        5. ``view(found, args)`` returns the body: an object ``response`` dumps; for a
           ``PaginatedSchema`` response, a ``select`` in a total order paginated by ``args`` (``rows``
           as for :func:`flask_coverage.pagination.paginate`, ``item`` makes a row into a result) or a
           :class:`~flask_coverage.pagination.Listing` (the select with its parameters' values and a
           cheaper count); or a ready
           :class:`~flask.Response`.
           ``headers`` are added to the answer.

        With a ``document``, the OpenAPI operation (``operation_id``, ``tag``, ``summary`` and
        ``description`` in ``operation``) is written from the same objects: the parameters of
        ``path`` and ``query``, the 200 body of ``response``, the security of ``auth``, and the
        error responses the steps can answer plus ``errors``.
        """
        path_schema = path() if path else None
        query_schema = query() if query else None
        response_schema = response()
        pages = isinstance(response_schema, PaginatedSchema)
        if self.document is not None:
            self.document.add(rule, "get", _operation(operation, path, query, response, auth, errors))

        def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(view)
            def endpoint(**values: str) -> Any:
                # A list only reads: without a transaction, it saves PostgreSQL two round trips.
                with reads_without_transaction() if pages else contextlib.nullcontext():
                    user = self.authenticate(auth == "required") if auth else None
                    arguments: dict[str, Any] = values
                    if path_schema is not None:
                        try:
                            arguments = path_schema.load(values)
                        except ValidationError as error:
                            raise NotFound(self.not_found or _first_message(error.messages)) from None
                    found = lookup(user, **arguments)
                    args = load_query(query_schema) if query_schema is not None else {}
                    result = view(found, args)
                    if pages:
                        listing = result if isinstance(result, Listing) else Listing(result)
                        result = jsonify(paginated(response_schema, listing, args, rows=rows, item=item))
                    elif not isinstance(result, Response):
                        result = jsonify(response_schema.dump(result))
                    result.headers.update(headers or {})
                    if user is not None:
                        # Read with credentials, so possibly private: no shared cache may keep it.
                        result.headers.setdefault("Cache-Control", "private, no-store")
                    return result

            return self.route(rule)(endpoint)

        return decorator


def _first_message(messages: Any) -> str:
    while not isinstance(messages, str):
        messages = next(iter(messages.values() if isinstance(messages, dict) else messages))
    return messages


def _operation(
    operation: dict[str, str],
    path: Optional[type[Schema]],
    query: Optional[type[Schema]],
    response: type[Schema],
    auth: Optional[str],
    errors: tuple[int, ...],
) -> dict[str, Any]:
    """The OpenAPI operation of an endpoint :meth:`Endpoints.get` declares."""
    statuses = {404, *errors}
    statuses.update(status for status, used in ((400, query), (401, auth)) if used)
    parameters = [{"in": where, "schema": schema} for where, schema in (("path", path), ("query", query)) if schema]
    return {
        "operationId": operation["operation_id"],
        "tags": [operation["tag"]],
        "summary": operation["summary"],
        "description": operation["description"],
        **({"security": _SECURITY[auth]} if auth else {}),
        "parameters": parameters,
        "responses": {
            "200": {
                # The first line of the response schema's docstring.
                "description": (response.__doc__ or "").strip().split("\n")[0],
                "content": {"application/json": {"schema": response}},
            },
            **error_responses(*sorted(statuses)),
        },
    }


def bearer_user(*, required: bool = True) -> Optional[Owner]:
    """The user of the request's ``Authorization: Bearer <token>``, via the ``verify_token`` hook.

    Raises :class:`~flask_coverage.errors.Unauthorized` for a malformed header or a token the hook denies, and for a
    missing header when ``required``.
    """
    header = request.headers.get("Authorization")
    if header is None:
        if required:
            raise Unauthorized("Authentication credentials were not provided.")
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise Unauthorized("Invalid token header. Expected 'Authorization: Bearer <token>'.")
    user = call_hook("verify_token", token)
    if user is None:
        raise Unauthorized("Invalid token.")
    return user


#: The v2 API's endpoints; ``api_get(rule, ...)`` declares one (see :meth:`Endpoints.get`).
endpoints = Endpoints(
    authenticate=lambda required: bearer_user(required=required), route=_route, document=document, not_found=NOT_FOUND
)
api_get = endpoints.get


def load_query(schema: Schema) -> dict[str, Any]:
    """The request's query arguments loaded by ``schema``; else ``InvalidInput`` (a 400) naming each bad one."""
    # A list argument is repeated (?names=a&names=b); every other one is read once.
    args = {
        key: request.args.getlist(key) if isinstance(schema.fields.get(key), fields.List) else value
        for key, value in request.args.items()
    }
    try:
        return schema.load(args)
    except ValidationError as error:
        messages = error.messages if isinstance(error.messages, dict) else {"_query": error.messages}
        errors = {key: list(dict.fromkeys(_flat(value))) for key, value in messages.items()}
        raise InvalidInput("Invalid query parameters.", errors=errors) from None


def _flat(messages: Any) -> list[str]:
    # A list argument's messages come per item ({index: [...]}): one list of messages per argument.
    if isinstance(messages, dict):
        return [message for value in messages.values() for message in _flat(value)]
    return [str(message) for message in messages] if isinstance(messages, list) else [str(messages)]


def paginated(
    schema: Schema,
    listing: Listing,
    args: dict[str, Any],
    rows: Optional[Callable[[sa.Subquery], sa.Select]] = None,
    item: Optional[Callable[[Any], Any]] = None,
) -> dict[str, Any]:
    """The page ``args["page"]`` (of ``args["page_size"]`` rows) of ``listing``, dumped by ``schema``.

    ``args`` are the request's arguments loaded by a ``PaginationQuerySchema``; ``schema`` is a
    ``PaginatedSchema`` whose ``results`` dump the rows; ``listing`` and ``rows`` are as for
    :func:`flask_coverage.pagination.paginate`; ``item``, if given, makes each row into what ``results``
    dump. The envelope holds ``count``, ``total_pages`` and the
    absolute links of the neighbour pages. A page past the last is ``InvalidPage`` (a 404).
    """
    page = paginate(
        listing.query,
        page=args["page"],
        page_size=args["page_size"],
        max_page_size=current_app.config["COVERAGE_MAX_PAGE_SIZE"],
        rows=rows,
        count=listing.count_query,
        params=listing.params,
    )
    return schema.dump(
        {
            "count": page.count,
            "next": page_url(page.next_number),
            "previous": page_url(page.previous_number),
            "total_pages": page.total_pages,
            "results": page.items if item is None else [item(row) for row in page.items],
        }
    )


#: The shortest search term a trigram index can serve.
TRIGRAM = 3


def members_query(
    org: OwnerRow, *, activated: Optional[bool] = None, is_admin: Optional[bool] = None, search: Optional[str] = None
) -> sa.Select:
    """The keys of the members of ``org`` (users of its service), in the documented order.

    The order is ``lower(username)`` in the database's collation (``Membership.sort_key``), then the
    owner id: total, so pages never overlap. Without ``search`` a page of keys is read from the
    ``(org_id, sort_key, user_id, activated, is_admin)`` index alone; :func:`member_rows` then joins
    only the page to the owners.
    """
    keys = (Membership.sort_key, Membership.user_id, Membership.activated, Membership.is_admin)
    query = sa.select(*keys).where(*_memberships(org, activated, is_admin))
    terms = dict.fromkeys((search or "").split())
    if not terms:
        return query.where(Membership.sort_key.is_not(None)).order_by(Membership.sort_key, Membership.user_id)
    # The same members as "sort_key IS NOT NULL", said on the owners: the planner may start from the
    # owners that match (the trigram index on PostgreSQL, a scan on SQLite) and probe the memberships.
    query = query.join(Owner, Owner.id == Membership.user_id).where(Owner.service == org.service)
    dialect = get_engine().dialect.name
    for term in terms:
        fields = (Owner.username, Owner.name, Owner.email)
        query = query.where(sa.or_(*(_contains(column, term, dialect) for column in fields)))
    order: Any = Membership.sort_key
    if dialect == "postgresql" and any(len(term) >= TRIGRAM for term in terms):
        # The trigram index finds the matches; expecting many, PostgreSQL would rather walk the list's
        # order until 20 match, which reads every member when few do. An order no index gives makes it
        # sort the matches it found: the page costs at most what the count costs.
        order = order + ""
    return query.order_by(order, Membership.user_id)


def members_count(
    org: OwnerRow, *, activated: Optional[bool] = None, is_admin: Optional[bool] = None, search: Optional[str] = None
) -> Optional[sa.Select]:
    """The number of rows of :func:`members_query` counted the cheap way, or ``None`` for a search.

    The memberships of ``org`` less those of users on another service (``sort_key`` NULL, rare): two
    ranges of narrow indexes instead of one of the wide ``(org_id, sort_key, ...)`` one.
    """
    if (search or "").split():
        return None
    query = sa.select(sa.func.count()).select_from(Membership).where(*_memberships(org, activated, is_admin))
    return sa.select(query.scalar_subquery() - query.where(Membership.sort_key.is_(None)).scalar_subquery())


def _memberships(org: OwnerRow, activated: Optional[bool], is_admin: Optional[bool]) -> list[Any]:
    """The conditions on the memberships of ``org`` with the given flags."""
    conditions = [Membership.org_id == org.id]
    if activated is not None:
        conditions.append(Membership.activated == activated)
    if is_admin is not None:
        conditions.append(Membership.is_admin == is_admin)
    return conditions


def _contains(column: Any, term: str, dialect: str) -> Any:
    """SQL for: ``term`` is a case-insensitive substring of ``column`` (``%`` and ``_`` are literal)."""
    if dialect == "sqlite":
        # SQLite's LIKE ignores the case of ASCII letters, the only ones its lower() folds: the same
        # match as lower(column) LIKE lower(pattern), without two lower() calls per row.
        return column.contains(term, autoescape=True)
    if len(term) < TRIGRAM:
        # No trigram index serves a term this short; another statement, so that PostgreSQL's cached
        # generic plan of the indexed one (which reads the whole index for it) never runs it.
        column = column + ""
    return column.icontains(term, autoescape=True)


def member_rows(keys: sa.Subquery) -> sa.Select:
    """The ``User`` fields of a page of :func:`members_query`, in its order."""
    return (
        sa.select(Owner.service, Owner.username, Owner.name, Owner.email, keys.c.activated, keys.c.is_admin)
        .join(keys, keys.c.user_id == Owner.id)
        .order_by(keys.c.sort_key, keys.c.user_id)
    )


@api_get(
    "/<service>/<coverage_name:owner_username>/users/",
    operation_id="users_list",
    tag="Users",
    summary="List the members of an organization",
    description="The members of the organization, with the flags of their membership, ordered by username "
    "(case-insensitive). Only members of the organization (and the organization's own account) may list them; "
    "anyone else gets the same 404 as for an unknown owner.",
    auth="required",
    path=OwnerPathSchema,
    lookup=member_org,
    query=UserListQuerySchema,
    response=PaginatedUserListSchema,
    rows=member_rows,
)
def users_list(org: OwnerRow, args: dict[str, Any]) -> Listing:
    """``GET /{service}/{owner_username}/users/``: one page of the members of an organization."""
    filters = {name: args.get(name) for name in ("activated", "is_admin", "search")}
    return Listing(members_query(org, **filters), count_query=members_count(org, **filters))


def not_found(rest: str = "") -> Any:
    """Any other path under the prefix: the JSON 404, never the host app's page."""
    raise NotFound(NOT_FOUND)


@bp.record
def _add_not_found(state: BlueprintSetupState) -> None:
    # Routing prefers every other rule, so these answer only what nothing else matched. Under an
    # empty prefix they would take the host app's own 404s: then they are left out.
    if state.url_prefix:
        methods = ["GET", "HEAD", "OPTIONS", *_REFUSED_METHODS]
        for rule in ("/", "/<path:rest>"):
            state.add_url_rule(rule, "not_found", not_found, methods=methods, provide_automatic_options=False)


@_route("/openapi.json")
def openapi_document() -> Any:
    """The OpenAPI 3 document of the v2 API."""
    return document.to_dict(url_prefix=current_app.config["COVERAGE_API_URL_PREFIX"], server_url=request.script_root)


#: The rule of a repository's URLs, and what their docs say about who may read them.
REPO_RULE = "/<service>/<coverage_name:owner_username>/repos/<coverage_name:repo>"
VISIBILITY = (
    " Public repositories can be read without a token; private ones by the owner and its activated members. "
    "Anything unknown or not visible to the caller gets the same 404."
)


def repo_get(
    rule: str,
    *,
    description: str,
    path: type[Schema] = RepositoryPathSchema,
    lookup: Callable[..., Any] = readable_repository,
    **options: Any,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """:func:`api_get` of a repository's URL, ``REPO_RULE`` + ``rule``: read with a token or without,
    what the path names found for the caller (by default the repository: the one 404 otherwise), and
    the docs' ``description`` followed by who may read it."""
    return api_get(
        REPO_RULE + rule, auth="optional", path=path, lookup=lookup, description=description + VISIBILITY, **options
    )


# The coverage report of a commit (docs/upload.md, the report API).

document.tags["Coverage"] = "The coverage stored for the commits of a repository."


@api_get(
    f"{REPO_RULE}/report/",
    operation_id="repos_report_retrieve",
    tag="Coverage",
    summary="The coverage report of a commit",
    description="The totals, and every file with the state of each tracked line, of one commit: `sha`, else "
    "the tip of `branch`, else the tip of the default branch; `path` keeps only the files under it. Public "
    "repositories can be read without a token; private ones by activated members of the owning organization "
    "(and the owner), and their answers are `Cache-Control: private, no-store`. Anything unknown or not "
    "visible to the caller gets the same 404.",
    auth="optional",
    path=RepositoryPathSchema,
    lookup=readable_repository,
    query=ReportQuerySchema,
    response=CommitReportSchema,
)
def repos_report_retrieve(repository: Repository, args: dict[str, Any]) -> Response:
    """``GET /{service}/{owner_username}/repos/{repo}/report/``: the coverage report of a commit."""
    commit = queried_commit(repository, args)
    flag = args.get("flag")
    coverage = commit if not flag else find_flag(commit, flag)
    url = commit_url(repository, commit.sha)
    # Streamed: the body is made while the rows are read, so memory does not grow with the files. The
    # rows' statement runs in the stream, not here: Flask ends the view's session before the body is sent.
    end = (', "commit_file_url": ', current_app.json.dumps(url), "}")
    text = itertools.chain("{", report_json(coverage, args.get("path")), end)
    return Response(stream_with_context(text), mimetype="application/json")


document.tags["Flags"] = "The flags uploads carried, and the coverage of each."


@api_get(
    f"{REPO_RULE}/flags/",
    operation_id="repos_flags_list",
    tag="Flags",
    summary="List the flags of a repository",
    description="Every flag that uploads to the repository carried, by name, with its coverage in one commit: "
    "`sha`, else the tip of `branch`, else the tip of the default branch (`null` for a flag that commit has no "
    "upload with, and for every flag when the default branch has no coverage yet). Same access as the report.",
    auth="optional",
    path=RepositoryPathSchema,
    lookup=readable_repository,
    query=FlagListQuerySchema,
    response=PaginatedFlagListSchema,
)
def repos_flags_list(repository: Repository, args: dict[str, Any]) -> sa.Select:
    """``GET /{service}/{owner_username}/repos/{repo}/flags/``: one page of the flags of a repository."""
    commit = resolve_commit(repository, sha=args.get("sha"), branch=args.get("branch"))
    if commit is None and ("sha" in args or "branch" in args):
        raise NotFound(NOT_FOUND)
    return flags_query(repository, commit)


#: The report is yielded in pieces of about this many characters: one write to the client per piece.
REPORT_PIECE = 64 * 1024


def report_json(commit: Optional[Coverage], path: Optional[str] = None) -> Iterator[str]:
    """The members ``"files": [...], "totals": ...`` of a report's JSON object, as pieces of text
    (of a commit, or of a flag of it; ``None``: an empty report).

    Each file is written to JSON text as soon as its row is read, in one format string (the bytes
    Flask's JSON provider gives :class:`~flask_coverage.schemas.FileReportSchema`'s dump: keys
    sorted, ``", "`` and ``": "``, ASCII), and the text is yielded in pieces of about
    :data:`REPORT_PIECE` characters: a streamed answer holds one piece at a time, whatever the number
    of files. ``files`` comes first so that ``totals`` are those of the very files sent.
    """
    files = lines = hits = misses = partials = 0
    piece = ['"files": [']
    size = 0
    separator = ""
    decode = LineCoverage.decode
    for name, file_lines, file_hits, file_misses, file_partials, data in (
        file_rows(commit, path) if commit is not None else ()
    ):
        pairs = ", ".join(itertools.starmap("[{}, {}]".format, decode(data).line_states()))
        totals = totals_json(file_lines, file_hits, file_misses, file_partials, 1)
        text = f'{separator}{{"line_coverage": [{pairs}], "name": {encode_basestring_ascii(name)}, "totals": {totals}}}'
        piece.append(text)
        size += len(text)
        if size >= REPORT_PIECE:
            yield "".join(piece)
            piece, size = [], 0
        separator = ", "
        files += 1
        lines += file_lines
        hits += file_hits
        misses += file_misses
        partials += file_partials
    piece.append('], "totals": ' + totals_json(lines, hits, misses, partials, files))
    yield "".join(piece)


def totals_json(lines: int, hits: int, misses: int, partials: int, files: int) -> str:
    """:func:`totals_body` as JSON text (keys sorted), written without a dict or a schema."""
    return (
        f'{{"branches": 0, "coverage": {percent(hits, lines)!r}, "files": {files}, "hits": {hits}, '
        f'"lines": {lines}, "methods": 0, "misses": {misses}, "partials": {partials}}}'
    )


def totals_body(totals: Totals, files: int) -> dict[str, Any]:
    """The ``CoverageTotalsSchema`` fields of ``totals`` over ``files`` files."""
    return {
        "files": files,
        "lines": totals.lines,
        "hits": totals.hits,
        "misses": totals.misses,
        "partials": totals.partials,
        "coverage": totals.coverage,
        "branches": 0,
        "methods": 0,
    }


@api_get(
    f"{REPO_RULE}/commits/<sha>/uploads/",
    operation_id="repos_commits_uploads_list",
    tag="Coverage",
    summary="List the uploads of a commit",
    description="The uploads merged into a commit, oldest first, with their flags, name, CI build, job and URL. "
    "Read as the report is: public repositories without a token, private ones by their members; anything "
    "unknown or not visible to the caller gets the same 404.",
    auth="optional",
    path=CommitPathSchema,
    lookup=readable_commit,
    query=PaginationQuerySchema,
    response=PaginatedUploadListSchema,
)
def repos_commits_uploads_list(commit: Commit, args: dict[str, Any]) -> sa.Select:
    """``GET .../repos/{repo}/commits/{sha}/uploads/``: one page of the uploads of a commit."""
    return uploads_query(commit)
