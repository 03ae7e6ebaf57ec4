"""The git host decides who sees what (docs/sign-in.md): a user signed in with their host, the host's
view of them synced at sign-in and again when older than ``COVERAGE_SYNC_MAX_AGE``.

Two halves. Writing what the host says takes plain data
(:class:`~flask_coverage.providers.accounts.HostView` and its parts) and knows no HTTP:
:func:`upsert_owners`, :func:`upsert_repositories`, :func:`set_memberships`, :func:`set_private_readers`,
and :func:`apply_host_view`, which does them all in one transaction; the webhooks' events
(:mod:`.events`) call the same writes one change at a time. Reading the host is
:func:`~flask_coverage.providers.accounts.read_host_view`, done whole before anything is written: a sync
that fails half-way writes nothing, and the previous permissions stay in force, never emptier and never
wider.

What the host knows is marked by its id (``service_id``): an owner or a repository the operator
created and the host never listed has none, and the sync leaves it as it is. For a repository both
know the host wins: once the sync has given it its ``service_id``, its private code is read by the
users the host lists for it (:class:`~flask_coverage.models.RepositoryReader`), not by every member of
its owner.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any, Callable, Optional

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.exc import IntegrityError

from ..errors import CoverageError, InvalidInput, NotFound
from ..identifiers import check_branch, check_name
from ..models import HostAccount, Membership, Owner, Repository, RepositoryReader, ServiceEnum, utcnow
from ..operations import new_repository
from ..providers import ProviderError
from ..providers.accounts import HostOwner, HostRepository, HostView, read_host_view
from ..providers.http import budget
from ..queries.repositories import require_owner
from ..state import execute, get_session

#: How long after a failed sync the next request tries again (seconds).
RETRY_SECONDS = 60


class SyncFailed(CoverageError):
    """The git host could not be read (the previous permissions stay): 502."""

    status = 502


# -- the OAuth token, encrypted ----------------------------------------------------------------------


def _key_list(keys: Any) -> list[Any]:
    """``COVERAGE_SIGN_IN_KEY`` as a list: one key, or several, the first encrypting (rotation)."""
    return [keys] if isinstance(keys, (str, bytes)) else list(keys or ())


def _fernet() -> Any:
    """``COVERAGE_SIGN_IN_KEY``'s keys as one Fernet, the first encrypting."""
    from cryptography.fernet import Fernet, MultiFernet

    keys = _key_list(current_app.config["COVERAGE_SIGN_IN_KEY"])
    if not keys:
        raise RuntimeError("sign-in stores the host's OAuth tokens encrypted: set COVERAGE_SIGN_IN_KEY")
    return MultiFernet([Fernet(key) for key in keys])


def check_sign_in_key(keys: Any) -> None:
    """``ValueError`` if ``COVERAGE_SIGN_IN_KEY`` is not one or more Fernet keys (the extension asks at start-up)."""
    from cryptography.fernet import Fernet

    for key in _key_list(keys):
        try:
            Fernet(key)
        except (ValueError, TypeError):
            raise ValueError(
                "COVERAGE_SIGN_IN_KEY must be Fernet keys (cryptography.fernet.Fernet.generate_key())"
            ) from None
    if not keys:
        raise ValueError("sign-in with the git host needs COVERAGE_SIGN_IN_KEY (a Fernet key)")


def encrypt_token(token: str) -> str:
    return _fernet().encrypt(token.encode()).decode()


def decrypt_token(stored: str) -> str:
    """The OAuth token, or :class:`SyncFailed` if no configured key opens it."""
    from cryptography.fernet import InvalidToken

    try:
        return _fernet().decrypt(stored.encode()).decode()
    except InvalidToken:
        raise SyncFailed("the stored host token cannot be decrypted with COVERAGE_SIGN_IN_KEY: sign in again") from None


# -- writing what the host says -------------------------------------------------------------------------


def storable(name: str, check: Callable[[str], Any] = lambda name: check_name(name, "name")) -> bool:
    """Whether the service can store ``name`` (a name by default; ``check=check_branch``: a branch)."""
    try:
        check(name)
    except InvalidInput:
        return False
    return True


def _set(row: Any, **values: Any) -> None:
    """Set the attributes that change: a row set to what it holds would still be flushed, its
    ``updatestamp`` moved and its update events run (thousands of rows a sync)."""
    for key, value in values.items():
        if getattr(row, key) != value:
            setattr(row, key, value)


def _renamed_away(name: str, service_id: str) -> str:
    """The name a stored owner or repository takes when the host gave its name to another: the name and
    the host's id, within the column's 255 characters."""
    suffix = f"~{service_id}"
    return name[: 255 - len(suffix)] + suffix


