"""Load test: gunicorn workers on PostgreSQL with a Redis graph cache, under a mix of requests.

Run from the repository root, with PostgreSQL and Redis listening on 127.0.0.1::

    .venv/bin/python benchmarks/load_test.py [--duration 60] [--workers 4] [--clients 8]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/test]
        [--redis-url redis://127.0.0.1:6379/0]

It seeds a database of its own next to ``--database-url`` (an organization of 200 members, an
access token, 4 repositories with a first report), starts gunicorn with ``--workers`` sync workers
serving ``production_service.create_app`` (docs/deployment.md: PostgreSQL, ``pool_pre_ping``,
graphs cached in Redis under a prefix of its own) and runs ``--clients`` threads for ``--duration``
seconds, each sending requests one after the other, a new connection each (sync workers close them):

- ``upload``: a new report (5 files of 40 lines, each its own path) for a commit of a repository, 10
  uploads per commit, ``branch=main``: the tips move while graphs are drawn;
- ``graph``: a tree, icicle or sunburst of a repository's tip (new after every upload) or of its first
  commit (from the cache), gzip accepted as browsers do;
- ``users``: a page of the organization's members, with the bearer token.

It prints requests/s and p50/p99 latencies per kind, fails (exit status 1) on any answer but a 200,
and checks that every line of every answered upload is stored exactly once and every commit's
totals are the sums of its files. The database and the Redis keys are removed at the end.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import random
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # production_service, a test-support module
from production_service import DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, MEMBERS, ORG, fetch, production_service

UPLOADS_PER_COMMIT = 10
#: Answers that tell a client the service is not there right now (0: the connection was cut).
UNAVAILABLE = (0, 503)


@dataclass(frozen=True)
class Upload:
    """One upload of the load: ``files`` files of ``lines`` lines under ``load/u{number}/``."""

    number: int
    repo: str
    files: int = 5
    lines: int = 40

    @property
    def sha(self) -> str:
        return f"{self.repo}/{self.number // UPLOADS_PER_COMMIT}".encode().hex().ljust(40, "0")[:40]

    def expected(self) -> dict[str, list[tuple[int, int]]]:
        """``{path: [(line, hits), ...]}``: what the database must hold for this upload."""
        return {
            f"load/u{self.number}/f{j}.py": [(line, (self.number + j + line) % 4) for line in range(1, self.lines + 1)]
            for j in range(self.files)
        }

    def body(self) -> bytes:
        records = []
        for path, lines in self.expected().items():
            records.append(f"SF:{path}\n" + "".join(f"DA:{line},{hits}\n" for line, hits in lines) + "end_of_record\n")
        return "".join(records).encode()


class Load:
    """Client threads that send the request mix to a seeded service and record every answer."""

    def __init__(
        self,
        port: int,
        seeded: dict[str, Any],
        *,
        weights: dict[str, float],
        retry: bool = False,
        upload_size: tuple[int, int] = (5, 40),
        numbers: Optional[Iterator[int]] = None,
    ) -> None:
        self.port, self.seeded, self.weights, self.retry, self.upload_size = port, seeded, weights, retry, upload_size
        #: Upload numbers, shared by the loads of one service: each upload has paths of its own.
        self.numbers = numbers if numbers is not None else itertools.count()
        #: The clients stop starting requests at this time.monotonic(); it may be moved while they run.
        self.deadline = 0.0
        self.lock = threading.Lock()
        #: kind -> [(start, seconds, status)]; status 0: the connection was cut.
        self.samples: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
        self.sent: list[Upload] = []
        self.answered: list[Upload] = []

    def run(self, clients: int, seconds: float) -> None:
        """``clients`` threads, each sending requests until ``seconds`` have passed (or the deadline moved)."""
        self.deadline = time.monotonic() + seconds
        threads = [threading.Thread(target=self._client, args=(k,)) for k in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _client(self, k: int) -> None:
        rng = random.Random(k)
        kinds, weights = list(self.weights), list(self.weights.values())
        while time.monotonic() < self.deadline:
            getattr(self, f"_{rng.choices(kinds, weights)[0]}")(rng)

    def _send(self, kind: str, method: str, path: str, body: Optional[bytes] = None, **headers: str) -> int:
        start = time.monotonic()
        try:
            status = fetch(self.port, method, path, body, **headers)[0]
        except (OSError, http.client.HTTPException):
            status = 0
        with self.lock:
            self.samples[kind].append((start, time.monotonic() - start, status))
        return status

    def _upload(self, rng: random.Random) -> None:
        number = next(self.numbers)
        upload = Upload(number, f"repo{number % len(self.seeded['upload_tokens'])}", *self.upload_size)
        with self.lock:
            self.sent.append(upload)
        if self.send_upload(upload) == 200:
            with self.lock:
                self.answered.append(upload)

    def send_upload(self, upload: Upload) -> int:
        """POST ``upload`` (with ``retry``, again while unanswered, as CI uploaders do); the last status."""
        token = self.seeded["upload_tokens"][upload.repo]
        path = f"/upload/v2?token={token}&commit={upload.sha}&branch=main&build={upload.number}&job=1"
        body = upload.body()
        while (status := self._send("upload", "POST", path, body)) in UNAVAILABLE and self.retry:
            if time.monotonic() > self.deadline + 30:  # up to 30 s after the run
                break
            time.sleep(0.25)
        return status

    def _graph(self, rng: random.Random) -> None:
        repo = rng.choice(sorted(self.seeded["upload_tokens"]))
        target = rng.choice(["", f"/commit/{self.seeded['seed_shas'][repo]}"])
        kind = rng.choice(["tree", "icicle", "sunburst"])
        self._send("graph", "GET", f"/gh/{ORG}/{repo}{target}/graphs/{kind}.svg", **{"Accept-Encoding": "gzip"})

    def _users(self, rng: random.Random) -> None:
        page = rng.randint(1, MEMBERS // 20)
        search = rng.choice(["", "&search=member1", "&activated=true"])
        path = f"/api/v2/github/{ORG}/users/?page={min(page, 2) if search else page}&page_size=20{search}"
        self._send("users", "GET", path, Authorization=f"Bearer {self.seeded['access_token']}")

    def summary(self, seconds: float) -> dict[str, dict[str, Any]]:
        """Per kind: count, requests/s, p50 and p99 in ms, and the statuses seen."""
        report = {}
        for kind, samples in sorted(self.samples.items()):
            times = sorted(seconds_ for _, seconds_, _ in samples)
            report[kind] = {
                "count": len(samples),
                "rps": len(samples) / seconds,
                "p50": 1000 * times[len(times) // 2],
                "p99": 1000 * times[min(len(times) - 1, int(len(times) * 0.99))],
                "statuses": dict(Counter(status for _, _, status in samples)),
            }
        return report


def check_database(database_url: str, sent: list[Upload], answered: list[Upload]) -> dict[str, int]:
    """Every answered upload is stored exactly once, no upload is stored in part, totals add up.

    Raises AssertionError otherwise. Uploads that were never answered may be stored (their answer
    was lost) or not, but only whole.
    """
    import sqlalchemy as sa

    from flask_coverage.lines import LineCoverage

    engine = sa.create_engine(database_url, poolclass=sa.pool.NullPool)
    stored: dict[tuple[str, str], dict[str, list[tuple[int, int]]]] = defaultdict(dict)
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text(
                "SELECT r.name, c.sha, f.path, f.data FROM coverage_file f JOIN coverage_commit c ON c.id = f.commit_id"
                " JOIN coverage_repository r ON r.id = c.repository_id WHERE f.path LIKE 'load/%'"
            )
        )
        for repo, sha, path, data in rows:
            stored[repo, sha][path] = [(line, hits) for line, hits, _ in LineCoverage.decode(data)]
        mismatched = connection.execute(
            sa.text(
                "SELECT count(*) FROM coverage_commit c LEFT JOIN (SELECT commit_id, count(*) n, sum(lines) l,"
                " sum(hits) h, sum(misses) m, sum(partials) p FROM coverage_file GROUP BY commit_id) f"
                " ON f.commit_id = c.id WHERE (c.files, c.lines, c.hits, c.misses, c.partials) IS DISTINCT FROM"
                " (coalesce(f.n, 0), coalesce(f.l, 0), coalesce(f.h, 0), coalesce(f.m, 0), coalesce(f.p, 0))"
                " OR c.version <> (SELECT count(*) FROM coverage_upload u WHERE u.commit_id = c.id)"
            )
        ).scalar_one()
    engine.dispose()
    assert mismatched == 0, f"{mismatched} commits whose totals or version disagree with their files and uploads"
    answered_numbers = {upload.number for upload in answered}
    found = found_files = lost_answers = 0
    for upload in sent:
        files = stored.get((upload.repo, upload.sha), {})
        present = {path: lines for path, lines in upload.expected().items() if path in files}
        if upload.number in answered_numbers or present:
            assert present and all(files.get(path) == lines for path, lines in upload.expected().items()), (
                f"upload {upload.number} is {'missing' if not present else 'stored in part or twice'}"
            )
            found += 1
            found_files += upload.files
            lost_answers += upload.number not in answered_numbers
    assert sum(len(files) for files in stored.values()) == found_files, "files of uploads that were never sent"
    lines = sum(upload.files * upload.lines for upload in answered)
    return {"uploads_sent": len(sent), "uploads_answered": len(answered), "uploads_stored": found,
            "stored_without_answer": lost_answers, "lines_answered": lines,
            "lines_stored": sum(len(lines) for files in stored.values() for lines in files.values())}  # fmt: skip


def print_summary(title: str, summary: dict[str, dict[str, Any]]) -> None:
    print(f"\n{title}\n\n| kind | requests | req/s | p50 ms | p99 ms | statuses |\n|---|---:|---:|---:|---:|---|")
    for kind, row in summary.items():
        numbers = f"{row['count']} | {row['rps']:.1f} | {row['p50']:.1f} | {row['p99']:.1f}"
        print(f"| {kind} | {numbers} | {row['statuses']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60, help="seconds of load (default 60)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    parser.add_argument("--clients", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL, help="a PostgreSQL server to use")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    args = parser.parse_args()
    with production_service(args.database_url, args.redis_url, args.workers) as (server, seeded):
        load = Load(server.port, seeded, weights={"upload": 0.2, "graph": 0.5, "users": 0.3})
        started = time.monotonic()
        load.run(args.clients, args.duration)
        elapsed = time.monotonic() - started
        summary = load.summary(elapsed)
        rate = sum(row["count"] for row in summary.values()) / elapsed
        print_summary(f"{args.workers} workers, {args.clients} clients, {elapsed:.0f} s: {rate:.1f} req/s", summary)
        failures = {kind: row["statuses"] for kind, row in summary.items() if set(row["statuses"]) != {200}}
        counts = check_database(seeded["database_url"], load.sent, load.answered)
        print(f"\ndatabase: {counts}")
    if failures:
        print(f"FAILED: answers other than 200: {failures}")
        return 1
    print("OK: every answer a 200, every answered upload stored exactly once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
