"""The coverage trend's daily rows (``coverage_day``): kept by uploads, rebuilt by hand, read by the trend."""

from __future__ import annotations

import datetime as dt
import functools
import math
import random
from typing import Any

import pytest
import sqlalchemy as sa
from concurrently import run_together

from flask_coverage import operations
from flask_coverage.ingest import record_commit, upload_report
from flask_coverage.models import Commit, CoverageDay
from flask_coverage.queries.trend import refresh_trend
from flask_coverage.state import get_engine

REPO = "/api/v2/github/acme/repos/widgets"
ORIGIN = dt.datetime(2000, 1, 3)  # a Monday: where the bins are counted from (docs/api.md)


def sha(n: int) -> str:
    return f"{n:040x}"


def report(make_lcov, hits: int, lines: int) -> bytes:
    """A report whose coverage is ``hits / lines``."""
    return make_lcov({"src/app.py": {line: int(line <= hits) for line in range(1, lines + 1)}})


def day_rows(db) -> list[tuple]:
    columns = (CoverageDay.branch, CoverageDay.day, CoverageDay.commits, CoverageDay.low, CoverageDay.high)
    query = sa.select(*columns, CoverageDay.total).order_by(CoverageDay.branch, CoverageDay.day)
    return [(*row[:5], round(row[5], 9)) for row in db.session.execute(query)]


def expected_days(db) -> list[tuple]:
    """The rows ``coverage_day`` should hold, computed here from the commits."""
    days: dict[tuple, list[float]] = {}
    for branch, moment, hits, lines in db.session.execute(
        sa.select(Commit.branch, Commit.timestamp, Commit.hits, Commit.lines)
    ):
        if branch is not None and lines:
            days.setdefault((branch, (moment - ORIGIN).days), []).append(hits * 100 / lines)
    return [
        (branch, day, len(values), min(values), max(values), round(sum(values), 9))
        for (branch, day), values in sorted(days.items())
    ]


def branches(db) -> dict[str, tuple]:
    """``coverage_day`` per branch over its days, after checking its rows against the commits:
    ``(commits, low, high, total)``."""
    rows = day_rows(db)
    assert rows == expected_days(db)
    merged: dict[str, tuple] = {}
    for branch, _, commits, low, high, total in rows:
        before = merged.get(branch, (0, low, high, 0.0))
        merged[branch] = (before[0] + commits, min(before[1], low), max(before[2], high), before[3] + total)
    return merged


def test_uploads_keep_the_days_of_each_branch(widgets, db, make_lcov) -> None:
    upload_report(widgets, report(make_lcov, 1, 4), commit=sha(1), branch="main")
    upload_report(widgets, report(make_lcov, 3, 4), commit=sha(2), branch="main")
    upload_report(widgets, report(make_lcov, 1, 2), commit=sha(3), branch="feature")
    upload_report(widgets, report(make_lcov, 1, 2), commit=sha(4))  # no branch: in no trend
    assert branches(db) == {"feature": (1, 50.0, 50.0, 50.0), "main": (2, 25.0, 75.0, 100.0)}
    # Another upload of a commit changes its coverage; one naming another branch moves it there.
    upload_report(widgets, report(make_lcov, 4, 4), commit=sha(1), branch="main")
    assert branches(db) == {"feature": (1, 50.0, 50.0, 50.0), "main": (2, 75.0, 100.0, 175.0)}
    upload_report(widgets, report(make_lcov, 0, 4), commit=sha(3), branch="main")  # merged: 1 of 4 lines
    assert branches(db) == {"main": (3, 25.0, 100.0, 200.0)}
    # codecov-cli's create-commit moves a commit too; without a branch it leaves it where it is.
    record_commit(widgets, sha(2), branch="release")
    record_commit(widgets, sha(1), pullid=7)
    assert branches(db) == {"main": (2, 25.0, 100.0, 125.0), "release": (1, 75.0, 75.0, 75.0)}
    # A rebuild from the commits finds the same rows.
    kept = day_rows(db)
    refresh_trend()
    assert day_rows(db) == kept


def test_init_db_fills_the_days_of_a_database_from_before_them(widgets, db, make_lcov) -> None:
    for n, (hits, branch) in enumerate([(1, "main"), (2, "main"), (3, "dev")], start=1):
        upload_report(widgets, report(make_lcov, hits, 4), commit=sha(n), branch=branch)
    kept = day_rows(db)
    assert len(kept) == 2
    db.session.remove()
    CoverageDay.__table__.drop(get_engine())
    operations.init_db()
    assert day_rows(db) == kept
    operations.init_db()  # the table has its rows now: nothing changes
    assert day_rows(db) == kept
    db.session.execute(sa.delete(CoverageDay))  # as a fill that failed would leave it
    db.session.commit()
    operations.init_db()
    assert day_rows(db) == kept


