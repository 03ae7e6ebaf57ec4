"""Tokens in query strings never reach a request log (werkzeug's dev server, gunicorn, the extension)."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from typing import Any, Callable

import pytest
from flask import Flask

from flask_coverage.logging import PROTECTED_LOGGERS, RedactTokensFilter, install_log_filter, redact_tokens
from flask_coverage.operations import add_repo, add_user, create_token

SECRET = "0f8e2a51-6b1c-4d2e-9a7f-3c5b8d9e1f20"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "GET /api/pub/gh/a/b/settings?access_token=S HTTP/1.1",
            "GET /api/pub/gh/a/b/settings?access_token=[redacted] HTTP/1.1",
        ),
        (
            "GET /gh/a/b/graphs/tree.svg?width=5&token=S&height=9",
            "GET /gh/a/b/graphs/tree.svg?width=5&token=[redacted]&height=9",
        ),
        (
            "POST /upload/v2?commit=abc&token=S&branch=main HTTP/1.1",
            "POST /upload/v2?commit=abc&token=[redacted]&branch=main HTTP/1.1",
        ),
        ("/x?token=S&access_token=T", "/x?token=[redacted]&access_token=[redacted]"),
        ("/x?token=S&token=T", "/x?token=[redacted]&token=[redacted]"),
        ("/x?Access_Token=S", "/x?Access_Token=[redacted]"),
        ("/x?acc%65ss_token=S", "/x?acc%65ss_token=[redacted]"),
        ("/x?to%6Ben=S%20T%26U", "/x?to%6Ben=[redacted]"),
        ("/x?token=", "/x?token=[redacted]"),
        ("/x?token=a;b=c", "/x?token=[redacted]"),
        ('"GET /x?token=S HTTP/1.1" 401 -', '"GET /x?token=[redacted] HTTP/1.1" 401 -'),
        ('"GET /x?token=S"Q HTTP/1.1" 401', '"GET /x?token=[redacted] HTTP/1.1" 401'),
        ('"https://ref.example/p?token=S" "Mozilla/5.0"', '"https://ref.example/p?token=[redacted]" "Mozilla/5.0"'),
        ('"https://ref.example/p?token=S"', '"https://ref.example/p?token=[redacted]"'),
        ("access_token=S", "access_token=[redacted]"),  # gunicorn's %(q)s: the bare query string
        ("query: token=S", "query: token=[redacted]"),
        # Every separator a client or a parser might honour, and spellings the server decodes.
        ("/x?a=b;token=S&c=d", "/x?a=[redacted]&c=d"),
        ("/x?(token=S", "/x?(token=[redacted]"),
        ("/x?x=a'token=S", "/x?x=[redacted]"),
        ("/x?x=a,token=S", "/x?x=[redacted]"),
        ("/x?x=a%3Btoken%3DS", "/x?x=[redacted]"),
        ("/x?token%3DS", "/x?[redacted]"),
        ("/x?to+ken=S&+token=T", "/x?to+ken=S&+token=[redacted]"),
        ("/x?%74oken=S", "/x?%74oken=[redacted]"),
        ("a=1&next=/y&token=S", "a=1&next=/y&token=[redacted]"),
        # Not secrets: other parameters, other names that merely contain "token".
        ("/x?graph_token=G&tokens=3&page=2", "/x?graph_token=G&tokens=3&page=2"),
        ("/gh/a/token=b/graphs/tree.svg", "/gh/a/token=b/graphs/tree.svg"),
        ("no query here", "no query here"),
    ],
)
def test_redact_tokens(text: str, expected: str) -> None:
    assert redact_tokens(text.replace("S", SECRET)) == expected.replace("S", SECRET)


def make_record(msg: str, args: Any) -> logging.LogRecord:
    return logging.LogRecord("werkzeug", logging.INFO, __file__, 1, msg, args, None)


def test_the_filter_rewrites_records_with_arguments() -> None:
    flt = RedactTokensFilter()
    # werkzeug: a format and positional arguments.
    record = make_record(
        '%s - - [date] "%s" %s %s', ("127.0.0.1", f"GET /x?access_token={SECRET} HTTP/1.1", "200", "-")
    )
    assert flt.filter(record) is True
    assert record.getMessage() == '127.0.0.1 - - [date] "GET /x?access_token=[redacted] HTTP/1.1" 200 -'
    # gunicorn: a format and one mapping of "atoms".
    record = make_record('"%(r)s" %(s)s "%(f)s"', {"r": f"GET /g?token={SECRET} HTTP/1.1", "s": "200", "f": "-"})
    assert flt.filter(record) is True
    assert SECRET not in record.getMessage() and "token=[redacted]" in record.getMessage()


def test_the_filter_leaves_other_records_alone() -> None:
    record = make_record("%s%%", (50,))
    assert RedactTokensFilter().filter(record) is True
    assert (record.msg, record.args) == ("%s%%", (50,))
    broken = make_record("%d", ("not a number",))
    assert RedactTokensFilter().filter(broken) is True  # the handler reports it, as it always does


def test_init_app_installs_the_filter_once_on_the_server_loggers(
    app: Flask, make_app: Any, make_database_url: Any
) -> None:
    make_app(make_database_url())
    install_log_filter()
    for name in PROTECTED_LOGGERS:
        filters = [f for f in logging.getLogger(name).filters if isinstance(f, RedactTokensFilter)]
        assert len(filters) == 1, name


@pytest.mark.parametrize("name", ["flask_coverage", "flask_coverage.sources", "flask_coverage.state"])
def test_the_extension_loggers_redact(app: Flask, caplog: pytest.LogCaptureFixture, name: str) -> None:
    with caplog.at_level(logging.INFO, logger=name):
        logging.getLogger(name).info("upload from %s", f"/upload/v2?token={SECRET}")
    assert caplog.messages == ["upload from /upload/v2?token=[redacted]"]


def fetch(url: str, **headers: str) -> int:
    request = urllib.request.Request(url, headers=headers)  # noqa: S310 - a test server on 127.0.0.1
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


def test_the_development_server_log_shows_redacted_tokens(
    app: Flask, live_server: Callable[[Any], str], caplog: pytest.LogCaptureFixture
) -> None:
    add_user("github", "alice")
    add_repo("github", "alice", "site")
    token = create_token("github", "alice", name="ci")[1]
    base = live_server(app)
    caplog.set_level(logging.INFO, logger="werkzeug")
    assert fetch(f"{base}/api/pub/gh/alice/site/settings?access_token={token}") == 200
    assert fetch(f"{base}/api/pub/gh/alice/site/settings?access_token={SECRET}") == 401
    fetch(f"{base}/gh/alice/site/graphs/tree.svg?width=300&token={SECRET}")
    fetch(f"{base}/upload/v2?commit=abc&token={SECRET}&branch=main")
    log = "\n".join(record.getMessage() for record in caplog.records)
    assert token not in log and SECRET not in log
    lines = [
        record.getMessage()
        for record in caplog.records
        if record.name == "werkzeug" and " HTTP/1.1" in record.getMessage()
    ]
    assert len(lines) == 4, log
    assert "GET /api/pub/gh/alice/site/settings?access_token=[redacted] HTTP/1.1" in lines[0]
    assert '" 200 ' in lines[0] and '" 401 ' in lines[1]
    assert "/gh/alice/site/graphs/tree.svg?width=300&token=[redacted]" in lines[2]
    assert "/upload/v2?commit=abc&token=[redacted]&branch=main" in lines[3]


GUNICORN_APP = """
from flask import Flask
from flask_coverage import CoverageService
from flask_coverage.operations import init_db

