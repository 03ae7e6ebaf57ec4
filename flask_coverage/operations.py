"""The operator's Python API: create, change and delete owners, memberships, repositories and access tokens.

Only writes: what they read by name is looked up in :mod:`flask_coverage.queries.repositories`.

Every function runs inside an app context, commits on success, and on failure raises a
:class:`~flask_coverage.errors.CoverageError` with a message for the user and leaves the database
as it was. The ``flask coverage`` CLI is a thin layer over these functions.
"""

from __future__ import annotations

import logging
import math
import secrets
import string
from typing import Any, Optional, Union

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from .auth import generate_token, hash_token
from .errors import AlreadyExists, InvalidInput, NotFound
from .identifiers import check_branch, check_name, is_storable, parse_service
from .models import (
    AccessToken,
    Branch,
    CarriedFlag,
    Commit,
    CommitFlag,
    CommitYaml,
    CoverageDay,
    FeedbackSent,
    FileCoverage,
    FlagFileCoverage,
    HostAccount,
    Membership,
    Outbox,
    Owner,
    Pull,
    Repository,
    RepositoryReader,
    ServiceEnum,
    TreeEntry,
    Upload,
    UploadFlag,
    WebhookSecret,
    metadata,
)
from .providers.webhooks import new_nonce, repository_secret
from .queries.repositories import find_repository, get_owner, require_owner, require_repository
from .queries.tree import fill_trees
from .queries.trend import refresh_trend
from .state import execute, get_engine, get_session

log = logging.getLogger(__name__)
_IMAGE_TOKEN_ALPHABET = string.ascii_letters + string.digits
MAX_TOKEN_NAME_LENGTH = 100


#: PostgreSQL: the trigram index that serves the users list's ``search`` (``ILIKE '%term%'``).
TRIGRAM_INDEX_DDL = (
    "CREATE INDEX IF NOT EXISTS ix_coverage_owner_search ON coverage_owner "
    "USING gin (username gin_trgm_ops, name gin_trgm_ops, email gin_trgm_ops)"
)


def init_db() -> Optional[bool]:
    """Create the extension's tables that do not exist yet (idempotent), and fill the coverage trend's
    daily rows from the commits while it has none (:func:`~flask_coverage.queries.trend.refresh_trend`)
    and the file explorer's rows of the commits that have none (:func:`~flask_coverage.queries.tree.fill_trees`).

    On PostgreSQL it also creates the ``pg_trgm`` extension, where the role may, and the trigram index
    of the users list's search, and returns whether that index exists; elsewhere it returns ``None``.
    """
    engine = get_engine()
    metadata.create_all(bind=engine)
    with engine.connect() as connection:
        empty = connection.execute(sa.select(CoverageDay.day).limit(1)).first() is None
    if empty:  # a new table (the database is older than it), or a fill that failed: from the commits
        refresh_trend()
    fill_trees()
    if engine.dialect.name != "postgresql":
        return None
    try:
        with engine.begin() as connection:
            connection.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
            connection.execute(sa.text(TRIGRAM_INDEX_DDL))
    except sa.exc.DBAPIError as error:
        # Not installed, or the role may not create it: search still works, by scanning the members.
        log.warning("no trigram index for the users list's search: %s", " ".join(str(error.orig).split()))
        return False
    return True


def _add(row: object, duplicate_message: str) -> None:
    session = get_session()
    session.add(row)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise AlreadyExists(duplicate_message) from None


def _add_owner(service: Union[str, ServiceEnum], username: str, *, is_org: bool, **fields: Optional[str]) -> Owner:
    service = parse_service(service)
    username = check_name(username, "username")
    fields = {key: value and check_name(value, key, single_word=False) for key, value in fields.items()}
    if get_owner(service, username) is not None:
        raise AlreadyExists(f"{username!r} already exists on {service.value}")
    owner = Owner(service=service, username=username, is_org=is_org, **fields)
    _add(owner, f"{username!r} already exists on {service.value}")
    return owner


def add_user(
    service: Union[str, ServiceEnum], username: str, *, name: Optional[str] = None, email: Optional[str] = None
) -> Owner:
    """Create a user account."""
    return _add_owner(service, username, is_org=False, name=name, email=email)


