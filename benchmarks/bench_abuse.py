"""The abuse review's timing rows, measured as ratios within one run (docs/deployment.md, "Limits and abuse").

Run from the repository root::

    .venv/bin/python benchmarks/bench_abuse.py [--only NAME]

Each check prints its measurements and its ratio next to the goal, and the script exits non-zero when
a goal is missed. Everything runs in this process against a scratch SQLite database, through Flask's
test client (the whole request: routing, the database, the answer), so that the ratios compare the
server's own work; CPU time is used where it is steadier than wall time on a busy machine.

- ``members``: ``POST /upload/v2`` with a body made of the 20-byte gzip of ``b""`` repeated, 1 MB
  and 8 MB (the review's reproduction). Goal: the 8 MB body costs at most 3x the 1 MB one.
- ``oracle``: an existing private repository against a missing one, 400 interleaved samples each, on
  the report API (anonymous) and the older settings API (an outsider's access token). Goal: the
  medians of the two 404s differ by less than 0.3 ms.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.operations import add_org, add_repo, add_user, create_token, init_db  # noqa: E402

SHA = "5eed" * 10


def make_app(directory: str) -> Flask:
    app = Flask("bench_abuse")
    app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{directory}/abuse.sqlite"
    CoverageService(app)
    with app.app_context():
        init_db()
        add_org("github", "acme")
        add_repo("github", "acme", "public")
        add_repo("github", "acme", "secret", private=True)
        add_user("github", "outsider")
        app.config["BENCH_OUTSIDER_TOKEN"] = create_token("github", "outsider", name="bench")[1]
    return app


def cpu_seconds(call: Callable[[], Any], repeat: int) -> float:
    """The median CPU time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return statistics.median(times)


def check_members(app: Flask) -> bool:
    with app.app_context():
        from flask_coverage.models import Repository
        from flask_coverage.state import get_session

        token = get_session().query(Repository).filter_by(name="public").one().upload_token
    client = app.test_client()
    member = gzip.compress(b"")
    costs = {}
    for megabytes in (1, 8):
        body = member * (megabytes * 1_000_000 // len(member))

        def post(body: bytes = body) -> str:
            response = client.post(f"/upload/v2?token={token}&commit={SHA}", data=body)
            assert response.status_code == 400, response.text
            return response.text.strip()

        costs[megabytes] = cpu_seconds(post, repeat=5)
        print(f"members: {megabytes} MB of empty gzip members: {costs[megabytes] * 1000:.1f} ms CPU ({post()})")
    ratio = costs[8] / costs[1]
    print(f"members: 8 MB / 1 MB = {ratio:.2f} (goal <= 3)")
    return ratio <= 3


def check_oracle(app: Flask) -> bool:
    client = app.test_client()
    outsider = {"Authorization": f"token {app.config['BENCH_OUTSIDER_TOKEN']}"}
    cases = {
        "report, anonymous": ("/api/v2/github/acme/repos/{}/report/", {}),
        "settings, outsider": ("/api/pub/gh/acme/{}/settings", outsider),
    }
    met = True
    for name, (url, headers) in cases.items():
        samples: dict[str, list[float]] = {"secret": [], "missing": []}
        for _ in range(20):  # warm up: connections, caches, code paths
            for repo in samples:
                client.get(url.format(repo), headers=headers)
        for _ in range(400):
            for repo in samples:
                start = time.perf_counter()
                response = client.get(url.format(repo), headers=headers)
                samples[repo].append(time.perf_counter() - start)
                assert response.status_code == 404, (url, repo, response.status_code)
        secret, missing = (statistics.median(samples[repo]) * 1000 for repo in ("secret", "missing"))
        difference = abs(secret - missing)
        print(
            f"oracle: {name}: private {secret:.3f} ms, missing {missing:.3f} ms,"
            f" difference {difference:.3f} ms (goal < 0.3)"
        )
        met = met and difference < 0.3
    return met


CHECKS = {"members": check_members, "oracle": check_oracle}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CHECKS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        app = make_app(directory)
        results = {name: check(app) for name, check in CHECKS.items() if args.only in (None, name)}
    missed = [name for name, met in results.items() if not met]
    print("all goals met" if not missed else f"goals missed: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
