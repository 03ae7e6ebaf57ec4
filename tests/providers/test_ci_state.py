"""Each provider's CI read (:class:`~flask_coverage.providers.CiStatus`) against a recording fake of
its API on loopback: GitHub's combined status and check suites, GitLab's pipelines and statuses,
Bitbucket's build statuses; the service's own left out."""

from __future__ import annotations

import re
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fakes import Answer, FakeHost, Request, fake_host, github_app_routes

from flask_coverage.models import Owner, Repository, ServiceEnum
from flask_coverage.providers import CiStatus
from flask_coverage.providers.bitbucket import Bitbucket
from flask_coverage.providers.github import GitHub, GitHubApp
from flask_coverage.providers.gitlab import GitLab

REPO = Repository(name="widgets", owner=Owner(service=ServiceEnum.github, username="acme"))
SHA = "a" * 40


def github_ci(host: FakeHost, statuses: list[dict[str, Any]], suites: list[dict[str, Any]]) -> None:
    @host.route("GET", rf"/repos/acme/widgets/commits/{SHA}/status")
    def combined(request: Request, match: re.Match[str]) -> Answer:
        return 200, {"state": "pending", "statuses": statuses}, {}

    @host.route("GET", rf"/repos/acme/widgets/commits/{SHA}/check-suites")
    def listed(request: Request, match: re.Match[str]) -> Answer:
        return 200, {"total_count": len(suites), "check_suites": suites}, {}


def suite(app_id: int, status: str, conclusion: Any = None, runs: int = 1) -> dict[str, Any]:
    app = {"id": app_id, "slug": f"app-{app_id}"}
    return {"app": app, "status": status, "conclusion": conclusion, "latest_check_runs_count": runs}


@pytest.mark.parametrize(
    ("statuses", "suites", "expected"),
    [
        ([{"context": "ci/build", "state": "success"}], [suite(15368, "completed", "success")], "passed"),
        ([{"context": "ci/build", "state": "pending"}], [], "running"),
        ([{"context": "codecov/project", "state": "pending"}], [], "passed"),  # the service's own
        ([], [suite(15368, "in_progress")], "running"),
        ([], [suite(15368, "completed", "timed_out")], "failed"),
        ([{"context": "ci", "state": "error"}], [suite(15368, "completed", "success")], "failed"),
        ([], [suite(99, "queued", runs=0)], "passed"),  # an App's suite that never ran
        ([], [], "passed"),  # no CI at all
    ],
)
def test_github_reads_the_combined_status_and_check_suites(
    statuses: list[dict[str, Any]], suites: list[dict[str, Any]], expected: str
) -> None:
    with fake_host() as host:
        github_ci(host, statuses, suites)
        client = GitHub({"url": host.url, "token": "ghp_" + "x" * 36})
        assert isinstance(client, CiStatus)
        assert client.ci_state(REPO, SHA) == expected
        assert [request.route.rsplit("/", 1)[1] for request in host.sent()] == ["status", "check-suites"]


def test_github_leaves_out_the_services_own_apps_suite() -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with fake_host() as host:
        github_app_routes(host)
        github_ci(host, [], [suite(4242, "in_progress"), suite(15368, "completed", "success")])
        token = GitHub({"url": host.url, "token": "ghp_" + "x" * 36})
        assert token.ci_state(REPO, SHA) == "running"  # a token's client has no App of its own
        app = GitHubApp({"url": host.url, "app_id": 4242, "private_key": pem.decode()})
        assert app.ci_state(REPO, SHA) == "passed"


def test_gitlab_reads_the_pipelines_and_statuses() -> None:
    with fake_host() as host:
        pipelines = [{"id": 1, "status": "success"}, {"id": 2, "status": "running"}]
        outside = [{"name": "codecov/patch", "status": "pending"}, {"name": "external", "status": "success"}]
        host.route("GET", r"/projects/acme%2Fwidgets/pipelines")(lambda request, match: (200, pipelines, {}))
        host.route("GET", rf"/repository/commits/{SHA}/statuses")(lambda request, match: (200, outside, {}))
        client = GitLab({"url": host.url, "token": "glpat-" + "z" * 20})
        assert client.ci_state(REPO, SHA) == "running"
        assert "sha=" + SHA in host.sent()[0].path
        pipelines[1]["status"] = "failed"
        assert client.ci_state(REPO, SHA) == "failed"
        pipelines[1]["status"] = "manual"
        assert client.ci_state(REPO, SHA) == "passed"


def test_bitbucket_reads_the_build_statuses() -> None:
    with fake_host() as host:
        values = [{"key": "codecov/patch", "state": "INPROGRESS"}, {"key": "pipeline", "state": "SUCCESSFUL"}]
        host.route("GET", rf"/commit/{SHA}/statuses")(lambda request, match: (200, {"values": values}, {}))
        client = Bitbucket({"url": host.url, "token": "t" * 30})
        assert client.ci_state(REPO, SHA) == "passed"
        values.append({"key": "deploy", "state": "STOPPED"})
        assert client.ci_state(REPO, SHA) == "failed"
