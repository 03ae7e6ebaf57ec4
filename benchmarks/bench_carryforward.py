"""Benchmark carryforward along a long chain of commits (issue 38, item 1).

Run from the repository root::

    .venv/bin/python benchmarks/bench_carryforward.py [--commits 3000] [--files 200]

On SQLite (a temporary file): a first commit gets an upload with flag ``unit`` and one with flag
``integration`` (both ``carryforward``; ``--files`` files of 20 lines each); then each of ``--commits``
commits, the child of the one before, gets one upload with flag ``unit`` only, so each carries
``integration`` from its parent. It prints the median wall time and SQL statements of an upload over the
first and the last 100 commits, their ratio (flat: each commit looks at most 10 commits back, and finds
what it carries in its parent), and the origin the last commit names.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sqlalchemy as sa  # noqa: E402
from flask import Flask  # noqa: E402

from flask_coverage import CoverageService, operations  # noqa: E402
from flask_coverage.ingest import UploadMeta, upload_report  # noqa: E402
from flask_coverage.models import CarriedFlag  # noqa: E402
from flask_coverage.state import execute, get_engine  # noqa: E402

YAML = "flags:\n  unit: {carryforward: true}\n  integration: {carryforward: true}\n"


def report(files: int, shift: int) -> bytes:
    return "".join(
        f"SF:src/pkg{n // 100}/mod{n}.py\n"
        + "".join(f"DA:{line},{(line + n + shift) % 3}\n" for line in range(1, 21))
        + "end_of_record\n"
        for n in range(files)
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--files", type=int, default=200)
    options = parser.parse_args()
    unit, integration = report(options.files, 0), report(options.files, 1)
    with tempfile.TemporaryDirectory() as folder:
        app = Flask("bench")
        app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{folder}/coverage.sqlite"
        CoverageService(app)
        with app.app_context():
            operations.init_db()
            operations.add_org("github", "acme")
            repository = operations.add_repo("github", "acme", "widgets")
            operations.set_repository_yaml("github", "acme", "widgets", YAML)
            upload_report(repository, unit, commit=f"{0:040x}", meta=UploadMeta.create(flags="unit"))
            upload_report(repository, integration, commit=f"{0:040x}", meta=UploadMeta.create(flags="integration"))
            counted: list[int] = []
            sa.event.listen(get_engine(), "before_cursor_execute", lambda *args: counted.append(1))
            times, statements = [], []
            for n in range(1, options.commits + 1):
                counted.clear()
                started = time.perf_counter()
                meta = UploadMeta.create(flags="unit")
                upload_report(repository, unit, commit=f"{n:040x}", parent=f"{n - 1:040x}", meta=meta)
                times.append(time.perf_counter() - started)
                statements.append(len(counted))
            last = execute(sa.select(CarriedFlag.origin_sha).order_by(CarriedFlag.commit_id.desc()).limit(1)).scalar()
        first_ms, last_ms = (statistics.median(part) * 1000 for part in (times[:100], times[-100:]))
        first_sql, last_sql = (statistics.median(part) for part in (statements[:100], statements[-100:]))
        print(f"{options.commits} commits in a chain, {options.files} files an upload")
        print(f"upload at commits 1-100: {first_ms:.1f} ms, {first_sql:.0f} statements")
        print(
            f"upload at the last 100: {last_ms:.1f} ms, {last_sql:.0f} statements (time ratio {last_ms / first_ms:.2f})"
        )
        print(f"the last commit carries integration from {last}")


if __name__ == "__main__":
    main()
