"""Delivery: the outbox written with the upload, statuses and one comment sent after it through the
provider, coalesced, not resent unchanged, retried with backoff, leases, manual_trigger, what was sent
shown on the pages and in the API; no upload fails because feedback failed."""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from typing import Any, Optional

import pytest
import sqlalchemy as sa
import webtest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask

from flask_coverage import operations
from flask_coverage.feedback import outbox, sender
from flask_coverage.feedback.notify import send_due
from flask_coverage.ingest import UploadMeta, upload_report
from flask_coverage.models import Outbox, Pull, utcnow
from flask_coverage.providers import ProviderError, PullInfo
from flask_coverage.providers.github import GitHub
from flask_coverage.queries.repositories import find_repository
from flask_coverage.state import execute, get_engine, get_session
from tests.fake_provider import RecordingProvider
from tests.git_history import History, lcov
from tests.providers.fakes import Request, fake_host, later_wall_clock

BASE_REPORT = lcov({"app.py": {n: 1 for n in range(1, 11)}, "other.py": {1: 1}})
FIRST_REPORT = lcov({"app.py": {1: 1, 3: 1, 4: 0, 5: 1, 11: 1, 12: 1}, "other.py": {1: 1}})
SECOND_REPORT = lcov(
    {"app.py": {1: 1, 3: 1, 4: 0, 5: 1, 11: "partial", 12: 1}, "new.py": {1: 1, 2: 0}, "other.py": {1: 1}}
)


@pytest.fixture
def provider(app: Flask, mirrored: History) -> RecordingProvider:
    fake = RecordingProvider(
        pulls={7: PullInfo(7, "open", "A change", "main", mirrored.main, "feature", mirrored.second)}
    )
    app.config.update(
        COVERAGE_PROVIDERS={"github": fake},
        COVERAGE_FEEDBACK_SENDER=False,
        COVERAGE_FEEDBACK_DELAY=0,
        COVERAGE_PUBLIC_URL="https://coverage.example.com",
    )
    return fake


def upload(sha: str, report: bytes, **args: Any) -> None:
    upload_report("github/acme/widgets", report, commit=sha, **args)


def send_all() -> int:
    total = 0
    while handled := send_due():
        total += handled
    return total


def test_statuses_and_one_comment_created_then_edited(mirrored: History, provider: RecordingProvider) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    send_all()
    provider.calls.clear()
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    assert send_all() == 1
    url = "https://coverage.example.com/gh/acme/widgets/pull/7"
    assert provider.statuses[(mirrored.first, "codecov/project")] == {
        "state": "failure",
        "description": "85.71% (-14.29%) compared to " + mirrored.base[:7],
        "target_url": url,
    }
    assert provider.statuses[(mirrored.first, "codecov/patch")]["description"] == "75.00% of diff hit (target 100.00%)"
    assert [args[2] for args in provider.called("upsert_comment")] == [None]  # posted
    ((comment_id, (number, body)),) = provider.comments.items()
    assert number == 7 and body.startswith(f"## [Coverage report]({url}) for #7")
    assert "Patch coverage is `75.00%` with `1 line` in your changes missing coverage" in body

    upload(mirrored.second, SECOND_REPORT, branch="feature", pullid=7, parent=mirrored.first)
    send_all()
    assert [args[2] for args in provider.called("upsert_comment")] == [None, comment_id]  # then edited
    assert len(provider.comments) == 1
    assert provider.statuses[(mirrored.second, "codecov/patch")]["description"].startswith("50.00% of diff hit")
    assert (
        find_repository("github", "acme", "widgets")
        and get_session().execute(sa.select(Pull.comment_id)).scalar() == comment_id
    )


