"""The lists of the v2 API as SQL: the owners a user has access to, an owner's repositories, a
repository's commits, branches and pulls, an organization's members.

Each function returns a ``select`` in a total order for :func:`flask_coverage.pagination.paginate`
(the keys of a page, with a ``rows`` function for the deferred join where the rows are wide) or
one row; none reads the request. Who may see what is decided by the caller (``auth.py``).
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import sqlalchemy as sa
from sqlalchemy.orm import aliased, contains_eager

from ..auth import READABLE, reader_id
from ..models import Branch, Commit, Membership, Owner, OwnerRow, Pull, Repository, ServiceEnum
from ..pagination import Listing
from ..state import execute, get_engine
from .targets import BASE_OF_PULL, HEAD_OF_PULL, PULL_BASE, PULL_HEAD

#: The fields of a repository that the rows of :func:`repository_rows` hold as they are stored.
REPOSITORY_FIELDS = ("name", "private", "updatestamp", "language", "branch", "active", "activated")
#: The totals of a commit as stored, in the order of :class:`~flask_coverage.lines.Totals` after ``files``.
TOTALS_FIELDS = ("files", "lines", "hits", "misses", "partials")
#: The fields of a commit that the rows of :func:`commit_rows` hold: its ``CommitSchema`` fields as stored.
COMMIT_FIELDS = ("sha", "timestamp", "branch", "version", "parent_sha", "message", "author_name", *TOTALS_FIELDS)

# The lists are written on the tables, not the mapped classes, and their fixed parts are built once
# here (statements are immutable): a request builds only what its arguments change, and runs a
# statement of plain columns without the ORM's work. Together about half of a short list's time.
_repos, _owners, _branches, _commits, _pulls = (
    model.__table__.c for model in (Repository, Owner, Branch, Commit, Pull)
)
_SORT_NAME = sa.func.lower(_repos.name)
_LISTED = _repos.deleted == sa.false()
_PUBLIC = _repos.private == sa.false()
_REPOSITORY_KEYS = sa.select(_repos.id, _SORT_NAME.label("sort_name"))
_REPOSITORY_ROWS = sa.select(
    *(_repos[name] for name in REPOSITORY_FIELDS),
    _owners.service,
    _owners.username,
    _owners.name.label("owner_name"),
    *(_commits[name] for name in TOTALS_FIELDS),
)
# From a repository to its owner, and to the tip of its default branch (if any).
_REPOSITORY_JOINS = (
    (Owner.__table__, _owners.id == _repos.owner_id, False),
    (Branch.__table__, sa.and_(_branches.repository_id == _repos.id, _branches.name == _repos.branch), True),
    (Commit.__table__, _commits.id == _branches.head_commit_id, True),
)
_NEWEST_FIRST = (_commits.timestamp.desc(), _commits.id.desc())
_COMMIT_KEYS = sa.select(_commits.id, _commits.timestamp)
_COMMIT_ROWS = sa.select(*(_commits[name] for name in COMMIT_FIELDS))
_BRANCH_ROWS = sa.select(_branches.name, _branches.updatestamp).order_by(_branches.name)
_PULL_KEYS = sa.select(_pulls.id, _pulls.pullid)
_PULL_ROWS = sa.select(
    _pulls.pullid,
    _pulls.updatestamp,
    _pulls.state,
    _pulls.title,
    *(commit.c[name].label(f"{commit.name}_{name}") for commit in (PULL_HEAD, PULL_BASE) for name in TOTALS_FIELDS),
)


def repositories_query(
    owner_id: int,
    *,
    reader_id: int = 0,
    active: Optional[bool] = None,
    names: Optional[list[str]] = None,
    search: Optional[str] = None,
) -> Listing:
    """The ids of the repositories of an owner, ordered by name (case-insensitive, unique per owner).

    Those the user bound as ``reader_id`` may read (:data:`~flask_coverage.auth.READABLE`; 0, anonymous:
    the public ones, by the cheaper test). ``names`` keeps the given names (any case),
    ``search`` those whose name holds it (case-insensitive; ``%`` and ``_`` literal).
    """
    params: dict[str, Any] = {"owner_id": owner_id, "reader_id": reader_id}
    if names is not None:
        params["names"] = [name.lower() for name in names]
    if search:
        params["search"] = "%" + search.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"
    query = _repositories_statement(reader_id != 0, active, names is not None, bool(search))
    return Listing(query, params)


@functools.cache  # one statement for each of the 24 combinations of arguments
def _repositories_statement(reader: bool, active: Optional[bool], names: bool, search: bool) -> sa.Select:
    query = _REPOSITORY_KEYS.where(_repos.owner_id == sa.bindparam("owner_id"), _LISTED)
    query = query.where(READABLE if reader else _PUBLIC)
    if active is not None:
        query = query.where(_repos.active == active)
    if names:
        query = query.where(_SORT_NAME.in_(sa.bindparam("names", expanding=True)))
    if search:
        query = query.where(_SORT_NAME.like(sa.func.lower(sa.bindparam("search")), escape="/"))
    # The unique index on (owner_id, lower(name)) serves the order: pages are read in index order.
    return query.order_by(_SORT_NAME)


def repository_rows(keys: sa.Subquery) -> sa.Select:
    """The ``RepositorySchema`` columns of the page of repositories ``keys`` names, as plain rows.

    Each row holds the repository's :data:`REPOSITORY_FIELDS`, its owner's ``service``, ``username``
    and ``owner_name``, and the ``files``, ``lines``, ``hits``, ``misses`` and ``partials`` of the tip
    of its default branch (``None`` before the first upload there).
    """
    query = _REPOSITORY_ROWS.join(keys, keys.c.id == _repos.id)
    for table, on, outer in _REPOSITORY_JOINS:
        query = query.join(table, on, isouter=outer)
    return query.order_by(keys.c.sort_name)


def repository_row(repository: Repository) -> sa.Row:
    """The row of :func:`repository_rows` of ``repository``."""
    keys = _REPOSITORY_KEYS.where(_repos.id == repository.id)
    return execute(repository_rows(keys.subquery())).one()


def owner_repositories(owner_id: int, *, reader_id: int = 0) -> list[tuple[Repository, Optional[Commit]]]:
    """The repositories of an owner by name that the user bound as ``reader_id`` may read (0, anonymous:
    the public ones), each with the tip of its default branch (``None`` before the first upload there):
    what an owner's web page lists."""
    query = (
        sa.select(Repository, Commit)
        .outerjoin(Branch, sa.and_(Branch.repository_id == Repository.id, Branch.name == Repository.branch))
        .outerjoin(Commit, Commit.id == Branch.head_commit_id)
        .where(Repository.owner_id == owner_id, _LISTED)
        .order_by(_SORT_NAME)
    )
    query = query.where(READABLE if reader_id else _PUBLIC)
    return [(repository, tip) for repository, tip in execute(query, {"reader_id": reader_id})]


