"""The GitHub client against a recording fake of GitHub's REST API on loopback: what it asks, with
which credentials, and what it makes of the answers (a token, and a GitHub App's installation tokens)."""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from fakes import FakeHost, Request, fake_host

from flask_coverage.models import Owner, Repository, ServiceEnum
from flask_coverage.providers import CommentGone, ProviderError, PullInfo
from flask_coverage.providers.github import GitHub, GitHubApp

TOKEN = "ghp_test-token-never-logged"  # noqa: S105 - the fake's
REPO = Repository(name="widgets", owner=Owner(service=ServiceEnum.github, username="acme"))
BASE, HEAD, OTHER = "b" * 40, "a" * 40, "c" * 40


def github_routes(host: FakeHost) -> None:
    """The endpoints the client uses, with comments and statuses kept in ``host.state``."""
    comments: dict[int, str] = host.state.setdefault("comments", {})
    statuses: dict[tuple[str, str], dict[str, Any]] = host.state.setdefault("statuses", {})
    repo = "/repos/acme/widgets"

    @host.route("GET", repo + r"/pulls/(\d+)")
    def pull(request: Request, match: re.Match[str]) -> Any:
        if match[1] != "7":
            return 404, {"message": "Not Found"}, {}
        body = {
            "number": 7,
            "state": "closed",
            "merged_at": "2026-01-02T03:04:05Z",
            "title": "Faster <parser>",
            "base": {"ref": "main", "sha": BASE},
            "head": {"ref": "fast", "sha": HEAD},
        }
        return 200, body, {}

    @host.route("POST", repo + r"/issues/(\d+)/comments")
    def create(request: Request, match: re.Match[str]) -> Any:
        number = max(comments, default=100) + 1
        comments[number] = request.body["body"]
        return 201, {"id": number, "body": request.body["body"]}, {}

    @host.route("PATCH", repo + r"/issues/comments/(\d+)")
    def edit(request: Request, match: re.Match[str]) -> Any:
        if int(match[1]) not in comments:
            return 404, {"message": "Not Found"}, {}
        comments[int(match[1])] = request.body["body"]
        return 200, {"id": int(match[1])}, {}

    @host.route("DELETE", repo + r"/issues/comments/(\d+)")
    def delete(request: Request, match: re.Match[str]) -> Any:
        return (204, b"", {}) if comments.pop(int(match[1]), None) is not None else (404, {"message": "Not Found"}, {})

    @host.route("POST", repo + r"/statuses/([0-9a-f]{40})")
    def status(request: Request, match: re.Match[str]) -> Any:
        statuses[(match[1], request.body["context"])] = request.body
        return 201, {"id": 1, **request.body}, {}

    @host.route("GET", repo + r"/contents/([^?]+)")
    def contents(request: Request, match: re.Match[str]) -> Any:
        if match[1] == "pkg/mod.py" and request.path.endswith(f"?ref={HEAD}"):
            return 200, b"print(1)\n", {}
        return 404, {"message": "Not Found"}, {}


@pytest.fixture
def github() -> Iterator[tuple[FakeHost, GitHub]]:
    with fake_host() as host:
        github_routes(host)
        yield host, GitHub({"url": host.url + "/api/v3", "token": TOKEN})


def test_a_pull_as_github_describes_it(github: tuple[FakeHost, GitHub]) -> None:
    host, client = github
    assert client.pull(REPO, 7) == PullInfo(7, "merged", "Faster <parser>", "main", BASE, "fast", HEAD)
    assert client.pull(REPO, 8) is None
    request = host.requests[0]
    assert request.route == "/api/v3/repos/acme/widgets/pulls/7"
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert request.headers["Accept"] == "application/vnd.github+json"
    assert request.headers["X-GitHub-Api-Version"] == "2022-11-28"