def test_a_burst_of_uploads_is_sent_once_and_unchanged_payloads_not_again(
    mirrored: History, provider: RecordingProvider
) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    for job in range(8):  # eight jobs of one CI run, one commit
        upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base, run_id=f"job{job}")
    provider.calls.clear()
    assert send_all() == 2  # the base's row and the pull's
    contexts = [args[1] for args in provider.called("set_status") if args[0] == mirrored.first]
    assert sorted(contexts) == ["codecov/patch", "codecov/project"]
    assert len(provider.called("upsert_comment")) == 1
    # The same coverage again (a retried job): owed again, but nothing changed, so nothing is sent.
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base, run_id="job9")
    provider.calls.clear()
    assert send_all() == 1
    assert not provider.called("set_status")
    assert not provider.called("upsert_comment")


def test_provider_errors_are_retried_with_backoff_and_shown(
    mirrored: History, provider: RecordingProvider, testapp: webtest.TestApp
) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    provider.failure = ProviderError("GitHub answered 502", status=502, retry_after=30)
    send_all()
    row = execute(sa.select(Outbox)).scalar_one()
    assert (row.attempts, row.last_error) == (1, "GitHub answered 502")
    assert row.due_at > utcnow() + dt.timedelta(seconds=25)  # Retry-After honoured
    page = testapp.get(f"/gh/acme/widgets/commit/{mirrored.base}")
    assert "1 failed attempts · last error: GitHub answered 502" in " ".join(
        page.html.find(id="coverage-feedback").get_text(" ").split()
    )
    api = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{mirrored.base}/feedback/").json
    assert api["pending"]["attempts"] == 1 and api["pending"]["last_error"] == "GitHub answered 502"
    assert api["sent"][0]["context"] == "codecov/project" and api["sent"][0]["error"] == "GitHub answered 502"
    # The provider is back; the row falls due.
    provider.failure = None
    execute(sa.update(Outbox).values(due_at=utcnow()))
    get_session().commit()
    assert send_all() == 1
    assert provider.statuses[(mirrored.base, "codecov/project")]["state"] == "success"
    api = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{mirrored.base}/feedback/").json
    assert api["pending"] is None
    assert {row["context"]: (row["state"], row["error"]) for row in api["sent"]} == {
        "codecov/patch": ("success", None),
        "codecov/project": ("success", None),
    }


def test_the_wait_before_a_retry_doubles_and_retry_after_counts_up_to_the_longest(
    app: Flask, mirrored: History, provider: RecordingProvider
) -> None:
    app.config["COVERAGE_FEEDBACK_BACKOFF"] = (2, 10)
    upload(mirrored.base, BASE_REPORT, branch="main")
    waits = []
    for retry_after in (0.0, 0.0, 5.0, 30.0):  # Retry-After 0 s, 0 s, 5 s, then an hour's worth
        provider.failure = ProviderError("GitHub answered 503", status=503, retry_after=retry_after)
        execute(sa.update(Outbox).values(due_at=utcnow()))
        get_session().commit()
        before = utcnow()
        send_all()
        waits.append(round((execute(sa.select(Outbox.due_at)).scalar() - before).total_seconds()))
    assert waits == [2, 4, 8, 10]  # the backoff, the backoff, the backoff over Retry-After, the longest


def test_a_refusal_is_not_retried_but_shown(mirrored: History, provider: RecordingProvider) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    provider.failure = ProviderError("GitHub answered 403: resource not accessible", status=403)
    send_all()
    assert execute(sa.select(Outbox)).first() is None
    api = outbox.report_of(execute(sa.text("SELECT id FROM coverage_commit")).scalar())
    assert api.sent[0].error == "GitHub answered 403: resource not accessible"


def test_an_abandoned_lease_is_taken_by_another_sender(mirrored: History, provider: RecordingProvider) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    (claim,) = outbox.claim()  # a worker takes the row, then is killed
    assert outbox.claim() == []  # nobody else takes it while the lease runs
    # ... and a sender sleeps until the lease runs out (not in a loop on the due time, long past).
    lease_until = execute(sa.select(Outbox.lease_until)).scalar()
    assert outbox.next_due() == lease_until > utcnow() + dt.timedelta(seconds=110)  # the 120 s default
    execute(sa.update(Outbox).values(lease_until=utcnow() - dt.timedelta(seconds=1)))
    get_session().commit()
    assert send_all() == 1
    assert (mirrored.base, "codecov/project") in provider.statuses
    assert execute(sa.select(Outbox)).first() is None


