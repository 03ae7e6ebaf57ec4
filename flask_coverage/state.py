"""Per-app state of the extension and the accessors the rest of the package uses."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol

from flask import Flask, current_app

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from flask_caching import Cache
    from flask_sqlalchemy import SQLAlchemy
    from sqlalchemy.engine import Connection, Engine
    from sqlalchemy.orm import scoped_session
    from sqlalchemy.sql.expression import Executable


class Hooks(Protocol):
    """The extension object (a :class:`~flask_coverage.CoverageService`) as the package below it sees it:
    its hooks, each stored by one of its decorators and called through :func:`call_hook`."""

    verify_token_callback: Callable[[str], Any]
    verify_access_token_callback: Callable[[str], Any]
    verify_graph_token_callback: Callable[[Any, Optional[str]], Any]
    current_user_callback: Callable[[], Any]
    auth_error_callback: Callable[[int], Any]
    file_url_callback: Optional[Callable[[Any, Any], Optional[str]]]
    source_loader_callback: Callable[[Any, str, str], Any]


@dataclass
class CoverageState:
    """What one app knows about its coverage service, kept in ``app.extensions["coverage"]``."""

    #: The extension object, whose hooks the package calls (:func:`call_hook`).
    service: Hooks
    db: SQLAlchemy
    #: Rendered graphs, set up from ``COVERAGE_CACHE_CONFIG``.
    cache: Cache


def get_state(app: Optional[Flask] = None) -> CoverageState:
    """The coverage state of ``app`` (default: the current app)."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    try:
        return app.extensions["coverage"]
    except KeyError:
        raise RuntimeError(
            "The current Flask app is not registered with a 'CoverageService' instance."
            " Did you forget to call 'init_app'?"
        ) from None


def get_session() -> scoped_session[Any]:
    """The SQLAlchemy session the extension's models use in the current app."""
    return get_state().db.session


def get_engine() -> Engine:
    """The engine the extension's tables live on (the ``COVERAGE_BIND_KEY`` bind, or the default)."""
    return get_state().db.engines[current_app.config["COVERAGE_BIND_KEY"]]


def execute(statement: Executable, params: Any = None) -> Any:
    """Run ``statement`` in the session's transaction, on the extension's engine (:func:`get_engine`);
    returns its :class:`~sqlalchemy.engine.Result`.

    Every statement of the extension goes through here (or :func:`get_connection`): Flask-SQLAlchemy
    sends only ORM statements and writes to a ``COVERAGE_BIND_KEY`` bind by themselves, and would run a
    plain ``select`` of the extension's tables on the host's default database.
    """
    return get_session().execute(statement, params, bind_arguments={"bind": get_engine()})


def get_connection() -> Connection:
    """The session's connection to the extension's engine, for statements run without the ORM's steps."""
    return get_session().connection(bind_arguments={"bind": get_engine()})


def dialect_insert(table: Any) -> Any:
    """``INSERT`` into ``table`` in the extension's dialect, which has ``on_conflict_do_nothing()`` and
    ``on_conflict_do_update()``: the writes of uploads need SQLite or PostgreSQL."""
    from sqlalchemy.dialects import postgresql, sqlite

    from .errors import CoverageError

    dialect = get_engine().dialect.name
    if dialect == "postgresql":
        return postgresql.insert(table)
    if dialect == "sqlite":
        return sqlite.insert(table)
    raise CoverageError(f"uploads need SQLite or PostgreSQL, not {dialect}")


@contextlib.contextmanager
def reads_without_transaction() -> Iterator[None]:
    """Run the statements of the block without a transaction around them (autocommit).

    For a request that only reads, such as a v2 list: PostgreSQL then needs no ``BEGIN`` and no
    ``ROLLBACK``, two of its round trips, and under its default isolation (read committed) each
    statement sees its own snapshot anyway. Nothing changes when the session's transaction has already
    begun (the host's code used it first). SQLite keeps its isolation level: its driver begins no
    transaction to read, and setting the level back (a ``PRAGMA``) would make SQLite prepare every
    statement anew. At the end the session's transaction ends: its connection goes back to the pool
    with the engine's isolation level, and the next statement begins a transaction as usual (a
    server-side cursor needs one).
    """
    session, engine = get_session()(), get_engine()
    if session.in_transaction():
        yield
        return
    if engine.dialect.name != "sqlite":
        session.connection(bind_arguments={"bind": engine}, execution_options={"isolation_level": "AUTOCOMMIT"})
    try:
        yield
    finally:
        session.rollback()


def get_cache() -> Cache:
    """The cache of rendered graphs of the current app (``COVERAGE_CACHE_CONFIG``)."""
    return get_state().cache


@contextlib.contextmanager
def cache_errors(what: str) -> Iterator[None]:
    """Around a use of the cache: a cache that is down must not take ``what`` (the graphs, the file
    view) with it. Any error of the backend is logged and the block is left; the caller goes on as on a miss."""
    try:
        yield
    except Exception:
        log.warning("the cache of the %s could not be used", what, exc_info=True)


def call_hook(name: str, *args: Any) -> Any:
    """Call hook ``name`` (e.g. ``"verify_token"``) of the current app's service, sync or async."""
    hook = getattr(get_state().service, f"{name}_callback")
    return current_app.ensure_sync(hook)(*args)
