"""The published uploaders, as released and unchanged, against a live server on loopback.

``codecov-cli`` 11.3.1 (what the Codecov GitHub Action runs) and the legacy Python uploader ``codecov``
2.1.13 are installed from PyPI into a virtualenv, and the legacy Node uploader ``codecov@3.8.3`` from
npm, under ``COVERAGE_CLIENTS_DIR`` (default ``~/.cache/flask-coverage-clients``), once. gunicorn serves
the app on a free 127.0.0.1 port, with its access log, on the engine under test (SQLite, or PostgreSQL
with ``COVERAGE_TEST_DATABASE_URL``). Marked ``clients``: the tox env "clients" runs these alone.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from production_service import Gunicorn

from flask_coverage.parsers import merge_by_path, parse_report

pytestmark = pytest.mark.clients

DATA = Path(__file__).parent / "data"
CLIENTS_DIR = Path(os.environ.get("COVERAGE_CLIENTS_DIR") or Path.home() / ".cache" / "flask-coverage-clients")
PYTHON_CLIENTS = ["codecov==2.1.13", "codecov-cli==11.3.1"]
NPM_CLIENT = "codecov@3.8.3"
#: The three formats of one project's real report.
REPORTS = ["flask-sqlalchemy.coverage.xml", "flask-sqlalchemy.coverage.json", "flask-sqlalchemy.lcov"]
SECRET_KEY = "real-uploaders-test"


def create_app(database_url: Optional[str] = None) -> Any:
    """The app gunicorn serves: the service on ``database_url``, else ``CLIENTS_TEST_DATABASE_URL``."""
    from flask import Flask

    from flask_coverage import CoverageService

    app = Flask("real_uploaders")
    app.config.update(
        SECRET_KEY=SECRET_KEY, SQLALCHEMY_DATABASE_URI=database_url or os.environ["CLIENTS_TEST_DATABASE_URL"]
    )
    CoverageService(app)
    return app


def install_clients(directory: Path = CLIENTS_DIR) -> dict[str, str]:
    """The paths of ``codecovcli``, ``codecov`` (Python) and ``codecov`` (npm), installed in ``directory`` once."""
    directory.mkdir(parents=True, exist_ok=True)
    venv, npm = directory / "python", directory / "npm"
    with open(directory / ".lock", "w") as lock:  # one installer at a time across test runs
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = venv / "installed.txt"
        if not marker.exists() or marker.read_text() != " ".join(PYTHON_CLIENTS):
            run([sys.executable, "-m", "venv", "--clear", str(venv)], directory, check=True)
            run([str(venv / "bin" / "pip"), "install", "-q", *PYTHON_CLIENTS], directory, check=True)
            marker.write_text(" ".join(PYTHON_CLIENTS))
        package = npm / "node_modules" / "codecov" / "package.json"
        if not package.exists() or json.loads(package.read_text())["version"] != NPM_CLIENT.split("@")[1]:
            npm_install = ["npm", "install", "--prefix", str(npm), "--no-audit", "--no-fund", "--loglevel=error"]
            run([*npm_install, NPM_CLIENT], directory, check=True)
    return {
        "codecovcli": str(venv / "bin" / "codecovcli"),
        "python": str(venv / "bin" / "codecov"),
        "npm": str(npm / "node_modules" / ".bin" / "codecov"),
    }


def seed(database_url: str) -> str:
    """The tables and the repository github/acme/widgets in ``database_url``; returns its upload token."""
    from flask_coverage import operations

    app = create_app(database_url)
    with app.app_context():
        operations.init_db()
        operations.add_org("github", "acme")
        token = operations.add_repo("github", "acme", "widgets").upload_token
    with app.app_context():  # after the first context gave its connection back
        app.extensions["sqlalchemy"].engine.dispose()
    return token


@pytest.fixture(scope="session")
def clients() -> dict[str, str]:
    return install_clients()


@pytest.fixture(scope="module")
def server(module_database_url: str) -> Iterator[dict[str, Any]]:
    """gunicorn (4 workers) serving :func:`create_app` with the repository github/acme/widgets."""
    token = seed(module_database_url)
    with tempfile.TemporaryDirectory() as log_dir:
        access_log = Path(log_dir) / "access.log"
        env = {"CLIENTS_TEST_DATABASE_URL": module_database_url, "PYTHONPATH": str(Path(__file__).parent.parent)}
        gunicorn = Gunicorn(
            "test_real_uploaders:create_app()",
            workers=4,
            env=env,
            chdir=Path(__file__).parent,
            log_dir=log_dir,
            extra_args=["--access-logfile", str(access_log)],
        )
        with gunicorn:
            yield {"url": f"http://127.0.0.1:{gunicorn.port}", "token": token, "access_log": access_log}


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git checkout holding the real reports (the uploaders read the branch and files from git)."""
    for name in REPORTS:
        (tmp_path / name).write_bytes((DATA / name).read_bytes())
    git = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci"]
    run([*git, "init", "-q", "-b", "main", "."], tmp_path, check=True)
    run([*git, "add", "-A"], tmp_path, check=True)
    run([*git, "commit", "-q", "-m", "reports"], tmp_path, check=True)
    return tmp_path


