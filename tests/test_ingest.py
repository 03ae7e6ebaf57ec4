"""Storing and merging coverage through the Python API (flask_coverage.ingest)."""

from __future__ import annotations

import functools
import gzip
import os
from pathlib import Path

import pytest
import sqlalchemy as sa
from concurrently import run_together

from flask_coverage import operations
from flask_coverage.errors import InvalidInput, NotFound, ReportError, ReportTooLarge
from flask_coverage.identifiers import check_sha, normalize_branch, normalize_pullid
from flask_coverage.ingest import upload_report, upload_reports
from flask_coverage.ingest.store import MAX_ATTEMPTS
from flask_coverage.lines import HIT, MISS, PARTIAL, LineCoverage
from flask_coverage.models import Branch, Commit, FileCoverage, Pull
from flask_coverage.queries.files import file_lines, file_totals
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit

DATA = Path(__file__).parent / "data"
SHA = "a" * 40
SHA2 = "b" * 40
REPO = "github/acme/widgets"


def test_upload_stores_every_file_with_totals_in_columns(widgets, db) -> None:
    report = (DATA / "marshmallow.coverage.xml").read_bytes()
    commit = upload_report(widgets, report, commit=SHA, root="/home/runner/work/marshmallow/marshmallow")
    # The report's own statement: lines-valid="1912" lines-covered="1861".
    assert (commit.lines, commit.hits + commit.partials) == (1912, 1861)
    assert commit.lines == commit.hits + commit.misses + commit.partials
    assert commit.version == 1 and commit.sha == SHA
    rows = db.session.execute(sa.select(FileCoverage).where(FileCoverage.commit_id == commit.id)).scalars().all()
    assert commit.files == len(rows) == 13
    assert all(row.path.startswith("src/marshmallow/") for row in rows)
    for row in rows:
        totals = LineCoverage.decode(row.data).totals()
        assert (row.lines, row.hits, row.misses, row.partials) == (
            totals.lines,
            totals.hits,
            totals.misses,
            totals.partials,
        )
    assert sum(row.lines for row in rows) == commit.lines


def test_upload_reads_file_objects_and_the_repository_slug(widgets) -> None:
    with open(DATA / "d3-hierarchy.lcov", "rb") as report:
        commit = upload_report("github/ACME/Widgets", report, commit=SHA.upper(), format="lcov")
    assert commit.repository_id == widgets.id and commit.sha == SHA
    assert file_totals(commit, "src/treemap/")


def test_uploads_of_one_commit_merge_per_line(widgets, make_lcov) -> None:
    first = make_lcov({"a.py": {1: 1, 2: 0, 3: 2, 4: 1}, "only_first.py": {1: 0}}, partial={"a.py": {3, 4}})
    second = make_lcov({"a.py": {1: 3, 2: 0, 3: 1, 4: 0, 9: 5}, "only_second.py": {7: 1}}, partial={"a.py": {3}})
    upload_report(widgets, first, commit=SHA)
    commit = upload_report(widgets, second, commit=SHA)
    assert commit.version == 2
    # Hits add up; a line partial in both runs stays partial; partial + miss stays partial.
    assert list(file_lines(commit, "a.py")) == [
        (1, 4, HIT),
        (2, 0, MISS),
        (3, 3, PARTIAL),
        (4, 1, PARTIAL),
        (9, 5, HIT),
    ]
    assert list(file_lines(commit, "only_first.py")) == [(1, 0, MISS)]
    assert list(file_lines(commit, "only_second.py")) == [(7, 1, HIT)]
    assert (commit.files, commit.lines, commit.hits, commit.misses, commit.partials) == (3, 7, 3, 2, 2)


def test_a_partial_line_becomes_hit_when_another_run_hits_it_fully(widgets, make_lcov) -> None:
    upload_report(widgets, make_lcov({"a.py": {1: 1}}, partial={"a.py": {1}}), commit=SHA)
    commit = upload_report(widgets, make_lcov({"a.py": {1: 1}}), commit=SHA)
    assert list(file_lines(commit, "a.py")) == [(1, 2, HIT)]


def test_duplicate_paths_inside_one_report_merge(widgets) -> None:
    report = b"TN:unit\nSF:a.py\nDA:1,1\nDA:2,0\nend_of_record\nTN:e2e\nSF:a.py\nDA:2,4\nDA:3,0\nend_of_record\n"
    commit = upload_report(widgets, report, commit=SHA)
    assert list(file_lines(commit, "a.py")) == [(1, 1, HIT), (2, 4, HIT), (3, 0, MISS)]
    assert commit.files == 1


