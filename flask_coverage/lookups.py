"""What a URL names, for the caller who asks: the lookups of the HTTP API's endpoints.

Each lookup takes the caller (``None``: anonymous) and the loaded path arguments, and returns what
they name, or raises :class:`~flask_coverage.errors.NotFound` with the same message whether it does not
exist or the caller may not see it (so a private repository's existence does not leak);
``Forbidden`` when the caller may see it but not do what was asked. An endpoint names its lookup in
its declaration (``lookup=`` of :meth:`flask_coverage.blueprints.api.Endpoints.get`); a new endpoint
reuses one of these or adds its own here.
"""

from __future__ import annotations

from typing import Optional

from .auth import is_admin, is_member
from .commits import find_readable_repository, resolve_commit
from .errors import Forbidden, NotFound
from .models import Commit, Owner, Repository, ServiceEnum
from .operations import get_owner

#: The one message of every 404 of a lookup.
NOT_FOUND = "Not found."


def member_org(user: Optional[Owner], service: ServiceEnum, owner_username: str) -> Owner:
    """The organization a v2 path names, if ``user`` is one of its members; else ``NotFound``."""
    org = get_owner(service, owner_username)
    if org is None or not is_member(user, org):
        raise NotFound(NOT_FOUND)
    return org


def readable_repository(user: Optional[Owner], service: ServiceEnum, owner_username: str, repo: str) -> Repository:
    """The repository a v2 path names, if ``user`` may read it; else ``NotFound``.

    Missing and not readable are one query of the same shape: the same 404 after the same work.
    """
    repository = find_readable_repository(service, owner_username, repo, user)
    if repository is None:
        raise NotFound(NOT_FOUND)
    return repository


def readable_commit(user: Optional[Owner], service: ServiceEnum, owner_username: str, repo: str, sha: str) -> Commit:
    """The commit a v2 path names (full sha or unique prefix), if ``user`` may read its repository; else the 404."""
    commit = resolve_commit(readable_repository(user, service, owner_username, repo), sha=sha)
    if commit is None:
        raise NotFound(NOT_FOUND)
    return commit


def admin_repository(user: Owner, provider: ServiceEnum, owner: str, repo: str) -> Repository:
    """The repository the path names (deleted ones too), if ``user`` may read it (else ``NotFound``)
    and administer it (else ``Forbidden``)."""
    # A private repository the caller cannot read answers like a missing one, with the same work.
    repository = find_readable_repository(provider, owner, repo, user, deleted=True)
    if repository is None:
        raise NotFound(NOT_FOUND)
    if not is_admin(user, repository.owner):
        raise Forbidden("You do not have permission to perform this action.")
    return repository
