"""Benchmark getting coverage in: parse + store a big report, next to parse-only and pycobertura.

Run from the repository root::

    .venv/bin/python benchmarks/bench_ingest.py [--files 20000] [--lines 2000000] [--workdir DIR]
        [--postgresql postgresql+psycopg://postgres@127.0.0.1:5432/test]

It writes a synthetic Cobertura report and an LCOV report of the same project (benchmarks/
generate_reports.py; kept in ``--workdir`` for the next run), then measures, each in a fresh
subprocess so that the peak memory (``ru_maxrss``) belongs to that one job:

- ``parse``: :func:`flask_coverage.parsers.parse_report` + merging per path, nothing stored;
- ``ingest``: :func:`flask_coverage.ingest.upload_report` into an empty commit (parse, encode,
  insert, totals, tips: the whole upload), on SQLite and, with ``--postgresql``, on PostgreSQL
  (a throw-away database is created next to the given one);
- ``merge``: the same report uploaded again into that commit (every file read back, decoded,
  merged and updated);
- ``pycobertura``: ``Cobertura(path)`` and ``line_statuses()`` of every file, i.e. the same
  per-line information read by the best-known Python Cobertura reader (Cobertura only).

Times are those of the measured call only (imports and app setup excluded): wall-clock seconds, and
the CPU seconds of the Python process (steadier on a busy machine; PostgreSQL's own work is not in them).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# production_service is a test-support module in tests/.
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from production_service import scratch_database  # noqa: E402

SHA = "5eed" * 10


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _measure(start: tuple[float, float], **result: Any) -> dict[str, Any]:
    wall, cpu = _clock()
    return {"seconds": wall - start[0], "cpu": cpu - start[1], "peak": _peak_mb(), **result}


def _peak_mb() -> float:
    # ru_maxrss is in kilobytes on Linux (bytes on macOS).
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def _child(job: dict[str, Any]) -> dict[str, Any]:
    """Run one measured job in this (fresh) process."""
    from generate_reports import SOURCE_ROOT

    report = job["report"]
    if job["kind"] == "pycobertura":
        from pycobertura import Cobertura

        baseline = _peak_mb()
        start = _clock()
        cobertura = Cobertura(report)
        lines = sum(len(cobertura.line_statuses(name)) for name in cobertura.files())
        return _measure(start, lines=lines, baseline=baseline)
    if job["kind"] == "parse":
        from flask_coverage.parsers import merge_by_path, parse_report

        baseline = _peak_mb()
        start = _clock()
        with open(report, "rb") as source:
            files = merge_by_path(parse_report(source, root=SOURCE_ROOT))
        return _measure(start, lines=sum(len(coverage) for coverage in files.values()), baseline=baseline)

    from flask import Flask

    from flask_coverage import CoverageService, operations
    from flask_coverage.ingest import upload_report

    app = Flask("bench_ingest")
    app.config.update(SQLALCHEMY_DATABASE_URI=job["database"], COVERAGE_MAX_UPLOAD_BYTES=None)
    CoverageService(app)
    with app.app_context():
        operations.init_db()
        operations.add_org("github", "acme")
        repository = operations.add_repo("github", "acme", "big")
        results = {}
        for step in ("ingest", "merge"):
            baseline = _peak_mb()
            start = _clock()
            with open(report, "rb") as source:
                commit = upload_report(repository, source, commit=SHA, branch="main", root=SOURCE_ROOT)
            results[step] = _measure(start, lines=commit.lines, version=commit.version, baseline=baseline)
        return results


def _run(job: dict[str, Any]) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(job)], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(output.splitlines()[-1])


def _reports(workdir: Path, files: int, lines: int) -> dict[str, Path]:
    from generate_reports import SyntheticProject

    paths = {
        "cobertura": workdir / f"synthetic-{files}-{lines}.xml",
        "lcov": workdir / f"synthetic-{files}-{lines}.lcov",
    }
    if all(path.exists() for path in paths.values()):
        return paths
    project = SyntheticProject(files, lines)
    print(f"writing the reports to {workdir} ...", file=sys.stderr)
    project.write_cobertura(paths["cobertura"])
    project.write_lcov(paths["lcov"])
    return paths


@contextlib.contextmanager
def _sqlite_database(workdir: Path) -> Iterator[str]:
    path = workdir / f"bench-{uuid.uuid4().hex[:8]}.sqlite"
    try:
        yield f"sqlite:///{path}"
    finally:
        path.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "flask-coverage-bench")
    parser.add_argument("--postgresql", default=os.environ.get("COVERAGE_TEST_DATABASE_URL", ""))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return

    args.workdir.mkdir(parents=True, exist_ok=True)
    reports = _reports(args.workdir, args.files, args.lines)
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; ")
    print(f"{args.files} files, {args.lines} lines; ", end="")
    print(", ".join(f"{fmt} {path.stat().st_size / 2**20:.0f} MB" for fmt, path in reports.items()))
    print()
    print("| report | job | engine | wall s | CPU s | peak RSS MB | (before the job) |")
    print("|---|---|---|---:|---:|---:|---:|")

    def row(fmt: str, job: str, engine: str, result: dict[str, Any]) -> None:
        assert result["lines"] == args.lines, result
        print(
            f"| {fmt} | {job} | {engine} | {result['seconds']:.1f} | {result['cpu']:.1f} | {result['peak']:.0f} "
            f"| {result['baseline']:.0f} |",
            flush=True,
        )

    for fmt, path in reports.items():
        row(fmt, "parse", "-", _run({"kind": "parse", "report": str(path)}))
        # Each database is made when its job starts and removed when it ends.
        databases = [("SQLite", _sqlite_database(args.workdir))]
        if args.postgresql:
            databases.append(("PostgreSQL", scratch_database(args.postgresql)))
        for engine, database in databases:
            with database as url:
                results = _run({"kind": "store", "report": str(path), "database": url})
            row(fmt, "ingest", engine, results["ingest"])
            row(fmt, "merge (again)", engine, results["merge"])
        if fmt == "cobertura":
            row(fmt, "pycobertura", "-", _run({"kind": "pycobertura", "report": str(path)}))


if __name__ == "__main__":
    main()
