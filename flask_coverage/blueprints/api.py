"""The versioned JSON API (v2): ``{COVERAGE_API_URL_PREFIX}/...`` (DESIGN sections 3 and 3b)."""

from __future__ import annotations

from typing import Any, Optional

from flask import Blueprint, jsonify, request
from werkzeug.exceptions import HTTPException

from ..models import Owner
from ..state import call_hook

bp = Blueprint("coverage_api", __name__)


class ApiError(Exception):
    """An error answered as ``{"detail": message}`` (plus ``errors`` per field for a 400)."""

    def __init__(self, status: int, detail: str, errors: Optional[dict[str, list[str]]] = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors


@bp.errorhandler(ApiError)
def _api_error(error: ApiError) -> Any:
    body: dict[str, Any] = {"detail": error.detail}
    if error.errors:
        body["errors"] = error.errors
    response = jsonify(body)
    response.status_code = error.status
    if error.status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


@bp.errorhandler(HTTPException)
def _http_error(error: HTTPException) -> Any:
    return _api_error(ApiError(error.code or 500, error.description or error.name))


def bearer_user(*, required: bool = True) -> Optional[Owner]:
    """The user of the request's ``Authorization: Bearer <token>``, via the ``verify_token`` hook.

    Raises a 401 :class:`ApiError` for a malformed header or a token the hook denies, and for a
    missing header when ``required``.
    """
    header = request.headers.get("Authorization")
    if header is None:
        if required:
            raise ApiError(401, "Authentication credentials were not provided.")
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise ApiError(401, "Invalid token header. Expected 'Authorization: Bearer <token>'.")
    user = call_hook("verify_token", token)
    if user is None:
        raise ApiError(401, "Invalid token.")
    return user
