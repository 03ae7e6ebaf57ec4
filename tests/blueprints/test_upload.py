"""POST /upload/v2: the Codecov v2 upload protocol over real HTTP (WebTest)."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from werkzeug.test import EnvironBuilder

from flask_coverage.ingest.envelope import read_envelope
from flask_coverage.lines import HIT
from flask_coverage.queries.files import file_lines, file_totals
from flask_coverage.queries.targets import resolve_commit

DATA = Path(__file__).parent.parent / "data"
SHA = "d" * 40
XML = (DATA / "flask-sqlalchemy.coverage.xml").read_bytes()


def upload_url(**params: str | None) -> str:
    """The upload URL for commit SHA with ``params``; a ``None`` value leaves the argument out."""
    query = {"commit": SHA, **params}
    return "/upload/v2?" + urlencode({name: value for name, value in query.items() if value is not None})


def post(testapp, url: str, body: bytes, status: int = 200, **headers: str):
    headers.setdefault("Content-Type", "text/plain")
    return testapp.post(url, body, headers=headers, status=status)


def test_upload_answers_with_the_commit_url(testapp, widgets) -> None:
    response = post(testapp, upload_url(token=widgets.upload_token, branch="main"), XML)
    assert response.content_type == "text/plain"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    blank, url, summary, end = response.text.split("\n")
    page_url = f"http://localhost/gh/acme/widgets/commit/{SHA}"  # the commit's page
    assert (blank, url, end) == ("", page_url, "")
    assert testapp.get(url).html.select_one("h1").text == f"Commit {SHA[:12]}"
    summary = json.loads(summary)
    assert summary["uploaded"] is True and summary["url"] == page_url
    assert (summary["commit"], summary["version"], summary["files"]) == (SHA, 1, 10)
    assert '"uploaded": true' in response.text  # what the last bash uploaders look for
    commit = resolve_commit(widgets)
    assert commit.sha == SHA and commit.files == 10
    assert commit.lines == 735 and commit.hits + commit.partials == 670  # lines-valid, lines-covered


def test_the_answer_follows_the_configured_url_prefixes(make_app, make_database_url, make_lcov) -> None:
    import webtest

    from flask_coverage import operations

    def mounted(**prefixes: Any) -> tuple[Any, str]:
        app = make_app(make_database_url(), COVERAGE_UPLOAD_URL_PREFIX="/cov", **prefixes)
        with app.app_context():
            operations.add_org("gitlab", "acme")
            token = operations.add_repo("gitlab", "acme", "widgets").upload_token
        return webtest.TestApp(app, extra_environ={"HTTP_HOST": "cov.example.org", "SCRIPT_NAME": "/app"}), token

    testapp, token = mounted(COVERAGE_WEB_URL_PREFIX="/web")
    response = post(testapp, "/app/cov" + upload_url(token=token), make_lcov({"a.py": {1: 1}}))
    assert response.text.split("\n")[1] == f"http://cov.example.org/app/web/gl/acme/widgets/commit/{SHA}"
    # Without the web pages: the commit's tree graph.
    testapp, token = mounted(COVERAGE_WEB_URL_PREFIX=None, COVERAGE_GRAPH_URL_PREFIX="/graphs")
    response = post(testapp, "/app/cov" + upload_url(token=token), make_lcov({"a.py": {1: 1}}))
    assert (
        response.text.split("\n")[1]
        == f"http://cov.example.org/app/graphs/gl/acme/widgets/commit/{SHA}/graphs/tree.svg"
    )
    post(testapp, "/app" + upload_url(token=token), b"", status=404)


def test_the_token_may_come_in_a_header(testapp, widgets, make_lcov) -> None:
    token = widgets.upload_token
    post(testapp, upload_url(), make_lcov({"a.py": {1: 1}}), Authorization=f"token {token}")
    post(testapp, upload_url(), make_lcov({"b.py": {1: 1}}), **{"X-Upload-Token": token})
    assert resolve_commit(widgets, sha=SHA).files == 2


def test_codecov_uploader_arguments_are_accepted(testapp, widgets, make_lcov) -> None:
    extra = {
        "branch": "origin/feature/x",
        "pr": "17",
        "build": "123",
        "job": "4",
        "slug": "someone/else",
        "service": "github-actions",
        "package": "bash-1.0.6",
        "flags": "unit,py39",
        "name": "job name",
        "build_url": "https://ci.example.org/1",
        "yaml": "codecov.yml",
    }
    post(testapp, upload_url(token=widgets.upload_token, **extra), make_lcov({"a.py": {1: 1}}))
    commit = resolve_commit(widgets, branch="feature/x")
    assert commit.sha == SHA and commit.pullid == 17
    assert resolve_commit(widgets, pullid=17).id == commit.id


def test_pr_words_of_non_pull_request_builds_mean_no_pull(testapp, widgets, make_lcov) -> None:
    for k, pr in enumerate(["false", "null", "undefined", "true", ""]):
        post(testapp, upload_url(token=widgets.upload_token, pr=pr), make_lcov({f"{k}.py": {1: 1}}))
    commit = resolve_commit(widgets, sha=SHA)
    assert (commit.version, commit.files, commit.pullid) == (5, 5, None)


def test_gzip_bodies_are_decompressed(testapp, widgets, make_lcov) -> None:
    first = gzip.compress(make_lcov({"a.py": {1: 1}}))
    post(testapp, upload_url(token=widgets.upload_token), first, **{"Content-Encoding": "gzip"})
    # Without the header (gzip magic), and in two members as `cat a.gz b.gz` makes.
    second = gzip.compress(b"SF:b.py\nDA:1,1\n") + gzip.compress(b"end_of_record\n")
    post(testapp, upload_url(token=widgets.upload_token), second)
    third = gzip.compress(make_lcov({"a.py": {1: 2}}))
    post(testapp, upload_url(token=widgets.upload_token), third, **{"X-Content-Encoding": "gzip"})
    commit = resolve_commit(widgets, sha=SHA)
    assert commit.version == 3
    assert list(file_lines(commit, "a.py")) == [(1, 3, HIT)]
    assert list(file_lines(commit, "b.py")) == [(1, 1, HIT)]


ENVELOPE = b"""CI=true
CODECOV_ENV=secret-env-value
<<<<<< ENV
src/a.py
src/b.py
<<<<<< network
# path=coverage/lcov.info
SF:src/a.py
DA:1,1
DA:2,0
end_of_record
<<<<<< EOF
# path=coverage.xml
%s
<<<<<< EOF
# path=fixes
src/a.py:3,4
<<<<<< EOF
"""


def test_every_report_of_the_envelope_is_merged(testapp, widgets) -> None:
    body = ENVELOPE % XML
    post(testapp, upload_url(token=widgets.upload_token), gzip.compress(body), **{"Content-Encoding": "gzip"})
    commit = resolve_commit(widgets, sha=SHA)
    assert commit.version == 1
    paths = [row.path for row in file_totals(commit)]
    assert "src/a.py" in paths and "src/flask_sqlalchemy/model.py" in paths and len(paths) == 11
    assert list(file_lines(commit, "src/a.py")) == [(1, 1, HIT), (2, 0, 1)]


def split_envelope(body: bytes) -> list:
    return read_envelope(body).reports


def test_split_envelope() -> None:
    plain = b"SF:a.py\nend_of_record\n"
    assert [(name, bytes(part)) for name, part in split_envelope(plain)] == [("", plain)]
    body = b"a.py\n<<<<<< network\n\n# path=one.info\r\nONE\n<<<<<< EOF\r\nTWO\n<<<<<< EOF\n\n"
    assert [(name, bytes(part)) for name, part in split_envelope(body)] == [("one.info", b"ONE\n"), ("#2", b"TWO\n")]
    assert [(name, bytes(part)) for name, part in split_envelope(b"# path=x\n<<<<<< EOF")] == [("x", b"")]
    assert split_envelope(b"<<<<<< network\n<<<<<< EOF\n") == []


def test_unknown_upload_paths_answer_a_text_404(testapp) -> None:
    for path in ("/upload/v3", "/upload/v5", "/upload/github/a/b/c/d/e/f", "/upload/put/x"):
        for method in (testapp.post, testapp.get):
            response = method(path, status=404)
            assert response.content_type == "text/plain"
            assert response.text.startswith("Not found: no upload endpoint here")
            assert "<" not in response.text


def test_get_is_not_allowed(testapp) -> None:
    testapp.get("/upload/v2", status=405)


UNCHANGED_ERRORS = [
    # (url arguments, body, headers, status, message)
    ({"token": None}, XML, {}, 401, "upload token is missing"),
    ({"token": "not-a-token"}, XML, {}, 401, "upload token is not valid"),
    ({"token": "0" * 8 + "-0000-4000-8000-" + "0" * 12}, XML, {}, 401, "upload token is not valid"),
    ({"token": "a\x00b"}, XML, {}, 401, "upload token is not valid"),
    ({"token": "x" * 5000}, XML, {}, 401, "upload token is not valid"),
    ({"commit": ""}, XML, {}, 400, "commit sha is missing"),
    ({"commit": "z" * 40}, XML, {}, 400, "full sha"),
    ({"commit": "abc1234"}, XML, {}, 400, "full sha"),
    ({"pr": "12a"}, XML, {}, 400, "pull request number"),
    ({"pr": "-1"}, XML, {}, 400, "pull request number"),
    ({"branch": "a\x07b"}, XML, {}, 400, "branch"),
    ({}, b"", {}, 400, "empty report"),
    ({}, XML[:3000], {}, 400, "XML"),
    ({}, bytes(range(1, 256)) * 4, {}, 400, "unknown report format"),
    ({}, b"<svg/>", {}, 400, "unknown report format"),
    ({}, b'<!DOCTYPE coverage [<!ENTITY x "y">]><coverage/>', {}, 400, "entities"),
    ({}, b'<!DOCTYPE coverage [<!ENTITY x SYSTEM "file:///etc/passwd">]><coverage>&x;</coverage>', {}, 400, "entit"),
    ({}, b"SF:a.py\nDA:1,1e40\nend_of_record\n", {}, 400, "hit count"),
    ({}, b'{"meta": {}, "files": {"\\udfff": {"executed_lines": [1], "missing_lines": []}}}', {}, 400, "U\\+DFFF"),
    ({}, b"SF:src/c1\xc2\x85ctl.py\nDA:1,1\nend_of_record\n", {}, 400, "must not contain control, format"),
    ({}, b"SF:\xe2\x80\xaegnp.py\nDA:1,1\nend_of_record\n", {}, 400, r"it holds U\+202E"),
    ({"branch": "a\u2066b"}, XML, {}, 400, r"branch must not contain control, format .* \(it holds U\+2066\)"),
    ({}, b"\x1f\x8b\x08" + b"\x00" * 7 + b"\xff" * 50, {}, 400, "not valid gzip"),
    ({}, gzip.compress(XML)[:200], {}, 400, "truncated"),
    ({}, gzip.compress(b"") * 50_000, {}, 400, "the body has more than 1000 gzip members"),
    ({}, gzip.compress(XML) + b"\0" * 10, {"Content-Encoding": "gzip"}, 400, "not valid gzip"),
    ({}, XML, {"Content-Encoding": "br"}, 415, "unsupported Content-Encoding"),
    ({}, ENVELOPE % b"<coverage><packages>", {}, 400, "report 'coverage.xml': .*truncated"),
    ({}, b"<<<<<< network\n<<<<<< EOF\n", {}, 400, "no files"),
]


def test_bad_uploads_are_refused_with_a_message_and_change_nothing(testapp, widgets, make_lcov, snapshot) -> None:
    token = widgets.upload_token
    post(testapp, upload_url(token=token, branch="main", pr="1"), make_lcov({"kept.py": {1: 1}}))
    before = snapshot()
    for arguments, body, headers, status, message in UNCHANGED_ERRORS:
        url = upload_url(**{"token": token, "branch": "other", "pr": "2", **arguments})
        response = post(testapp, url, body, status=status, **headers)
        assert response.content_type == "text/plain", arguments
        assert response.text.startswith("Upload refused: "), response.text
        assert response.text.count("\n") == 1
        assert re.search(message, response.text), (message, response.text)
        assert token not in response.text
        assert snapshot() == before, (arguments, message)


def test_a_missing_token_is_401(testapp, widgets) -> None:
    response = testapp.post(f"/upload/v2?commit={SHA}", XML, status=401)
    assert "upload token is missing" in response.text


def test_a_deleted_repository_is_404(testapp, widgets, db) -> None:
    token = widgets.upload_token
    widgets.deleted = True
    db.session.commit()
    response = post(testapp, upload_url(token=token), XML, status=404)
    assert "was deleted" in response.text


def test_bodies_over_the_limit_are_413_and_change_nothing(app, testapp, widgets, make_lcov, snapshot) -> None:
    token = widgets.upload_token
    post(testapp, upload_url(token=token), make_lcov({"kept.py": {1: 1}}))
    app.config["COVERAGE_MAX_UPLOAD_BYTES"] = 2000
    before = snapshot()
    big = make_lcov({"big.py": dict.fromkeys(range(1, 400), 1)})
    assert 2000 < len(big) < 10_000
    response = post(testapp, upload_url(token=token), big, status=413)
    assert "larger than the limit of 2000 bytes" in response.text
    # A gzip bomb: 10 MB of zeros in about 10 kB; inflating stops just past the limit.
    bomb = gzip.compress(b"0" * 10_000_000)
    app.config["COVERAGE_MAX_UPLOAD_BYTES"] = 1_000_000
    assert len(bomb) < 20_000
    response = post(testapp, upload_url(token=token), bomb, status=413, **{"Content-Encoding": "gzip"})
    assert "decompressed body is larger than the limit of 1000000 bytes" in response.text
    assert snapshot() == before


class CountingStream(io.BytesIO):
    """A request body that records how much the app read of it."""

    read_total = 0

    def read(self, size: int = -1) -> bytes:
        chunk = super().read(size)
        self.read_total += len(chunk)
        return chunk


def test_a_body_without_content_length_is_read_only_up_to_the_limit(app, widgets) -> None:
    """A chunked upload (no Content-Length): the body is streamed and reading stops past the limit."""
    app.config["COVERAGE_MAX_UPLOAD_BYTES"] = 100_000
    stream = CountingStream(b"x" * 5_000_000)
    environ = EnvironBuilder(
        method="POST", path="/upload/v2", query_string=f"token={widgets.upload_token}&commit={SHA}"
    ).get_environ()
    environ.pop("CONTENT_LENGTH", None)
    environ.update({"wsgi.input": stream, "wsgi.input_terminated": True})
    statuses = []
    body = b"".join(app.wsgi_app(environ, lambda status, headers: statuses.append(status)))
    assert statuses == ["413 REQUEST ENTITY TOO LARGE"]
    assert b"larger than the limit of 100000 bytes" in body
    assert 100_000 < stream.read_total <= 100_000 + 64 * 1024


def test_content_length_over_the_limit_is_refused_before_reading(app, widgets) -> None:
    app.config["COVERAGE_MAX_UPLOAD_BYTES"] = 1000
    stream = CountingStream(b"x" * 5000)
    environ = EnvironBuilder(method="POST", path="/upload/v2", query_string=f"token=x&commit={SHA}").get_environ()
    environ.update({"wsgi.input": stream, "CONTENT_LENGTH": "5000"})
    statuses = []
    body = b"".join(app.wsgi_app(environ, lambda status, headers: statuses.append(status)))
    assert statuses == ["413 REQUEST ENTITY TOO LARGE"] and b"limit of 1000 bytes" in body
    assert stream.read_total == 0