def run(argv: list[str], cwd: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    """``argv`` run in ``cwd`` (output captured); with ``check``, a failure fails the test with its output."""
    result = subprocess.run(argv, cwd=cwd, env=client_env(), capture_output=True, text=True, timeout=300)  # noqa: S603 - fixed argv: the pinned clients, git, pip, npm
    if check and result.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed:\n{result.stdout}\n{result.stderr}")
    return result


def client_env() -> dict[str, str]:
    # No CI variables of the machine running the tests: each client sees a plain local checkout.
    return {key: value for key, value in os.environ.items() if not key.startswith(("GITHUB_", "CI", "CODECOV"))}


def get(server: dict[str, Any], path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(server["url"] + path, timeout=60) as response:  # noqa: S310 - http://127.0.0.1
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def report_totals(name: str) -> dict[str, tuple[int, int, int, int]]:
    """Each file's (lines, hits, misses, partials) as the report itself states them."""
    files = merge_by_path(parse_report((DATA / name).read_bytes()))
    totals = {path: lines.totals() for path, lines in files.items()}
    return {path: (t.lines, t.hits, t.misses, t.partials) for path, t in totals.items()}


def api_totals(server: dict[str, Any], sha: str) -> dict[str, tuple[int, int, int, int]]:
    status, body = get(server, f"/api/v2/github/acme/repos/widgets/report/?sha={sha}")
    assert status == 200, body
    return {
        file["name"]: tuple(file["totals"][key] for key in ("lines", "hits", "misses", "partials"))
        for file in json.loads(body)["files"]
    }


def sha_for(label: str) -> str:
    return hashlib.sha256(label.encode()).hexdigest()[:40]


def codecovcli(
    clients: dict[str, str], server: dict[str, Any], command: list[str], sha: str, **options: str
) -> list[str]:
    argv = [clients["codecovcli"], "--enterprise-url", server["url"], *command, "-C", sha, "-r", "acme/widgets"]
    argv += ["-t", options.pop("token", server["token"]), "--git-service", "github", "--disable-search", "-Z"]
    for flag, value in options.items():
        argv += [f"--{flag.replace('_', '-')}", value]
    return argv


@pytest.mark.parametrize("report", REPORTS)
def test_codecovcli_upload_process_with_a_pull_request_and_flags(clients, server, checkout, report) -> None:
    sha, branch, pull = sha_for("process" + report), f"feature/{report}", str(100 + REPORTS.index(report))
    argv = codecovcli(
        clients, server, ["upload-process"], sha, file=report, branch=branch, pr=pull, flag="unit", name="linux"
    )
    result = run(argv, checkout)
    assert result.returncode == 0, result.stderr + result.stdout
    assert api_totals(server, sha) == report_totals(report)
    for target in [f"branch/{branch}", f"pull/{pull}"]:
        status, body = get(server, f"/gh/acme/widgets/{target}/graphs/tree.svg")
        assert status == 200 and body.startswith(b"<svg"), (target, status)
    status, body = get(server, f"/api/v2/github/acme/repos/widgets/commits/{sha}/uploads/")
    (upload,) = json.loads(body)["results"]
    assert (upload["flags"], upload["name"], upload["provider"]) == (["unit"], "linux", "local")


@pytest.mark.parametrize("report", REPORTS)
def test_codecovcli_upload_coverage(clients, server, checkout, report) -> None:
    sha = sha_for("coverage" + report)
    result = run(codecovcli(clients, server, ["upload-coverage"], sha, file=report, branch="main"), checkout)
    assert result.returncode == 0, result.stderr + result.stdout
    assert api_totals(server, sha) == report_totals(report)


@pytest.mark.parametrize("report", REPORTS)
def test_codecovcli_do_upload_legacy(clients, server, checkout, report) -> None:
    sha = sha_for("legacy" + report)
    result = run(codecovcli(clients, server, ["do-upload", "--legacy"], sha, file=report, branch="main"), checkout)
    assert result.returncode == 0, result.stderr + result.stdout
    assert api_totals(server, sha) == report_totals(report)


def requests_for(server: dict[str, Any], sha: str) -> list[str]:
    """The request lines of the server's access log that name ``sha``, and the PUTs after the first."""
    lines = server["access_log"].read_text().splitlines()
    first = next(index for index, line in enumerate(lines) if sha in line)
    return [line.split('"')[1] for line in lines[first:] if sha in line or '"PUT ' in line]


@pytest.mark.parametrize("report", REPORTS)
def test_the_legacy_python_uploader_makes_one_v4_request(clients, server, checkout, report) -> None:
    sha = sha_for("python" + report)
    argv = [clients["python"], "--url", server["url"], "-t", server["token"], "-c", sha, "-b", "main", "-f", report]
    result = run([*argv, "--required", "-F", "unit", "-n", "py"], checkout)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "Retrying" not in result.stdout and "backup v2" not in result.stdout
    assert api_totals(server, sha) == report_totals(report)
    (post, upload) = requests_for(server, sha)[:2]
    assert post.startswith("POST /upload/v4?") and upload == "PUT /upload/put?signature=[redacted] HTTP/1.1"
    lines = requests_for(server, sha)
    assert sum("/upload/v4" in line for line in lines) == 1 and not any("/upload/v2" in line for line in lines)


@pytest.mark.parametrize("report", REPORTS)
def test_the_npm_uploader(clients, server, checkout, report) -> None:
    sha = sha_for("npm" + report)
    result = run(
        [clients["npm"], "-u", server["url"], "-t", server["token"], "-c", sha, "-b", "main", "-f", report], checkout
    )
    assert result.returncode == 0 and "Success!" in result.stdout, result.stderr + result.stdout
    assert f"View report at: {server['url']}/gh/acme/widgets/commit/{sha}\n" in result.stdout
    assert api_totals(server, sha) == report_totals(report)


MESSAGE = "Upload refused: the upload token is not valid."


def test_a_wrong_token_makes_each_client_fail_with_our_message(clients, server, checkout) -> None:
    sha, report = sha_for("wrong"), REPORTS[2]
    for command in (["upload-process"], ["upload-coverage"], ["do-upload", "--legacy"]):
        result = run(codecovcli(clients, server, command, sha, file=report, token="0" * 36), checkout)
        assert result.returncode == 1 and MESSAGE in result.stderr + result.stdout, command
    python = [clients["python"], "--url", server["url"], "-t", "0" * 36, "-c", sha, "-f", report, "--required"]
    result = run(python, checkout)
    assert result.returncode == 1 and f"Error: {MESSAGE}" in result.stdout.replace("\x1b[0m\x1b[91m", "")
    # The npm uploader prints the refusal; it never sets an exit status of its own (bin/codecov).
    result = run([clients["npm"], "-u", server["url"], "-t", "0" * 36, "-c", sha, "-f", report], checkout)
    assert f"Could not upload to Codecov: {MESSAGE}" in result.stdout
    assert get(server, f"/api/v2/github/acme/repos/widgets/report/?sha={sha}")[0] == 404


def test_eight_parallel_codecovcli_uploads_to_one_commit_lose_no_line(clients, server, checkout, make_lcov) -> None:
    sha = sha_for("parallel")
    reports = {}
    for k in range(8):
        files = {f"pkg{k}/mod{j}.py": {line: (line + k) % 3 for line in range(1, 200)} for j in range(25)}
        files["shared.py"] = {line: 1 for line in range(1 + 10 * k, 11 + 10 * k)}
        (checkout / f"part{k}.lcov").write_bytes(make_lcov(files))
        reports[k] = files
    processes = [
        subprocess.Popen(  # noqa: S603 - fixed argv: the pinned codecovcli
            codecovcli(clients, server, ["upload-process"], sha, file=f"part{k}.lcov", branch="main", name=f"part{k}"),
            cwd=checkout,
            env=client_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for k in range(8)
    ]
    outputs = [process.communicate(timeout=180)[0] for process in processes]
    assert all(process.returncode == 0 for process in processes), outputs
    expected: dict[str, set[int]] = {}
    for files in reports.values():
        for path, lines in files.items():
            expected.setdefault(path, set()).update(lines)
    stored = api_totals(server, sha)
    assert {path: totals[0] for path, totals in stored.items()} == {
        path: len(lines) for path, lines in expected.items()
    }
    assert stored["shared.py"] == (80, 80, 0, 0)
    status, body = get(server, f"/api/v2/github/acme/repos/widgets/commits/{sha}/uploads/?page_size=100")
    assert sorted(upload["name"] for upload in json.loads(body)["results"]) == [f"part{k}" for k in range(8)]


def set_repository_yaml(database_url: str, text: Optional[str]) -> None:
    from flask_coverage import operations

    app = create_app(database_url)
    with app.app_context():
        operations.set_repository_yaml("github", "acme", "widgets", text)
        app.extensions["sqlalchemy"].engine.dispose()


def merged_totals(*names: str) -> dict[str, tuple[int, int, int, int]]:
    """Each file's (lines, hits, misses, partials) of the reports merged, by the parsers alone."""
    files = merge_by_path(parsed for name in names for parsed in parse_report((DATA / name).read_bytes()))
    totals = {path: lines.totals() for path, lines in files.items()}
    return {path: (t.lines, t.hits, t.misses, t.partials) for path, t in totals.items()}


def test_codecovcli_carries_a_flag_the_pull_head_did_not_upload(clients, server, checkout, module_database_url) -> None:
    set_repository_yaml(
        module_database_url, "flags:\n  unit: {carryforward: true}\n  integration: {carryforward: true}\n"
    )
    other = "marshmallow.coverage.json"  # another project's files: the integration suite's, here
    (checkout / other).write_bytes((DATA / other).read_bytes())
    base, head = sha_for("carryforward base"), sha_for("carryforward head")
    try:
        for report, flag in ((REPORTS[2], "unit"), (other, "integration")):
            argv = codecovcli(clients, server, ["upload-process"], base, file=report, branch="main", flag=flag)
            assert run(argv, checkout).returncode == 0
        options = {"branch": "feature/cf", "pr": "300", "parent_sha": base}
        argv = codecovcli(clients, server, ["upload-process"], head, file=REPORTS[0], flag="unit", **options)
        result = run(argv, checkout)
        assert result.returncode == 0, result.stderr + result.stdout
        assert api_totals(server, head) == merged_totals(REPORTS[0], other)
        status, body = get(server, f"/api/v2/github/acme/repos/widgets/commits/{head}/uploads/")
        kinds = sorted(
            (upload["flags"], upload["upload_type"], upload["carriedforward_from"])
            for upload in json.loads(body)["results"]
        )
        assert kinds == [(["integration"], "carriedforward", base), (["unit"], "uploaded", None)]
        status, page = get(server, "/gh/acme/widgets/pull/300")
        assert status == 200 and b"(carried forward)" in page

        argv = codecovcli(clients, server, ["upload-process"], head, file=REPORTS[1], flag="integration", **options)
        assert run(argv, checkout).returncode == 0
        assert api_totals(server, head) == merged_totals(REPORTS[0], REPORTS[1])
        status, page = get(server, "/gh/acme/widgets/pull/300")
        assert status == 200 and b"carried forward" not in page
    finally:
        set_repository_yaml(module_database_url, None)
