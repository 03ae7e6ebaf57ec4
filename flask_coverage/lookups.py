"""The lookup layer: what a name or a URL names, for the caller who asks.

Owners are read by name here, for every blueprint, the CLI and the operator's writes
(:mod:`flask_coverage.operations`); repositories through :func:`flask_coverage.commits.find_repository`
(and ``find_readable_repository``, the same for one caller), the one repository query, which these
lookups use and which ``commits.find_target`` joins to a commit for the graphs and the web pages.

The endpoints' lookups take the caller (``None``: anonymous) and the loaded path arguments, and return
what they name, or raise :class:`~flask_coverage.errors.NotFound` with the same message whether it does
not exist or the caller may not see it (so a private repository's existence does not leak);
``Forbidden`` when the caller may see it but not do what was asked. An endpoint names its lookup in its
declaration (``lookup=`` of :meth:`flask_coverage.blueprints.api.Endpoints.get`); a new endpoint reuses
one of these or adds its own here. The operator's lookups (``require_*``, :func:`repository_by_slug`)
raise ``NotFound`` with a message naming what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, Union

import sqlalchemy as sa

from .auth import can_read_private, is_admin, is_member
from .commits import find_readable_repository, find_repository, parse_service, resolve_commit
from .errors import Forbidden, InvalidInput, NotFound
from .listings import find_branch, find_pull
from .models import AccessToken, Branch, Commit, Owner, OwnerRow, Repository, ServiceEnum
from .names import is_storable
from .state import execute, get_connection

#: The one message of every 404 of an endpoint's lookup.
NOT_FOUND = "Not found."

# Built once: a statement keeps its SQL cache key, so a lookup neither builds nor hashes it again.
_OWNER_NAMED = (Owner.service == sa.bindparam("service"), sa.func.lower(Owner.username) == sa.bindparam("username"))
_OWNER_BY_NAME = sa.select(Owner).where(*_OWNER_NAMED)
_OWNER_ROW_BY_NAME = sa.select(*Owner.__table__.columns).where(*_OWNER_NAMED)


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
    """The repository named ``"SERVICE/OWNER/REPO"`` (e.g. ``"github/acme/widgets"``).

    Raises :class:`~flask_coverage.errors.InvalidInput` for a malformed slug or unknown service and
    :class:`~flask_coverage.errors.NotFound` when no such repository exists.
    """
    parts = (slug or "").strip().split("/")
    if len(parts) != 3 or not all(parts):
        raise InvalidInput(f"repository must be SERVICE/OWNER/REPO (e.g. github/acme/widgets), not {slug!r}")
    service = parse_service(parts[0])
    repository = find_repository(service, parts[1], parts[2])
    if repository is None:
        raise NotFound(f"no repository {parts[1]}/{parts[2]} on {service.value}")
    return repository


def list_tokens(owner: Owner) -> list[AccessToken]:
    """The access tokens of ``owner``, newest first."""
    query = (
        sa.select(AccessToken)
        .where(AccessToken.owner_id == owner.id)
        .order_by(AccessToken.created_at.desc(), AccessToken.id.desc())
    )
    return list(execute(query).scalars())


def any_owner(user: Optional[Owner], service: ServiceEnum, owner_username: str) -> OwnerRow:
    """The owner a v2 path names (owners are public), else the 404."""
    owner = owner_row(service, owner_username)
    if owner is None:
        raise NotFound(NOT_FOUND)
    return owner


def owner_with_user(user: Optional[Owner], service: ServiceEnum, owner_username: str) -> tuple[OwnerRow, bool]:
    """The owner a v2 path names and whether the caller may see its private repositories, else the 404."""
    owner = any_owner(user, service, owner_username)
    return owner, can_read_private(user, owner)


def member_org(user: Optional[Owner], service: ServiceEnum, owner_username: str) -> OwnerRow:
    """The organization a v2 path names, if ``user`` is one of its members; else ``NotFound``."""
    org = owner_row(service, owner_username)
    if org is None or not is_member(user, org):
        raise NotFound(NOT_FOUND)
    return org


def readable_repository(user: Optional[Owner], service: ServiceEnum, owner_username: str, repo: str) -> Repository:
    """The repository a v2 path names, if ``user`` may read it; else ``NotFound``.

    Missing and not readable are one query of the same shape: the same 404 after the same work.
    """
    repository = find_readable_repository(user, service, owner_username, repo)
    if repository is None:
        raise NotFound(NOT_FOUND)
    return repository


def readable_commit(user: Optional[Owner], service: ServiceEnum, owner_username: str, repo: str, sha: str) -> Commit:
    """The commit a v2 path names (full sha or unique prefix), if ``user`` may read its repository; else the 404."""
    return queried_commit(readable_repository(user, service, owner_username, repo), {"sha": sha})


def queried_commit(repository: Repository, args: Mapping[str, Any]) -> Commit:
    """The commit of ``repository`` that the loaded ``sha`` or ``branch`` names (with neither, the tip
    of its default branch), else the 404."""
    commit = resolve_commit(repository, sha=args.get("sha"), branch=args.get("branch"))
    if commit is None:
        raise NotFound(NOT_FOUND)
    return commit


def readable_branch(user: Optional[Owner], service: ServiceEnum, owner_username: str, repo: str, name: str) -> Branch:
    """The branch a v2 path names in a repository the caller may read, else the 404."""
    branch = find_branch(readable_repository(user, service, owner_username, repo), name)
    if branch is None:
        raise NotFound(NOT_FOUND)
    return branch


def readable_pull(user: Optional[Owner], service: ServiceEnum, owner_username: str, repo: str, pullid: int) -> Any:
    """``(pull, head, base)`` of the pull a v2 path names in a repository the caller may read, else the 404."""
    row = find_pull(readable_repository(user, service, owner_username, repo), pullid)
    if row is None:
        raise NotFound(NOT_FOUND)
    return row


def readable_file(
    user: Optional[Owner], service: ServiceEnum, owner_username: str, repo: str, path: str
) -> tuple[Repository, str]:
    """The repository a v2 path names (if the caller may read it) and the file path, else the 404."""
    return readable_repository(user, service, owner_username, repo), path


def admin_repository(user: Owner, provider: ServiceEnum, owner: str, repo: str) -> Repository:
    """The repository the path names (deleted ones too), if ``user`` may read it (else ``NotFound``)
    and administer it (else ``Forbidden``)."""
    # A private repository the caller cannot read answers like a missing one, with the same work.
    repository = find_readable_repository(user, provider, owner, repo, deleted=True)
    if repository is None:
        raise NotFound(NOT_FOUND)
    if not is_admin(user, repository.owner):
        raise Forbidden("You do not have permission to perform this action.")
    return repository
