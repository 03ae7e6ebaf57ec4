"""The data model (docs/architecture.md names its tables).

The models use their own :class:`~sqlalchemy.MetaData` (:data:`metadata`), independent of any
Flask-SQLAlchemy instance, so they work with the host app's ``db`` or the one the extension sets up,
and a host app can add :data:`metadata` to its Alembic ``target_metadata``.
"""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any, Optional

import sqlalchemy as sa
from flask import current_app, has_app_context
from sqlalchemy.orm import DeclarativeBase, Mapped, aliased, mapped_column, relationship


class _CurrentAppBindKey(dict):
    """``metadata.info`` whose ``"bind_key"`` is the current app's ``COVERAGE_BIND_KEY``.

    Flask-SQLAlchemy picks a table's engine by ``metadata.info["bind_key"]``; reading it per app lets
    every app of one process keep the tables where its own config says.
    """

    def __contains__(self, key: object) -> bool:
        if key == "bind_key":
            return has_app_context() and "COVERAGE_BIND_KEY" in current_app.config
        return super().__contains__(key)

    def __getitem__(self, key: Any) -> Any:
        if key == "bind_key":
            return current_app.config["COVERAGE_BIND_KEY"]
        return super().__getitem__(key)


#: Tables of the extension, for a host app's Alembic ``target_metadata``.
metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)
metadata.info = _CurrentAppBindKey()


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def utc_iso(value: dt.datetime) -> str:
    """A time the database holds in UTC without a zone, in ISO 8601 with its zone (``+00:00``)."""
    return (value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value).isoformat()


class Base(DeclarativeBase):
    metadata = metadata


class ServiceEnum(str, enum.Enum):
    """Git hosting providers, with the exact values of the public API."""

    github = "github"
    gitlab = "gitlab"
    bitbucket = "bitbucket"
    github_enterprise = "github_enterprise"
    gitlab_enterprise = "gitlab_enterprise"
    bitbucket_server = "bitbucket_server"

    @property
    def short(self) -> str:
        """The provider prefix used in web and legacy URLs (``gh``, ``gl``, ...)."""
        return SHORT_BY_SERVICE[self]


SHORT_BY_SERVICE = {
    ServiceEnum.github: "gh",
    ServiceEnum.gitlab: "gl",
    ServiceEnum.bitbucket: "bb",
    ServiceEnum.github_enterprise: "ghe",
    ServiceEnum.gitlab_enterprise: "gle",
    ServiceEnum.bitbucket_server: "bbs",
}
SERVICE_BY_SHORT = {short: service for service, short in SHORT_BY_SERVICE.items()}

_service_type = sa.Enum(
    ServiceEnum,
    name="coverage_service",
    native_enum=False,
    length=20,
    validate_strings=True,
    values_callable=lambda enum_cls: [member.value for member in enum_cls],
)