def test_an_upload_during_a_sending_keeps_the_row(mirrored: History, provider: RecordingProvider) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    (claim,) = outbox.claim()
    upload(mirrored.base, BASE_REPORT, branch="main", run_id="another")  # re-armed while being sent
    outbox.finish(claim)
    row = execute(sa.select(Outbox)).scalar_one()
    assert (row.generation, row.lease_until) == (1, None)


def test_manual_trigger_waits_for_upload_complete(
    mirrored: History, provider: RecordingProvider, testapp: webtest.TestApp
) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "codecov:\n  notify:\n    manual_trigger: true\n")
    upload(mirrored.base, BASE_REPORT, branch="main")
    send_all()
    assert not provider.called("set_status")
    assert execute(sa.select(Outbox.due_at)).scalar() is None  # parked
    token = find_repository("github", "acme", "widgets").upload_token
    answer = testapp.post_json(
        f"/upload/github/acme::::widgets/commits/{mirrored.base}/upload-complete",
        {},
        headers={"Authorization": f"token {token}"},
    ).json
    assert answer["result"] == "1 upload(s) of this commit merged; its statuses and comment are being sent."
    send_all()
    assert (mirrored.base, "codecov/project") in provider.statuses


def test_after_n_builds(mirrored: History, provider: RecordingProvider) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "codecov:\n  notify:\n    after_n_builds: 2\n")
    upload(mirrored.base, BASE_REPORT, branch="main")
    send_all()
    assert not provider.called("set_status")
    upload(mirrored.base, BASE_REPORT, branch="main", run_id="second")
    send_all()
    assert (mirrored.base, "codecov/project") in provider.statuses


@pytest.mark.parametrize(
    ("behavior", "expected"),
    [
        ("default", ["upsert_comment:1", "upsert_comment:None"]),  # the edit finds it gone: a new one
        ("once", ["upsert_comment:1"]),  # deleted by a user: left deleted
        ("new", ["delete_comment:1", "find_comment", "upsert_comment:None"]),  # deleted, none left: posted
        ("spammy", ["upsert_comment:None"]),
    ],
)
def test_comment_behaviors(mirrored: History, provider: RecordingProvider, behavior: str, expected: list[str]) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", f"comment:\n  behavior: {behavior}\n")
    upload(mirrored.base, BASE_REPORT, branch="main")
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    send_all()
    provider.comments.clear()  # a user deletes the comment
    provider.calls.clear()
    upload(mirrored.second, SECOND_REPORT, branch="feature", pullid=7, parent=mirrored.first)
    send_all()
    calls = [
        name if name == "find_comment" else f"{name}:{args[-1] if name == 'delete_comment' else args[2]}"
        for name, args in provider.calls
        if "comment" in name
    ]
    assert calls == expected


class PostLost(RecordingProvider):
    """A provider that posts the comment but whose answer is lost (a connection dropped after the
    request arrived; or the sender killed before it stored the id), while ``lose`` is set."""

    lose = True

    def upsert_comment(self, repository: Any, number: int, body: str, comment_id: Optional[str]) -> str:
        posted = super().upsert_comment(repository, number, body, comment_id)
        if self.lose and comment_id is None:
            raise ProviderError("github could not be reached for POST /comments (ProtocolError)")
        return posted


