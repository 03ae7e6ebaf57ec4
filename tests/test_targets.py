"""Reading coverage back: repository lookups, commit resolution, file totals and lines."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from flask_coverage import operations
from flask_coverage.errors import InvalidInput, NotFound
from flask_coverage.identifiers import normalize_sha
from flask_coverage.ingest import upload_report
from flask_coverage.lines import HIT, MISS, PARTIAL, Totals
from flask_coverage.models import FileCoverage
from flask_coverage.queries.files import file_lines, file_totals, iter_file_coverage
from flask_coverage.queries.repositories import find_repository, repository_by_slug
from flask_coverage.queries.targets import resolve_commit

# Two shas that share their first 8 hex digits, and a third one.
SHA_A = "abcdef01" + "1" * 32
SHA_B = "abcdef01" + "2" * 32
SHA_C = "0123456" + "f" * 33


@pytest.fixture
def history(widgets, make_lcov):
    """Three commits: A on main, B on feature/x (pull 5), C uploaded without branch or pull."""
    report = make_lcov(
        {
            "src/app/core.py": {1: 1, 2: 0, 3: 4},
            "src/app/cli.py": {1: 1},
            "src/App/odd.py": {1: 0},
            "src/a%b_c.py": {1: 1},
            "README_test.py": {1: 1, 2: 1},
        },
        partial={"src/app/core.py": {3}},
    )
    return {
        "A": upload_report(widgets, report, commit=SHA_A, branch="main"),
        "B": upload_report(widgets, report, commit=SHA_B, branch="feature/x", pullid=5),
        "C": upload_report(widgets, report, commit=SHA_C),
    }


def test_resolve_commit_by_sha(widgets, history) -> None:
    assert resolve_commit(widgets, sha=SHA_A).id == history["A"].id
    assert resolve_commit(widgets, sha=SHA_B.upper()).id == history["B"].id
    assert resolve_commit(widgets, sha=SHA_A[:9]).id == history["A"].id  # unique prefix
    assert resolve_commit(widgets, sha=SHA_C[:7]).id == history["C"].id  # 7 is enough
    assert resolve_commit(widgets, sha=SHA_A[:8]) is None  # ambiguous: A and B
    assert resolve_commit(widgets, sha=SHA_C[:6]) is None  # too short
    assert resolve_commit(widgets, sha="f" * 40) is None  # unknown
    for garbage in ["", "xyz1234", SHA_A + "0", "abcdef0%", "abcdef0_", "abcdef01\x00", "a" * 65]:
        assert resolve_commit(widgets, sha=garbage) is None, garbage


def test_resolve_commit_by_tip(widgets, history) -> None:
    assert resolve_commit(widgets).id == history["A"].id  # the default branch, main
    assert resolve_commit(widgets, branch="feature/x").id == history["B"].id
    assert resolve_commit(widgets, pullid=5).id == history["B"].id
    assert resolve_commit(widgets, branch="Feature/X") is None  # git branch names are case-sensitive
    assert resolve_commit(widgets, branch="nope") is None
    assert resolve_commit(widgets, branch="a\x00b") is None
    assert resolve_commit(widgets, branch="x" * 300) is None
    assert resolve_commit(widgets, pullid=6) is None
    assert resolve_commit(widgets, pullid=2**40) is None
    # sha wins over branch, branch over pull.
    assert resolve_commit(widgets, sha=SHA_C, branch="main").id == history["C"].id
    assert resolve_commit(widgets, branch="main", pullid=5).id == history["A"].id


def test_resolve_commit_without_a_default_branch_tip(widgets, history, db) -> None:
    widgets.branch = "develop"
    db.session.commit()
    assert resolve_commit(widgets) is None


def test_commits_of_other_repositories_are_not_found(widgets, history, make_lcov) -> None:
    other = operations.add_repo("github", "acme", "gadgets")
    assert resolve_commit(other, sha=SHA_A) is None
    assert resolve_commit(other, branch="main") is None
    assert resolve_commit(other, pullid=5) is None
    upload_report(other, make_lcov({"a.py": {1: 1}}), commit=SHA_A, branch="main")
    assert resolve_commit(other, sha=SHA_A).repository_id == other.id
    assert resolve_commit(widgets, sha=SHA_A).id == history["A"].id


def test_file_totals_are_ordered_and_filtered_by_a_literal_prefix(history) -> None:
    commit = history["A"]
    rows = file_totals(commit)
    assert [row.path for row in rows] == sorted(row.path for row in rows)
    core = next(row for row in rows if row.path == "src/app/core.py")
    assert (core.lines, core.hits, core.misses, core.partials) == (3, 1, 1, 1)
    assert core.totals == Totals(3, 1, 1, 1)
    assert [row.path for row in file_totals(commit, "src/app/")] == ["src/app/cli.py", "src/app/core.py"]
    assert [row.path for row in file_totals(commit, "src/App")] == ["src/App/odd.py"]  # case-sensitive
    assert [row.path for row in file_totals(commit, "src/a%")] == ["src/a%b_c.py"]  # % is no wildcard
    assert file_totals(commit, "src/a_") == []  # nor is _
    assert file_totals(commit, "src/\x00") == []
    assert len(file_totals(commit, "")) == len(rows) == 5


def test_file_totals_never_decode_line_data(history, db) -> None:
    commit = history["A"]
    db.session.execute(sa.update(FileCoverage).where(FileCoverage.commit_id == commit.id).values(data=b"corrupt"))
    db.session.commit()
    assert sum(row.lines for row in file_totals(commit)) == commit.lines
    with pytest.raises(ValueError, match="LineCoverage"):
        file_lines(commit, "src/app/core.py")


def test_file_lines(history) -> None:
    commit = history["B"]
    assert list(file_lines(commit, "src/app/core.py")) == [(1, 1, HIT), (2, 0, MISS), (3, 4, PARTIAL)]
    assert file_lines(commit, "src/app/nope.py") is None
    assert file_lines(commit, "src/app") is None
    assert file_lines(commit, "src/app/core.py\x00") is None
    assert file_lines(commit, "") is None


def test_iter_file_coverage_pairs_totals_with_lines(history) -> None:
    pairs = list(iter_file_coverage(history["C"], "src/app/"))
    assert [totals.path for totals, _ in pairs] == ["src/app/cli.py", "src/app/core.py"]
    for totals, lines in pairs:
        assert lines.totals() == totals.totals
    assert list(iter_file_coverage(history["C"], "\x1b[31m")) == []


def test_find_repository(widgets, db) -> None:
    assert find_repository("github", "ACME", "WIDGETS").id == widgets.id
    assert find_repository("gitlab", "acme", "widgets") is None
    assert find_repository("githab", "acme", "widgets") is None
    assert find_repository("github", "acme", "wid\x00gets") is None
    assert find_repository("github", "ac\x00me", "widgets") is None
    assert find_repository("github", "a" * 300, "widgets") is None
    assert find_repository("github", "acme", "") is None
    widgets.deleted = True
    db.session.commit()
    assert find_repository("github", "acme", "widgets") is None


def test_repository_by_slug(widgets) -> None:
    assert repository_by_slug(" github/Acme/widgets ").id == widgets.id
    with pytest.raises(NotFound, match="no repository acme/gadgets on github"):
        repository_by_slug("github/acme/gadgets")
    assert repository_by_slug("gh/acme/widgets").id == widgets.id  # as the web URLs name it
    with pytest.raises(InvalidInput, match="unknown service 'hub'"):
        repository_by_slug("hub/acme/widgets")
    for slug in ["", "acme/widgets", "github//widgets", "github/acme/widgets/extra"]:
        with pytest.raises(InvalidInput, match="SERVICE/OWNER/REPO"):
            repository_by_slug(slug)


def test_normalize_sha() -> None:
    assert normalize_sha("A" * 40) == "a" * 40
    assert normalize_sha("a" * 64) == "a" * 64
    assert normalize_sha("a" * 12) is None
    assert normalize_sha("a" * 12, prefix=True) == "a" * 12
    assert normalize_sha("a" * 6, prefix=True) is None
    assert normalize_sha("a" * 65, prefix=True) is None
    assert normalize_sha("٣" * 40) is None  # Unicode digits are not hex
