"""Statuses as GitHub check runs: the rules on plain data, then delivery through the real GitHub App
client talking HTTP to a recording fake of GitHub (one run per context per sha, edited in place;
annotations; a 403 falls back to commit statuses; statuses where Codecov keeps them)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
import webtest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask

from flask_coverage import operations
from flask_coverage.feedback import checks
from flask_coverage.feedback.diff import Diff
from flask_coverage.feedback.notify import send_due
from flask_coverage.feedback.statuses import Status
from flask_coverage.ingest import upload_report
from flask_coverage.lines import HIT, MISS, PARTIAL, LineCoverage
from flask_coverage.models import Pull
from flask_coverage.providers import Annotation, CheckRun
from flask_coverage.state import execute, get_session
from tests.feedback.test_delivery import BASE_REPORT, FIRST_REPORT, SECOND_REPORT
from tests.git_history import History, lcov
from tests.providers.fakes import FakeHost, Request, fake_host, github_app_routes, github_check_run_routes

URL = "https://coverage.example.com/gh/acme/widgets/pull/7"
# The first push with line 4 of app.py covered too: every added line covered.
FIRST_ALL_COVERED = lcov({"app.py": {1: 1, 3: 1, 4: 1, 5: 1, 11: 1, 12: 1}, "other.py": {1: 1}})


def test_runs_of_uncovered_added_lines_become_annotations() -> None:
    diff = Diff(added={"a.py": [1, 2, 3, 5, 7, 8, 20], "gone.py": [1], "b.py": [4]}, removed={})
    head = {
        "a.py": LineCoverage([(1, 0, MISS), (2, 0, MISS), (3, 1, PARTIAL), (5, 0, MISS), (7, 0, MISS), (8, 0, MISS)]),
        "b.py": LineCoverage([(4, 0, MISS), (9, 0, MISS)]),
        "c.py": LineCoverage([(1, 0, MISS)]),  # not in the diff
    }
    head["a.py"] = head["a.py"].merge(LineCoverage([(9, 0, MISS), (20, 3, HIT)]))  # 9: not added
    assert checks.uncovered_added(diff, head) == (
        Annotation("a.py", 1, 2, "Added lines #L1 - L2 were not covered by tests"),
        Annotation("a.py", 5, 5, "Added line #L5 was not covered by tests"),
        Annotation("a.py", 7, 8, "Added lines #L7 - L8 were not covered by tests"),
        Annotation("b.py", 4, 4, "Added line #L4 was not covered by tests"),
    )


def test_shapes_and_conclusions() -> None:
    settings: dict[str, Any] = {
        "coverage": {
            "status": {
                "project": {"default": {"informational": True}},
                "patch": {"default": {}, "backend": {"flags": ["backend"]}, "docs": {"paths": ["docs/"]}},
            }
        },
        "github_checks": {"annotations": True},
    }
    assert checks.shapes(settings) == {
        "codecov/project": checks.Shape(informational=True),
        "codecov/patch": checks.Shape(annotated=True),  # as Codecov: the patch check without flags or paths
        "codecov/patch/backend": checks.Shape(),
        "codecov/patch/docs": checks.Shape(),
    }
    # Codecov's default (since 2025-01-30) and `github_checks: true`: no annotations.
    for value in (None, True, {}, {"annotations": False}):
        assert not checks.shapes({**settings, "github_checks": value})["codecov/patch"].annotated
    failed = Status("codecov/patch", "failure", "50.00% of diff hit (target 90.00%)")
    assert checks.check_run(failed, checks.Shape(), URL) == CheckRun(
        "codecov/patch",
        "failure",
        "50.00% of diff hit (target 90.00%)",
        f"[See the coverage of this pull request]({URL})\n\n50.00% of diff hit (target 90.00%)",
        URL,
    )
    # An informational status gates nothing: neutral (Codecov says success). `error` fails.
    informational = Status("codecov/project", "success", "80.00% (-5.00%) compared to abc1234")
    assert checks.check_run(informational, checks.Shape(informational=True), None).conclusion == "neutral"
    assert checks.check_run(informational, checks.Shape(informational=True), None).summary == informational.description
    assert checks.check_run(Status("codecov/patch", "error", "x"), checks.Shape(), None).conclusion == "failure"


def _pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


PEM = _pem()


@pytest.fixture
def github(app: Flask, mirrored: History) -> Iterator[FakeHost]:
    """GitHub as a GitHub App sees it: pull 7 open, statuses, the comment, check runs."""
    with fake_host() as host:
        github_app_routes(host)
        github_check_run_routes(host)
        statuses: dict[tuple[str, str], dict[str, Any]] = host.state.setdefault("statuses", {})

        @host.route("GET", r"/repos/acme/widgets/pulls/7")
        def pull(request: Request, match: re.Match[str]) -> Any:
            base, head = {"ref": "main", "sha": mirrored.main}, {"ref": "feature", "sha": mirrored.second}
            return 200, {"number": 7, "state": "open", "title": "A change", "base": base, "head": head}, {}

        @host.route("POST", r"/repos/acme/widgets/statuses/([0-9a-f]{40})")
        def status(request: Request, match: re.Match[str]) -> Any:
            statuses[(match[1], request.body["context"])] = request.body
            return 201, {"id": 1, **request.body}, {}

        @host.route("POST", r"/repos/acme/widgets/issues/7/comments")
        def comment(request: Request, match: re.Match[str]) -> Any:
            return 201, {"id": 555}, {}

        @host.route("PATCH", r"/repos/acme/widgets/issues/comments/555")
        def edit(request: Request, match: re.Match[str]) -> Any:
            return 200, {"id": 555}, {}

        app.config.update(
            COVERAGE_PROVIDERS={"github": {"url": host.url, "app_id": 1, "private_key": PEM}},
            COVERAGE_FEEDBACK_SENDER=False,
            COVERAGE_FEEDBACK_DELAY=0,
            COVERAGE_PUBLIC_URL="https://coverage.example.com",
        )
        yield host


def upload(sha: str, report: bytes, **args: Any) -> None:
    upload_report("github/acme/widgets", report, commit=sha, **args)
    while send_due():
        pass


def runs_on(host: FakeHost, sha: str) -> dict[int, dict[str, Any]]:
    return {run_id: run for run_id, run in host.state["runs"].items() if run["head_sha"] == sha}


def check_requests(host: FakeHost) -> list[tuple[str, str]]:
    return [(r.method, r.route.rsplit("/", 1)[-1]) for r in host.requests if "/check-runs" in r.route]


def test_an_open_pulls_statuses_are_check_runs_edited_in_place(
    mirrored: History, github: FakeHost, testapp: webtest.TestApp
) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    # Not a pull's commit: commit statuses, as Codecov sends them.
    assert {context for sha, context in github.state["statuses"]} == {"codecov/project", "codecov/patch"}
    assert github.state["runs"] == {}

    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    runs = runs_on(github, mirrored.first)
    assert not [key for key in github.state["statuses"] if key[0] == mirrored.first]
    by_name = {run["name"]: run for run in runs.values()}
    project = "85.71% (-14.29%) compared to " + mirrored.base[:7]
    assert {name: (run["conclusion"], run["output"]["title"]) for name, run in by_name.items()} == {
        "codecov/project": ("failure", project),
        "codecov/patch": ("failure", "75.00% of diff hit (target 100.00%)"),
    }
    assert (
        by_name["codecov/project"]["output"]["summary"]
        == f"[See the coverage of this pull request]({URL})\n\n{project}"
    )
    assert by_name["codecov/project"]["details_url"] == URL
    assert by_name["codecov/patch"]["annotations"] == []  # Codecov's default: no annotations
    # Each run looked for on the commit first (none there), then created.
    assert check_requests(github) == [("GET", "check-runs"), ("POST", "check-runs")] * 2

    # Another job of the same commit covers line 4: the same two runs, edited in place.
    github.requests.clear()
    upload(mirrored.first, FIRST_ALL_COVERED, branch="feature", pullid=7, parent=mirrored.base, run_id="job2")
    assert runs_on(github, mirrored.first).keys() == runs.keys()
    assert sorted(check_requests(github)) == sorted(("PATCH", str(run_id)) for run_id in runs)
    assert {run["name"]: run["conclusion"] for run in runs_on(github, mirrored.first).values()} == {
        "codecov/project": "success",  # every line the reports name is covered now
        "codecov/patch": "success",
    }
    # The next push: runs of its own.
    upload(mirrored.second, SECOND_REPORT, branch="feature", pullid=7, parent=mirrored.first)
    assert len(runs_on(github, mirrored.second)) == 2 and len(github.state["runs"]) == 4
    # The API and the commit's page say which run shows each status.
    api = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{mirrored.first}/feedback/").json
    ids = {run["name"]: str(run_id) for run_id, run in runs.items()}
    assert {row["context"]: row["check_run_id"] for row in api["sent"]} == {**ids, "comment": None}
    api = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{mirrored.base}/feedback/").json
    assert [row["check_run_id"] for row in api["sent"]] == [None, None]
    page = testapp.get(f"/gh/acme/widgets/commit/{mirrored.first}").html.find(id="coverage-feedback-sent")
    assert "codecov/patch (check run)" in " ".join(page.get_text(" ").split())


def test_a_run_whose_id_was_never_stored_is_found_and_updated(mirrored: History, github: FakeHost) -> None:
    """A sender killed after GitHub created a run, before it stored the run's id: the next sending
    finds the run by its name on the commit and updates it; no second run of that name."""
    upload(mirrored.base, BASE_REPORT, branch="main")
    lost = {"id": 1500, "name": "codecov/patch", "head_sha": mirrored.first, "annotations": [], "status": "in_progress"}
    github.state["runs"][1500] = lost  # created by the killed sender
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    runs = runs_on(github, mirrored.first)
    assert sorted(run["name"] for run in runs.values()) == ["codecov/patch", "codecov/project"]
    assert runs[1500]["conclusion"] == "failure" and runs[1500]["status"] == "completed"
    assert ("PATCH", "1500") in check_requests(github)
    listed = [r.path for r in github.requests if r.method == "GET" and r.route.endswith("/check-runs")]
    assert f"/commits/{mirrored.first}/check-runs?check_name=codecov%2Fpatch&filter=latest" in listed[-1]


def test_annotations_of_the_uncovered_added_lines(mirrored: History, github: FakeHost) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "github_checks:\n  annotations: true\n")
    upload(mirrored.base, BASE_REPORT, branch="main")
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    by_name = {run["name"]: run for run in runs_on(github, mirrored.first).values()}
    assert by_name["codecov/patch"]["annotations"] == [
        {
            "path": "app.py",
            "start_line": 4,
            "end_line": 4,
            "annotation_level": "warning",
            "message": "Added line #L4 was not covered by tests",
        }
    ]
    assert by_name["codecov/project"]["annotations"] == []
    # GitHub adds annotations to a run's: the patch run is made anew when they change, not edited.
    upload(mirrored.first, FIRST_ALL_COVERED, branch="feature", pullid=7, parent=mirrored.base, run_id="job2")
    patch_runs = sorted(
        (run_id, run) for run_id, run in runs_on(github, mirrored.first).items() if run["name"] == "codecov/patch"
    )
    assert len(patch_runs) == 2 and len(runs_on(github, mirrored.first)) == 3
    assert (patch_runs[-1][1]["conclusion"], patch_runs[-1][1]["annotations"]) == ("success", [])


def test_a_403_falls_back_to_commit_statuses_and_is_remembered(mirrored: History, github: FakeHost) -> None:
    github.state["refuse_checks"] = True  # the App lacks Checks: write
    upload(mirrored.base, BASE_REPORT, branch="main")
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    statuses = github.state["statuses"]
    assert statuses[(mirrored.first, "codecov/patch")]["description"] == "75.00% of diff hit (target 100.00%)"
    assert statuses[(mirrored.first, "codecov/project")]["state"] == "failure"
    assert check_requests(github) == [("GET", "check-runs")]  # asked once, then remembered
    upload(mirrored.second, SECOND_REPORT, branch="feature", pullid=7, parent=mirrored.first)
    assert check_requests(github) == [("GET", "check-runs")]
    assert (mirrored.second, "codecov/patch") in statuses
    # Nothing failed: the statuses are sent, no error kept.
    errors = execute(sa.text("SELECT error FROM coverage_feedback WHERE error IS NOT NULL")).all()
    assert errors == []


def test_statuses_where_codecov_keeps_them(mirrored: History, github: FakeHost) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "github_checks: false\n")
    upload(mirrored.base, BASE_REPORT, branch="main")
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    assert (mirrored.first, "codecov/patch") in github.state["statuses"] and github.state["runs"] == {}
    # A context once sent as a commit status stays one on that sha (never a status and a run of one name).
    operations.set_repository_yaml("github", "acme", "widgets", None)
    upload(mirrored.first, FIRST_ALL_COVERED, branch="feature", pullid=7, parent=mirrored.base, run_id="job2")
    assert github.state["statuses"][(mirrored.first, "codecov/patch")]["state"] == "success"
    assert github.state["runs"] == {}
    # A closed pull's commits get statuses too.
    execute(sa.update(Pull).values(state="closed"))
    get_session().commit()
    upload(mirrored.second, SECOND_REPORT, branch="feature", pullid=7, parent=mirrored.first)
    assert (mirrored.second, "codecov/patch") in github.state["statuses"] and github.state["runs"] == {}
