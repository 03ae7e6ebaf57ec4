"""Benchmark ``GET {COVERAGE_API_URL_PREFIX}/{service}/{owner}/users/`` on an organization of 100,000 members.

Run from the repository root (PostgreSQL is skipped when the server does not answer)::

    .venv/bin/python benchmarks/bench_users_list.py [--members 100000] [--repeat 30] \\
        [--postgresql postgresql+psycopg://postgres@127.0.0.1:5432/test]

For SQLite (a temporary file) and PostgreSQL (a database created for the run and dropped after it),
``init-db`` makes the tables, the members are bulk-inserted (``executemany`` on SQLite, ``COPY`` on
PostgreSQL) without their sort keys, which the migration statement of ``CHANGES.md`` then fills
(timed). For the first, a middle and the last page of the plain list and of the list filtered by the
membership flags, it measures, interleaved:

- the endpoint through the Flask test client (authentication, access check, count, page, JSON);
- the ideal SQL written by hand on the driver's own connection, fetching every row: ``count(*)`` over
  the organization's membership rows, and the page as a deferred join (the 20 memberships picked in
  ``(sort_key, user_id)`` order from the covering index alone, then joined to their owners);

and prints p50 and p95 of each and the ratio of the p50s (the goal: at most 3). Searches are timed
against the plain list's first page (the goal: their first page within 5x of it). It also prints the
number of queries per request (the same for every page and every list size) and the peak Python
memory of one request (tracemalloc), which shows that no request loads the members into memory.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
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
from flask_coverage.models import Membership, member_sort_key  # noqa: E402
from flask_coverage.operations import init_db  # noqa: E402
from flask_coverage.state import get_engine  # noqa: E402

SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
FILTERS = {"activated": "true", "is_admin": "false"}
LISTS: dict[str, dict[str, str]] = {"all members": {}, "filters": FILTERS}
# A 3-letter term the trigram index can serve, two terms, and a 2-letter term it cannot (a scan).
SEARCHES: dict[str, dict[str, str]] = {
    "search 'kar'": {"search": "kar"},
    "search 'kar ro' + filters": {"search": "kar ro", **FILTERS},
    "search 'ka'": {"search": "ka"},
}
# The ideal SQL of DESIGN section 14, written by hand: the count over the organization's membership
# rows, and the page picked from the covering index alone, then joined to the owners.
IDEAL_COUNT = "SELECT count(*) FROM coverage_membership WHERE org_id = ?{flags}"
IDEAL_PAGE = """SELECT o.service, o.username, o.name, o.email, m.activated, m.is_admin
FROM (SELECT user_id, sort_key, activated, is_admin FROM coverage_membership
      WHERE org_id = ?{flags} ORDER BY sort_key, user_id LIMIT 20 OFFSET ?) AS m
JOIN coverage_owner AS o ON o.id = m.user_id ORDER BY m.sort_key, m.user_id"""


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
        finally:
            connection.close()
        # The sort keys, filled as an existing database's are when it is migrated (CHANGES.md).
        start = time.perf_counter()
        with engine.begin() as sa_connection:
            sa_connection.execute(
                sa.update(Membership).values(sort_key=member_sort_key(Membership.org_id, Membership.user_id))
            )
        print(f"sort keys of {members:,} members filled in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        connection = engine.raw_connection()
        try:
            cursor = connection.cursor()
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
def recording(engine: sa.Engine) -> Iterator[list[str]]:
    """Record every statement ``engine`` runs."""
    statements: list[str] = []

    def on_execute(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        statements.append(statement)

    sa.event.listen(engine, "before_cursor_execute", on_execute)
    try:
        yield statements
    finally:
        sa.event.remove(engine, "before_cursor_execute", on_execute)


def ideal(connection: Any, dialect: str, params: dict[str, str], page: int) -> Callable[[], Any]:
    """The hand-written SQL of page ``page`` of the list filtered by ``params``, on a DBAPI connection."""
    flags = [name for name in ("activated", "is_admin") if name in params]
    values = [1, *(params[name] == "true" for name in flags)]
    where = "".join(f" AND {name} = ?" for name in flags)
    count_sql, page_sql = IDEAL_COUNT.format(flags=where), IDEAL_PAGE.format(flags=where)
    if dialect == "postgresql":
        count_sql, page_sql = count_sql.replace("?", "%s"), page_sql.replace("?", "%s")

    def run() -> Any:
        cursor = connection.cursor()
        cursor.execute(count_sql, values)
        cursor.fetchall()
        cursor.execute(page_sql, [*values, (page - 1) * 20])
        rows = cursor.fetchall()
        connection.rollback()
        return rows

    return run


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

    def line(variant: str, page: str, count: int, queries: int, endpoint: list[float], other: list[float]) -> None:
        tracemalloc.start()
        run_endpoint()
        peak_kib = tracemalloc.get_traced_memory()[1] / 1024
        tracemalloc.stop()
        ratio = statistics.median(endpoint) / statistics.median(other)
        columns = " | ".join(f"{statistics.median(times):.1f} | {p95(times):.1f}" for times in (endpoint, other))
        lines.append(
            f"| {label} | {variant} | {page} | {count:,} | {queries} | {columns} | {ratio:.2f} | {peak_kib:,.0f} |"
        )
        print(lines[-1], file=sys.stderr)

    with app.app_context():
        engine = get_engine()
        # One connection for the whole run, like the app's pooled one: both see the same prepared
        # statements (psycopg prepares a query run 5 times, and PostgreSQL may then reuse a generic plan).
        connection = engine.raw_connection()
        plain_url = "/api/v2/github/acme/users/?page=1"
        for variant, params in {**LISTS, **SEARCHES}.items():
            count = client.get("/api/v2/github/acme/users/", query_string=params, headers=headers).json["count"]
            last = max(1, -(-count // 20))
            pages = (("first", 1), ("middle", (last + 1) // 2), ("last", last)) if variant in LISTS else (("first", 1),)
            for page_label, page in pages:
                url = f"/api/v2/github/acme/users/?{urlencode({**params, 'page': page})}"

                def run_endpoint(url: str = url) -> Any:
                    response = client.get(url, headers=headers)
                    assert response.status_code == 200, response.json
                    return response

                with recording(engine) as statements:
                    results = run_endpoint().json["results"]
                if variant in LISTS:
                    other = ideal(connection, engine.dialect.name, params, page)
                    # Both answer the same page: the comparison is fair.
                    assert [user["username"] for user in results] == [row[1] for row in other()]
                else:
                    other = functools.partial(run_endpoint, plain_url)
                measured = timings({"endpoint": run_endpoint, "other": other}, repeat)
                line(variant, f"{page_label} ({page:,})", count, len(statements), *measured.values())
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
        "| ideal SQL (search: plain first page) p50 ms | p95 ms | ratio p50 | peak KiB |"
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
