"""The Bitbucket Server (Data Center) client against a recording fake on loopback shaped by its REST
API 1.0 docs: pull requests, their comments (an edit and a deletion name the comment's version),
build statuses, the comparison's JSON hunks, raw files."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fakes import FakeHost, Request, fake_host

from flask_coverage.feedback.diff import parse_diff
from flask_coverage.models import Owner, Repository, ServiceEnum
from flask_coverage.providers import CheckRuns, CommentGone, Provider, ProviderError, PullInfo
from flask_coverage.providers.bitbucket_server import BitbucketServer

TOKEN = "bbs-http-access-token"  # noqa: S105 - the fake's
BASE, HEAD = "b" * 40, "a" * 40
REPO = Repository(name="widgets", owner=Owner(service=ServiceEnum.bitbucket_server, username="ACME"))
API = "/bitbucket/rest/api/1.0/projects/ACME/repos/widgets"


def routes(host: FakeHost) -> None:
    comments: dict[int, dict[str, Any]] = host.state.setdefault("comments", {})
    statuses: dict[tuple[str, str], dict[str, Any]] = host.state.setdefault("statuses", {})
    pulls = r"/rest/api/1.0/projects/ACME/repos/widgets/pull-requests/(\d+)"

    @host.route("GET", pulls)
    def pull(request: Request, match: re.Match[str]) -> Any:
        if match[1] != "12":
            return 404, {"errors": [{"message": "Pull request 12 does not exist in ACME/widgets."}]}, {}
        body = {
            "id": 12,
            "version": 3,
            "title": "Faster parser",
            "state": "DECLINED",
            "fromRef": {"id": "refs/heads/fast", "displayId": "fast", "latestCommit": HEAD},
            "toRef": {"id": "refs/heads/main", "displayId": "main", "latestCommit": BASE},
        }
        return 200, body, {}

    @host.route("POST", pulls + "/comments")
    def create(request: Request, match: re.Match[str]) -> Any:
        number = max(comments, default=40) + 1
        comments[number] = {"id": number, "version": 0, "text": request.body["text"]}
        return 201, comments[number], {}

    @host.route("GET", pulls + r"/comments/(\d+)")
    def read(request: Request, match: re.Match[str]) -> Any:
        found = comments.get(int(match[2]))
        return (200, found, {}) if found else (404, {"errors": [{"message": "No such comment"}]}, {})

    @host.route("PUT", pulls + r"/comments/(\d+)")
    def edit(request: Request, match: re.Match[str]) -> Any:
        found = comments.get(int(match[2]))
        if found is None:
            return 404, {"errors": [{"message": "No such comment"}]}, {}
        if request.body.get("version") != found["version"]:
            return (
                409,
                {"errors": [{"message": "You are attempting to modify a comment based on out-of-date information."}]},
                {},
            )
        found.update(text=request.body["text"], version=found["version"] + 1)
        return 200, found, {}

    @host.route("DELETE", pulls + r"/comments/(\d+)")
    def delete(request: Request, match: re.Match[str]) -> Any:
        found = comments.get(int(match[2]))
        if found is None:
            return 404, {"errors": [{"message": "No such comment"}]}, {}
        if not request.path.endswith(f"?version={found['version']}"):
            return 409, {"errors": [{"message": "out-of-date version"}]}, {}
        del comments[int(match[2])]
        return 204, b"", {}

    @host.route("POST", r"/rest/build-status/1.0/commits/([0-9a-f]{40})")
    def status(request: Request, match: re.Match[str]) -> Any:
        if not {"state", "key", "url"} <= set(request.body):
            return 400, {"errors": [{"message": "state, key and url are required"}]}, {}
        statuses[(match[1], request.body["key"])] = request.body
        return 204, b"", {}

    @host.route("GET", r"/rest/api/1.0/projects/ACME/repos/widgets/raw/(.+)")
    def raw(request: Request, match: re.Match[str]) -> Any:
        files = {("src/app.py", BASE): b"a\nb\n", ("src/app.py", HEAD): b"a\nB\nc\n", ("big.py", HEAD): b"x\ny\n"}
        path, at = match[1].split("?at=")
        return (200, files[(path, at)], {}) if (path, at) in files else (404, {"errors": [{"message": "no file"}]}, {})

    @host.route("GET", r"/rest/api/1.0/projects/ACME/repos/widgets/compare/diff")
    def compare(request: Request, match: re.Match[str]) -> Any:
        assert request.path.split("?")[1] == f"from={HEAD}&to={BASE}&contextLines=0"
        hunk = {
            "sourceLine": 2,
            "sourceSpan": 1,
            "destinationLine": 2,
            "destinationSpan": 2,
            "segments": [
                {"type": "REMOVED", "lines": [{"source": 2, "destination": 2, "line": "b"}]},
                {
                    "type": "ADDED",
                    "lines": [
                        {"source": 3, "destination": 2, "line": "B"},
                        {"source": 3, "destination": 3, "line": "c"},
                    ],
                },
            ],
        }
        new = {
            "sourceLine": 0,
            "sourceSpan": 0,
            "destinationLine": 1,
            "destinationSpan": 1,
            "segments": [{"type": "ADDED", "lines": [{"source": 0, "destination": 1, "line": "print(1)"}]}],
        }
        diffs = [
            {"source": {"toString": "src/app.py"}, "destination": {"toString": "src/app.py"}, "hunks": [hunk]},
            {"source": None, "destination": {"toString": "new.py"}, "hunks": [new]},
            {"source": {"toString": "gone.py"}, "destination": None, "hunks": []},
            {"source": None, "destination": {"toString": "big.py"}, "hunks": [], "truncated": True},
        ]
        return 200, {"fromHash": HEAD, "toHash": BASE, "contextLines": 0, "diffs": diffs, "truncated": False}, {}


@pytest.fixture
def server() -> Iterator[tuple[FakeHost, BitbucketServer]]:
    with fake_host() as host:
        routes(host)
        yield host, BitbucketServer({"url": host.url + "/bitbucket", "token": TOKEN})


def test_a_provider_without_check_runs(server: tuple[FakeHost, BitbucketServer]) -> None:
    _, client = server
    assert isinstance(client, Provider) and not isinstance(client, CheckRuns)


def test_a_pull_request(server: tuple[FakeHost, BitbucketServer]) -> None:
    host, client = server
    assert client.pull(REPO, 12) == PullInfo(12, "closed", "Faster parser", "main", BASE, "fast", HEAD)
    assert client.pull(REPO, 13) is None
    assert host.requests[0].route == f"{API}/pull-requests/12"
    assert host.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"


def test_one_comment_posted_then_edited_with_its_version(server: tuple[FakeHost, BitbucketServer]) -> None:
    host, client = server
    first = client.upsert_comment(REPO, 12, "coverage 80%", None)
    assert client.upsert_comment(REPO, 12, "coverage 81%", first) == first
    assert client.upsert_comment(REPO, 12, "coverage 82%", first) == first
    assert host.state["comments"] == {int(first): {"id": int(first), "version": 2, "text": "coverage 82%"}}
    assert [(r.method, r.route.removeprefix(API)) for r in host.requests] == [
        ("POST", "/pull-requests/12/comments"),
        ("GET", f"/pull-requests/12/comments/{first}"),
        ("PUT", f"/pull-requests/12/comments/{first}"),
        ("GET", f"/pull-requests/12/comments/{first}"),
        ("PUT", f"/pull-requests/12/comments/{first}"),
    ]
    client.delete_comment(REPO, 12, first)
    client.delete_comment(REPO, 12, first)  # gone already: not an error
    assert host.state["comments"] == {}
    with pytest.raises(CommentGone):
        client.upsert_comment(REPO, 12, "coverage 83%", first)
    with pytest.raises(ProviderError, match="no pull request 13"):
        host.routes.insert(0, ("POST", re.compile(r".*/pull-requests/13/comments$"), lambda r, m: (404, {}, {})))
        client.upsert_comment(REPO, 13, "x", None)


def test_build_statuses_per_commit_and_key(server: tuple[FakeHost, BitbucketServer]) -> None:
    host, client = server
    url = "https://coverage.example.com/bbs/ACME/widgets/pull/12"
    client.set_status(REPO, HEAD, context="codecov/project", state="success", description="92.50%", target_url=url)
    client.set_status(REPO, HEAD, context="codecov/patch", state="error", description="x", target_url=url)
    client.set_status(REPO, HEAD, context="codecov/patch", state="pending", description="y", target_url=url)
    assert host.state["statuses"] == {
        (HEAD, "codecov/project"): {
            "state": "SUCCESSFUL",
            "key": "codecov/project",
            "name": "codecov/project",
            "description": "92.50%",
            "url": url,
        },
        (HEAD, "codecov/patch"): {
            "state": "INPROGRESS",
            "key": "codecov/patch",
            "name": "codecov/patch",
            "description": "y",
            "url": url,
        },
    }
    assert host.requests[0].route == f"/bitbucket/rest/build-status/1.0/commits/{HEAD}"
    # Bitbucket Server requires a URL: without one (no web pages) it refuses, and says so.
    with pytest.raises(ProviderError, match="bitbucket_server answered 400 .*url are required"):
        client.set_status(REPO, HEAD, context="codecov/patch", state="success", description="", target_url=None)


def test_the_diff_from_the_comparisons_hunks(server: tuple[FakeHost, BitbucketServer]) -> None:
    host, client = server
    diff = client.diff(REPO, BASE, HEAD)
    assert diff.startswith(
        "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n@@ -2,1 +2,2 @@\n-b\n+B\n+c\n"
        "diff --git a/new.py b/new.py\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,1 @@\n+print(1)\n"
    )
    parsed = parse_diff(diff.splitlines(keepends=True))
    # The truncated file is diffed from its versions (read raw); the deleted one adds nothing.
    assert parsed.added == {"src/app.py": [2, 3], "new.py": [1], "big.py": [1, 2]}
    assert parsed.removed == {"src/app.py": [2]}
    assert client.read_file(REPO, HEAD, "src/app.py") == b"a\nB\nc\n"
    assert client.read_file(REPO, HEAD, "nope.py") is None