class Owner(Base):
    """A user or an organization on one git hosting service."""

    __tablename__ = "coverage_owner"
    __table_args__ = (
        # Usernames are case-insensitive on every provider: one owner per lower-cased name.
        sa.Index("uq_coverage_owner_service_username", "service", sa.func.lower(sa.text("username")), unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    service: Mapped[ServiceEnum] = mapped_column(_service_type)
    username: Mapped[str] = mapped_column(sa.String(255))
    name: Mapped[Optional[str]] = mapped_column(sa.String(255))
    email: Mapped[Optional[str]] = mapped_column(sa.String(255))
    is_org: Mapped[bool] = mapped_column(default=False)
    service_id: Mapped[Optional[str]] = mapped_column(sa.String(100))
    avatar_url: Mapped[Optional[str]] = mapped_column(sa.String(500))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    updatestamp: Mapped[dt.datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # The owner's codecov.yml as ``flask coverage set-yaml SERVICE/OWNER`` stored it, under its
    # repositories' (flask_coverage.codecov_yml.settings).
    yaml: Mapped[Optional[str]] = mapped_column(sa.Text, deferred=True)

    def __repr__(self) -> str:
        return f"<Owner {self.service.value}/{self.username}>"


#: An owner read as a plain row of its table's columns (:func:`flask_coverage.queries.repositories.owner_row`), with the
#: attribute names of :class:`Owner`: what the endpoints read, where no entity is needed.
OwnerRow = sa.Row[Any]


class Membership(Base):
    """A user's membership of an organization.

    ``sort_key`` is the member's ``lower(username)`` as the database lower-cases it, copied here so that
    the users list counts and pages one index of this table alone; it is ``NULL`` when the user is on
    another service than the organization (such a membership is never listed). The ORM keeps it true:
    when a membership is written and when an owner's username or service changes (see the events below).
    """

    __tablename__ = "coverage_membership"
    __table_args__ = (
        sa.UniqueConstraint("org_id", "user_id"),
        # Covers the users list: its count and any page read this index alone, in the list's order.
        sa.Index("ix_coverage_membership_org_sort_key", "org_id", "sort_key", "user_id", "activated", "is_admin"),
        # Covers the membership probes, and a search's count when the planner starts from the matching owners.
        sa.Index("ix_coverage_membership_org_user_flags", "org_id", "user_id", "activated", "is_admin"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    org_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_owner.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_owner.id", ondelete="CASCADE"), index=True)
    activated: Mapped[bool] = mapped_column(default=False)
    is_admin: Mapped[bool] = mapped_column(default=False)
    # Text: a lower-cased name may be longer than the name (PostgreSQL with ICU lower-cases "İ" to two characters).
    sort_key: Mapped[Optional[str]] = mapped_column(sa.Text)

    org: Mapped[Owner] = relationship(foreign_keys=[org_id])
    user: Mapped[Owner] = relationship(foreign_keys=[user_id])


def member_sort_key(org_id: Any, user_id: Any) -> sa.ScalarSelect[Any]:
    """SQL for the ``sort_key`` of the membership of ``user_id`` in ``org_id`` (values or columns)."""
    user, org = aliased(Owner), aliased(Owner)
    return (
        sa.select(sa.func.lower(user.username))
        .join(org, org.service == user.service)
        .where(user.id == user_id, org.id == org_id)
        .scalar_subquery()
    )


@sa.event.listens_for(Membership, "before_insert")
@sa.event.listens_for(Membership, "before_update")
def _set_sort_key(mapper: Any, connection: Any, membership: Membership) -> None:
    membership.sort_key = member_sort_key(membership.org_id, membership.user_id)


@sa.event.listens_for(Owner, "after_update")
def _update_sort_keys(mapper: Any, connection: sa.Connection, owner: Owner) -> None:
    attrs = sa.inspect(owner).attrs
    if attrs.service.history.has_changes():
        # Which memberships stay listed depends on both sides' service.
        touched = sa.or_(Membership.user_id == owner.id, Membership.org_id == owner.id)
    elif attrs.username.history.has_changes():
        touched = Membership.user_id == owner.id
    else:
        return
    connection.execute(
        sa.update(Membership).where(touched).values(sort_key=member_sort_key(Membership.org_id, Membership.user_id))
    )


class Repository(Base):
    """A repository of an owner, with its upload token and graph (image) token."""

    __tablename__ = "coverage_repository"
    __table_args__ = (
        sa.Index("uq_coverage_repository_owner_name", "owner_id", sa.func.lower(sa.text("name")), unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_owner.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(sa.String(255))
    private: Mapped[bool] = mapped_column(default=False)
    active: Mapped[bool] = mapped_column(default=True)
    activated: Mapped[bool] = mapped_column(default=True)
    deleted: Mapped[bool] = mapped_column(default=False)
    language: Mapped[Optional[str]] = mapped_column(sa.String(50))
    branch: Mapped[str] = mapped_column(sa.String(255), default="main")
    upload_token: Mapped[str] = mapped_column(sa.String(36), unique=True)
    image_token: Mapped[str] = mapped_column(sa.String(10))
    # The graph color range of this repository; None means the app's COVERAGE_COLOR_RANGE.
    coverage_low: Mapped[Optional[int]]
    coverage_high: Mapped[Optional[int]]
    using_integration: Mapped[bool] = mapped_column(default=False)
    bot_username: Mapped[Optional[str]] = mapped_column(sa.String(255))
    service_id: Mapped[Optional[str]] = mapped_column(sa.String(100))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    updatestamp: Mapped[dt.datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # The repository's codecov.yml as ``flask coverage set-yaml`` stored it (valid when stored), for
    # commits without one of their own (flask_coverage.codecov_yml.settings).
    yaml: Mapped[Optional[str]] = mapped_column(sa.Text, deferred=True)

    owner: Mapped[Owner] = relationship()

    def __repr__(self) -> str:
        return f"<Repository {self.owner.username}/{self.name}>"


# SQLAlchemy puts a mixin's columns after the model's own: where these tables always had them.
class _ReportTotals:
    """The columns of a merged report (:class:`Commit`, :class:`CommitFlag`): its ``version`` and the
    totals of its ``files``, big integers since they sum the files'."""

    version: Mapped[int] = mapped_column(default=0)
    files: Mapped[int] = mapped_column(default=0)
    lines: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    hits: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    misses: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    partials: Mapped[int] = mapped_column(sa.BigInteger, default=0)


class _FileTotals:
    """The columns of one file's coverage (:class:`FileCoverage`, :class:`FlagFileCoverage`): its totals
    and ``data``, its lines packed in one blob."""

    lines: Mapped[int] = mapped_column(default=0)
    hits: Mapped[int] = mapped_column(default=0)
    misses: Mapped[int] = mapped_column(default=0)
    partials: Mapped[int] = mapped_column(default=0)
    data: Mapped[bytes] = mapped_column(sa.LargeBinary)


class Commit(_ReportTotals, Base):
    """A commit with coverage; ``version`` grows with every upload merged into it."""

    __tablename__ = "coverage_commit"
    __table_args__ = (
        sa.UniqueConstraint("repository_id", "sha"),
        # The commits list: a repository's commits newest first.
        sa.Index(None, "repository_id", "timestamp", "id"),
        # The coverage trend of a branch, read from this index alone.
        sa.Index("ix_coverage_commit_trend", "repository_id", "branch", "timestamp", "hits", "lines"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    repository_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_repository.id", ondelete="CASCADE"))
    sha: Mapped[str] = mapped_column(sa.String(64))
    branch: Mapped[Optional[str]] = mapped_column(sa.String(255))
    pullid: Mapped[Optional[int]]
    # The parent commit's sha, as codecov-cli's create-commit sends it.
    parent_sha: Mapped[Optional[str]] = mapped_column(sa.String(64))
    timestamp: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # The commit's message and author's name, read once from the git mirror (flask_coverage.git_mirror.commit_about).
    message: Mapped[Optional[str]] = mapped_column(sa.Text)
    author_name: Mapped[Optional[str]] = mapped_column(sa.String(255))

    repository: Mapped[Repository] = relationship()


class CommitYaml(Base):
    """The ``codecov.yml`` found at a commit, read once (a sha's files never change): where it was
    (``path``, ``None`` if the commit has none), its validated form as JSON (``settings``), or why it
    is ignored (``error``). See flask_coverage.codecov_yml.settings."""

    __tablename__ = "coverage_commit_yaml"

    commit_id: Mapped[int] = mapped_column(
        sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    path: Mapped[Optional[str]] = mapped_column(sa.String(64))
    settings: Mapped[Optional[str]] = mapped_column(sa.Text)
    error: Mapped[Optional[str]] = mapped_column(sa.Text)
    read_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Outbox(Base):
    """Feedback owed for a commit (statuses, the pull's comment), written in the upload's transaction
    and sent after it by a sender (flask_coverage.feedback.outbox): one row per commit, so uploads in
    a burst give one sending. ``due_at`` ``None`` waits for codecov-cli's ``upload-complete``
    (``manual_trigger``), or, with ``attempts``, a row given up; ``lease_until`` marks a row a sender
    holds; ``generation`` grows with every upload, so a sending of an older one does not drop the row."""

    __tablename__ = "coverage_outbox"

    commit_id: Mapped[int] = mapped_column(
        sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    due_at: Mapped[Optional[dt.datetime]] = mapped_column(index=True)
    lease_until: Mapped[Optional[dt.datetime]]
    generation: Mapped[int] = mapped_column(default=0)
    # Claims taken (an attempt counts when it starts), and those running whose lease ran out.
    attempts: Mapped[int] = mapped_column(default=0)
    abandoned: Mapped[int] = mapped_column(default=0, server_default="0")
    triggered: Mapped[bool] = mapped_column(default=False)
    # The service's address as the upload reached it, for the links sent (without COVERAGE_PUBLIC_URL).
    base_url: Mapped[Optional[str]] = mapped_column(sa.String(500))
    last_error: Mapped[Optional[str]] = mapped_column(sa.Text)


class FeedbackSent(Base):
    """What was sent for a commit per context (``codecov/project``, ..., ``comment``): the payload's
    digest (an unchanged payload is not sent again), its state and description, when, and the last error."""

    __tablename__ = "coverage_feedback"

    commit_id: Mapped[int] = mapped_column(
        sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    context: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    digest: Mapped[Optional[str]] = mapped_column(sa.String(64))
    state: Mapped[Optional[str]] = mapped_column(sa.String(20))
    description: Mapped[Optional[str]] = mapped_column(sa.Text)
    # The GitHub check run that shows the status, edited in place (feedback/checks.py); None when it
    # was sent as a commit status.
    check_run_id: Mapped[Optional[str]] = mapped_column(sa.String(64))
    sent_at: Mapped[Optional[dt.datetime]]
    error: Mapped[Optional[str]] = mapped_column(sa.Text)
    error_at: Mapped[Optional[dt.datetime]]


class CoverageDay(Base):
    """The coverage of a branch's commits (those with lines) first seen on one UTC day.

    ``day`` counts days from :data:`flask_coverage.queries.trend.TREND_ORIGIN`; ``low``, ``high`` and ``total``
    are the lowest, highest and summed ``hits / lines * 100`` of its ``commits``. Uploads keep it up to
    date (:mod:`flask_coverage.ingest`), so the trend reads a row a day, not a commit.
    """

    __tablename__ = "coverage_day"

    repository_id: Mapped[int] = mapped_column(
        sa.ForeignKey("coverage_repository.id", ondelete="CASCADE"), primary_key=True
    )
    branch: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    day: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    commits: Mapped[int] = mapped_column(default=0)
    low: Mapped[float] = mapped_column(sa.Float, default=0.0)
    high: Mapped[float] = mapped_column(sa.Float, default=0.0)
    total: Mapped[float] = mapped_column(sa.Float, default=0.0)


class Branch(Base):
    """A branch of a repository and its tip (head) commit."""

    __tablename__ = "coverage_branch"
    __table_args__ = (sa.UniqueConstraint("repository_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    repository_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_repository.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(sa.String(255))
    head_commit_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"))
    updatestamp: Mapped[dt.datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    head: Mapped[Commit] = relationship()


class Pull(Base):
    """A pull (merge) request of a repository and its tip (head) commit."""

    __tablename__ = "coverage_pull"
    __table_args__ = (sa.UniqueConstraint("repository_id", "pullid"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    repository_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_repository.id", ondelete="CASCADE"))
    pullid: Mapped[int]
    head_commit_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"))
    # The sha the pull is compared with: its real base (flask_coverage.feedback.base) once known, until
    # then the parent its uploads name (not one of its own commits), else the default branch's tip when
    # its first upload came (flask_coverage.ingest); a sha, so it may name a commit not yet uploaded.
    base_sha: Mapped[Optional[str]] = mapped_column(sa.String(64))
    updatestamp: Mapped[dt.datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # As the provider last said (its webhooks, flask_coverage.providers.webhooks): "open" until it says
    # otherwise; the title and target branch unknown (None) until then.
    state: Mapped[str] = mapped_column(sa.String(8), default="open", server_default="open")
    title: Mapped[Optional[str]] = mapped_column(sa.String(255))
    base_branch: Mapped[Optional[str]] = mapped_column(sa.String(255))
    # The base the CI named with codecov-cli's pr-base-picking; wins over every other (feedback/base.py).
    user_base_sha: Mapped[Optional[str]] = mapped_column(sa.String(64))
    # The id of the pull's comment on the provider, edited in place (feedback/notify.py).
    comment_id: Mapped[Optional[str]] = mapped_column(sa.String(64))

    head: Mapped[Commit] = relationship()


class FileCoverage(_FileTotals, Base):
    """Coverage of one file in one commit: totals in columns, lines packed in one blob.

    ``data`` is :meth:`flask_coverage.lines.LineCoverage.encode` output, so graphs read the totals
    without decoding any line.
    """

    __tablename__ = "coverage_file"
    __table_args__ = (sa.UniqueConstraint("commit_id", "path"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(sa.String(1024))


class TreeEntry(Base):
    """One entry of a folder of a commit: a file or a folder, with its totals (a folder's sum its
    files'), so a folder of the file explorer is read without reading the files below it.

    Rebuilt from the commit's files with every upload (:func:`flask_coverage.queries.tree.refresh_tree`).
    ``parent`` is the folder's path (``""`` at the top, else ``"src/app"``), ``name`` the entry's.
    """

    __tablename__ = "coverage_tree"
    __table_args__ = (sa.Index(None, "commit_id", "parent", "folder", "name", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"))
    parent: Mapped[str] = mapped_column(sa.String(1024))
    name: Mapped[str] = mapped_column(sa.String(1024))
    folder: Mapped[bool] = mapped_column()
    files: Mapped[int] = mapped_column(default=1)
    lines: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    hits: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    misses: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    partials: Mapped[int] = mapped_column(sa.BigInteger, default=0)


class CommitFlag(_ReportTotals, Base):
    """The coverage of one flag in a commit: the merge of the commit's uploads that carry the flag.

    Totals and ``version`` as on :class:`Commit`; its files are :class:`FlagFileCoverage` rows, read
    exactly as a commit's :class:`FileCoverage` rows are (same columns, same kind of index).
    """

    __tablename__ = "coverage_commit_flag"
    __table_args__ = (sa.UniqueConstraint("commit_id", "flag"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"))
    flag: Mapped[str] = mapped_column(sa.String(45))
    #: The ``flag`` column of the :class:`FlagFileCoverage` rows that hold its files: flags carried by the
    #: same uploads of a commit have the same files, kept once under a key of theirs (``~`` and 40 hex
    #: digits, which no flag name can be). ``NULL``: under the flag's own name (rows stored before).
    files_key: Mapped[Optional[str]] = mapped_column(sa.String(45))

    @property
    def files_flag(self) -> str:
        """What the ``flag`` column of its files holds."""
        return self.files_key or self.flag


class FlagFileCoverage(_FileTotals, Base):
    """Coverage of one file in one flag of a commit, stored as :class:`FileCoverage` is."""

    __tablename__ = "coverage_flag_file"
    __table_args__ = (sa.UniqueConstraint("commit_id", "flag", "path"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"))
    flag: Mapped[str] = mapped_column(sa.String(45))
    path: Mapped[str] = mapped_column(sa.String(1024))


class Upload(Base):
    """An upload merged into a commit, with what its uploader said about it.

    ``key`` is the hex SHA-256 of the upload's reports and where they came from (see
    :func:`flask_coverage.ingest.upload_reports`); a commit has one row per key, so a client's retry
    is not merged again. ``external_id`` is the id a client was given for the upload (the signed
    upload URLs carry it). ``name``, ``build``, ``job``, ``build_url`` and ``provider`` (the CI
    service) are the uploader's; its flags are :class:`UploadFlag` rows. ``skipped`` and
    ``skip_reasons`` say what its parsers skipped or clamped.
    """

    __tablename__ = "coverage_upload"
    __table_args__ = (sa.UniqueConstraint("commit_id", "key"), sa.Index(None, "commit_id", "external_id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    external_id: Mapped[Optional[str]] = mapped_column(sa.String(36))
    name: Mapped[Optional[str]] = mapped_column(sa.String(100))
    build: Mapped[Optional[str]] = mapped_column(sa.String(100))
    job: Mapped[Optional[str]] = mapped_column(sa.String(100))
    build_url: Mapped[Optional[str]] = mapped_column(sa.String(500))
    provider: Mapped[Optional[str]] = mapped_column(sa.String(50))
    #: Lines (or files) its reports held that were skipped or clamped, as Codecov skips them, and
    #: the count per reason (docs/parsing.md).
    skipped: Mapped[int] = mapped_column(default=0, server_default="0")
    skip_reasons: Mapped[Optional[dict[str, int]]] = mapped_column(sa.JSON)


class UploadFlag(Base):
    """One flag of an upload (``-F unit``): one row per (upload, flag), indexed by flag."""

    __tablename__ = "coverage_upload_flag"
    __table_args__ = (sa.Index(None, "flag", "upload_id"),)

    upload_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_upload.id", ondelete="CASCADE"), primary_key=True)
    flag: Mapped[str] = mapped_column(sa.String(45), primary_key=True)


class CarriedFlag(Base):
    """A flag of a commit carried forward (docs/upload.md, "Carryforward flags"): its coverage is not the
    commit's uploads' but that of the ``origin_sha`` commit, where it was uploaded last. ``upload_id`` is the
    commit's upload of kind "carriedforward" that stands for it; a real upload of the flag drops both."""

    __tablename__ = "coverage_carried_flag"

    commit_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_commit.id", ondelete="CASCADE"), primary_key=True)
    flag: Mapped[str] = mapped_column(sa.String(45), primary_key=True)
    upload_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_upload.id", ondelete="CASCADE"), index=True)
    origin_sha: Mapped[str] = mapped_column(sa.String(64))


class AccessToken(Base):
    """A named personal access token of a user; only the SHA-256 of the token is stored."""

    __tablename__ = "coverage_access_token"
    __table_args__ = (sa.UniqueConstraint("owner_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_owner.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(sa.String(100))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    last_used: Mapped[Optional[dt.datetime]]

    owner: Mapped[Owner] = relationship()


class WebhookSecret(Base):
    """The random nonce a repository's webhook secret is derived from (flask_coverage.providers.webhooks):
    the secret itself is never stored; a new nonce rotates it. No row: no secret signs its webhooks."""

    __tablename__ = "coverage_webhook_secret"

    repository_id: Mapped[int] = mapped_column(
        sa.ForeignKey("coverage_repository.id", ondelete="CASCADE"), primary_key=True
    )
    nonce: Mapped[str] = mapped_column(sa.String(32))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class WebhookDelivery(Base):
    """A webhook delivery that was acted on: its provider's delivery id and its body's SHA-256, kept a
    bounded time (flask_coverage.providers.webhooks.DELIVERY_WINDOW) so a replay of either changes nothing."""

    __tablename__ = "coverage_webhook_delivery"
    # Named: the naming convention would give both the name of their first column (PostgreSQL refuses that).
    __table_args__ = (
        sa.UniqueConstraint("service", "digest", name="uq_coverage_webhook_delivery_digest"),
        sa.UniqueConstraint("service", "delivery", name="uq_coverage_webhook_delivery_delivery"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    service: Mapped[ServiceEnum] = mapped_column(_service_type)
    delivery: Mapped[Optional[str]] = mapped_column(sa.String(100))
    digest: Mapped[str] = mapped_column(sa.String(64))
    received_at: Mapped[dt.datetime] = mapped_column(default=utcnow, index=True)


class HostAccount(Base):
    """A user signed in with their git host (docs/sign-in.md): the host's OAuth token, encrypted with
    ``COVERAGE_SIGN_IN_KEY`` (never shown), when the host's view was last synced, and when a sync last
    failed since then."""

    __tablename__ = "coverage_host_account"

    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("coverage_owner.id", ondelete="CASCADE"), primary_key=True)
    token: Mapped[str] = mapped_column(sa.Text)
    synced_at: Mapped[Optional[dt.datetime]]
    failed_at: Mapped[Optional[dt.datetime]]


class RepositoryReader(Base):
    """A user the git host says may read a private repository it knows (the sync writes these; a
    repository the host knows is one with a ``service_id``)."""

    __tablename__ = "coverage_repository_reader"

    repository_id: Mapped[int] = mapped_column(
        sa.ForeignKey("coverage_repository.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        sa.ForeignKey("coverage_owner.id", ondelete="CASCADE"), primary_key=True, index=True
    )
