"""Benchmark the repository page and a folder page of the file explorer: 100 files against 100,000.

Run from the repository root::

    .venv/bin/python benchmarks/bench_explorer.py [--files 100000] [--repeat 9]

Two repositories of one SQLite database get the report the demo's generated repository gets
(``flask coverage demo --files N``: ``flask_coverage.demo.data.generate_lcov``), one with 100 files and
one with ``--files``; the same folder exists in both. For each repository it requests
``/gh/globex/{repo}`` and ``/gh/globex/{repo}/tree/main/{folder}``, in milliseconds of app time (the
WSGI app called with a ready environ):

- cold: the first request of a new app (a new engine and connection pool, empty statement and
  template caches), the median of ``--repeat`` such apps;
- warm: the median of ``--repeat`` requests to one app after its first.

It prints both times, the ratio of the big repository's to the small one's, the HTML sizes, and the
time ``refresh_tree`` takes to rebuild the explorer's rows of the big commit (what an upload adds).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from flask import Flask
from werkzeug.test import EnvironBuilder

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.demo.data import generate_lcov  # noqa: E402
from flask_coverage.ingest import upload_report  # noqa: E402
from flask_coverage.operations import add_org, add_repo, init_db  # noqa: E402
from flask_coverage.queries.targets import find_target  # noqa: E402
from flask_coverage.queries.tree import refresh_tree  # noqa: E402
from flask_coverage.state import get_session  # noqa: E402

FOLDER = "api/services"
SHA = "e" * 40


def make_app(database: str) -> Flask:
    app = Flask(__name__)
    # The generated report of 100,000 files is about 60 MB.
    app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", COVERAGE_MAX_UPLOAD_BYTES=1 << 30)
    CoverageService(app)
    return app


def call(app: Flask, path: str) -> tuple[float, bytes]:
    """One request straight into the WSGI app: (milliseconds, body)."""
    environ = EnvironBuilder(path=path).get_environ()
    out: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        out["status"] = int(status.split()[0])
        return lambda data: None

    started = time.perf_counter()
    body = b"".join(app.wsgi_app(environ, start_response))
    elapsed = (time.perf_counter() - started) * 1000
    if out["status"] != 200:
        raise RuntimeError(f"{path} answered {out['status']}")
    return elapsed, body


def cold_ms(new_app: Callable[[], Flask], path: str, repeat: int) -> float:
    return statistics.median(call(new_app(), path)[0] for _ in range(repeat))


def warm_ms(app: Flask, path: str, repeat: int) -> tuple[float, int]:
    _, body = call(app, path)
    return statistics.median(call(app, path)[0] for _ in range(repeat)), len(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "bench.db")
        app = make_app(database)
        with app.app_context():
            init_db()
            add_org("github", "globex")
            for name, files in (("small", 100), ("big", args.files)):
                repository = add_repo("github", "globex", name)
                started = time.perf_counter()
                upload_report(repository, generate_lcov(files), commit=SHA, branch="main")
                print(f"upload of {files} files: {time.perf_counter() - started:.1f} s")
            _, commit = find_target("github", "globex", "big")  # type: ignore[misc]
            started = time.perf_counter()
            refresh_tree(commit.id)
            get_session().rollback()
            print(f"refresh_tree of {args.files} files: {(time.perf_counter() - started) * 1000:.0f} ms")
        results = {}
        for name in ("small", "big"):
            pages = (("repository", f"/gh/globex/{name}"), ("folder", f"/gh/globex/{name}/tree/main/{FOLDER}"))
            for page, path in pages:
                cold = cold_ms(lambda: make_app(database), path, args.repeat)
                warm, size = warm_ms(app, path, args.repeat)
                results[name, page] = (cold, warm, size)
        print(f"{'page':<12} {'files':>8} {'cold ms':>9} {'warm ms':>9} {'HTML bytes':>11}")
        for page in ("repository", "folder"):
            for name, files in (("small", 100), ("big", args.files)):
                cold, warm, size = results[name, page]
                print(f"{page:<12} {files:>8} {cold:>9.1f} {warm:>9.1f} {size:>11}")
            small, big = results["small", page], results["big", page]
            ratios = [big[i] / small[i] for i in range(3)]
            print(f"{page:<12} {'ratio':>8} {ratios[0]:>9.2f} {ratios[1]:>9.2f} {ratios[2]:>11.2f}")


if __name__ == "__main__":
    main()
