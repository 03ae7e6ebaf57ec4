"""codecov-cli uploads without a token from a fork's pull request (branch ``user:branch``), over WebTest."""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import urlsplit

import pytest

from flask_coverage import operations
from flask_coverage.queries.targets import resolve_commit

SHA = "f" * 40
REFUSED = (
    "Upload refused: the upload token is missing; without one, uploads are taken only from a fork's "
    "pull request (branch 'user:branch') to a public repository."
)


def body(report: bytes) -> bytes:
    data = base64.b64encode(zlib.compress(report)).decode()
    files = [{"filename": "coverage.lcov", "format": "base64+compressed", "data": data, "labels": ""}]
    payload = {"report_fixes": {"format": "legacy", "value": {}}, "network_files": [], "metadata": {}}
    return json.dumps({**payload, "coverage_files": files}).encode()


def tokenless(testapp, name: str, path: str, call: dict, status: int = 201):
    return testapp.post_json(f"/upload/github/acme::::{name}{path}", call, status=status)


@pytest.fixture
def secret(widgets):
    return operations.add_repo("github", "acme", "secret", private=True)


def test_a_fork_upload_to_a_public_repository_lands(testapp, widgets, make_lcov) -> None:
    commit = {"commitid": SHA, "branch": "contributor:fix", "pullid": "7"}
    tokenless(testapp, "widgets", "/commits", commit)
    tokenless(testapp, "widgets", f"/commits/{SHA}/reports", {"code": "default"})
    answer = tokenless(testapp, "widgets", f"/commits/{SHA}/reports/default/uploads", {"name": "fork"})
    location = urlsplit(answer.json["raw_upload_location"])
    testapp.put(f"{location.path}?{location.query}", body(make_lcov({"a.py": {1: 1, 2: 0}})), status=200)
    tokenless(testapp, "widgets", f"/commits/{SHA}/upload-complete", {}, status=200)
    stored = resolve_commit(widgets, sha=SHA)
    assert (stored.branch, stored.pullid, stored.lines, stored.hits) == ("contributor:fix", 7, 2, 1)


def test_upload_coverage_in_one_call_from_a_fork(testapp, widgets) -> None:
    call = {"commitid": SHA, "branch": "contributor:fix", "code": "default"}
    assert tokenless(testapp, "widgets", "/upload-coverage", call).json["raw_upload_location"]


@pytest.mark.parametrize(
    ("name", "path", "call"),
    [
        ("secret", "/commits", {"commitid": SHA, "branch": "contributor:fix"}),
        ("nothing", "/commits", {"commitid": SHA, "branch": "contributor:fix"}),
        ("widgets", "/commits", {"commitid": SHA, "branch": "main"}),
        ("widgets", "/commits", {"commitid": SHA}),
        ("widgets", "/upload-coverage", {"commitid": SHA, "branch": "main", "code": "default"}),
        ("widgets", f"/commits/{SHA}/reports/default/uploads", {}),  # a commit never recorded
        ("secret", "/upload-coverage", {"commitid": SHA, "branch": "contributor:fix", "code": "default"}),
    ],
)
def test_refusals_say_the_same_whether_the_repository_exists(testapp, secret, snapshot, name, path, call) -> None:
    before = snapshot()
    assert tokenless(testapp, name, path, call, status=401).json == {"detail": REFUSED}
    assert snapshot() == before


def test_a_fork_cannot_move_or_upload_to_a_protected_branchs_commit(testapp, widgets, snapshot) -> None:
    headers = {"Authorization": f"token {widgets.upload_token}"}
    testapp.post_json("/upload/github/acme::::widgets/commits", {"commitid": SHA, "branch": "main"}, headers=headers)
    before = snapshot()
    tokenless(testapp, "widgets", "/commits", {"commitid": SHA, "branch": "contributor:fix"}, status=401)
    for path in (f"/commits/{SHA}/reports/default/uploads", f"/commits/{SHA}/upload-complete"):
        tokenless(testapp, "widgets", path, {}, status=401)
    assert snapshot() == before and resolve_commit(widgets, sha=SHA).branch == "main"


def test_a_fork_cannot_pick_a_pulls_base(testapp, widgets) -> None:
    tokenless(testapp, "widgets", "/commits", {"commitid": SHA, "branch": "contributor:fix", "pullid": "7"})
    answer = testapp.put_json("/api/v1/github/acme::::widgets/pulls/7", {"user_provided_base_sha": SHA}, status=401)
    assert answer.json == {"detail": REFUSED}


def test_one_config_key_turns_tokenless_uploads_off(app, testapp, widgets) -> None:
    app.config["COVERAGE_TOKENLESS_UPLOADS"] = False
    answer = tokenless(testapp, "widgets", "/commits", {"commitid": SHA, "branch": "contributor:fix"}, status=401)
    assert answer.json == {"detail": "Upload refused: the upload token is missing (?token=<upload token>)."}
    assert resolve_commit(widgets, sha=SHA) is None


def test_v2_uploads_still_need_a_token(testapp, widgets, make_lcov) -> None:
    answer = testapp.post(f"/upload/v2?commit={SHA}&branch=contributor:fix", make_lcov({"a.py": {1: 1}}), status=401)
    assert answer.text == "Upload refused: the upload token is missing (?token=<upload token>).\n"