def test_deleting_a_repository_deletes_its_days(widgets, db, make_lcov) -> None:
    gadgets = operations.add_repo("github", "acme", "gadgets")
    for repository in (widgets, gadgets):
        upload_report(repository, report(make_lcov, 1, 2), commit=sha(1), branch="main")
    operations.delete_repo("github", "acme", "widgets")
    assert db.session.execute(sa.select(CoverageDay.repository_id)).scalars().all() == [gadgets.id]


def reference_trend(commits: list[tuple], interval: int, start: Any, end: Any) -> list[dict]:
    """The trend computed here from ``(time, hits, lines)`` of one branch's commits."""
    bins: dict[int, list[float]] = {}
    for moment, hits, lines in commits:
        if lines and (start is None or moment >= start) and (end is None or moment <= end):
            bins.setdefault((moment - ORIGIN).days // interval * interval, []).append(hits * 100 / lines)
    floor2 = lambda value: math.floor(value * 100 + 1e-9) / 100  # noqa: E731
    return [
        {
            "timestamp": (ORIGIN + dt.timedelta(days=day)).isoformat() + "+00:00",
            "min": floor2(min(values)),
            "max": floor2(max(values)),
            "avg": floor2(sum(values) / len(values)),
        }
        for day, values in sorted(bins.items())
    ]


@pytest.fixture
def spread(widgets, db, make_lcov) -> list[tuple]:
    """30 commits of main at random times over three weeks (some on a midnight), and 5 of dev."""
    rng = random.Random(15)
    monday = dt.datetime(2026, 3, 2)
    times = [monday + dt.timedelta(minutes=rng.randrange(21 * 24 * 60)) for _ in range(28)]
    times += [monday + dt.timedelta(days=3), monday + dt.timedelta(days=10)]
    main = []
    for n, moment in enumerate(times, start=1):
        hits, lines = rng.randrange(0, 7), rng.randrange(1, 7)
        upload_report(widgets, report(make_lcov, min(hits, lines), lines), commit=sha(n), branch="main")
        main.append((sha(n), moment, min(hits, lines), lines))
    for n in range(100, 105):
        upload_report(widgets, report(make_lcov, 1, 3), commit=sha(n), branch="dev")
    by_sha = {commit: moment for commit, moment, _, _ in main}
    for commit in db.session.execute(sa.select(Commit).where(Commit.sha.in_(by_sha))).scalars():
        commit.timestamp = by_sha[commit.sha]
    db.session.commit()
    refresh_trend(widgets.id)
    return [(moment, hits, lines) for _, moment, hits, lines in main]


def test_the_trend_matches_the_commits_for_any_interval_and_bounds(testapp, spread) -> None:
    monday = dt.datetime(2026, 3, 2)
    bounds: list[tuple[Any, Any]] = [(None, None)]
    bounds += [(monday + dt.timedelta(days=3), None), (None, monday + dt.timedelta(days=10))]  # midnights
    bounds.append((monday + dt.timedelta(days=3), monday + dt.timedelta(days=3)))  # one instant, one commit
    bounds.append((monday + dt.timedelta(days=5, hours=1), monday + dt.timedelta(days=5, hours=23)))  # in one day
    bounds.append((monday + dt.timedelta(days=5, hours=20), monday + dt.timedelta(days=6, hours=3)))  # two part days
    rng = random.Random(3)
    for _ in range(12):
        low, high = sorted(monday + dt.timedelta(minutes=rng.randrange(-600, 22 * 24 * 60)) for _ in range(2))
        bounds.append((low, high))
    bounds += [(moment, None) for moment, _, _ in spread[:3]] + [(None, moment) for moment, _, _ in spread[3:6]]
    for interval in (1, 7, 30):
        for start, end in bounds:
            params = {"interval": f"{interval}d", "page_size": "100"}
            params.update(
                {name: value.isoformat() for name, value in (("start_date", start), ("end_date", end)) if value}
            )
            answer = testapp.get(f"{REPO}/coverage/", params=params).json
            expected = reference_trend(spread, interval, start, end)
            assert answer["results"] == expected, (interval, start, end)
            assert answer["count"] == len(expected)


def test_concurrent_uploads_of_one_branch_and_day_all_count(app, widgets, db, make_lcov) -> None:
    uploaders = 8
    jobs = [
        functools.partial(
            upload_report, "github/acme/widgets", report(make_lcov, k % 5, 4), commit=sha(k), branch="main"
        )
        for k in range(1, uploaders + 1)
    ]
    assert run_together(app, jobs) == []
    rows = day_rows(db)
    assert rows == expected_days(db) and rows[0][2] == uploaders
