"""The lists of the v2 API as SQL: an owner's repositories, a repository's commits, branches and pulls.

Each function returns a ``select`` in a total order for :func:`flask_coverage.pagination.paginate`
(the keys of a page, with a ``rows`` function for the deferred join where the rows are wide) or
one row; none reads the request. Who may see what is decided by the caller (``auth.py``).
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any, Optional, Union

import sqlalchemy as sa
from sqlalchemy.orm import aliased

from .lines import Totals
from .models import Branch, Commit, CoverageDay, Owner, Pull, Repository
from .names import is_storable
from .pagination import Listing
from .state import execute

#: The fields of a repository that the rows of :func:`repository_rows` hold as they are stored.
REPOSITORY_FIELDS = ("name", "private", "updatestamp", "language", "branch", "active", "activated")
#: The totals of a commit as stored, in the order of :class:`~flask_coverage.lines.Totals` after ``files``.
TOTALS_FIELDS = ("files", "lines", "hits", "misses", "partials")
#: The fields of a commit that the rows of :func:`commit_rows` hold: its ``CommitSchema`` fields as stored.
COMMIT_FIELDS = ("sha", "timestamp", "branch", "version", "parent_sha", *TOTALS_FIELDS)

# The lists are written on the tables, not the mapped classes, and their fixed parts are built once
# here (statements are immutable): a request builds only what its arguments change, and runs a
# statement of plain columns without the ORM's work. Together about half of a short list's time.
_repos, _owners, _branches, _commits, _pulls, _days = (
    model.__table__.c for model in (Repository, Owner, Branch, Commit, Pull, CoverageDay)
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
# A pull's head commit, and its base: the commit of its repository whose sha it names (if uploaded).
_HEAD, _BASE = Commit.__table__.alias("head"), Commit.__table__.alias("base")
_HEAD_OF_PULL = _HEAD.c.id == _pulls.head_commit_id
_BASE_OF_PULL = sa.and_(_BASE.c.repository_id == _pulls.repository_id, _BASE.c.sha == _pulls.base_sha)
_PULL_KEYS = sa.select(_pulls.id, _pulls.pullid)
_PULL_ROWS = sa.select(
    _pulls.pullid,
    _pulls.updatestamp,
    *(commit.c[name].label(f"{commit.name}_{name}") for commit in (_HEAD, _BASE) for name in TOTALS_FIELDS),
)


def commit_totals(commit: Union[Commit, sa.Row]) -> Totals:
    """The stored totals of ``commit`` (or of a row holding its columns ``lines``, ``hits``, ...)."""
    return Totals(commit.lines, commit.hits, commit.misses, commit.partials)


def repositories_query(
    owner_id: int,
    *,
    private: bool,
    active: Optional[bool] = None,
    names: Optional[list[str]] = None,
    search: Optional[str] = None,
) -> Listing:
    """The ids of the repositories of an owner, ordered by name (case-insensitive, unique per owner).

    ``private=False`` leaves the private ones out. ``names`` keeps the given names (any case),
    ``search`` those whose name holds it (case-insensitive; ``%`` and ``_`` literal).
    """
    params: dict[str, Any] = {"owner_id": owner_id}
    if names is not None:
        params["names"] = [name.lower() for name in names]
    if search:
        params["search"] = "%" + search.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"
    query = _repositories_statement(private, active, names is not None, bool(search))
    return Listing(query, params)


@functools.cache  # one statement for each of the 24 combinations of arguments
def _repositories_statement(private: bool, active: Optional[bool], names: bool, search: bool) -> sa.Select:
    query = _REPOSITORY_KEYS.where(_repos.owner_id == sa.bindparam("owner_id"), _LISTED)
    if not private:
        query = query.where(_PUBLIC)
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


def find_branch(repository: Repository, name: str) -> Optional[Branch]:
    """The branch ``name`` of ``repository`` with its tip loaded, or ``None``."""
    if not is_storable(name):
        return None
    query = sa.select(Branch).where(Branch.repository_id == repository.id, Branch.name == name)
    return execute(query).scalar_one_or_none()


def pulls_query(repository: Repository) -> sa.Select:
    """The ids of the pull requests of ``repository``, newest (highest number) first."""
    return _PULL_KEYS.where(_pulls.repository_id == repository.id).order_by(_pulls.pullid.desc())


def pull_rows(keys: sa.Subquery) -> sa.Select:
    """The pulls of a page of :func:`pulls_query`, in its order: ``pullid``, ``updatestamp``, and the
    ``files``, ``lines``, ... of the head and of the base commit as ``head_files``, ``base_files``, ...
    (the base's ``None`` while it has no upload)."""
    query = _PULL_ROWS.join(keys, keys.c.id == _pulls.id).join(_HEAD, _HEAD_OF_PULL)
    return query.outerjoin(_BASE, _BASE_OF_PULL).order_by(keys.c.pullid.desc())


def pull_row(pull: Pull) -> sa.Row:
    """The row of :func:`pull_rows` of ``pull``."""
    return execute(pull_rows(_PULL_KEYS.where(_pulls.id == pull.id).subquery())).one()


def find_pull(repository: Repository, pullid: int) -> Optional[sa.Row]:
    """``(pull, head, base)`` of the pull request ``pullid`` (base ``None`` if not uploaded), or ``None``."""
    head, base = aliased(Commit, _HEAD), aliased(Commit, _BASE)
    query = sa.select(Pull, head, base).join(head, _HEAD_OF_PULL).outerjoin(base, _BASE_OF_PULL)
    return execute(query.where(Pull.repository_id == repository.id, Pull.pullid == pullid)).first()


#: The trend's intervals: their width, counted from a Monday (so that 7d bins are weeks).
TREND_INTERVALS = {"1d": dt.timedelta(days=1), "7d": dt.timedelta(days=7), "30d": dt.timedelta(days=30)}
TREND_ORIGIN = dt.datetime(2000, 1, 3)
_DAY = dt.timedelta(days=1)
# A commit's coverage in floating point (PostgreSQL would divide the integers as NUMERIC, twice as slow).
_COVERAGE = sa.cast(_commits.hits, sa.Float) * 100 / sa.cast(_commits.lines, sa.Float)


def trend_day(moment: dt.datetime) -> int:
    """The day (from :data:`TREND_ORIGIN`) of a time (UTC), as :class:`~flask_coverage.models.CoverageDay` counts."""
    return (moment - TREND_ORIGIN) // _DAY


def day_coverage(repository_id: int, branch: str, day: int, since: dt.datetime, until: dt.datetime) -> sa.Select:
    """``(day, commits, low, high, total)`` of ``branch``'s commits with lines first seen from ``since``
    to before ``until`` (within ``day``), as a :class:`~flask_coverage.models.CoverageDay` row holds them
    (``commits`` 0 and the rest ``None`` if there are none)."""
    return sa.select(
        sa.literal(day, sa.Integer).label("day"),
        sa.func.count().label("commits"),
        sa.func.min(_COVERAGE).label("low"),
        sa.func.max(_COVERAGE).label("high"),
        sa.func.sum(_COVERAGE).label("total"),
    ).where(
        _commits.repository_id == repository_id,
        _commits.branch == branch,
        _commits.lines > 0,
        _commits.timestamp >= since,
        _commits.timestamp < until,
    )


def coverage_trend(
    repository: Repository,
    *,
    branch: str,
    interval: str,
    start: Optional[dt.datetime] = None,
    end: Optional[dt.datetime] = None,
) -> list[sa.Row]:
    """The coverage of ``branch``'s commits (those with coverage) grouped into ``interval`` bins, oldest first.

    Rows are ``(start, low, high, mean)``: where the bin starts, in days from :data:`TREND_ORIGIN`, and the
    lowest, highest and mean ``hits / lines * 100`` of its commits (a commit's time is when it was
    first seen). ``start`` and ``end`` bound the commits' times (both included). One grouped query over
    the branch's rows of :class:`~flask_coverage.models.CoverageDay`, a row a day, with the commits of
    the days that ``start`` or ``end`` cut read from the commits themselves.
    """
    width = TREND_INTERVALS[interval] // _DAY
    until = None if end is None else end + dt.timedelta(microseconds=1)
    # The whole days between the bounds: from the first midnight at or after start to the last before until.
    first = None if start is None else -((TREND_ORIGIN - start) // _DAY)
    last = None if until is None else trend_day(until)
    days = sa.select(_days.day, _days.commits, _days.low, _days.high, _days.total).where(
        _days.repository_id == repository.id, _days.branch == branch
    )
    cut: list[sa.Select] = []
    if start is not None and first is not None:
        days = days.where(_days.day >= first)
        if start < trend_day_start(first):  # the commits of start's day from start on
            before = trend_day_start(first) if until is None else min(trend_day_start(first), until)
            cut.append(day_coverage(repository.id, branch, first - 1, start, before))
    if until is not None and last is not None:
        days = days.where(_days.day < last)
        if until > trend_day_start(last) and (first is None or first <= last):  # the commits of until's day before it
            cut.append(day_coverage(repository.id, branch, last, trend_day_start(last), until))
    rows = (sa.union_all(days, *cut) if cut else days).subquery()
    bin_start = (rows.c.day // width * width).label("start")
    mean = sa.func.sum(rows.c.total) / sa.func.sum(rows.c.commits)
    query = sa.select(bin_start, sa.func.min(rows.c.low), sa.func.max(rows.c.high), mean).where(rows.c.commits > 0)
    return list(execute(query.group_by(bin_start).order_by(bin_start)))


def trend_day_start(day: int) -> dt.datetime:
    """The time (UTC) where ``day`` (as :func:`trend_day` counts, and a bin of :func:`coverage_trend` starts) begins."""
    return TREND_ORIGIN + int(day) * _DAY


def branch_coverage(repository: Repository, branch: str, limit: int) -> list[tuple[int, int]]:
    """``(hits, lines)`` of the last ``limit`` commits of ``branch`` with tracked lines, oldest first."""
    query = (
        sa.select(Commit.hits, Commit.lines)
        .where(Commit.repository_id == repository.id, Commit.branch == branch, Commit.lines > 0)
        .order_by(Commit.timestamp.desc(), Commit.id.desc())
        .limit(limit)
    )
    return [(hits, lines) for hits, lines in reversed(execute(query).all())]
