"""Peak memory of ``flask coverage upload`` per format, for a report just under ``COVERAGE_MAX_UPLOAD_BYTES``
(issue 25: under 300 MB for every format, HTTP and CLI; tests/test_upload_memory.py holds the HTTP side).

Each report is generated in memory by the generators of ``bench_formats.py`` (``--lines`` lines per file,
as many files as fit in ``--mb``), written to a file, and uploaded by ``flask coverage upload`` in a
fresh interpreter on a SQLite database; the child's own ``VmHWM`` is its peak. The interpreter with
Flask and SQLAlchemy loaded is about 70 MB of it. Run by hand, ``nice``d::

    python benchmarks/bench_upload_memory.py [--mb 50] [--lines 100] [format ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_formats import CASES, _lines  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHA = "5eed" * 10

#: The app the CLI runs: a module of its own, so ``flask --app`` loads it as a user's app would be.
APP = textwrap.dedent(
    """
    import os
    from flask import Flask
    from flask_coverage import CoverageService

    app = Flask("memory")
    app.config["SQLALCHEMY_DATABASE_URI"] = os.environ["BENCH_DATABASE_URL"]
    CoverageService(app)
    """
)


def cobertura(files: int, lines: int) -> bytes:
    parts = ['<?xml version="1.0" ?><coverage version="7.6" line-rate="0.6"><sources><source>/w</source></sources>']
    parts.append("<packages>")
    for f in range(files):
        parts.append(f'<package name="p{f}"><classes><class name="c{f}" filename="src/p{f // 100}/m{f}.py"><lines>')
        for n, hits, partial in _lines(lines):
            branch = ' branch="true" condition-coverage="50% (1/2)"' if partial and hits else ""
            parts.append(f'<line number="{n}" hits="{hits}"{branch}/>')
        parts.append("</lines></class></classes></package>")
    parts.append("</packages></coverage>")
    return "".join(parts).encode()


def coveragepy(files: int, lines: int) -> bytes:
    # Format 3, functions and classes repeating every file's lines, as coverage.py 7 writes it.
    report = {}
    for f in range(files):
        executed = [n for n, hits, _ in _lines(lines) if hits]
        missing = [n for n, hits, _ in _lines(lines) if not hits]
        branches = [[n, n + 1] for n, hits, partial in _lines(lines) if partial and hits]
        entry = {"executed_lines": executed, "missing_lines": missing, "missing_branches": branches}
        report[f"src/p{f // 100}/m{f}.py"] = {**entry, "functions": {"f": entry}, "classes": {"": entry}}
    return json.dumps({"meta": {"format": 3, "branch_coverage": True}, "files": report}).encode()


def opencover(files: int, lines: int) -> bytes:
    parts = ["<CoverageSession><Modules><Module><Files>"]
    parts += [f'<File uid="{f}" fullPath="C:\\w\\src\\p{f // 100}\\C{f}.cs"/>' for f in range(files)]
    parts.append("</Files><Classes>")
    for f in range(files):
        parts.append(f'<Class><Methods><Method><FileRef uid="{f}"/><SequencePoints>')
        for n, hits, partial in _lines(lines):
            branches = ' bec="2" bev="1"' if partial and hits else ""
            parts.append(f'<SequencePoint vc="{hits}" sl="{n}" el="{n}"{branches}/>')
        parts.append("</SequencePoints></Method></Methods></Class>")
    parts.append("</Classes></Module></Modules></CoverageSession>")
    return "".join(parts).encode()


def covr(files: int, lines: int) -> bytes:
    coverage = [None] + [None if n % 11 == 0 else hits for n, hits, _ in _lines(lines)]
    entries = [{"name": f"R/f{f}.R", "coverage": coverage} for f in range(files)]
    return json.dumps({"files": entries, "uploader": "R"}).encode()


#: Every format read: Cobertura and coverage.py JSON, those of bench_formats.py (LCOV among them), OpenCover and covr.
GENERATORS = {
    "cobertura": cobertura,
    "coveragepy": coveragepy,
    **{name: case[0] for name, case in CASES.items()},
    "opencover": opencover,
    "covr": covr,
}


def generated(name: str, megabytes: float, lines: int) -> bytes:
    """A report of the format ``name`` of at most ``megabytes`` MB (10**6 bytes)."""
    generate = GENERATORS[name]
    sample = len(generate(100, lines))
    files = max(1, int(megabytes * 1e6 * 0.97 / sample * 100))
    data = generate(files, lines)
    while len(data) > megabytes * 1e6:
        files = int(files * 0.97)
        data = generate(files, lines)
    return data


#: Runs ``flask ARGS...`` and prints, at exit, the process's own peak RSS (``VmHWM``; its ``ru_maxrss``
#: seen by the parent may hold the parent's pages, copied at the spawn).
FLASK = textwrap.dedent(
    """
    import atexit, runpy, sys

    def peak():
        with open("/proc/self/status") as status:
            kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        print(f"peak {kb / 1024:.1f}", file=sys.stderr)

    atexit.register(peak)
    sys.argv[0] = "flask"
    runpy.run_module("flask", run_name="__main__")
    """
)


def peak_mb(arguments: list[str], env: dict[str, str]) -> tuple[int, float, str]:
    """Exit status, peak RSS in MB and the last line printed by ``flask ARGUMENTS`` run in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", FLASK, *arguments], env=env, capture_output=True, text=True)  # noqa: S603
    peak = float(done.stderr.strip().splitlines()[-1].split()[-1])
    lines = done.stdout.strip().splitlines() or done.stderr.strip().splitlines()[:-1]
    return done.returncode, peak, lines[-1] if lines else ""


def upload(report: Path, name: str, workdir: Path) -> tuple[int, float, str]:
    """Upload ``report`` with ``flask coverage upload`` into a fresh database; its child's peak."""
    database = f"sqlite:///{workdir}/{name}.sqlite"
    env = {
        **os.environ,
        "BENCH_DATABASE_URL": database,
        "PYTHONPATH": os.pathsep.join([str(workdir), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    flask = [sys.executable, "-m", "flask", "--app", "bench_memory_app:app", "coverage"]
    for setup in (["init-db"], ["add-org", "github", "acme"], ["add-repo", "github/acme/widgets"]):
        subprocess.run([*flask, *setup], env=env, check=True, capture_output=True)  # noqa: S603
    return peak_mb(
        [
            "--app",
            "bench_memory_app:app",
            "coverage",
            "upload",
            str(report),
            "--repo",
            "gh/acme/widgets",
            "--commit",
            SHA,
        ],
        env,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50 * 1024 * 1024 / 1e6, help="report size (default: the limit)")
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("formats", nargs="*", default=list(GENERATORS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        (workdir / "bench_memory_app.py").write_text(APP)
        print(f"{'format':<10} {'MB':>6} {'files':>7} {'peak RSS MB':>11}  result")
        for name in args.formats:
            data = generated(name, args.mb, args.lines)
            report = workdir / f"report-{name}"
            report.write_bytes(data)
            size = len(data) / 1e6
            del data
            status, peak, last = upload(report, name, workdir)
            files = last.split(": ", 1)[-1].split(" files", 1)[0] if status == 0 else "-"
            print(f"{name:<10} {size:6.1f} {files:>7} {peak:11.0f}  {'ok' if status == 0 else last[:80]}", flush=True)
            report.unlink()


if __name__ == "__main__":
    main()
