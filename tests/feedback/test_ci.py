"""``codecov.require_ci_to_pass`` and ``codecov.notify.wait_for_ci``: statuses held (pending) while the
commit's CI runs and sent once it passed, set to ``if_ci_failed`` once it failed, re-checked with
backoff and given up after Codecov's number of re-checks; the providers' CI read through their APIs."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.errors import InvalidInput
from flask_coverage.feedback.notify import CI_FIRST_WAIT, CI_RECHECKS, CI_TIMED_OUT, send_due
from flask_coverage.feedback.statuses import CI_FAILED, WAITING_FOR_CI
from flask_coverage.ingest import upload_report
from flask_coverage.models import Outbox, Repository, ServiceEnum, utcnow
from flask_coverage.providers import PullInfo, combined_ci
from flask_coverage.providers.webhooks import ci_event
from flask_coverage.state import execute, get_session
from tests.fake_provider import RecordingProvider
from tests.git_history import History, lcov
from tests.providers.fakes import fake_host

BASE_REPORT = lcov({"app.py": {n: 1 for n in range(1, 11)}, "other.py": {1: 1}})
FIRST_REPORT = lcov({"app.py": {1: 1, 3: 1, 4: 0, 5: 1, 11: 1, 12: 1}, "other.py": {1: 1}})


@dataclass
class CiProvider(RecordingProvider):
    """The recording fake with the CI capability: ``ci`` is what it says of every commit."""

    ci: str = "running"

    def ci_state(self, repository: Repository, sha: str) -> Any:
        self._call("ci_state", sha)
        return self.ci


@pytest.fixture
def provider(app: Flask, mirrored: History) -> CiProvider:
    fake = CiProvider(pulls={7: PullInfo(7, "open", "A change", "main", mirrored.main, "feature", mirrored.second)})
    app.config.update(
        COVERAGE_PROVIDERS={"github": fake},
        COVERAGE_FEEDBACK_SENDER=False,
        COVERAGE_FEEDBACK_DELAY=0,
        COVERAGE_PUBLIC_URL="https://coverage.example.com",
    )
    return fake


def send_now() -> int:
    """The commit's row made due now (as its backoff would), and sent."""
    execute(sa.update(Outbox).where(Outbox.due_at.is_not(None)).values(due_at=utcnow()))
    get_session().commit()
    return send_due()


def pull_head(mirrored: History, provider: CiProvider) -> None:
    provider.ci = "passed"
    upload_report("github/acme/widgets", BASE_REPORT, commit=mirrored.base, branch="main")
    send_due()
    provider.calls.clear()
    provider.ci = "running"
    upload_report(
        "github/acme/widgets", FIRST_REPORT, commit=mirrored.first, branch="feature", pullid=7, parent=mirrored.base
    )


def states(provider: CiProvider, sha: str) -> dict[str, tuple[str, str]]:
    return {context: (s["state"], s["description"]) for (at, context), s in provider.statuses.items() if at == sha}


def test_statuses_are_held_while_ci_runs_and_sent_when_it_passes(mirrored: History, provider: CiProvider) -> None:
    pull_head(mirrored, provider)
    assert send_due() == 1
    held = {"codecov/project": ("pending", WAITING_FOR_CI), "codecov/patch": ("pending", WAITING_FOR_CI)}
    assert states(provider, mirrored.first) == held
    assert provider.called("upsert_comment") == []  # no comment while CI runs
    row = execute(sa.select(Outbox)).scalar_one()
    assert row.due_at is not None and row.last_error == "waiting for the commit's CI to finish"
    assert round((row.due_at - utcnow()).total_seconds()) == CI_FIRST_WAIT  # re-checked later, not now
    send_now()  # still running: nothing sent again, the next wait doubled
    assert len(provider.called("set_status")) == 2
    row = execute(sa.select(Outbox)).scalar_one()
    assert round((row.due_at - utcnow()).total_seconds()) == 2 * CI_FIRST_WAIT

    provider.ci = "passed"
    send_now()
    assert states(provider, mirrored.first) == {
        "codecov/project": ("failure", "85.71% (-14.29%) compared to " + mirrored.base[:7]),
        "codecov/patch": ("failure", "75.00% of diff hit (target 100.00%)"),
    }
    assert [args[0] for args in provider.called("upsert_comment")] == [7]
    assert execute(sa.select(Outbox)).scalar() is None  # done
    assert [args[0] for args in provider.called("ci_state")] == [mirrored.first] * 3