def add_org(service: Union[str, ServiceEnum], username: str, *, name: Optional[str] = None) -> Owner:
    """Create an organization."""
    return _add_owner(service, username, is_org=True, name=name)


def add_member(
    service: Union[str, ServiceEnum], org: str, username: str, *, activated: bool = True, admin: bool = False
) -> Membership:
    """Make user ``username`` a member of organization ``org``: activated (its private repositories and
    members open to the user) unless ``activated`` is false."""
    org_owner = require_owner(service, org, is_org=True)
    user = require_owner(service, username, is_org=False)
    duplicate = f"{user.username!r} is already a member of {org_owner.username!r}"
    query = sa.select(Membership.id).where(Membership.org_id == org_owner.id, Membership.user_id == user.id)
    if execute(query).first() is not None:
        raise AlreadyExists(duplicate)
    membership = Membership(org=org_owner, user=user, activated=activated, is_admin=admin)
    _add(membership, duplicate)
    return membership


def add_repo(
    service: Union[str, ServiceEnum],
    owner: str,
    name: str,
    *,
    private: bool = False,
    branch: str = "main",
    language: Optional[str] = None,
) -> Repository:
    """Create a repository with a fresh upload token (UUID) and graph token (10 alphanumerics)."""
    owner_row = require_owner(service, owner)
    name = check_name(name, "repository name")
    branch = check_branch(branch)
    language = language and check_name(language, "language", max_length=50, single_word=False)
    duplicate = f"repository {owner_row.username}/{name} already exists"
    if find_repository(owner_row.service, owner_row.username, name, deleted=True) is not None:
        raise AlreadyExists(duplicate)
    repository = new_repository(owner_row, name, private=private, branch=branch, language=language)
    _add(repository, duplicate)
    return repository


def new_repository(owner: Owner, name: str, **fields: Any) -> Repository:
    """A repository of ``owner`` with a fresh upload token (UUID) and graph token (10 alphanumerics),
    not yet added to the session: what :func:`add_repo` and the sync from the git host create."""
    return Repository(owner=owner, name=name, upload_token=generate_token(), image_token=_new_graph_token(), **fields)


def create_token(service: Union[str, ServiceEnum], username: str, *, name: str) -> tuple[AccessToken, str]:
    """Create a named access token for a user; returns the row and the token, which is not stored."""
    user = require_owner(service, username)
    if user.is_org:
        raise InvalidInput("organizations cannot have access tokens")
    name = check_name(name, "token name", max_length=MAX_TOKEN_NAME_LENGTH, single_word=False)
    duplicate = f"{user.username!r} already has a token named {name!r}"
    query = sa.select(AccessToken.id).where(AccessToken.owner_id == user.id, AccessToken.name == name)
    if execute(query).first() is not None:
        raise AlreadyExists(duplicate)
    token = generate_token()
    row = AccessToken(owner=user, name=name, token_hash=hash_token(token))
    _add(row, duplicate)
    return row, token


def revoke_token(service: Union[str, ServiceEnum], username: str, *, name: str) -> None:
    """Delete the access token ``name`` of a user; it stops working at once."""
    user = require_owner(service, username)
    session = get_session()
    query = sa.select(AccessToken).where(AccessToken.owner_id == user.id, AccessToken.name == name)
    row = execute(query).scalar_one_or_none() if is_storable(name, MAX_TOKEN_NAME_LENGTH) else None
    if row is None:
        raise NotFound(f"{user.username!r} has no token named {name!r}")
    session.delete(row)
    session.commit()


def _new_graph_token() -> str:
    return "".join(secrets.choice(_IMAGE_TOKEN_ALPHABET) for _ in range(10))


def remove_member(service: Union[str, ServiceEnum], org: str, username: str) -> None:
    """End the membership of user ``username`` in organization ``org``; its access ends at once."""
    org_owner = require_owner(service, org, is_org=True)
    user = require_owner(service, username, is_org=False)
    query = sa.delete(Membership).where(Membership.org_id == org_owner.id, Membership.user_id == user.id)
    session = get_session()
    if execute(query).rowcount != 1:
        session.rollback()
        raise NotFound(f"{user.username!r} is not a member of {org_owner.username!r}")
    session.commit()


