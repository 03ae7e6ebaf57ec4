"""Benchmark the cache of a list's count and page statements (``pagination._statements``) under mixed traffic.

Run from the repository root::

    .venv/bin/python benchmarks/bench_statement_cache.py [--repos 2000] [--commits 20000] [--others 2000] \\
        [--members 2000] [--requests 600] [--rounds 15] [--postgresql postgresql+psycopg://postgres@127.0.0.1:5432/test]

``paginate`` derives a list's ``COUNT`` and page statements from its query, and keeps the last 64
derivations in an ``lru_cache`` keyed by the statements' identity (``_statements``). Only the
repositories list (``pagination.Listing`` with ``params``: one statement per combination of its
filters) brings the same statement twice; every other list builds its statement per request, so a
cache of every list's statements misses for them and they push the repositories' out. This measures
what the cache is worth when all v2 lists are requested together.

On SQLite (a temporary file) and, with ``--postgresql``, on a PostgreSQL database made for the run
and dropped after it, the data of ``bench_v2_lists.py`` (org ``acme``, ``--repos`` repositories,
``repo-00001`` with ``--commits`` commits and ``--others`` branches and pulls), plus ``--members``
members of ``acme`` (one of them with a token) and three flagged uploads into one commit of each of
``repo-00002`` to ``repo-00011``. A fixed, seeded sequence of ``--requests`` requests mixes the
lists in these proportions (the traffic of a dashboard and of API clients):

    commits 25 %, repositories 15 %, branches 10 %, pulls 10 %, flags 10 %, uploads 10 %,
    users 10 %, coverage trend 10 %

over random repositories, pages 1 to 5 (of the lists that have them), with and without a token, and
with the lists' filters now and then (the repositories' ``search``/``active``, the commits'
``branch``, the users' flags and ``search``). The sequence runs ``--rounds`` times through the Flask
test client, each request once under each variant in turn (the variants' order rotated from one
request to the next), so that the machine's load weighs on all alike:

- **every list**: one ``lru_cache(maxsize=64)`` for every list (the code before this benchmark);
- **no cache**: the derivation (``pagination._derive``) run on every request;
- **params only**: the cache used only for a list with parameters (a ``Listing`` with ``params``,
  whose statements are built once), every other list derived without a lookup (the code now).

Each variant keeps its own cache, which sees the same lookups as if it ran alone, from round to
round (one warm-up round first), as a long-running worker would. It prints, per variant, the time of
the sequence (the sum of its requests' wall times; min and median of the rounds) and its ratio to
*every list* within each round (min and median), the median time of a request per list, and the
cache's hit rate (overall and per list). It also times the derivation of each list's statements on
its own (a miss) against a hit, and the Python memory the entries of a cache of every list hold.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import gc
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable

import sqlalchemy as sa
from flask import Flask

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # production_service, a test-support module

from bench_v2_lists import fill, make_app  # noqa: E402
from production_service import scratch_database  # noqa: E402

import flask_coverage.pagination as pagination  # noqa: E402
from flask_coverage.auth import generate_token, hash_token  # noqa: E402
from flask_coverage.ingest import UploadMeta, upload_report  # noqa: E402
from flask_coverage.models import Membership, Repository, member_sort_key  # noqa: E402
from flask_coverage.state import execute, get_engine  # noqa: E402

#: The share of each list in the traffic, in percent.
MIX = {"commits": 25, "repos": 15, "branches": 10, "pulls": 10, "flags": 10, "uploads": 10, "users": 10, "trend": 10}
#: The repositories with flagged uploads (flags and uploads lists).
UPLOADED = [f"repo-{n:05d}" for n in range(2, 12)]
FLAGS = ("unit", "integration", "e2e")
BASE = "/api/v2/github/acme"
# paginate() derives a list's statements with _statements (cached) when it has parameters, else _derive.
CACHED, DERIVE = pagination._statements, pagination._derive


def add_members_and_uploads(app: Flask, members: int) -> tuple[str, dict[str, str]]:
    """``members`` members of acme (owners 2, 3, ...; owner 2 activated, with the returned token) and
    three flagged uploads into one commit of each of :data:`UPLOADED`; returns the token and each of
    those repositories' commit sha."""
    now = dt.datetime(2026, 1, 1)
    token = generate_token()
    owners = [(n, "github", f"user-{n:06d}", f"User {n}", True if n == 2 else n % 3 > 0) for n in range(2, members + 2)]
    with app.app_context():
        engine = get_engine()
        with engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO coverage_owner (id, service, username, name, is_org, created_at, updatestamp)"
                    " VALUES (:id, :service, :username, :name, false, :now, :now)"
                ),
                [{"id": n, "service": s, "username": u, "name": name, "now": now} for n, s, u, name, _ in owners],
            )
            connection.execute(
                sa.text(
                    "INSERT INTO coverage_membership (id, org_id, user_id, activated, is_admin)"
                    " VALUES (:id, 1, :user, :activated, :admin)"
                ),
                [{"id": n - 1, "user": n, "activated": a, "admin": n % 20 == 0} for n, _, _, _, a in owners],
            )
            connection.execute(
                sa.text(
                    "INSERT INTO coverage_access_token (owner_id, name, token_hash, created_at)"
                    " VALUES (2, 'bench', :hash, :now)"
                ),
                {"hash": hash_token(token), "now": now},
            )
            connection.execute(
                sa.update(Membership).values(sort_key=member_sort_key(Membership.org_id, Membership.user_id))
            )
            if engine.dialect.name == "postgresql":  # after the explicit ids of fill() and of these rows
                for table in ("owner", "membership", "repository", "commit", "branch", "pull"):
                    connection.execute(
                        sa.text(
                            f"SELECT setval(pg_get_serial_sequence('coverage_{table}', 'id'),"
                            f" (SELECT max(id) FROM coverage_{table}))"
                        )
                    )
        shas = {}
        for number, name in enumerate(UPLOADED):
            repository = execute(sa.select(Repository).where(Repository.name == name)).scalar_one()
            sha = f"{number + 1:x}".rjust(40, "f")
            for index, flag in enumerate(FLAGS):
                lines = "".join(f"DA:{line},{(line + index) % 3}\n" for line in range(1, 41))
                report = "".join(f"SF:src/{flag}/m{n}.py\n{lines}end_of_record\n" for n in range(5)).encode()
                upload_report(repository, report, commit=sha, branch="main", meta=UploadMeta.create(flags=flag))
            shas[name] = sha
    return token, shas


