"""The health check: GET {COVERAGE_HEALTH_URL_PREFIX}/health (default /_coverage/health)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
import webtest
from extras import needs_psycopg, needs_redis
from flask import Flask

from flask_coverage import CoverageService
from flask_coverage.models import metadata

HEALTHY = {"status": "ok", "checks": {"database": "ok", "schema": "ok", "cache": "ok"}}


def test_a_working_service_is_healthy(testapp) -> None:
    response = testapp.get("/_coverage/health")
    assert response.json == HEALTHY
    assert response.content_type == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    assert testapp.head("/_coverage/health").status_int == 200
    testapp.post("/_coverage/health", status=405)


def test_the_health_check_needs_no_credentials_and_ignores_them(testapp) -> None:
    response = testapp.get("/_coverage/health", headers={"Authorization": "Bearer not-a-token"})
    assert response.json == HEALTHY


def dispose(app: Flask) -> None:
    with app.app_context():
        app.extensions["sqlalchemy"].engine.dispose()


@pytest.fixture
def bare_app(make_database_url) -> Any:
    """An app on an empty database: the extension is set up, its tables are not created."""
    app = Flask("coverage_health")
    app.config.update(SQLALCHEMY_DATABASE_URI=make_database_url())
    CoverageService(app)
    yield app
    dispose(app)


def test_missing_tables_are_named_and_init_db_fixes_them(bare_app, make_runner) -> None:
    """A database made by an older release lacks the newer tables (coverage_upload and those that refer to it)."""
    newer = {"coverage_upload"} | {
        table.name
        for table in metadata.sorted_tables
        if any(key.column.table.name == "coverage_upload" for key in table.foreign_keys)
    }
    with bare_app.app_context():
        engine = bare_app.extensions["sqlalchemy"].engine
        metadata.create_all(engine, tables=[t for t in metadata.sorted_tables if t.name not in newer])
    client = webtest.TestApp(bare_app)
    response = client.get("/_coverage/health", status=503)
    assert response.json == {
        "status": "error",
        "checks": {"database": "ok", "schema": "missing", "cache": "ok"},
        "missing_tables": sorted(newer),
    }
    result = make_runner(bare_app).invoke(args=["coverage", "init-db"])
    assert result.exit_code == 0, result.output
    assert client.get("/_coverage/health").json == HEALTHY


def test_an_empty_database_misses_every_table(bare_app) -> None:
    response = webtest.TestApp(bare_app).get("/_coverage/health", status=503)
    assert response.json["missing_tables"] == sorted(metadata.tables)


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("postgresql+psycopg://coverage:s3cret-password@127.0.0.1:1/coverage", marks=needs_psycopg),
        "sqlite:////nonexistent-directory-of-flask-coverage/coverage.sqlite",
    ],
)
def test_an_unreachable_database_is_a_503_that_names_nothing(url: str) -> None:
    app = Flask("coverage_health_down")
    app.config["SQLALCHEMY_DATABASE_URI"] = url
    CoverageService(app)
    response = webtest.TestApp(app).get("/_coverage/health", status=503)
    assert response.json == {
        "status": "error",
        "checks": {"database": "unreachable", "schema": "unknown", "cache": "ok"},
    }
    for secret in ("s3cret", "coverage:", "127.0.0.1", "nonexistent", "psycopg", "sqlite"):
        assert secret not in response.text
    dispose(app)


def test_any_other_database_failure_is_an_error(app, monkeypatch, caplog) -> None:
    class RefusingEngine:
        def connect(self) -> Any:
            raise sa.exc.ProgrammingError("SELECT 1", {}, Exception("permission denied for user s3cret"))

    monkeypatch.setattr("flask_coverage.blueprints.health.get_engine", RefusingEngine)
    response = webtest.TestApp(app).get("/_coverage/health", status=503)
    assert response.json["checks"] == {"database": "error", "schema": "unknown", "cache": "ok"}
    assert "s3cret" not in response.text
    assert "ProgrammingError" in caplog.text  # the details go to the log


@needs_redis
def test_a_cache_that_is_down_degrades_but_does_not_fail(make_app, make_database_url) -> None:
    config = {"CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": "redis://127.0.0.1:1/0"}
    app = make_app(make_database_url(), COVERAGE_CACHE_CONFIG=config)
    response = webtest.TestApp(app).get("/_coverage/health")
    assert response.json == {"status": "degraded", "checks": {"database": "ok", "schema": "ok", "cache": "unavailable"}}


def test_the_prefix_is_configurable_and_none_does_not_mount_it(make_app, make_database_url) -> None:
    url = make_database_url()
    moved = webtest.TestApp(make_app(url, COVERAGE_HEALTH_URL_PREFIX="/ops"))
    assert moved.get("/ops/health").json == HEALTHY
    moved.get("/_coverage/health", status=404)
    root = webtest.TestApp(make_app(url, COVERAGE_HEALTH_URL_PREFIX=""))
    assert root.get("/health").json == HEALTHY
    off = webtest.TestApp(make_app(url, COVERAGE_HEALTH_URL_PREFIX=None))
    off.get("/_coverage/health", status=404)
    off.get("/health", status=404)
