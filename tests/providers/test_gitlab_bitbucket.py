"""The GitLab and Bitbucket Cloud clients against recording fakes on loopback shaped by their API docs
(GitLab REST v4: merge requests, notes, commit statuses, compare, repository files; Bitbucket 2.0:
pull requests, their comments, build statuses, diff, src), and ``provider_for``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Callable

import pytest
from fakes import FakeHost, Request, fake_host
from flask import Flask

from flask_coverage.models import Owner, Repository, ServiceEnum
from flask_coverage.providers import CommentGone, Provider, PullInfo, provider_for
from flask_coverage.providers.bitbucket import Bitbucket
from flask_coverage.providers.bitbucket_server import BitbucketServer
from flask_coverage.providers.github import GitHub
from flask_coverage.providers.gitlab import GitLab

TOKEN = "glpat-secret-token"  # noqa: S105 - the fakes'
BASE, HEAD = "b" * 40, "a" * 40


def repository(service: ServiceEnum, owner: str = "acme") -> Repository:
    return Repository(name="widgets", owner=Owner(service=service, username=owner))


def notes_routes(host: FakeHost, collection: str, item: str, text: Callable[[Any], str]) -> None:
    """Comments kept in ``host.state["comments"]``: create at ``collection``, edit and delete at ``item``."""
    comments: dict[int, str] = host.state.setdefault("comments", {})

    @host.route("POST", collection)
    def create(request: Request, match: re.Match[str]) -> Any:
        number = max(comments, default=500) + 1
        comments[number] = text(request.body)
        return 201, {"id": number}, {}

    @host.route("PUT", item)
    def edit(request: Request, match: re.Match[str]) -> Any:
        if int(match[1]) not in comments:
            return 404, {"message": "404 Not found"}, {}
        comments[int(match[1])] = text(request.body)
        return 200, {"id": int(match[1])}, {}

    @host.route("DELETE", item)
    def delete(request: Request, match: re.Match[str]) -> Any:
        return (204, b"", {}) if comments.pop(int(match[1]), None) else (404, {"message": "404 Not found"}, {})


@pytest.fixture
def gitlab() -> Iterator[tuple[FakeHost, GitLab]]:
    with fake_host() as host:
        mr = r"/projects/acme%2Fwidgets/merge_requests/(\d+)"

        @host.route("GET", mr)
        def merge_request(request: Request, match: re.Match[str]) -> Any:
            if match[1] != "3":
                return 404, {"message": "404 Not found"}, {}
            body = {
                "iid": 3,
                "state": "opened",
                "title": "Draft: widgets",
                "target_branch": "main",
                "source_branch": "feature",
                "sha": HEAD,
                "diff_refs": {"base_sha": BASE, "head_sha": HEAD, "start_sha": BASE},
            }
            return 200, body, {}

        notes = mr.replace(r"(\d+)", "3") + "/notes"
        notes_routes(host, notes, notes + r"/(\d+)", lambda body: body["body"])

        @host.route("POST", r"/projects/acme%2Fwidgets/statuses/([0-9a-f]{40})")
        def status(request: Request, match: re.Match[str]) -> Any:
            host.state.setdefault("statuses", {})[(match[1], request.body["name"])] = request.body
            return 201, {"id": 1}, {}

        @host.route("GET", r"/projects/acme%2Fwidgets/repository/compare")
        def compare(request: Request, match: re.Match[str]) -> Any:
            diffs = [
                {"old_path": "a.py", "new_path": "a.py", "diff": "@@ -1 +1,2 @@\n x\n+y\n", "new_file": False},
                {"old_path": "big.py", "new_path": "big.py", "diff": "", "too_large": True, "new_file": False},
                {"old_path": "gone.py", "new_path": "gone.py", "diff": "@@ -1 +0,0 @@\n-x\n", "deleted_file": True},
            ]
            return 200, {"commit": {"id": HEAD}, "diffs": diffs}, {}

        @host.route("GET", r"/projects/acme%2Fwidgets/repository/files/([^/]+)/raw")
        def raw(request: Request, match: re.Match[str]) -> Any:
            if match[1] != "big.py":
                return 404, {"message": "404 File Not Found"}, {}
            return 200, b"1\n2\n" if request.path.endswith(f"ref={BASE}") else b"1\n2\n3\n", {}

        yield host, GitLab({"url": host.url + "/api/v4", "token": TOKEN})


def test_gitlab(gitlab: tuple[FakeHost, GitLab]) -> None:
    host, client = gitlab
    repo = repository(ServiceEnum.gitlab)
    assert client.pull(repo, 3) == PullInfo(3, "open", "Draft: widgets", "main", BASE, "feature", HEAD)
    assert client.pull(repo, 4) is None
    assert host.requests[0].headers["PRIVATE-TOKEN"] == TOKEN
    assert host.requests[0].route == "/api/v4/projects/acme%2Fwidgets/merge_requests/3"
    # One note, created then edited.
    note = client.upsert_comment(repo, 3, "first", None)
    assert client.upsert_comment(repo, 3, "second", note) == note
    assert host.state["comments"] == {int(note): "second"}
    client.delete_comment(repo, 3, note)
    with pytest.raises(CommentGone):
        client.upsert_comment(repo, 3, "third", note)
    # Statuses in GitLab's words, per sha and name.
    client.set_status(repo, HEAD, context="codecov/patch", state="failure", description="50%", target_url="https://x/")
    client.set_status(repo, HEAD, context="codecov/project", state="error", description="", target_url=None)
    assert host.state["statuses"][(HEAD, "codecov/patch")] == {
        "state": "failed",
        "name": "codecov/patch",
        "description": "50%",
        "target_url": "https://x/",
    }
    assert host.state["statuses"][(HEAD, "codecov/project")]["state"] == "failed"
    # The diff: GitLab's own where it gives one, the file's two versions where it is too large.
    assert client.diff(repo, BASE, HEAD) == (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x\n+y\n"
        "diff --git a/big.py b/big.py\n--- a/big.py\n+++ b/big.py\n@@ -2,0 +3 @@\n+3\n"
    )
    compare = next(r for r in host.requests if "compare" in r.path)
    assert compare.path.endswith(f"/repository/compare?from={BASE}&to={HEAD}&straight=false")


@pytest.fixture
def bitbucket() -> Iterator[tuple[FakeHost, Bitbucket]]:
    with fake_host() as host:
        pr = r"/repositories/acme/widgets/pullrequests/(\d+)"

        @host.route("GET", pr)
        def pull(request: Request, match: re.Match[str]) -> Any:
            if match[1] != "5":
                return 404, {"type": "error", "error": {"message": "Not found"}}, {}
            body = {
                "id": 5,
                "state": "DECLINED",
                "title": "Try",
                "destination": {"branch": {"name": "main"}, "commit": {"hash": BASE[:12]}},
                "source": {"branch": {"name": "try"}, "commit": {"hash": HEAD[:12]}},
            }
            return 200, body, {}

        comments = pr.replace(r"(\d+)", "5") + "/comments"
        notes_routes(host, comments, comments + r"/(\d+)", lambda b: b["content"]["raw"])

        @host.route("POST", r"/repositories/acme/widgets/commit/([0-9a-f]{40})/statuses/build")
        def status(request: Request, match: re.Match[str]) -> Any:
            host.state.setdefault("statuses", {})[(match[1], request.body["key"])] = request.body
            return 201, request.body, {}

        @host.route("GET", r"/repositories/acme/widgets/diff/([0-9a-f]+)\.\.([0-9a-f]+)")
        def diff(request: Request, match: re.Match[str]) -> Any:
            host.state["spec"] = (match[1], match[2])
            return 200, b"diff --git a/x b/x\n", {"Content-Type": "text/plain"}

        yield host, Bitbucket({"url": host.url + "/2.0", "token": TOKEN})


def test_bitbucket(bitbucket: tuple[FakeHost, Bitbucket]) -> None:
    host, client = bitbucket
    repo = repository(ServiceEnum.bitbucket)
    assert client.pull(repo, 5) == PullInfo(5, "closed", "Try", "main", BASE[:12], "try", HEAD[:12])
    assert client.pull(repo, 6) is None
    assert host.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"
    comment = client.upsert_comment(repo, 5, "first", None)
    assert client.upsert_comment(repo, 5, "second", comment) == comment
    assert host.state["comments"] == {int(comment): "second"}
    assert host.sent("POST")[0].body == {"content": {"raw": "first"}}
    client.set_status(
        repo, HEAD, context="codecov/project", state="success", description="90%", target_url="https://x/"
    )
    assert host.state["statuses"][(HEAD, "codecov/project")] == {
        "key": "codecov/project",
        "name": "codecov/project",
        "state": "SUCCESSFUL",
        "description": "90%",
        "url": "https://x/",
    }
    # Bitbucket's spec is "source..destination": the head first.
    assert client.diff(repo, BASE, HEAD) == "diff --git a/x b/x\n"
    assert host.state["spec"] == (HEAD, BASE)
    # An app password instead of a token: HTTP Basic.
    basic = Bitbucket({"url": host.url, "username": "me", "app_password": "pw"})
    basic.pull(repo, 5)
    assert host.requests[-1].headers["Authorization"] == "Basic bWU6cHc="


def test_provider_for(make_app: Callable[..., Flask], make_database_url: Callable[[], str]) -> None:
    github_settings = {"url": "https://ghe.example.com/api/v3", "token": "t"}
    plugged = GitHub({"token": "x"})
    app = make_app(
        make_database_url(),
        COVERAGE_PROVIDERS={
            "github_enterprise": github_settings,
            "gitlab": {"token": "t"},
            "bitbucket": plugged,
            "bitbucket_server": {"url": "https://bitbucket.example.com", "token": "t"},
        },
    )
    with app.app_context():
        client = provider_for(repository(ServiceEnum.github_enterprise))
        assert isinstance(client, GitHub) and isinstance(client, Provider)
        assert client.http.base_url == "https://ghe.example.com/api/v3"
        assert provider_for(repository(ServiceEnum.github_enterprise)) is client  # built once: tokens cached
        assert isinstance(provider_for(repository(ServiceEnum.gitlab)), GitLab)
        assert provider_for(repository(ServiceEnum.bitbucket)) is plugged
        assert isinstance(provider_for(repository(ServiceEnum.bitbucket_server)), BitbucketServer)
        assert provider_for(repository(ServiceEnum.github)) is None


@pytest.mark.parametrize(
    ("providers", "message"),
    [
        ({"bitbucket_server": {"token": "t"}}, r"COVERAGE_PROVIDERS\['bitbucket_server'\] needs the server's 'url'"),
        ({"bitbucket_server": {"url": "https://bb.example.com"}}, "needs a 'token', or a 'username' and a 'password'"),
        ({"gitlab": {"url": "https://gitlab.example.com/api/v4"}}, r"COVERAGE_PROVIDERS\['gitlab'\] needs a 'token'"),
        ({"github": "ghp_token"}, "must be a dict of settings or a Provider"),
        ({"github": {"token": "t", "url": "ftp://github.example.com"}}, "the github URL must be an http"),
        ({"bitbucket": {"username": "me"}}, "needs a 'token', or a 'username' and an 'app_password'"),
    ],
)
def test_bad_settings_fail_at_start_up(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], providers: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        make_app(make_database_url(), COVERAGE_PROVIDERS=providers)


def test_the_old_key_is_refused_with_the_new_ones_name(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str]
) -> None:
    with pytest.raises(ValueError, match="COVERAGE_SOURCE_API is replaced by COVERAGE_PROVIDERS"):
        make_app(make_database_url(), COVERAGE_SOURCE_API={"github": {"url": "https://api.github.com", "token": "t"}})
