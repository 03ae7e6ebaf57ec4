"""The pull request's comment: golden Markdown per layout, escaping, and when to comment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from flask_coverage.codecov_yml.numbers import Numbers
from flask_coverage.feedback.comment import CommentFacts, FileRow, FlagRow, escape, render, wanted
from flask_coverage.lines import Totals

GOLDEN = Path(__file__).parent / "golden"
PULL = "https://coverage.example.com/gh/acme/widgets/pull/7"


def facts(**changes: Any) -> CommentFacts:
    values: dict[str, Any] = {
        "pull_url": PULL,
        "file_url": lambda path: f"{PULL}/blob/{quote(path)}",
        "pullid": 7,
        "head_sha": "1234567" + "a" * 33,
        "base_sha": "89abcde" + "b" * 33,
        "head": Totals.from_counts(850, 120, 30),
        "base": Totals.from_counts(800, 180, 20),
        "head_files": 42,
        "base_files": 40,
        "patch": Totals.from_counts(45, 4, 1),
        "files": [
            FileRow("src/app.py", Totals.from_counts(20, 3, 1)),
            FileRow("src/[weird]_name*.py", Totals.from_counts(25, 1, 0)),
        ],
        "flags": [
            FlagRow(
                "unit", Totals.from_counts(700, 300, 0), Totals.from_counts(650, 350, 0), Totals.from_counts(30, 3, 0)
            ),
            FlagRow("integration", Totals.from_counts(500, 500, 0), None, None),
        ],
        "indirect": 2,
        "numbers": Numbers(),
    }
    values.update(changes)
    return CommentFacts(**values)


LAYOUTS = {
    "default": (["header", "diff", "flags", "files"], False),
    "codecov_legacy": (["header", "diff", "flags", "files", "footer"], False),
    "condensed": (["condensed_header", "condensed_files", "condensed_footer"], False),
    "limits": (["newheader", "flags:1", "files:1", "newfooter"], False),
    "hidden_project": (["header", "files"], True),
    "no_header": (["diff"], False),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_golden_comment_per_layout(name: str) -> None:
    layout, hide = LAYOUTS[name]
    body = render(facts(), layout, hide_project_coverage=hide)
    path = GOLDEN / f"comment_{name}.md"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(body)
    assert body == path.read_text()


def test_golden_comment_without_a_base_and_all_covered() -> None:
    body = render(
        facts(base=None, base_files=None, patch=Totals.from_counts(5, 0, 0), files=[], flags=[]),
        ["header", "diff", "files", "footer"],
    )
    path = GOLDEN / "comment_no_base.md"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(body)
    assert body == path.read_text()


def test_unknown_patch_is_said_so() -> None:
    assert ":grey_question: Patch coverage is unknown" in render(facts(patch=None, files=[]), ["header"])


def test_names_are_escaped() -> None:
    assert escape("a|b*c_[d](e)<script>") == r"a\|b\*c\_\[d\]\(e\)\<script\>"
    body = render(facts(flags=[FlagRow("x|y", Totals.from_counts(1, 0, 0), None, None)]), ["flags"])
    assert "| x\\|y |" in body


@pytest.mark.parametrize(
    ("require", "changes", "has_comment", "uploads", "after", "expected"),
    [
        ([], {}, False, 1, None, True),
        ([["any_change"]], {"patch": None, "indirect": 0}, False, 1, None, False),
        ([["any_change"]], {}, False, 1, None, True),
        ([["coverage_drop"]], {}, False, 1, None, False),  # coverage went up
        ([["coverage_drop"]], {"head": Totals.from_counts(1, 9, 0)}, False, 1, None, True),
        ([["uncovered_patch"]], {}, False, 1, None, True),
        ([["uncovered_patch"]], {"patch": Totals.from_counts(3, 0, 0)}, False, 1, None, False),
        ([["coverage_drop", "uncovered_patch"]], {}, False, 1, None, True),
        ([["coverage_drop"], ["uncovered_patch"]], {}, False, 1, None, False),
        ([["coverage_drop"]], {}, True, 1, None, True),  # a comment exists: it is kept up to date
        ([], {}, False, 2, 3, False),  # after_n_builds: 3
        ([], {}, True, 3, 3, True),
    ],
)
def test_when_to_comment(
    require: Any, changes: Any, has_comment: bool, uploads: int, after: Any, expected: bool
) -> None:
    assert wanted(require, facts(**changes), has_comment, uploads, after) is expected


def test_a_file_link_with_an_unbalanced_parenthesis_stays_one_link() -> None:
    # The file view's route leaves parentheses as they are; Markdown would end the link at ")".
    text = render(
        facts(file_url=lambda path: f"{PULL}/blob/{path}", files=[FileRow("src/a).py", Totals.from_counts(2, 1, 0))]),
        ["files"],
        False,
    )
    link = f"{PULL}/blob/src/a%29.py"
    assert f"| [src/a\\)\\.py]({link}) | 66.66% | [1 Missing :warning:]({link}) |" in text