def readable_repositories(user: Optional[Owner], *, limit: int) -> list[tuple[Repository, Optional[Commit]]]:
    """The repositories ``user`` (``None``: anonymous) may read (:data:`~flask_coverage.auth.READABLE`),
    by service, owner and name, each with its owner loaded and the tip of its default branch: what the
    web prefix's entry page lists; at most ``limit``."""
    query = (
        sa.select(Repository, Commit)
        .join(Owner, Owner.id == Repository.owner_id)
        .outerjoin(Branch, sa.and_(Branch.repository_id == Repository.id, Branch.name == Repository.branch))
        .outerjoin(Commit, Commit.id == Branch.head_commit_id)
        .where(READABLE, _LISTED)
        .order_by(Owner.service, sa.func.lower(Owner.username), _SORT_NAME, Repository.id)
        .options(contains_eager(Repository.owner))
        .limit(limit)
    )
    return [(repository, tip) for repository, tip in execute(query, {"reader_id": reader_id(user)})]


def recent_commits(
    repository: Repository, *, branch: Optional[str] = None, pullid: Optional[int] = None, limit: int
) -> list[tuple[Commit, Optional[Commit]]]:
    """The newest ``limit`` commits of ``repository`` (of ``branch``, else of the pull ``pullid``, if given),
    each with its parent (the commit of its ``parent_sha``, ``None`` if not uploaded)."""
    parent = aliased(Commit)
    on = sa.and_(parent.repository_id == Commit.repository_id, parent.sha == Commit.parent_sha)
    query = sa.select(Commit, parent).outerjoin(parent, on).where(Commit.repository_id == repository.id)
    if branch is not None:
        query = query.where(Commit.branch == branch)
    elif pullid is not None:
        query = query.where(Commit.pullid == pullid)
    rows = execute(query.order_by(Commit.timestamp.desc(), Commit.id.desc()).limit(limit))
    return [(commit, before) for commit, before in rows]