#: The hosts that number their users and their organizations apart: GitLab's user 10 is not its group 10.
_KINDS_APART = (ServiceEnum.gitlab, ServiceEnum.gitlab_enterprise)


def owner_key(service: ServiceEnum, host: HostOwner) -> tuple[str, Optional[bool]]:
    """What tells the host's owners apart: their id, and on GitLab whether they are a group. Elsewhere
    an id is one account, which a sync may see as a user or as an organization (a Bitbucket user and a
    workspace), and which GitHub may turn from a user into an organization."""
    return host.service_id, host.is_org if service in _KINDS_APART else None


def upsert_owners(service: ServiceEnum, hosts: Iterable[HostOwner]) -> dict[tuple[str, Optional[bool]], Owner]:
    """The owners the host names, by the host's id (:func:`owner_key`): found by it (renamed if the host
    renamed them), else by name (an operator-created owner becomes known to the host), else created.
    Keyed by :func:`owner_key`. Two queries whatever their number."""
    wanted = {owner_key(service, host): host for host in hosts}
    found: dict[tuple[str, Optional[bool]], Owner] = {
        (str(owner.service_id), owner.is_org if service in _KINDS_APART else None): owner
        for owner in execute(
            sa.select(Owner).where(
                Owner.service == service, Owner.service_id.in_([service_id for service_id, _ in wanted])
            )
        ).scalars()
    }
    missing = [host for key, host in wanted.items() if key not in found]
    names = [host.username.lower() for host in missing]
    by_name = {
        owner.username.lower(): owner
        for owner in execute(
            sa.select(Owner).where(Owner.service == service, sa.func.lower(Owner.username).in_(names))
        ).scalars()
    }
    session = get_session()
    for host in missing:
        owner = by_name.get(host.username.lower())
        if owner is not None and owner.service_id is not None:
            # The name passed to another account on the host: the stored one is renamed away.
            owner.username = _renamed_away(owner.username, owner.service_id)
            owner = None
        if owner is None:
            owner = Owner(service=service, username=host.username)
            session.add(owner)
        found[owner_key(service, host)] = owner
    for key, host in wanted.items():
        owner = found[key]
        _set(owner, username=host.username, service_id=host.service_id, is_org=host.is_org)
        _set(owner, name=host.name or owner.name, avatar_url=host.avatar_url or owner.avatar_url)
    session.flush()
    return found


def upsert_repositories(service: ServiceEnum, hosts: Sequence[HostRepository]) -> list[Repository]:
    """The repositories the host names, in order, with their owners (:func:`upsert_owners`): found by
    the host's id (renamed or moved to another owner as the host says), else by owner and name if the
    host never named the one found (an operator's), else created with their upload and graph tokens;
    ``private`` and the default branch as the host says. A few queries whatever their number."""
    owners = upsert_owners(service, [host.owner for host in hosts])
    on_service = sa.select(Repository).join(Owner, Owner.id == Repository.owner_id).where(Owner.service == service)
    ids = [host.service_id for host in hosts]
    found: dict[str, Repository] = {
        str(repository.service_id): repository
        for repository in execute(on_service.where(Repository.service_id.in_(ids))).scalars()
    }
    missing = [host for host in hosts if host.service_id not in found]
    by_name = {
        (repository.owner_id, repository.name.lower()): repository
        for repository in execute(
            sa.select(Repository).where(
                Repository.owner_id.in_({owners[owner_key(service, host.owner)].id for host in missing}),
                sa.func.lower(Repository.name).in_({host.name.lower() for host in missing}),
            )
        ).scalars()
    }
    session = get_session()
    result = []
    for host in hosts:
        owner = owners[owner_key(service, host.owner)]
        repository = found.get(host.service_id)
        if repository is None:
            repository = by_name.get((owner.id, host.name.lower()))
            if repository is not None and repository.service_id is not None:
                # Another repository of the host had the name (deleted there, or renamed since): it keeps
                # its history under another name if it still has this one, and this one starts anew.
                if repository.owner_id == owner.id and repository.name.lower() == host.name.lower():
                    repository.name = _renamed_away(repository.name, repository.service_id)
                repository = None
        if repository is None:
            repository = new_repository(owner, host.name)
            session.add(repository)
        if repository.owner_id != owner.id:
            repository.owner = owner
        # A repository the host lists exists there (a webhook may have marked it deleted).
        _set(repository, name=host.name, service_id=host.service_id, private=host.private, deleted=False)
        if storable(host.branch, check_branch):
            _set(repository, branch=host.branch)
        found[host.service_id] = repository
        result.append(repository)
    session.flush()
    return result


