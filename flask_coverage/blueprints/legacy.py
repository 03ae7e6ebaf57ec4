"""The older public API: ``{COVERAGE_LEGACY_URL_PREFIX}/...`` (docs/legacy-api.md).

``GET /{gh|gl|bb|ghe|gle|bbs}/{owner}/{repo}/settings`` answers the repository's settings, tokens
included, to the repository's owner or an admin of the owning organization. The caller sends an
access token as ``Authorization: <token>`` (``token <token>`` and ``bearer <token>`` are accepted
too) or as ``?access_token=<token>``; the header wins when both are present.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from ..endpoints import Endpoints
from ..errors import CoverageError, Unauthorized
from ..http_errors import handle_errors
from ..models import Owner, Repository
from ..queries.lookups import admin_repository
from ..schemas.settings import SettingsPathSchema, SettingsSchema
from ..state import call_hook

bp = Blueprint("coverage_legacy", __name__)

_TOKEN_SCHEMES = ("token", "bearer")


def _render_error(error: CoverageError) -> Response:
    response = jsonify({"error": {"reason": str(error), "context": None}, "meta": {"status": error.status}})
    if error.status == 401:
        response.headers["WWW-Authenticate"] = "token"
    return response


handle_errors(bp, _render_error)


def access_token_user() -> Owner:
    """The user of the request's access token, via the ``verify_access_token`` hook.

    The ``Authorization`` header is read first (``<token>``, ``token <token>`` or ``bearer <token>``);
    only without it does ``?access_token=`` count. Raises a 401 ``Unauthorized`` when the token
    is missing, malformed, or denied by the hook.
    """
    header = request.headers.get("Authorization")
    if header is not None:
        token = header.strip()
        scheme, _, rest = token.partition(" ")
        if scheme.lower() in _TOKEN_SCHEMES and rest.strip():
            token = rest.strip()
        if not token or any(char.isspace() for char in token):
            raise Unauthorized("Invalid Authorization header. Expected 'Authorization: <access token>'.")
    else:
        token = request.args.get("access_token", "")
        if not token:
            raise Unauthorized("Authentication credentials were not provided.")
    user = call_hook("verify_access_token", token)
    if user is None:
        raise Unauthorized("Invalid access token.")
    return user


endpoints = Endpoints(authenticate=lambda required: access_token_user(), route=bp.get)


@endpoints.get(
    "/<provider>/<owner>/<repo>/settings",
    path=SettingsPathSchema,
    auth="required",
    lookup=admin_repository,
    response=SettingsSchema,
    # The body holds the upload and graph tokens.
    headers={"Cache-Control": "no-store"},
)
def repository_settings(repository: Repository, args: dict[str, Any]) -> dict[str, Any]:
    """A repository's settings, for its owner or an admin of the owning organization."""
    return {"owner": repository.owner, "repo": repository}
