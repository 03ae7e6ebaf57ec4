"""The file explorer in a real Chromium: where it sits on the page, three folders down and back by its
links, sorting and paging by its links, a 400-pixel window, and axe-core's accessibility rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from flask import Flask

from flask_coverage import operations
from flask_coverage.demo.data import generate_lcov
from flask_coverage.ingest import upload_report

pytestmark = pytest.mark.browser

SHA = "c0ffee" + "0" * 34
#: A flat folder with more entries than a page holds.
FLAT = "".join(f"SF:flat/file_{n:03d}.py\nDA:1,{n % 2}\nDA:2,1\nend_of_record\n" for n in range(130)).encode()
#: Three folders deep, each level a link of the one above.
DEEP = ("ingest", "tasks", "orders")


@pytest.fixture
def base(make_app: Callable[..., Flask], make_database_url: Callable[[], str], live_server: Any) -> str:
    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "globex")
        repository = operations.add_repo("github", "globex", "platform")
        upload_report(repository, generate_lcov(400), commit=SHA, branch="main")
        upload_report(repository, FLAT, commit=SHA, branch="main")
    return live_server(app)


def table(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#coverage-files tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))"
    )


def serious_violations(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{violation['id']}: {violation['help']} ({len(violation['nodes'])} nodes)"
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
    ]


def test_drill_down_three_levels_and_back(browser_page: Any, page_errors: list[str], base: str, tmp_path: Path) -> None:
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{base}/gh/globex/platform")
    # The coverage, the trend and the explorer's first rows are in the first screen.
    assert page.locator("#coverage-summary").bounding_box()["y"] < 300
    assert page.locator("#coverage-files tbody tr").first.bounding_box()["y"] < 900
    top = table(page)
    assert top[0][0].startswith("api/") and top[-1][0].startswith("web/")
    page.screenshot(path=str(tmp_path / "repository-1280.png"))
    for depth, name in enumerate(DEEP, start=1):
        page.click(f"#coverage-files tbody a:text-is('{name}/')")
        page.wait_for_url(f"{base}/gh/globex/platform/tree/main/{'/'.join(DEEP[:depth])}")
        assert page.text_content("#coverage-files-title code") == "/".join(DEEP[:depth])
    # The deepest folder holds files only, each a link to its file view at the branch.
    rows = table(page)
    assert rows and all(row[0].endswith(".py") for row in rows)
    page.screenshot(path=str(tmp_path / "folder-1280.png"))
    page.click("#coverage-files tbody a >> nth=0")
    page.wait_for_url(f"{base}/gh/globex/platform/branch/main/blob/{'/'.join(DEEP)}/**")
    page.go_back()
    # Back up by the folder path: a link per level.
    page.click(".coverage-folder-path a:text-is('ingest')")
    page.wait_for_url(f"{base}/gh/globex/platform/tree/main/ingest")
    page.click(".coverage-folder-path a:text-is('platform')")
    page.wait_for_url(f"{base}/gh/globex/platform/tree/main")
    assert table(page) == top
    assert page_errors == []


def test_sorting_and_paging_by_links(browser_page: Any, page_errors: list[str], base: str) -> None:
    page = browser_page
    page.goto(f"{base}/gh/globex/platform/tree/main/flat")
    assert page.text_content(".coverage-pages span") == "page 1 of 2 (130 entries)"
    assert len(table(page)) == 100
    page.click("#coverage-files th a:has-text('Coverage')")
    page.wait_for_url("**sort=coverage&order=asc**")
    coverage = [float(row[-1].rstrip("%")) for row in table(page)]
    assert coverage == sorted(coverage) and coverage[0] == 50.0
    page.click("#coverage-files th a:has-text('Coverage')")
    page.wait_for_url("**sort=coverage&order=desc**")
    assert table(page)[0][-1] == "100.00%"
    page.click("a[rel=next]")
    page.wait_for_url("**page=2**")
    rest = table(page)
    assert len(rest) == 30 and all(row[-1] == "50.00%" for row in rest)
    assert page.get_attribute("#coverage-files th[aria-sort]", "aria-sort") == "descending"
    assert page_errors == []


def test_a_narrow_window(browser_page: Any, page_errors: list[str], base: str, tmp_path: Path) -> None:
    page = browser_page
    page.set_viewport_size({"width": 400, "height": 800})
    for path in ("/gh/globex/platform", "/gh/globex/platform/tree/main/ingest/tasks"):
        page.goto(f"{base}{path}")
        # The page does not scroll sideways; the table scrolls inside its box.
        assert page.evaluate("document.documentElement.scrollWidth") <= 400
        assert page.locator("#coverage-files tbody a").first.is_visible()
        page.screenshot(path=str(tmp_path / f"{path.count('/')}-400.png"), full_page=True)
    assert page_errors == []


def test_no_serious_accessibility_violation(browser_page: Any, base: str) -> None:
    page = browser_page
    for path in ("/gh/globex/platform", "/gh/globex/platform/tree/main/ingest/tasks"):
        page.goto(f"{base}{path}")
        assert serious_violations(page) == [], path


def test_the_trend_chart_reads(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], live_server: Any, browser_page: Any,
    page_errors: list[str], tmp_path: Path,
) -> None:  # fmt: skip
    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "globex")
        repository = operations.add_repo("github", "globex", "trend")
        for index in range(6):
            report = generate_lcov(20 + 10 * index, seed=index)
            upload_report(repository, report, commit=f"{index:x}" * 40, branch="main")
    base = live_server(app)
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{base}/gh/globex/trend")
    chart = page.locator("#coverage-trend object")
    chart.evaluate("(object) => object.contentDocument.readyState")
    frame = next(frame for frame in page.frames if "/graphs/commits.svg" in frame.url)
    # What a hover shows (each point's <title>) is what the table alternative lists.
    hovers = frame.locator("circle.trend-point title").all_text_contents()
    page.click("#coverage-trend summary")
    rows = page.eval_on_selector_all("#coverage-trend-table tbody tr", "rows => rows.map(r => r.innerText)")
    assert len(hovers) == 6 and [hover.replace(" UTC: ", " UTC\t") for hover in hovers] == rows
    box = chart.bounding_box()
    page.screenshot(path=str(tmp_path / "trend-1280.png"), clip={**box, "height": box["height"] + 200})
    assert serious_violations(page) == []
    assert page_errors == []


def test_the_pull_page_leads_with_its_changed_files(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], live_server: Any, browser_page: Any,
    page_errors: list[str], tmp_path: Path,
) -> None:  # fmt: skip
    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "globex")
        repository = operations.add_repo("github", "globex", "platform")
        upload_report(repository, generate_lcov(60), commit=SHA, branch="main")
        upload_report(repository, generate_lcov(60, seed=7), commit="d" * 40, pullid=3, branch="fix", parent=SHA)
    base = live_server(app)
    page = browser_page
    for width in (1280, 400):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/gh/globex/platform/pull/3")
        table = page.locator("#coverage-changed-files")
        # The changed files are in the first screen, before the trend, the explorer and the graphs.
        assert table.bounding_box()["y"] < 900
        assert page.text_content("#coverage-changed-count").startswith("10 of ")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(tmp_path / f"pull-{width}.png"))
    assert serious_violations(page) == []
    page.click("#coverage-changed-files tbody a >> nth=0")
    page.wait_for_url(f"{base}/gh/globex/platform/pull/3/blob/**")
    assert page_errors == []


def test_the_flags_and_settings_tabs(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], live_server: Any, browser_page: Any,
    page_errors: list[str], tmp_path: Path,
) -> None:  # fmt: skip
    from flask_coverage.ingest import UploadMeta

    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "globex")
        repository = operations.add_repo("github", "globex", "platform")
        for flag, seed in (("unit", 1), ("e2e", 2)):
            meta = UploadMeta.create(flags=flag)
            upload_report(repository, generate_lcov(30, seed=seed), commit=SHA, branch="main", meta=meta)
    base = live_server(app)
    page = browser_page
    for width in (1280, 400):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/gh/globex/platform")
        page.click(".coverage-tabs a:text-is('Flags')")
        page.wait_for_url(f"{base}/gh/globex/platform/flags")
        assert page.locator("#coverage-flag-list tbody tr").count() == 2
        page.locator("#coverage-flag-list object").first.evaluate("(object) => object.contentDocument.readyState")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(tmp_path / f"flags-{width}.png"), full_page=True)
        assert serious_violations(page) == []
        page.click(".coverage-tabs a:text-is('Settings')")
        page.wait_for_url(f"{base}/gh/globex/platform/settings")
        snippet = page.input_value("#coverage-badge-markdown")
        assert snippet == f"[![coverage]({base}/gh/globex/platform/graphs/badge.svg)]({base}/gh/globex/platform)"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(tmp_path / f"settings-{width}.png"), full_page=True)
        assert serious_violations(page) == []
    assert page_errors == []


def test_the_other_pages_have_no_serious_accessibility_violation(browser_page: Any, base: str) -> None:
    page = browser_page
    page.goto(f"{base}/gh/globex/platform/tree/main/flat")
    file_view = page.get_attribute("#coverage-files tbody a >> nth=0", "href")
    for path in ("/", "/gh/globex", file_view, "/gh/globex/nothing"):
        page.goto(f"{base}{path}")
        assert serious_violations(page) == [], path