def test_one_comment_posted_then_edited_in_place(github: tuple[FakeHost, GitHub]) -> None:
    host, client = github
    first = client.upsert_comment(REPO, 7, "coverage 80%", None)
    again = client.upsert_comment(REPO, 7, "coverage 81%", first)
    assert again == first
    assert host.state["comments"] == {int(first): "coverage 81%"}
    assert [(r.method, r.route) for r in host.requests] == [
        ("POST", "/api/v3/repos/acme/widgets/issues/7/comments"),
        ("PATCH", f"/api/v3/repos/acme/widgets/issues/comments/{first}"),
    ]
    # Deleted on GitHub: the caller is told, to post anew (per the comment's ``behavior``).
    client.delete_comment(REPO, 7, first)
    client.delete_comment(REPO, 7, first)  # gone already: not an error
    with pytest.raises(CommentGone):
        client.upsert_comment(REPO, 7, "coverage 82%", first)
    with pytest.raises(ProviderError, match="no pull request 9"):
        host.routes.insert(0, ("POST", re.compile(r".*/issues/9/comments$"), lambda r, m: (404, {}, {})))
        client.upsert_comment(REPO, 9, "x", None)


def test_statuses_are_set_per_sha_and_context(github: tuple[FakeHost, GitHub]) -> None:
    host, client = github
    url = "https://coverage.example.com/gh/acme/widgets/pull/7"
    client.set_status(REPO, HEAD, context="codecov/project", state="success", description="92.50%", target_url=url)
    client.set_status(REPO, HEAD, context="codecov/patch", state="failure", description="x" * 200, target_url=None)
    client.set_status(
        REPO, BASE.replace("b", "c"), context="codecov/project", state="pending", description="", target_url=None
    )
    statuses = host.state["statuses"]
    assert statuses[(HEAD, "codecov/project")] == {
        "state": "success",
        "context": "codecov/project",
        "description": "92.50%",
        "target_url": url,
    }
    assert statuses[(HEAD, "codecov/patch")]["description"] == "x" * 140  # GitHub's limit
    assert "target_url" not in statuses[(HEAD, "codecov/patch")]
    assert len(statuses) == 3


def test_read_file(github: tuple[FakeHost, GitHub]) -> None:
    host, client = github
    assert client.read_file(REPO, HEAD, "pkg/mod.py") == b"print(1)\n"
    assert client.read_file(REPO, HEAD, "pkg/other.py") is None
    assert host.requests[0].headers["Accept"] == "application/vnd.github.raw+json"


def test_the_diff_past_githubs_300_file_cap() -> None:
    """Under 300 files the compare API's patches; at the cap, both trees and every changed blob."""
    with fake_host() as host:
        files = {f"src/f{n}.py": f"a = {n}\n" for n in range(301)}

        @host.route("GET", r"/repos/acme/widgets/compare/(\w+)\.\.\.(\w+)")
        def compare(request: Request, match: re.Match[str]) -> Any:
            count = 2 if host.state.get("small") else 300
            listed = [
                {"filename": f"src/f{n}.py", "status": "modified", "patch": "@@ -1 +1 @@\n-a\n+b"} for n in range(count)
            ]
            if host.state.get("small"):
                listed[1] = {"filename": "img.png", "status": "added"}  # no patch: read from both sides
            return 200, {"files": listed, "merge_base_commit": {"sha": BASE}}, {}

        @host.route("GET", r"/repos/acme/widgets/git/trees/(\w+)")
        def tree(request: Request, match: re.Match[str]) -> Any:
            changed = match[1] == HEAD
            entries = [{"path": p, "type": "blob", "sha": ("new-" if changed else "old-") + p} for p in files]
            entries.append({"path": "same.py", "type": "blob", "sha": "same"})
            return 200, {"tree": entries, "truncated": False}, {}

        @host.route("GET", r"/repos/acme/widgets/git/blobs/(old|new)-(.+)")
        def blob(request: Request, match: re.Match[str]) -> Any:
            return 200, files[match[2]].encode() + (b"b = 2\n" if match[1] == "new" else b""), {}

        @host.route("GET", r"/repos/acme/widgets/contents/img.png")
        def image(request: Request, match: re.Match[str]) -> Any:
            return 200, b"\x89PNG\0\0", {}

        client = GitHub({"url": host.url, "token": TOKEN})
        diff = client.diff(REPO, BASE, HEAD)
        assert diff.count("diff --git") == 301
        assert (
            "diff --git a/src/f300.py b/src/f300.py\n--- a/src/f300.py\n+++ b/src/f300.py\n@@ -1,0 +2 @@\n+b = 2\n"
            in diff
        )
        assert "same.py" not in diff
        host.state["small"] = True
        diff = client.diff(REPO, BASE, HEAD)
        assert diff.startswith(
            "diff --git a/src/f0.py b/src/f0.py\n--- a/src/f0.py\n+++ b/src/f0.py\n@@ -1 +1 @@\n-a\n+b\n"
        )
        assert "diff --git a/img.png b/img.png\nBinary files differ\n" in diff


