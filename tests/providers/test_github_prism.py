"""Every request the GitHub client makes, validated against GitHub's official OpenAPI description.

Prism (``@stoplight/prism-cli``, npm) mocks ``@octokit/openapi``'s description of api.github.com on
loopback; both are installed under ``COVERAGE_CLIENTS_DIR`` (as tests/test_real_uploaders.py installs
its clients), once. Prism checks each request's path, parameters, headers and body against the
description and reports a violation in an ``sl-violations`` header of its answer and in its log;
the test asserts there is none in the requests, for each call of the client.

A proxy in front of Prism keeps what was asked and tells Prism ``Accept: application/json``: the
description lists only that media type for the answers, while GitHub documents (and the client sends)
its own ``application/vnd.github+json`` and ``application/vnd.github.raw+json``. Marked ``clients``.
"""

from __future__ import annotations

import fcntl
import http.client
import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from flask_coverage.models import Owner, Repository, ServiceEnum
from flask_coverage.providers import Annotation, CheckRun
from flask_coverage.providers.accounts import read_host_view
from flask_coverage.providers.github import GitHub, GitHubApp

pytestmark = pytest.mark.clients

CLIENTS_DIR = Path(os.environ.get("COVERAGE_CLIENTS_DIR") or Path.home() / ".cache" / "flask-coverage-clients")
PACKAGES = ["@stoplight/prism-cli@5.16.0", "@octokit/openapi@23.0.2"]
REPO = Repository(name="widgets", owner=Owner(service=ServiceEnum.github, username="acme"))
SHA, OTHER = "a" * 40, "b" * 40


