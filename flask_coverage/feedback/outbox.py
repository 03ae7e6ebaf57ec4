"""The durable outbox of feedback (docs/pull-requests.md, "Delivery").

An upload writes its commit's row in its own transaction (:func:`enqueue`), so the feedback owed is
committed with the coverage or not at all; the upload then only wakes the sender. A sender
(:mod:`.sender`: a thread per worker process, or ``flask coverage notify``) claims due rows with a
lease (:func:`claim`; ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so several workers share the outbox),
sends, and finishes them (:func:`finish`) or sets them to be retried later (:func:`retry`, with
backoff). A worker killed mid-send leaves a row whose lease runs out: another sender takes it.

No row can take every worker in turn (a poison row: a sending that kills or hangs its worker): a claim
counts as an attempt when it is taken, a sending has a time budget (``COVERAGE_FEEDBACK_BUDGET``, see
:func:`leased`), and a row whose sending never ended :data:`MAX_ABANDONED` times running is given up:
parked with its error shown, until the commit's next upload.

One row per commit: uploads in a burst re-arm the same row (``due_at`` ``COVERAGE_FEEDBACK_DELAY``
seconds after the last), so eight parallel uploads are sent once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

import sqlalchemy as sa
from flask import current_app, has_request_context, request
from sqlalchemy.exc import SQLAlchemyError

from ..models import Commit, FeedbackSent, Outbox, Pull, Repository, utcnow
from ..providers.http import budget, redact
from ..state import dialect_insert, execute, get_engine, get_session

#: After this many attempts a row is given up (parked, its error shown).
MAX_ATTEMPTS = 12
#: After this many claims running whose sending never ended (the lease ran out: the worker was
#: killed, or its sending outran the budget) a row is given up (parked, its error shown).
MAX_ABANDONED = 3

_OUTBOX = Outbox.__table__
log = logging.getLogger(__name__)


def wanted(repository: Repository) -> bool:
    """Whether uploads to ``repository`` owe feedback: a provider is configured for its service."""
    providers = current_app.config.get("COVERAGE_PROVIDERS") or {}
    return repository.owner.service.value in providers


def enqueue(commit_id: int) -> None:
    """Owe the commit its feedback, in the caller's transaction (an upload's): a new row, or the
    commit's row re-armed (due after the delay again, one generation on, waiting for a new
    ``upload-complete``)."""
    now = utcnow()
    due = now + dt.timedelta(seconds=current_app.config["COVERAGE_FEEDBACK_DELAY"])
    base_url = request.url_root if has_request_context() else None  # COVERAGE_PUBLIC_URL wins when sending
    statement = dialect_insert(_OUTBOX).values(commit_id=commit_id, due_at=due, base_url=base_url, generation=0)
    execute(
        statement.on_conflict_do_update(
            index_elements=["commit_id"],
            set_={
                "due_at": due,
                "generation": _OUTBOX.c.generation + 1,
                "triggered": False,
                "attempts": 0,
                "abandoned": 0,
                "base_url": sa.func.coalesce(statement.excluded.base_url, _OUTBOX.c.base_url),
            },
        )
    )


def enqueue_safely(commit_id: int) -> None:
    """:func:`enqueue` in a savepoint: if it fails (an outbox table not migrated yet), the upload goes
    on without feedback, and the error is logged."""
    try:
        with get_session().begin_nested():
            enqueue(commit_id)
    except SQLAlchemyError:
        log.exception("the feedback of commit %s could not be queued; the upload is kept", commit_id)


def trigger(commit_id: int) -> bool:
    """codecov-cli's ``upload-complete``: the commit's row is due now; ``False`` if it has none."""
    query = sa.update(Outbox).where(Outbox.commit_id == commit_id).values(triggered=True, due_at=utcnow())
    done = execute(query).rowcount
    get_session().commit()
    return bool(done)


def recheck(repository: Repository, sha: str) -> bool:
    """The host says the commit's CI changed: its row, if one waits for a time (the CI's re-check, a
    retry), is due now; a parked row stays parked. ``False`` if none waits."""
    commit_ids = sa.select(Commit.id).where(Commit.repository_id == repository.id, Commit.sha == sha)
    waiting = sa.and_(Outbox.commit_id.in_(commit_ids), Outbox.due_at.is_not(None))
    done = execute(sa.update(Outbox).where(waiting).values(due_at=utcnow())).rowcount
    get_session().commit()
    return bool(done)


@dataclass(frozen=True)
class Claim:
    """A row a sender holds: its commit and the generation it saw; ``attempts`` counts this one."""

    commit_id: int
    generation: int
    triggered: bool
    base_url: Optional[str]
    attempts: int
    lease_until: Optional[dt.datetime] = None


def claim(limit: int = 10) -> list[Claim]:
    """Due rows nobody holds (or whose holder's lease ran out), leased to this sender, committed.
    Taking a row counts an attempt; a row whose holder's lease ran out :data:`MAX_ABANDONED` times
    running is given up instead (parked, with an error saying so)."""
    now = utcnow()
    free = sa.or_(_OUTBOX.c.lease_until.is_(None), _OUTBOX.c.lease_until < now)
    columns = ("commit_id", "generation", "triggered", "base_url", "attempts", "abandoned", "lease_until")
    query = (
        sa.select(*(_OUTBOX.c[name] for name in columns))
        .where(_OUTBOX.c.due_at <= now, free)
        .order_by(_OUTBOX.c.due_at)
        .limit(limit)
    )
    if get_engine().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    lease = now + dt.timedelta(seconds=current_app.config["COVERAGE_FEEDBACK_LEASE"])
    claimed = []
    for row in execute(query).all():
        # A lease still set on a free row ran out: the sending it covered never ended.
        abandoned = row.abandoned + (row.lease_until is not None)
        values: dict[str, Any] = {"lease_until": lease, "attempts": row.attempts + 1, "abandoned": abandoned}
        if abandoned >= MAX_ABANDONED:
            error = (
                f"Given up: {abandoned} sendings of this commit's feedback never ended (a worker killed, or a "
                "sending past COVERAGE_FEEDBACK_BUDGET). The next upload of the commit tries again."
            )
            values = {"due_at": None, "lease_until": None, "abandoned": abandoned, "last_error": error}
            log.error("the feedback of commit %s is given up: %s", row.commit_id, error)
        # Taken only if still free: of two senders that read the same row, one updates it.
        taken = execute(sa.update(Outbox).where(Outbox.commit_id == row.commit_id, free).values(**values))
        if taken.rowcount == 1 and values["lease_until"] is not None:
            claimed.append(Claim(row.commit_id, row.generation, row.triggered, row.base_url, row.attempts + 1, lease))
    get_session().commit()
    return claimed


@contextlib.contextmanager
def leased(claim: Claim) -> Iterator[None]:
    """The block is one sending of the claim, within its time budget: ``COVERAGE_FEEDBACK_BUDGET``
    seconds, checked before each provider request (:func:`~flask_coverage.providers.http.budget`: a
    request past it fails as a retryable :class:`~flask_coverage.providers.ProviderError`, and none
    outlives it), the same in the sender thread and in ``flask coverage notify``. Meanwhile the lease is
    renewed every third of ``COVERAGE_FEEDBACK_LEASE``, by a thread of its own on a connection of its
    own (a short write, committed at once: the sending's session keeps no write open), so a sending
    longer than the lease is not taken over while its process lives; a killed process renews nothing,
    and neither does a sending past its budget (stuck between two requests: the row goes to another
    sender, an abandoned claim). A lease is renewed only while it is still the one this sender holds
    (finished, retried or taken over: left alone)."""
    length = dt.timedelta(seconds=current_app.config["COVERAGE_FEEDBACK_LEASE"])
    seconds = current_app.config["COVERAGE_FEEDBACK_BUDGET"]
    engine, stop, over = get_engine(), threading.Event(), time.monotonic() + seconds

    def renew() -> None:
        held = claim.lease_until
        while held is not None and not stop.wait(length.total_seconds() / 3) and time.monotonic() < over:
            later = utcnow() + length
            try:
                with engine.begin() as connection:
                    same = sa.and_(Outbox.commit_id == claim.commit_id, Outbox.lease_until == held)
                    renewed = connection.execute(sa.update(Outbox).where(same).values(lease_until=later)).rowcount
            except SQLAlchemyError:
                log.warning("the lease of commit %s's feedback could not be renewed", claim.commit_id, exc_info=True)
                continue
            held = later if renewed == 1 else None

    thread = threading.Thread(target=renew, name="coverage-feedback-lease", daemon=True)
    thread.start()
    try:
        with budget(seconds):
            yield
    finally:
        stop.set()
        thread.join()


def _same(claim: Claim) -> sa.ColumnElement[bool]:
    return sa.and_(Outbox.commit_id == claim.commit_id, Outbox.generation == claim.generation)


def finish(claim: Claim) -> None:
    """The row was sent: dropped, unless an upload re-armed it meanwhile (then only released)."""
    execute(sa.delete(Outbox).where(_same(claim)))
    execute(sa.update(Outbox).where(Outbox.commit_id == claim.commit_id).values(lease_until=None, abandoned=0))
    get_session().commit()


def park(claim: Claim) -> None:
    """The row waits for ``upload-complete`` (``manual_trigger``): released, not due, no attempt
    counted (a parked row with attempts is one given up)."""
    values = {"due_at": None, "lease_until": None, "attempts": 0, "abandoned": 0}
    execute(sa.update(Outbox).where(_same(claim)).values(**values))
    get_session().commit()


def give_up(claim: Claim, error: str) -> None:
    """The row is given up (parked, ``error`` shown) until the commit's next upload."""
    values = {"due_at": None, "lease_until": None, "abandoned": 0, "last_error": redact(error)[:2000]}
    execute(sa.update(Outbox).where(_same(claim)).values(**values))
    get_session().commit()


def retry(claim: Claim, error: str, after: Optional[float] = None) -> None:
    """Sending failed: due again after ``after`` seconds (a provider's ``Retry-After``) or the
    backoff of its attempts (``COVERAGE_FEEDBACK_BACKOFF``: doubling from the first wait), whichever
    is longer, but never after the longest wait; given up (parked, the error shown) after
    :data:`MAX_ATTEMPTS`."""
    first, longest = current_app.config["COVERAGE_FEEDBACK_BACKOFF"]
    wait = min(longest, max(after or 0, first * 2 ** (claim.attempts - 1)))
    values: dict[str, Any] = {
        "due_at": utcnow() + dt.timedelta(seconds=wait),
        "lease_until": None,
        "abandoned": 0,
        "last_error": redact(error)[:2000],  # any exception's text: redacted, then cut
    }
    if claim.attempts >= MAX_ATTEMPTS:
        values.update(due_at=None, last_error=redact(f"Given up after {claim.attempts} attempts: {error}")[:2000])
    execute(sa.update(Outbox).where(_same(claim)).values(**values))
    execute(sa.update(Outbox).where(Outbox.commit_id == claim.commit_id).values(lease_until=None))
    get_session().commit()


def next_due() -> Optional[dt.datetime]:
    """When a row can next be claimed: the earliest due time, or the end of the lease another sender
    holds it by (``None``: no row is waiting on time)."""
    free_at = sa.case((_OUTBOX.c.lease_until > _OUTBOX.c.due_at, _OUTBOX.c.lease_until), else_=_OUTBOX.c.due_at)
    return execute(sa.select(sa.func.min(free_at))).scalar()


@dataclass(frozen=True)
class Report:
    """What a commit's feedback came to: the row still owed (``None`` when none is), and per context
    what was sent, when, and the last error."""

    pending: Optional[Outbox]
    sent: list[FeedbackSent]


def report_of(commit_id: int) -> Report:
    pending = execute(sa.select(Outbox).where(Outbox.commit_id == commit_id)).scalar()
    sent = execute(
        sa.select(FeedbackSent).where(FeedbackSent.commit_id == commit_id).order_by(FeedbackSent.context)
    ).scalars()
    return Report(pending, list(sent))


# What was sent: a commit's ``coverage_feedback`` rows, one per context.

#: What was sent in a sending, ``(commit id, context, values)``: written after its last provider call,
#: so no write transaction is open while the provider is asked (on SQLite it would stop every upload).
Sent = list[tuple[int, str, dict[str, Any]]]


def record(commit_id: int, context: str, **values: Any) -> None:
    """Write ``values`` into the commit's row of ``context`` (made if missing)."""
    statement = dialect_insert(FeedbackSent.__table__).values(commit_id=commit_id, context=context, **values)
    execute(statement.on_conflict_do_update(index_elements=["commit_id", "context"], set_=values))


def failed(sent: Sent, commit_id: int, context: str, error: Exception) -> None:
    """What was sent, and ``context``'s error, recorded and committed (the row is retried)."""
    record_all(sent)
    record(commit_id, context, error=redact(str(error))[:2000], error_at=utcnow())
    get_session().commit()


def record_all(sent: Sent) -> None:
    """Write what was sent, and forget it."""
    for commit_id, context, values in sent:
        record(commit_id, context, **values)
    sent.clear()


def check_run_ids(commit_id: int) -> dict[str, Optional[str]]:
    """The contexts sent on the commit: the id of the check run that shows each, ``None`` for a
    commit status."""
    query = sa.select(FeedbackSent.context, FeedbackSent.check_run_id).where(
        FeedbackSent.commit_id == commit_id, FeedbackSent.sent_at.is_not(None)
    )
    return dict(execute(query).all())


def sent_digests(commit_id: int) -> dict[str, Optional[str]]:
    """The digest of the payload last sent under each context of the commit."""
    query = sa.select(FeedbackSent.context, FeedbackSent.digest).where(FeedbackSent.commit_id == commit_id)
    return dict(execute(query).all())


def keep_comment_id(pull_id: int, comment_id: str) -> None:
    """Keep the id of the pull's comment on the provider: the next sending edits that comment."""
    execute(sa.update(Pull).where(Pull.id == pull_id).values(comment_id=comment_id))