def traffic(count: int, repos: int, others: int, shas: dict[str, str], seed: int = 1) -> list[tuple[str, str, bool]]:
    """``count`` requests of the :data:`MIX`: ``(list, url, with the token)``."""
    rng = random.Random(seed)
    kinds = list(MIX)
    requests = []
    for kind in rng.choices(kinds, weights=[MIX[kind] for kind in kinds], k=count):
        page = rng.choice((1, 1, 1, 2, 3, 4, 5))
        repo = f"repo-{rng.choice((1, 1, *range(2, min(repos, 60) + 1))):05d}"
        token = rng.random() < 0.3
        query = f"?page={page}"
        if kind == "repos":
            roll = rng.random()
            if roll < 0.08:
                query = f"?search={rng.choice(('repo-000', 'repo-01', '12'))}"
            elif roll < 0.15:
                query += "&active=true"
            url = f"{BASE}/repos/{query}"
        elif kind == "commits":
            query = query if repo == "repo-00001" else "?page=1"  # the others have one commit
            url = f"{BASE}/repos/{repo}/commits/{query}{'&branch=main' if rng.random() < 0.3 else ''}"
        elif kind in ("branches", "pulls"):
            repo = "repo-00001" if rng.random() < 0.6 else repo  # the only one with many
            url = f"{BASE}/repos/{repo}/{kind}/{query if repo == 'repo-00001' else ''}"
        elif kind == "flags":
            url = f"{BASE}/repos/{rng.choice(UPLOADED)}/flags/"
        elif kind == "uploads":
            name = rng.choice(UPLOADED)
            url = f"{BASE}/repos/{name}/commits/{shas[name]}/uploads/"
        elif kind == "users":
            token = True
            roll = rng.random()
            if roll < 0.2:
                query += "&activated=true&is_admin=false"
            elif roll < 0.3:
                query = f"?search=user-00{rng.randint(0, 1)}"
            url = f"{BASE}/users/{query}"
        else:
            url = f"{BASE}/repos/repo-00001/coverage/?interval={rng.choice(('1d', '7d', '30d'))}"
        requests.append((kind, url, token))
    return requests


