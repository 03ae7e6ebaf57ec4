"""An upload is merged once: a client's retry (same reports, same arguments) changes nothing.

Through the Python API and over HTTP, one at a time and concurrently, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import gzip
import io
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa
from concurrently import run_together

from flask_coverage.errors import ReportError
from flask_coverage.ingest import store as ingest
from flask_coverage.ingest import upload_report, upload_reports
from flask_coverage.lines import HIT
from flask_coverage.models import Commit, FileCoverage, Upload
from flask_coverage.queries.files import file_lines, file_totals
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit

DATA = Path(__file__).parent / "data"
LCOV = (DATA / "d3-hierarchy.lcov").read_bytes()
SHA = "e" * 40
SHA2 = "f" * 40
REPO = "github/acme/widgets"


def hits_of(repository: Any, path: str, sha: str = SHA) -> list[int]:
    commit = resolve_commit(repository, sha=sha)
    return [hits for _, hits, _ in file_lines(commit, path)]


def upload_rows(db: Any) -> int:
    return db.session.scalar(sa.select(sa.func.count()).select_from(Upload))


# The Python API.


def test_the_same_upload_twice_is_merged_once(widgets, db) -> None:
    first = upload_report(widgets, LCOV, commit=SHA, branch="main")
    totals = (first.version, first.files, first.lines, first.hits, first.misses, first.partials)
    lines = {f.path: list(file_lines(first, f.path)) for f in file_totals(first)}
    again = upload_report(widgets, LCOV, commit=SHA, branch="main")
    assert again.id == first.id
    assert (again.version, again.files, again.lines, again.hits, again.misses, again.partials) == totals
    assert {f.path: list(file_lines(again, f.path)) for f in file_totals(again)} == lines
    assert totals[0] == 1 and upload_rows(db) == 1


def test_a_file_object_and_bytes_with_the_same_content_are_one_upload(widgets) -> None:
    seen: list[int] = []
    upload_report(widgets, LCOV, commit=SHA)
    commit = upload_report(widgets, io.BytesIO(LCOV), commit=SHA, progress=seen.append)
    assert commit.version == 1 and sum(seen) == len(LCOV)


def test_report_names_do_not_count_their_order_and_contents_do(widgets, make_lcov) -> None:
    one, two = make_lcov({"a.py": {1: 1}}), make_lcov({"b.py": {1: 1}})
    assert upload_reports(widgets, [("x.info", one), ("y.info", two)], commit=SHA).version == 1
    assert upload_reports(widgets, [("other", one), ("names", two)], commit=SHA).version == 1
    assert upload_reports(widgets, [("x.info", two), ("y.info", one)], commit=SHA).version == 2
    assert upload_reports(widgets, [("x.info", one)], commit=SHA).version == 3
    assert hits_of(widgets, "a.py") == [3] and hits_of(widgets, "b.py") == [2]


@pytest.mark.parametrize(
    "changes",
    [{"run_id": "build 2, job 1"}, {"branch": "feature"}, {"pullid": 7}, {"format": "lcov"}, {"root": "/src"}],
    ids=lambda changes: next(iter(changes)),
)
def test_what_else_makes_another_upload(widgets, make_lcov, changes: dict[str, Any]) -> None:
    report = make_lcov({"a.py": {1: 1, 2: 0}})
    upload_report(widgets, report, commit=SHA, run_id="build 1, job 1")
    commit = upload_report(widgets, report, commit=SHA, **{"run_id": "build 1, job 1", **changes})
    assert commit.version == 2 and hits_of(widgets, "a.py") == [2, 0]
    if "branch" in changes:
        assert resolve_commit(widgets, branch="feature").id == commit.id
    if "pullid" in changes:
        assert resolve_commit(widgets, pullid=7).id == commit.id


def test_a_repeat_never_moves_a_tip_back(widgets, make_lcov) -> None:
    report = make_lcov({"a.py": {1: 1}})
    first = upload_report(widgets, report, commit=SHA, branch="main")
    newer = upload_report(widgets, make_lcov({"a.py": {1: 0}}), commit=SHA2, branch="main")
    assert upload_report(widgets, report, commit=SHA, branch="main").version == first.version
    assert resolve_commit(widgets).id == newer.id


def test_the_same_report_for_two_commits_counts_for_each(widgets) -> None:
    assert upload_report(widgets, LCOV, commit=SHA).version == 1
    assert upload_report(widgets, LCOV, commit=SHA2).version == 1


def test_an_upload_that_failed_can_be_sent_again(widgets, db, snapshot, monkeypatch) -> None:
    """The key is claimed in the upload's transaction: a failure after the claim leaves no trace."""
    before = snapshot()
    refresh_tree = ingest.refresh_tree  # runs once the commit's files were written

    def fail_midway(commit_id: Any) -> Any:
        raise RuntimeError("the worker died here")

    monkeypatch.setattr(ingest, "refresh_tree", fail_midway)
    with pytest.raises(RuntimeError):
        upload_report(REPO, LCOV, commit=SHA, branch="main")
    assert snapshot() == before
    monkeypatch.setattr(ingest, "refresh_tree", refresh_tree)
    assert upload_report(REPO, LCOV, commit=SHA, branch="main").version == 1
    assert upload_rows(db) == 1


