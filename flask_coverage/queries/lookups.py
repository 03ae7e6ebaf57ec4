"""The lookup layer: what a URL names, for the caller who asks.

The endpoints' lookups take the caller (``None``: anonymous) and the loaded path arguments, and return
what they name, or raise :class:`~flask_coverage.errors.NotFound` with the same message whether it does
not exist or the caller may not see it (so a private repository's existence does not leak);
``Forbidden`` when the caller may see it but not do what was asked. An endpoint names its lookup in its
declaration (``lookup=`` of :meth:`flask_coverage.endpoints.Endpoints.get`); a new endpoint reuses
one of these or adds its own here. They read through :mod:`.repositories` (the one repository query)
and :mod:`.targets` (the one commit resolution).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ..auth import can_read_private, is_admin, reader_id
from ..errors import Forbidden, NotFound
from ..models import Branch, Commit, Owner, OwnerRow, Repository, ServiceEnum
from .files import has_flag
from .lists import member_row
from .repositories import find_readable_repository, owner_row
from .targets import find_branch, find_pull, resolve_commit

#: The one message of every 404 of an endpoint's lookup.
NOT_FOUND = "Not found."


def signed_in(user: Optional[Owner], service: ServiceEnum) -> tuple[Owner, ServiceEnum]:
    """The caller (an endpoint with ``auth="required"`` has one) and the service a v2 path names."""
    if user is None:
        raise NotFound(NOT_FOUND)
    return user, service


def any_owner(user: Optional[Owner], service: ServiceEnum, owner_username: str) -> OwnerRow:
    """The owner a v2 path names (owners are public), else the 404."""
    owner = owner_row(service, owner_username)
    if owner is None:
        raise NotFound(NOT_FOUND)
    return owner


def owner_with_user(user: Optional[Owner], service: ServiceEnum, owner_username: str) -> tuple[OwnerRow, int]:
    """The owner a v2 path names and the caller's ``reader_id`` (the repositories of it that
    :data:`~flask_coverage.auth.READABLE` lets them read), else the 404."""
    return any_owner(user, service, owner_username), reader_id(user)


def member_org(user: Optional[Owner], service: ServiceEnum, owner_username: str) -> OwnerRow:
    """The organization a v2 path names, if ``user`` is one of its activated members (or the organization
    itself); else ``NotFound``, the same for a deactivated member as for an outsider."""
    org = owner_row(service, owner_username)
    if org is None or not can_read_private(user, org):
        raise NotFound(NOT_FOUND)
    return org


def org_member(user: Optional[Owner], service: ServiceEnum, owner_username: str, username: str) -> Any:
    """The member ``username`` of the organization a v2 path names (its ``User`` fields), if ``user`` may
    list the organization's members (:func:`member_org`); else the 404, the same for a user of another
    organization as for an unknown one."""
    return _member(user, service, owner_username, username)[1]


def administered_member(
    user: Optional[Owner], service: ServiceEnum, owner_username: str, username: str
) -> tuple[OwnerRow, Any]:
    """The organization and :func:`org_member`, if ``user`` administers the organization (else ``Forbidden``)."""
    org, member = _member(user, service, owner_username, username)
    if not is_admin(user, org):
        raise Forbidden("You do not have permission to perform this action.")
    return org, member


def _member(user: Optional[Owner], service: ServiceEnum, owner_username: str, username: str) -> tuple[OwnerRow, Any]:
    org = member_org(user, service, owner_username)
    member = member_row(org, username)
    if member is None:
        raise NotFound(NOT_FOUND)
    return org, member


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


def readable_flag(
    user: Optional[Owner], service: ServiceEnum, owner_username: str, repo: str, flag: str
) -> tuple[Repository, str]:
    """The repository a v2 path names (if the caller may read it) and the flag, if an upload to it carried
    the flag; else the 404."""
    repository = readable_repository(user, service, owner_username, repo)
    if not has_flag(repository, flag):
        raise NotFound(NOT_FOUND)
    return repository, flag


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
