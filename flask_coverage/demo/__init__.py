"""Loading the demo data set: ``flask coverage demo`` (or :func:`load_demo`) in any host app.

What the data set contains is defined in :mod:`flask_coverage.demo.data`; its coverage goes in
through the normal upload path (:func:`flask_coverage.ingest.upload_report`).

Loading is idempotent: owners, memberships and repositories are created or reset to their demo
values (their upload and graph tokens are kept, so copied graph URLs keep working), and the
coverage of the demo repositories is deleted and uploaded again, so running it twice leaves the
same rows and never merges an upload twice. Anything else in the database is left alone.

Every demo commit is a commit of a made-up git history (:mod:`flask_coverage.demo.git`): when
``COVERAGE_SOURCE_GIT_ROOT`` is set, the demo writes that history there as bare git mirrors, so the
file views show source whose lines match the reports.

The demo user ``alice`` gets an access token named ``demo``, re-created on every load. When the
app has a ``SECRET_KEY`` the token is derived from it (:func:`demo_access_token`), so a host page
can show it again later without the token being stored anywhere: it is exactly as secret as the
key that already signs the app's session cookies. Without a key it is random, printed once.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import uuid
from dataclasses import dataclass
from typing import Optional

import sqlalchemy as sa
from flask import current_app

from ..auth import generate_token, hash_token
from ..errors import AlreadyExists
from ..ingest import UploadMeta, upload_report
from ..models import AccessToken, Commit, CoverageDay, FileCoverage, Membership, Owner, Repository, Upload, metadata
from ..operations import add_repo, init_db
from ..queries.repositories import find_repository, get_owner
from ..state import execute, get_session
from .data import (
    DEMO_GENERATED_FILES,
    DEMO_REPOSITORIES,
    DEMO_SERVICE,
    DEMO_TOKEN_NAME,
    DEMO_TOKEN_USER,
    ORGANIZATIONS,
    DemoRepository,
    DemoUpload,
    DemoUser,
    demo_users,
    report_bytes,
)
from .git import GitHistory, write_mirror

__all__ = [
    "DEMO_GENERATED_FILES",
    "DEMO_SERVICE",
    "DEMO_TOKEN_NAME",
    "DEMO_TOKEN_USER",
    "DemoSummary",
    "active_demo_token",
    "demo_access_token",
    "demo_commits",
    "load_demo",
]


@dataclass(frozen=True)
class DemoSummary:
    """What :func:`load_demo` loaded; ``token`` is the demo user's access token."""

    organizations: int
    users: int
    memberships: int
    repositories: tuple[str, ...]
    commits: int
    files: int
    token_user: str
    token: str
    #: Where the git mirrors were written (``COVERAGE_SOURCE_GIT_ROOT``), or ``None``.
    mirrors: Optional[str] = None


def demo_access_token() -> Optional[str]:
    """The demo access token of the current app, derived from its ``SECRET_KEY``; ``None`` without one.

    A UUID-shaped HMAC of the key: the same app always gets the same token, so a host page can show
    it again, and it is exactly as secret as the key.
    """
    key = current_app.secret_key
    if not key:
        return None
    key_bytes = key if isinstance(key, bytes) else str(key).encode()
    digest = hmac.new(key_bytes, b"flask-coverage demo access token", hashlib.sha256).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def active_demo_token() -> Optional[str]:
    """:func:`demo_access_token` if it is the demo user's ``demo`` token in the database, else ``None``."""
    token = demo_access_token()
    user = get_owner(DEMO_SERVICE, DEMO_TOKEN_USER) if token else None
    if token is None or user is None:
        return None
    query = sa.select(AccessToken.token_hash).where(
        AccessToken.owner_id == user.id, AccessToken.name == DEMO_TOKEN_NAME
    )
    stored = execute(query).scalar_one_or_none()
    if stored is None or not hmac.compare_digest(stored, hash_token(token)):
        return None
    return token


def demo_commits(
    spec: DemoRepository, generated_files: int = DEMO_GENERATED_FILES
) -> tuple[GitHistory, list[tuple[DemoUpload, bytes, str]]]:
    """The git history of a demo repository and its uploads as ``(upload, report, commit sha)``,
    oldest first: each upload's commit holds made-up source that matches its report
    (:mod:`flask_coverage.demo.git`)."""
    history = GitHistory()
    commits: list[tuple[DemoUpload, bytes, str]] = []
    for upload in spec.uploads:
        report = report_bytes(spec, upload, generated_files)
        if commits and commits[-1][0].label == upload.label:
            commits.append((upload, report, commits[-1][2]))  # another job of the same commit
        else:
            commits.append((upload, report, history.commit(report, upload.label, upload.branch)))
    return history, commits


def _ensure_owners(owners: list[tuple[str, bool, str, Optional[str]]]) -> dict[str, Owner]:
    """The demo owners ``(username, is_org, name, email)`` by username, created or reset in one transaction.

    One query and one commit for all of them: a commit per owner would cost more than the uploads.
    """
    session = get_session()
    query = sa.select(Owner).where(
        Owner.service == DEMO_SERVICE, sa.func.lower(Owner.username).in_([owner[0].lower() for owner in owners])
    )
    existing = {owner.username.lower(): owner for owner in execute(query).scalars()}
    found: dict[str, Owner] = {}
    for username, is_org, name, email in owners:
        owner = existing.get(username.lower())
        if owner is None:
            owner = Owner(service=DEMO_SERVICE, username=username, is_org=is_org)
            session.add(owner)
        elif owner.is_org != is_org:
            kind = "an organization" if is_org else "a user"
            raise AlreadyExists(f"{owner.username!r} already exists on {DEMO_SERVICE.value} but is not {kind}")
        owner.name, owner.email = name, email
        found[username] = owner
    session.commit()
    return found