def _tips(model: Any, repository: Repository, order: Any) -> list[tuple[Any, Commit]]:
    query = sa.select(model, Commit).join(Commit, Commit.id == model.head_commit_id)
    return [(row, commit) for row, commit in execute(query.where(model.repository_id == repository.id).order_by(order))]


def branch_tips(repository: Repository) -> list[tuple[Branch, Commit]]:
    """The branches of ``repository`` by name, each with its tip."""
    return _tips(Branch, repository, Branch.name)


def pull_tips(repository: Repository) -> list[tuple[Pull, Commit]]:
    """The pull requests of ``repository``, newest (highest number) first, each with its tip."""
    return _tips(Pull, repository, Pull.pullid.desc())


def commits_query(repository: Repository, *, branch: Optional[str] = None) -> sa.Select:
    """The ids of the commits of ``repository`` (only ``branch``'s, if given), newest first."""
    query = _COMMIT_KEYS.where(_commits.repository_id == repository.id)
    if branch is not None:
        query = query.where(_commits.branch == branch)
    return query.order_by(*_NEWEST_FIRST)


def commit_rows(keys: sa.Subquery) -> sa.Select:
    """The :data:`COMMIT_FIELDS` of the commits of a page of :func:`commits_query`, in its order."""
    return _COMMIT_ROWS.join(keys, keys.c.id == _commits.id).order_by(keys.c.timestamp.desc(), keys.c.id.desc())


def branches_query(repository: Repository) -> sa.Select:
    """The names of the branches of ``repository`` and when their tips moved, by name."""
    return _BRANCH_ROWS.where(_branches.repository_id == repository.id)


def pulls_query(repository: Repository) -> sa.Select:
    """The ids of the pull requests of ``repository``, newest (highest number) first."""
    return _PULL_KEYS.where(_pulls.repository_id == repository.id).order_by(_pulls.pullid.desc())


def pull_rows(keys: sa.Subquery) -> sa.Select:
    """The pulls of a page of :func:`pulls_query`, in its order: ``pullid``, ``updatestamp``, ``state``,
    ``title``, and the ``files``, ``lines``, ... of the head and of the base commit as ``head_files``,
    ``base_files``, ... (the base's ``None`` while it has no upload)."""
    query = _PULL_ROWS.join(keys, keys.c.id == _pulls.id).join(PULL_HEAD, HEAD_OF_PULL)
    return query.outerjoin(PULL_BASE, BASE_OF_PULL).order_by(keys.c.pullid.desc())


def pull_row(pull: Pull) -> sa.Row:
    """The row of :func:`pull_rows` of ``pull``."""
    return execute(pull_rows(_PULL_KEYS.where(_pulls.id == pull.id).subquery())).one()


def unindexed(expression: Any) -> Any:
    """``expression`` with the same values and order, as an expression no index serves (``|| ''``).

    The planner trick of the members list: PostgreSQL cannot use an index for it, so a statement that
    orders or filters by it plans around that index (see :func:`members_query` and :func:`_contains`;
    the benchmark is ``benchmarks/bench_users_list.py``, the guard ``tests/blueprints/test_api_users.py``).
    """
    return expression + ""


#: The shortest search term a trigram index can serve.
TRIGRAM = 3


def owners_query(user: Owner, service: ServiceEnum) -> sa.Select:
    """``{service, username, name}`` of ``user`` and of the organizations it is a member of, on ``service``,
    by ``lower(username)`` then id (Codecov's owners list: every owner the caller has access to)."""
    organizations = sa.select(Membership.org_id).where(Membership.user_id == user.id)
    return (
        sa.select(_owners.service, _owners.username, _owners.name)
        .where(_owners.service == service, sa.or_(_owners.id == user.id, _owners.id.in_(organizations)))
        .order_by(sa.func.lower(_owners.username), _owners.id)
    )


