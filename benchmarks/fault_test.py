"""Fault test: the production setup through a PostgreSQL restart and killed gunicorn workers.

Run from the repository root, as root (it restarts PostgreSQL), with PostgreSQL and Redis on
127.0.0.1::

    .venv/bin/python benchmarks/fault_test.py [--short] [--workers 4] [--clients 8] [--kills 3]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/test]
        [--redis-url redis://127.0.0.1:6379/0]

One service (tests/production_service.py: a scratch database, gunicorn, graphs cached in Redis) goes
through two faults, each under the request mix of load_test.py; the clients retry an upload that
was answered 503 or whose connection was cut, as CI uploaders do:

1. PostgreSQL restart: after a few seconds of load, the cluster that serves ``--database-url``
   (found with ``pg_lsclusters`` by its port) is restarted with
   ``pg_ctlcluster --skip-systemctl-redirect VERSION CLUSTER restart`` (fast mode: open
   transactions are rolled back, connections closed), and the load goes on.
2. Killed workers: during uploads of 20,000 lines each, the busiest gunicorn worker is killed with
   SIGKILL until a client saw its upload cut (at most 5 kills for one cut, since a kill between two
   uploads cuts none), ``--kills`` times; gunicorn starts new ones.

Then 20 answered uploads are sent once more (clients that lost the answer). It passes when no
answer is a 500 (only 200, 503 and, for the requests of a killed worker, a cut connection), the
workers that served before the restart still serve after it, every request sent from 1 s after a
fault on is answered 200 (the service recovered by itself), the uploads sent again are answered 200,
and the database check of load_test.py holds: every answered upload stored exactly once (none
twice), none stored in part, every commit's totals and version consistent. ``--short`` (the CI
run, about 30 s) restarts PostgreSQL during a few seconds of load and kills one worker. The cluster
is running again at the end, whatever happened.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from load_test import Load, check_database, print_summary
from production_service import DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, Gunicorn, production_service

#: Requests sent this long after a fault ended must all succeed.
GRACE_SECONDS = 1.0
#: Answered uploads sent once more at the end (a client that lost the answer): none may count twice.
RESENT = 20
CUT = 0  # the status Load records for a connection that was cut
#: Kills at most for one cut upload: a kill that lands between two uploads cuts none.
KILLS_PER_CUT = 5


def find_cluster(database_url: str) -> tuple[str, str]:
    """``(version, name)`` of the local PostgreSQL cluster listening on the port of ``database_url``."""
    import sqlalchemy as sa

    url = sa.make_url(database_url)
    if url.host not in (None, "localhost", "127.0.0.1", "::1"):
        raise SystemExit(f"the fault test restarts a local cluster; {url.host} is not loopback")
    port = str(url.port or 5432)
    listing = subprocess.run(["pg_lsclusters", "--no-header"], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        version, name, cluster_port, status = line.split()[:4]
        if cluster_port == port:
            if status != "online":
                raise SystemExit(f"cluster {version}/{name} is {status}")
            return version, name
    raise SystemExit(f"no PostgreSQL cluster on port {port} (pg_lsclusters)")


def cluster_online(version: str, name: str) -> bool:
    listing = subprocess.run(["pg_lsclusters", "--no-header", version, name], capture_output=True, text=True)
    return listing.returncode == 0 and "online" in listing.stdout.split()


@contextlib.contextmanager
def cluster_kept_running(version: str, name: str) -> Iterator[None]:
    """Whatever happens inside, the cluster is started again if it is not running at the end."""
    try:
        yield
    finally:
        if not cluster_online(version, name):
            print(f"starting PostgreSQL {version}/{name} again", file=sys.stderr)
            subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, name, "start"], check=False)


def restart_cluster(version: str, name: str) -> float:
    """Restart the cluster (fast mode); returns the seconds it took until it accepted connections."""
    start = time.monotonic()
    with cluster_kept_running(version, name):
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, name, "restart"], check=True, timeout=120
        )
    return time.monotonic() - start


def statuses(load: Load, since: float = 0.0) -> Counter[int]:
    """The statuses of the requests the clients started at or after ``since``."""
    return Counter(status for samples in load.samples.values() for start, _, status in samples if start >= since)


@contextlib.contextmanager
def under_load(load: Load, clients: int) -> Iterator[None]:
    """``load`` runs in the background while the block runs, and stops with it.

    Its clients finish the uploads they are retrying; if the block failed, they stop at once.
    """
    thread = threading.Thread(target=load.run, args=(clients, 3600))
    thread.start()
    while not load.deadline:
        time.sleep(0.01)
    try:
        yield
    except BaseException:
        load.retry = False
        raise
    finally:
        load.deadline = time.monotonic()
        thread.join()


def busy_worker(server: Gunicorn) -> int:
    """The worker that used the most CPU in the last 0.2 s: one in the middle of a request."""

    def cpu() -> dict[int, int]:
        ticks = {}
        for pid in server.worker_pids():
            with contextlib.suppress(OSError):
                with open(f"/proc/{pid}/stat") as stat:
                    fields = stat.read().rpartition(")")[2].split()
                ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime
        return ticks

    before = cpu()
    time.sleep(0.2)
    after = cpu()
    return max(after, key=lambda pid: after[pid] - before.get(pid, after[pid]))


def postgresql_restart(
    server: Gunicorn, seeded: dict[str, Any], cluster: tuple[str, str], numbers: Iterator[int], args: Any
) -> Load:
    load = Load(server.port, seeded, weights={"upload": 0.5, "graph": 0.3, "users": 0.2}, retry=True, numbers=numbers)
    workers = server.worker_pids()
    started = time.monotonic()
    with under_load(load, args.clients):
        time.sleep(args.before)
        restarted = time.monotonic()
        took = restart_cluster(*cluster)
        back = time.monotonic()
        time.sleep(args.after)
    elapsed = time.monotonic() - started
    print_summary(f"PostgreSQL restarted ({took:.1f} s) during {elapsed:.0f} s of load", load.summary(elapsed))
    during = statuses(load, restarted) - statuses(load, back)
    after = statuses(load, back + GRACE_SECONDS)
    print(f"requests started during the restart: {dict(during)}; from {GRACE_SECONDS:.0f} s after it: {dict(after)}")
    failed = [start for samples in load.samples.values() for start, _, status in samples if status != 200]
    if failed:
        print(f"503s seen by clients for {max(failed) - min(failed):.2f} s, from {min(failed) - restarted:.2f} s in")
    problems = []
    if set(statuses(load)) - {200, 503}:
        problems.append(f"answers other than 200 and 503: {dict(statuses(load))}")
    if set(after) != {200}:
        problems.append(f"requests after the restart failed: {dict(after)}")
    if server.worker_pids() != workers:
        problems.append("the workers were restarted")
    if problems:
        raise AssertionError("; ".join(problems))
    return load


def killed_workers(server: Gunicorn, seeded: dict[str, Any], numbers: Iterator[int], args: Any) -> Load:
    load = Load(server.port, seeded, weights={"upload": 1.0}, retry=True, upload_size=(5, 4000), numbers=numbers)
    started = time.monotonic()
    kills = []
    with under_load(load, 2 * args.workers):
        for _ in range(args.kills):
            time.sleep(args.before)
            # The busiest worker may still be between two uploads: kill again (a few times at most)
            # until a client saw its upload cut, so that each kill the test counts tests a cut.
            for _ in range(KILLS_PER_CUT):
                cut_before = statuses(load)[CUT]
                os.kill(busy_worker(server), signal.SIGKILL)
                kills.append(time.monotonic())
                server.wait_ready()  # gunicorn starts a new worker
                time.sleep(0.2)  # the cut client records its status
                if statuses(load)[CUT] > cut_before:
                    break
        time.sleep(args.after)
    elapsed = time.monotonic() - started
    print_summary(
        f"{len(kills)} worker(s) killed with SIGKILL during {elapsed:.0f} s of uploads", load.summary(elapsed)
    )
    cut = statuses(load)[CUT]
    after = statuses(load, kills[-1] + GRACE_SECONDS)
    print(f"uploads cut by a kill (then retried): {cut}; from {GRACE_SECONDS:.0f} s after the last kill: {dict(after)}")
    problems = []
    if set(statuses(load)) - {200, 503, CUT}:
        problems.append(f"answers other than 200, 503 and cut connections: {dict(statuses(load))}")
    if cut < args.kills:
        problems.append(f"{cut} upload(s) cut by {len(kills)} kills, {args.kills} wanted: the kills hit idle workers")
    if set(after) != {200}:
        problems.append(f"requests after the last kill failed: {dict(after)}")
    if problems:
        raise AssertionError("; ".join(problems))
    return load


def tracebacks(log: str) -> list[str]:
    """The tracebacks in a worker log, each up to its exception's line."""
    found, current = [], None
    for line in log.splitlines():
        if line.startswith("Traceback"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line and not line.startswith((" ", "\t", "The above", "During handling")):
                found.append("\n".join(current))
                current = None
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="the CI run: a few seconds around each fault")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    parser.add_argument("--clients", type=int, default=None, help="client threads (default 8; 4 with --short)")
    parser.add_argument("--kills", type=int, default=None, help="workers killed (default 3; 1 with --short)")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL, help="a PostgreSQL server on 127.0.0.1")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    args = parser.parse_args()
    args.clients = args.clients or (4 if args.short else 8)
    args.kills = args.kills or (1 if args.short else 3)
    args.before, args.after = (2.0, 3.0) if args.short else (5.0, 10.0)
    cluster = find_cluster(args.database_url)
    # A CI timeout sends SIGTERM: exit through the finally blocks, which start PostgreSQL again.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    service = production_service(args.database_url, args.redis_url, args.workers)
    with cluster_kept_running(*cluster), service as (server, seeded):
        try:
            numbers = itertools.count()  # both loads' uploads get paths of their own
            first = postgresql_restart(server, seeded, cluster, numbers, args)
            second = killed_workers(server, seeded, numbers, args)
            # Answers lost on the way back: the clients send those uploads again. Nothing may change.
            again = Counter(second.send_upload(upload) for upload in second.answered[:RESENT])
            print(f"{sum(again.values())} answered uploads sent again: {dict(again)}")
            if set(again) != {200}:
                raise AssertionError(f"uploads sent again were refused: {dict(again)}")
            sent, answered = first.sent + second.sent, first.answered + second.answered
            print(f"\ndatabase: {check_database(seeded['database_url'], sent, answered)}")
        except AssertionError as error:
            print(f"FAILED: {error}")
            print("\n".join(tracebacks(server.log_path.read_text())))
            return 1
    print("OK: no 500, recovered by itself after each fault, every answered upload stored exactly once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
