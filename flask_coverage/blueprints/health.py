"""The health check: ``GET {COVERAGE_HEALTH_URL_PREFIX}/health`` (default ``/_coverage/health``).

For load balancers, orchestrators and uptime monitors. It answers ``200`` when this process can
serve requests, ``503`` when it cannot, with a JSON body that says which check failed::

    {"status": "ok", "checks": {"database": "ok", "schema": "ok", "cache": "ok"}}

- ``database``: a connection to the database of the extension's tables works (``"ok"``,
  ``"unreachable"``, or ``"error"`` for any other failure of the check).
- ``schema``: every table of the extension exists there (``"ok"``, ``"missing"`` with
  ``missing_tables`` naming them — run ``flask coverage init-db`` — or ``"unknown"`` when the
  database could not be asked).
- ``cache``: the rendered-graph cache answers (``"ok"`` or ``"unavailable"``). A cache that is down
  only makes graphs slower (they are drawn instead of read), so it gives ``"status": "degraded"``
  with a 200: taking every worker out of rotation for it would turn a slowdown into an outage.

A failed database or schema check gives ``"status": "error"`` and a 503. The body names no host,
user, URL or driver message (those go to the ``flask_coverage.blueprints.health`` log). The
answer is never cached (``Cache-Control: no-store``) and needs no credentials.
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from flask import Blueprint, Response, jsonify

from ..models import metadata
from ..outage import is_database_outage
from ..state import get_cache, get_engine

bp = Blueprint("coverage_health", __name__)

log = logging.getLogger(__name__)

_CACHE_PROBE_KEY = "coverage-health-probe"


def _database_checks() -> dict[str, Any]:
    """The ``database`` and ``schema`` checks (and ``missing_tables`` when some are missing)."""
    try:
        with get_engine().connect() as connection:
            connection.execute(sa.select(1))
            present = set(sa.inspect(connection).get_table_names())
    except sa.exc.SQLAlchemyError as error:
        # The error's text may name hosts and users: it goes to the log, never into the answer. An
        # outage is expected and polled often, so one line; anything else gets its traceback.
        outage = is_database_outage(error)
        log.log(
            logging.WARNING if outage else logging.ERROR,
            "health check: the database check failed (%s)",
            type(error).__name__,
            exc_info=not outage,
        )
        return {"database": "unreachable" if outage else "error", "schema": "unknown"}
    missing = sorted(name for name in metadata.tables if name not in present)
    if missing:
        return {"database": "ok", "schema": "missing", "missing_tables": missing}
    return {"database": "ok", "schema": "ok"}


def _cache_check() -> str:
    try:
        get_cache().get(_CACHE_PROBE_KEY)
    except Exception as error:  # any backend, any failure: the graphs fall back to drawing
        log.warning("health check: the graph cache is unavailable (%s)", type(error).__name__)
        return "unavailable"
    return "ok"


@bp.route("/health", methods=["GET", "HEAD"])
def health() -> Response:
    """Whether this process can serve: 200 ``ok`` or ``degraded``, 503 ``error`` (see the module)."""
    checks = _database_checks()
    missing_tables = checks.pop("missing_tables", None)
    checks["cache"] = _cache_check()
    if checks["database"] != "ok" or checks["schema"] != "ok":
        status, code = "error", 503
    elif checks["cache"] != "ok":
        status, code = "degraded", 200
    else:
        status, code = "ok", 200
    body: dict[str, Any] = {"status": status, "checks": checks}
    if missing_tables:
        body["missing_tables"] = missing_tables
    response = jsonify(body)
    response.status_code = code
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