@pytest.mark.parametrize("behavior", ["default", "once", "new"])
def test_a_comment_whose_post_was_lost_is_found_by_its_marker_and_edited(
    app: Flask, mirrored: History, provider: RecordingProvider, behavior: str
) -> None:
    provider = PostLost(pulls=provider.pulls)
    app.config["COVERAGE_PROVIDERS"] = {"github": provider}
    operations.set_repository_yaml("github", "acme", "widgets", f"comment:\n  behavior: {behavior}\n")
    upload(mirrored.base, BASE_REPORT, branch="main")
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    send_all()
    (lost,) = provider.comments
    assert get_session().scalars(sa.select(Pull.comment_id)).one() is None  # its id never stored
    provider.lose = False
    provider.calls.clear()
    execute(sa.update(Outbox).values(due_at=utcnow()))  # the retry falls due
    get_session().commit()
    send_all()
    (number, body), *others = provider.comments.values()
    assert not others and number == 7 and body.endswith('[//]: # "flask-coverage comment on pull request 7"\n')
    found = provider.called("find_comment")
    assert found == [(7, '[//]: # "flask-coverage comment on pull request 7"')]
    if behavior == "new":  # the lost one deleted, one posted at the bottom
        assert provider.called("delete_comment") == [(7, lost)]
        assert [args[2] for args in provider.called("upsert_comment")] == [None]
    else:  # adopted and edited
        assert [args[2] for args in provider.called("upsert_comment")] == [lost]
    stored = get_session().scalars(sa.select(Pull.comment_id)).one()
    assert stored == next(iter(provider.comments))


def test_require_changes_and_comment_false(mirrored: History, provider: RecordingProvider) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "comment: false\n")
    upload(mirrored.base, BASE_REPORT, branch="main")
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
    send_all()
    assert not provider.called("upsert_comment") and provider.called("set_status")


def test_no_upload_fails_because_feedback_failed(
    app: Flask, mirrored: History, provider: RecordingProvider, testapp: webtest.TestApp
) -> None:
    token = find_repository("github", "acme", "widgets").upload_token
    execute(sa.text("DROP TABLE coverage_outbox"))  # a database not migrated yet
    get_session().commit()
    try:
        answer = testapp.post(f"/upload/v2?token={token}&commit={mirrored.base}&branch=main", BASE_REPORT)
        assert answer.status_code == 200
        assert testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{mirrored.base}/").json["totals"]["lines"] == 11
    finally:
        get_session().remove()
        Outbox.__table__.create(get_engine())


def test_the_background_sender_sends_after_the_upload(
    app: Flask, mirrored: History, provider: RecordingProvider, testapp: webtest.TestApp
) -> None:
    app.config["COVERAGE_FEEDBACK_SENDER"] = True
    token = find_repository("github", "acme", "widgets").upload_token
    try:
        testapp.post(f"/upload/v2?token={token}&commit={mirrored.base}&branch=main", BASE_REPORT)
        deadline = time.monotonic() + 10
        while (mirrored.base, "codecov/patch") not in provider.statuses and time.monotonic() < deadline:
            time.sleep(0.05)
        assert provider.statuses[(mirrored.base, "codecov/project")]["state"] == "success"
        assert any(thread.name == "coverage-feedback" for thread in threading.enumerate())
    finally:
        sender.stop(app)
    assert not any(thread.name == "coverage-feedback" for thread in threading.enumerate())


def test_notify_command_sends_what_is_due(mirrored: History, provider: RecordingProvider, runner: Any) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    result = runner.invoke(args=["coverage", "notify"])
    assert result.exit_code == 0, result.output
    assert result.output == "Sent the feedback of 1 commit(s).\n"
    assert (mirrored.base, "codecov/project") in provider.statuses


def test_no_write_is_left_open_while_the_provider_is_asked(mirrored: History, provider: RecordingProvider) -> None:
    """What a sending records is written after its last provider call: a write left open across the
    provider's answers would hold SQLite's write lock, and every upload would wait for GitHub."""
    engine = get_engine()
    open_writes: list[str] = []
    seen: list[tuple[str, list[str]]] = []

    def statement(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            open_writes.append(sql)

    def ended(conn: Any) -> None:
        open_writes.clear()

    for name in ("set_status", "upsert_comment"):
        call = getattr(provider, name)

        def asked(*args: Any, _name: str = name, _call: Any = call, **kwargs: Any) -> Any:
            seen.append((_name, list(open_writes)))
            return _call(*args, **kwargs)

        setattr(provider, name, asked)
    listeners = [("before_cursor_execute", statement), ("commit", ended), ("rollback", ended)]
    for event, listener in listeners:
        sa.event.listen(engine, event, listener)
    try:
        upload(mirrored.base, BASE_REPORT, branch="main")
        upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base)
        assert send_all() == 2
    finally:
        for event, listener in listeners:
            sa.event.remove(engine, event, listener)
    assert [name for name, _ in seen].count("set_status") == 4 and ("upsert_comment", []) in seen
    assert all(writes == [] for _, writes in seen), seen
    assert provider.statuses[(mirrored.first, "codecov/patch")]["state"] == "failure"


