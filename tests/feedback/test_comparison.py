"""One comparison of a pull (docs/pull-requests.md, "One comparison"): its page and its comment name
the same files with added lines not covered, in the same order, and the same indirect changes."""

from __future__ import annotations

import re

import webtest
from flask import Flask

from flask_coverage.feedback.comparison import Comparison
from flask_coverage.feedback.notify import send_due
from flask_coverage.ingest import upload_report
from flask_coverage.providers import PullInfo
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
        COVERAGE_PROVIDERS={"github": provider}, COVERAGE_FEEDBACK_SENDER=False, COVERAGE_FEEDBACK_DELAY=0
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