def _ensure_memberships(orgs: dict[str, Owner], users: list[tuple[DemoUser, Owner]]) -> int:
    session = get_session()
    query = sa.select(Membership).where(Membership.org_id.in_([org.id for org in orgs.values()]))
    existing = {(row.org_id, row.user_id): row for row in execute(query).scalars()}
    count = 0
    for person, user in users:
        for org_name, activated, admin in person.memberships:
            org = orgs[org_name]
            row = existing.get((org.id, user.id))
            if row is None:
                row = Membership(org_id=org.id, user_id=user.id)
                session.add(row)
            row.activated, row.is_admin = activated, admin
            count += 1
    return count


def _ensure_repository(spec: DemoRepository, owner: Owner) -> Repository:
    repository = find_repository(DEMO_SERVICE, owner.username, spec.name, deleted=True)
    if repository is None:
        repository = add_repo(
            DEMO_SERVICE, owner.username, spec.name, private=spec.private, branch=spec.branch, language=spec.language
        )
    repository.private, repository.branch, repository.language = spec.private, spec.branch, spec.language
    repository.active = repository.activated = True
    repository.deleted = False
    return repository


def _delete_coverage(repository: Repository) -> None:
    """Delete every commit of ``repository``, every row that refers to one (files, flags, tips, uploads)
    and its coverage trend's daily rows.

    The referring tables are found in :data:`~flask_coverage.models.metadata`, so a table added later
    is cleared too; explicitly, since SQLite does not cascade, and it reuses the ids of deleted rows.
    """
    commit_ids = sa.select(Commit.id).where(Commit.repository_id == repository.id).scalar_subquery()
    upload_ids = sa.select(Upload.id).where(Upload.commit_id.in_(commit_ids)).scalar_subquery()
    # The rows of the uploads (their flags) first, then every row of a commit.
    for column, ids in ((Upload.__table__.c.id, upload_ids), (Commit.__table__.c.id, commit_ids)):
        for table in reversed(metadata.sorted_tables):
            for key in table.foreign_keys:
                if key.column is column:
                    execute(sa.delete(table).where(key.parent.in_(ids)))
    execute(sa.delete(Commit).where(Commit.repository_id == repository.id))
    execute(sa.delete(CoverageDay).where(CoverageDay.repository_id == repository.id))


def _reset_demo_token(user: Owner) -> str:
    session = get_session()
    token = demo_access_token() or generate_token()
    digest = hash_token(token)
    execute(
        sa.delete(AccessToken).where(
            AccessToken.owner_id == user.id,
            sa.or_(AccessToken.name == DEMO_TOKEN_NAME, AccessToken.token_hash == digest),
        )
    )
    session.add(AccessToken(owner_id=user.id, name=DEMO_TOKEN_NAME, token_hash=digest))
    session.commit()
    return token


def load_demo(*, generated_files: int = DEMO_GENERATED_FILES) -> DemoSummary:
    """Load the demo data set into the current app (or reset it to its demo state).

    Safe to run any number of times, and a failed load can simply be run again. Creates the
    coverage tables if needed. ``generated_files`` is the size of the generated repository
    ``globex/platform`` (tests use a small one). Raises :class:`~flask_coverage.errors.AlreadyExists`
    if a demo name is taken by the other kind of owner (a user where the demo needs an organization).
    """
    init_db()
    session = get_session()
    people = demo_users()
    owners = _ensure_owners(
        [(username, True, name, None) for username, name in ORGANIZATIONS]
        + [(person.username, False, person.name, person.email) for person in people]
    )
    orgs = {username: owners[username] for username, _ in ORGANIZATIONS}
    users = [(person, owners[person.username]) for person in people]
    memberships = _ensure_memberships(orgs, users)
    repositories = [(spec, _ensure_repository(spec, orgs[spec.owner])) for spec in DEMO_REPOSITORIES]
    for _, repository in repositories:
        _delete_coverage(repository)
    session.commit()

    mirrors = current_app.config.get("COVERAGE_SOURCE_GIT_ROOT")
    for spec, repository in repositories:
        history, uploads = demo_commits(spec, generated_files)
        shas = list(dict.fromkeys(sha for _, _, sha in uploads))
        parents = dict(zip(shas[1:], shas))  # one line of commits, each on top of the one before
        if mirrors:  # first: the uploads read each commit's message and author from it
            git_dir = os.path.join(mirrors, DEMO_SERVICE.value, spec.owner, f"{spec.name}.git")
            write_mirror(history, git_dir, spec.branch)
        for upload, report, sha in uploads:
            meta = UploadMeta.create(flags=upload.flags)
            pullid, parent = upload.pullid, parents.get(sha)
            upload_report(repository, report, commit=sha, branch=upload.branch, pullid=pullid, meta=meta, parent=parent)
    repository_ids = [repository.id for _, repository in repositories]
    commits, files = execute(
        sa.select(sa.func.count(sa.distinct(Commit.id)), sa.func.count(FileCoverage.id))
        .join(FileCoverage, FileCoverage.commit_id == Commit.id)
        .where(Commit.repository_id.in_(repository_ids))
    ).one()

    token_user = next(owner for person, owner in users if person.username == DEMO_TOKEN_USER)
    return DemoSummary(
        organizations=len(orgs),
        users=len(users),
        memberships=memberships,
        repositories=tuple(f"{DEMO_SERVICE.value}/{spec.owner}/{spec.name}" for spec in DEMO_REPOSITORIES),
        commits=commits,
        files=files,
        token_user=DEMO_TOKEN_USER,
        token=_reset_demo_token(token_user),
        mirrors=mirrors or None,
    )