def set_memberships(user: Owner, organizations: Sequence[tuple[Owner, bool]]) -> None:
    """``user`` is a member of exactly these organizations the host knows (``True``: an admin): new
    memberships are activated, an existing one keeps its activation (the operator's seat) and takes
    the host's role; memberships of other host-known organizations of the service go. Memberships of
    organizations the host does not know stay as they are."""
    wanted = {org.id: admin for org, admin in organizations}
    current = {
        row.org_id: row
        for row in execute(
            sa.select(Membership)
            .join(Owner, Owner.id == Membership.org_id)
            .where(Membership.user_id == user.id, Owner.service_id.is_not(None), Owner.service == user.service)
        ).scalars()
    }
    for org_id, membership in current.items():
        if org_id not in wanted:
            get_session().delete(membership)
    for org_id, admin in wanted.items():
        membership = current.get(org_id)
        if membership is None:
            get_session().add(Membership(org_id=org_id, user_id=user.id, activated=True, is_admin=admin))
        else:
            _set(membership, is_admin=admin)


def set_private_readers(user: Owner, repositories: Iterable[Repository]) -> None:
    """``user`` reads exactly these private repositories among those the host knows: the rest of their
    per-repository permissions go."""
    wanted = {repository.id for repository in repositories if repository.private}
    current = set(
        execute(sa.select(RepositoryReader.repository_id).where(RepositoryReader.user_id == user.id)).scalars()
    )
    gone = current - wanted
    if gone:
        execute(
            sa.delete(RepositoryReader).where(
                RepositoryReader.user_id == user.id, RepositoryReader.repository_id.in_(gone)
            )
        )
    for repository_id in sorted(wanted - current):
        get_session().add(RepositoryReader(repository_id=repository_id, user_id=user.id))


def host_memberships(user: Owner) -> list[tuple[Owner, bool]]:
    """The organizations the host knows of which ``user`` is a member here, with ``True`` for an admin."""
    query = (
        sa.select(Owner, Membership.is_admin)
        .join(Membership, Membership.org_id == Owner.id)
        .where(Membership.user_id == user.id, Owner.service_id.is_not(None), Owner.service == user.service)
    )
    return [(org, bool(admin)) for org, admin in execute(query)]


def read_repositories(user: Owner) -> list[Repository]:
    """The private repositories the host says ``user`` reads (:class:`~flask_coverage.models.RepositoryReader`)."""
    query = sa.select(Repository).join(RepositoryReader, RepositoryReader.repository_id == Repository.id)
    return list(execute(query.where(RepositoryReader.user_id == user.id)).scalars())


def set_membership(user: Owner, org: Owner, admin: Optional[bool]) -> None:
    """One membership as a webhook tells it (:func:`set_memberships`' rules): ``True`` or ``False``,
    ``user`` is an admin of ``org`` or a member; ``None``, not a member any more, and with it goes their
    reading of ``org``'s private repositories, at once."""
    others = [(other, role) for other, role in host_memberships(user) if other.id != org.id]
    set_memberships(user, others + ([(org, admin)] if admin is not None else []))
    if admin is None:
        set_private_readers(user, [kept for kept in read_repositories(user) if kept.owner_id != org.id])


def set_reader(user: Owner, repositories: Sequence[Repository], reads: bool) -> None:
    """``user`` reads these private repositories too (``reads``), or no longer reads them; the rest of
    what they read stays (:func:`set_private_readers`' rules)."""
    ids = {repository.id for repository in repositories}
    kept = [repository for repository in read_repositories(user) if repository.id not in ids]
    set_private_readers(user, kept + (list(repositories) if reads else []))


def forget_readers(repository: Repository) -> None:
    """Nobody reads ``repository`` by the host's word any more (a transfer: its readers changed on the
    host); each reader's next sync says who reads it now."""
    execute(sa.delete(RepositoryReader).where(RepositoryReader.repository_id == repository.id))


def set_repository_state(repositories: Iterable[Repository], **values: bool) -> None:
    """``deleted`` (the host deleted it: its history stays, its uploads are refused) or
    ``using_integration`` (a GitHub App's installation covers it) as the host says."""
    for repository in repositories:
        _set(repository, **values)


def mark_stale(user: Owner) -> None:
    """``user``'s view of the host is synced again at their next request (a change the event does not
    spell out, such as a team's)."""
    execute(sa.update(HostAccount).where(HostAccount.owner_id == user.id).values(synced_at=None))


