"""A pull's real base: codecov-cli's pr-base-picking, the git mirror's merge base, the provider's
pull, what the uploads said; never one of the pull's own commits."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest
import webtest
from flask import Flask

from flask_coverage.ingest import upload_report
from flask_coverage.providers import ProviderError, PullInfo
from tests.fake_provider import RecordingProvider
from tests.git_history import History, lcov

REPORT = lcov({"app.py": {1: 1, 2: 0}})
COMPARE = "/api/v2/github/acme/repos/widgets/compare/?pullid=7"


def upload(sha: str, **args: Any) -> None:
    upload_report("github/acme/widgets", REPORT, commit=sha, **args)


def push_pull(history: History) -> None:
    """The base and main's tip uploaded on main, then the pull's two pushes (each naming its parent)."""
    upload(history.base, branch="main")
    upload(history.main, branch="main", parent=history.base)
    upload(history.first, branch="feature", pullid=7, parent=history.base)
    upload(history.second, branch="feature", pullid=7, parent=history.first)


def compared_base(testapp: webtest.TestApp) -> str:
    return testapp.get(COMPARE).json["base_commit"]


def test_the_mirror_gives_the_merge_base_with_the_target_branch(mirrored: History, testapp: webtest.TestApp) -> None:
    push_pull(mirrored)
    # main moved on after the pull branched: its tip is not the base, the merge base is.
    assert compared_base(testapp) == mirrored.base
    page = testapp.get("/gh/acme/widgets/pull/7")
    assert mirrored.base[:7] in page.text


def test_without_a_mirror_a_second_push_does_not_make_the_first_the_base(
    widgets: Any, history: History, testapp: webtest.TestApp
) -> None:
    push_pull(history)
    assert compared_base(testapp) == history.base  # the parent the first push named, not the first push


def test_the_provider_names_the_target_branch_and_its_tip(
    app: Flask, mirrored: History, testapp: webtest.TestApp
) -> None:
    info = PullInfo(7, "open", "A change", "main", mirrored.main, "feature", mirrored.second)
    provider = RecordingProvider(pulls={7: info})
    app.config["COVERAGE_PROVIDERS"] = {"github": provider}
    push_pull(mirrored)
    assert compared_base(testapp) == mirrored.base  # the merge base of the provider's base sha and the head
    assert provider.called("pull") == [(7,)]
    compared_base(testapp)
    assert provider.called("pull") == [(7,)]  # asked once per head


def test_without_a_mirror_the_providers_base_sha(
    app: Flask, widgets: Any, history: History, testapp: webtest.TestApp
) -> None:
    info = PullInfo(7, "open", "A change", "main", history.main, "feature", history.second)
    app.config["COVERAGE_PROVIDERS"] = {"github": RecordingProvider(pulls={7: info})}
    push_pull(history)
    assert compared_base(testapp) == history.main


def test_a_provider_that_fails_leaves_the_mirror_to_answer(
    app: Flask, mirrored: History, testapp: webtest.TestApp
) -> None:
    app.config["COVERAGE_PROVIDERS"] = {"github": RecordingProvider(failure=ProviderError("down", status=502))}
    push_pull(mirrored)
    assert compared_base(testapp) == mirrored.base


def test_a_merge_base_inside_the_pull_walks_back_out_of_it(mirrored: History, testapp: webtest.TestApp) -> None:
    # main fast-forwarded onto the pull's head (as the demo's one line of commits): the merge base is the
    # head itself; the base is the first commit along first parents that is not the pull's.
    git_dir = os.path.join(mirrored.root, "github", "acme", "widgets.git")
    subprocess.run(["git", f"--git-dir={git_dir}", "update-ref", "refs/heads/main", mirrored.second], check=True)  # noqa: S603, S607
    push_pull(mirrored)
    assert compared_base(testapp) == mirrored.base


def pick(testapp: webtest.TestApp, token: str, body: Any, status: int, pull: str = "7") -> Any:
    url = f"/api/v1/github/acme::::widgets/pulls/{pull}"
    return testapp.put_json(url, body, headers={"Authorization": f"token {token}"}, status=status)


def test_pr_base_picking_wins(mirrored: History, testapp: webtest.TestApp, snapshot: Any) -> None:
    push_pull(mirrored)
    from flask_coverage.queries.repositories import find_repository

    token = find_repository("github", "acme", "widgets").upload_token
    answer = pick(testapp, token, {"user_provided_base_sha": mirrored.main}, 200)
    assert answer.json == {"pullid": 7, "user_provided_base_sha": mirrored.main}
    assert compared_base(testapp) == mirrored.main


@pytest.mark.parametrize(
    ("body", "pull", "status", "message"),
    [
        ({"user_provided_base_sha": "nope"}, "7", 400, "user_provided_base_sha"),
        ({}, "7", 400, "user_provided_base_sha"),
        ([1], "7", 400, "JSON object"),
        ({"user_provided_base_sha": "a" * 40}, "8", 404, "no coverage yet"),
        ({"user_provided_base_sha": "a" * 40}, "x", 400, "pull request number"),
    ],
)
def test_pr_base_picking_refuses_bad_input(
    mirrored: History, testapp: webtest.TestApp, snapshot: Any, body: Any, pull: str, status: int, message: str
) -> None:
    push_pull(mirrored)
    from flask_coverage.queries.repositories import find_repository

    token = find_repository("github", "acme", "widgets").upload_token
    before = snapshot()
    answer = pick(testapp, token, body, status, pull)
    assert message in answer.json["detail"]
    assert snapshot() == before


def test_pr_base_picking_needs_the_repositorys_token(mirrored: History, testapp: webtest.TestApp) -> None:
    push_pull(mirrored)
    pick(testapp, "0" * 36, {"user_provided_base_sha": mirrored.main}, 401)
