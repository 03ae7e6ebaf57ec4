"""One comparison of a pull (docs/pull-requests.md, "One comparison"): its page and its comment name
the same files with added lines not covered, in the same order, and the same indirect changes."""

from __future__ import annotations

import random
import re

import pytest
import webtest
from flask import Flask

from flask_coverage.feedback.comparison import Comparison
from flask_coverage.feedback.notify import send_due
from flask_coverage.feedback.statuses import indirect_changes
from flask_coverage.ingest import upload_report
from flask_coverage.providers import PullInfo
from flask_coverage.queries.files import lines_by_path
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit
from tests.fake_provider import RecordingProvider
from tests.git_history import History, lcov

# None of lost.py, gained.py, shifted.py is in the pull's diff. lost.py misses a line it hit: an
# indirect change. gained.py hits lines it missed: its totals changed outside the diff, but nothing
# got worse. shifted.py keeps its totals while a hit and a miss trade places: no worse either.
UNTOUCHED_BASE = {"lost.py": {1: 1, 2: 1}, "gained.py": {1: 0, 2: 0}, "shifted.py": {1: 1, 2: 0}}
UNTOUCHED_HEAD = {"lost.py": {1: 0, 2: 1}, "gained.py": {1: 1, 2: 1}, "shifted.py": {1: 0, 2: 1}}
BASE = lcov({"app.py": {n: 1 for n in range(1, 11)}, "other.py": {1: 1}, **UNTOUCHED_BASE})
FIRST = lcov({"app.py": {1: 1, 3: 1, 4: 0, 5: 1, 11: 1, 12: 1}, "other.py": {1: 1}, **UNTOUCHED_HEAD})
# The second push adds new.py (one line missed) and leaves two added lines of app.py not covered.
SECOND = lcov(
    {
        "app.py": {1: 1, 3: 1, 4: 0, 5: 1, 11: "partial", 12: 1},
        "new.py": {1: 1, 2: 0},
        "other.py": {1: 0},
        **UNTOUCHED_HEAD,
    }
)


def test_the_page_and_the_comment_name_the_same_files_in_the_same_order(
    app: Flask, mirrored: History, testapp: webtest.TestApp
) -> None:
    provider = RecordingProvider(
        pulls={7: PullInfo(7, "open", "A change", "main", mirrored.base, "feature", mirrored.second)}
    )
    app.config.update(
        COVERAGE_PROVIDERS={"github": provider},
        COVERAGE_FEEDBACK_SENDER=False,
        COVERAGE_FEEDBACK_DELAY=0,
        COVERAGE_PUBLIC_URL="https://coverage.example",  # the comment's file links need an address
    )
    repository = "github/acme/widgets"
    upload_report(repository, BASE, commit=mirrored.base, branch="main")
    upload_report(repository, FIRST, commit=mirrored.first, branch="feature", pullid=7, parent=mirrored.base)
    upload_report(repository, SECOND, commit=mirrored.second, branch="feature", pullid=7, parent=mirrored.first)
    while send_due():
        pass
    ((_, body),) = provider.comments.values()

    page = testapp.get("/gh/acme/widgets/pull/7").html
    page_missed = [row.find("td").get_text(strip=True) for row in page.select("#coverage-patch-files tbody tr")]
    # The comment's file rows, their Markdown escapes undone.
    rows = re.findall(r"^\| \[((?:\\.|[^\]\\])+)\]\([^)]*/blob/", body, re.MULTILINE)
    comment_missed = [re.sub(r"\\(.)", r"\1", name) for name in rows]
    assert page_missed == comment_missed == ["app.py", "new.py"]  # 2 lines not covered, then 1

    page_indirect = [link.get_text() for link in page.select("#coverage-indirect a")]
    assert page_indirect == ["lost.py", "other.py"]
    assert f"{len(page_indirect)} files have indirect coverage changes (outside the diff)." in body
    assert f"{len(page_indirect)} files changed coverage outside the diff" in page.find(id="coverage-indirect").text
    # The changes status counts the same files.
    changes = provider.statuses.get((mirrored.second, "codecov/changes"))
    assert changes is None or changes["description"].startswith(f"{len(page_indirect)} files have")

    # Both are read from the one comparison, whose files are those above.
    found = find_repository("github", "acme", "widgets")
    base, head = resolve_commit(found, sha=mirrored.base), resolve_commit(found, sha=mirrored.second)
    comparison = Comparison(found, head, mirrored.base, base)
    assert [file.path for file in comparison.missed_files] == page_missed
    assert comparison.indirect == page_indirect


@pytest.mark.parametrize("seed", range(6))
def test_the_comparison_reads_the_indirect_changes_the_statuses_compute(mirrored: History, seed: int) -> None:
    """The comparison reads the totals columns, the patch and, only where it decides, the lines the
    diff removes from the base; the statuses decode every file. They name the same files."""
    randomness = random.Random(seed)

    def report(lines: dict[str, int]) -> bytes:
        states = [1, 0, "partial"]
        files = {
            path: {n: randomness.choice(states) for n in range(1, count + 1) if randomness.random() < 0.8}
            for path, count in lines.items()
        }
        return lcov({path: numbers for path, numbers in files.items() if numbers})

    repository = "github/acme/widgets"
    base_files = {"app.py": 10, "other.py": 2, "lib.py": 6}
    upload_report(repository, report(base_files), commit=mirrored.base, branch="main")
    head_report = report({"app.py": 12, "other.py": 2, "new.py": 3, "lib.py": 6})
    upload_report(repository, head_report, commit=mirrored.second, branch="feature", pullid=7, parent=mirrored.base)
    found = find_repository("github", "acme", "widgets")
    base, head = resolve_commit(found, sha=mirrored.base), resolve_commit(found, sha=mirrored.second)
    comparison = Comparison(found, head, mirrored.base, base)
    assert comparison.diff is not None and comparison.diff.removed["app.py"] == [3, 4]
    expected = indirect_changes(lines_by_path(head), lines_by_path(base), comparison.diff, None)
    assert comparison.indirect == sorted(expected)
