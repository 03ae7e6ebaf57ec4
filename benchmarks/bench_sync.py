"""The sync from the git host at sign-in (docs/sign-in.md): a user in ``--orgs`` organizations who reads
``--repos`` repositories (half of them private), against the recording fake of GitHub's API on
loopback (tests/providers/fakes.py).

Run from the repository root::

    .venv/bin/python benchmarks/bench_sync.py [--orgs 20] [--repos 2000] [--repeat 5]

Prints, for the first sync (every owner and repository created), a sync that finds nothing new, and
one after the host took 10 % of the private repositories away: the provider calls against their floor
(one for the user, then one per page of 100 of organizations and of repositories), and the median wall
time of reading the host and of writing what it says (SQLite, in process).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "providers"))  # the fakes

from fakes import FakeHost, fake_host, github_account_routes, github_repository  # noqa: E402
from flask import Flask  # noqa: E402

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.models import ServiceEnum  # noqa: E402
from flask_coverage.operations import init_db  # noqa: E402
from flask_coverage.providers.accounts import PAGE_SIZE, HostView, read_host_view  # noqa: E402
from flask_coverage.sync import apply_host_view  # noqa: E402

TOKEN = "gho_benchmark"  # noqa: S105 - the fake's


def timed(f: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = f()
    return result, time.perf_counter() - start


def run(host: FakeHost, app: Flask, label: str, repeat: int) -> None:
    reads, writes, calls = [], [], 0
    for _ in range(repeat):
        before = len(host.requests)
        view, read = timed(lambda: read_host_view("github", {"url": host.url}, TOKEN))
        calls = len(host.requests) - before
        with app.app_context():
            _, write = timed(functools.partial(apply_host_view, ServiceEnum.github, view))
        reads.append(read)
        writes.append(write)
    assert isinstance(view, HostView)
    pages = 1 + -(-len(view.organizations) // PAGE_SIZE) + -(-len(view.repositories) // PAGE_SIZE)
    print(
        f"{label:<28} calls {calls:>3} (floor {pages:>3})   read {statistics.median(reads) * 1000:8.1f} ms"
        f"   write {statistics.median(writes) * 1000:8.1f} ms   (median of {repeat})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--orgs", type=int, default=20)
    parser.add_argument("--repos", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, fake_host() as host:
        github_account_routes(host)
        orgs = [(f"org{n}", 1000 + n, "admin" if n % 5 == 0 else "member") for n in range(args.orgs)]
        repos = [
            github_repository(f"org{n % args.orgs}", 1000 + n % args.orgs, f"repo{n}", 10_000 + n, private=n % 2 == 0)
            for n in range(args.repos)
        ]
        host.state.update(access_token=TOKEN, user={"login": "alice", "id": 1}, orgs=orgs, repos=repos)
        app = Flask("bench_sync")
        app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{scratch}/sync.sqlite", COVERAGE_FEEDBACK_SENDER=False)
        CoverageService(app)
        with app.app_context():
            init_db()
        print(f"a user in {args.orgs} organizations reading {args.repos} repositories ({args.repos // 2} private)")
        run(host, app, "first sync (creates all)", 1)
        run(host, app, "again, nothing new", args.repeat)
        host.state["repos"] = [r for n, r in enumerate(repos) if not (r["private"] and n % 20 == 0)]
        run(host, app, "10% of private taken away", 1)


if __name__ == "__main__":
    main()
