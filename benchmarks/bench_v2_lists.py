"""Benchmark the v2 lists of repositories, commits, branches and pulls, and the coverage trend, against bare SQL.

Run from the repository root::

    .venv/bin/python benchmarks/bench_v2_lists.py [--repos 10000] [--commits 100000] [--others 10000] \\
        [--repeat 30] [--postgresql postgresql+psycopg://postgres@127.0.0.1:5432/test]

On SQLite (a temporary file) and, with ``--postgresql``, on a PostgreSQL database made for the run,
org ``acme`` gets ``--repos`` public repositories (each with one commit at the tip of ``main``) and
one of them ``--commits`` commits on ``main`` and ``--others`` branches and pull requests, bulk-inserted.
For the first and the last page of ``GET .../repos/`` and of the repository's ``commits/``,
``branches/`` and ``pulls/`` it measures the endpoint through the Flask test client (lookup, count,
page, JSON) and the ideal SQL written by hand on the driver's own connection (the count, and the page,
as a deferred join where rows are wide), one run of each in turn so that load weighs on both alike,
and prints the p50 of each and their ratio (the goal: at most 3), and the minimums' ratio. The
coverage trend of the ``--commits`` commits (``interval`` 1d, 7d and 30d, the first page) is timed
through the endpoint (the goal: under 50 ms) and against its ideal SQL over the daily rows, which
``refresh_trend()`` builds from the bulk-inserted commits (timed too).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # production_service, a test-support module

from flask import Flask  # noqa: E402
from production_service import scratch_database  # noqa: E402

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.operations import init_db  # noqa: E402
from flask_coverage.queries.trend import refresh_trend  # noqa: E402
from flask_coverage.state import get_engine  # noqa: E402

IDEAL = {
    "repos count": "SELECT count(*) FROM coverage_repository"
    " WHERE owner_id = 1 AND deleted = false AND private = false",
    "repos page": """SELECT r.*, c.* FROM (SELECT id, lower(name) AS k FROM coverage_repository
      WHERE owner_id = 1 AND deleted = false AND private = false ORDER BY lower(name) LIMIT 20 OFFSET {offset}) AS p
    JOIN coverage_repository AS r ON r.id = p.id
    LEFT JOIN coverage_branch AS b ON b.repository_id = r.id AND b.name = r.branch
    LEFT JOIN coverage_commit AS c ON c.id = b.head_commit_id ORDER BY p.k""",
    "commits count": "SELECT count(*) FROM coverage_commit WHERE repository_id = 1",
    "commits page": """SELECT c.* FROM (SELECT id, timestamp FROM coverage_commit WHERE repository_id = 1
      ORDER BY timestamp DESC, id DESC LIMIT 20 OFFSET {offset}) AS p
    JOIN coverage_commit AS c ON c.id = p.id ORDER BY p.timestamp DESC, p.id DESC""",
    "branches count": "SELECT count(*) FROM coverage_branch WHERE repository_id = 1",
    "branches page": """SELECT name, updatestamp FROM coverage_branch WHERE repository_id = 1
    ORDER BY name LIMIT 20 OFFSET {offset}""",
    "pulls count": "SELECT count(*) FROM coverage_pull WHERE repository_id = 1",
    "pulls page": """SELECT p.*, h.*, b.* FROM (SELECT id, pullid FROM coverage_pull WHERE repository_id = 1
      ORDER BY pullid DESC LIMIT 20 OFFSET {offset}) AS k
    JOIN coverage_pull AS p ON p.id = k.id JOIN coverage_commit AS h ON h.id = p.head_commit_id
    LEFT JOIN coverage_commit AS b ON b.repository_id = p.repository_id AND b.sha = p.base_sha
    ORDER BY k.pullid DESC""",
}
# The trend's ideal SQL: the branch's daily rows grouped into bins of {width} days.
TREND = """SELECT day / {width} * {width}, min(low), max(high), sum(total) / sum(commits) FROM coverage_day
    WHERE repository_id = 1 AND branch = 'main' GROUP BY 1 ORDER BY 1"""


def fill(app: Flask, repos: int, commits: int, others: int) -> None:
    """acme with ``repos`` repositories (one commit each at main's tip); repository 1 has ``commits``,
    and ``others`` branches and pull requests besides main (their tips among its commits)."""
    now = dt.datetime(2026, 1, 1)
    rows: dict[str, list[tuple[Any, ...]]] = {"owner": [(1, "github", "acme", "Acme", True, now, now)]}
    rows["repository"] = [
        (n, 1, f"repo-{n:05d}", False, True, True, False, "main", str(uuid.uuid4()), "abcdefghij", False, now, now)
        for n in range(1, repos + 1)
    ]
    commit_rows, branch_rows = [], []
    for n in range(1, commits + 1):  # repository 1's history, one commit a minute
        hits = 500 + n % 400
        commit_rows.append(
            (n, 1, f"{n:040x}", "main", now + dt.timedelta(minutes=n), 1, 10, 1000, hits, 1000 - hits, 0)
        )
    branch_rows.append((1, 1, "main", commits, now))
    for n in range(2, repos + 1):
        commit_id = commits + n
        commit_rows.append((commit_id, n, f"{n:040x}", "main", now, 1, 3, 100, 70, 30, 0))
        branch_rows.append((n, n, "main", commit_id, now))
    for n in range(1, others + 1):  # branches and pulls of repository 1, each pull based on its tip's parent
        head = n % commits + 1
        branch_rows.append((repos + n, 1, f"feature-{n:06d}", head, now))
    rows["commit"], rows["branch"] = commit_rows, branch_rows
    rows["pull"] = [(n, 1, n, n % commits + 1, f"{n % commits:040x}", now) for n in range(1, others + 1)]
    columns = {
        "owner": "id, service, username, name, is_org, created_at, updatestamp",
        "repository": "id, owner_id, name, private, active, activated, deleted, branch, upload_token, image_token, "
        "using_integration, created_at, updatestamp",
        "commit": "id, repository_id, sha, branch, timestamp, version, files, lines, hits, misses, partials",
        "branch": "id, repository_id, name, head_commit_id, updatestamp",
        "pull": "id, repository_id, pullid, head_commit_id, base_sha, updatestamp",
    }
    with app.app_context():
        engine = get_engine()
        connection = engine.raw_connection()
        try:
            cursor = connection.cursor()
            postgresql = engine.dialect.name == "postgresql"
            for table in ("owner", "repository", "commit", "branch", "pull"):
                if postgresql:
                    with cursor.copy(f"COPY coverage_{table} ({columns[table]}) FROM STDIN") as copy:
                        for row in rows[table]:
                            copy.write_row(row)
                    cursor.execute(
                        f"SELECT setval(pg_get_serial_sequence('coverage_{table}', 'id'), {len(rows[table])})"
                    )
                else:
                    marks = ", ".join("?" * len(rows[table][0]))
                    cursor.executemany(f"INSERT INTO coverage_{table} ({columns[table]}) VALUES ({marks})", rows[table])
            connection.commit()
        finally:
            connection.close()
        # The commits went around the uploads: the trend's daily rows are built from them as init-db would.
        started = time.perf_counter()
        refresh_trend()
        print(f"refresh_trend() of {commits + repos - 1:,} commits: {time.perf_counter() - started:.2f} s")
        with engine.connect() as analyze:
            if postgresql:
                analyze.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM ANALYZE")
            else:
                analyze.exec_driver_sql("ANALYZE")
                analyze.commit()


def timings(runs: list[Callable[[], Any]], repeat: int) -> list[tuple[float, float]]:
    """The p50 and the minimum (ms) of each of ``runs``, timed in turn ``repeat`` times, so that load
    weighs on all alike. The minimum is the run that other jobs disturbed least."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, spent in zip(runs, times):
            start = time.perf_counter()
            run()
            spent.append(time.perf_counter() - start)
    return [(statistics.median(spent) * 1000, min(spent) * 1000) for spent in times]


def report(name: str, ours: tuple[float, float], bare: tuple[float, float]) -> None:
    print(
        f"  {name:22} endpoint {ours[0]:7.2f} ms   bare SQL {bare[0]:7.2f} ms   ratio {ours[0] / bare[0]:4.2f}"
        f"   (minimum {ours[1]:6.2f} / {bare[1]:6.2f} = {ours[1] / bare[1]:4.2f})"
    )


def measure(app: Flask, repos: int, commits: int, others: int, repeat: int) -> None:
    client = app.test_client()
    with app.app_context():
        engine = get_engine()
    raw = engine.raw_connection()
    cursor = raw.cursor()

    def ideal(*statements: str) -> Callable[[], Any]:
        def run() -> None:
            for statement in statements:
                cursor.execute(statement)
                cursor.fetchall()

        return run

    def endpoint(url: str) -> Callable[[], Any]:
        def run() -> None:
            response = client.get(url)
            assert response.status_code == 200, response.data[:200]

        return run

    base = "/api/v2/github/acme/repos/"
    lists = {"repos": (base, repos), "commits": (f"{base}repo-00001/commits/", commits)}
    lists.update(branches=(f"{base}repo-00001/branches/", others + 1), pulls=(f"{base}repo-00001/pulls/", others))
    cases = {}
    for kind, (url, count) in lists.items():
        last = -(-count // 20)
        cases[f"{kind}, first page"] = (url, kind, 0)
        cases[f"{kind}, last page"] = (f"{url}?page={last}", kind, (last - 1) * 20)
    print(
        f"{engine.dialect.name}: {repos:,} repositories, {commits:,} commits, {others:,} branches and pulls; "
        f"p50 of {repeat} runs"
    )
    for name, (url, kind, offset) in cases.items():
        bare_sql = ideal(IDEAL[f"{kind} count"], IDEAL[f"{kind} page"].format(offset=offset))
        endpoint(url)(), bare_sql()  # warm
        report(name, *timings([endpoint(url), bare_sql], repeat))
    for interval, width in (("1d", 1), ("7d", 7), ("30d", 30)):
        url = f"{base}repo-00001/coverage/?interval={interval}"
        bare_sql = ideal(TREND.format(width=width))
        endpoint(url)(), bare_sql()
        report(f"trend {interval}", *timings([endpoint(url), bare_sql], repeat))
    raw.close()


def make_app(url: str) -> Flask:
    app = Flask("bench_v2_lists")
    app.config.update(SQLALCHEMY_DATABASE_URI=url, SECRET_KEY=os.urandom(16).hex())
    CoverageService(app)
    with app.app_context():
        init_db()
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repos", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--others", type=int, default=10_000, help="branches and pulls of the big repository")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--postgresql", help="a PostgreSQL URL: a scratch database is made next to it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = make_app(f"sqlite:///{folder}/bench.sqlite")
        fill(app, args.repos, args.commits, args.others)
        measure(app, args.repos, args.commits, args.others, args.repeat)
    if args.postgresql:
        with scratch_database(args.postgresql) as url:
            app = make_app(url)
            fill(app, args.repos, args.commits, args.others)
            measure(app, args.repos, args.commits, args.others, args.repeat)
            with app.app_context():
                get_engine().dispose()


if __name__ == "__main__":
    main()
