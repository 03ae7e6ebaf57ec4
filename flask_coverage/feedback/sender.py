"""The background sender: a thread per worker process (and per app) that sends the feedback the
outbox holds (docs/pull-requests.md, "Delivery").

The thread looks at the outbox only when there is a reason to: an upload rings it with the time its
commit falls due (``COVERAGE_FEEDBACK_DELAY`` from now), ``upload-complete`` and a process's first
request ring it for now, and the outbox itself says when its next row falls due or another sender's
lease runs out. In between it sleeps on a condition, without polling the database; with nothing due
for :data:`IDLE_SECONDS` it ends (the next upload starts it again). A worker that replaces a killed
one looks at the outbox on its first request, so the rows the killed one held are taken over when
their lease runs out. ``flask coverage notify --loop`` is the same loop in a process of its own (for
deployments that turn the thread off, ``COVERAGE_FEEDBACK_SENDER = False``): no upload rings it, so it
looks every :data:`POLL_SECONDS` as well.
"""

from __future__ import annotations

import contextlib
import logging
import os
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
#: How often ``flask coverage notify --loop`` looks at the outbox (the web workers' uploads cannot ring it).
POLL_SECONDS = 5.0
#: The wait after the sender itself failed (a database that cannot be reached) before it tries again.
FAILURE_WAIT_SECONDS = 5.0
#: The longest a sender waits, before each commit it sends, for this process's uploads to end.
YIELD_SECONDS = 1.0

_lock = threading.Lock()
_uploads = 0  # uploads of this process under way: the sender lets them have the CPU first


class Bell:
    """When a sender is to look at the outbox next: the earliest time asked for (:meth:`ring`)."""

    def __init__(self) -> None:
        self._rung = threading.Condition(_lock)  # the module's lock: a thread ends and is replaced under it
        self._at: Optional[float] = None  # time.monotonic() to look at, None: no reason to look
        self.stopping = False

    def ring(self, after: float = 0.0) -> None:
        """Look ``after`` seconds from now (or sooner, if asked sooner already); the caller holds ``_lock``."""
        at = time.monotonic() + max(0.0, after)
        if self._at is None or at < self._at:
            self._at = at
            self._rung.notify()

    def stop(self) -> None:
        """End the sleep now and every one after it; the caller holds ``_lock``."""
        self.stopping = True
        self._rung.notify_all()

    def sleep(self, idle: Optional[float], on_idle: Optional[object] = None) -> bool:
        """Until it is time to look (``True``); ``False`` when stopped, or when nobody asked for a look
        for ``idle`` seconds (then ``on_idle``, a key of :data:`_threads`, is forgotten under the lock)."""
        with self._rung:
            idle_end = None if idle is None else time.monotonic() + idle
            while not self.stopping:
                now = time.monotonic()
                if self._at is not None and self._at <= now:
                    self._at = None
                    return True
                if self._at is None and idle_end is not None and now >= idle_end:
                    _threads.pop(on_idle, None)  # a wake from now on starts a new thread
                    return False
                until = self._at if self._at is not None else idle_end
                self._rung.wait(None if until is None else until - now)
            return False


_threads: dict[object, tuple[threading.Thread, Bell]] = {}
_seen: set[tuple[int, int]] = set()  # (process, app) pairs that had their first request


def wake(app: Flask, after: float = 0.0) -> None:
    """Have this process's sender look at the outbox in ``after`` seconds (an upload: when its commit
    falls due), started if it is not running."""
    if not app.config["COVERAGE_FEEDBACK_SENDER"]:
        return
    with _lock:
        running = _threads.get(id(app))
        if running is not None and running[0].is_alive():
            running[1].ring(after)
            return
        bell = Bell()
        bell.ring(after)
        thread = threading.Thread(target=_run, args=(app, bell), name="coverage-feedback", daemon=True)
        _threads[id(app)] = (thread, bell)
        thread.start()


def first_request(app: Flask) -> None:
    """Before each request: the first one of a process (a new worker, maybe replacing a killed one)
    has its sender look at the outbox, for rows left behind."""
    key = (os.getpid(), id(app))
    if key not in _seen:
        _seen.add(key)
        if app.config["COVERAGE_PROVIDERS"]:
            wake(app)


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
        running[1].stop()
    running[0].join(timeout)


def run_once(app: Flask) -> tuple[int, Optional[float]]:
    """Send what is due; ``(commits handled, seconds until the next row can be claimed or None)``."""
    with app.app_context():
        try:
            handled = send_due(before_each=_yield_to_uploads)
            due = next_due()
        except Exception:
            log.exception("the feedback sender failed; it tries again")
            return 0, FAILURE_WAIT_SECONDS
        finally:
            get_session().remove()
    return handled, None if due is None else max(0.0, (due - utcnow()).total_seconds())


def loop(
    app: Flask, bell: Bell, idle: Optional[float] = IDLE_SECONDS, poll: Optional[float] = None, key: object = None
) -> None:
    """Send until nothing was due for ``idle`` seconds (``None``: forever): whenever ``bell`` rings,
    a row falls due, and every ``poll`` seconds if given."""
    while True:
        _, wait = run_once(app)  # after a sending, its next_due says whether more is due now
        with _lock:
            for after in (wait, poll):
                if after is not None:
                    bell.ring(after)
        if not bell.sleep(idle, on_idle=key):
            return


def _run(app: Flask, bell: Bell) -> None:
    try:
        loop(app, bell, key=id(app))
    finally:
        with _lock:
            if _threads.get(id(app), (None,))[0] is threading.current_thread():
                del _threads[id(app)]