def test_a_failed_ci_sets_the_held_statuses_to_if_ci_failed_and_sends_no_comment(
    mirrored: History, provider: CiProvider
) -> None:
    yaml = "coverage:\n  status:\n    project:\n      default:\n        if_ci_failed: failure\n    patch:\n"
    yaml += "      default:\n        informational: true\n    changes: true\n"
    operations.set_repository_yaml("github", "acme", "widgets", yaml)
    pull_head(mirrored, provider)
    send_due()
    assert set(states(provider, mirrored.first)) == {"codecov/project", "codecov/patch", "codecov/changes"}
    provider.ci = "failed"
    send_now()
    assert states(provider, mirrored.first) == {
        "codecov/project": ("failure", CI_FAILED),  # its if_ci_failed
        "codecov/patch": ("success", CI_FAILED),  # informational
        "codecov/changes": ("error", CI_FAILED),  # Codecov's default if_ci_failed
    }
    assert provider.called("upsert_comment") == []
    assert execute(sa.select(Outbox)).scalar() is None


def test_a_failed_ci_sends_nothing_not_already_on_the_commit(mirrored: History, provider: CiProvider) -> None:
    pull_head(mirrored, provider)
    provider.ci = "failed"
    send_due()
    assert states(provider, mirrored.first) == {}
    assert provider.called("upsert_comment") == []


def test_require_ci_to_pass_false_sends_as_usual_when_ci_failed(mirrored: History, provider: CiProvider) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "codecov:\n  require_ci_to_pass: false\n")
    pull_head(mirrored, provider)
    provider.ci = "failed"
    send_due()
    assert states(provider, mirrored.first)["codecov/patch"] == ("failure", "75.00% of diff hit (target 100.00%)")
    assert len(provider.called("upsert_comment")) == 1


def test_wait_for_ci_false_sends_at_once(mirrored: History, provider: CiProvider) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "codecov:\n  notify:\n    wait_for_ci: false\n")
    pull_head(mirrored, provider)
    send_due()
    assert states(provider, mirrored.first)["codecov/patch"] == ("failure", "75.00% of diff hit (target 100.00%)")
    assert execute(sa.select(Outbox)).scalar() is None


def test_both_off_the_ci_is_not_asked(mirrored: History, provider: CiProvider) -> None:
    yaml = "codecov:\n  require_ci_to_pass: false\n  notify:\n    wait_for_ci: false\n"
    operations.set_repository_yaml("github", "acme", "widgets", yaml)
    pull_head(mirrored, provider)
    send_due()
    assert provider.called("ci_state") == []
    assert states(provider, mirrored.first)["codecov/patch"][0] == "failure"


def test_a_ci_that_never_finishes_is_given_up_after_codecovs_re_checks(
    app: Flask, mirrored: History, provider: CiProvider
) -> None:
    app.config["COVERAGE_FEEDBACK_BACKOFF"] = (1, 10**6)  # Codecov's own waits, not capped
    pull_head(mirrored, provider)
    waits = []
    for _ in range(CI_RECHECKS):
        before = utcnow()
        send_now()
        waits.append(round((execute(sa.select(Outbox.due_at)).scalar() - before).total_seconds()))
    assert waits == [CI_FIRST_WAIT * 2**n for n in range(CI_RECHECKS)]
    send_now()
    row = execute(sa.select(Outbox)).scalar_one()
    assert row.due_at is None and row.last_error == CI_TIMED_OUT  # parked, shown
    assert len(provider.called("ci_state")) == CI_RECHECKS + 1
    assert {state for state, _ in states(provider, mirrored.first).values()} == {"pending"}  # nothing more sent
    assert send_now() == 0
    upload_report(
        "github/acme/widgets", FIRST_REPORT, commit=mirrored.first, branch="feature", pullid=7, run_id="again"
    )
    provider.ci = "passed"
    send_due()  # the next upload tries again
    assert states(provider, mirrored.first)["codecov/patch"][0] == "failure"


