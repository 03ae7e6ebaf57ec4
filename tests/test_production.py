"""Production: database outages answer 503 (and pass), pool_pre_ping, a graph cache shared by workers.

The outages are real: a database that cannot be reached (a closed port, a missing directory), and
on PostgreSQL, server connections terminated before, during and after a request. The shared cache
is tested with two gunicorn workers and Redis (tests/production_service.py starts them).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import socket
import time
from typing import Any, Callable, Iterator

import pytest
import sqlalchemy as sa
import webtest
from extras import needs_psycopg
from flask import Flask
from flask_caching import Cache
from flask_sqlalchemy import SQLAlchemy
from production_service import ROOT, Gunicorn, fetch, redis_prefix

from flask_coverage import CoverageService, operations
from flask_coverage.ingest import upload_report
from flask_coverage.models import Owner
from flask_coverage.outage import OUTAGE_MESSAGE, is_database_outage
from flask_coverage.queries import graph_records
from flask_coverage.state import get_session

SERVER_URL = os.environ.get("COVERAGE_TEST_DATABASE_URL", "")
SHA = "c" * 40
LCOV = b"SF:a.py\nDA:1,1\nDA:2,0\nend_of_record\n"
#: Databases that cannot be reached; the password must never show in an answer.
UNREACHABLE = {
    "sqlite": "sqlite:////nonexistent-directory-of-flask-coverage/coverage.sqlite",
    "postgresql": "postgresql+psycopg://coverage:s3cret-password@127.0.0.1:1/coverage",
}
REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture(params=[pytest.param("postgresql", marks=needs_psycopg), "sqlite"])
def down(request: pytest.FixtureRequest) -> Any:
    """WebTest over an app whose database cannot be reached, with a host route of its own."""
    app = Flask("coverage_down")
    app.config.update(TESTING=True, SECRET_KEY="test", SQLALCHEMY_DATABASE_URI=UNREACHABLE[request.param])
    service = CoverageService(app)
    service.current_user_loader(lambda: get_session().get(Owner, 1))

    @app.get("/host")
    def host_view() -> str:
        return str(get_session().execute(sa.select(1)).scalar())

    yield webtest.TestApp(app)
    with app.app_context():
        app.extensions["sqlalchemy"].engine.dispose()


def assert_outage(response: Any) -> None:
    assert response.status_int == 503
    assert response.headers["Retry-After"] == "5"
    assert response.headers["Cache-Control"] == "no-store"
    assert "s3cret" not in response.text and "127.0.0.1" not in response.text and "nonexistent" not in response.text


@pytest.mark.parametrize(
    "path",
    ["/api/v2/github/acme/users/", "/api/v2/github/acme/repos/widgets/report/"],
)
def test_the_api_answers_an_outage_with_a_json_503(down, path: str) -> None:
    response = down.get(path, headers={"Authorization": "Bearer some-token"}, status=503)
    assert_outage(response)
    assert response.json == {"detail": OUTAGE_MESSAGE}


def test_the_older_api_answers_an_outage_in_its_envelope(down) -> None:
    response = down.get("/api/pub/gh/acme/widgets/settings", headers={"Authorization": "some-token"}, status=503)
    assert_outage(response)
    assert response.json == {"error": {"reason": OUTAGE_MESSAGE, "context": None}, "meta": {"status": 503}}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", f"/upload/v2?token=0f8e2a51-6b1c-4d2e-9a7f-3c5b8d9e1f20&commit={SHA}"),
        ("GET", "/gh/acme/widgets/graphs/tree.svg"),
        ("GET", f"/gh/acme/widgets/commit/{SHA}/blob/a.py"),
        ("GET", "/gh/acme/widgets"),
        ("GET", "/gh/acme"),
        ("GET", "/account/access"),
    ],
)
def test_uploads_graphs_and_pages_answer_an_outage_in_plain_text(down, method: str, path: str) -> None:
    response = down.request(path, method=method, body=LCOV if method == "POST" else b"", expect_errors=True)
    assert_outage(response)
    assert response.content_type == "text/plain"
    assert response.text == OUTAGE_MESSAGE + "\n"


def test_the_host_apps_own_views_keep_their_own_error_handling(down) -> None:
    with pytest.raises(sa.exc.OperationalError):  # TESTING propagates what no handler took
        down.get("/host")


def _error(cls: type = sa.exc.OperationalError, statement: Any = "SELECT 1", **kwargs: Any) -> Exception:
    orig = Exception("driver message")
    if "sqlstate" in kwargs:
        orig.sqlstate = kwargs.pop("sqlstate")  # type: ignore[attr-defined]
    return cls(statement, {}, orig, **kwargs)


@pytest.mark.parametrize(
    ("error", "outage"),
    [
        (_error(connection_invalidated=True), True),  # the connection broke during the request
        (_error(statement=None), True),  # no connection could be made
        (_error(sqlstate="57P01"), True),  # terminating connection due to administrator command
        (_error(sqlstate="57P03"), True),  # the database system is starting up
        (_error(sqlstate="08006"), True),  # connection failure
        (sa.exc.TimeoutError("QueuePool limit reached"), True),
        (_error(), False),  # e.g. SQLite's "database is locked": not an outage
        (_error(sqlstate="40001"), False),  # a serialization failure is retried, not an outage
        (_error(sa.exc.IntegrityError), False),
        (_error(sa.exc.ProgrammingError, sqlstate="42P01"), False),  # a missing table is a setup error
        (ValueError("x"), False),
    ],
)
def test_what_counts_as_an_outage(error: Exception, outage: bool) -> None:
    assert is_database_outage(error) is outage


def _pre_ping(app: Flask) -> bool:
    with app.app_context():
        return app.extensions["sqlalchemy"].engine.pool._pre_ping  # no public accessor


def test_pool_pre_ping_is_the_default_of_the_extensions_own_engines(make_app, make_database_url) -> None:
    assert _pre_ping(make_app(make_database_url())) is True
    assert _pre_ping(make_app(make_database_url(), SQLALCHEMY_ENGINE_OPTIONS={"pool_pre_ping": False})) is False


def test_a_host_that_brings_its_own_sqlalchemy_keeps_its_settings(tmp_path) -> None:
    app = Flask("coverage_host_db")
    app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{tmp_path}/host.sqlite"
    CoverageService(app, db=SQLAlchemy(app))
    assert _pre_ping(app) is False
    with app.app_context():
        app.extensions["sqlalchemy"].engine.dispose()


# PostgreSQL (tests marked postgresql): server connections terminated around a request (what a restart
# does to them).


def terminate(app: Flask, pid: Any = None) -> None:
    """Terminate the server connections of ``app``'s database (only ``pid``'s if given) and wait."""
    with app.app_context():
        database = app.extensions["sqlalchemy"].engine.url.database
    admin = sa.create_engine(SERVER_URL, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with admin.connect() as connection:
        query = "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = :db"
        query += " AND pid <> pg_backend_pid()" + (" AND pid = :pid" if pid is not None else "")
        connection.execute(sa.text(query), {"db": database, "pid": pid})
    admin.dispose()


@pytest.fixture
def members(make_app, make_database_url) -> Callable[..., tuple[Flask, webtest.TestApp, dict[str, str]]]:
    """A factory of apps on a new database with acme's users list readable by alice's token."""

    def make(**config: Any) -> tuple[Flask, webtest.TestApp, dict[str, str]]:
        app = make_app(make_database_url(), **config)
        with app.app_context():
            operations.add_org("github", "acme")
            operations.add_user("github", "alice")
            operations.add_member("github", "acme", "alice", activated=True)
            token = operations.create_token("github", "alice", name="ci")[1]
        return app, webtest.TestApp(app), {"Authorization": f"Bearer {token}"}

    return make


USERS = "/api/v2/github/acme/users/"


@pytest.mark.postgresql
def test_after_a_restart_the_next_request_succeeds(members) -> None:
    app, client, auth = members()
    assert client.get(USERS, headers=auth).json["count"] == 1
    terminate(app)
    assert client.get(USERS, headers=auth).json["count"] == 1  # pre-ping found the dead connection


@pytest.mark.postgresql
def test_without_pre_ping_one_request_gets_a_503_and_the_next_succeeds(members) -> None:
    app, client, auth = members(SQLALCHEMY_ENGINE_OPTIONS={"pool_pre_ping": False})
    client.get(USERS, headers=auth, status=200)
    terminate(app)
    assert client.get(USERS, headers=auth, status=503).json == {"detail": OUTAGE_MESSAGE}
    assert client.get(USERS, headers=auth).json["count"] == 1


def wrap_view(app: Flask, endpoint: str, before: Callable[[], None], after: Callable[[], None]) -> None:
    view = app.view_functions[endpoint]

    def wrapped(**kwargs: Any) -> Any:
        before()
        response = view(**kwargs)
        after()
        return response

    app.view_functions[endpoint] = wrapped


def terminate_own_connection(app: Flask) -> Callable[[], None]:
    return lambda: terminate(app, get_session().execute(sa.select(sa.func.pg_backend_pid())).scalar())


@pytest.mark.postgresql
def test_a_request_that_loses_its_connection_midway_is_a_503(members) -> None:
    app, client, auth = members()
    wrap_view(app, "coverage_api.users_list", before=terminate_own_connection(app), after=lambda: None)
    assert client.get(USERS, headers=auth, status=503).json == {"detail": OUTAGE_MESSAGE}


@pytest.mark.postgresql
def test_a_graph_that_loses_its_connection_while_reading_its_files_is_a_503(members, monkeypatch) -> None:
    """A graph reads its files from the driver's own cursor: a connection lost there is an outage too."""
    app, client, _ = members()
    with app.app_context():
        upload_report(operations.add_repo("github", "acme", "widgets"), LCOV, commit=SHA, branch="main")
    read = graph_records.read_graph_records

    def read_after_a_restart(commit: Any) -> Any:
        terminate_own_connection(app)()
        return read(commit)

    monkeypatch.setattr(graph_records, "read_graph_records", read_after_a_restart)
    response = client.get("/gh/acme/widgets/graphs/tree.svg", status=503)
    assert_outage(response)
    assert response.text == OUTAGE_MESSAGE + "\n"
    monkeypatch.undo()
    graph = client.get("/gh/acme/widgets/graphs/tree.svg")
    assert graph.content_type == "image/svg+xml"
    assert "a.py" in graph.text