def rsa_key() -> tuple[str, Any]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    return pem, key.public_key()


def b64decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def test_a_github_app_signs_its_jwt_and_caches_installation_tokens_until_they_expire() -> None:
    pem, public = rsa_key()
    with fake_host() as host:
        github_routes(host)
        issued: list[str] = []

        @host.route("GET", r"/repos/acme/widgets/installation")
        def installation(request: Request, match: re.Match[str]) -> Any:
            return 200, {"id": 42}, {}

        @host.route("POST", r"/app/installations/42/access_tokens")
        def access_token(request: Request, match: re.Match[str]) -> Any:
            issued.append(f"ghs_installation{len(issued)}")
            expires = host.state.get("expires", "2099-01-01T00:00:00Z")
            return 201, {"token": issued[-1], "expires_at": expires}, {}

        client = GitHubApp({"url": host.url, "app_id": 1234, "private_key": pem})
        client.set_status(REPO, HEAD, context="codecov/project", state="success", description="", target_url=None)
        client.upsert_comment(REPO, 7, "hello", None)
        # The JWT: RS256 over header.payload with the App's key, naming the App, valid ten minutes at most.
        jwt = host.requests[0].headers["Authorization"].removeprefix("Bearer ")
        header, payload, signature = jwt.split(".")
        public.verify(b64decode(signature), f"{header}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
        assert json.loads(b64decode(header)) == {"alg": "RS256", "typ": "JWT"}
        claims = json.loads(b64decode(payload))
        assert claims["iss"] == "1234"
        assert claims["exp"] - claims["iat"] <= 600
        assert claims["iat"] <= time.time() <= claims["exp"]
        # One installation token for both calls, used as the bearer of the API calls.
        assert issued == ["ghs_installation0"]
        assert host.requests[2].headers["Authorization"] == "Bearer ghs_installation0"
        assert host.requests[3].headers["Authorization"] == "Bearer ghs_installation0"
        # A token that expires within the minute is renewed (the installation is remembered).
        client2 = GitHubApp({"url": host.url, "app_id": 1234, "private_key": pem})
        host.state["expires"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 30))
        client2.read_file(REPO, HEAD, "pkg/mod.py")
        client2.read_file(REPO, HEAD, "pkg/mod.py")
        assert issued == ["ghs_installation0", "ghs_installation1", "ghs_installation2"]
        assert [r.route for r in host.requests].count("/repos/acme/widgets/installation") == 2


def test_bad_settings_are_refused_with_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="needs a 'token', or an 'app_id' and a 'private_key'"):
        GitHub({"url": "https://api.github.com"})
    with pytest.raises(ValueError, match="not a PEM private key"):
        GitHubApp({"app_id": 1, "private_key": "-----BEGIN nonsense"})
    with pytest.raises(ValueError, match="must be an http"):
        GitHub({"url": "file:///etc/passwd", "token": TOKEN})
