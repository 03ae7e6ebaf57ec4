"""Coverage per flag: uploads with flags feed the commit's coverage and each flag's; reading one flag back."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

import pytest
import sqlalchemy as sa
import webtest
from concurrently import run_together
from flask import Flask

from flask_coverage import operations
from flask_coverage.ingest import UploadMeta, upload_report, upload_reports
from flask_coverage.lines import Totals
from flask_coverage.models import CommitFlag, Repository
from flask_coverage.parsers import merge_by_path, parse_report
from flask_coverage.queries.files import file_lines, file_totals
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import find_flag, find_flag_target, resolve_commit
from flask_coverage.svg.badge import format_coverage

DATA = Path(__file__).resolve().parent / "data"
SHA = "f1a9" + "0" * 36
#: Two real runs of one project: the unit tests (LCOV) and, say, the integration tests (coverage.py JSON).
UNIT = "flask-sqlalchemy.lcov"
INTEGRATION = "marshmallow.coverage.json"


def reference(*names: str) -> Totals:
    """The totals of the reports merged, computed from the parsers alone (no database)."""
    files = merge_by_path(parsed for name in names for parsed in parse_report((DATA / name).read_bytes()))
    return sum((lines.totals() for lines in files.values()), Totals())


def totals_of(row: Any) -> Totals:
    return Totals(row.lines, row.hits, row.misses, row.partials)


@pytest.fixture
def flagged(widgets: Repository) -> dict[str, Any]:
    """widgets at SHA on main: UNIT with -F unit, INTEGRATION with -F integration, UNIT again with both."""
    upload = {"commit": SHA, "branch": "main"}
    upload_report(widgets, (DATA / UNIT).read_bytes(), meta=UploadMeta.create(flags="unit"), **upload)
    upload_report(widgets, (DATA / INTEGRATION).read_bytes(), meta=UploadMeta.create(flags=["integration"]), **upload)
    commit = upload_report(
        widgets, (DATA / UNIT).read_bytes(), meta=UploadMeta.create(flags="unit,integration"), run_id="both", **upload
    )
    return {"commit": commit, "unit": find_flag(commit, "unit"), "integration": find_flag(commit, "integration")}


def test_each_flag_has_the_coverage_of_its_uploads(flagged: dict[str, Any]) -> None:
    commit, unit, integration = flagged["commit"], flagged["unit"], flagged["integration"]
    assert totals_of(unit) == reference(UNIT, UNIT)
    assert totals_of(integration) == reference(INTEGRATION, UNIT)
    # The merged coverage is every upload, as without flags.
    assert totals_of(commit) == reference(UNIT, INTEGRATION, UNIT)
    assert (commit.version, unit.version, integration.version) == (3, 2, 2)
    assert unit.files == len(file_totals(unit)) and integration.files == len(file_totals(integration))
    assert {row.path for row in file_totals(integration)} == {row.path for row in file_totals(commit)}
    path = file_totals(unit)[0].path
    assert path.startswith("src/flask_sqlalchemy/")  # only in UNIT: the flag's lines are the commit's
    assert list(file_lines(unit, path)) == list(file_lines(commit, path))


def test_a_retry_changes_no_flag(flagged: dict[str, Any], widgets: Repository, snapshot: Callable[[], Any]) -> None:
    before = snapshot()
    upload_report(
        "github/acme/widgets",
        (DATA / UNIT).read_bytes(),
        commit=SHA,
        branch="main",
        meta=UploadMeta.create(flags="unit,integration"),
        run_id="both",
    )
    assert snapshot() == before


def test_the_flag_of_a_target_is_one_query(flagged: dict[str, Any], statements: list[str]) -> None:
    found = find_flag_target("github", "acme", "widgets", "unit", branch="main")
    assert found is not None and found[2].flag == "unit" and found[1].sha == SHA
    assert len(statements) == 1
    assert find_flag_target("github", "acme", "widgets", "e2e", branch="main") is None
    assert find_flag_target("github", "acme", "widgets", "unit", sha=SHA[:7]) is not None


def test_a_sha_prefix_stays_ambiguous_with_a_flag(widgets: Repository, make_lcov: Callable[..., bytes]) -> None:
    report = make_lcov({"a.py": {1: 1}})
    upload_report(widgets, report, commit="abcdef01" + "1" * 32, meta=UploadMeta.create(flags="unit"))
    upload_report(widgets, report, commit="abcdef01" + "2" * 32)
    assert find_flag_target("github", "acme", "widgets", "unit", sha="abcdef01") is None
    assert find_flag_target("github", "acme", "widgets", "unit", sha="abcdef011") is not None


@pytest.mark.parametrize("flags", ["", "bad flag", "a" * 46, "ü", "unit;drop", "a/b"])
def test_bad_flags_are_refused_at_upload(
    testapp: webtest.TestApp, widgets: Repository, snapshot: Callable[[], Any], flags: str
) -> None:
    token = widgets.upload_token
    before = snapshot()
    if flags:
        response = testapp.post(
            f"/upload/v2?token={token}&commit={SHA}&flags={quote(flags)}",
            (DATA / UNIT).read_bytes(),
            status=400,
        )
        assert "flag" in response.text
    assert snapshot() == before


def test_flags_through_upload_v2_and_the_cli(
    testapp: webtest.TestApp, widgets: Repository, runner: Any, tmp_path: Path
) -> None:
    testapp.post(
        f"/upload/v2?token={widgets.upload_token}&commit={SHA}&branch=main&flags=unit",
        (DATA / UNIT).read_bytes(),
        headers={"Content-Type": "text/plain"},
    )
    result = runner.invoke(
        args=[
            "coverage",
            "upload",
            str(DATA / INTEGRATION),
            "--repo",
            "github/acme/widgets",
            "--commit",
            SHA,
            "--flag",
            "integration",
            "--flag",
            "unit",
        ]
    )
    assert result.exit_code == 0, result.output
    commit = resolve_commit(widgets, sha=SHA)
    assert totals_of(find_flag(commit, "unit")) == reference(UNIT, INTEGRATION)
    assert totals_of(find_flag(commit, "integration")) == reference(INTEGRATION)
    assert totals_of(commit) == reference(UNIT, INTEGRATION)
    bad = runner.invoke(
        args=["coverage", "upload", str(DATA / UNIT), "--repo", "github/acme/widgets", "--commit", SHA, "--flag", "x y"]
    )
    assert bad.exit_code != 0 and "flag" in bad.stderr


# Concurrent uploads of different flags to one commit.

FLAGGERS = 6


def _flag_report(k: int, make_lcov: Callable[..., bytes]) -> bytes:
    return make_lcov({"shared.py": {line: 1 for line in range(1, 101)}, f"own/{k}.py": {1: k, 2: 0}})


def test_concurrent_uploads_of_different_flags_lose_nothing(
    app: Flask, widgets: Repository, make_lcov: Callable[..., bytes]
) -> None:
    jobs = [
        functools.partial(
            upload_reports,
            "github/acme/widgets",
            [("", _flag_report(k, make_lcov))],
            commit=SHA,
            meta=UploadMeta.create(flags=f"f{k},all"),
        )
        for k in range(1, FLAGGERS + 1)
    ]
    assert run_together(app, jobs) == []
    app.extensions["sqlalchemy"].session.remove()
    commit = resolve_commit(find_repository("github", "acme", "widgets"), sha=SHA)
    for k in range(1, FLAGGERS + 1):
        flag = find_flag(commit, f"f{k}")
        assert flag is not None and flag.version == 1
        assert {row.path for row in file_totals(flag)} == {"shared.py", f"own/{k}.py"}
        assert list(file_lines(flag, f"own/{k}.py")) == list(file_lines(commit, f"own/{k}.py"))
        assert totals_of(flag) == Totals(102, 101, 1, 0)
    every = find_flag(commit, "all")
    assert every is not None and every.version == FLAGGERS
    assert totals_of(every) == totals_of(commit) == Totals(100 + 2 * FLAGGERS, 100 + FLAGGERS, FLAGGERS, 0)
    assert [hits for _, hits, _ in file_lines(every, "shared.py")] == [FLAGGERS] * 100
    count = sa.select(sa.func.count()).select_from(CommitFlag)
    assert app.extensions["sqlalchemy"].session.execute(count).scalar_one() == FLAGGERS + 1


# ?flag= on badges, graphs and the file view.


def test_badges_of_a_flag(testapp: webtest.TestApp, flagged: dict[str, Any]) -> None:
    unit, commit = flagged["unit"], flagged["commit"]
    base = "/gh/acme/widgets/graph/badge"
    unknown = testapp.get("/gh/acme/nothing/graph/badge.svg").body
    assert testapp.get(f"{base}.txt?flag=unit&precision=2").text == format_coverage(unit.hits, unit.lines, 2)
    assert testapp.get(f"{base}.txt?flag=&precision=2").text == format_coverage(commit.hits, commit.lines, 2)
    assert testapp.get(f"{base}.txt?flag=unit").text != testapp.get(f"{base}.txt?flag=integration").text
    for flag in ("e2e", "Unit"):  # unknown (names are case-sensitive, as on upload)
        assert testapp.get(f"{base}.svg?flag={flag}").body == unknown
        assert testapp.get(f"{base}.txt?flag={flag}").text == "unknown"
    for flag in ("bad flag", "a" * 46, "x%00"):
        response = testapp.get(f"{base}.svg?flag={quote(flag)}", status=400)
        assert response.text == "Bad request: flag must be 1 to 45 letters, digits, '_', '.' or '-'.\n"
    etags = {testapp.get(f"{base}.svg{query}").headers["ETag"] for query in ("", "?flag=unit", "?flag=integration")}
    assert len(etags) == 3


def test_graphs_and_file_views_of_a_flag(testapp: webtest.TestApp, flagged: dict[str, Any]) -> None:
    unit = flagged["unit"]
    unit_paths = {row.path for row in file_totals(unit)}
    merged = testapp.get("/gh/acme/widgets/graphs/tree.svg").text
    tree = testapp.get("/gh/acme/widgets/graph/tree.svg?flag=unit").text
    assert "marshmallow" in merged and "marshmallow" not in tree
    links = set(re.findall(r'href="\.\./blob/([^"?]+)\?flag=unit"', tree))
    assert links and links <= unit_paths
    not_found = testapp.get("/gh/acme/widgets/graphs/tree.svg?flag=e2e", status=404)
    assert not_found.body == testapp.get("/gh/acme/nothing/graphs/tree.svg", status=404).body
    testapp.get("/gh/acme/widgets/graphs/icicle.svg?flag=no%20way", status=400)
    path = sorted(links)[0]
    view = testapp.get(f"/gh/acme/widgets/blob/{path}?flag=unit")
    assert '<code class="coverage-flag" id="coverage-flag">unit</code>' in view.text
    testapp.get(f"/gh/acme/widgets/blob/{path}?flag=no%20way", status=400)
    marshmallow = next(row.path for row in file_totals(flagged["commit"]) if "marshmallow" in row.path)
    testapp.get(f"/gh/acme/widgets/blob/{marshmallow}?flag=integration")
    testapp.get(f"/gh/acme/widgets/blob/{marshmallow}?flag=unit", status=404)
    testapp.get(f"/gh/acme/widgets/blob/{path}?flag=e2e", status=404)


def test_a_private_flag_needs_the_token(
    testapp: webtest.TestApp, app: Flask, make_lcov: Callable[..., bytes], widgets: Repository
) -> None:
    secret = operations.add_repo("github", "acme", "secret", private=True)
    token = secret.image_token
    upload_report(
        secret, make_lcov({"a.py": {1: 1, 2: 0}}), commit=SHA, branch="main", meta=UploadMeta.create(flags="unit")
    )
    assert testapp.get(f"/gh/acme/secret/graph/badge.txt?flag=unit&token={token}").text == "50"
    assert testapp.get("/gh/acme/secret/graph/badge.txt?flag=unit").text == "unknown"
    testapp.get(f"/gh/acme/secret/graphs/tree.svg?flag=unit&token={token}")
    testapp.get("/gh/acme/secret/graphs/tree.svg?flag=unit&token=wrong", status=404)


def test_the_repository_page_picks_a_flag_for_its_graphs(testapp: webtest.TestApp, flagged: dict[str, Any]) -> None:
    page = testapp.get("/gh/acme/widgets").text
    picker = re.search(r'<nav class="coverage-flags".*?</nav>', page, re.S)
    assert picker is not None
    assert re.findall(r">(integration|unit)</a>", picker.group(0)) == ["integration", "unit"]
    assert 'aria-current="true">all uploads' in picker.group(0)
    assert "graphs/tree.svg?flag=" not in page
    unit = testapp.get("/gh/acme/widgets?flag=unit").text
    assert "/gh/acme/widgets/graphs/tree.svg?flag=unit" in unit
    assert 'aria-current="true">unit</a>' in unit
    testapp.get("/gh/acme/widgets?flag=e2e", status=404)
    testapp.get("/gh/acme/widgets?flag=no%20way", status=400)


def _flag_file_rows(db: Any) -> int:
    return int(db.session.execute(sa.text("SELECT count(*) FROM coverage_flag_file")).scalar_one())


def _lines_of(coverage: Any) -> dict[str, list[tuple[int, int, int]]]:
    return {file.path: list(file_lines(coverage, file.path) or ()) for file in file_totals(coverage)}


def test_flags_carried_by_the_same_uploads_share_one_copy_of_their_files(
    db: Any, widgets: Repository, make_lcov: Callable[..., bytes]
) -> None:
    """Issue 26, F6: 100 flags on a 5,000-file upload were 500,000 rows; flags cost what they are worth."""
    flags = [f"f{n:02d}" for n in range(20)]
    report = make_lcov({f"src/m{n}.py": {1: 1, 2: n % 2} for n in range(50)})
    commit = upload_report(widgets, report, commit=SHA, branch="main", meta=UploadMeta.create(flags=flags))
    assert _flag_file_rows(db) == 50  # one copy, not 20
    for flag in flags:
        coverage = find_flag(commit, flag)
        assert coverage is not None and totals_of(coverage) == totals_of(commit)
        assert _lines_of(coverage) == _lines_of(commit)


def test_flags_that_part_ways_keep_each_its_own_coverage(
    db: Any, widgets: Repository, make_lcov: Callable[..., bytes]
) -> None:
    first = make_lcov({"a.py": {1: 1, 2: 0}, "b.py": {1: 0}})
    second = make_lcov({"a.py": {2: 5}, "c.py": {1: 1}})
    third = make_lcov({"b.py": {1: 2}})
    upload = functools.partial(upload_report, widgets, commit=SHA, branch="main")
    upload(first, meta=UploadMeta.create(flags="x,y,z"))
    upload(second, meta=UploadMeta.create(flags="x"), run_id="2")  # x parts from y and z
    commit = upload(third, meta=UploadMeta.create(flags="y,w"), run_id="3")  # y parts from z; w is new

    def alone(*reports: bytes) -> dict[str, list[tuple[int, int, int]]]:
        files = merge_by_path(parsed for report in reports for parsed in parse_report(report))
        return {path: list(lines) for path, lines in sorted(files.items())}

    expected = {"x": alone(first, second), "y": alone(first, third), "z": alone(first), "w": alone(third)}
    for flag, lines in expected.items():
        coverage = find_flag(commit, flag)
        assert coverage is not None and _lines_of(coverage) == lines, flag
        assert totals_of(coverage) == sum((Totals.of(file) for file in file_totals(coverage)), Totals())
    # One copy per distinct history: x (3 files), y (2), z (2), w (1); no rows left behind.
    assert _flag_file_rows(db) == 3 + 2 + 2 + 1


def test_flags_stored_before_under_their_own_name_go_on(
    db: Any, widgets: Repository, make_lcov: Callable[..., bytes]
) -> None:
    """Rows written before files were shared (``files_key`` NULL, files under the flag's name) still read
    and merge: what the migration of CHANGES.md leaves."""
    first, second = make_lcov({"a.py": {1: 1, 2: 0}}), make_lcov({"a.py": {2: 1}, "b.py": {1: 0}})
    commit = upload_report(widgets, first, commit=SHA, branch="main", meta=UploadMeta.create(flags="unit,e2e"))
    key = find_flag(commit, "unit").files_key
    db.session.execute(sa.text("DELETE FROM coverage_flag_file WHERE flag <> :key"), {"key": key})
    db.session.execute(sa.text("UPDATE coverage_commit_flag SET files_key = NULL"))
    copy = "SELECT commit_id, 'e2e', path, lines, hits, misses, partials, data FROM coverage_flag_file"
    columns = "(commit_id, flag, path, lines, hits, misses, partials, data)"
    db.session.execute(sa.text(f"INSERT INTO coverage_flag_file {columns} {copy}"))
    db.session.execute(sa.text("UPDATE coverage_flag_file SET flag = 'unit' WHERE flag = :key"), {"key": key})
    db.session.commit()
    commit = upload_report(widgets, second, commit=SHA, meta=UploadMeta.create(flags="unit"), run_id="2")
    assert _lines_of(find_flag(commit, "unit")) == _lines_of(commit)
    assert _lines_of(find_flag(commit, "e2e")) == {"a.py": [(1, 1, 0), (2, 0, 1)]}