def test_flag_statuses_are_sent_for_the_flags_uploaded(mirrored: History, provider: RecordingProvider) -> None:
    # The owner's YAML (under the repository's and the commit's) turns them on for every flag.
    operations.set_owner_yaml(
        "github", "acme", "flag_management: {default_rules: {statuses: [{type: project, target: 90}]}}\n"
    )
    unit = UploadMeta.create(flags="unit")
    upload(mirrored.base, BASE_REPORT, branch="main", meta=unit)
    upload(mirrored.first, FIRST_REPORT, branch="feature", pullid=7, parent=mirrored.base, meta=unit)
    send_all()
    assert provider.statuses[(mirrored.first, "codecov/project/unit")] == {
        "state": "failure",
        "description": "85.71% (target 90.00%)",
        "target_url": "https://coverage.example.com/gh/acme/widgets/pull/7",
    }
    assert (mirrored.first, "codecov/project") in provider.statuses  # the defaults' statuses too


def test_the_comment_counts_the_indirect_changes(mirrored: History, provider: RecordingProvider) -> None:
    upload(mirrored.base, BASE_REPORT, branch="main")
    # other.py is not in the pull's diff, and its line 1 is missed now.
    report = FIRST_REPORT.replace(b"SF:other.py\nDA:1,1\n", b"SF:other.py\nDA:1,0\n")
    upload(mirrored.first, report, branch="feature", pullid=7, parent=mirrored.base)
    send_all()
    ((_, body),) = provider.comments.values()
    assert "1 file has indirect coverage changes (outside the diff)." in body
    assert provider.statuses[(mirrored.first, "codecov/project")]["state"] == "failure"


def test_a_sending_longer_than_its_lease_is_not_taken_over_while_it_lives(
    app: Flask, mirrored: History, provider: RecordingProvider
) -> None:
    """The lease is renewed while the sending runs: another sender asking after the first lease ran
    out gets nothing, and the statuses are sent once; the row is finished after."""
    app.config["COVERAGE_FEEDBACK_LEASE"] = 1.5
    upload(mirrored.base, BASE_REPORT, branch="main")
    taken: list[list[outbox.Claim]] = []
    set_status = provider.set_status

    def another_sender() -> None:
        with app.app_context():
            taken.append(outbox.claim())

    def slow(*args: Any, **kwargs: Any) -> None:
        if not taken:  # the first status: as long as the lease and more, then another sender asks
            first_lease_over = utcnow() + dt.timedelta(seconds=2.0)  # the claim was made before this call
            while utcnow() < first_lease_over:
                time.sleep(0.05)
            other = threading.Thread(target=another_sender)
            other.start()
            other.join()
        set_status(*args, **kwargs)

    provider.set_status = slow  # type: ignore[method-assign]
    assert send_all() == 1
    assert taken == [[]]
    assert sorted(context for _, context in provider.statuses) == ["codecov/patch", "codecov/project"]
    assert len(provider.called("set_status")) == 2
    assert execute(sa.select(Outbox)).first() is None  # finished


