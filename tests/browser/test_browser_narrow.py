"""The pages in a 400-pixel window, in a real Chromium: no table cell breaks inside a word ("Com|mit",
"202|6-|11-"); a table too wide scrolls sideways in its own box, never the page (docs/web.md#templates)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from flask import Flask

from flask_coverage import operations
from flask_coverage.demo.data import generate_lcov
from flask_coverage.ingest import upload_report

pytestmark = pytest.mark.browser

MAIN = ["a" * 40, "b" * 40, "c" * 40]
HEAD = "d" * 40

#: Each word of each visible table cell, as the window lays it out: a word whose pieces sit on more than
#: one line was broken inside.
BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll("table th, table td")) {
    if (!cell.offsetParent) continue;  // in a closed <details>
    const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
        if (lines.size > 1) broken.push(`${cell.closest("table").id}: ${word[0]}`);
      }
    }
  }
  return broken;
}"""


@pytest.fixture
def base(make_app: Callable[..., Flask], make_database_url: Callable[[], str], live_server: Any) -> str:
    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "globex")
        repository = operations.add_repo("github", "globex", "platform")
        parent = None
        for index, sha in enumerate(MAIN):
            upload_report(repository, generate_lcov(60, seed=index), commit=sha, branch="main", parent=parent)
            parent = sha
        upload_report(repository, generate_lcov(60, seed=7), commit=HEAD, pullid=3, branch="fix/x", parent=MAIN[-1])
    return live_server(app)


@pytest.mark.parametrize("path", ["", "/pull/3", f"/commit/{MAIN[-1]}"], ids=["repository", "pull", "commit"])
def test_no_table_cell_breaks_inside_a_word(
    browser_page: Any, page_errors: list[str], base: str, path: str, tmp_path: Path
) -> None:
    page = browser_page
    for width in (400, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/gh/globex/platform{path}")
        assert page.locator(".coverage-table tbody tr").count() >= 3
        assert page.evaluate(BROKEN_WORDS) == [], width
        # The page itself never scrolls sideways: a wide table scrolls in its .coverage-scroll box.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        name = path.strip("/").split("/")[0] or "repository"
        page.screenshot(path=str(tmp_path / f"{name}-{width}.png"), full_page=True)
    assert page_errors == []
