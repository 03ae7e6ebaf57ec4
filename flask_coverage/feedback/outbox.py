"""The durable outbox of feedback (docs/pull-requests.md, "Delivery").

An upload writes its commit's row in its own transaction (:func:`enqueue`), so the feedback owed is
committed with the coverage or not at all; the upload then only wakes the sender. A sender
(:mod:`.sender`: a thread per worker process, or ``flask coverage notify``) claims due rows with a
lease (:func:`claim`; ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so several workers share the outbox),
sends, and finishes them (:func:`finish`) or sets them to be retried later (:func:`retry`, with
backoff). A worker killed mid-send leaves a row whose lease runs out: another sender takes it.

One row per commit: uploads in a burst re-arm the same row (``due_at`` ``COVERAGE_FEEDBACK_DELAY``
seconds after the last), so eight parallel uploads are sent once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

import sqlalchemy as sa
from flask import current_app, has_request_context, request
from sqlalchemy.exc import SQLAlchemyError

from ..models import FeedbackSent, Outbox, Pull, Repository, utcnow
from ..state import dialect_insert, execute, get_engine, get_session

#: After this many failed attempts a row is given up (its error stays shown).
MAX_ATTEMPTS = 12

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


@dataclass(frozen=True)
class Claim:
    """A row a sender holds: its commit and the generation it saw."""

    commit_id: int
    generation: int
    triggered: bool
    base_url: Optional[str]
    attempts: int
    lease_until: Optional[dt.datetime] = None


def claim(limit: int = 10) -> list[Claim]:
    """Due rows nobody holds (or whose holder's lease ran out), leased to this sender, committed."""
    now = utcnow()
    free = sa.or_(_OUTBOX.c.lease_until.is_(None), _OUTBOX.c.lease_until < now)
    query = (
        sa.select(
            _OUTBOX.c.commit_id, _OUTBOX.c.generation, _OUTBOX.c.triggered, _OUTBOX.c.base_url, _OUTBOX.c.attempts
        )
        .where(_OUTBOX.c.due_at <= now, free)
        .order_by(_OUTBOX.c.due_at)
        .limit(limit)
    )
    if get_engine().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    lease = now + dt.timedelta(seconds=current_app.config["COVERAGE_FEEDBACK_LEASE"])
    claimed = []
    for row in execute(query).all():
        # Taken only if still free: of two senders that read the same row, one updates it.
        taken = execute(sa.update(Outbox).where(Outbox.commit_id == row.commit_id, free).values(lease_until=lease))
        if taken.rowcount == 1:
            claimed.append(Claim(row.commit_id, row.generation, row.triggered, row.base_url, row.attempts, lease))
    get_session().commit()
    return claimed


@contextlib.contextmanager
def leased(claim: Claim) -> Iterator[None]:
    """The claim's lease renewed every third of ``COVERAGE_FEEDBACK_LEASE`` while the block runs, by a
    thread of its own on a connection of its own (a short write, committed at once: the sending's
    session keeps no write open), so a sending that lasts longer than the lease is not taken over
    while its process lives; a killed process renews nothing. A lease is renewed only while it is
    still the one this sender holds (finished, retried or taken over: left alone)."""
    length = dt.timedelta(seconds=current_app.config["COVERAGE_FEEDBACK_LEASE"])
    engine, stop = get_engine(), threading.Event()

    def renew() -> None:
        held = claim.lease_until
        while held is not None and not stop.wait(length.total_seconds() / 3):
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
        yield
    finally:
        stop.set()
        thread.join()


def _same(claim: Claim) -> sa.ColumnElement[bool]:
    return sa.and_(Outbox.commit_id == claim.commit_id, Outbox.generation == claim.generation)


def finish(claim: Claim) -> None:
    """The row was sent: dropped, unless an upload re-armed it meanwhile (then only released)."""
    execute(sa.delete(Outbox).where(_same(claim)))
    execute(sa.update(Outbox).where(Outbox.commit_id == claim.commit_id).values(lease_until=None))
    get_session().commit()


def park(claim: Claim) -> None:
    """The row waits for ``upload-complete`` (``manual_trigger``): released, not due."""
    execute(sa.update(Outbox).where(_same(claim)).values(due_at=None, lease_until=None))
    get_session().commit()


def retry(claim: Claim, error: str, after: Optional[float] = None) -> None:
    """Sending failed: due again after ``after`` seconds (a provider's ``Retry-After``) or the
    backoff of its attempts (``COVERAGE_FEEDBACK_BACKOFF``: doubling from the first wait), whichever
    is longer, but never after the longest wait; given up after :data:`MAX_ATTEMPTS`."""
    if claim.attempts + 1 >= MAX_ATTEMPTS:
        execute(sa.delete(Outbox).where(_same(claim)))
        get_session().commit()
        return
    first, longest = current_app.config["COVERAGE_FEEDBACK_BACKOFF"]
    wait = min(longest, max(after or 0, first * 2**claim.attempts))
    values = {
        "due_at": utcnow() + dt.timedelta(seconds=wait),
        "lease_until": None,
        "attempts": claim.attempts + 1,
        "last_error": error[:2000],
    }
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
