"""Patch coverage: the added lines of base...head (git mirror or provider) looked up in the head's
report, in the compare API, on the pull's page and in the pull's file view."""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
from decimal import Decimal
from typing import Any

import pytest
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.feedback.diff import added_lines, parse_diff
from flask_coverage.feedback.statuses import Numbers, ratio
from flask_coverage.ingest import upload_report
from flask_coverage.lines import Totals
from tests.fake_provider import RecordingProvider
from tests.git_history import History, lcov

BASE_REPORT = lcov({"app.py": {n: 1 for n in range(1, 11)}, "other.py": {1: 1}})
# app.py: the pull changes 3, 4 and adds 11, 12; new.py is new (line 3 has no coverage).
HEAD_REPORT = lcov(
    {
        "app.py": {1: 1, 3: 1, 4: 0, 5: 0, 11: "partial", 12: 1},
        "new.py": {1: 1, 2: 0},
        "other.py": {1: 0},
    }
)
GIT = shutil.which("git") or "git"
COMPARE = "/api/v2/github/acme/repos/widgets/compare/?pullid=7"


def push_pull(history: History) -> None:
    upload_report("github/acme/widgets", BASE_REPORT, commit=history.base, branch="main")
    upload_report(
        "github/acme/widgets", HEAD_REPORT, commit=history.first, branch="feature", pullid=7, parent=history.base
    )
    upload_report(
        "github/acme/widgets", HEAD_REPORT, commit=history.second, branch="feature", pullid=7, parent=history.first
    )


def git_show(git_dir: str, sha: str, path: str) -> list[str]:
    done = subprocess.run([GIT, f"--git-dir={git_dir}", "show", f"{sha}:{path}"], capture_output=True, text=True)  # noqa: S603
    return done.stdout.splitlines() if done.returncode == 0 else []


