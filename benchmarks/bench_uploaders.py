"""codecov-cli against ``/upload/v2``: the same 20,000-file report, end to end, through a live server.

For each run, a new commit gets the synthetic report of ``generate_reports.py`` (LCOV, 20,000 files,
2,000,000 lines) either by ``codecovcli upload-process`` (create-commit, create-report, the upload call,
then the JSON ``PUT`` of the base64+zlib file; the CLI pinned by the test suite, installed under
``COVERAGE_CLIENTS_DIR``) or by ``curl --data-binary`` to ``/upload/v2``. Each time is the client
process's wall time, start to exit, while one gunicorn sync worker serves the app; the two kinds of
run alternate, so a busy machine slows both alike. The server's peak memory is the worker's ``VmHWM``
(a separate gunicorn per kind). Reported: the medians, their ratio (goal <= 1.5) and the peaks (goal
< 300 MB).

Usage::

    python benchmarks/bench_uploaders.py [--files 20000] [--lines 2000000] [--runs 5] [--postgresql URL]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from generate_reports import SyntheticProject  # noqa: E402
from production_service import Gunicorn, scratch_database  # noqa: E402
from test_real_uploaders import install_clients, seed  # noqa: E402


def _peak_mb(gunicorn: Gunicorn) -> float:
    (pid,) = gunicorn.worker_pids()
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def _request_times(directory: Path) -> list[float]:
    """The seconds each request took, in the order of the access log (``%(D)s`` is microseconds)."""
    log = directory / "access.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [int(line.rsplit(" ", 1)[1]) / 1e6 for line in lines if "/_coverage/health" not in line]


def _timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)  # noqa: S603 - fixed argv
    elapsed = time.perf_counter() - start
    if result.returncode != 0 or "refused" in result.stdout + result.stderr:
        raise RuntimeError(f"{argv[0]} failed:\n{result.stdout}\n{result.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--postgresql", metavar="URL", help="a PostgreSQL server URL (a scratch database is made)")
    args = parser.parse_args()
    clients = install_clients()
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        report = work / "coverage.lcov"
        SyntheticProject(files=args.files, lines=args.lines).write_lcov(report)
        url = (
            stack.enter_context(scratch_database(args.postgresql)) if args.postgresql else f"sqlite:///{work}/db.sqlite"
        )
        token = seed(url)
        env = {"CLIENTS_TEST_DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
        servers = {}
        for kind in ("cli", "v2"):
            (work / kind).mkdir()
            access = ["--access-logfile", str(work / kind / "access.log"), "--access-logformat", "%(r)s %(s)s %(D)s"]
            gunicorn = Gunicorn(
                "test_real_uploaders:create_app()",
                workers=1,
                env=env,
                chdir=ROOT / "tests",
                log_dir=str(work / kind),
                extra_args=access,
            )
            servers[kind] = stack.enter_context(gunicorn)
        times: dict[str, list[float]] = {"cli": [], "v2": []}
        server_times: dict[str, list[float]] = {"cli": [], "v2": []}
        for run in range(args.runs):
            for kind, server in servers.items():
                base, sha = f"http://127.0.0.1:{server.port}", f"{run:02d}{kind:>2}".encode().hex().ljust(40, "0")
                if kind == "cli":
                    argv = [clients["codecovcli"], "--enterprise-url", base, "upload-process", "-C", sha]
                    argv += ["-r", "acme/widgets", "-t", token, "--git-service", "github", "-f", str(report)]
                    argv += ["--disable-search", "-Z"]
                else:
                    argv = ["curl", "-sS", "--fail-with-body", "-H", "Content-Type: text/plain", "--data-binary"]
                    argv += [f"@{report}", f"{base}/upload/v2?token={token}&commit={sha}"]
                logged = len(_request_times(work / kind))
                times[kind].append(_timed(argv, work))
                server_times[kind].append(sum(_request_times(work / kind)[logged:]))
        result = {
            "database": "postgresql" if args.postgresql else "sqlite",
            "files": args.files,
            "lines": args.lines,
            "report_mb": round(report.stat().st_size / 2**20, 1),
            "runs": args.runs,
            "cli_s": [round(t, 2) for t in times["cli"]],
            "v2_s": [round(t, 2) for t in times["v2"]],
            "cli_median_s": round(statistics.median(times["cli"]), 2),
            "v2_median_s": round(statistics.median(times["v2"]), 2),
            "ratio": round(statistics.median(times["cli"]) / statistics.median(times["v2"]), 2),
            # The server's own time: every request of the run (the CLI makes four), from the access log.
            "server_median_s": {kind: round(statistics.median(server_times[kind]), 2) for kind in server_times},
            "peak_mb": {kind: round(_peak_mb(server), 1) for kind, server in servers.items()},
        }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