@pytest.mark.postgresql
def test_a_streamed_report_reads_its_files_after_the_views_session_ended(members) -> None:
    """Flask ends the view's app context (and its session) before it sends a streamed body; the report's
    server-side cursor must be opened by the stream itself, or it is gone before its rows are fetched."""
    app, client, auth = members()
    files = "".join(f"SF:src/m{index}.py\nDA:1,{index % 2}\nend_of_record\n" for index in range(3))
    with app.app_context():
        upload_report(operations.add_repo("github", "acme", "widgets"), files.encode(), commit=SHA, branch="main")
    report = client.get("/api/v2/github/acme/repos/widgets/report/", headers=auth).json
    assert [file["name"] for file in report["files"]] == ["src/m0.py", "src/m1.py", "src/m2.py"]
    assert report["totals"]["hits"] == 1


@pytest.mark.postgresql
def test_an_answer_that_was_ready_when_the_server_went_away_is_sent(members) -> None:
    """The transaction's ROLLBACK at teardown fails on the dead connection: that is not a 500."""
    app, client, auth = members()
    wrap_view(app, "coverage_api.users_list", before=lambda: None, after=terminate_own_connection(app))
    assert client.get(USERS, headers=auth).json["results"][0]["username"] == "alice"
    assert client.get(USERS, headers=auth).json["count"] == 1