def test_several_reports_in_one_upload_are_one_version(widgets, make_lcov) -> None:
    reports = [("unit.lcov", make_lcov({"a.py": {1: 1}})), ("e2e.lcov", make_lcov({"a.py": {2: 1}, "b.py": {1: 0}}))]
    commit = upload_reports(widgets, reports, commit=SHA)
    assert commit.version == 1 and commit.files == 2
    assert list(file_lines(commit, "a.py")) == [(1, 1, HIT), (2, 1, HIT)]


def test_branch_and_pull_tips_follow_uploads(widgets, make_lcov, db) -> None:
    report = make_lcov({"a.py": {1: 1}})
    first = upload_report(widgets, report, commit=SHA, branch="main")
    assert resolve_commit(widgets).sha == SHA  # main is the default branch
    second = upload_report(widgets, report, commit=SHA2, branch="refs/heads/feature/x", pullid="12")
    assert (second.branch, second.pullid) == ("feature/x", 12)
    assert resolve_commit(widgets, branch="feature/x").sha == SHA2
    assert resolve_commit(widgets, pullid=12).sha == SHA2
    assert resolve_commit(widgets).sha == SHA  # main did not move
    # A later upload for the older commit moves the tips it names back to it.
    upload_report(widgets, report, commit=SHA, pullid=12)
    assert resolve_commit(widgets, pullid=12).id == first.id
    # An upload that names no branch moves no tip.
    upload_report(widgets, report, commit="c" * 40)
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Branch)) == 2
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Pull)) == 1
    assert resolve_commit(widgets).sha == SHA


def test_progress_reports_every_byte_read(widgets) -> None:
    report = (DATA / "flask-sqlalchemy.coverage.json").read_bytes()
    seen: list[int] = []
    upload_report(widgets, report, commit=SHA, progress=seen.append)
    assert sum(seen) == len(report) and len(seen) >= 1


@pytest.mark.parametrize(
    ("value", "expected"),
    [("A" * 40, "a" * 40), (" " + "0" * 64 + "\n", "0" * 64)],
)
def test_check_sha_accepts_full_shas(value, expected) -> None:
    assert check_sha(value) == expected


@pytest.mark.parametrize("value", ["", "abc1234", "g" * 40, "a" * 39, "a" * 41, "a" * 63, "a" * 65, "a" * 39 + "\x00"])
def test_check_sha_refuses_anything_else(value) -> None:
    with pytest.raises(InvalidInput, match="full sha"):
        check_sha(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        ("HEAD", None),
        ("main", "main"),
        (" release/2.x ", "release/2.x"),
        ("refs/heads/feature/a", "feature/a"),
        ("origin/main", "main"),
    ],
)
def test_normalize_branch(value, expected) -> None:
    assert normalize_branch(value) == expected


@pytest.mark.parametrize("value", ["a\x00b", "x" * 256, "tab\there"])
def test_normalize_branch_refuses_names_that_cannot_be_stored(value) -> None:
    with pytest.raises(InvalidInput, match="branch"):
        normalize_branch(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("", None), ("false", None), ("NULL", None), ("undefined", None), ("7", 7), (" 12 ", 12), (3, 3)],
)
def test_normalize_pullid(value, expected) -> None:
    assert normalize_pullid(value) == expected


