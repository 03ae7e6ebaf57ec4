"""Signed, short-lived upload URLs: where the v4 protocol and codecov-cli ``PUT`` their reports.

``POST /upload/v4`` and codecov-cli's upload calls authenticate with the upload token and answer with a
URL to ``PUT`` the report to, without any token. That URL carries :func:`sign_upload`'s signed value in
its ``signature`` argument: the repository's id in clear, then the upload's claims (commit, branch,
pull request, flags and the rest of the upload's identity) and a timestamp, signed with HMAC-SHA1 by
itsdangerous. The key is derived from the repository's upload token and the app's ``SECRET_KEY``:

- nothing in the URL can be reused to authenticate anything else, and a changed claim, repository or
  signature fails the check (:class:`InvalidUploadUrl`);
- it expires ``COVERAGE_UPLOAD_URL_MAX_AGE`` seconds after it was made;
- rotating the upload token voids every URL made with the old one;
- an app without ``SECRET_KEY`` still signs (with the upload token alone): the URLs stay unforgeable by
  anyone who does not know the token, which is all a ``PUT`` needs (see docs/upload.md).

The value is a secret for its lifetime, so the request-log filter redacts ``signature=``
(:mod:`flask_coverage.logging`).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from flask import current_app
from itsdangerous import BadData, SignatureExpired, URLSafeTimedSerializer

from .models import Repository
from .state import execute

__all__ = ["InvalidUploadUrl", "load_upload", "sign_upload"]

_SALT = "flask-coverage upload url"


class InvalidUploadUrl(Exception):
    """A signed upload URL that was tampered with, has expired or whose repository is gone."""


def _serializer(repository: Repository) -> URLSafeTimedSerializer:
    secret = current_app.secret_key or ""
    key = (secret.decode("latin-1") if isinstance(secret, bytes) else str(secret)) + "\x00" + repository.upload_token
    return URLSafeTimedSerializer(key, salt=_SALT)


def sign_upload(repository: Repository, claims: dict[str, Any]) -> str:
    """The ``signature`` value of an upload URL of ``repository`` that carries ``claims`` (JSON data)."""
    signed: str = _serializer(repository).dumps(claims)
    return f"{repository.id}.{signed}"


def load_upload(value: str) -> tuple[Repository, dict[str, Any]]:
    """The repository and the claims of a ``signature`` value; :class:`InvalidUploadUrl` unless valid now."""
    repository_id, _, signed = value.partition(".")
    if not (repository_id.isascii() and repository_id.isdigit() and len(repository_id) <= 18):
        raise InvalidUploadUrl("this upload URL is not valid (it was changed or cut short)")
    query = sa.select(Repository).where(Repository.id == int(repository_id), Repository.deleted.is_(False))
    repository = execute(query).scalar_one_or_none()
    if repository is None:
        raise InvalidUploadUrl("this upload URL is not valid (it was changed or cut short)")
    try:
        claims = _serializer(repository).loads(signed, max_age=current_app.config["COVERAGE_UPLOAD_URL_MAX_AGE"])
    except SignatureExpired:
        raise InvalidUploadUrl("this upload URL has expired: ask for a new one") from None
    except BadData:
        raise InvalidUploadUrl("this upload URL is not valid (it was changed or cut short)") from None
    if not isinstance(claims, dict):
        raise InvalidUploadUrl("this upload URL is not valid (it was changed or cut short)")
    return repository, claims
