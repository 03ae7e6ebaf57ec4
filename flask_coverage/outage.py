"""Answering requests while the database cannot be reached: a 503 that says so, never a 500.

When PostgreSQL restarts, the requests in flight lose their connections and new ones cannot
connect until it is back. Each blueprint registers :func:`handle_database_outage` (through
:func:`flask_coverage.http_errors.handle_errors`), so those
requests are answered ``503 Service Unavailable`` with a ``Retry-After`` header, in the
blueprint's own error format, and a request whose answer was ready when the server went away
still gets it (ending its transaction on a dead connection would otherwise raise after the view,
where Flask can only answer 500). Only the extension's blueprints get this: the host app's own
views keep whatever error handling the host gave them.

Recovery needs nothing from the service: the connections of a restarted server are invalidated
when first used (or checked with ``pool_pre_ping`` before use), and the next request connects anew.
"""

from __future__ import annotations

import logging
from typing import Callable, Optional

import sqlalchemy as sa
from flask import Blueprint, Response, g, request
from flask.blueprints import BlueprintSetupState

from .state import get_session

log = logging.getLogger(__name__)

#: The message of every outage answer: what happened and what to do, nothing about the setup.
OUTAGE_MESSAGE = "Service unavailable: the database cannot be reached. Please try again in a moment."
#: Seconds a client is asked to wait before it tries again (a PostgreSQL restart takes a few).
RETRY_AFTER_SECONDS = 5

# SQLSTATE classes and codes that mean "no usable connection": 08 connection exceptions,
# 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up).
_OUTAGE_SQLSTATE_CLASSES = ("08",)
_OUTAGE_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})


def is_database_outage(error: BaseException) -> bool:
    """Whether ``error`` means the database cannot be reached right now (not a bug, not bad data).

    True for a connection that broke during the request (SQLAlchemy marks it
    ``connection_invalidated``), a server that is shutting down or starting up, a failure to
    connect at all, and an exhausted connection pool. Any other database error is False.
    """
    if isinstance(error, sa.exc.TimeoutError):  # no pooled connection came free in time
        return True
    if not isinstance(error, sa.exc.DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    sqlstate = getattr(error.orig, "sqlstate", None) or ""
    if sqlstate.startswith(_OUTAGE_SQLSTATE_CLASSES) or sqlstate in _OUTAGE_SQLSTATES:
        return True
    # A failure to connect is raised before any statement runs: it is the only error without one.
    return isinstance(error, sa.exc.OperationalError) and error.statement is None


def plain_text_response(message: str) -> Response:
    """``message`` as a ``text/plain`` body (the outage answer of the web pages and graphs)."""
    return Response(message + "\n", mimetype="text/plain")


def handle_database_outage(bp: Blueprint, respond: Callable[[str], Response]) -> None:
    """Answer database outages in the views of ``bp`` with a 503.

    ``respond(message)`` builds the blueprint's error response; the status
    becomes 503 and ``Retry-After`` and ``Cache-Control: no-store`` are added. Database errors that
    are not an outage (see :func:`is_database_outage`) are raised on, as without the handler. After
    a request of ``bp``, an outage while the session ends drops the connection instead of failing
    the request (see :func:`end_session`).
    """

    def handler(error: Exception) -> Response:
        if not is_database_outage(error):
            raise error
        # The class and SQLSTATE only: the error's text holds the statement and its parameters.
        orig = getattr(error, "orig", None) or error
        sqlstate = getattr(orig, "sqlstate", None)
        log.warning(
            "database unavailable (%s%s) during %s %s",
            type(orig).__name__,
            f", SQLSTATE {sqlstate}" if sqlstate else "",
            request.method,
            request.path,
        )
        response = respond(OUTAGE_MESSAGE)
        response.status_code = 503
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response.headers["Cache-Control"] = "no-store"
        return response

    bp.register_error_handler(sa.exc.DBAPIError, handler)
    bp.register_error_handler(sa.exc.TimeoutError, handler)
    bp.teardown_request(_mark_request)
    bp.record_once(_install_end_session)


_SERVED = "_coverage_served_request"


def _mark_request(exc: Optional[BaseException]) -> None:
    setattr(g, _SERVED, True)


def _install_end_session(state: BlueprintSetupState) -> None:
    # Registered after Flask-SQLAlchemy's teardown (the extension set that up first), so it runs before it.
    if end_session not in state.app.teardown_appcontext_funcs:
        state.app.teardown_appcontext(end_session)


def end_session(exc: Optional[BaseException]) -> None:
    """End the session of an app context that served a request of the extension's blueprints.

    Flask-SQLAlchemy would end it next, and a ROLLBACK on a connection the server just closed would
    raise after the answer was made, where Flask can only answer 500. On an outage the connection is
    dropped instead. Any other app context (the host's own views) is left to Flask-SQLAlchemy.
    """
    if not g.pop(_SERVED, False):
        return
    sessions = get_session()
    try:
        sessions.remove()
    except sa.exc.DBAPIError as error:
        if not is_database_outage(error):
            raise
        sessions().invalidate()  # the connection is discarded without another word to the server
        sessions.remove()