# Two gunicorn workers sharing the graph cache in Redis.


@pytest.fixture
def redis_client() -> Iterator[Any]:
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError:
        client.close()
        pytest.skip(f"no Redis at {REDIS_URL}")
    yield client
    client.close()


def answer_of(server: Gunicorn, path: str, worker: Callable[[int], bool]) -> tuple[int, bytes, Any]:
    """``(pid, body, headers)`` of ``GET path`` answered by a worker ``worker(pid)`` accepts."""
    for attempt in range(100):
        # The kernel often hands every connection to the same waiting worker. Every other attempt, an
        # unfinished request keeps the worker that accepts it busy, so that another one answers.
        with contextlib.ExitStack() as stack:
            if attempt % 2:
                blocker = stack.enter_context(socket.create_connection(("127.0.0.1", server.port)))
                blocker.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n")
                time.sleep(0.05)
            status, body, headers = fetch(server.port, "GET", path)
        assert status == 200, body
        pid = int(headers["X-Worker-Pid"])
        if worker(pid):
            return pid, body, headers
    raise AssertionError("no answer from the worker asked for")


@pytest.mark.production
@pytest.mark.redis
def test_workers_share_the_graph_cache_and_all_see_a_new_upload(
    make_app, make_database_url, tmp_path, redis_client
) -> None:
    redis = redis_client
    url = make_database_url()
    with make_app(url).app_context():
        operations.add_org("github", "acme")
        repository = operations.add_repo("github", "acme", "widgets")
        upload_token = repository.upload_token
        upload_report(repository, LCOV, commit=SHA, branch="main")
    path = "/gh/acme/widgets/graphs/tree.svg"
    with redis_prefix(REDIS_URL) as prefix:
        env = {"LOAD_TEST_DATABASE_URL": url, "LOAD_TEST_REDIS_URL": REDIS_URL, "LOAD_TEST_CACHE_PREFIX": prefix}
        with Gunicorn("production_service:create_app()", workers=2, env=env, chdir=ROOT / "tests",
                      log_dir=str(tmp_path)) as server:  # fmt: skip
            first_pid, first, headers = answer_of(server, path, lambda pid: True)
            assert b"a.py" in first
            # One drawing stored (beside it the cache's bookkeeping: its variants and bytes counters).
            [key] = redis.keys(prefix + "coverage-graph:*")
            # The other worker serves what the first one stored: replaced here by a marker.
            marker = b'<svg xmlns="http://www.w3.org/2000/svg"><title>from the cache</title></svg>'
            cache_app = Flask("coverage_cache_writer")
            cache = Cache(cache_app, config={"CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": REDIS_URL,
                                             "CACHE_KEY_PREFIX": prefix})  # fmt: skip
            with cache_app.app_context():
                cache.set(key.decode()[len(prefix) :], gzip.compress(marker))
            cache.cache._write_client.close()  # the RedisCache's own client: no socket left for the GC
            _, other, _ = answer_of(server, path, lambda pid: pid != first_pid)
            assert other == marker
            # A new upload, to whichever worker: every worker draws the new tip, none serves the old.
            query = f"token={upload_token}&commit={'d' * 40}&branch=main"
            status, _, _ = fetch(server.port, "POST", f"/upload/v2?{query}", b"SF:b.py\nDA:1,1\nend_of_record\n")
            assert status == 200
            answers = [answer_of(server, path, lambda pid, p=p: p(pid)) for p in (first_pid.__eq__, first_pid.__ne__)]
            assert answers[0][1] == answers[1][1] and b"b.py" in answers[0][1] and b"a.py" not in answers[0][1]
            assert answers[0][2]["ETag"] == answers[1][2]["ETag"] != headers["ETag"]
            assert len(redis.keys(prefix + "coverage-graph:*")) == 2
