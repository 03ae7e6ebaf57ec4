"""A GitHub App's check runs against a recording fake of GitHub's check-runs API on loopback: one run
created then updated in place, annotations 50 a request, a 403 remembered, and what a token cannot do."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fakes import FakeHost, Request, fake_host, github_app_routes, github_check_run_routes

from flask_coverage.models import Owner, Repository, ServiceEnum
from flask_coverage.providers import Annotation, CheckRun, CheckRuns, ChecksRefused, Provider, ProviderError
from flask_coverage.providers.github import GitHub, GitHubApp

REPO = Repository(name="widgets", owner=Owner(service=ServiceEnum.github, username="acme"))
SHA = "a" * 40
URL = "https://coverage.example.com/gh/acme/widgets/pull/7"


def pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


@pytest.fixture
def github() -> Iterator[tuple[FakeHost, GitHubApp]]:
    with fake_host() as host:
        github_app_routes(host)
        github_check_run_routes(host)
        yield host, GitHubApp({"url": host.url, "app_id": 1234, "private_key": pem()})


def check_requests(host: FakeHost) -> list[tuple[str, str]]:
    return [(r.method, r.route) for r in host.requests if "/check-runs" in r.route]


def run(conclusion: Any = "failure", title: str = "75.00% of diff hit (target 90.00%)", notes: int = 0) -> CheckRun:
    annotations = tuple(
        Annotation("src/app.py", 10 * n + 1, 10 * n + 2, f"Added lines #L{10 * n + 1} - L{10 * n + 2} were not covered")
        for n in range(notes)
    )
    return CheckRun("codecov/patch", conclusion, title, f"[See]({URL})\n\n{title}", URL, annotations)


def test_only_an_app_has_check_runs() -> None:
    token = GitHub({"url": "http://127.0.0.1:9", "token": "ghp_x"})
    app = GitHubApp({"url": "http://127.0.0.1:9", "app_id": 1, "private_key": pem()})
    assert isinstance(token, Provider) and not isinstance(token, CheckRuns)
    assert isinstance(app, Provider) and isinstance(app, CheckRuns)


def test_one_run_created_then_updated_in_place(github: tuple[FakeHost, GitHubApp]) -> None:
    host, client = github
    run_id = client.upsert_check_run(REPO, SHA, run(), None)
    assert client.upsert_check_run(REPO, SHA, run("success", "100.00% of diff hit (target 90.00%)"), run_id) == run_id
    assert check_requests(host) == [
        ("POST", "/repos/acme/widgets/check-runs"),
        ("PATCH", f"/repos/acme/widgets/check-runs/{run_id}"),
    ]
    create = next(r for r in host.requests if r.method == "POST" and r.route.endswith("/check-runs"))
    assert create.body == {
        "name": "codecov/patch",
        "head_sha": SHA,
        "status": "completed",
        "conclusion": "failure",
        "details_url": URL,
        "output": {
            "title": "75.00% of diff hit (target 90.00%)",
            "summary": f"[See]({URL})\n\n75.00% of diff hit (target 90.00%)",
        },
    }
    assert create.headers["Authorization"] == "Bearer ghs_installation0"
    ((stored_id, stored),) = host.state["runs"].items()
    assert str(stored_id) == run_id
    assert (stored["conclusion"], stored["output"]["title"]) == ("success", "100.00% of diff hit (target 90.00%)")
    # In progress: no conclusion yet.
    client.upsert_check_run(REPO, SHA, run(None), run_id)
    assert host.requests[-1].body["status"] == "in_progress" and "conclusion" not in host.requests[-1].body


def test_120_annotations_go_50_a_request(github: tuple[FakeHost, GitHubApp]) -> None:
    host, client = github
    many = run(notes=120)
    run_id = client.upsert_check_run(REPO, SHA, many, None)
    sent = [r for r in host.requests if "/check-runs" in r.route]
    assert [(r.method, len(r.body["output"]["annotations"])) for r in sent] == [
        ("POST", 50),
        ("PATCH", 50),
        ("PATCH", 20),
    ]
    assert {r.route for r in sent[1:]} == {f"/repos/acme/widgets/check-runs/{run_id}"}
    # Every request carries the state and the output; GitHub added the annotations up, in order.
    assert all(r.body["conclusion"] == "failure" and r.body["output"]["title"] == many.title for r in sent)
    stored = host.state["runs"][int(run_id)]["annotations"]
    assert [(note["start_line"], note["end_line"]) for note in stored] == [(10 * n + 1, 10 * n + 2) for n in range(120)]
    assert stored[0] == {
        "path": "src/app.py",
        "start_line": 1,
        "end_line": 2,
        "annotation_level": "warning",
        "message": "Added lines #L1 - L2 were not covered",
    }


def test_a_run_gone_on_github_is_created_anew(github: tuple[FakeHost, GitHubApp]) -> None:
    host, client = github
    assert client.upsert_check_run(REPO, SHA, run(), "999") == "1001"
    assert check_requests(host) == [
        ("PATCH", "/repos/acme/widgets/check-runs/999"),
        ("POST", "/repos/acme/widgets/check-runs"),
    ]


def test_a_403_is_checks_refused_and_remembered_for_the_repository(
    github: tuple[FakeHost, GitHubApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    host, client = github
    host.state["refuse_checks"] = True
    with pytest.raises(ChecksRefused, match="github answered 403 to POST /repos/acme/widgets/check-runs"):
        client.upsert_check_run(REPO, SHA, run(), None)
    assert len(check_requests(host)) == 1
    # Remembered: the next commit does not ask (it gets a commit status at once).
    with pytest.raises(ChecksRefused, match="refused check runs for this repository"):
        client.upsert_check_run(REPO, "b" * 40, run(), None)
    assert len(check_requests(host)) == 1
    other = Repository(name="gadgets", owner=REPO.owner)
    with pytest.raises(ChecksRefused):
        client.upsert_check_run(other, SHA, run(), None)  # another repository asks for itself
    assert len(check_requests(host)) == 2
    # The App got *Checks: write*; once the hour is over, the repository asks again.
    host.state["refuse_checks"] = False
    monkeypatch.setattr("flask_coverage.providers.github.time.monotonic", lambda: 10.0**9)
    assert client.upsert_check_run(REPO, SHA, run(), None) == "1001"


def test_a_rate_limit_is_not_a_refusal(github: tuple[FakeHost, GitHubApp]) -> None:
    host, client = github

    @host.route("POST", r"/repos/acme/widgets/check-runs")
    def limited(request: Request, match: re.Match[str]) -> Any:
        return 403, {"message": "API rate limit exceeded"}, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "0"}

    host.routes.insert(0, host.routes.pop())
    with pytest.raises(ProviderError) as raised:
        client.upsert_check_run(REPO, SHA, run(), None)
    assert not isinstance(raised.value, ChecksRefused) and raised.value.retryable
