"""Per-repository webhook secrets, replays and webhook input (issue 35): a repository's hook opens that
repository alone, a GitHub App's secret opens every known one, a delivery acts once, and a body that
breaks the rules changes nothing."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any, Callable

import pytest
import sqlalchemy as sa
import webtest
from flask import Flask
from test_webhooks import HEAD, LCOV, NEXT, github_event, signed

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.models import WebhookDelivery
from flask_coverage.providers.webhooks import DELIVERY_WINDOW
from flask_coverage.state import get_engine

APP_SECRET = "the-app-s-secret"  # noqa: S105 - the tests'


def make_service(make_app: Callable[..., Flask], database_url: str, **config: Any) -> webtest.TestApp:
    """acme/widgets and evil/tools on GitHub, GitLab and Bitbucket, each with pull 7 uploaded."""
    app = make_app(database_url, **config)
    with app.app_context():
        for service in ("github", "gitlab", "bitbucket"):
            for owner, name in (("acme", "widgets"), ("evil", "tools")):
                operations.add_org(service, owner)
                repository = operations.add_repo(service, owner, name)
                upload_report(repository, LCOV, commit=HEAD, branch="fast", pullid=7)
    # Configured after the uploads, which then ask no provider for a codecov.yml.
    settings = {"url": "http://127.0.0.1:9", "token": "t", "webhook_secret": "service-wide"}
    app.config["COVERAGE_PROVIDERS"] = dict.fromkeys(("github", "gitlab", "bitbucket"), settings)
    return webtest.TestApp(app)


@pytest.fixture
def service(make_app: Callable[..., Flask], make_database_url: Callable[[], str]) -> webtest.TestApp:
    return make_service(make_app, make_database_url())


def secret_of(web: webtest.TestApp, owner: str, name: str, service: str = "github", **kwargs: Any) -> str:
    with web.app.app_context():
        return operations.webhook_secret(service, owner, name, **kwargs)


def pull(web: webtest.TestApp, owner: str = "acme", name: str = "widgets", service: str = "github") -> dict[str, Any]:
    pulls = web.get(f"/api/v2/{service}/{owner}/repos/{name}/pulls/").json["results"]
    return next(item for item in pulls if item["pullid"] == 7)


def event_of(owner: str, name: str, **kwargs: Any) -> bytes:
    event = json.loads(github_event(**kwargs))
    event["repository"]["full_name"] = f"{owner}/{name}"
    return json.dumps(event).encode()


def post(web: webtest.TestApp, body: bytes, secret: str, status: int, **headers: str) -> Any:
    headers = {
        "X-GitHub-Event": "pull_request",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": signed(body, secret),
        **headers,
    }
    return web.post("/webhooks/github", body, headers=headers, content_type="application/json", status=status)


def test_a_repository_s_secret_opens_that_repository_alone(service: webtest.TestApp) -> None:
    acme, evil = secret_of(service, "acme", "widgets"), secret_of(service, "evil", "tools")
    assert acme != evil and len(acme) == 40 and secret_of(service, "acme", "widgets") == acme  # stable
    # evil's admin signs an event for acme's pull with evil's secret, or with the service-wide one.
    for secret in (evil, "service-wide"):
        post(service, event_of("acme", "widgets"), secret, 403)
    assert (pull(service)["state"], pull(service)["title"]) == ("open", None)
    post(service, event_of("evil", "tools"), evil, 200)
    assert pull(service, "evil", "tools")["state"] == "merged" and pull(service)["state"] == "open"
    post(service, event_of("acme", "widgets"), acme, 200)
    assert pull(service)["state"] == "merged"


def test_a_repository_without_a_secret_yet_and_an_unknown_one_are_refused_alike(service: webtest.TestApp) -> None:
    assert (
        post(service, event_of("acme", "widgets"), "anything", 403).text
        == post(service, event_of("acme", "nothing"), "anything", 403).text
    )
    assert pull(service)["state"] == "open"


def test_rotating_the_secret_voids_the_old_one(service: webtest.TestApp) -> None:
    old = secret_of(service, "acme", "widgets")
    new = secret_of(service, "acme", "widgets", rotate=True)
    assert new != old
    post(service, event_of("acme", "widgets"), old, 403)
    post(service, event_of("acme", "widgets"), new, 200)


def test_gitlab_and_bitbucket_hooks_take_their_repository_s_secret(service: webtest.TestApp) -> None:
    event = {
        "object_kind": "merge_request",
        "project": {"path_with_namespace": "acme/widgets"},
        "object_attributes": {"iid": 7, "state": "merged", "title": "t", "target_branch": "main", "source_branch": "f"},
    }
    body = json.dumps(event).encode()
    for token, status in ((secret_of(service, "evil", "tools", "gitlab"), 403), ("service-wide", 403)):
        service.post("/webhooks/gitlab", body, headers={"X-Gitlab-Token": token}, status=status)
    assert pull(service, service="gitlab")["state"] == "open"
    service.post("/webhooks/gitlab", body, headers={"X-Gitlab-Token": secret_of(service, "acme", "widgets", "gitlab")})
    assert pull(service, service="gitlab")["state"] == "merged"
    bitbucket = {
        "pullrequest": {
            "id": 7,
            "state": "DECLINED",
            "title": "t",
            "destination": {"branch": {"name": "main"}, "commit": {"hash": "3" * 12}},
            "source": {"branch": {"name": "fast"}, "commit": {"hash": "2" * 12}},
        },
        "repository": {"full_name": "acme/widgets"},
    }
    body = json.dumps(bitbucket).encode()
    for secret, status in (
        (secret_of(service, "evil", "tools", "bitbucket"), 403),
        (secret_of(service, "acme", "widgets", "bitbucket"), 200),
    ):
        headers = {"X-Event-Key": "pullrequest:rejected", "X-Hub-Signature": signed(body, secret)}
        service.post("/webhooks/bitbucket", body, headers=headers, status=status)
    assert pull(service, service="bitbucket")["state"] == "closed"


def test_a_github_app_s_secret_opens_every_known_repository(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str]
) -> None:
    app_settings = {"url": "http://127.0.0.1:9", "app_id": 1, "private_key": "k", "webhook_secret": APP_SECRET}
    web = make_service(make_app, make_database_url())
    web.app.config["COVERAGE_PROVIDERS"] = {**web.app.config["COVERAGE_PROVIDERS"], "github": app_settings}
    post(web, event_of("acme", "widgets"), APP_SECRET, 200)
    post(web, event_of("evil", "tools"), APP_SECRET, 200)
    # A repository (or an installation's) the service does not know: nothing to change.
    assert "Ignored" in post(web, event_of("stranger", "repo"), APP_SECRET, 202).text
    assert pull(web)["state"] == pull(web, "evil", "tools")["state"] == "merged"


def test_the_service_wide_secret_signs_repository_hooks_only_when_opted_in(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str]
) -> None:
    web = make_service(make_app, make_database_url(), COVERAGE_WEBHOOK_SHARED_SECRET=True)
    post(web, event_of("acme", "widgets"), "service-wide", 200)


def test_a_replayed_delivery_changes_nothing(service: webtest.TestApp) -> None:
    secret = secret_of(service, "acme", "widgets")
    merged = event_of("acme", "widgets")
    post(service, merged, secret, 200, **{"X-GitHub-Delivery": "d-1"})
    reopened = event_of("acme", "widgets", action="reopened", merged=False, head=NEXT)
    post(service, reopened, secret, 200)
    assert pull(service)["state"] == "open"
    # The same delivery again, and the same signed body under a new delivery id: both ignored.
    for delivery in ("d-1", "d-2"):
        answer = post(service, merged, secret, 202, **{"X-GitHub-Delivery": delivery})
        assert answer.text == "Ignored: this delivery was received before.\n"
    # Another body under a delivery id already acted on.
    post(
        service, event_of("acme", "widgets", action="closed", merged=False), secret, 202, **{"X-GitHub-Delivery": "d-1"}
    )
    assert pull(service)["state"] == "open"


def test_deliveries_are_forgotten_after_the_window(service: webtest.TestApp) -> None:
    secret = secret_of(service, "acme", "widgets")
    post(service, event_of("acme", "widgets"), secret, 200)
    post(service, event_of("acme", "widgets", action="reopened", merged=False), secret, 200)
    with service.app.app_context(), get_engine().begin() as connection:
        old = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - DELIVERY_WINDOW - dt.timedelta(minutes=1)
        connection.execute(sa.update(WebhookDelivery).values(received_at=old))
    post(service, event_of("acme", "widgets", action="closed", merged=False), secret, 200)
    with service.app.app_context(), get_engine().begin() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(WebhookDelivery)).scalar() == 1


def test_a_deeply_nested_signed_body_is_a_400(service: webtest.TestApp) -> None:
    secret = secret_of(service, "acme", "widgets")
    for depth in (1_000, 100_000):
        body = b"[" * depth + b"]" * depth
        assert "not JSON" in post(service, body, secret, 400).text
    assert pull(service)["state"] == "open"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (("base", "ref"), "main\u202e", "branch"),
        (("base", "ref"), "a..b", "branch"),
        (("head", "ref"), "fast\x00", "branch"),
        (("base", "sha"), "not-a-sha", "not a commit sha"),
        (("head", "sha"), "3" * 20 + "\u202e" + "3" * 19, "not a commit sha"),
    ],
)
def test_a_pull_event_breaking_the_name_rules_is_refused_and_changes_nothing(
    service: webtest.TestApp, field: tuple[str, str], value: str, message: str
) -> None:
    event = json.loads(event_of("acme", "widgets"))
    event["pull_request"][field[0]][field[1]] = value
    answer = post(service, json.dumps(event).encode(), secret_of(service, "acme", "widgets"), 400)
    assert answer.text.startswith("Webhook refused: ") and message in answer.text
    assert (pull(service)["state"], pull(service)["title"]) == ("open", None)


def test_a_title_loses_its_bidirectional_and_control_characters(service: webtest.TestApp) -> None:
    event = json.loads(event_of("acme", "widgets"))
    event["pull_request"]["title"] = "Fix \u202eevil\u202c\tparser\u200b"
    post(service, json.dumps(event).encode(), secret_of(service, "acme", "widgets"), 200)
    assert pull(service)["title"] == "Fix evil parser"
    assert "\u202e" not in service.get("/gh/acme/widgets/pull/7").text


def test_the_cli_shows_and_rotates_a_repository_s_secret(service: webtest.TestApp) -> None:
    runner = service.app.test_cli_runner()
    shown = runner.invoke(args=["coverage", "webhook-secret", "github", "acme", "widgets"])
    assert shown.exit_code == 0, shown.output
    secret = shown.output.strip().removeprefix("webhook_secret=")
    assert secret == secret_of(service, "acme", "widgets")
    rotated = runner.invoke(args=["coverage", "rotate-token", "github", "acme", "widgets", "--webhook"])
    new = rotated.output.strip().removeprefix("webhook_secret=")
    assert rotated.exit_code == 0 and new != secret and new == secret_of(service, "acme", "widgets")
    both = runner.invoke(args=["coverage", "rotate-token", "github", "acme", "widgets", "--webhook", "--upload"])
    assert both.exit_code == 1 and secret_of(service, "acme", "widgets") == new


def test_a_delivery_id_no_database_should_keep_is_left_out_and_the_body_still_counts(service: webtest.TestApp) -> None:
    secret = secret_of(service, "acme", "widgets")
    post(service, event_of("acme", "widgets"), secret, 200, **{"X-GitHub-Delivery": "d\x7f\u202e"})
    post(service, event_of("acme", "widgets"), secret, 202, **{"X-GitHub-Delivery": "d\x7f\u202e"})
    assert pull(service)["state"] == "merged"
    with service.app.app_context(), get_engine().begin() as connection:
        assert connection.execute(sa.select(WebhookDelivery.delivery)).scalars().all() == [None]