def test_a_row_whose_sending_never_ends_is_given_up_with_its_error(
    mirrored: History, provider: RecordingProvider, testapp: webtest.TestApp
) -> None:
    """A poison row (its sending kills the worker, or hangs it past the budget) does not take every
    worker in turn: a claim counts as an attempt when it is taken, and after MAX_ABANDONED claims that
    never ended the row is parked, its error shown, until the commit's next upload."""
    upload(mirrored.base, BASE_REPORT, branch="main")
    for attempt in range(1, outbox.MAX_ABANDONED + 1):
        (claim,) = outbox.claim()  # a worker takes the row, starts sending, and is killed
        assert claim.attempts == execute(sa.select(Outbox.attempts)).scalar() == attempt  # counted when taken
        execute(sa.update(Outbox).values(lease_until=utcnow() - dt.timedelta(seconds=1)))  # its lease runs out
        get_session().commit()
    assert send_all() == 0  # not taken again
    assert not provider.called("set_status")
    row = execute(sa.select(Outbox)).scalar_one()
    assert (row.due_at, row.lease_until, row.attempts) == (None, None, outbox.MAX_ABANDONED)
    assert row.last_error.startswith(f"Given up: {outbox.MAX_ABANDONED} sendings of this commit's feedback never ended")
    assert outbox.next_due() is None  # no sender wakes for it
    page = testapp.get(f"/gh/acme/widgets/commit/{mirrored.base}")
    shown = " ".join(page.html.find(id="coverage-feedback-pending").get_text(" ").split())
    assert (
        shown
        == f"Given up until the next upload · {outbox.MAX_ABANDONED} failed attempts · last error: {row.last_error}"
    )
    # The next upload of the commit owes it again, from no attempt.
    upload(mirrored.base, BASE_REPORT, branch="main", run_id="again")
    assert send_all() == 1
    assert provider.statuses[(mirrored.base, "codecov/project")]["state"] == "success"


def test_a_sending_past_its_budget_is_retried_and_its_lease_no_longer_renewed(
    app: Flask, mirrored: History, provider: RecordingProvider
) -> None:
    """``COVERAGE_FEEDBACK_BUDGET`` bounds a sending between its steps (each provider request), in the
    sender thread and in ``flask coverage notify`` alike, and a sending past it keeps no lease."""
    upload(mirrored.base, BASE_REPORT, branch="main")
    with fake_host() as host:
        app.config.update(COVERAGE_PROVIDERS={"github": GitHub({"url": host.url, "token": "ghp_" + "a" * 36})})
        app.config.update(COVERAGE_FEEDBACK_BUDGET=0, COVERAGE_FEEDBACK_LEASE=0.3)
        (claim,) = outbox.claim()
        held = execute(sa.select(Outbox.lease_until)).scalar()
        with outbox.leased(claim):
            time.sleep(0.3)  # two renewals' worth: none is made past the budget
            assert execute(sa.select(Outbox.lease_until)).scalar() == held
        get_session().commit()
        outbox.retry(claim, "released")
        execute(sa.update(Outbox).values(due_at=utcnow()))
        get_session().commit()
        assert send_due() == 1
    assert host.requests == []  # no request started past the budget
    row = execute(sa.select(Outbox)).scalar_one()
    assert row.attempts == 2 and row.last_error.startswith("github was not asked")
    assert row.last_error.endswith("the time budget ran out") and row.due_at > utcnow()