def test_a_refused_report_claims_nothing(widgets, db, make_lcov) -> None:
    good = make_lcov({"a.py": {1: 1}})
    with pytest.raises(ReportError):
        upload_reports(widgets, [("good", good), ("bad", b"<coverage><packages>")], commit=SHA)
    assert upload_rows(db) == 0
    assert upload_reports(widgets, [("good", good)], commit=SHA).version == 1


def test_a_new_commit_does_not_inherit_the_uploads_of_a_deleted_one(widgets, db) -> None:
    """Deleting commits the way a host might (SQLite enforces no foreign keys): the id comes back."""
    commit = upload_report(widgets, LCOV, commit=SHA)
    db.session.execute(sa.delete(FileCoverage).where(FileCoverage.commit_id == commit.id))
    db.session.execute(sa.delete(Commit).where(Commit.id == commit.id))
    db.session.commit()
    again = upload_report(widgets, LCOV, commit=SHA)
    assert again.version == 1 and again.files == commit.files
    assert upload_rows(db) == 1


# Concurrent retries: each thread has its own app context (its own session and connection).


def test_concurrent_retries_are_merged_once(app, widgets, make_lcov) -> None:
    reports = {job: make_lcov({"shared.py": {1: 1, 2: job}, f"job{job}.py": {1: 1}}) for job in range(3)}
    uploads = [
        (lambda job=job: upload_report(REPO, reports[job], commit=SHA, run_id=f"job {job}"))
        for job in range(3)
        for _ in range(3)  # every upload three times at once: a client and its two retries
    ]
    assert run_together(app, uploads) == []
    commit = resolve_commit(widgets, sha=SHA)
    assert commit.version == 3 and commit.files == 4
    assert hits_of(widgets, "shared.py") == [3, 0 + 1 + 2]
    assert [hits_of(widgets, f"job{job}.py") for job in range(3)] == [[1], [1], [1]]


# Over HTTP: the key is made of the body (after gzip and the envelope) and the query arguments.

ENVELOPE = b"""%s
<<<<<< ENV
src/a.py
<<<<<< network
# path=coverage.info
%s<<<<<< EOF
"""


def upload_url(repository: Any, **params: str) -> str:
    return "/upload/v2?" + urlencode({"token": repository.upload_token, "commit": SHA, **params})


def post(testapp: Any, url: str, body: bytes, **headers: str) -> Any:
    return testapp.post(url, body, headers={"Content-Type": "text/plain", **headers}, status=200)


def test_a_retried_http_upload_is_merged_once(testapp, widgets, db) -> None:
    first = post(testapp, upload_url(widgets, branch="main", build="17", job="3"), LCOV)
    again = post(testapp, upload_url(widgets, job="3", build="17", branch="main"), LCOV)  # any order
    assert again.text == first.text  # the same answer: the commit's URL and its unchanged summary
    assert '"version": 1' in again.text
    assert upload_rows(db) == 1


def test_gzip_and_envelope_wrappings_and_the_token_spelling_do_not_count(testapp, widgets, make_lcov) -> None:
    report = make_lcov({"a.py": {1: 1}})
    post(testapp, upload_url(widgets), report)
    post(testapp, upload_url(widgets), gzip.compress(report), **{"Content-Encoding": "gzip"})
    post(testapp, upload_url(widgets), ENVELOPE % (b"CI_JOB_ID=1", report))
    post(testapp, upload_url(widgets), ENVELOPE % (b"CI_JOB_ID=2", report))  # the env block is not a report
    header_url = "/upload/v2?" + urlencode({"commit": SHA})
    post(testapp, header_url, report, Authorization=f"token {widgets.upload_token}")
    assert hits_of(widgets, "a.py") == [1]


@pytest.mark.parametrize("argument", ["build", "job", "name", "flags", "service", "build_url"])
def test_uploads_of_two_ci_runs_are_both_merged(testapp, widgets, make_lcov, argument: str) -> None:
    report = make_lcov({"a.py": {1: 1}})
    post(testapp, upload_url(widgets, **{argument: "one"}), report)
    post(testapp, upload_url(widgets, **{argument: "two"}), report)
    post(testapp, upload_url(widgets, **{argument: "two"}), report)  # a retry of the second
    assert hits_of(widgets, "a.py") == [2]


def test_concurrent_http_retries_are_merged_once(app, widgets, live_server, make_lcov) -> None:
    base = live_server(app)
    report = make_lcov({"a.py": {line: 1 for line in range(1, 200)}})
    url = base + upload_url(widgets, build="9", job="1")
    statuses: list[int] = []

    def send() -> None:
        request = urllib.request.Request(url, data=report, headers={"Content-Type": "text/plain"})  # noqa: S310
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - a loopback URL
            statuses.append(response.status)

    assert run_together(app, [send] * 6) == []
    assert statuses == [200] * 6
    app.extensions["sqlalchemy"].session.remove()  # read what the server's threads committed
    commit = resolve_commit(find_repository("github", "acme", "widgets"), sha=SHA)
    assert commit.version == 1
    assert list(file_lines(commit, "a.py")) == [(line, 1, HIT) for line in range(1, 200)]