def reference_patch(git_dir: str, base: str, head: str, report: dict[str, dict[int, Any]]) -> dict[str, int]:
    """Patch totals computed here on their own: each changed file's lines compared with difflib, the
    new ones looked up in the report as Codecov counts them."""
    names = subprocess.run(  # noqa: S603 - git with fixed arguments
        [GIT, f"--git-dir={git_dir}", "diff", "--name-only", f"{base}...{head}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    counts = {"hits": 0, "misses": 0, "partials": 0}
    for path in names:
        old, new = git_show(git_dir, base, path), git_show(git_dir, head, path)
        matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
        for tag, _, _, first, last in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                for number in range(first + 1, last + 1):
                    hits = report.get(path, {}).get(number)
                    if hits is not None:
                        counts["partials" if hits == "partial" else "hits" if hits else "misses"] += 1
    return counts


HEAD_LINES = {
    "app.py": {1: 1, 3: 1, 4: 0, 5: 0, 11: "partial", 12: 1},
    "new.py": {1: 1, 2: 0},
    "other.py": {1: 0},
}


def test_compare_gives_the_patch_from_the_mirror(mirrored: History, testapp: webtest.TestApp) -> None:
    push_pull(mirrored)
    answer = testapp.get(COMPARE).json
    patch = answer["totals"]["patch"]
    git_dir = os.path.join(mirrored.root, "github", "acme", "widgets.git")
    expected = reference_patch(git_dir, mirrored.base, mirrored.second, HEAD_LINES)
    assert {key: patch[key] for key in expected} == expected == {"hits": 3, "misses": 2, "partials": 1}
    assert (patch["lines"], patch["coverage"], patch["files"]) == (6, 50.0, 2)
    files = {file["name"]["head"]: file for file in answer["files"]}
    assert files["app.py"]["totals"]["patch"]["hits"] == 2 and files["app.py"]["totals"]["patch"]["partials"] == 1
    assert files["new.py"]["totals"]["patch"]["lines"] == 2
    assert (files["app.py"]["has_diff"], files["new.py"]["has_diff"], files["other.py"]["has_diff"]) == (
        True,
        True,
        False,
    )
    assert files["other.py"]["totals"]["patch"] is None


def test_without_a_mirror_the_providers_diff(
    app: Flask, widgets: Any, history: History, testapp: webtest.TestApp
) -> None:
    git_dir = os.path.join(history.root, "github", "acme", "widgets.git")
    # What GitHub's compare gives, as a unified diff with context.
    text = subprocess.run(  # noqa: S603 - git with fixed arguments
        [GIT, f"--git-dir={git_dir}", "diff", f"{history.base}...{history.second}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    provider = RecordingProvider(diffs={(history.base, history.second): text})
    app.config["COVERAGE_PROVIDERS"] = {"github": provider}
    push_pull(history)
    patch = testapp.get(COMPARE).json["totals"]["patch"]
    assert (patch["hits"], patch["misses"], patch["partials"]) == (3, 2, 1)
    testapp.get(COMPARE)
    assert len(provider.called("diff")) == 1  # a diff of two shas is kept


def test_without_a_diff_the_patch_is_null(widgets: Any, history: History, testapp: webtest.TestApp) -> None:
    push_pull(history)
    answer = testapp.get(COMPARE).json
    assert answer["totals"]["patch"] is None
    assert not any(file["has_diff"] for file in answer["files"])
    assert "Patch coverage: unknown" in testapp.get("/gh/acme/widgets/pull/7").text


def test_the_pull_page_shows_the_patch_rounded_by_the_yaml(mirrored: History, testapp: webtest.TestApp) -> None:
    push_pull(mirrored)
    page = testapp.get("/gh/acme/widgets/pull/7")
    patch = " ".join(page.html.find(id="coverage-patch").get_text(" ").split())
    assert "Patch coverage: 50.00% of 6 added lines with coverage (3 not covered: 2 missed, 1 partial)" in patch
    rows = [
        [cell.get_text(strip=True) for cell in row.find_all("td")]
        for row in page.html.select("#coverage-patch-files tbody tr")
    ]
    assert rows == [["app.py", "50.00%", "2"], ["new.py", "50.00%", "1"]]
    link = page.html.select_one("#coverage-patch-files a")["href"]
    assert link.startswith("/gh/acme/widgets/pull/7/blob/app.py") and link.endswith("#L4")
    changed = {
        row.find("td").get_text(): [cell.get_text() for cell in row.find_all("td")]
        for row in page.html.select("#coverage-changed-files tbody tr")
    }
    assert (changed["new.py"][1], changed["new.py"][4]) == ("new", "50.00%")
    assert changed["other.py"][3:] == ["-100.00", "not in the diff"]
    # other.py lost its coverage outside the diff: an indirect change.
    assert "1 file changed coverage outside the diff (indirect changes)" in patch
    operations.set_repository_yaml("github", "acme", "widgets", "coverage:\n  precision: 1\n  round: up\n")
    page = testapp.get("/gh/acme/widgets/pull/7")
    assert "Patch coverage: 50.0% of 6" in page.html.find(id="coverage-patch").get_text(" ", strip=True)


def test_the_pull_file_view_marks_the_added_lines(mirrored: History, testapp: webtest.TestApp) -> None:
    push_pull(mirrored)
    page = testapp.get("/gh/acme/widgets/pull/7/blob/app.py")
    added = [row["id"] for row in page.html.select("#coverage-lines tr.coverage-added")]
    assert added == ["L3", "L4", "L11", "L12"]
    summary = page.html.find(id="coverage-added").get_text(" ", strip=True)
    assert "This pull adds 4 lines" in summary and "not covered: 4 , 11" in summary
    # The same file at the commit itself marks nothing.
    commit_page = testapp.get(f"/gh/acme/widgets/commit/{mirrored.second}/blob/app.py")
    assert not commit_page.html.select("tr.coverage-added") and commit_page.html.find(id="coverage-added") is None


@pytest.mark.parametrize(
    ("hits", "lines", "precision", "rounding", "expected"),
    [
        (2, 3, 2, "down", Decimal("66.66")),
        (2, 3, 2, "up", Decimal("66.67")),
        (2, 3, 2, "nearest", Decimal("66.67")),
        (1, 3, 0, "nearest", Decimal("33")),
        (1, 3, 1, "up", Decimal("33.4")),
        (3, 3, 2, "down", Decimal("100.00")),
        (0, 0, 2, "down", None),
    ],
)
def test_rounding_as_the_yaml_says(hits: int, lines: int, precision: int, rounding: str, expected: Any) -> None:
    value = ratio(Totals.from_counts(hits, lines - hits, 0))
    assert (value if value is None else Decimal(Numbers(precision, rounding).show(value))) == expected


def test_a_precision_of_99_digits_is_honoured() -> None:
    value = ratio(Totals.from_counts(1, 2, 0))
    assert value is not None and Numbers(99, "down").show(value) == "33." + "3" * 99


DIFF_WITH_CONTEXT = """\
diff --git a/pkg/mod.py b/pkg/mod.py
index 1..2 100644
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -1,3 +1,4 @@
 one
-two
+TWO
+++ not a header, an added line
 three
\\ No newline at end of file
@@ -10 +11,2 @@ def f():
 ten
+eleven
diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
diff --git a/old.py b/moved.py
similarity index 90%
rename from old.py
rename to moved.py
--- a/old.py
+++ b/moved.py
@@ -3,0 +4 @@
+inserted
diff --git "a/sp ace/\\303\\251.py" "b/sp ace/\\303\\251.py"
--- "a/sp ace/\\303\\251.py"
+++ "b/sp ace/\\303\\251.py"
@@ -0,0 +1 @@
+x
diff --git a/image.png b/image.png
Binary files a/image.png and b/image.png differ
diff --git a/only_removed.py b/only_removed.py
--- a/only_removed.py
+++ b/only_removed.py
@@ -2 +1,0 @@
-gone
"""


def test_the_added_lines_of_a_unified_diff() -> None:
    assert added_lines(DIFF_WITH_CONTEXT.splitlines()) == {
        "pkg/mod.py": [2, 3, 12],
        "moved.py": [4],
        "sp ace/é.py": [1],
        "only_removed.py": [],
    }


def test_the_removed_lines_by_their_old_numbers_and_paths() -> None:
    assert parse_diff(DIFF_WITH_CONTEXT.splitlines()).removed == {
        "pkg/mod.py": [2],
        "gone.py": [1, 2],
        "only_removed.py": [2],
    }


def test_bytes_and_text_give_the_same_lines() -> None:
    raw = [line.encode() + b"\n" for line in DIFF_WITH_CONTEXT.splitlines()]
    assert added_lines(raw) == added_lines(DIFF_WITH_CONTEXT.splitlines())


def test_garbage_is_no_added_line() -> None:
    assert added_lines(["@@ nonsense @@", "+++", "+x", "random"]) == {}
    # A diff cut short (a provider's answer truncated) gives the lines up to the cut.
    assert added_lines(DIFF_WITH_CONTEXT.splitlines()[:9]) == {"pkg/mod.py": [2, 3]}
