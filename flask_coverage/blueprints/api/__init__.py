"""The versioned JSON API (v2): ``{COVERAGE_API_URL_PREFIX}/...`` (docs/api.md).

One blueprint, its views by resource: :mod:`.users` (an organization's members, one member and its
activation), :mod:`.repos` (owners, repositories, commits, branches, pulls), :mod:`.coverage` (the
report, flags, uploads, totals, a file, the comparison, the trends) and :mod:`.components` (the
components of ``codecov.yml``). Every endpoint is declared once with :func:`api_get`
(:class:`flask_coverage.endpoints.Endpoints`): its path, query and response schemas and the lookup
of what its URL names. The declaration authenticates, validates, calls the view with what it loaded,
paginates or dumps the result, answers the other methods with a JSON 405, and adds the OpenAPI
operation written from the same objects to :data:`document`, which is served at
``{COVERAGE_API_URL_PREFIX}/openapi.json``.
"""

from __future__ import annotations

from typing import Any, Callable

from flask import Blueprint, Response, current_app, request
from flask.blueprints import BlueprintSetupState
from marshmallow import Schema
from werkzeug.routing import PathConverter

from ...endpoints import REFUSED_METHODS, Endpoints, bearer_user, json_routes
from ...errors import CoverageError, NotFound
from ...http_errors import detail_json, handle_errors
from ...openapi import ApiDocument
from ...queries.lookups import NOT_FOUND, readable_repository
from ...schemas.common import RepositoryPathSchema

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


def _render_error(error: CoverageError) -> Response:
    response = detail_json(error)
    if error.status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


handle_errors(bp, _render_error)
_route = json_routes(bp)

#: The v2 API's endpoints; ``api_get(rule, ...)`` declares one (see :meth:`Endpoints.get`).
endpoints = Endpoints(
    authenticate=lambda required: bearer_user(required=required), route=_route, document=document, not_found=NOT_FOUND
)
api_get = endpoints.get


def not_found(rest: str = "") -> Any:
    """Any other path under the prefix: the JSON 404, never the host app's page."""
    raise NotFound(NOT_FOUND)


@bp.record
def _add_not_found(state: BlueprintSetupState) -> None:
    # Routing prefers every other rule, so these answer only what nothing else matched. Under an
    # empty prefix they would take the host app's own 404s: then they are left out.
    if state.url_prefix:
        methods = ["GET", "HEAD", "OPTIONS", *REFUSED_METHODS]
        for rule in ("/", "/<path:rest>"):
            state.add_url_rule(rule, "not_found", not_found, methods=methods, provide_automatic_options=False)


@_route("/openapi.json")
def openapi_document() -> Any:
    """The OpenAPI 3 document of the v2 API."""
    return document.to_dict(url_prefix=current_app.config["COVERAGE_API_URL_PREFIX"], server_url=request.script_root)


#: The rule of a repository's URLs, and what their docs say about who may read them.
REPO_RULE = "/<service>/<coverage_name:owner_username>/repos/<coverage_name:repo>"
VISIBILITY = (
    " Public repositories can be read without a token; private ones by the users the git host lets read them "
    "(for a repository the host does not know, by the owner and its activated members). Anything unknown or not "
    "visible to the caller gets the same 404."
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


# The views, by resource, join bp and document as they are declared (in the order of the document).
from . import users, coverage, repos, components, compare  # noqa: E402, F401, I001
