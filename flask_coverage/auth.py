"""Tokens, the default auth hooks, and who may see what."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import uuid
from typing import Any, Optional, Union

import sqlalchemy as sa
from flask import Response, current_app, redirect, request, url_for

from .identifiers import is_storable
from .models import AccessToken, Membership, Owner, OwnerRow, Repository, RepositoryReader, utcnow
from .state import execute, get_session

LAST_USED_RESOLUTION = dt.timedelta(minutes=1)
#: The longest token the service looks up: its tokens are UUIDs (36 characters) or graph tokens (10).
MAX_TOKEN_LENGTH = 200


def is_plausible_token(token: Optional[str]) -> bool:
    """Whether ``token`` is worth looking up: 1 to :data:`MAX_TOKEN_LENGTH` characters, none of them
    refused by the name rule (:mod:`flask_coverage.identifiers`). Anything else is refused unread."""
    return is_storable(token, MAX_TOKEN_LENGTH)


def generate_token() -> str:
    """A new random secret in the UUID form Codecov clients expect (122 random bits)."""
    return str(uuid.uuid4())


def hash_token(token: str) -> str:
    """The stored form of an access token. Tokens are random, so a plain SHA-256 is enough."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def default_verify_token(token: str) -> Optional[Owner]:
    """Find the user an access token belongs to, and record that the token was used.

    ``last_used`` is kept to the minute: a token used again within a minute costs no write.
    """
    if not is_plausible_token(token):
        return None
    digest = hash_token(token)
    session = get_session()
    row = execute(sa.select(AccessToken).where(AccessToken.token_hash == digest)).scalar_one_or_none()
    # The lookup is by hash; comparing the digests again in constant time keeps timing flat.
    if row is None or not hmac.compare_digest(row.token_hash, digest):
        return None
    now = utcnow()
    if row.last_used is None or now - row.last_used >= LAST_USED_RESOLUTION:
        execute(sa.update(AccessToken).where(AccessToken.id == row.id).values(last_used=now))
        session.commit()
    return row.owner


def default_verify_graph_token(repository: Repository, token: Optional[str]) -> bool:
    """Whether ``token`` is the repository's graph token (constant-time comparison)."""
    if not token:
        return False
    return hmac.compare_digest(repository.image_token.encode(), token.encode("utf-8", "surrogatepass"))


def default_auth_error(status: int) -> Any:
    """A plain-text auth error for web pages; a visitor who is not signed in (401) is sent to sign in
    with the git host instead, when one is configured for it (the first by name, docs/sign-in.md)."""
    hosts = sorted(current_app.extensions.get("coverage_sign_in") or ())
    if status == 401 and hosts and request.method == "GET":
        return redirect(url_for("coverage_signin.sign_in_start", service=hosts[0], next=request.full_path.rstrip("?")))
    message = "Sign-in required." if status == 401 else "Not allowed."
    return Response(message + "\n", status=status, mimetype="text/plain")


# The membership of the bound user in the bound owner, built once for each test below (a check then
# neither builds nor hashes SQL).
# A membership that is not activated grants nothing (issue 26, F13): every check asks for an activated one.
_ACTIVATED_MEMBER = sa.select(Membership.id).where(
    Membership.org_id == sa.bindparam("owner_id"),
    Membership.user_id == sa.bindparam("user_id"),
    Membership.activated.is_(True),
)
_ACTIVATED_ADMIN = _ACTIVATED_MEMBER.where(Membership.is_admin.is_(True))


def _has_membership(user: Optional[Owner], owner: Union[Owner, OwnerRow], query: sa.Select) -> bool:
    # ``owner`` itself always counts: a user is the owner of their own repositories.
    if user is None:
        return False
    if user.id == owner.id:
        return True
    return execute(query, {"owner_id": owner.id, "user_id": user.id}).first() is not None


def is_admin(user: Optional[Owner], owner: Union[Owner, OwnerRow]) -> bool:
    """Whether ``user`` is ``owner`` itself or an activated admin member of it (who reads settings)."""
    return _has_membership(user, owner, _ACTIVATED_ADMIN)


def can_read_private(user: Optional[Owner], owner: Union[Owner, OwnerRow]) -> bool:
    """Whether ``user`` is ``owner`` or an activated member of it: who lists its members and reads its
    private repositories that the git host does not know (:func:`can_read_repository`)."""
    return _has_membership(user, owner, _ACTIVATED_MEMBER)


def can_read_repository(user: Optional[Owner], repository: Repository) -> bool:
    """Public repositories are readable by anyone; a private one by its owner and by the users the git
    host says may read it (:class:`~flask_coverage.models.RepositoryReader`), or, for a repository the
    host does not know (no ``service_id``: created by the operator), by the owner's activated members."""
    if not repository.private or (user is not None and user.id == repository.owner_id):
        return True
    if user is None:
        return False
    if repository.service_id is not None:
        return execute(_HOST_READER, {"repository_id": repository.id, "user_id": user.id}).first() is not None
    return can_read_private(user, repository.owner)


_HOST_READER = sa.select(RepositoryReader.user_id).where(
    RepositoryReader.repository_id == sa.bindparam("repository_id"),
    RepositoryReader.user_id == sa.bindparam("user_id"),
)


def reader_id(user: Optional[Owner]) -> int:
    """The value of the ``reader_id`` parameter of :data:`READABLE` for ``user`` (``None``: anonymous)."""
    return user.id if user is not None else 0  # ids start at 1


#: The SQL condition "this ``Repository`` row is readable by the user bound as ``reader_id``"
#: (:func:`reader_id`), :func:`can_read_repository` in SQL. It has the same shape for every caller, so
#: a query with it costs the same whether the repository is missing, private or readable (no timing
#: tells them apart).
READABLE = sa.or_(
    Repository.private.is_(False),
    Repository.owner_id == sa.bindparam("reader_id"),
    sa.select(RepositoryReader.user_id)
    .where(RepositoryReader.repository_id == Repository.id, RepositoryReader.user_id == sa.bindparam("reader_id"))
    .exists(),
    sa.and_(
        Repository.service_id.is_(None),
        sa.select(Membership.id)
        .where(
            Membership.org_id == Repository.owner_id,
            Membership.user_id == sa.bindparam("reader_id"),
            Membership.activated.is_(True),
        )
        .exists(),
    ),
)