def apply_host_view(service: ServiceEnum, view: HostView) -> Owner:
    """Write what the host says of a user, in one transaction (all or nothing); the user's owner.
    Names the service cannot store (a GitLab subgroup's ``group/sub``) are left out."""
    session = get_session()
    try:
        organizations = [(host, admin) for host, admin in view.organizations if storable(host.username)]
        owners = upsert_owners(service, [view.user, *(host for host, _ in organizations)])
        user = owners[owner_key(service, view.user)]
        set_memberships(user, [(owners[owner_key(service, host)], admin) for host, admin in organizations])
        repositories = upsert_repositories(
            service, [r for r in view.repositories if storable(r.owner.username) and storable(r.name)]
        )
        set_private_readers(user, repositories)
        session.commit()
    except Exception:
        session.rollback()
        raise
    return user


# -- signing in and syncing -------------------------------------------------------------------------------


def _read(service: ServiceEnum, token: str) -> HostView:
    settings = (current_app.config.get("COVERAGE_PROVIDERS") or {}).get(service.value) or {}
    try:
        with budget(float(current_app.config["COVERAGE_SYNC_TIMEOUT"])):
            return read_host_view(service.value, settings, token)
    except ProviderError as error:
        raise SyncFailed(f"{service.value} could not be read: {error}") from None


def sign_in(service: ServiceEnum, token: str) -> Owner:
    """The user whose host OAuth ``token`` this is, synced from the host, with the token stored
    encrypted; :class:`SyncFailed` (nothing written) if the host cannot be read."""
    view = _read(service, token)
    user = apply_host_view(service, view)
    account = get_session().get(HostAccount, user.id) or HostAccount(owner_id=user.id)
    account.token = encrypt_token(token)
    account.synced_at, account.failed_at = utcnow(), None
    get_session().add(account)
    get_session().commit()
    return user


def sync_user(user: Owner) -> Owner:
    """Sync ``user`` with their stored token now; :class:`SyncFailed` leaves the previous permissions
    (and records the failure: :func:`sync_due` waits before trying again), :class:`NotFound` if the
    user never signed in with the host."""
    account = get_session().get(HostAccount, user.id)
    if account is None:
        raise NotFound(f"{user.username} has not signed in with {user.service.value}")
    try:
        view = _read(user.service, decrypt_token(account.token))
        if view.user.service_id != user.service_id:
            raise SyncFailed(f"the stored token of {user.username} is another account's now")
        try:
            apply_host_view(user.service, view)
        except IntegrityError:
            raise SyncFailed(f"what {user.service.value} says collides with the names stored here") from None
    except SyncFailed:
        get_session().rollback()
        _record(user.id, failed_at=utcnow())
        raise
    _record(user.id, synced_at=utcnow(), failed_at=None)
    return user


def _record(owner_id: int, **times: Optional[dt.datetime]) -> None:
    execute(sa.update(HostAccount).where(HostAccount.owner_id == owner_id).values(**times))
    get_session().commit()


def sync_owner(
    service: ServiceEnum, username: str, *, member: Optional[str] = None
) -> list[tuple[Owner, Optional[str]]]:
    """``flask coverage sync``: a signed-in user, or every signed-in member of an organization (or only
    ``member``), each with the error that stopped their sync (``None``: synced)."""
    owner = require_owner(service, username)
    if member is not None:
        users = [require_owner(service, member)]
    elif owner.is_org:
        users = list(
            execute(
                sa.select(Owner)
                .join(Membership, Membership.user_id == Owner.id)
                .join(HostAccount, HostAccount.owner_id == Owner.id)
                .where(Membership.org_id == owner.id)
                .order_by(Owner.username)
            ).scalars()
        )
    else:
        users = [owner]
    results: list[tuple[Owner, Optional[str]]] = []
    for user in users:
        try:
            results.append((sync_user(user), None))
        except (SyncFailed, NotFound) as error:
            get_session().rollback()
            results.append((user, str(error)))
    return results


def sync_due(account: HostAccount, now: dt.datetime) -> bool:
    """Whether the host's view of a signed-in user is older than ``COVERAGE_SYNC_MAX_AGE``, unless a
    sync failed in the last :data:`RETRY_SECONDS`."""
    max_age = dt.timedelta(seconds=float(current_app.config["COVERAGE_SYNC_MAX_AGE"]))
    if account.synced_at is not None and now - account.synced_at < max_age:
        return False
    retry = dt.timedelta(seconds=min(RETRY_SECONDS, max_age.total_seconds()))
    return account.failed_at is None or now - account.failed_at >= retry