@pytest.mark.parametrize("value", ["abc", "1.5", "-3", "0", "+4", "²", "99999999999", 2**31, 0])
def test_normalize_pullid_refuses_non_numbers(value) -> None:
    with pytest.raises(InvalidInput, match="pull request number"):
        normalize_pullid(value)


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE coverage [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<coverage><packages><package><classes><class filename="&c;"><lines/></class></classes></package></packages></coverage>
"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE coverage [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<coverage><packages><package><classes><class filename="&secret;"><lines/></class></classes></package></packages>
</coverage>
"""
COBERTURA_LINE = (
    b'<coverage><packages><package><classes><class filename="a.py"><lines>'
    b'<line number="1" hits="%s"/></lines></class></classes></package></packages></coverage>'
)

BAD_REPORTS = {
    "empty": (b"", ReportError, "empty report"),
    "blank": (b"  \n\n", ReportError, "empty report"),
    "truncated XML": ((DATA / "marshmallow.coverage.xml").read_bytes()[:5000], ReportError, "XML"),
    "binary garbage": (bytes(range(256)) * 8, ReportError, "unknown report format"),
    "gzip bytes": (gzip.compress(b"SF:a.py\nDA:1,1\nend_of_record\n"), ReportError, "unknown report format"),
    "unknown format": (b"<html><body>coverage</body></html>", ReportError, "unknown report format"),
    "billion laughs": (BILLION_LAUGHS, ReportError, "entities"),
    "external entity": (EXTERNAL_ENTITY, ReportError, "entities"),
    "no files": (b"<coverage><packages/></coverage>", ReportError, "no files"),
    "huge hits": (COBERTURA_LINE % b"1e30", ReportError, "hit count"),
    "path too long": (b"SF:" + b"d/" * 600 + b"a.py\nDA:1,1\nend_of_record\n", ReportError, "longer than 1024"),
    "lone surrogate": (
        b'{"meta": {"format": 3}, "files": {"a\\ud800.py": {"executed_lines": [1], "missing_lines": []}}}',
        ReportError,
        r"path 'a\\ud800.py' must not contain control, format .* \(it holds U\+D800\)",
    ),
}


@pytest.fixture
def stored(widgets, make_lcov):
    """A commit that already has coverage, on main and pull 3: a failed upload must leave it alone."""
    return upload_report(widgets, make_lcov({"kept.py": {1: 1, 2: 0}}), commit=SHA, branch="main", pullid=3)


def test_bad_reports_change_nothing(widgets, stored, snapshot) -> None:
    # One app for every case: each failed upload is checked against the rows before it.
    before = snapshot()
    for case, (report, error, message) in BAD_REPORTS.items():
        with pytest.raises(error, match=message):
            upload_report(REPO, report, commit=SHA, branch="other", pullid=4)
        assert snapshot() == before, case


def test_a_report_over_the_size_limit_changes_nothing(app, widgets, stored, snapshot, make_lcov) -> None:
    app.config["COVERAGE_MAX_UPLOAD_BYTES"] = 100
    before = snapshot()
    with pytest.raises(ReportTooLarge, match="limit of 100 bytes"):
        upload_report(REPO, make_lcov({"big.py": dict.fromkeys(range(1, 50), 1)}), commit=SHA)
    assert snapshot() == before


def test_more_files_than_the_bound_change_nothing(app, widgets, stored, snapshot, make_lcov) -> None:
    app.config["COVERAGE_MAX_REPORT_FILES"] = 3
    # Three paths, one of them in both reports and twice in the first: they count once each.
    first = make_lcov({"a.py": {1: 1}, "b.py": {1: 0}}) + make_lcov({"a.py": {2: 1}})
    commit = upload_reports(REPO, [("one", first), ("two", make_lcov({"a.py": {3: 1}, "c.py": {1: 1}}))], commit=SHA2)
    assert commit.files == 3
    before = snapshot()
    reports = [("one", first), ("two", make_lcov({"c.py": {1: 1}, "d.py": {1: 1}}))]
    with pytest.raises(ReportTooLarge, match=r"more than 3 files \(COVERAGE_MAX_REPORT_FILES\)"):
        upload_reports(REPO, reports, commit=SHA)
    assert snapshot() == before


def test_one_bad_report_among_several_changes_nothing(widgets, stored, snapshot, make_lcov) -> None:
    before = snapshot()
    reports = [("good.lcov", make_lcov({"new.py": {1: 1}})), ("bad.xml", b"<coverage><packages>")]
    with pytest.raises(ReportError, match="report 'bad.xml': .*truncated"):
        upload_reports(REPO, reports, commit=SHA2, branch="main")
    assert snapshot() == before


BAD_ARGUMENTS = [
    ({"commit": "xyz"}, InvalidInput, "full sha"),
    ({"commit": "a" * 12}, InvalidInput, "full sha"),
    ({"commit": SHA, "pullid": "two"}, InvalidInput, "pull request number"),
    ({"commit": SHA, "branch": "a\nb"}, InvalidInput, "branch"),
    ({"commit": SHA, "format": "ncover"}, ReportError, "unknown report format 'ncover'"),
    ({"commit": SHA, "format": "cobertura"}, ReportError, "XML"),
]
UNKNOWN_REPOSITORIES = [
    ("github/acme/nope", NotFound, "no repository acme/nope on github"),
    ("github/nobody/widgets", NotFound, "no repository"),
    ("githab/acme/widgets", InvalidInput, "unknown service"),
    ("acme/widgets", InvalidInput, "SERVICE/OWNER/REPO"),
    ("github/acme/widgets/x", InvalidInput, "SERVICE/OWNER/REPO"),
    ("github/acme/wid\x00gets", NotFound, "no repository"),
]


def test_bad_arguments_and_unknown_repositories_change_nothing(widgets, stored, snapshot, make_lcov) -> None:
    report = make_lcov({"a.py": {1: 1}})
    before = snapshot()
    for kwargs, error, message in BAD_ARGUMENTS:
        with pytest.raises(error, match=message):
            upload_report(REPO, report, **kwargs)
        assert snapshot() == before, kwargs
    for slug, error, message in UNKNOWN_REPOSITORIES:
        with pytest.raises(error, match=message):
            upload_report(slug, report, commit=SHA)
        assert snapshot() == before, slug


def test_a_deleted_repository_takes_no_uploads(widgets, db, make_lcov) -> None:
    widgets.deleted = True
    db.session.commit()
    with pytest.raises(NotFound, match="deleted"):
        upload_report(widgets, make_lcov({"a.py": {1: 1}}), commit=SHA)
    assert db.session.scalar(sa.select(sa.func.count()).select_from(Commit)) == 0


# Concurrency: every upload runs in its own thread with its own app context (its own session and
# connection), all released at once; nothing may be lost, whatever the engine and its settings.

UPLOADERS = 8


def _concurrent_report(k: int, make_lcov) -> bytes:
    return make_lcov(
        {
            f"own/{k}.py": {line: k for line in range(1, 401)},  # disjoint
            "shared.py": {**{line: 1 for line in range(1, 301)}, 1000 + k: 0},  # overlapping
            "partial.py": {1: 1, 2: int(k == UPLOADERS)},
        },
        partial={"partial.py": {1}} if k % 2 else None,
    )


def _upload_concurrently(app, make_lcov) -> list[str]:
    reports = {k: _concurrent_report(k, make_lcov) for k in range(1, UPLOADERS + 1)}
    return run_together(
        app,
        [
            functools.partial(upload_report, REPO, report, commit=SHA, branch=f"b{k % 2}", pullid=k % 3 + 1)
            for k, report in reports.items()
        ],
    )


def _check_concurrent_result(app) -> None:
    with app.app_context():
        commit = resolve_commit(find_repository("github", "acme", "widgets"), sha=SHA)
        assert commit.version == UPLOADERS
        for k in range(1, UPLOADERS + 1):
            assert list(file_lines(commit, f"own/{k}.py")) == [(line, k, HIT) for line in range(1, 401)]
        shared = list(file_lines(commit, "shared.py"))
        assert shared[:300] == [(line, UPLOADERS, HIT) for line in range(1, 301)]
        assert shared[300:] == [(1000 + k, 0, MISS) for k in range(1, UPLOADERS + 1)]
        assert list(file_lines(commit, "partial.py")) == [(1, UPLOADERS, HIT), (2, 1, HIT)]
        totals = file_totals(commit)
        assert commit.files == len(totals) == UPLOADERS + 2
        assert commit.lines == sum(f.lines for f in totals) == UPLOADERS * 400 + 300 + UPLOADERS + 2
        assert commit.hits == sum(f.hits for f in totals) and commit.misses == UPLOADERS
        assert {resolve_commit(commit.repository, branch=f"b{k}").id for k in (0, 1)} == {commit.id}


def test_concurrent_uploads_of_one_commit_lose_nothing(app, widgets, make_lcov) -> None:
    assert _upload_concurrently(app, make_lcov) == []
    _check_concurrent_result(app)


def _engine_settings() -> list[dict]:
    if os.environ.get("COVERAGE_TEST_DATABASE_URL"):
        return [{"isolation_level": "REPEATABLE READ"}, {"isolation_level": "SERIALIZABLE"}]
    # A busy timeout far shorter than an upload: lock waits end in "database is locked" and retries.
    return [{"connect_args": {"timeout": 0.02}}]


@pytest.mark.parametrize("engine_options", _engine_settings(), ids=repr)
def test_concurrent_uploads_keep_working_with_the_hosts_engine_settings(
    make_app, make_database_url, make_lcov, engine_options
) -> None:
    app = make_app(make_database_url(), SQLALCHEMY_ENGINE_OPTIONS=engine_options)
    with app.app_context():
        operations.add_org("github", "acme")
        operations.add_repo("github", "acme", "widgets")
    assert _upload_concurrently(app, make_lcov) == []
    _check_concurrent_result(app)


def test_lock_errors_are_retried_a_bounded_number_of_times(make_app, make_database_url, make_lcov, monkeypatch) -> None:
    """A writer that never lets go: the upload gives up after MAX_ATTEMPTS, and stores nothing."""
    if os.environ.get("COVERAGE_TEST_DATABASE_URL"):
        pytest.skip("SQLite's database lock")
    monkeypatch.setattr("flask_coverage.ingest.store.time.sleep", lambda seconds: None)
    app = make_app(make_database_url(), SQLALCHEMY_ENGINE_OPTIONS={"connect_args": {"timeout": 0.001}})
    with app.app_context():
        repository = operations.add_repo("github", operations.add_org("github", "acme").username, "widgets")
        engine = app.extensions["sqlalchemy"].engine
        attempts = []
        sa.event.listen(engine, "rollback", lambda connection: attempts.append(1))
        with engine.connect() as blocker:
            blocker.exec_driver_sql("BEGIN IMMEDIATE")
            with pytest.raises(sa.exc.OperationalError, match="locked"):
                upload_report(repository, make_lcov({"a.py": {1: 1}}), commit=SHA)
            blocker.rollback()
        assert len(attempts) >= MAX_ATTEMPTS
        assert upload_report(repository, make_lcov({"a.py": {1: 1}}), commit=SHA).version == 1
