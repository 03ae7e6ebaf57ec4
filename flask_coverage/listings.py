"""The lists of the v2 API as SQL: an owner's repositories, a repository's commits, branches and pulls.

Each function returns a ``select`` in a total order for :func:`flask_coverage.pagination.paginate`
(the keys of a page, with a ``rows`` function for the deferred join where the rows are wide) or
one row; none reads the request. Who may see what is decided by the caller (``auth.py``).
"""

from __future__ import annotations

import datetime as dt
from typing import Optional

import sqlalchemy as sa
from sqlalchemy.orm import aliased

from .lines import Totals
from .models import Branch, Commit, Pull, Repository
from .names import is_storable
from .state import get_engine, get_session


def commit_totals(commit: Commit) -> Totals:
    """The stored totals of ``commit``."""
    return Totals(commit.lines, commit.hits, commit.misses, commit.partials)


def repositories_query(
    owner_id: int,
    *,
    private: bool,
    active: Optional[bool] = None,
    names: Optional[list[str]] = None,
    search: Optional[str] = None,
) -> sa.Select:
    """The ids of the repositories of an owner, ordered by name (case-insensitive, unique per owner).

    ``private=False`` leaves the private ones out. ``names`` keeps the given names (any case),
    ``search`` those whose name holds it (case-insensitive; ``%`` and ``_`` literal).
    """
    query = sa.select(Repository.id, sa.func.lower(Repository.name).label("sort_name")).where(
        Repository.owner_id == owner_id, Repository.deleted == sa.false()
    )
    if not private:
        query = query.where(Repository.private == sa.false())
    if active is not None:
        query = query.where(Repository.active == active)
    if names is not None:
        query = query.where(sa.func.lower(Repository.name).in_([name.lower() for name in names]))
    if search:
        query = query.where(Repository.name.icontains(search, autoescape=True))
    # The unique index on (owner_id, lower(name)) serves the order: pages are read in index order.
    return query.order_by(sa.func.lower(Repository.name))


def repository_rows(keys: sa.Subquery) -> sa.Select:
    """The page of repositories ``keys`` names, each with the tip of its default branch (or ``None``)."""
    tip = aliased(Commit)
    return (
        sa.select(Repository, tip)
        .join(keys, keys.c.id == Repository.id)
        .outerjoin(Branch, sa.and_(Branch.repository_id == Repository.id, Branch.name == Repository.branch))
        .outerjoin(tip, tip.id == Branch.head_commit_id)
        .order_by(keys.c.sort_name)
    )


def commits_query(repository: Repository, *, branch: Optional[str] = None) -> sa.Select:
    """The ids of the commits of ``repository`` (only ``branch``'s, if given), newest first."""
    query = sa.select(Commit.id, Commit.timestamp).where(Commit.repository_id == repository.id)
    if branch is not None:
        query = query.where(Commit.branch == branch)
    return query.order_by(Commit.timestamp.desc(), Commit.id.desc())


def commit_rows(keys: sa.Subquery) -> sa.Select:
    """The commits of a page of :func:`commits_query`, in its order."""
    return sa.select(Commit).join(keys, keys.c.id == Commit.id).order_by(keys.c.timestamp.desc(), keys.c.id.desc())


def branches_query(repository: Repository) -> sa.Select:
    """The branches of ``repository`` by name."""
    return sa.select(Branch).where(Branch.repository_id == repository.id).order_by(Branch.name)


def find_branch(repository: Repository, name: str) -> Optional[Branch]:
    """The branch ``name`` of ``repository`` with its tip loaded, or ``None``."""
    if not is_storable(name):
        return None
    query = sa.select(Branch).where(Branch.repository_id == repository.id, Branch.name == name)
    return get_session().execute(query).scalar_one_or_none()


def pulls_query(repository: Repository) -> sa.Select:
    """The pull requests of ``repository``, newest (highest number) first, with head and base commits."""
    head, base = aliased(Commit), aliased(Commit)
    return (
        sa.select(Pull, head, base)
        .join(head, head.id == Pull.head_commit_id)
        .outerjoin(base, sa.and_(base.repository_id == Pull.repository_id, base.sha == Pull.base_sha))
        .where(Pull.repository_id == repository.id)
        .order_by(Pull.pullid.desc())
    )


def find_pull(repository: Repository, pullid: int) -> Optional[sa.Row]:
    """``(pull, head, base)`` of the pull request ``pullid`` (base ``None`` if not uploaded), or ``None``."""
    return get_session().execute(pulls_query(repository).where(Pull.pullid == pullid)).first()


#: The trend's intervals: their width, counted from a Monday (so that 7d bins are weeks).
TREND_INTERVALS = {"1d": dt.timedelta(days=1), "7d": dt.timedelta(days=7), "30d": dt.timedelta(days=30)}
TREND_ORIGIN = dt.datetime(2000, 1, 3)


def coverage_trend_query(
    repository: Repository,
    *,
    branch: str,
    interval: str,
    start: Optional[dt.datetime] = None,
    end: Optional[dt.datetime] = None,
) -> sa.Select:
    """The coverage of ``branch``'s commits (those with coverage) grouped into ``interval`` bins, oldest first.

    Rows are ``(start, low, high, mean)``: where the bin starts, in seconds from :data:`TREND_ORIGIN`, and the
    lowest, highest and mean ``hits / lines * 100`` of its commits (a commit's time is when it was
    first seen). ``start`` and ``end`` bound the commits' times (both included). One grouped query:
    the bins are made in SQL, never in Python.
    """
    seconds = int(TREND_INTERVALS[interval].total_seconds())
    epoch: sa.ColumnElement[int]
    if get_engine().dialect.name == "postgresql":
        epoch = sa.cast(sa.extract("epoch", Commit.timestamp - TREND_ORIGIN), sa.BigInteger)
    else:
        # julianday() is SQLite's cheapest way from a stored time to a number (strftime('%s') is slower).
        origin = sa.func.julianday(TREND_ORIGIN.isoformat(sep=" "))
        epoch = sa.cast((sa.func.julianday(Commit.timestamp) - origin) * 86400, sa.BigInteger)
    bin_start = (epoch // seconds * seconds).label("start")
    coverage = Commit.hits * 100.0 / Commit.lines
    query = sa.select(bin_start, sa.func.min(coverage), sa.func.max(coverage), sa.func.avg(coverage)).where(
        Commit.repository_id == repository.id, Commit.branch == branch, Commit.lines > 0
    )
    if start is not None:
        query = query.where(Commit.timestamp >= start)
    if end is not None:
        query = query.where(Commit.timestamp <= end)
    return query.group_by(bin_start).order_by(bin_start)


def trend_bin_start(start: int) -> dt.datetime:
    """The time (UTC) of a bin's ``start`` as :func:`coverage_trend_query` gives it."""
    return TREND_ORIGIN + dt.timedelta(seconds=int(start))


def branch_coverage(repository: Repository, branch: str, limit: int) -> list[tuple[int, int]]:
    """``(hits, lines)`` of the last ``limit`` commits of ``branch`` with tracked lines, oldest first."""
    query = (
        sa.select(Commit.hits, Commit.lines)
        .where(Commit.repository_id == repository.id, Commit.branch == branch, Commit.lines > 0)
        .order_by(Commit.timestamp.desc(), Commit.id.desc())
        .limit(limit)
    )
    return [(hits, lines) for hits, lines in reversed(get_session().execute(query).all())]
