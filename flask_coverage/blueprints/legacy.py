"""The older public API: ``{COVERAGE_LEGACY_URL_PREFIX}/...`` (docs/legacy-api.md).

``GET /{gh|gl|bb|ghe|gle|bbs}/{owner}/{repo}/settings`` answers the repository's settings, tokens
included, to the repository's owner or an admin of the owning organization. The caller sends an
access token as ``Authorization: <token>`` (``token <token>`` and ``bearer <token>`` are accepted
too) or as ``?access_token=<token>``; the header wins when both are present.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Optional

from flask import Blueprint, jsonify, request
from werkzeug.exceptions import HTTPException

from ..auth import is_admin
from ..commits import find_readable_repository
from ..models import SERVICE_BY_SHORT, Owner, Repository
from ..outage import handle_database_outage
from ..state import call_hook

bp = Blueprint("coverage_legacy", __name__)

_TOKEN_SCHEMES = ("token", "bearer")


class LegacyError(Exception):
    """An error answered in the legacy envelope ``{"error": {"reason", "context"}, "meta": {"status"}}``."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@bp.errorhandler(LegacyError)
def _legacy_error(error: LegacyError) -> Any:
    response = jsonify({"error": {"reason": error.reason, "context": None}, "meta": {"status": error.status}})
    response.status_code = error.status
    if error.status == 401:
        response.headers["WWW-Authenticate"] = "token"
    return response


@bp.errorhandler(HTTPException)
def _http_error(error: HTTPException) -> Any:
    return _legacy_error(LegacyError(error.code or 500, error.description or error.name))


handle_database_outage(bp, lambda message: _legacy_error(LegacyError(503, message)))


def access_token_user() -> Owner:
    """The user of the request's access token, via the ``verify_access_token`` hook.

    The ``Authorization`` header is read first (``<token>``, ``token <token>`` or ``bearer <token>``);
    only without it does ``?access_token=`` count. Raises a 401 :class:`LegacyError` when the token
    is missing, malformed, or denied by the hook.
    """
    header = request.headers.get("Authorization")
    if header is not None:
        token = header.strip()
        scheme, _, rest = token.partition(" ")
        if scheme.lower() in _TOKEN_SCHEMES and rest.strip():
            token = rest.strip()
        if not token or any(char.isspace() for char in token):
            raise LegacyError(401, "Invalid Authorization header. Expected 'Authorization: <access token>'.")
    else:
        token = request.args.get("access_token", "")
        if not token:
            raise LegacyError(401, "Authentication credentials were not provided.")
    user = call_hook("verify_access_token", token)
    if user is None:
        raise LegacyError(401, "Invalid access token.")
    return user


def _timestamp(value: Optional[dt.datetime]) -> Optional[str]:
    # Stored as naive UTC; the API says so explicitly.
    return value.replace(tzinfo=dt.timezone.utc).isoformat() if value is not None else None


def settings_payload(repository: Repository) -> dict[str, Any]:
    """The body of the settings endpoint for ``repository``: its owner and its settings, tokens included."""
    owner = repository.owner
    return {
        "owner": {
            "username": owner.username,
            "name": owner.name,
            "service": owner.service.value,
            "service_id": owner.service_id,
            "avatar_url": owner.avatar_url,
            "updatestamp": _timestamp(owner.updatestamp),
        },
        "repo": {
            "name": repository.name,
            "private": repository.private,
            "active": repository.active,
            "activated": repository.activated,
            "deleted": repository.deleted,
            "language": repository.language,
            "branch": repository.branch,
            "upload_token": repository.upload_token,
            "image_token": repository.image_token,
            "using_integration": repository.using_integration,
            "bot_username": repository.bot_username,
            "service_id": repository.service_id,
            "updatestamp": _timestamp(repository.updatestamp),
        },
    }


@bp.get("/<provider>/<owner>/<repo>/settings")
def repository_settings(provider: str, owner: str, repo: str) -> Any:
    """A repository's settings, for its owner or an admin of the owning organization."""
    service = SERVICE_BY_SHORT.get(provider)
    if service is None:
        raise LegacyError(404, f"Unknown provider. Expected one of: {', '.join(SERVICE_BY_SHORT)}.")
    user = access_token_user()
    # A private repository the caller cannot read answers like a missing one, with the same work.
    repository = find_readable_repository(service, owner, repo, user, deleted=True)
    if repository is None:
        raise LegacyError(404, "Not found.")
    if not is_admin(user, repository.owner):
        raise LegacyError(403, "You do not have permission to perform this action.")
    response = jsonify(settings_payload(repository))
    # The body holds the upload and graph tokens.
    response.headers["Cache-Control"] = "no-store"
    return response