def test_a_rate_limited_installation_does_not_delay_anothers_feedback(
    app: Flask, mirrored: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One GitHub App, two installations: the first's rate limit holds its own rows (asked once, then
    not again until its reset) while the second's feedback goes; after the reset the first's goes."""
    operations.add_org("github", "umbrella")
    operations.add_repo("github", "umbrella", "gadgets")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with fake_host() as host:
        host.state["limited"] = True

        @host.route("GET", r"/repos/([^/]+)/[^/]+/installation")
        def installation(request: Request, match: re.Match[str]) -> Any:
            return 200, {"id": {"acme": 1, "umbrella": 2}[match[1]]}, {}

        @host.route("POST", r"/app/installations/(\d+)/access_tokens")
        def token(request: Request, match: re.Match[str]) -> Any:
            return 201, {"token": f"ghs_installation{match[1]}", "expires_at": "2099-01-01T00:00:00Z"}, {}

        @host.route("POST", r"/repos/[^/]+/[^/]+/statuses/\w+")
        def status(request: Request, match: re.Match[str]) -> Any:
            if host.state["limited"] and request.headers["Authorization"] == "Bearer ghs_installation1":
                reset = str(int(time.time()) + 3600)
                headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
                return 403, {"message": "API rate limit exceeded for installation ID 1."}, headers
            return 201, {}, {}

        app.config.update(
            COVERAGE_PROVIDERS={"github": {"url": host.url, "app_id": 1234, "private_key": pem.decode()}},
            COVERAGE_FEEDBACK_SENDER=False,
            COVERAGE_FEEDBACK_DELAY=0,
        )
        upload(mirrored.base, BASE_REPORT, branch="main")  # installation 1
        upload(mirrored.main, BASE_REPORT, branch="main")  # installation 1 again
        upload_report("github/umbrella/gadgets", BASE_REPORT, commit=mirrored.base, branch="main")  # installation 2

        def statuses_sent() -> list[tuple[str, int]]:
            return [
                (request.headers["Authorization"][-1:], request.path.count("/umbrella/"))
                for request in host.sent("POST")
                if "/statuses/" in request.path
            ]

        assert send_all() == 3
        first = statuses_sent()
        assert first.count(("1", 0)) == 1  # installation 1 asked once, not again while limited
        assert first.count(("2", 1)) == 2  # installation 2's project and patch statuses went
        waiting = execute(sa.select(Outbox).order_by(Outbox.commit_id)).scalars().all()
        assert len(waiting) == 2 and all(row.due_at > utcnow() + dt.timedelta(seconds=3500) for row in waiting)
        assert waiting[0].last_error == (
            f"github answered 403 to POST /repos/acme/widgets/statuses/{mirrored.base}: rate limited"
            " (API rate limit exceeded for installation ID 1.)"
        )
        assert waiting[1].last_error.startswith("github rate limits this credential for 36")  # not asked
        # The reset passes, and the host answers normally again: installation 1's rows go.
        host.state["limited"] = False
        later_wall_clock(monkeypatch, 3660)
        execute(sa.update(Outbox).values(due_at=utcnow()))
        get_session().commit()
        assert send_all() == 2
        assert statuses_sent()[len(first) :].count(("1", 0)) == 4  # two commits, two statuses each
    assert execute(sa.select(Outbox)).first() is None


def test_a_token_a_provider_echoes_is_not_shown_in_the_last_error(
    app: Flask, mirrored: History, testapp: webtest.TestApp
) -> None:
    """The provider's error text is redacted, then cut: the commit page's "Last error" (shown to
    anonymous visitors of a public repository) and the outbox's keep nothing of an echoed token."""
    echoed = "ghs_" + "Q1w2E3r4" * 4 + "T5y6"
    with fake_host() as host:

        @host.route("POST", r"/repos/[^/]+/[^/]+/statuses/\w+")
        def status(request: Request, match: re.Match[str]) -> Any:
            return 502, {"message": "z" * 185 + f" token {echoed} is not allowed here"}, {}

        app.config.update(COVERAGE_PROVIDERS={"github": {"url": host.url, "token": "ghp_" + "a" * 36, "timeout": 5}})
        app.config.update(COVERAGE_FEEDBACK_SENDER=False, COVERAGE_FEEDBACK_DELAY=0)
        upload(mirrored.base, BASE_REPORT, branch="main")
        assert send_all() == 1
    last_error = execute(sa.select(Outbox.last_error)).scalar()
    assert last_error.startswith("github answered 502 to POST") and last_error.endswith(" token [redacte)")
    page = testapp.get(f"/gh/acme/widgets/commit/{mirrored.base}").html.find(id="coverage-feedback").get_text(" ")
    assert "Last error" in page and "github answered 502" in page
    assert not any(echoed[:length] in page for length in range(4, len(echoed) + 1))