def members_query(
    org: OwnerRow, *, activated: Optional[bool] = None, is_admin: Optional[bool] = None, search: Optional[str] = None
) -> sa.Select:
    """The keys of the members of ``org`` (users of its service), in the documented order.

    The order is ``lower(username)`` in the database's collation (``Membership.sort_key``), then the
    owner id: total, so pages never overlap. Without ``search`` a page of keys is read from the
    ``(org_id, sort_key, user_id, activated, is_admin)`` index alone; :func:`member_rows` then joins
    only the page to the owners.
    """
    keys = (Membership.sort_key, Membership.user_id, Membership.activated, Membership.is_admin)
    query = sa.select(*keys).where(*_memberships(org, activated, is_admin))
    terms = dict.fromkeys((search or "").split())
    if not terms:
        return query.where(Membership.sort_key.is_not(None)).order_by(Membership.sort_key, Membership.user_id)
    # The same members as "sort_key IS NOT NULL", said on the owners: the planner may start from the
    # owners that match (the trigram index on PostgreSQL, a scan on SQLite) and probe the memberships.
    query = query.join(Owner, Owner.id == Membership.user_id).where(Owner.service == org.service)
    dialect = get_engine().dialect.name
    for term in terms:
        fields = (Owner.username, Owner.name, Owner.email)
        query = query.where(sa.or_(*(_contains(column, term, dialect) for column in fields)))
    order: Any = Membership.sort_key
    if dialect == "postgresql" and any(len(term) >= TRIGRAM for term in terms):
        # The trigram index finds the matches; expecting many, PostgreSQL would rather walk the list's
        # order until 20 match, which reads every member when few do. An order no index gives makes it
        # sort the matches it found: the page costs at most what the count costs.
        order = unindexed(order)
    return query.order_by(order, Membership.user_id)


def members_count(
    org: OwnerRow, *, activated: Optional[bool] = None, is_admin: Optional[bool] = None, search: Optional[str] = None
) -> Optional[sa.Select]:
    """The number of rows of :func:`members_query` counted the cheap way, or ``None`` for a search.

    The memberships of ``org`` less those of users on another service (``sort_key`` NULL, rare): two
    ranges of narrow indexes instead of one of the wide ``(org_id, sort_key, ...)`` one.
    """
    if (search or "").split():
        return None
    query = sa.select(sa.func.count()).select_from(Membership).where(*_memberships(org, activated, is_admin))
    return sa.select(query.scalar_subquery() - query.where(Membership.sort_key.is_(None)).scalar_subquery())


def member_row(org: OwnerRow, username: str) -> Optional[sa.Row[Any]]:
    """The ``User`` fields of the member of ``org`` named ``username`` (case-insensitive, on the
    organization's service), or ``None``."""
    query = (
        sa.select(Owner.service, Owner.username, Owner.name, Owner.email, Membership.activated, Membership.is_admin)
        .join(Membership, Membership.user_id == Owner.id)
        .where(
            Membership.org_id == org.id,
            Owner.service == org.service,
            sa.func.lower(Owner.username) == sa.func.lower(username),
        )
    )
    return execute(query).first()


def _memberships(org: OwnerRow, activated: Optional[bool], is_admin: Optional[bool]) -> list[Any]:
    """The conditions on the memberships of ``org`` with the given flags."""
    conditions = [Membership.org_id == org.id]
    if activated is not None:
        conditions.append(Membership.activated == activated)
    if is_admin is not None:
        conditions.append(Membership.is_admin == is_admin)
    return conditions


def _contains(column: Any, term: str, dialect: str) -> Any:
    """SQL for: ``term`` is a case-insensitive substring of ``column`` (``%`` and ``_`` are literal)."""
    if dialect == "sqlite":
        # SQLite's LIKE ignores the case of ASCII letters, the only ones its lower() folds: the same
        # match as lower(column) LIKE lower(pattern), without two lower() calls per row.
        return column.contains(term, autoescape=True)
    if len(term) < TRIGRAM:
        # No trigram index serves a term this short; another statement, so that PostgreSQL's cached
        # generic plan of the indexed one (which reads the whole index for it) never runs it.
        column = unindexed(column)
    return column.icontains(term, autoescape=True)


def member_rows(keys: sa.Subquery) -> sa.Select:
    """The ``User`` fields of a page of :func:`members_query`, in its order."""
    return (
        sa.select(Owner.service, Owner.username, Owner.name, Owner.email, keys.c.activated, keys.c.is_admin)
        .join(keys, keys.c.user_id == Owner.id)
        .order_by(keys.c.sort_key, keys.c.user_id)
    )
