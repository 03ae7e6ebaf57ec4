"""The webhooks' events about accounts (docs/sign-in.md#webhooks-keep-it-current): a GitHub App's
installation listing ``--repos`` repositories, then a rename and an event about nothing known here,
each over HTTP through Flask's test client (WebTest), signed with the App's secret.

Run from the repository root::

    .venv/bin/python benchmarks/bench_account_hooks.py [--repos 2000] [--repeat 5]

Prints the median wall time of each request (SQLite, in process): the installation the first time
(every repository created), the same installation again (nothing changes), a repository renamed, and
an organization's new member who is not known here (202, nothing written).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "providers"))  # the payloads

import github_events as gh  # noqa: E402
import webtest  # noqa: E402
from flask import Flask  # noqa: E402

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.operations import init_db  # noqa: E402

SECRET = "the-app-s-secret"  # noqa: S105 - the benchmark's
DELIVERIES = itertools.count()


def post(web: webtest.TestApp, event: str, payload: dict[str, Any]) -> tuple[float, str]:
    body = json.dumps(payload).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": f"bench-{next(DELIVERIES)}",
        "X-Hub-Signature-256": "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest(),
    }
    start = time.perf_counter()
    answer = web.post("/webhooks/github", body, headers=headers, content_type="application/json")
    return time.perf_counter() - start, answer.text.strip()


def run(web: webtest.TestApp, label: str, event: str, payloads: list[dict[str, Any]]) -> None:
    times, text = [], ""
    for payload in payloads:
        elapsed, text = post(web, event, payload)
        times.append(elapsed)
    print(f"{label:<34} {statistics.median(times) * 1000:8.1f} ms  (median of {len(times)})  {text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = Flask("bench")
        app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/bench.sqlite", COVERAGE_FEEDBACK_SENDER=False)
        CoverageService(app)
        with app.app_context():
            init_db()
        # Set after start-up, which would check the App's private key: no call reaches GitHub here.
        app.config["COVERAGE_PROVIDERS"] = {"github": {"app_id": 1, "private_key": "-", "webhook_secret": SECRET}}
        web = webtest.TestApp(app)
        org = gh.user("big", 10, "Organization")
        listed = [gh.listed(gh.repository(org, f"r{n}", 1000 + n, private=True)) for n in range(args.repos)]

        def installation(n: int) -> dict[str, Any]:
            return gh.event("created", installation=gh.installation(org, 42 + n), repositories=listed)

        print(f"a GitHub App installed on an organization of {args.repos} repositories")
        run(web, "installation, first", "installation", [installation(0)])
        run(
            web, "installation again, nothing new", "installation", [installation(n) for n in range(1, args.repeat + 1)]
        )
        renames = [
            gh.event("renamed", repository=gh.repository(org, f"renamed{n}", 1000, private=True), changes={})
            for n in range(args.repeat)
        ]
        run(web, "a repository renamed", "repository", renames)
        big = gh.organization("big", 10)
        strangers = [
            gh.event("member_added", membership=gh.membership(big, gh.user(f"u{n}", 90 + n)), organization=big)
            for n in range(args.repeat)
        ]
        run(web, "a member not known here", "organization", strangers)


if __name__ == "__main__":
    main()
