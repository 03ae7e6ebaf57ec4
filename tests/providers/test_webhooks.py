"""Pull-request webhooks over HTTP (WebTest): GitHub's signed ``pull_request`` events, GitLab's merge
request hook with its token, Bitbucket's signed ``pullrequest:*`` events; what they change on the
pull, its list, its page and the v2 API; and every bad request refused with nothing stored."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any, Callable

import pytest
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.ingest import upload_report

SECRET = "webhook-secret"  # noqa: S105 - the tests'
HEAD, NEXT, BASE = "1" * 40, "2" * 40, "3" * 40
LCOV = b"SF:a.py\nDA:1,1\nDA:2,0\nend_of_record\n"


@pytest.fixture
def service(make_app: Callable[..., Flask], make_database_url: Callable[[], str]) -> webtest.TestApp:
    # The APIs at a closed loopback port: the pages that ask them (feedback's base, diff, codecov.yml)
    # get a refused connection, never the network; a timeout shorter than the transport's first backoff
    # refuses at once instead of retrying (two waits per upload: 15 s of each test's setup).
    settings = {"url": "http://127.0.0.1:9", "token": "t", "webhook_secret": SECRET, "timeout": 0.4}
    enterprise = {"url": "http://127.0.0.1:9", "token": "t", "timeout": 0.4}
    providers = {"github": settings, "gitlab": settings, "bitbucket": settings, "github_enterprise": enterprise}
    # The service-wide secret signs these repositories' hooks as before per-repository secrets (opted in).
    app = make_app(make_database_url(), COVERAGE_PROVIDERS=providers, COVERAGE_WEBHOOK_SHARED_SECRET=True)
    with app.app_context():
        for service in ("github", "gitlab", "bitbucket"):
            operations.add_org(service, "acme")
            repository = operations.add_repo(service, "acme", "widgets")
            upload_report(repository, LCOV, commit=HEAD, branch="fast", pullid=7)
            upload_report(repository, LCOV, commit=NEXT, branch="fast", pullid=7)
            upload_report(repository, LCOV, commit=HEAD, branch="fast", pullid=7)  # the head is HEAD again
    return webtest.TestApp(app)


def signed(body: bytes, secret: str = SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def github_event(action: str = "closed", merged: bool = True, head: str = NEXT, number: int = 7) -> bytes:
    pull = {
        "number": number,
        "state": "open" if action != "closed" else "closed",
        "merged": merged,
        "title": "Faster <b>parser</b>",
        "base": {"ref": "main", "sha": BASE},
        "head": {"ref": "fast", "sha": head},
    }
    return json.dumps(
        {"action": action, "number": number, "pull_request": pull, "repository": {"full_name": "acme/widgets"}}
    ).encode()


def post_github(web: webtest.TestApp, body: bytes, status: int, **headers: str) -> Any:
    headers = {"X-GitHub-Event": "pull_request", "X-Hub-Signature-256": signed(body), **headers}
    return web.post("/webhooks/github", body, headers=headers, content_type="application/json", status=status)


def pull_of(web: webtest.TestApp, service: str = "github") -> dict[str, Any]:
    pulls = web.get(f"/api/v2/{service}/acme/repos/widgets/pulls/").json["results"]
    return next(pull for pull in pulls if pull["pullid"] == 7)


def test_a_github_pull_request_event_updates_the_pull(service: webtest.TestApp) -> None:
    assert pull_of(service)["state"] == "open" and pull_of(service)["title"] is None
    answer = post_github(service, github_event(), 200)
    assert answer.text == "Pull 7 of acme/widgets: merged.\n"
    pull = pull_of(service)
    assert (pull["state"], pull["title"]) == ("merged", "Faster <b>parser</b>")
    # Its head moved to the commit the event names, which has coverage here.
    page = service.get("/gh/acme/widgets/pull/7")
    assert page.html.select_one("#coverage-pull-title").text == "Faster <b>parser</b>"  # escaped, shown as text
    assert "merged" in page.html.select_one("h1").text
    listing = service.get("/gh/acme/widgets").html.select_one("#coverage-pulls").text
    assert "Faster <b>parser</b>" in listing and "merged" in listing
    # Reopened, another head without coverage here: the head stays where the uploads put it.
    post_github(service, github_event("reopened", merged=False, head="9" * 40), 200)
    assert pull_of(service)["state"] == "open"


def test_events_with_nothing_to_update(service: webtest.TestApp) -> None:
    assert (
        post_github(service, github_event(number=8), 202).text == "Ignored: no upload for pull 8 of acme/widgets yet.\n"
    )
    ping = json.dumps({"zen": "Keep it logically awesome."}).encode()
    assert post_github(service, ping, 202, **{"X-GitHub-Event": "ping"}).text == "Ignored: not a pull request event.\n"
    other = json.loads(github_event())
    other["repository"]["full_name"] = "acme/unknown"
    post_github(service, json.dumps(other).encode(), 202)
    assert pull_of(service)["state"] == "open"


@pytest.mark.parametrize(
    ("path", "headers", "body", "status", "message"),
    [
        ("/webhooks/github", {"X-GitHub-Event": "pull_request"}, b"{}", 401, "carries no X-Hub-Signature-256"),
        ("/webhooks/github", {"X-Hub-Signature-256": signed(b"other")}, b"{}", 403, "does not match its body"),
        ("/webhooks/github", {"X-Hub-Signature-256": signed(b"{}", "wrong")}, b"{}", 403, "does not match"),
        ("/webhooks/github", {"X-Hub-Signature-256": "sha1=abc"}, b"{}", 403, "does not match"),
        ("/webhooks/gitlab", {}, b"{}", 401, "carries no X-Gitlab-Token"),
        ("/webhooks/gitlab", {"X-Gitlab-Token": "not-the-secret"}, b"{}", 403, "X-Gitlab-Token is wrong"),
        ("/webhooks/bitbucket", {"X-Hub-Signature": "sha256=00"}, b"{}", 403, "X-Hub-Signature does not match"),
        ("/webhooks/gitlab_enterprise", {}, b"{}", 404, "No webhook is configured for gitlab_enterprise"),
        ("/webhooks/gitea", {}, b"{}", 404, "Unknown service"),
        ("/webhooks/github", {"X-Hub-Signature-256": signed(b"not json")}, b"not json", 400, "not JSON"),
        (
            "/webhooks/github",
            {"X-Hub-Signature-256": signed(b"{}"), "X-GitHub-Event": "pull_request"},
            b"{}",
            400,
            "missing a field",
        ),
    ],
)
def test_bad_webhooks_are_refused_and_store_nothing(
    service: webtest.TestApp,
    caplog: pytest.LogCaptureFixture,
    path: str,
    headers: dict[str, str],
    body: bytes,
    status: int,
    message: str,
) -> None:
    answer = service.post(path, body, headers=headers, content_type="application/json", status=status)
    assert message in answer.text
    if status in (401, 403):  # logged, without what the request carried
        assert f"webhook was refused ({status})" in caplog.text and message in caplog.text
        assert all(value not in caplog.text for name, value in headers.items() if name != "X-GitHub-Event")
    assert pull_of(service)["state"] == "open" and pull_of(service)["title"] is None


def test_a_body_past_the_bound_is_refused(service: webtest.TestApp) -> None:
    body = b" " * (5 * 1024 * 1024 + 1)
    service.post("/webhooks/github", body, headers={"X-Hub-Signature-256": signed(body)}, status=413)


def test_gitlab_merge_request_hook(service: webtest.TestApp) -> None:
    event = {
        "object_kind": "merge_request",
        "project": {"path_with_namespace": "acme/widgets"},
        "object_attributes": {
            "iid": 7,
            "state": "closed",
            "title": "Draft: widgets",
            "target_branch": "main",
            "source_branch": "fast",
            "last_commit": {"id": NEXT},
        },
    }
    headers = {"X-Gitlab-Token": SECRET, "X-Gitlab-Event": "Merge Request Hook"}
    service.post("/webhooks/gitlab", json.dumps(event).encode(), headers=headers, status=200)
    assert (pull_of(service, "gitlab")["state"], pull_of(service, "gitlab")["title"]) == ("closed", "Draft: widgets")
    assert pull_of(service, "github")["state"] == "open"  # another service's pull of the same name


def test_bitbucket_pull_request_event(service: webtest.TestApp) -> None:
    event = {
        "pullrequest": {
            "id": 7,
            "state": "MERGED",
            "title": "Try",
            "destination": {"branch": {"name": "main"}, "commit": {"hash": BASE[:12]}},
            "source": {"branch": {"name": "fast"}, "commit": {"hash": NEXT[:12]}},
        },
        "repository": {"full_name": "acme/widgets"},
    }
    body = json.dumps(event).encode()
    headers = {"X-Event-Key": "pullrequest:fulfilled", "X-Hub-Signature": signed(body)}
    service.post("/webhooks/bitbucket", body, headers=headers, status=200)
    assert (pull_of(service, "bitbucket")["state"], pull_of(service, "bitbucket")["title"]) == ("merged", "Try")


def test_the_migration_of_changes_md_adds_the_pull_columns_to_an_existing_database(service: webtest.TestApp) -> None:
    """CHANGES.md's statements, run on the table as it was (without the three columns), keep every row
    and give the pulls the defaults; a webhook then fills them in."""
    import sqlalchemy as sa

    from flask_coverage.state import get_engine

    changes = (Path(__file__).parents[2] / "CHANGES.md").read_text(encoding="utf-8")
    migration = changes.split("**An existing database needs the three columns**")[1].split("```sql")[1].split("```")[0]
    statements = [statement.strip() for statement in migration.split(";") if statement.strip()]
    assert [s.split()[:3] for s in statements] == [["ALTER", "TABLE", "coverage_pull"]] * 3
    with service.app.app_context(), get_engine().begin() as connection:
        for column in ("state", "title", "base_branch"):
            connection.execute(sa.text(f"ALTER TABLE coverage_pull DROP COLUMN {column}"))
        before = connection.execute(sa.text("SELECT * FROM coverage_pull ORDER BY id")).all()
        for statement in statements:
            connection.execute(sa.text(statement))
        after = connection.execute(sa.text("SELECT * FROM coverage_pull ORDER BY id")).all()
    assert [tuple(row[:-3]) for row in after] == [tuple(row) for row in before]
    assert {tuple(row[-3:]) for row in after} == {("open", None, None)}
    assert pull_of(service)["state"] == "open"
    post_github(service, github_event(), 200)
    assert pull_of(service)["state"] == "merged"
