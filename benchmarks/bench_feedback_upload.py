"""Upload latency with pull-request feedback on and off.

Three apps on SQLite files, alike but for ``COVERAGE_PROVIDERS`` and ``COVERAGE_FEEDBACK_SENDER``:
"off" has no provider; "queued" has one (an in-process stand-in that answers at once) and no sender
thread, so an upload writes its outbox row and nothing more; "on" also has the sender thread, which
computes and sends each commit's feedback in the same process, competing with the uploads for it.
Uploads of one LCOV report (``--files`` files of
``--lines`` lines) to a new commit each, the three interleaved, through Flask's test client;
the median and best of ``--runs`` each, and the ratio.

Usage::

    python benchmarks/bench_feedback_upload.py [--runs 30] [--files 200] [--lines 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from typing import Any, Optional

from flask import Flask

from flask_coverage import CoverageService, operations
from flask_coverage.feedback import sender


class InstantProvider:
    """A provider that answers everything at once (no network)."""

    def pull(self, repository: Any, number: int) -> None:
        return None

    def diff(self, repository: Any, base_sha: str, head_sha: str) -> str:
        return ""

    def read_file(self, repository: Any, sha: str, path: str) -> Optional[bytes]:
        return None

    def set_status(self, repository: Any, sha: str, **status: Any) -> None:
        return None

    def upsert_comment(self, repository: Any, number: int, body: str, comment_id: Optional[str]) -> str:
        return "1"

    def delete_comment(self, repository: Any, number: int, comment_id: str) -> None:
        return None


def report(files: int, lines: int) -> bytes:
    out = []
    for n in range(files):
        out.append(f"SF:src/pkg{n // 50}/mod{n}.py\n")
        out.extend(f"DA:{line},{line % 3}\n" for line in range(1, lines + 1))
        out.append("end_of_record\n")
    return "".join(out).encode()


def make_app(folder: str, name: str) -> tuple[Flask, str]:
    app = Flask(f"bench-{name}")
    app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/{name}.db")
    if name != "off":
        app.config["COVERAGE_PROVIDERS"] = {"github": InstantProvider()}
        # "queued": the outbox row only (a `flask coverage notify --loop` process sends);
        # "on": the sender thread of this process sends too.
        app.config["COVERAGE_FEEDBACK_SENDER"] = name == "on"
    CoverageService(app)
    with app.app_context():
        operations.init_db()
        operations.add_org("github", "acme")
        token = operations.add_repo("github", "acme", "widgets").upload_token
    return app, token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--lines", type=int, default=100)
    args = parser.parse_args(argv)
    body = report(args.files, args.lines)
    modes = ("off", "queued", "on")
    times: dict[str, list[float]] = {name: [] for name in modes}
    with tempfile.TemporaryDirectory() as folder:
        apps = {name: make_app(folder, name) for name in modes}
        clients = {name: app.test_client() for name, (app, _) in apps.items()}
        for run in range(args.runs + 2):
            for name in modes if run % 2 else reversed(modes):
                token = apps[name][1]
                sha = f"{run:040x}"
                start = time.perf_counter()
                answer = clients[name].post(f"/upload/v2?token={token}&commit={sha}&branch=main&pr=7", data=body)
                elapsed = time.perf_counter() - start
                assert answer.status_code == 200, answer.get_data(as_text=True)
                if run >= 2:  # the first two warm up
                    times[name].append(elapsed)
        sender.stop(apps["on"][0])
    for name in modes:
        median, best = statistics.median(times[name]) * 1000, min(times[name]) * 1000
        ratio = statistics.median(times[name]) / statistics.median(times["off"])
        print(f"feedback {name:>6}: median {median:7.1f} ms, best {best:7.1f} ms, {ratio:.3f}x off's median")
    return 0


if __name__ == "__main__":
    sys.exit(main())
