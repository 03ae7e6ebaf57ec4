"""The background sender: a thread per worker process (and per app) that sends the feedback the
outbox holds (docs/pull-requests.md, "Delivery"). Uploads wake it after they commit; it sends what
is due, sleeps until the next row falls due, and ends after :data:`IDLE_SECONDS` with nothing to do
(the next upload starts it again). ``flask coverage notify --loop`` is the same loop in a process of
its own, for deployments that turn the thread off (``COVERAGE_FEEDBACK_SENDER = False``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Optional

from flask import Flask

from ..models import utcnow
from ..state import get_session
from .notify import send_due
from .outbox import next_due

log = logging.getLogger(__name__)

#: A thread with nothing due for this long ends.
IDLE_SECONDS = 30.0
#: The longest sleep between two looks at the outbox (rows another worker wrote, leases run out).
POLL_SECONDS = 5.0

#: The longest a sender waits, before each commit it sends, for this process's uploads to end.
YIELD_SECONDS = 1.0

_lock = threading.Lock()
_uploads = 0  # uploads of this process under way: the sender lets them have the CPU first
_threads: dict[int, tuple[threading.Thread, threading.Event]] = {}
_stopping: set[int] = set()


def wake(app: Flask) -> None:
    """Have this process's sender look at the outbox now, started if it is not running."""
    if not app.config["COVERAGE_FEEDBACK_SENDER"]:
        return
    with _lock:
        running = _threads.get(id(app))
        if running is not None and running[0].is_alive():
            running[1].set()
            return
        event = threading.Event()
        thread = threading.Thread(target=_run, args=(app, event), name="coverage-feedback", daemon=True)
        _threads[id(app)] = (thread, event)
        thread.start()


@contextlib.contextmanager
def uploading() -> Iterator[None]:
    """Around an upload's work: this process's sender waits for it (at most :data:`YIELD_SECONDS`)
    before it computes the next commit's feedback, so an upload answers as fast as without feedback."""
    global _uploads
    with _lock:
        _uploads += 1
    try:
        yield
    finally:
        with _lock:
            _uploads -= 1


def _yield_to_uploads() -> None:
    deadline = time.monotonic() + YIELD_SECONDS
    while _uploads and time.monotonic() < deadline:
        time.sleep(0.005)


def stop(app: Flask, timeout: float = 10.0) -> None:
    """End this process's sender of ``app`` (after the commit it is sending), e.g. before the app goes."""
    with _lock:
        running = _threads.get(id(app))
        if running is None:
            return
        _stopping.add(id(app))
        running[1].set()
    running[0].join(timeout)
    with _lock:
        _stopping.discard(id(app))


def run_once(app: Flask) -> tuple[int, Optional[float]]:
    """Send what is due; ``(commits handled, seconds until the next row falls due or None)``."""
    with app.app_context():
        try:
            handled = send_due(before_each=_yield_to_uploads)
            due = next_due()
        except Exception:
            log.exception("the feedback sender failed; it tries again")
            return 0, POLL_SECONDS
        finally:
            get_session().remove()
    return handled, None if due is None else max(0.0, (due - utcnow()).total_seconds())


def loop(app: Flask, event: threading.Event, idle: Optional[float] = IDLE_SECONDS) -> None:
    """Send until nothing was due for ``idle`` seconds (``None``: forever); ``event`` wakes it early."""
    quiet_since = time.monotonic()
    while id(app) not in _stopping:
        event.clear()
        handled, wait = run_once(app)
        if handled:
            quiet_since = time.monotonic()
            continue
        if idle is not None and wait is None and time.monotonic() - quiet_since >= idle:
            return
        if event.wait(min(POLL_SECONDS, wait if wait is not None else POLL_SECONDS)):
            quiet_since = time.monotonic()


def _run(app: Flask, event: threading.Event) -> None:
    try:
        loop(app, event)
    finally:
        with _lock:
            if _threads.get(id(app), (None,))[0] is threading.current_thread():
                del _threads[id(app)]
