"""Owners and repositories by name: the one repository query, with the visibility condition.

:func:`find_repository` is the one repository lookup: every other read of a repository by name
(:func:`find_readable_repository` for one caller, :mod:`.targets` joined to a commit, the lookups of
:mod:`.lookups`) starts from its statement. Its statements and the owners' are built once: a lookup
neither builds nor hashes SQL. Names that no repository can have (an unknown service, a refused
character, an absurd length) find nothing without reaching the database.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import sqlalchemy as sa
from sqlalchemy.orm import contains_eager

from ..auth import READABLE, reader_id
from ..errors import InvalidInput, NotFound
from ..identifiers import is_storable, parse_service
from ..models import AccessToken, Owner, OwnerRow, Repository, ServiceEnum
from ..state import execute, get_connection


def repository_params(service: Union[str, ServiceEnum], owner: str, name: str) -> Optional[dict[str, object]]:
    """The bound parameters of :func:`repository_select` naming ``owner/name`` on ``service``, or
    ``None`` for a name no repository can have (an unknown service included)."""
    if not (is_storable(owner) and is_storable(name)):
        return None
    try:
        return {"service": parse_service(service), "owner": owner.lower(), "name": name.lower()}
    except InvalidInput:
        return None


def repository_select(*columns: Any) -> sa.Select:
    """The repository (with its owner loaded, and ``columns``) that the bound ``service``, ``owner``
    and ``name`` name, case-insensitively: the one repository lookup, which every other starts from."""
    return (
        sa.select(Repository, *columns)
        .join(Owner, Owner.id == Repository.owner_id)
        .where(
            Owner.service == sa.bindparam("service"),
            sa.func.lower(Owner.username) == sa.bindparam("owner"),
            sa.func.lower(Repository.name) == sa.bindparam("name"),
        )
        .options(contains_eager(Repository.owner))
    )


# find_repository's statements, built once (so a lookup neither builds nor hashes SQL), keyed by
# (only what the bound ``reader_id`` may read, deleted ones too).
_REPOSITORY = repository_select()
_LISTED = Repository.deleted.is_(False)
_REPOSITORY_STATEMENTS = {
    (False, True): _REPOSITORY,
    (False, False): _REPOSITORY.where(_LISTED),
    (True, True): _REPOSITORY.where(READABLE),
    (True, False): _REPOSITORY.where(READABLE, _LISTED),
}


def find_repository(
    service: Union[str, ServiceEnum], owner: str, name: str, *, deleted: bool = False
) -> Optional[Repository]:
    """The repository ``owner/name`` on ``service`` (names case-insensitive, its owner loaded with it),
    whoever asks (the operator, the uploads and the pages, which check access after), or ``None``.

    ``None`` too for an unknown service or a name that cannot exist; ``deleted`` repositories are found
    only when asked for.
    """
    params = repository_params(service, owner, name)
    if params is None:
        return None
    return execute(_REPOSITORY_STATEMENTS[False, deleted], params).scalar_one_or_none()


def find_readable_repository(
    user: Optional[Owner], service: Union[str, ServiceEnum], owner: str, name: str, *, deleted: bool = False
) -> Optional[Repository]:
    """Like :func:`find_repository`, if ``user`` (``None``: anonymous) may read it
    (:data:`~flask_coverage.auth.READABLE`).

    One query: it has the same shape whether the repository is missing, hidden or readable, so the
    answers of the first two take the same time.
    """
    params = repository_params(service, owner, name)
    if params is None:
        return None
    params["reader_id"] = reader_id(user)
    return execute(_REPOSITORY_STATEMENTS[True, deleted], params).scalar_one_or_none()


# Built once: a statement keeps its SQL cache key, so a lookup neither builds nor hashes it again.
_OWNER_NAMED = (Owner.service == sa.bindparam("service"), sa.func.lower(Owner.username) == sa.bindparam("username"))
_OWNER_BY_NAME = sa.select(Owner).where(*_OWNER_NAMED)
# Without the owner's stored codecov.yml: no endpoint shows it.
_OWNER_ROW_BY_NAME = sa.select(*(c for c in Owner.__table__.columns if c.name != "yaml")).where(*_OWNER_NAMED)


def _owner_params(service: Union[str, ServiceEnum], username: str) -> Optional[dict[str, object]]:
    if not is_storable(username):
        return None
    return {"service": parse_service(service), "username": username.lower()}


def get_owner(service: Union[str, ServiceEnum], username: str) -> Optional[Owner]:
    """The user or organization ``username`` on ``service`` (case-insensitive), or ``None``.

    :class:`~flask_coverage.errors.InvalidInput` for an unknown service.
    """
    params = _owner_params(service, username)
    return None if params is None else execute(_OWNER_BY_NAME, params).scalar_one_or_none()


def owner_row(service: Union[str, ServiceEnum], username: str) -> Optional[OwnerRow]:
    """Like :func:`get_owner`, as a plain row of the owner's columns: what the endpoints read. Without
    an entity in the session, a list request takes a tenth less time."""
    params = _owner_params(service, username)
    return None if params is None else get_connection().execute(_OWNER_ROW_BY_NAME, params).one_or_none()


def require_owner(service: Union[str, ServiceEnum], username: str, *, is_org: Optional[bool] = None) -> Owner:
    """Like :func:`get_owner`, but :class:`NotFound` instead of ``None`` (and of the wrong kind)."""
    owner = get_owner(service, username)
    kind = {True: "organization", False: "user", None: "owner"}[is_org]
    if owner is None or (is_org is not None and owner.is_org != is_org):
        raise NotFound(f"no {kind} {username!r} on {parse_service(service).value}")
    return owner


def require_repository(service: Union[str, ServiceEnum], owner: str, name: str) -> Repository:
    """The repository ``owner/name`` on ``service`` (deleted ones too), or :class:`NotFound` naming
    the missing owner or repository."""
    repository = find_repository(service, owner, name, deleted=True)
    if repository is None:
        owner_row = require_owner(service, owner)
        raise NotFound(f"no repository {owner_row.username}/{name} on {owner_row.service.value}")
    return repository


def repository_by_slug(slug: str) -> Repository:
    """The repository named ``"SERVICE/OWNER/REPO"`` (e.g. ``"gh/acme/widgets"`` or ``"github/acme/widgets"``).

    Raises :class:`~flask_coverage.errors.InvalidInput` for a malformed slug or unknown service and
    :class:`~flask_coverage.errors.NotFound` when no such repository exists.
    """
    parts = (slug or "").strip().split("/")
    if len(parts) != 3 or not all(parts):
        raise InvalidInput(f"repository must be SERVICE/OWNER/REPO (e.g. gh/acme/widgets), not {slug!r}")
    service = parse_service(parts[0], short=True)
    repository = find_repository(service, parts[1], parts[2])
    if repository is None:
        raise NotFound(f"no repository {parts[1]}/{parts[2]} on {service.value}")
    return repository


def find_repository_by_upload_token(token: str) -> Optional[Repository]:
    """The repository whose upload token is ``token``, or ``None``; the caller compares the two in
    constant time before it trusts the match."""
    return execute(sa.select(Repository).where(Repository.upload_token == token)).scalar_one_or_none()


def list_tokens(owner: Owner) -> list[AccessToken]:
    """The access tokens of ``owner``, newest first."""
    query = (
        sa.select(AccessToken)
        .where(AccessToken.owner_id == owner.id)
        .order_by(AccessToken.created_at.desc(), AccessToken.id.desc())
    )
    return list(execute(query).scalars())