def rotate_token(service: Union[str, ServiceEnum], owner: str, name: str, *, kind: str) -> str:
    """Give the repository a new ``"upload"`` or ``"graph"`` token, or ``"webhook"`` secret, and return it.

    The old one stops working at once, on every worker: all are read from the database on each request.
    """
    if kind not in ("upload", "graph", "webhook"):
        raise InvalidInput(f"unknown token kind {kind!r}: expected upload, graph or webhook")
    if kind == "webhook":
        return webhook_secret(service, owner, name, rotate=True)
    repository = require_repository(service, owner, name)
    if kind == "upload":
        repository.upload_token = token = generate_token()
    else:
        repository.image_token = token = _new_graph_token()
    get_session().commit()
    return token


def webhook_secret(service: Union[str, ServiceEnum], owner: str, name: str, *, rotate: bool = False) -> str:
    """The secret of the repository's own webhooks (docs/pull-requests.md#webhooks), made on first
    request, or a new one with ``rotate``; :class:`InvalidInput` when the app has no key to derive it."""
    repository = require_repository(service, owner, name)
    secret = None if rotate else repository_secret(repository)
    if secret is None:
        secret = new_nonce(repository)
        get_session().commit()
    return secret


def set_member(
    service: Union[str, ServiceEnum],
    org: str,
    username: str,
    *,
    activated: Optional[bool] = None,
    admin: Optional[bool] = None,
) -> Membership:
    """Change the membership of user ``username`` in organization ``org``: ``activated`` (an activated
    member reads the private repositories) and ``admin``; ``None`` leaves a field as it is."""
    if activated is None and admin is None:
        raise InvalidInput("say what to change: activated or admin")
    org_owner = require_owner(service, org, is_org=True)
    user = require_owner(service, username, is_org=False)
    query = sa.select(Membership).where(Membership.org_id == org_owner.id, Membership.user_id == user.id)
    membership = execute(query).scalar_one_or_none()
    if membership is None:
        raise NotFound(f"{user.username!r} is not a member of {org_owner.username!r}")
    if activated is not None:
        membership.activated = activated
    if admin is not None:
        membership.is_admin = admin
    get_session().commit()
    return membership


def set_repo(
    service: Union[str, ServiceEnum],
    owner: str,
    name: str,
    *,
    private: Optional[bool] = None,
    branch: Optional[str] = None,
    language: Optional[str] = None,
    active: Optional[bool] = None,
) -> Repository:
    """Change a repository's settings; ``None`` leaves one as it is, ``language=""`` clears the language.

    ``private`` takes effect at once on every page, API and graph; ``branch`` is the default branch that
    the pages, graphs and badges show when no branch is named; an inactive repository is listed as such
    (``active`` of the v2 API) and still takes uploads."""
    if private is None and branch is None and language is None and active is None:
        raise InvalidInput("say what to change: private, branch, language or active")
    changes: dict[str, object] = {"private": private, "active": active}
    if branch is not None:
        changes["branch"] = check_branch(branch)
    if language is not None:
        cleared = not language.strip()
        changes["language"] = None if cleared else check_name(language, "language", max_length=50, single_word=False)
    repository = require_repository(service, owner, name)
    for field, value in changes.items():
        if value is not None or field == "language":
            setattr(repository, field, value)
    get_session().commit()
    return repository


def _delete_repositories(ids: sa.Select) -> None:
    """Delete the repositories whose ids ``ids`` selects, with all their coverage (not committed)."""
    commits = sa.select(Commit.id).where(Commit.repository_id.in_(ids))
    uploads = sa.select(Upload.id).where(Upload.commit_id.in_(commits))
    # Leaves first, explicitly: SQLite enforces ON DELETE CASCADE only when told to.
    for statement in (
        sa.delete(UploadFlag).where(UploadFlag.upload_id.in_(uploads)),
        sa.delete(CarriedFlag).where(CarriedFlag.commit_id.in_(commits)),
        sa.delete(Upload).where(Upload.commit_id.in_(commits)),
        sa.delete(FileCoverage).where(FileCoverage.commit_id.in_(commits)),
        sa.delete(FlagFileCoverage).where(FlagFileCoverage.commit_id.in_(commits)),
        sa.delete(TreeEntry).where(TreeEntry.commit_id.in_(commits)),
        sa.delete(CommitFlag).where(CommitFlag.commit_id.in_(commits)),
        sa.delete(CommitYaml).where(CommitYaml.commit_id.in_(commits)),
        sa.delete(Outbox).where(Outbox.commit_id.in_(commits)),
        sa.delete(FeedbackSent).where(FeedbackSent.commit_id.in_(commits)),
        sa.delete(CoverageDay).where(CoverageDay.repository_id.in_(ids)),
        sa.delete(Branch).where(Branch.repository_id.in_(ids)),
        sa.delete(Pull).where(Pull.repository_id.in_(ids)),
        sa.delete(Commit).where(Commit.repository_id.in_(ids)),
        sa.delete(WebhookSecret).where(WebhookSecret.repository_id.in_(ids)),
        sa.delete(RepositoryReader).where(RepositoryReader.repository_id.in_(ids)),
        sa.delete(Repository).where(Repository.id.in_(ids)),
    ):
        execute(statement)


