"""Fixtures: ``app``, ``db``, ``client``, ``testapp`` (WebTest), ``runner``, and the factories
``make_database_url`` and ``make_app`` for tests that need more than one app or database.

The suite runs on SQLite by default: a new database file per test, a copy of one whose tables were
created once per session (``sqlite_template``). With ``COVERAGE_TEST_DATABASE_URL=postgresql+psycopg://...``
it runs on PostgreSQL: a database of its own is created for the run next to the given one, and every table
is truncated after each test.

The ``history`` of ``v2_history`` is built by HTTP once per session into a database of its own
(``history_template``); each test that uses it gets a copy of it (a copy of the file on SQLite, its rows
written into the test's database on PostgreSQL), so a test that writes into its history changes no other's.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest
import sqlalchemy as sa
import webtest
from flask import Flask
from hypothesis import settings

from flask_coverage import CoverageService
from flask_coverage.models import metadata
from flask_coverage.operations import init_db

# Hypothesis draws the same examples on every run (a failure is a failure of the code, never of the
# draw); HYPOTHESIS_PROFILE=explore draws fresh ones, to look for new failures by hand.
settings.register_profile("derandomized", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "derandomized"))

# The example app runs from a clone (the wheel ships flask_coverage only): its tests import it from the
# repository root, looked up after the installed packages so that flask_coverage is the installed one.
sys.path.append(str(Path(__file__).resolve().parent.parent))

SERVER_URL = os.environ.get("COVERAGE_TEST_DATABASE_URL", "")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The real clients are installed from PyPI and npm: only on request (-m clients, -m pycodecov:
    # the tox envs of those names), never inside another run's "not browser".
    for marker in ("clients", "pycodecov"):
        if marker in (config.getoption("markexpr") or ""):
            continue
        deselected = [item for item in items if item.get_closest_marker(marker) is not None]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if item.get_closest_marker(marker) is None]


def missing_tool(marker: str) -> str | None:
    """Why the tests marked ``marker`` cannot run on this machine (a program they drive is missing), or None."""
    if marker == "browser":
        from example_app.screenshots import chromium_path

        return None if os.path.exists(chromium_path()) else f"no Chromium at {chromium_path()} (set CHROMIUM_PATH)"
    if marker == "clients":
        absent = [name for name in ("node", "npm") if shutil.which(name) is None]
        return f"no {' or '.join(absent)} on PATH: Node.js runs npm's codecov and Prism" if absent else None
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("postgresql") is not None and not SERVER_URL:
        pytest.skip("needs COVERAGE_TEST_DATABASE_URL (PostgreSQL)")
    for marker in ("browser", "clients"):
        why = missing_tool(marker) if item.get_closest_marker(marker) is not None else None
        if why is not None:
            # CI (.ci/run) has every tool: there a missing one is a failure, never a skip.
            if os.environ.get("COVERAGE_TEST_TOOLS") == "required":
                pytest.fail(f"{why} (COVERAGE_TEST_TOOLS=required)", pytrace=False)
            pytest.skip(why)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # Under tox, each environment writes why its skipped tests did not run, one line per reason with
    # its count, where the last environment (interpreters) prints them all: a reader of `tox p` sees
    # what this machine could not test.
    target = os.environ.get("COVERAGE_TEST_SKIPS")
    if not target:
        return
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text("".join(f"{count} skipped: {reason}\n" for reason, count in sorted(reasons.items())))


def _admin_engine() -> sa.Engine:
    return sa.create_engine(SERVER_URL, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)


def _create_pg_database() -> str:
    name = f"flask_coverage_test_{uuid.uuid4().hex[:12]}"
    engine = _admin_engine()
    with engine.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return sa.make_url(SERVER_URL).set(database=name).render_as_string(hide_password=False)


def _drop_pg_database(url: str) -> None:
    engine = _admin_engine()
    with engine.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{sa.make_url(url).database}" WITH (FORCE)'))
    engine.dispose()


@pytest.fixture(scope="session")
def pg_databases() -> Iterator[list[str]]:
    created: list[str] = []
    yield created
    # At once: each DROP DATABASE waits for a checkpoint, and drops that wait together share one.
    with ThreadPoolExecutor(max_workers=8) as executor:
        list(executor.map(_drop_pg_database, created))


@pytest.fixture
def make_database_url(tmp_path: Any, pg_databases: list[str]) -> Callable[[], str]:
    """A factory of empty databases of the engine under test."""
    counter = iter(range(1000))

    def make() -> str:
        if SERVER_URL:
            url = _create_pg_database()
            pg_databases.append(url)
            return url
        return f"sqlite:///{tmp_path}/db{next(counter)}.sqlite"

    return make


@pytest.fixture(scope="session")
def shared_pg_url(pg_databases: list[str]) -> str:
    url = _create_pg_database()
    pg_databases.append(url)
    return url


@pytest.fixture(scope="module")
def module_database_url(tmp_path_factory: pytest.TempPathFactory, pg_databases: list[str]) -> str:
    """An empty database of the engine under test, for data that the tests of one module share."""
    if SERVER_URL:
        pg_databases.append(_create_pg_database())
        return pg_databases[-1]
    return f"sqlite:///{tmp_path_factory.mktemp('module_db')}/coverage.sqlite"


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database file with the extension's tables, made by ``init_db`` once per session: the
    ``app`` fixture copies it instead of creating the tables again for each test."""
    path = tmp_path_factory.mktemp("template") / "coverage.sqlite"
    dispose_engines(create_test_app(f"sqlite:///{path}"))
    return path


