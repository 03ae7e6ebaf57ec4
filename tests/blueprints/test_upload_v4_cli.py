"""POST /upload/v4, the PUT to its signed URL, and the codecov-cli protocol, over real HTTP (WebTest).

The real clients run against a live server in tests/test_real_uploaders.py; these tests pin every
answer and every refusal.
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flask_coverage.lines import HIT
from flask_coverage.logging import redact_tokens
from flask_coverage.models import Commit, Pull, Upload, UploadFlag
from flask_coverage.queries.files import file_lines
from flask_coverage.queries.targets import resolve_commit

DATA = Path(__file__).parent.parent / "data"
SHA = "c" * 40
PARENT = "b" * 40
XML = (DATA / "flask-sqlalchemy.coverage.xml").read_bytes()
BASE = "/upload/github/acme::::widgets"


def v4(testapp, token: str, status: int = 200, **params: str):
    query = {"token": token, "commit": SHA, **params}
    return testapp.post("/upload/v4?" + urlencode(query), b"", status=status)


def put(testapp, url: str, body: bytes, status: int = 200, **headers: str):
    parts = urlsplit(url)
    return testapp.put(f"{parts.path}?{parts.query}", body, headers=headers, status=status)


def cli(testapp, path: str, body: object, token: str, status: int = 201):
    headers = {"Authorization": f"token {token}"}
    return testapp.post_json(BASE + path, body, headers=headers, status=status)


def cli_file(report: bytes, name: str = "coverage.xml") -> dict:
    data = base64.b64encode(zlib.compress(report)).decode()
    return {"filename": name, "format": "base64+compressed", "data": data, "labels": ""}


def cli_body(*files: dict, **extra: object) -> bytes:
    payload = {"report_fixes": {"format": "legacy", "value": {}}, "network_files": [], "metadata": {}}
    return json.dumps({**payload, "coverage_files": list(files), **extra}).encode()


def test_v4_answers_two_urls_and_the_put_merges_once(testapp, widgets) -> None:
    response = v4(testapp, widgets.upload_token, branch="main", pr="3", flags="unit", name="py3.12")
    assert response.content_type == "text/plain"
    assert not response.text.endswith("\n") and len(response.text.split("\n")) == 2
    report_url, url = response.text.split()
    assert report_url == f"http://localhost/gh/acme/widgets/commit/{SHA}"
    assert url.startswith("http://localhost/upload/put?signature=")
    body = gzip.compress(b"<<<<<< network\n# path=coverage.xml\n" + XML + b"\n<<<<<< EOF\n")
    for _ in range(2):  # a retried PUT changes nothing
        answer = put(testapp, url, body, **{"Content-Encoding": "gzip"})
        assert answer.text.split("\n")[1] == report_url
    commit = resolve_commit(widgets, branch="main")
    assert (commit.sha, commit.version, commit.files, commit.pullid) == (SHA, 1, 10, 3)
    assert resolve_commit(widgets, pullid=3).id == commit.id


def test_the_parent_argument_of_v2_and_v4_is_the_pulls_base(db, testapp, widgets, make_lcov, snapshot) -> None:
    body = make_lcov({"a.py": {1: 1}})
    query = urlencode({"token": widgets.upload_token, "commit": SHA, "pr": "5", "parent": PARENT})
    testapp.post(f"/upload/v2?{query}", body, status=200)
    url = v4(testapp, widgets.upload_token, commit="d" * 40, pr="6", parent="e" * 40).text.split()[1]
    put(testapp, url, body)
    pulls = {pull.pullid: pull.base_sha for pull in db.session.scalars(sa.select(Pull))}
    assert pulls == {5: PARENT, 6: "e" * 40}
    assert db.session.scalars(sa.select(Commit.parent_sha).where(Commit.sha == SHA)).one() == PARENT
    before = snapshot()
    bad = urlencode({"token": widgets.upload_token, "commit": "f" * 40, "parent": "xyz"})
    assert testapp.post(f"/upload/v2?{bad}", body, status=400).text.startswith("Upload refused: parent must be")
    assert v4(testapp, widgets.upload_token, parent="xyz", status=400).text.startswith("Upload refused: parent must")
    assert snapshot() == before


def test_v4_refusals_are_400_without_a_line_break(testapp, widgets) -> None:
    for token, params, message in [
        ("wrong", {}, "Upload refused: the upload token is not valid."),
        (widgets.upload_token, {"commit": "xyz"}, "Upload refused: commit must be a full sha"),
        (widgets.upload_token, {"flags": "a b"}, "Upload refused: flag 'a b' must be"),
    ]:
        response = v4(testapp, token, status=400, **params)
        assert response.text.startswith(message) and "\n" not in response.text


def test_put_urls_refuse_tampering_expiry_reuse_and_a_rotated_token(app, testapp, widgets, make_lcov, snapshot) -> None:
    url = v4(testapp, widgets.upload_token).text.split()[1]
    other = v4(testapp, widgets.upload_token, flags="other").text.split()[1]
    put(testapp, url, make_lcov({"a.py": {1: 1}}))
    before = snapshot()
    signature = url.split("signature=")[1]
    tampered = [
        url[:-2] + ("AA" if not url.endswith("AA") else "BB"),
        url.replace(signature, "9" + signature),
        url.replace(signature, signature.split(".", 1)[0] + "." + other.split("signature=")[1].split(".", 1)[1][:-1]),
        "http://localhost/upload/put?signature=",
        "http://localhost/upload/put?signature=1",
    ]
    for bad in tampered:
        response = put(testapp, bad, make_lcov({"b.py": {1: 1}}), status=403)
        assert response.text == "Upload refused: this upload URL is not valid (it was changed or cut short).\n"
    # Used for one upload, the URL takes no other.
    response = put(testapp, url, make_lcov({"b.py": {1: 1}}), status=409)
    assert response.text == "Upload refused: this upload URL was already used for a different upload.\n"
    app.config["COVERAGE_UPLOAD_URL_MAX_AGE"] = -1
    assert put(testapp, other, make_lcov({"b.py": {1: 1}}), status=403).text.startswith(
        "Upload refused: this upload URL has expired"
    )
    assert snapshot() == before


def test_a_gzip_bomb_put_to_a_v4_url_is_a_413_and_stores_nothing(app, testapp, widgets, snapshot) -> None:
    url = v4(testapp, widgets.upload_token).text.split()[1]
    app.config["COVERAGE_MAX_UPLOAD_BYTES"] = 1_000_000
    bomb = gzip.compress(b"\n" * 50_000_000)
    before = snapshot()
    response = put(testapp, url, bomb, status=413, **{"Content-Encoding": "gzip"})
    assert "decompressed body is larger than the limit of 1000000 bytes" in response.text
    assert snapshot() == before


def test_put_urls_work_without_secret_key_and_depend_on_it(app, testapp, widgets, make_lcov) -> None:
    app.secret_key = None
    url = v4(testapp, widgets.upload_token).text.split()[1]
    app.secret_key = "set later"
    put(testapp, url, make_lcov({"a.py": {1: 1}}), status=403)
    app.secret_key = None
    put(testapp, url, make_lcov({"a.py": {1: 1}}))


def test_the_signature_is_redacted_from_logs(testapp, widgets) -> None:
    url = v4(testapp, widgets.upload_token).text.split()[1]
    line = f'"PUT {urlsplit(url).path}?{urlsplit(url).query} HTTP/1.1" 200'
    assert redact_tokens(line) == '"PUT /upload/put?signature=[redacted] HTTP/1.1" 200'


def test_the_cli_flow_stores_branch_and_pull_for_the_upload(db, testapp, widgets) -> None:
    token = widgets.upload_token
    commit = cli(
        testapp, "/commits", {"commitid": SHA, "branch": "feature", "pullid": "9", "parent_commit_id": PARENT}, token
    )
    assert commit.json["commitid"] == SHA and commit.json["branch"] == "feature" and commit.json["pullid"] == 9
    assert commit.json["parent_commit_id"] == PARENT
    report = cli(testapp, f"/commits/{SHA}/reports", {"code": "default"}, token)
    assert report.json["code"] == "default" and set(report.json) == {"code", "external_id", "created_at"}
    body = {
        "flags": ["unit", "py312"],
        "name": "linux",
        "job_code": "7",
        "ci_url": "https://ci/7",
        "ci_service": "github-actions",
    }
    upload = cli(testapp, f"/commits/{SHA}/reports/default/uploads", {**body, "cli_args": {"build_code": "70"}}, token)
    assert set(upload.json) == {"external_id", "created_at", "raw_upload_location", "url"}
    assert upload.json["url"] == f"http://localhost/gh/acme/widgets/commit/{SHA}"
    network = ["src/flask_sqlalchemy/__init__.py"]
    answer = put(testapp, upload.json["raw_upload_location"], cli_body(cli_file(XML), network_files=network))
    assert answer.json["uploaded"] is True and answer.json["files"] == 10
    stored = resolve_commit(widgets, branch="feature")
    assert stored.sha == SHA and resolve_commit(widgets, pullid=9).sha == SHA
    row = db.session.execute(sa.select(Upload)).scalar_one()
    assert row.external_id == upload.json["external_id"]
    assert (row.name, row.build, row.job, row.build_url, row.provider) == (
        "linux",
        "70",
        "7",
        "https://ci/7",
        "github-actions",
    )
    assert sorted(db.session.execute(sa.select(UploadFlag.flag)).scalars()) == ["py312", "unit"]
    done = cli(testapp, f"/commits/{SHA}/upload-complete", {}, token, status=200)
    assert done.json["uploads_total"] == 1 and "result" in done.json
    empty = cli(testapp, f"/commits/{SHA}/empty-upload", {"should_force": False}, token, status=200)
    assert "result" in empty.json


def test_upload_coverage_in_one_call_with_fixes(testapp, widgets, make_lcov) -> None:
    body = {"commitid": SHA, "branch": "main", "pullid": None, "code": "default", "parent_commit_id": None, "flags": []}
    upload = cli(testapp, "/upload-coverage", body, widgets.upload_token)
    report = make_lcov({"pkg/a.py": {1: 1, 2: 0, 3: 0, 4: 1}})
    fixes = {"format": "legacy", "value": {"src/pkg/a.py": {"eof": 3, "lines": [2]}}}
    put(
        testapp,
        upload.json["raw_upload_location"],
        cli_body(cli_file(report), report_fixes=fixes, network_files=["src/pkg/a.py"]),
    )
    commit = resolve_commit(widgets, branch="main")
    assert list(file_lines(commit, "src/pkg/a.py")) == [(1, 1, HIT), (3, 0, 1)]


def test_github_actions_and_case_insensitive_slugs_are_accepted(testapp, widgets) -> None:
    headers = {"Authorization": f"token {widgets.upload_token}"}
    testapp.post_json("/upload/github-actions/ACME::::Widgets/commits", {"commitid": SHA}, headers=headers, status=201)


CLI_ERRORS = [
    # (path, body, token, status, message)
    (BASE + "/commits", {"commitid": SHA}, "wrong", 401, "Upload refused: the upload token is not valid."),
    (BASE + "/commits", {"commitid": SHA}, None, 401, "Upload refused: the upload token is missing"),
    ("/upload/github/acme::::other/commits", {"commitid": SHA}, "", 401, "is not the token of github/acme/other"),
    ("/upload/gitlab/acme::::widgets/commits", {"commitid": SHA}, "", 401, "is not the token of gitlab/acme/widgets"),
    (
        "/upload/github/g:::sub::::widgets/commits",
        {"commitid": SHA},
        "",
        401,
        "is not the token of github/g/sub/widgets",
    ),
    ("/upload/github/acme:widgets/commits", {"commitid": SHA}, "", 400, "is not 'owner::::repo'"),
    ("/upload/svn/acme::::widgets/commits", {"commitid": SHA}, "", 400, "unknown service 'svn'"),
    (BASE + "/commits", {"commitid": "123"}, "", 400, "commit must be a full sha"),
    (BASE + "/commits", {"commitid": SHA, "pullid": "x"}, "", 400, "pull request number must be"),
    (BASE + "/commits", {"commitid": SHA, "parent_commit_id": "x"}, "", 400, "parent must be a full sha"),
    (BASE + "/commits", [1, 2], "", 400, "the body must be a JSON object"),
    (BASE + "/commits", {"commitid": ["x"]}, "", 400, "commitid must be text"),
    (BASE + "/commits/xyz/reports", {"code": "default"}, "", 400, "commit must be a full sha"),
    (BASE + f"/commits/{SHA}/reports/default/uploads", {"flags": ["a b"]}, "", 400, "flag 'a b' must be"),
    (BASE + f"/commits/{SHA}/reports/default/uploads", {"flags": "unit"}, "", 400, "flags must be a list"),
    (BASE + f"/commits/{SHA}/reports/default/uploads", {"name": "x\ny"}, "", 400, "name must not contain control"),
]


@pytest.mark.parametrize(("path", "body", "token", "status", "message"), CLI_ERRORS)
def test_cli_refusals_are_short_json(testapp, widgets, snapshot, path, body, token, status, message) -> None:
    upload_token = widgets.upload_token
    headers = {} if token is None else {"Authorization": f"token {token or upload_token}"}
    before = snapshot()
    response = testapp.post_json(path, body, headers=headers, status=status)
    assert response.content_type == "application/json" and message in response.json["detail"]
    assert upload_token not in response.text
    assert snapshot() == before


def test_bad_put_bodies_are_refused_and_change_nothing(app, testapp, widgets, make_lcov, snapshot) -> None:
    upload = cli(testapp, f"/commits/{SHA}/reports/default/uploads", {}, widgets.upload_token)
    url = upload.json["raw_upload_location"]
    put(testapp, v4(testapp, widgets.upload_token).text.split()[1], make_lcov({"kept.py": {1: 1}}))
    app.config["COVERAGE_MAX_UPLOAD_BYTES"] = 100_000
    before = snapshot()
    bomb = base64.b64encode(zlib.compress(b"\n" * 10_000_000)).decode()
    good = cli_file(make_lcov({"a.py": {1: 1}}))
    big = cli_file(b"SF:a.py\n" + b"DA:1,1\n" * 6000 + b"end_of_record\n")  # 42 kB: three are too many
    cases = [
        (b"not json", 400, "the body is not JSON"),
        (b"[1]", 400, "the body must be a JSON object"),
        (cli_body(), 400, "coverage_files must be a non-empty list"),
        (cli_body({**good, "data": "!!!"}), 400, "data is not base64"),
        (cli_body({**good, "data": base64.b64encode(b"not zlib").decode()}), 400, "not valid zlib"),
        (cli_body({**good, "data": bomb}), 413, "larger than the limit"),
        (cli_body(*[big] * 3), 413, "coverage file 'coverage.xml' is larger than the limit"),
        (cli_body({**good, "format": "plain"}), 400, "format must be 'base64+compressed'"),
        (cli_body(good, network_files="x"), 400, "network_files must be a list"),
        (cli_body(good, report_fixes={"value": {"a.py": {"lines": ["x"]}}}), 400, "report_fixes for 'a.py'"),
        (cli_body(cli_file(b"not a report")), 400, "unknown report format"),
        (b"x" * 100_001, 413, "larger than the limit of 100000 bytes"),
    ]
    for body, status, message in cases:
        response = put(testapp, url, body, status=status)
        assert message in response.text, (message, response.text)
        assert snapshot() == before, message


def test_commits_created_by_the_cli_keep_their_coverage(testapp, widgets, make_lcov) -> None:
    url = v4(testapp, widgets.upload_token, branch="main").text.split()[1]
    put(testapp, url, make_lcov({"a.py": {1: 1}}))
    cli(testapp, "/commits", {"commitid": SHA, "branch": "main", "parent_commit_id": PARENT}, widgets.upload_token)
    commit = resolve_commit(widgets, sha=SHA)
    assert (commit.version, commit.files, commit.parent_sha) == (1, 1, PARENT)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=20), inner, max_size=4),
    max_leaves=12,
)
CLI_KEYS = [
    "commitid",
    "branch",
    "pullid",
    "parent_commit_id",
    "code",
    "flags",
    "name",
    "job_code",
    "ci_url",
    "ci_service",
    "cli_args",
]
PUT_KEYS = ["coverage_files", "network_files", "report_fixes", "metadata"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    call=st.dictionaries(st.sampled_from(CLI_KEYS), JSON_VALUES, max_size=6) | JSON_VALUES,
    payload=st.dictionaries(st.sampled_from(PUT_KEYS + ["data"]), JSON_VALUES, max_size=4) | JSON_VALUES,
)
def test_fuzzed_json_bodies_never_answer_500(testapp, widgets, call, payload) -> None:
    headers = {"Authorization": f"token {widgets.upload_token}"}
    for path in ("/commits", "/upload-coverage", f"/commits/{SHA}/reports/default/uploads", f"/commits/{SHA}/reports"):
        response = testapp.post_json(BASE + path, call, headers=headers, expect_errors=True)
        assert response.status_int in (200, 201, 400, 401, 413), response.text
        if response.status_int == 201 and "raw_upload_location" in response.json:
            answer = put(testapp, response.json["raw_upload_location"], json.dumps(payload).encode(), status="*")
            assert answer.status_int in (200, 400, 409, 413), answer.text


def test_a_commit_row_made_by_create_commit_has_no_coverage_yet(db, testapp, widgets) -> None:
    cli(testapp, "/commits", {"commitid": SHA, "branch": "feature"}, widgets.upload_token)
    row = db.session.execute(sa.select(Commit)).scalar_one()
    assert (row.version, row.files, row.branch) == (0, 0, "feature")
    assert resolve_commit(widgets, branch="feature") is None  # the tip moves with the first upload