app = Flask(__name__)
app.config["SQLALCHEMY_DATABASE_URI"] = {database_url!r}
CoverageService(app)
with app.app_context():
    init_db()
"""


@pytest.mark.production
def test_the_gunicorn_access_log_shows_redacted_tokens(tmp_path: Any) -> None:
    pytest.importorskip("gunicorn")
    (tmp_path / "host_app.py").write_text(
        textwrap.dedent(GUNICORN_APP.format(database_url=f"sqlite:///{tmp_path}/g.sqlite"))
    )
    access_log = tmp_path / "access.log"
    # The test binds the socket and hands it over, so the port is known and never raced for.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    server = subprocess.Popen(  # noqa: S603 - fixed arguments
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--bind",
            f"fd://{listener.fileno()}",
            "--workers",
            "1",
            "--chdir",
            str(tmp_path),
            "--access-logfile",
            str(access_log),
            "--error-logfile",
            str(tmp_path / "error.log"),
            "host_app:app",
        ],  # fmt: skip
        pass_fds=[listener.fileno()],
        # Recent gunicorn versions open a control socket there; keep it out of the home directory.
        env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)},
    )
    listener.close()
    try:
        base = f"http://127.0.0.1:{port}"
        assert fetch(f"{base}/api/pub/gh/alice/site/settings?access_token={SECRET}&keep=visible") == 401
        fetch(f"{base}/gh/alice/site/graphs/tree.svg?token={SECRET}", Referer=f"https://ci.example/?token={SECRET}")
        fetch(f"{base}/upload/v2?token={SECRET}&commit=abc")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    log = access_log.read_text()
    lines = log.splitlines()
    assert len(lines) == 3, log
    assert SECRET not in log + (tmp_path / "error.log").read_text()
    # gunicorn's default format: the raw request line and the Referer, both with their query strings.
    assert '"GET /api/pub/gh/alice/site/settings?access_token=[redacted]&keep=visible HTTP/1.1" 401' in lines[0]
    assert '"GET /gh/alice/site/graphs/tree.svg?token=[redacted] HTTP/1.1"' in lines[1]
    assert '"https://ci.example/?token=[redacted]"' in lines[1]
    assert '"GET /upload/v2?token=[redacted]&commit=abc HTTP/1.1"' in lines[2]