def sqlite_copy(template: Path, path: Path) -> str:
    """The URL of a new SQLite database at ``path``, a copy of the file ``template``."""
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


def _synchronous_off(dbapi_connection: Any, connection_record: Any) -> None:
    dbapi_connection.execute("PRAGMA synchronous = OFF")


def no_disk_waits(engine: sa.Engine) -> None:
    """The connections of the SQLite ``engine`` commit without waiting for the disk (``PRAGMA synchronous =
    OFF``: only a crash of the machine could lose a commit; locking and the journal are as they were).
    Its connections made until now are closed: all of the next ones are set so."""
    sa.event.listen(engine, "connect", _synchronous_off)
    engine.dispose()


def create_test_app(database_url: str, **config: Any) -> Flask:
    """A minimal host app with the service mounted and its tables created."""
    app = Flask("coverage_test_app")
    # No feedback sender threads in tests unless one asks (tests/feedback/test_delivery.py).
    config.setdefault("COVERAGE_FEEDBACK_SENDER", False)
    app.config.update(TESTING=True, SECRET_KEY="test", SQLALCHEMY_DATABASE_URI=database_url, **config)
    CoverageService(app)
    with app.app_context():
        init_db()
    return app


def dispose_engines(app: Flask) -> None:
    with app.app_context():
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()


@pytest.fixture
def make_app() -> Iterator[Callable[..., Flask]]:
    """A factory of apps like ``app`` (``make_app(database_url, **config)``), disposed after the test."""
    apps: list[Flask] = []

    def make(database_url: str, **config: Any) -> Flask:
        apps.append(create_test_app(database_url, **config))
        return apps[-1]

    yield make
    for made in apps:
        dispose_engines(made)


