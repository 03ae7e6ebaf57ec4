"""The production setup of docs/deployment.md, started for tests/test_production.py and the load and fault
tests in benchmarks/ (a test-support module: tests import it directly, benchmarks put tests/ on ``sys.path``).

:func:`production_service` seeds a scratch PostgreSQL database (an organization of 200 members, an
access token, 4 repositories with a first report), takes a Redis key prefix of its own for the
graph cache, and starts gunicorn with sync workers serving :func:`create_app` on a free 127.0.0.1
port. Everything is removed afterwards: the database, the Redis keys, the processes.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_DATABASE_URL = os.environ.get("COVERAGE_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
ORG, USER, REPOS, MEMBERS = "loadco", "loader", 4, 200
SEED_REPORT = ROOT / "tests" / "data" / "d3-hierarchy.lcov"


def create_app() -> Any:
    """The app gunicorn serves: the production setup, configured from ``LOAD_TEST_*`` variables."""
    from flask import Flask

    from flask_coverage import CoverageService

    app = Flask("load_test")
    database_url = os.environ["LOAD_TEST_DATABASE_URL"]
    app.config.update(
        SQLALCHEMY_DATABASE_URI=database_url,
        # pool_pre_ping comes from the extension's defaults; a dead server must not hang a worker.
        SQLALCHEMY_ENGINE_OPTIONS={"connect_args": {"connect_timeout": 5}}
        if database_url.startswith("postgres")
        else {},
        COVERAGE_CACHE_CONFIG={
            "CACHE_TYPE": "RedisCache",
            "CACHE_REDIS_URL": os.environ["LOAD_TEST_REDIS_URL"],
            "CACHE_KEY_PREFIX": os.environ["LOAD_TEST_CACHE_PREFIX"],
            "CACHE_DEFAULT_TIMEOUT": 86400,
            "CACHE_OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2},
        },
    )
    CoverageService(app)

    @app.after_request
    def worker_pid(response: Any) -> Any:
        response.headers["X-Worker-Pid"] = str(os.getpid())  # which worker answered, for the tests
        return response

    return app


@contextlib.contextmanager
def scratch_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the server of ``server_url``; dropped afterwards (retried while the
    server restarts)."""
    import sqlalchemy as sa

    name = f"flask_coverage_load_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        for attempt in range(30):
            with contextlib.suppress(sa.exc.OperationalError) if attempt < 29 else contextlib.nullcontext():
                with admin.connect() as connection:
                    connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                break
            time.sleep(1)


@contextlib.contextmanager
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A cache key prefix of this run; its keys are deleted afterwards."""
    import redis

    prefix = f"flask-coverage-load-{uuid.uuid4().hex[:10]}:"
    try:
        yield prefix
    finally:
        client = redis.Redis.from_url(redis_url)
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)
        client.close()


class Gunicorn:
    """gunicorn serving ``app`` with ``workers`` sync workers on a free 127.0.0.1 port."""

    def __init__(
        self, app: str, *, workers: int, env: dict[str, str], chdir: Path, log_dir: str, extra_args: Sequence[str] = ()
    ) -> None:
        self.app, self.workers, self.env, self.chdir, self.log_dir = app, workers, env, chdir, log_dir
        self.extra_args = list(extra_args)  # more gunicorn options (an access log, say)
        self.port = 0
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.log_path = Path(log_dir) / "gunicorn.log"

    def __enter__(self) -> Gunicorn:
        # Bound here and handed over, so the port is known and never raced for.
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(128)
            self.port = listener.getsockname()[1]
            # gunicorn's error log, and whatever the workers write (tracebacks, warnings), in one file.
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(  # noqa: S603 - a fixed argv of our own
                    [sys.executable, "-m", "gunicorn", "--bind", f"fd://{listener.fileno()}",
                     "--workers", str(self.workers), "--timeout", "60", "--graceful-timeout", "10",
                     "--chdir", str(self.chdir), *self.extra_args, self.app],
                    pass_fds=[listener.fileno()],
                    env={**os.environ, **self.env, "XDG_RUNTIME_DIR": self.log_dir},
                    stdout=log,
                    stderr=log,
                )  # fmt: skip
        try:
            self.wait_ready()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def worker_pids(self) -> list[int]:
        """The pids of the master's children, its workers."""
        assert self.process is not None
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    # Field 4 of /proc/PID/stat is the parent pid (after the ")" that ends the name).
                    if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == self.process.pid:
                        pids.append(int(entry.name))
        return sorted(pids)

    def wait_ready(self, timeout: float = 60) -> None:
        """Until every worker runs and the health check answers 200."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}:\n{self.log_path.read_text()}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                if len(self.worker_pids()) == self.workers and fetch(self.port, "GET", "/_coverage/health")[0] == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("gunicorn did not get ready in time")


def fetch(
    port: int, method: str, path: str, body: Optional[bytes] = None, **headers: str
) -> tuple[int, bytes, http.client.HTTPMessage]:
    """One request on a new connection: ``(status, body, headers)``. Raises OSError when it is cut."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read(), response.headers
    finally:
        connection.close()


def seed(database_url: str, repos: int = REPOS) -> dict[str, Any]:
    """Create the tables and the data the clients use; returns their tokens and names."""
    from flask import Flask

    from flask_coverage import CoverageService, operations
    from flask_coverage.ingest import upload_report

    app = Flask("load_test_seed")
    app.config.update(SQLALCHEMY_DATABASE_URI=database_url)
    CoverageService(app)
    with app.app_context():
        operations.init_db()
        operations.add_org("github", ORG)
        for k in range(MEMBERS):
            name = USER if k == 0 else f"member{k:03d}"
            operations.add_user("github", name, name=f"Member {k}", email=f"{name}@example.com")
            # The load's own user (k == 0) is an active admin: a deactivated member reads nothing.
            operations.add_member("github", ORG, name, activated=k == 0 or k % 3 != 0, admin=k % 10 == 0)
        access_token = operations.create_token("github", USER, name="load")[1]
        upload_tokens, seed_shas = {}, {}
        for r in range(repos):
            repository = operations.add_repo("github", ORG, f"repo{r}")
            upload_tokens[repository.name] = repository.upload_token
            seed_shas[repository.name] = f"{r:02d}".ljust(40, "a")
            upload_report(repository, SEED_REPORT.read_bytes(), commit=seed_shas[repository.name], branch="main")
        app.extensions["sqlalchemy"].engine.dispose()
    return {"access_token": access_token, "upload_tokens": upload_tokens, "seed_shas": seed_shas}


@contextlib.contextmanager
def production_service(
    database_url: str, redis_url: str, workers: int, extra_args: Sequence[str] = ()
) -> Iterator[tuple[Gunicorn, dict[str, Any]]]:
    """A seeded scratch database, a Redis prefix and gunicorn serving them; all cleaned up after.

    ``extra_args`` are more gunicorn options (they win over the ones :class:`Gunicorn` sets)."""
    with scratch_database(database_url) as url, redis_prefix(redis_url) as prefix:
        seeded = seed(url)
        seeded["database_url"] = url
        env = {"LOAD_TEST_DATABASE_URL": url, "LOAD_TEST_REDIS_URL": redis_url, "LOAD_TEST_CACHE_PREFIX": prefix}
        with (
            tempfile.TemporaryDirectory() as logs,
            Gunicorn(
                "production_service:create_app()",
                workers=workers,
                env=env,
                chdir=ROOT / "tests",
                log_dir=logs,
                extra_args=extra_args,
            ) as server,
        ):
            yield server, seeded
