"""Benchmark the requests that used to read every file of a commit, on a commit of 300,000 files and one
of 1,000 (issue 26, F3): ``totals/``, ``compare/`` (two commits, and a pull request), the commit page
and the pull request's page.

Run from the repository root::

    .venv/bin/python benchmarks/bench_large_commit.py [--large 300000] [--small 1000] [--repeat 5]

On SQLite (a temporary file), repository ``small`` and repository ``large`` each get a base commit and a
head commit (pull request 1, whose base is the base commit) of ``--small`` and ``--large`` files: two
one-file uploads make the commits, the pull and the branch, and the other files are bulk-inserted with
the stored line data of those uploads (the head's files differ from the base's). Each request goes
through the Flask test client ``--repeat`` times, one repository after the other in turn; it prints the
median wall time and the peak of Python's allocations (``tracemalloc``, one run) of each, and the
ratios large / small (the goal: at most 2 for both).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sqlalchemy as sa  # noqa: E402
from flask import Flask  # noqa: E402

from flask_coverage import CoverageService, operations  # noqa: E402
from flask_coverage.models import Commit, FileCoverage  # noqa: E402
from flask_coverage.state import get_engine  # noqa: E402

BASE, HEAD = "b" * 40, "c" * 40


def fill(app: Flask, name: str, files: int) -> None:
    """Repository ``name`` with a base and a head commit of ``files`` files each (pull 1 of the head)."""
    client = app.test_client()
    token = operations.add_repo("github", "acme", name).upload_token
    for sha, hits, extra in ((BASE, 0, {}), (HEAD, 1, {"pr": "1", "parent": BASE, "branch": "feature"})):
        report = f"SF:src/a.py\nDA:1,1\nDA:2,{hits}\nend_of_record\n".encode()
        query = urlencode({"commit": sha, "token": token, **extra})
        assert client.post(f"/upload/v2?{query}", data=report).status_code == 200
    engine = get_engine()
    with engine.begin() as connection:
        for sha in (BASE, HEAD):
            commit_id, data, hits, misses = connection.execute(
                sa.select(Commit.id, FileCoverage.data, FileCoverage.hits, FileCoverage.misses)
                .join(FileCoverage, FileCoverage.commit_id == Commit.id)
                .join(Commit.repository)
                .where(Commit.sha == sha, sa.text("coverage_repository.name = :name"))
                .params(name=name)
            ).one()
            rows = [
                {"commit_id": commit_id, "path": f"src/pkg{n // 100:05d}/mod{n:06d}.py", "data": data}
                | {"lines": 2, "hits": hits, "misses": misses, "partials": 0}
                for n in range(files - 1)
            ]
            for start in range(0, len(rows), 20_000):
                connection.execute(sa.insert(FileCoverage), rows[start : start + 20_000])
            connection.execute(
                sa.update(Commit)
                .where(Commit.id == commit_id)
                .values(files=files, lines=2 * files, hits=hits * files, misses=misses * files)
            )


def requests(name: str) -> dict[str, str]:
    api = f"/api/v2/github/acme/repos/{name}"
    return {
        "totals/": f"{api}/totals/?sha={HEAD}",
        "compare/ (base, head)": f"{api}/compare/?base={BASE}&head={HEAD}",
        "compare/ (pullid)": f"{api}/compare/?pullid=1",
        "commit page": f"/gh/acme/{name}/commit/{HEAD}",
        "pull page": f"/gh/acme/{name}/pull/1",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--large", type=int, default=300_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = Flask("bench")
        app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{folder}/coverage.sqlite"
        CoverageService(app)
        with app.app_context():
            operations.init_db()
            operations.add_org("github", "acme")
            started = time.perf_counter()
            fill(app, "small", options.small)
            fill(app, "large", options.large)
            print(f"filled in {time.perf_counter() - started:.1f} s")
        client = app.test_client()
        sizes = {"small": options.small, "large": options.large}
        times: dict[tuple[str, str], list[float]] = {}
        peaks: dict[tuple[str, str], int] = {}
        for _ in range(options.repeat):
            for name in sizes:
                for what, url in requests(name).items():
                    started = time.perf_counter()
                    response = client.get(url)
                    body = response.get_data()
                    times.setdefault((name, what), []).append(time.perf_counter() - started)
                    assert response.status_code == 200 and body, (url, response.status_code)
        for name in sizes:
            for what, url in requests(name).items():
                tracemalloc.start()
                client.get(url).get_data()
                peaks[name, what] = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
        columns = f"{options.small:,} files: ms | KiB | {options.large:,} files: ms | KiB"
        print(f"| request | {columns} | time ratio | memory ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for what in requests("small"):
            small_ms, large_ms = (statistics.median(times[name, what]) * 1000 for name in sizes)
            small_kib, large_kib = (peaks[name, what] / 1024 for name in sizes)
            print(
                f"| {what} | {small_ms:.1f} | {small_kib:.0f} | {large_ms:.1f} | {large_kib:.0f} "
                f"| {large_ms / small_ms:.2f} | {large_kib / small_kib:.2f} |"
            )


if __name__ == "__main__":
    main()