def delete_repo(service: Union[str, ServiceEnum], owner: str, name: str) -> None:
    """Delete a repository with all its coverage: commits, files, flags, branches, pulls, uploads and trend.

    Its name is free again at once (a new repository of that name starts empty, with new tokens).
    """
    repository = require_repository(service, owner, name)
    _delete_repositories(sa.select(Repository.id).where(Repository.id == repository.id))
    get_session().commit()


def _delete_owner(owner: Owner) -> None:
    _delete_repositories(sa.select(Repository.id).where(Repository.owner_id == owner.id))
    for statement in (
        sa.delete(Membership).where(sa.or_(Membership.org_id == owner.id, Membership.user_id == owner.id)),
        sa.delete(AccessToken).where(AccessToken.owner_id == owner.id),
        sa.delete(RepositoryReader).where(RepositoryReader.user_id == owner.id),
        sa.delete(HostAccount).where(HostAccount.owner_id == owner.id),
        sa.delete(Owner).where(Owner.id == owner.id),
    ):
        execute(statement)
    get_session().commit()


def delete_user(service: Union[str, ServiceEnum], username: str) -> None:
    """Delete a user with its repositories (and their coverage), memberships, access tokens and sign-in; its
    tokens stop working at once and its name is free again."""
    _delete_owner(require_owner(service, username, is_org=False))


def delete_org(service: Union[str, ServiceEnum], username: str) -> None:
    """Delete an organization with its repositories (and their coverage) and memberships; its members'
    accounts stay."""
    _delete_owner(require_owner(service, username, is_org=True))


def _validated_yaml(text: Optional[str]) -> Any:
    """The validated YAML of ``text`` (``None`` for none), or :class:`InvalidInput` with the validator's error."""
    from .codecov_yml.loader import YamlError
    from .codecov_yml.schema import parse

    try:
        return parse(text or "")
    except YamlError as error:
        raise InvalidInput(str(error)) from None


def set_repository_yaml(service: Union[str, ServiceEnum], owner: str, name: str, text: Optional[str]) -> list[str]:
    """Store ``text`` as the repository's ``codecov.yml`` (``None`` or empty removes it): the YAML of
    its commits that have none of their own (docs/pull-requests.md). Its ``coverage.range`` becomes
    the repository's graph and badge colour range. Returns the validator's notes; raises
    :class:`InvalidInput` with the validator's error for an invalid file."""
    repository = require_repository(service, owner, name)
    validated = _validated_yaml(text)
    repository.yaml = text if validated is not None else None
    low, high = (validated.value.get("coverage") or {}).get("range", (None, None)) if validated else (None, None)
    repository.coverage_low = None if low is None else math.floor(low)
    repository.coverage_high = None if high is None else math.ceil(high)
    get_session().commit()
    return validated.notes if validated else []


def set_owner_yaml(service: Union[str, ServiceEnum], username: str, text: Optional[str]) -> list[str]:
    """Store ``text`` as the ``codecov.yml`` of an owner (an organization or a user; ``None`` or empty
    removes it): merged under the YAML of each of its repositories' commits, as Codecov merges an
    organization's YAML under a repository's (docs/pull-requests.md). Returns the validator's notes;
    raises :class:`InvalidInput` with the validator's error for an invalid file."""
    found = require_owner(service, username)
    validated = _validated_yaml(text)
    found.yaml = text if validated is not None else None
    get_session().commit()
    return validated.notes if validated else []