def test_the_services_own_statuses_are_not_the_ci() -> None:
    assert combined_ci([("codecov/project", None), ("ci/build", True)]) == "passed"
    assert combined_ci([("Codecov/patch", False), ("lint", None)]) == "running"
    assert combined_ci([("lint", None), ("test", False)]) == "failed"
    assert combined_ci([]) == "passed"


# -- the host's CI events re-check at once ------------------------------------------------------

SECRET = "webhook-secret"  # noqa: S105 - the test's


def signed(body: bytes) -> str:
    return "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()


def test_a_ci_event_re_checks_the_waiting_commit_at_once(
    app: Flask, mirrored: History, testapp: webtest.TestApp
) -> None:
    with fake_host() as github:
        state = {"ci": "pending"}
        github.route("GET", r"/commits/[0-9a-f]{40}/status")(
            lambda request, match: (200, {"statuses": [{"context": "ci/build", "state": state["ci"]}]}, {})
        )
        github.route("POST", r"/statuses/[0-9a-f]{40}")(lambda request, match: (201, {}, {}))
        settings = {"url": github.url, "token": "ghp_" + "t" * 36, "webhook_secret": SECRET}
        app.config.update(
            COVERAGE_PROVIDERS={"github": settings},
            COVERAGE_WEBHOOK_SHARED_SECRET=True,
            COVERAGE_FEEDBACK_SENDER=False,
            COVERAGE_FEEDBACK_DELAY=0,
        )
        upload_report("github/acme/widgets", BASE_REPORT, commit=mirrored.base, branch="main")
        send_due()
        sent = [request.body for request in github.sent("POST")]
        assert {(body["context"], body["state"]) for body in sent} == {
            ("codecov/project", "pending"),
            ("codecov/patch", "pending"),
        }
        assert send_due() == 0  # due in 15 s

        state["ci"] = "success"
        body = json.dumps({"sha": mirrored.base, "state": "success", "repository": {"full_name": "acme/widgets"}})
        headers = {"X-GitHub-Event": "status", "X-GitHub-Delivery": "d1", "X-Hub-Signature-256": signed(body.encode())}
        answer = testapp.post("/webhooks/github", body, headers=headers, content_type="application/json")
        assert answer.status_code == 200 and answer.text == f"The CI of {mirrored.base[:12]} is checked again.\n"
        assert send_due() == 1  # due now
        assert {request.body["state"] for request in github.sent("POST")[2:]} == {"success"}

        # Nothing waits any more: the next event changes nothing.
        body = json.dumps({"sha": mirrored.base, "id": 2, "repository": {"full_name": "acme/widgets"}})
        headers.update({"X-GitHub-Delivery": "d2", "X-Hub-Signature-256": signed(body.encode())})
        answer = testapp.post("/webhooks/github", body, headers=headers, content_type="application/json", status=202)
        assert answer.text == f"Ignored: no feedback of {mirrored.base[:12]} waits.\n"


@pytest.mark.parametrize(
    ("service", "headers", "payload"),
    [
        (
            ServiceEnum.github,
            {"X-GitHub-Event": "check_suite"},
            {"action": "completed", "check_suite": {"head_sha": "A" * 40}},
        ),
        (ServiceEnum.gitlab, {}, {"object_kind": "pipeline", "object_attributes": {"sha": "a" * 40}}),
        (
            ServiceEnum.bitbucket,
            {"X-Event-Key": "repo:commit_status_updated"},
            {"commit_status": {"commit": {"hash": "a" * 40}}},
        ),
    ],
)
def test_each_hosts_ci_event_names_its_commit(service: ServiceEnum, headers: dict[str, str], payload: Any) -> None:
    assert ci_event(service, headers, payload) == "a" * 40


def test_other_events_are_not_ci_events_and_a_ci_event_without_a_sha_is_refused() -> None:
    requested = {"action": "requested", "check_suite": {"head_sha": "a" * 40}}
    assert ci_event(ServiceEnum.github, {"X-GitHub-Event": "check_suite"}, requested) is None  # not finished
    assert ci_event(ServiceEnum.github, {"X-GitHub-Event": "pull_request"}, {}) is None
    with pytest.raises(InvalidInput, match="names no commit"):
        ci_event(ServiceEnum.github, {"X-GitHub-Event": "status"}, {"sha": "../../etc"})