def measure(app: Flask, token: str, requests: list[tuple[str, str, bool]], rounds: int) -> None:
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    every = functools.lru_cache(maxsize=64)(DERIVE)
    # (_statements, _derive) of each variant.
    variants: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
        "every list": (every, every),
        "no cache": (DERIVE, DERIVE),
        "params only": (CACHED, DERIVE),
    }
    caches = {"every list": every, "params only": CACHED}

    def run(name: str, kind: str, url: str, with_token: bool) -> float:
        pagination._statements, pagination._derive = variants[name]
        cache = caches.get(name)
        before = cache.cache_info() if cache is not None else None
        try:
            start = time.perf_counter()
            response = client.get(url, headers=headers if with_token else None)
            spent = time.perf_counter() - start
        finally:
            pagination._statements, pagination._derive = CACHED, DERIVE
        assert response.status_code == 200, (url, response.status_code, response.data[:200])
        if before is not None and counting:
            after = cache.cache_info()
            hits[name][kind] += after.hits - before.hits
            lookups[name][kind] += after.hits + after.misses - before.hits - before.misses
        return spent

    names = list(variants)
    totals: dict[str, list[float]] = {name: [] for name in names}
    per_kind: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in names}
    hits: dict[str, Counter[str]] = {name: Counter() for name in names}
    lookups: dict[str, Counter[str]] = {name: Counter() for name in names}
    counting = False
    for kind, url, with_token in requests:  # warm-up: the caches as a running worker has them
        for name in names:
            run(name, kind, url, with_token)
    counting = True
    for number in range(rounds):
        spent = dict.fromkeys(names, 0.0)
        for index, (kind, url, with_token) in enumerate(requests):
            turn = (number + index) % len(names)
            for name in names[turn:] + names[:turn]:
                seconds = run(name, kind, url, with_token)
                spent[name] += seconds
                per_kind[name][kind].append(seconds)
        for name in names:
            totals[name].append(spent[name])
    with app.app_context():
        dialect = get_engine().dialect.name
    kinds = Counter(kind for kind, _, _ in requests)
    print(f"{dialect}: {len(requests)} requests a round ({dict(kinds)}), {rounds} rounds")
    for name in names:
        ratios = [mine / base for mine, base in zip(totals[name], totals["every list"])]
        rate = ""
        if lookups[name]:
            overall = sum(hits[name].values()) / sum(lookups[name].values())
            rate = f"   hit rate {overall:6.1%} (repos {hits[name]['repos'] / max(1, lookups[name]['repos']):.1%})"
        print(
            f"  {name:12} round {min(totals[name]):6.3f} s min, {statistics.median(totals[name]):6.3f} s median"
            f"   / every list: min {min(ratios):5.3f}, median {statistics.median(ratios):5.3f}{rate}"
        )
    print(f"  {'median ms of one request':26}" + "".join(f"{kind:>9}" for kind in MIX))
    for name in names:
        print(f"  {name:26}" + "".join(f"{statistics.median(per_kind[name][kind]) * 1000:9.3f}" for kind in MIX))
    rates = (hits["every list"][kind] / max(1, lookups["every list"][kind]) for kind in MIX)
    print(f"  {'hit rate (every list)':26}" + "".join(f"{rate:9.1%}" for rate in rates))
    tracemalloc.start()
    for kind, url, with_token in requests:
        run("every list", kind, url, with_token)
    gc.collect()
    full = tracemalloc.get_traced_memory()[0]
    entries = every.cache_info().currsize
    every.cache_clear()
    gc.collect()
    held = full - tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(f"  memory held by the {entries} entries of the cache of every list: {held / 1024:.0f} KiB")
    derivation(app, token)


def derivation(app: Flask, token: str, repeat: int = 2000) -> None:
    """The derivation of each list's statements (a miss, with SQLAlchemy's cache key that a new
    statement needs) against a hit, in microseconds, as statements of one real request each."""
    seen: dict[str, tuple[Any, Any, Any]] = {}
    asking = {"kind": ""}

    def spy(query: Any, rows: Any, count: Any) -> Any:
        seen.setdefault(asking["kind"], (query, rows, count))
        return DERIVE(query, rows, count)

    client = app.test_client()
    urls = {
        "repos": f"{BASE}/repos/",
        "commits": f"{BASE}/repos/repo-00001/commits/",
        "branches": f"{BASE}/repos/repo-00001/branches/",
        "pulls": f"{BASE}/repos/repo-00001/pulls/",
        "flags": f"{BASE}/repos/{UPLOADED[0]}/flags/",
        "users": f"{BASE}/users/",
    }
    pagination._statements = pagination._derive = spy
    try:
        for asking["kind"], url in urls.items():
            assert client.get(url, headers={"Authorization": f"Bearer {token}"}).status_code == 200
    finally:
        pagination._statements, pagination._derive = CACHED, DERIVE
    line = []
    with app.app_context():
        for kind, (query, rows, count) in seen.items():
            cache = functools.lru_cache(maxsize=64)(DERIVE)
            cache(query, rows, count)
            times = {}
            statements = (query, rows, count)
            for label, call in (
                ("miss", lambda statements=statements: [s._generate_cache_key() for s in DERIVE(*statements)]),
                ("hit", lambda cache=cache, statements=statements: cache(*statements)),
            ):
                start = time.perf_counter()
                for _ in range(repeat):
                    call()
                times[label] = (time.perf_counter() - start) / repeat * 1e6
            line.append(f"{kind} {times['miss']:.0f} / {times['hit']:.2f}")
    print("  derive + cache key / hit, us: " + ", ".join(line))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repos", type=int, default=2_000)
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--others", type=int, default=2_000, help="branches and pulls of repo-00001")
    parser.add_argument("--members", type=int, default=2_000)
    parser.add_argument("--requests", type=int, default=600, help="requests in one round")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--postgresql", help="a PostgreSQL URL: a scratch database is made next to it")
    args = parser.parse_args()

    def bench(url: str) -> None:
        app = make_app(url)
        fill(app, args.repos, args.commits, args.others)
        token, shas = add_members_and_uploads(app, args.members)
        measure(app, token, traffic(args.requests, args.repos, args.others, shas), args.rounds)
        with app.app_context():
            get_engine().dispose()

    with tempfile.TemporaryDirectory() as folder:
        bench(f"sqlite:///{folder}/bench.sqlite")
    if args.postgresql:
        with scratch_database(args.postgresql) as url:
            bench(url)


if __name__ == "__main__":
    main()
