"""Benchmark the graph URLs end to end: generated repositories stored through the normal upload path.

Run from the repository root::

    .venv/bin/python benchmarks/bench_graphs.py [--files 20000 100000] [--repeat 7]
        [--postgresql postgresql+psycopg://postgres@127.0.0.1:5432/test]

For each repository size it writes a synthetic LCOV report (``generate_reports.py``: nested folders,
heavy-tailed file sizes), uploads it with ``ingest.upload_report`` into a fresh database (SQLite in
a temporary folder, or a new database on the given PostgreSQL server, dropped afterwards), and then
requests ``/gh/acme/synthetic/graphs/{kind}.svg``, merged and with ``?flag=unit`` (the upload carries
that flag, so both draw the same files: a flag's graph must cost what the merged one does):

- cold: the render cache emptied first, so the request reads the files from the database and lays
  them out (``db ms`` is that read alone, ``layout ms`` the render alone, both inside ``cold ms``);
- warm: the same request again (a cache hit), and with ``If-None-Match`` (a 304);
- the bytes of the document, the files drawn as a block of their own (each is a link), the other
  blocks (folded blocks of small files; folders in an icicle or sunburst), the bytes of the
  document per drawn file (other blocks included), the mean size of one file's block (its ``<a>``
  element) and of one other block, and the peak memory of one cold request (tracemalloc, in a run
  of its own).

Times are medians of ``--repeat`` runs, in milliseconds of app time (the WSGI app is called with a
ready environ: no network, no server, no test client), as "wall / CPU of this process". Requests send
``Accept-Encoding: gzip`` as browsers do; "SVG" is the uncompressed document, "gzip" what is sent.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Optional

from flask import Flask
from werkzeug.test import EnvironBuilder

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # production_service, a test-support module

from generate_reports import SyntheticProject  # noqa: E402
from production_service import scratch_database  # noqa: E402

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.blueprints import graphs  # noqa: E402
from flask_coverage.ingest import UploadMeta, upload_report  # noqa: E402
from flask_coverage.models import CommitFlag  # noqa: E402
from flask_coverage.operations import add_org, add_repo, init_db  # noqa: E402
from flask_coverage.queries import graph_records  # noqa: E402
from flask_coverage.queries.targets import find_flag  # noqa: E402
from flask_coverage.state import get_cache  # noqa: E402

KINDS = ("tree", "icicle", "sunburst")
SHA = "5eed" * 10
#: The flag of the upload: each graph is timed merged and for this flag (``?flag=``).
FLAG = "unit"


@contextmanager
def database(postgresql: Optional[str], folder: Path) -> Iterator[str]:
    """A fresh, empty database URL: a SQLite file in ``folder``, or a new PostgreSQL database."""
    if not postgresql:
        yield f"sqlite:///{folder}/bench.sqlite"
        return
    with scratch_database(postgresql) as url:
        yield url


def make_app(url: str) -> Flask:
    app = Flask("bench_graphs")
    app.config.update(SQLALCHEMY_DATABASE_URI=url, COVERAGE_MAX_UPLOAD_BYTES=None)
    CoverageService(app)
    with app.app_context():
        init_db()
    return app


def median_ms(fn: Callable[[], Any], repeat: int, before: Callable[[], Any] = lambda: None) -> str:
    """``"wall / CPU"``: the medians of ``repeat`` calls of ``fn``, in milliseconds.

    The CPU time is the process's own; it is the steadier number on a shared machine (and leaves
    out the PostgreSQL server's work, which the wall time includes).
    """
    walls, cpus = [], []
    for _ in range(repeat):
        before()
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        cpus.append((time.process_time() - cpu) * 1000)
        walls.append((time.perf_counter() - wall) * 1000)
    wall_ms, cpu_ms = statistics.median(walls), statistics.median(cpus)
    digits = 2 if wall_ms < 10 else 1 if wall_ms < 100 else 0
    return f"{wall_ms:.{digits}f} / {cpu_ms:.{digits}f}"


def bench_kind(app: Flask, commit: Any, kind: str, repeat: int) -> dict[str, Any]:
    """One row of the table: ``kind`` of the synthetic repository, requested as a browser does.

    ``commit`` is the commit (the merged graph) or its :data:`FLAG` (``?flag=``, the same files).
    """
    flagged = isinstance(commit, CommitFlag)
    path = f"/gh/acme/synthetic/graphs/{kind}.svg"
    query = f"flag={FLAG}" if flagged else ""
    browser = {"Accept-Encoding": "gzip, deflate, br"}

    def clear() -> None:
        with app.app_context():
            get_cache().clear()

    def environ(**headers: str) -> dict[str, Any]:
        return EnvironBuilder(path=path, query_string=query, headers={**browser, **headers}).get_environ()

    def get(prepared: dict[str, Any]) -> Any:
        # The WSGI app called with a ready environ: app time only, no test client around it.
        status = []
        body = b"".join(app(dict(prepared), lambda code, headers, exc_info=None: status.append((code, headers))))
        assert status[0][0].startswith(("200", "304")), status[0][0]
        return dict(status[0][1]), body

    plain = environ()
    headers, packed = get(plain)
    body = gzip.decompress(packed)
    conditional = environ(**{"If-None-Match": headers["ETag"]})
    cold = median_ms(lambda: get(plain), repeat, before=clear)
    warm = median_ms(lambda: get(plain), repeat)
    not_modified = median_ms(lambda: get(conditional), repeat)
    # The two parts of a cold request, each on its own, as the request runs them (collector paused).
    with app.app_context(), graph_records.gc_paused():
        db = median_ms(lambda: graph_records.read_graph_records(commit), repeat)
        records = graph_records.read_graph_records(commit)
        options = graphs.validate_graph_params(kind, link_prefix="../blob/")
        layout = median_ms(lambda: graphs.render_graph_svg(records, options), repeat)
    clear()
    tracemalloc.start()
    get(plain)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # Each file drawn as a block of its own is a link; the other blocks (folded blocks of small
    # files; the folders of an icicle or sunburst) are a shape with a title.
    file_blocks = re.findall(rb"<a .*?</a>", body)
    drawn = len(file_blocks)
    others = re.findall(rb"<(?:path|circle) [^>]*[^/]><title>[^<]*</title></(?:path|circle)>", body)
    return {
        "kind": kind,
        "coverage": f"flag {FLAG}" if flagged else "merged",
        "cold": cold,
        "db": db,
        "layout": layout,
        "warm": warm,
        "304": not_modified,
        "drawn": drawn,
        "kib": len(body) / 1024,
        "per_file": f"{len(body) / drawn:.0f}" if drawn else "-",
        "per_block": f"{sum(map(len, file_blocks)) / drawn:.0f}" if drawn else "-",
        "others": len(others),
        "per_other": f"{sum(map(len, others)) / len(others):.0f}" if others else "-",
        "gzip_kib": len(packed) / 1024,
        "gzip_per_file": f"{len(packed) / drawn:.0f}" if drawn else "-",
        "peak": peak / 2**20,
    }


def bench_size(files: int, lines: int, repeat: int, postgresql: Optional[str]) -> list[dict[str, Any]]:
    """Upload a synthetic repository of ``files`` files into a fresh database and time its graphs."""
    with tempfile.TemporaryDirectory() as tmp, database(postgresql, Path(tmp)) as url:
        report = Path(tmp) / "synthetic.lcov"
        SyntheticProject(files=files, lines=lines).write_lcov(report)
        app = make_app(url)
        with app.app_context():
            add_org("github", "acme")
            repository = add_repo("github", "acme", "synthetic")
            start = time.perf_counter()
            with report.open("rb") as source:
                # With a flag: the flag's coverage is the same files as the merged one, so the two
                # graphs draw the same picture and their times compare directly.
                meta = UploadMeta.create(flags=FLAG)
                commit = upload_report(repository, source, commit=SHA, branch="main", meta=meta)
            flag = find_flag(commit, FLAG)
            seconds = time.perf_counter() - start
            size = report.stat().st_size / 2**20
            print(f"{files} files, {commit.lines} lines: {size:.0f} MiB of LCOV uploaded in {seconds:.1f} s")
        rows = [
            {"files": files, **bench_kind(app, coverage, kind, repeat)} for kind in KINDS for coverage in (commit, flag)
        ]
        with app.app_context():
            app.extensions["sqlalchemy"].engine.dispose()
        return rows


HEADER = (
    "| files | kind | coverage | cold ms | (db read ms) | (layout ms) | warm ms | 304 ms | files drawn | other blocks "
    "| SVG KiB | B / drawn file | (B / file block) | (B / other block) | gzip KiB | gzip B / drawn file "
    "| peak MiB |"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--lines-per-file", type=int, default=40, help="mean tracked lines per file")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--postgresql", metavar="URL", help="a PostgreSQL server URL (a database is created)")
    args = parser.parse_args()
    engine = "PostgreSQL" if args.postgresql else "SQLite"
    print(f"Python {sys.version.split()[0]}, {engine}, {os.cpu_count()} CPUs, median of {args.repeat} runs")
    rows = []
    for files in args.files:
        rows.extend(bench_size(files, files * args.lines_per_file, args.repeat, args.postgresql))
    print()
    print(HEADER)
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['files']:,} | {row['kind']} | {row['coverage']} | {row['cold']} | {row['db']} | {row['layout']} "
            f"| {row['warm']} | {row['304']} | {row['drawn']:,} | {row['others']:,} | {row['kib']:.0f} "
            f"| {row['per_file']} | {row['per_block']} | {row['per_other']} | {row['gzip_kib']:.0f} "
            f"| {row['gzip_per_file']} | {row['peak']:.1f} |"
        )


if __name__ == "__main__":
    main()