def install_prism(directory: Path = CLIENTS_DIR / "prism") -> tuple[Path, Path]:
    """Prism's executable and GitHub's description, installed with npm in ``directory`` once."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = directory / "installed.txt"
        if not marker.exists() or marker.read_text() != " ".join(PACKAGES):
            command = ["npm", "install", "--prefix", str(directory), "--no-audit", "--no-fund", "--loglevel=error"]
            subprocess.run([*command, *PACKAGES], check=True, capture_output=True, timeout=600)  # noqa: S603
            marker.write_text(" ".join(PACKAGES))
    modules = directory / "node_modules"
    return modules / ".bin" / "prism", modules / "@octokit" / "openapi" / "generated" / "api.github.com.json"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def prism(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """Prism's port and log file."""
    executable, description = install_prism()
    port, log = free_port(), tmp_path_factory.mktemp("prism") / "prism.log"
    with open(log, "w") as output:
        process = subprocess.Popen(  # noqa: S603 - the pinned npm package
            [str(executable), "mock", "-h", "127.0.0.1", "-p", str(port), str(description)],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 240
        while "Prism is listening" not in log.read_text():
            assert process.poll() is None, log.read_text()[-2000:]
            assert time.monotonic() < deadline, "Prism did not start in time"
            time.sleep(0.5)
        yield port, log
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def proxy(prism: tuple[int, Path]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The proxy's URL and what went through it: each request and Prism's violations for it."""
    port, _ = prism
    seen: list[dict[str, Any]] = []

    class Forward(BaseHTTPRequestHandler):
        def forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "accept", "connection")}
            headers["Accept"] = "application/json"
            upstream = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            upstream.request(self.command, self.path, body=body or None, headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
            violations = answer.getheader("sl-violations")
            seen.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "accept": self.headers.get("Accept"),
                    "status": answer.status,
                    # Prism also reports where its own example answers break the description: not ours.
                    "violations": [v for v in json.loads(violations or "[]") if v["location"][0] == "request"],
                }
            )
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.getheader("Content-Type") or "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            upstream.close()

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = forward  # noqa: N815 - the http.server names

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", seen
    finally:
        server.shutdown()
        server.server_close()


def assert_valid(seen: list[dict[str, Any]], log: Path, expected: list[tuple[str, str]]) -> None:
    assert [(s["method"], s["path"].split("?")[0]) for s in seen] == expected
    assert [s["violations"] for s in seen] == [[] for _ in seen]
    assert all(s["status"] < 400 for s in seen), seen
    lines = log.read_text().splitlines()
    rejected = [
        line for line in lines if "[VALIDATOR]" in line and "error" in line and "Violation: response" not in line
    ]
    assert rejected == []


def test_every_request_of_a_token_client_is_valid(proxy: tuple[str, list[dict[str, Any]]], prism: Any) -> None:
    url, seen = proxy
    client = GitHub({"url": url, "token": "ghp_prism"})
    pull = client.pull(REPO, 7)
    assert pull is not None and pull.number > 0 and len(pull.head_sha) == 40
    client.set_status(
        REPO, SHA, context="codecov/patch", state="failure", description="50.00% of diff hit", target_url=None
    )
    client.set_status(
        REPO, SHA, context="codecov/project", state="success", description="90.00%", target_url="https://c.example/gh"
    )
    comment = client.upsert_comment(REPO, 7, "## Coverage\n\n| a | b |", None)
    assert client.upsert_comment(REPO, 7, "## Coverage, again", comment).isdigit()
    client.delete_comment(REPO, 7, comment)
    assert client.find_comment(REPO, 7, '[//]: # "flask-coverage comment on pull request 7"') is None
    assert client.read_file(REPO, SHA, "setup.py") is not None
    client.diff(REPO, OTHER, SHA)
    client._tree_diff(REPO, OTHER, SHA)  # the path past the 300-file cap: trees, then blobs
    assert {s["accept"] for s in seen} == {"application/vnd.github+json", "application/vnd.github.raw+json"}
    expected = [
        ("GET", "/repos/acme/widgets/pulls/7"),
        ("POST", f"/repos/acme/widgets/statuses/{SHA}"),
        ("POST", f"/repos/acme/widgets/statuses/{SHA}"),
        ("POST", "/repos/acme/widgets/issues/7/comments"),
        ("PATCH", f"/repos/acme/widgets/issues/comments/{comment}"),
        ("DELETE", f"/repos/acme/widgets/issues/comments/{comment}"),
        ("GET", "/repos/acme/widgets/issues/7/comments"),  # the description's example: one page
        ("GET", "/repos/acme/widgets/contents/setup.py"),
        ("GET", f"/repos/acme/widgets/compare/{OTHER}...{SHA}"),
    ]
    at_compare = len(expected)
    assert_valid(seen[:at_compare], prism[1], expected)
    # What the comparison and the trees asked next (the example's files and blobs) was valid too.
    assert [s["violations"] for s in seen[at_compare:]] == [[] for _ in seen[at_compare:]]
    assert any("/git/trees/" in s["path"] for s in seen[at_compare:])


def test_a_github_apps_requests_are_valid_check_runs_included(
    proxy: tuple[str, list[dict[str, Any]]], prism: Any
) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    url, seen = proxy
    client = GitHubApp({"url": url, "app_id": 1, "private_key": pem.decode()})
    client.set_status(REPO, SHA, context="codecov/project", state="pending", description="", target_url=None)
    # Check runs: one created with its first 50 annotations, the rest in updates; then edited in place.
    notes = tuple(Annotation("src/app.py", n, n, f"Added line #L{n} was not covered by tests") for n in range(1, 121))
    summary = "[See the coverage of this pull request](https://c.example/gh/acme/widgets/pull/7)\n\n50.00% of diff hit"
    run = CheckRun("codecov/patch", "failure", "50.00% of diff hit", summary, "https://c.example/gh", notes)
    assert (client.find_check_run(REPO, SHA, "codecov/patch") or "").isdigit()  # the example's run
    run_id = client.upsert_check_run(REPO, SHA, run, None)
    neutral = CheckRun("codecov/project", "neutral", "90.00% (+1.00%) compared to abc1234", "90.00%", None)
    client.upsert_check_run(REPO, SHA, neutral, run_id)
    client.upsert_check_run(REPO, SHA, CheckRun("codecov/changes", None, "Computing", "Computing"), run_id)
    # The installation's and the run's ids are whatever the description's examples say (and so is the
    # token's expiry, in the past: a token is asked for before each request).
    calls = [(s["method"], s["path"].split("?")[0].split("/")[-1]) for s in seen]
    assert calls[:2] == [("GET", "installation"), ("POST", "access_tokens")]
    assert [call for call in calls[2:] if call[1] != "access_tokens"] == [
        ("POST", SHA),
        ("GET", "check-runs"),
        ("POST", "check-runs"),
        ("PATCH", run_id),
        ("PATCH", run_id),
        ("PATCH", run_id),
        ("PATCH", run_id),
    ]
    assert_valid(seen, prism[1], [(s["method"], s["path"].split("?")[0]) for s in seen])


def test_the_sync_of_a_signed_in_user_asks_valid_requests(proxy: tuple[str, list[dict[str, Any]]], prism: Any) -> None:
    # What the sync reads with a user's OAuth token (docs/sign-in.md): the user, their organizations
    # and the repositories they can read, each a valid request of api.github.com's description.
    url, seen = proxy
    view = read_host_view("github", {"url": url}, "gho_prism")
    expected = [("GET", "/user"), ("GET", "/user/memberships/orgs"), ("GET", "/user/repos")]
    assert_valid(seen, prism[1], expected)
    assert view.user.username and view.organizations and view.repositories


def test_the_ci_read_is_valid_and_its_example_answers_read(proxy: tuple[str, list[dict[str, Any]]], prism: Any) -> None:
    url, seen = proxy
    client = GitHub({"url": url, "token": "ghp_prism"})
    # The description's examples: a combined status whose statuses are "success", and a check suite
    # "completed" with conclusion "neutral": a CI that passed.
    assert client.ci_state(REPO, SHA) == "passed"
    expected = [
        ("GET", f"/repos/acme/widgets/commits/{SHA}/status"),
        ("GET", f"/repos/acme/widgets/commits/{SHA}/check-suites"),
    ]
    assert_valid(seen, prism[1], expected)
