"""Slack and webhook notifiers (``coverage.notify``): their payloads received by a recording server on
loopback (allowed by the test's config), sent once, filtered by Codecov's keys; a private address, a
redirect to another host and a 5xx refused or retried, with the URL's secret kept out of every error."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask

from flask_coverage import operations
from flask_coverage.feedback.notify import send_due
from flask_coverage.ingest import upload_report
from flask_coverage.models import FeedbackSent, Outbox, utcnow
from flask_coverage.providers import PullInfo
from flask_coverage.state import execute, get_session
from tests.fake_provider import RecordingProvider
from tests.git_history import History, lcov
from tests.providers.fakes import FakeHost, fake_host

BASE = {"app.py": {n: 1 for n in range(1, 11)}, "other.py": {1: 1}}
HEAD = {"app.py": {1: 1, 3: 1, 4: 0, 5: 1, 11: 1, 12: 1}, "other.py": {1: 1}}
SECRET_PATH = "/services/T0001/B0002/k3yk3yk3yk3y"


def percent(report: dict[str, dict[int, Any]], paths: tuple[str, ...] = ("app.py", "other.py")) -> Decimal:
    lines = [hit for path in paths for hit in report[path].values()]
    return Decimal(sum(1 for hit in lines if hit)) * 100 / len(lines)


@pytest.fixture
def hook() -> Iterator[FakeHost]:
    with fake_host() as host:
        host.route("POST", r"/services/.*")(lambda request, match: (200, b"ok", {}))
        host.route("POST", r"/hook")(lambda request, match: (200, b"", {}))
        yield host


@pytest.fixture
def provider(app: Flask, mirrored: History) -> RecordingProvider:
    fake = RecordingProvider(
        pulls={7: PullInfo(7, "open", "A change", "main", mirrored.main, "feature", mirrored.first)}
    )
    app.config.update(
        COVERAGE_PROVIDERS={"github": fake},
        COVERAGE_FEEDBACK_SENDER=False,
        COVERAGE_FEEDBACK_DELAY=0,
        COVERAGE_PUBLIC_URL="https://coverage.example.com",
        COVERAGE_NOTIFY_ALLOWED_NETWORKS=["127.0.0.1/32"],
    )
    return fake


def notify_yaml(slack: str, webhook: str, extra: str = "") -> None:
    yaml = f"coverage:\n  notify:\n    slack:\n      default:\n        url: {slack}\n{extra}"
    yaml += f"    webhook:\n      default:\n        url: {webhook}\n{extra}"
    operations.set_repository_yaml("github", "acme", "widgets", yaml)


def upload_pull(mirrored: History) -> None:
    upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
    send_due()
    upload_report(
        "github/acme/widgets", lcov(HEAD), commit=mirrored.first, branch="feature", pullid=7, parent=mirrored.base
    )
    send_due()


def test_webhook_and_slack_payloads_are_received_once(
    mirrored: History, provider: RecordingProvider, hook: FakeHost
) -> None:
    notify_yaml(hook.url + SECRET_PATH, hook.url + "/hook")
    upload_pull(mirrored)
    slack = [r for r in hook.sent("POST") if r.route == SECRET_PATH]
    webhook = [r for r in hook.sent("POST") if r.route == "/hook"]
    assert len(slack) == 2 and len(webhook) == 2  # the base's, then the pull head's
    body = webhook[1].body
    head, base = percent(HEAD), percent(BASE)
    assert body["head"]["commitid"] == mirrored.first and body["base"]["commitid"] == mirrored.base
    assert body["head"]["branch"] == "feature" and body["pull"] == {"id": 7}
    assert body["head"]["totals"]["coverage"] == float(round(head, 5))
    assert body["head"]["totals"]["lines"] == 7 and body["head"]["totals"]["misses"] == 1
    assert body["compare"] == {
        "url": "https://coverage.example.com/gh/acme/widgets/pull/7",
        "message": "decreased",
        "coverage": float(round(base - head, 5)),
        "notation": "-",
    }
    assert body["owner"] == {"username": "acme", "service_id": None, "service": "github"}
    assert body["repo"]["name"] == "widgets" and body["repo"]["url"] == "https://coverage.example.com/gh/acme/widgets"
    assert body["head"]["service_url"] == f"https://github.com/acme/widgets/commit/{mirrored.first}"
    text = slack[1].body["text"]
    assert f"`<https://coverage.example.com/gh/acme/widgets/pull/7|-{base - head:.2f}%>`" in text
    assert text.startswith("Coverage for <https://coverage.example.com/gh/acme/widgets|acme/widgets> *decreased*")
    assert f"on `feature` is `{head:.2f}%`" in text
    assert (
        slack[0]
        .body["text"]
        .endswith(
            f"is `100.00%` via `<https://coverage.example.com/gh/acme/widgets/commit/{mirrored.base}|{mirrored.base[:7]}>`"
        )
    )

    upload_report("github/acme/widgets", lcov(HEAD), commit=mirrored.first, branch="feature", pullid=7, run_id="again")
    send_due()
    assert len(hook.sent("POST")) == 4  # an unchanged payload is not sent again


@pytest.mark.parametrize(
    ("extra", "sent_for_head"),
    [
        ("        only_pulls: true\n", 1),  # the base (no pull) gets none
        ("        branches: [main]\n", 0),
        ("        threshold: 20%\n", 0),  # moved by 14.29 only
        ("        threshold: 10%\n", 1),
        ("        flags: [unit]\n", 1),  # a flag nobody uploaded: nothing to compare, so no threshold
    ],
)
def test_codecovs_keys_choose_which_commits_notify(
    mirrored: History, provider: RecordingProvider, hook: FakeHost, extra: str, sent_for_head: int
) -> None:
    notify_yaml(hook.url + SECRET_PATH, hook.url + "/hook", extra)
    upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
    send_due()
    at_base = len([r for r in hook.sent("POST") if r.route == "/hook"])
    assert at_base == (0 if "only_pulls" in extra else 1)
    upload_report(
        "github/acme/widgets", lcov(HEAD), commit=mirrored.first, branch="feature", pullid=7, parent=mirrored.base
    )
    send_due()
    assert len([r for r in hook.sent("POST") if r.route == "/hook"]) - at_base == sent_for_head


def test_paths_narrow_the_coverage_a_notifier_reports(
    mirrored: History, provider: RecordingProvider, hook: FakeHost
) -> None:
    notify_yaml(hook.url + SECRET_PATH, hook.url + "/hook", "        paths: [other.py]\n")
    upload_pull(mirrored)
    body = [r for r in hook.sent("POST") if r.route == "/hook"][-1].body
    assert body["head"]["totals"]["lines"] == 1 and body["compare"]["message"] == "no change"


def feedback_error(context: str) -> str:
    row = execute(sa.select(FeedbackSent).where(FeedbackSent.context == context)).scalar_one()
    return str(row.error)


def test_a_private_address_is_refused_unless_allowed(
    app: Flask, mirrored: History, provider: RecordingProvider, hook: FakeHost
) -> None:
    app.config["COVERAGE_NOTIFY_ALLOWED_NETWORKS"] = []
    notify_yaml(hook.url + SECRET_PATH, hook.url + "/hook")
    upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
    send_due()
    assert hook.requests == []  # never reached
    error = feedback_error("slack/default")
    assert "127.0.0.1, an address of a private, loopback or reserved network: not sent" in error
    assert "k3yk3y" not in error
    assert execute(sa.select(Outbox)).scalar() is None  # a refusal is not retried: the error is shown
    assert (mirrored.base, "codecov/project") in provider.statuses  # the statuses went


@pytest.mark.parametrize(
    "url", ["http://10.0.0.5/hook", "http://169.254.169.254/latest", "http://[::1]/hook", "http://[::ffff:127.0.0.1]/x"]
)
def test_private_link_local_and_loopback_literals_are_refused(
    app: Flask, mirrored: History, provider: RecordingProvider, url: str
) -> None:
    app.config["COVERAGE_NOTIFY_ALLOWED_NETWORKS"] = []
    operations.set_repository_yaml(
        "github", "acme", "widgets", f"coverage:\n  notify:\n    webhook:\n      w:\n        url: '{url}'\n"
    )
    upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
    send_due()
    assert "an address of a private, loopback or reserved network: not sent" in feedback_error("webhook/w")


def fake_dns(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> None:
    real = socket.getaddrinfo

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in answers:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in answers[host]]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_every_address_of_a_name_is_checked(
    app: Flask, mirrored: History, provider: RecordingProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.config["COVERAGE_NOTIFY_ALLOWED_NETWORKS"] = []
    fake_dns(monkeypatch, {"hooks.example.test": ["93.184.216.34", "10.1.2.3"]})
    operations.set_repository_yaml(
        "github",
        "acme",
        "widgets",
        "coverage:\n  notify:\n    webhook:\n      w:\n        url: http://hooks.example.test/x\n",
    )
    upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
    send_due()
    assert "hooks.example.test is 10.1.2.3" in feedback_error("webhook/w")


def test_the_connection_goes_to_the_checked_address_not_a_second_lookup(
    app: Flask, mirrored: History, provider: RecordingProvider, hook: FakeHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name resolves once to the allowed loopback; a second lookup would answer an address nobody
    # serves (a rebinding DNS server): the payload still arrives, so the checked address was used.
    answers = iter([["127.0.0.1"]] + [["10.9.9.9"]] * 10)
    real = socket.getaddrinfo

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.example.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in next(answers)]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    port = hook.url.rsplit(":", 1)[1]
    operations.set_repository_yaml(
        "github",
        "acme",
        "widgets",
        f"coverage:\n  notify:\n    webhook:\n      w:\n        url: http://hooks.example.test:{port}/hook\n",
    )
    upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
    send_due()
    (request,) = hook.sent("POST")
    assert request.headers["Host"] == f"hooks.example.test:{port}"


def test_a_host_name_can_be_allowed(app: Flask, mirrored: History, provider: RecordingProvider, hook: FakeHost) -> None:
    app.config["COVERAGE_NOTIFY_ALLOWED_NETWORKS"] = ["localhost"]
    port = hook.url.rsplit(":", 1)[1]
    operations.set_repository_yaml(
        "github",
        "acme",
        "widgets",
        f"coverage:\n  notify:\n    webhook:\n      w:\n        url: http://localhost:{port}/hook\n",
    )
    upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
    send_due()
    assert len(hook.sent("POST")) == 1


def test_a_redirect_to_another_host_is_not_followed(
    mirrored: History, provider: RecordingProvider, hook: FakeHost
) -> None:
    with fake_host() as elsewhere:
        hook.routes.insert(
            0, ("POST", re.compile(r"/hook$"), lambda r, m: (307, b"", {"Location": elsewhere.url + "/x"}))
        )
        notify_yaml(hook.url + SECRET_PATH, hook.url + "/hook")
        upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
        send_due()
        assert elsewhere.requests == []
    assert "to another host (127.0.0.1): not followed" in feedback_error("webhook/default")


def test_a_5xx_is_retried_and_the_urls_secret_kept_out_of_the_error(
    mirrored: History, provider: RecordingProvider, hook: FakeHost
) -> None:
    answers = iter([(503, {"message": f"down, see {SECRET_PATH}"}, {})] * 3 + [(200, b"ok", {})] * 10)
    hook.routes.insert(0, ("POST", re.compile(r"/services/.*$"), lambda r, m: next(answers)))
    notify_yaml(hook.url + SECRET_PATH, hook.url + "/hook")
    upload_report("github/acme/widgets", lcov(BASE), commit=mirrored.base, branch="main")
    send_due()
    error = feedback_error("slack/default")
    assert "answered 503" in error and "k3yk3y" not in error and "T0001" not in error
    row = execute(sa.select(Outbox)).scalar_one()
    assert row.due_at is not None and "k3yk3y" not in str(row.last_error)  # to be retried
    execute(sa.update(Outbox).values(due_at=utcnow()))
    get_session().commit()
    send_due()
    assert [r.route for r in hook.sent("POST")].count(SECRET_PATH) == 4  # 3 answered 503, then sent
    assert feedback_error("slack/default") == "None"
    assert execute(sa.select(Outbox)).scalar() is None


def test_bad_allowed_networks_are_refused_at_start() -> None:
    from flask_coverage.providers.addresses import AllowedNetworks

    with pytest.raises(ValueError, match="'not a host!' is not a host name or a network"):
        AllowedNetworks.parse(["10.0.0.0/8", "not a host!"])
    with pytest.raises(ValueError, match="must be a list"):
        AllowedNetworks.parse("10.0.0.0/8")  # type: ignore[arg-type]
