"""Benchmark ``GET {COVERAGE_API_URL_PREFIX}/{service}/{owner}/users/`` on an organization of 100,000 members.

Run from the repository root (PostgreSQL is skipped when the server does not answer)::

    .venv/bin/python benchmarks/bench_users_list.py [--members 100000] [--repeat 30] \\
        [--postgresql postgresql+psycopg://postgres@127.0.0.1:5432/test]

For SQLite (a temporary file) and PostgreSQL (a database created for the run and dropped after it),
the members are bulk-inserted (``executemany`` on SQLite, ``COPY`` on PostgreSQL). Then, for the
first, a middle and the last page of the plain list, of the list filtered by the membership flags,
of a search and of a search with filters, it measures:

- the endpoint through the Flask test client (authentication, access check, count, page, JSON);
- the same SQL bare: every statement the request ran (captured with a SQLAlchemy event, with its
  parameters and commits) replayed in order on the driver's own connection, fetching every row;

and prints p50 and p95 of each, the ratio of the endpoint's p50 to the bare SQL's p50, the number
of queries per request (the same for every page and every list size), and the peak Python memory
of one request (tracemalloc), which shows that no request loads the members into memory.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlencode

import sqlalchemy as sa
from flask import Flask

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # production_service, a test-support module

from production_service import scratch_database  # noqa: E402

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.auth import generate_token, hash_token  # noqa: E402
from flask_coverage.operations import init_db  # noqa: E402
from flask_coverage.state import get_engine  # noqa: E402

SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
FILTERS = {"activated": "true", "is_admin": "false"}
VARIANTS: dict[str, dict[str, str]] = {
    "all members": {},
    "filters": FILTERS,
    "search": {"search": "ka"},
    "search + filters": {"search": "ka ro", **FILTERS},
}


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def member_rows(count: int, seed: int = 7) -> Iterator[tuple[str, str, Any, bool, bool]]:
    """``(username, name, email, activated, is_admin)`` of ``count`` made-up members."""
    rng = random.Random(seed)
    for number in range(count):
        first, last = _word(rng).title(), _word(rng).title()
        username = f"{first.lower()}-{last.lower()}-{number}"
        email = f"{first.lower()}.{last.lower()}@{_word(rng)}.example" if rng.random() < 0.8 else None
        yield username, f"{first} {last}", email, rng.random() < 0.7, rng.random() < 0.05


def bulk_insert(app: Flask, members: int) -> str:
    """Create org ``acme`` with ``members`` members and return a token of one of them."""
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    token = generate_token()
    owner_columns = ("id", "service", "username", "name", "email", "is_org", "created_at", "updatestamp")
    member_columns = ("id", "org_id", "user_id", "activated", "is_admin")
    owners = [(1, "github", "acme", "Acme Inc", None, True, now, now)]
    memberships = []
    for number, (username, name, email, activated, admin) in enumerate(member_rows(members), start=2):
        owners.append((number, "github", username, name, email, False, now, now))
        memberships.append((number - 1, 1, number, activated, admin))
    with app.app_context():
        engine = get_engine()
        connection = engine.raw_connection()
        try:
            cursor = connection.cursor()
            if engine.dialect.name == "postgresql":
                for table, columns, rows in (
                    ("coverage_owner", owner_columns, owners),
                    ("coverage_membership", member_columns, memberships),
                ):
                    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                        for row in rows:
                            copy.write_row(row)
                    cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), {len(rows)})")
            else:
                for table, columns, rows in (
                    ("coverage_owner", owner_columns, owners),
                    ("coverage_membership", member_columns, memberships),
                ):
                    marks = ", ".join("?" * len(columns))
                    cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
            cursor.execute(
                "INSERT INTO coverage_access_token (owner_id, name, token_hash, created_at) VALUES "
                + ("(%s, %s, %s, %s)" if engine.dialect.name == "postgresql" else "(?, ?, ?, ?)"),
                (2, "bench", hash_token(token), now),
            )
            connection.commit()
            if engine.dialect.name == "postgresql":
                # VACUUM (for index-only scans) cannot run in a transaction.
                connection.dbapi_connection.autocommit = True
                cursor.execute("VACUUM ANALYZE")
                connection.dbapi_connection.autocommit = False
            else:
                cursor.execute("ANALYZE")
        finally:
            connection.close()
    return token


@contextlib.contextmanager
def recording(engine: sa.Engine) -> Iterator[list[tuple[Any, ...]]]:
    """Record every statement (with parameters) and every commit on ``engine``, in order."""
    events: list[tuple[Any, ...]] = []

    def on_execute(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        events.append(("execute", statement, parameters))

    def on_commit(conn: Any) -> None:
        events.append(("commit",))

    sa.event.listen(engine, "before_cursor_execute", on_execute)
    sa.event.listen(engine, "commit", on_commit)
    try:
        yield events
    finally:
        sa.event.remove(engine, "before_cursor_execute", on_execute)
        sa.event.remove(engine, "commit", on_commit)


def replay(connection: Any, events: list[tuple[Any, ...]]) -> None:
    """Run the recorded statements bare on a DBAPI connection, fetching every row."""
    cursor = connection.cursor()
    for event in events:
        if event[0] == "commit":
            connection.commit()
        else:
            cursor.execute(event[1], event[2])
            if cursor.description is not None:
                cursor.fetchall()
    connection.rollback()


def timings(runs: dict[str, Callable[[], Any]], repeat: int) -> dict[str, list[float]]:
    """Milliseconds of ``repeat`` calls of each function, interleaved so that a change of machine load
    during the run weighs on every function alike."""
    result: dict[str, list[float]] = {name: [] for name in runs}
    for run in runs.values():
        run()  # warm up caches and prepared statements
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            result[name].append((time.perf_counter() - start) * 1000)
    return result


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def bench_database(label: str, url: str, members: int, repeat: int) -> list[str]:
    app = Flask("bench_users_list")
    app.config.update(SQLALCHEMY_DATABASE_URI=url)
    CoverageService(app)
    with app.app_context():
        init_db()
    start = time.perf_counter()
    token = bulk_insert(app, members)
    print(f"{label}: inserted {members:,} members in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    lines = []
    with app.app_context():
        engine = get_engine()
        # One connection for the whole run, like the app's pooled one: both see the same prepared
        # statements (psycopg prepares a query run 5 times, and PostgreSQL may then reuse a generic plan).
        connection = engine.raw_connection()
        for variant, params in VARIANTS.items():
            count = client.get("/api/v2/github/acme/users/", query_string=params, headers=headers).json["count"]
            last = max(1, -(-count // 20))
            for page_label, page in (("first", 1), ("middle", (last + 1) // 2), ("last", last)):
                url = f"/api/v2/github/acme/users/?{urlencode({**params, 'page': page})}"

                def request(url: str = url) -> Any:
                    response = client.get(url, headers=headers)
                    assert response.status_code == 200, response.json
                    return response

                with recording(engine) as events:
                    request()
                queries = sum(event[0] == "execute" for event in events)
                measured = timings({"endpoint": request, "bare": lambda: replay(connection, events)}, repeat)  # noqa: B023
                endpoint, bare = measured["endpoint"], measured["bare"]
                tracemalloc.start()
                request()
                peak_kib = tracemalloc.get_traced_memory()[1] / 1024
                tracemalloc.stop()
                ratio = statistics.median(endpoint) / statistics.median(bare)
                lines.append(
                    f"| {label} | {variant} | {page_label} ({page:,}) | {count:,} | {queries} "
                    f"| {statistics.median(endpoint):.1f} | {p95(endpoint):.1f} "
                    f"| {statistics.median(bare):.1f} | {p95(bare):.1f} | {ratio:.2f} | {peak_kib:,.0f} |"
                )
                print(lines[-1], file=sys.stderr)
        connection.close()
        app.extensions["sqlalchemy"].session.remove()
        engine.dispose()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--postgresql", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()

    print(
        "| database | list | page | count | queries | endpoint p50 ms | endpoint p95 ms "
        "| bare SQL p50 ms | bare SQL p95 ms | ratio p50 | peak KiB |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for line in bench_database("SQLite", f"sqlite:///{folder}/bench.sqlite", args.members, args.repeat):
            print(line)
    # The machine's load during the run says how much noise the wall times carry.
    print(f"load average at the start: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(scratch_database(args.postgresql))
        except sa.exc.OperationalError as error:
            print(f"PostgreSQL skipped: {error.orig}", file=sys.stderr)
            return
        for line in bench_database("PostgreSQL", url, args.members, args.repeat):
            print(line)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