@pytest.fixture
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Flask]:
    """The host app with the service mounted, on an empty database of its own; on a copy of the
    ``history`` database for the tests that use ``history``."""
    history = request.getfixturevalue("history_template") if "history_template" in request.fixturenames else None
    if SERVER_URL:
        url = request.getfixturevalue("shared_pg_url")
    elif history is not None:
        url = sqlite_copy(Path(sa.make_url(history.url).database or ""), tmp_path / "coverage.sqlite")
    else:
        url = sqlite_copy(request.getfixturevalue("sqlite_template"), tmp_path / "coverage.sqlite")
    app = create_test_app(url)
    if not SERVER_URL:
        with app.app_context():
            no_disk_waits(app.extensions["sqlalchemy"].engine)
    with app.app_context():
        if SERVER_URL and history is not None:
            history.restore(app.extensions["sqlalchemy"].engine)
        yield app
        db = app.extensions["sqlalchemy"]
        db.session.remove()
        if SERVER_URL:
            names = ", ".join(table.name for table in metadata.sorted_tables)
            with db.engine.begin() as connection:
                connection.execute(sa.text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    dispose_engines(app)


@pytest.fixture(scope="module")
def module_app(module_database_url: str) -> Iterator[Flask]:
    """An app like ``app`` (no app context pushed) whose data the tests of one module share."""
    app = create_test_app(module_database_url)
    yield app
    dispose_engines(app)


@pytest.fixture
def db(app: Flask) -> Any:
    return app.extensions["coverage"].db


@pytest.fixture
def client(app: Flask) -> Any:
    return app.test_client()


@pytest.fixture
def testapp(app: Flask) -> webtest.TestApp:
    return webtest.TestApp(app)


@pytest.fixture
def runner(app: Flask) -> Any:
    return cli_runner(app)


@pytest.fixture
def make_runner() -> Callable[[Flask], Any]:
    """A factory of CLI runners for apps made with ``make_app``."""
    return cli_runner


def cli_runner(app: Flask) -> Any:
    """A CLI runner whose ``result.stderr`` holds what the command wrote to stderr."""
    try:
        # Click < 8.2 (the last one for Python 3.9) mixes stderr into stdout unless told not to.
        return app.test_cli_runner(mix_stderr=False)
    except TypeError:
        return app.test_cli_runner()


# Live servers, for the tests that need real HTTP (the browser's fixtures are in tests/browser/conftest.py).


@pytest.fixture
def live_server() -> Iterator[Callable[[Any], str]]:
    """A factory that serves any WSGI app on a free 127.0.0.1 port and returns its base URL.

    Each server runs werkzeug's threaded development server in a thread; all of them stop at teardown.
    """
    from werkzeug.serving import make_server

    servers: list[tuple[Any, threading.Thread]] = []

    def start(wsgi_app: Any) -> str:
        server = make_server("127.0.0.1", 0, wsgi_app, threaded=True)
        thread = threading.Thread(target=server.serve_forever, name=f"live-server-{server.port}", daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.port}"

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# Coverage data for the upload and report tests.


def lcov_report(files: dict[str, dict[int, int]], partial: dict[str, set[int]] | None = None) -> bytes:
    """An LCOV report: ``{path: {line: hits}}``; the lines in ``partial[path]`` get an untaken branch."""
    out = []
    for path, lines in files.items():
        out.append(f"SF:{path}\n")
        out.extend(f"DA:{line},{hits}\n" for line, hits in lines.items())
        out.extend(f"BRDA:{line},0,0,1\nBRDA:{line},0,1,-\n" for line in sorted((partial or {}).get(path, ())))
        out.append("end_of_record\n")
    return "".join(out).encode()


@pytest.fixture
def make_lcov() -> Callable[..., bytes]:
    return lcov_report


@pytest.fixture
def snapshot(db: Any) -> Callable[[], dict[str, list[tuple]]]:
    """A function that returns every row of every table, to prove a failed request changed nothing."""

    def take() -> dict[str, list[tuple]]:
        db.session.remove()
        with db.engine.connect() as connection:
            return {
                table.name: sorted(map(tuple, connection.execute(sa.select(table))), key=repr)
                for table in metadata.sorted_tables
            }

    return take


@pytest.fixture
def statements(app: Flask) -> Iterator[list[str]]:
    """The SQL statements the app runs (BEGIN/ROLLBACK are not statements here)."""
    from flask_coverage.state import get_engine

    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    engine = get_engine()
    sa.event.listen(engine, "before_cursor_execute", record)
    yield seen
    sa.event.remove(engine, "before_cursor_execute", record)


@pytest.fixture
def widgets(app: Flask) -> Any:
    """The public repository github/acme/widgets of the organization acme (default branch main)."""
    from flask_coverage import operations

    operations.add_org("github", "acme")
    return operations.add_repo("github", "acme", "widgets")


@dataclass(frozen=True)
class HistoryTemplate:
    """A database holding the history of ``v2_history``: its URL, the ids of its repositories
    (``widgets``, ``secret``, ``dormant``) and the members' tokens."""

    url: str
    ids: dict[str, int]
    tokens: dict[str, str]
    #: PostgreSQL: every row of every table, which ``restore`` writes into the (empty) database of a test.
    rows: dict[str, list[dict[str, Any]]]

    def restore(self, engine: sa.Engine) -> None:
        with engine.begin() as connection:
            for table in metadata.sorted_tables:
                if self.rows[table.name]:
                    connection.execute(table.insert(), self.rows[table.name])
                column = table.autoincrement_column
                if column is not None:  # the ids go on after those of the rows written with theirs
                    connection.execute(
                        sa.text(
                            f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'), "
                            f"COALESCE(MAX({column.name}), 1), MAX({column.name}) IS NOT NULL) FROM {table.name}"
                        )
                    )


@pytest.fixture(scope="session")
def history_template(tmp_path_factory: pytest.TempPathFactory, pg_databases: list[str]) -> HistoryTemplate:
    """The history of ``v2_history``, built by HTTP once per session into a database of its own: the
    ``app`` of a test that uses ``history`` runs on a copy of it (on PostgreSQL, its rows are written
    into the test's database: creating and dropping a database per test costs more than building)."""
    import v2_history

    if SERVER_URL:
        url = _create_pg_database()
        pg_databases.append(url)
    else:
        url = f"sqlite:///{tmp_path_factory.mktemp('history')}/coverage.sqlite"
    app = create_test_app(url)
    with app.app_context():
        built = v2_history.build(webtest.TestApp(app), app.extensions["coverage"].db)
        ids = {name: getattr(built, name).id for name in ("widgets", "secret", "dormant")}
        app.extensions["sqlalchemy"].session.remove()
        rows: dict[str, list[dict[str, Any]]] = {}
        if SERVER_URL:
            with app.extensions["sqlalchemy"].engine.connect() as connection:
                for table in metadata.sorted_tables:
                    rows[table.name] = [dict(row._mapping) for row in connection.execute(sa.select(table))]
    dispose_engines(app)
    return HistoryTemplate(url=url, ids=ids, tokens=built.tokens, rows=rows)


@pytest.fixture
def history(app: Flask, db: Any, history_template: HistoryTemplate) -> Any:
    """The repositories, commits, branches and pulls of ``v2_history`` (from the real reports), as
    ``v2_history.build`` returns them, read from this test's copy of ``history_template``."""
    from flask_coverage.models import Repository

    repositories = {name: db.session.get(Repository, id_) for name, id_ in history_template.ids.items()}
    return SimpleNamespace(**repositories, tokens=dict(history_template.tokens))
