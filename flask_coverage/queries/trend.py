"""The coverage trend: a branch's coverage over time, read from a row per branch and day.

``coverage_day`` (:class:`~flask_coverage.models.CoverageDay`) holds, per repository, branch and day,
the number of commits with coverage first seen that day and their lowest, highest and summed coverage.
:func:`coverage_trend` groups those rows into bins (one grouped query, whatever the number of commits);
uploads and ``record_commit`` (:mod:`flask_coverage.ingest`) keep them up to date through
:func:`refresh_days`, under the row's lock; :func:`refresh_trend` rebuilds them from the commits.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Optional, cast

import sqlalchemy as sa

from ..models import Commit, CommitFlag, CoverageDay, Repository, utcnow
from ..state import dialect_insert, execute, get_session
from ..svg.trend import TREND_COMMITS, TREND_PERIODS, TrendPoint

_commits, _days = Commit.__table__.c, CoverageDay.__table__.c
_DAYS = cast(sa.Table, CoverageDay.__table__)

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


def flag_trend(
    repository: Repository,
    flag: str,
    *,
    branch: str,
    interval: str,
    start: Optional[dt.datetime] = None,
    end: Optional[dt.datetime] = None,
) -> list[tuple[int, float, float, float]]:
    """:func:`coverage_trend`'s rows for the coverage of ``flag`` in ``branch``'s commits that have it.

    Read from the commits' flag totals (``CommitFlag``, no per-day rows), one row per such commit: a cost
    of the branch's commits with the flag in the bounds, grouped here.
    """
    width = TREND_INTERVALS[interval] // _DAY
    on = sa.and_(CommitFlag.commit_id == Commit.id, CommitFlag.flag == flag)
    query = (
        sa.select(Commit.timestamp, CommitFlag.hits, CommitFlag.lines)
        .join(CommitFlag, on)
        .where(Commit.repository_id == repository.id, Commit.branch == branch, CommitFlag.lines > 0)
    )
    if start is not None:
        query = query.where(Commit.timestamp >= start)
    if end is not None:
        query = query.where(Commit.timestamp <= end)
    bins: dict[int, list[float]] = {}
    for moment, hits, lines in execute(query):
        bins.setdefault(trend_day(moment) // width * width, []).append(hits * 100 / lines)
    return [(day, min(values), max(values), sum(values) / len(values)) for day, values in sorted(bins.items())]


def trend_day_start(day: int) -> dt.datetime:
    """The time (UTC) where ``day`` (as :func:`trend_day` counts, and a bin of :func:`coverage_trend` starts) begins."""
    return TREND_ORIGIN + int(day) * _DAY


def trend_points(repository: Repository, branch: str, period: str, flag: Optional[str] = None) -> list[TrendPoint]:
    """The commits of ``branch`` with tracked lines that the trend chart of ``period`` shows
    (:data:`~flask_coverage.svg.trend.TREND_PERIODS`: the last days, at most the last
    :data:`~flask_coverage.svg.trend.TREND_COMMITS` commits), oldest first, with when they were first seen;
    with ``flag``, the coverage of that flag in those of them that have it."""
    coverage: Any = Commit if flag is None else CommitFlag
    query = (
        sa.select(Commit.timestamp, coverage.hits, coverage.lines)
        .where(Commit.repository_id == repository.id, Commit.branch == branch, coverage.lines > 0)
        .order_by(Commit.timestamp.desc(), Commit.id.desc())
        .limit(TREND_COMMITS)
    )
    if flag is not None:
        query = query.join(CommitFlag, sa.and_(CommitFlag.commit_id == Commit.id, CommitFlag.flag == flag))
    days = TREND_PERIODS[period]
    if days is not None:
        query = query.where(Commit.timestamp >= utcnow() - dt.timedelta(days=days))
    return [TrendPoint(time, hits * 100 / lines) for time, hits, lines in reversed(execute(query).all())]


def refresh_trend(repository_id: Optional[int] = None) -> None:
    """Rebuild the coverage trend's rows (:class:`~flask_coverage.models.CoverageDay`) of a repository,
    or of every repository, from its commits, and commit.

    Uploads keep those rows up to date; this is for commits stored or changed by other means, and for a
    database whose commits came before the table did (``flask coverage init-db`` calls it then).
    """
    session = get_session()
    commits = sa.select(_commits.repository_id, _commits.branch, _commits.timestamp).where(
        _commits.branch.is_not(None), _commits.lines > 0
    )
    days = sa.delete(_DAYS)
    if repository_id is not None:
        commits = commits.where(_commits.repository_id == repository_id)
        days = days.where(_days.repository_id == repository_id)
    keys = {(owner, branch, trend_day(moment)) for owner, branch, moment in execute(commits)}
    execute(days)
    for owner, branch, day in sorted(keys):
        _refresh_day(owner, branch, day)
    session.commit()


def refresh_days(repository_id: int, branches: set[Optional[str]], timestamp: dt.datetime) -> None:
    """Recompute the trend's rows of ``branches`` (``None`` ignored) for the day of ``timestamp``: a
    commit of that time changed its coverage or moved from one of them to another."""
    for branch in sorted(name for name in branches if name is not None):  # one lock order for all
        _refresh_day(repository_id, branch, trend_day(timestamp))


def _refresh_day(repository_id: int, branch: str, day: int) -> None:
    key = {"repository_id": repository_id, "branch": branch, "day": day}
    start = trend_day_start(day)
    day_query = day_coverage(repository_id, branch, day, start, start + dt.timedelta(days=1))
    # Takes the row's lock first (an empty row if new): a concurrent upload of the same day and branch
    # commits before the next statement reads the commits, so that statement sees its commit too.
    lock = dialect_insert(_DAYS).values(**key).on_conflict_do_update(index_elements=list(key), set_={"day": day})
    execute(lock)
    _, commits, low, high, total = execute(day_query).one()
    this = sa.and_(*(_days[name] == value for name, value in key.items()))
    if commits:
        execute(sa.update(_DAYS).where(this).values(commits=commits, low=low, high=high, total=total))
    else:
        execute(sa.delete(_DAYS).where(this))
