"""Peak memory of one upload of up to COVERAGE_MAX_UPLOAD_BYTES (after decompression): under 300 MB;
and of the report API reading a very large commit back: independent of its number of files.

Each upload or report runs in a fresh interpreter (its ``VmHWM`` is that request's peak), through the
real endpoint, the parsers and the database, with the bodies of the abuse review and an honest report
near the limit. See docs/upload.md ("Size limits", "The report API") and docs/deployment.md ("Limits
and abuse").
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT_MB = 300
limit = 50 * 1024 * 1024  # the default COVERAGE_MAX_UPLOAD_BYTES

PEAK_MB = textwrap.dedent(
    """
    import json, sys
    from flask import Flask
    from flask_coverage import CoverageService

    def peak_mb():
        # This process's own high-water mark (ru_maxrss would include the parent's, copied at spawn).
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) // 1024
    """
)

CHILD = PEAK_MB + textwrap.dedent(
    """
    from flask_coverage.operations import add_org, add_repo, init_db

    body, database = sys.argv[1], sys.argv[2]

    app = Flask("memory")
    app.config["SQLALCHEMY_DATABASE_URI"] = database
    CoverageService(app)
    with app.app_context():
        init_db()
        add_org("github", "acme")
        token = add_repo("github", "acme", "widgets").upload_token
    with open(body, "rb") as file:
        data = file.read()  # gzip: a few MB
    before = peak_mb()
    response = app.test_client().post(
        f"/upload/v2?token={token}&commit={'5eed' * 10}&branch=main", data=data, headers={"Content-Encoding": "gzip"}
    )
    measured = {"status": response.status_code, "text": response.text[:200], "before": before}
    print(json.dumps({**measured, "peak": peak_mb()}))
    """
)


# Reads the report of each repository named on the command line, streamed, counting its files.
READER = PEAK_MB + textwrap.dedent(
    """
    app = Flask("memory")
    app.config["SQLALCHEMY_DATABASE_URI"] = sys.argv[1]
    CoverageService(app)
    client = app.test_client()
    measured = {"before": peak_mb()}
    for repo in sys.argv[2:]:
        response = client.get(f"/api/v2/github/acme/repos/{repo}/report/", buffered=False)
        size, files, carry = 0, 0, b""
        for part in response.response:
            text = carry + part
            files, carry, size = files + text.count(b'{"line_coverage": '), text[-17:], size + len(part)
        response.close()
        measured[repo] = {"status": response.status_code, "bytes": size, "files": files, "peak": peak_mb()}
    print(json.dumps(measured))
    """
)


def run_child(script: str, *args: str) -> dict:
    """What ``script`` printed last (JSON), run in a fresh interpreter with ``args``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(  # noqa: S603 - this interpreter, our own script
        [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def body(kind: str) -> bytes:
    """The upload of ``kind``, at most the default limit once decompressed."""
    if kind == "coveragepy-empty-arcs":  # the review: an entry decoded whole took 1.4 GB
        head = b'{"meta": {}, "files": {"x.py": {"executed_lines": [1], "missing_branches": ['
        return head + b"[]," * ((limit - 200) // 3) + b"[]]}}}"
    if kind == "coveragepy-honest":
        files = {}
        for n in range(20_000):
            lines = list(range(1, 121))
            files[f"src/p{n // 100}/m{n}.py"] = {
                "executed_lines": lines[:100],
                "missing_lines": lines[100:],
                "missing_branches": [[5, 7]],
                "summary": {"covered_lines": 100},
                "functions": {f"f{k}": {"executed_lines": lines[k * 10 : k * 10 + 10]} for k in range(10)},
            }
        return json.dumps({"meta": {"format": 3}, "files": files}).encode()
    if kind == "coveralls-many-files":  # 138,000 files: the most lines per byte (SimpleCov, covr alike)
        coverage = [None if n % 11 == 0 else n % 7 for n in range(1, 101)]
        files = [{"name": f"src/p{n // 100}/m{n}.c", "coverage": coverage} for n in range(138_000)]
        return json.dumps({"service_name": "memory", "source_files": files}).encode()
    if kind == "lcov-reversed-lines":
        data = bytearray(b"SF:a.py\n")
        for n in range(9_999_999, 10_000_000 - (limit - 100) // 14, -1):
            data += b"DA:%d,1\n" % n
        return bytes(data + b"end_of_record\n")
    if kind == "cobertura-one-long-attribute":
        head = b'<coverage><packages><package><classes><class filename="'
        return head + b"a" * (limit - 200) + b'"/></classes></package></packages></coverage>'
    raise ValueError(kind)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")
@pytest.mark.parametrize(
    ("kind", "status"),
    [
        ("coveragepy-empty-arcs", 400),
        ("coveragepy-honest", 200),
        ("lcov-reversed-lines", 200),
        ("cobertura-one-long-attribute", 400),
        ("coveralls-many-files", 200),
    ],
)
def test_an_upload_at_the_limit_stays_under_300_mb(tmp_path: Path, kind: str, status: int) -> None:
    database = f"sqlite:///{tmp_path}/memory.sqlite"
    plain = body(kind)
    assert len(plain) <= limit
    (tmp_path / "body.gz").write_bytes(gzip.compress(plain, 1))
    del plain
    measured = run_child(CHILD, str(tmp_path / "body.gz"), database)
    assert measured["status"] == status, measured
    assert measured["peak"] < LIMIT_MB, measured


# ``flask coverage upload`` of a report file, through the CLI command in a fresh interpreter.
CLI_CHILD = PEAK_MB + textwrap.dedent(
    """
    from flask_coverage.operations import add_org, add_repo, init_db

    report, database = sys.argv[1], sys.argv[2]

    app = Flask("memory")
    app.config["SQLALCHEMY_DATABASE_URI"] = database
    CoverageService(app)
    with app.app_context():
        init_db()
        add_org("github", "acme")
        add_repo("github", "acme", "widgets")
    before = peak_mb()
    result = app.test_cli_runner().invoke(
        args=["coverage", "upload", report, "--repo", "gh/acme/widgets", "--commit", "5eed" * 10, "--branch", "main"]
    )
    measured = {"exit": result.exit_code, "output": result.output[-300:], "before": before}
    print(json.dumps({**measured, "peak": peak_mb()}))
    """
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")
@pytest.mark.parametrize("kind", ["coveragepy-honest", "coveralls-many-files"])
def test_a_cli_upload_at_the_limit_stays_under_300_mb(tmp_path: Path, kind: str) -> None:
    # The issue measured 361 MB for a 40 MB coverage.py JSON through the CLI; benchmarks/bench_upload_memory.py
    # measures every format (docs/upload.md). The formats of many lines per byte (Coveralls, SimpleCov, covr)
    # peaked at 310 MB before an upload held its files packed (ingest._Packed).
    database = f"sqlite:///{tmp_path}/memory.sqlite"
    report = tmp_path / "report"
    report.write_bytes(body(kind))
    assert report.stat().st_size <= limit
    measured = run_child(CLI_CHILD, str(report), database)
    assert measured["exit"] == 0 and "Uploaded" in measured["output"], measured
    assert measured["peak"] < LIMIT_MB, measured


def one_line_files(files: int) -> bytes:
    """An LCOV report of ``files`` files of one hit line each (the review's 1.34 million-file commit)."""
    return b"".join(b"SF:src/f%07d.c\nDA:1,1\nend_of_record\n" % n for n in range(files))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")
def test_the_report_of_a_large_commit_is_complete_in_the_memory_of_a_small_one(tmp_path: Path) -> None:
    from flask import Flask

    from flask_coverage import CoverageService
    from flask_coverage.ingest import upload_report
    from flask_coverage.operations import add_org, add_repo, init_db
    from flask_coverage.state import get_engine

    database = f"sqlite:///{tmp_path}/report.sqlite"
    app = Flask("memory")
    app.config["SQLALCHEMY_DATABASE_URI"] = database
    CoverageService(app)
    counts = {"small": 10_000, "large": 200_000}
    with app.app_context():
        init_db()
        add_org("github", "acme")
        for name, files in counts.items():
            upload_report(add_repo("github", "acme", name), one_line_files(files), commit="5eed" * 10, branch="main")
    with app.app_context():
        get_engine().dispose()  # the child reads the file; no pooled connection of ours is left behind
    measured = run_child(READER, database, *counts)
    small, large = measured["small"], measured["large"]
    for name, files in counts.items():
        assert (measured[name]["status"], measured[name]["files"]) == (200, files), measured
    assert large["bytes"] > 30_000_000, measured  # an answer held whole would raise the peak by as much
    assert large["peak"] - small["peak"] < 5, measured  # 20 times the files, no more memory


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")
def test_more_files_than_the_bound_are_refused_in_the_memory_of_an_upload_at_the_limit(tmp_path: Path) -> None:
    # The review's LCOV of 1.3 million one-line files (50 MB): 902 MB and killed, then 711 MB in 64 s here.
    plain = one_line_files(1_300_000)
    assert len(plain) <= limit
    (tmp_path / "body.gz").write_bytes(gzip.compress(plain, 1))
    del plain
    database = tmp_path / "memory.sqlite"
    measured = run_child(CHILD, str(tmp_path / "body.gz"), f"sqlite:///{database}")
    assert measured["status"] == 413, measured
    assert "more than 500,000 files (COVERAGE_MAX_REPORT_FILES)" in measured["text"], measured
    assert measured["peak"] < LIMIT_MB, measured
    with sqlite3.connect(database) as stored:
        assert stored.execute("SELECT count(*) FROM coverage_commit").fetchone() == (0,)


# Python 3.13's sqlite3 warns of a connection the collector closes mid-test (not one of this test's
# statements fails): the warning is left to look into, the memory bound is what this test checks.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning", "ignore::ResourceWarning")
def test_the_explorers_rows_are_rebuilt_in_the_memory_of_one_batch(tmp_path: Path) -> None:
    """refresh_tree holds the folders' sums and one batch of files, whatever the number of files."""
    from flask import Flask

    from flask_coverage import CoverageService
    from flask_coverage.ingest import upload_report
    from flask_coverage.operations import add_org, add_repo, init_db
    from flask_coverage.queries.tree import refresh_tree
    from flask_coverage.state import get_engine, get_session

    app = Flask("memory")
    app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{tmp_path}/tree.sqlite"
    CoverageService(app)
    peaks = {}
    with app.app_context():
        init_db()
        add_org("github", "acme")
        for files in (10_000, 100_000):
            commit = upload_report(add_repo("github", "acme", f"r{files}"), one_line_files(files), commit="5eed" * 10)
            tracemalloc.start()
            refresh_tree(commit.id)
            peaks[files] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            get_session().rollback()
        get_session().close()
        get_engine().dispose()  # its SQLite connections closed, not left to the collector (3.13 warns)
    # Read whole, 100,000 files cost 7.7 times 10,000 (22.3 MB against 2.9 MB); in batches 1.2 times.
    assert peaks[100_000] < 2 * peaks[10_000], peaks
