"""Upload latency with pull-request feedback on and off.

Three apps on SQLite files, alike but for ``COVERAGE_PROVIDERS`` and ``COVERAGE_FEEDBACK_SENDER``:
"off" has no provider; "queued" has one (an in-process stand-in that answers each call after
``--provider-ms``, as a real one over the network would) and no sender
thread, so an upload writes its outbox row and nothing more; "on" also has the sender thread, which
computes and sends each commit's feedback in the same process, competing with the uploads for it.
Each app runs in a process of its own (a sender thread must only compete with its own app's uploads),
driven by this one: uploads of one LCOV report (``--files`` files of ``--lines`` lines) to a new commit
each, the three interleaved in alternating order, through Flask's test client; the median, best and
90th percentile of ``--runs`` each, and the ratio to off's median per round of ``--rounds``. At the
end of each round the "on" process waits until its sender has sent every commit (a sender that only
put its work off would look free) and says what the sender cost: its thread's CPU time, the outbox
looks and the commits sent.

Usage::

    python benchmarks/bench_feedback_upload.py [--rounds 3] [--runs 30] [--files 200] [--lines 100] [--provider-ms 100]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from typing import Any, Optional

from flask import Flask

from flask_coverage import CoverageService, operations
from flask_coverage.feedback import outbox, sender

MODES = ("off", "queued", "on")


class StandInProvider:
    """A provider that answers every call after ``latency`` seconds (no network)."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def pull(self, repository: Any, number: int) -> None:
        time.sleep(self.latency)

    def diff(self, repository: Any, base_sha: str, head_sha: str) -> str:
        time.sleep(self.latency)
        return ""

    def read_file(self, repository: Any, sha: str, path: str) -> Optional[bytes]:
        time.sleep(self.latency)
        return None

    def set_status(self, repository: Any, sha: str, **status: Any) -> None:
        time.sleep(self.latency)

    def upsert_comment(self, repository: Any, number: int, body: str, comment_id: Optional[str]) -> str:
        time.sleep(self.latency)
        return "1"

    def delete_comment(self, repository: Any, number: int, comment_id: str) -> None:
        time.sleep(self.latency)

    def find_comment(self, repository: Any, number: int, marker: str) -> Optional[str]:
        time.sleep(self.latency)
        return None


def report(files: int, lines: int) -> bytes:
    out = []
    for n in range(files):
        out.append(f"SF:src/pkg{n // 50}/mod{n}.py\n")
        out.extend(f"DA:{line},{line % 3}\n" for line in range(1, lines + 1))
        out.append("end_of_record\n")
    return "".join(out).encode()


def make_app(folder: str, name: str, latency: float = 0.0) -> tuple[Flask, str]:
    app = Flask(f"bench-{name}")
    app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/{name}.db")
    if name != "off":
        app.config["COVERAGE_PROVIDERS"] = {"github": StandInProvider(latency)}
        # "queued": the outbox row only (a `flask coverage notify --loop` process sends);
        # "on": the sender thread of this process sends too.
        app.config["COVERAGE_FEEDBACK_SENDER"] = name == "on"
    CoverageService(app)
    with app.app_context():
        operations.init_db()
        operations.add_org("github", "acme")
        token = operations.add_repo("github", "acme", "widgets").upload_token
    return app, token


def _counting_sender() -> dict[str, float]:
    """The sender's outbox looks, commits sent and thread CPU time, counted from now on."""
    counts = {"looks": 0, "sent": 0, "cpu": 0.0}
    run_once = sender.run_once

    def counted(app: Flask) -> tuple[int, Optional[float]]:
        start = time.thread_time()
        try:
            handled, wait = run_once(app)
        finally:
            counts["cpu"] += time.thread_time() - start
        counts["looks"] += 1
        counts["sent"] += handled
        return handled, wait

    sender.run_once = counted  # type: ignore[assignment]
    return counts


def serve(name: str, folder: str, body: bytes, latency: float, pipe: Connection) -> None:
    """One app in this process: an upload to the commit named by each message; ``None`` ends a round."""
    app, token = make_app(folder, name, latency)
    counts = _counting_sender()
    client = app.test_client()
    while True:
        message = pipe.recv()
        if message == "stop":
            sender.stop(app)
            return
        if message is None:  # the round is over: wait for the sender to send every commit
            start = time.perf_counter()
            if name == "on":
                with app.app_context():
                    while outbox.next_due() is not None:
                        time.sleep(0.05)
            pipe.send({**counts, "drain": time.perf_counter() - start})
            counts.update(looks=0, sent=0, cpu=0.0)
            continue
        start = time.perf_counter()
        answer = client.post(f"/upload/v2?token={token}&commit={message}&branch=main&pr=7", data=body)
        elapsed = time.perf_counter() - start
        assert answer.status_code == 200, answer.get_data(as_text=True)
        pipe.send(elapsed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--provider-ms", type=float, default=100.0, help="each provider call's answer time")
    args = parser.parse_args(argv)
    body = report(args.files, args.lines)
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as folder:
        pipes, processes = {}, []
        for name in MODES:
            ours, theirs = context.Pipe()
            process = context.Process(
                target=serve, args=(name, folder, body, args.provider_ms / 1000, theirs), daemon=True
            )
            process.start()
            pipes[name] = ours
            processes.append(process)
        sha = 0
        for round_ in range(args.rounds):
            times: dict[str, list[float]] = {name: [] for name in MODES}
            for run in range(args.runs + 2):
                for name in MODES if run % 2 else reversed(MODES):
                    sha += 1
                    pipes[name].send(f"{sha:040x}")
                    elapsed = pipes[name].recv()
                    if run >= 2:  # the first two warm up
                        times[name].append(elapsed)
            for name in MODES:
                pipes[name].send(None)
            spent = {name: pipes[name].recv() for name in MODES}
            off = statistics.median(times["off"])
            print(f"round {round_ + 1}:")
            for name in MODES:
                median, best = statistics.median(times[name]), min(times[name])
                slow = statistics.quantiles(times[name], n=10)[-1]  # an upload that met the sender's writes
                print(
                    f"  feedback {name:>6}: median {median * 1000:7.1f} ms, best {best * 1000:7.1f} ms, "
                    f"90th percentile {slow * 1000:7.1f} ms, {median / off:.3f}x off's median"
                )
            on = spent["on"]
            print(
                f"  the sender: {on['sent']:.0f} commits sent in {on['looks']:.0f} looks at the outbox, "
                f"{on['cpu'] * 1000 / max(on['sent'], 1):.1f} ms of its thread's CPU a commit; "
                f"drained {on['drain']:.1f} s after the last upload"
            )
        for name in MODES:
            pipes[name].send("stop")
        for process in processes:
            process.join(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
