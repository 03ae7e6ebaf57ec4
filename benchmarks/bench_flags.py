"""Benchmark an upload of 5,000 files with 20 flags against the same upload without flags (issue 26, F6).

Run from the repository root::

    .venv/bin/python benchmarks/bench_flags.py [--files 5000] [--flags 20] [--repeat 3]

On SQLite (a temporary file), each round uploads the same LCOV report (``--files`` files of 20 lines)
into a new commit without flags, then into another with ``--flags`` flags, through
``ingest.upload_report`` (parse, merge, store, one transaction). It prints the median wall time of each,
their ratio (the goal: at most 2) and the rows of ``coverage_flag_file`` the flagged uploads wrote.
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
from flask_coverage.state import execute  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--flags", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    report = "".join(
        f"SF:src/pkg{n // 100}/mod{n}.py\n"
        + "".join(f"DA:{line},{(line + n) % 3}\n" for line in range(1, 21))
        + "end_of_record\n"
        for n in range(options.files)
    ).encode()
    flags = UploadMeta.create(flags=[f"flag{n:02d}" for n in range(options.flags)])
    with tempfile.TemporaryDirectory() as folder:
        app = Flask("bench")
        app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{folder}/coverage.sqlite"
        CoverageService(app)
        times: dict[str, list[float]] = {"no flags": [], f"{options.flags} flags": []}
        with app.app_context():
            operations.init_db()
            operations.add_org("github", "acme")
            repository = operations.add_repo("github", "acme", "widgets")
            for round_ in range(options.repeat):
                for n, (what, meta) in enumerate(zip(times, (UploadMeta(), flags))):
                    sha = f"{round_:020x}{n:020x}"
                    started = time.perf_counter()
                    upload_report(repository, report, commit=sha, meta=meta)
                    times[what].append(time.perf_counter() - started)
            rows = execute(sa.text("SELECT count(*) FROM coverage_flag_file")).scalar_one()
        plain, flagged = (statistics.median(values) for values in times.values())
        print(f"{len(report) / 1024:.0f} KiB of LCOV, {options.files} files, median of {options.repeat}")
        ratio = flagged / plain
        print(f"no flags {plain * 1000:.0f} ms, {options.flags} flags {flagged * 1000:.0f} ms, ratio {ratio:.2f}")
        print(f"coverage_flag_file rows: {rows} ({rows // options.repeat} per flagged upload)")


if __name__ == "__main__":
    main()
