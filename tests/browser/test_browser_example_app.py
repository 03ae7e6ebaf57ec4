"""A real Chromium on the example app: graphs render, links lead to file views, sign-in reaches the token page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Callable

import pytest
from flask import Flask

from example_app import create_app
from flask_coverage.demo import load_demo

pytestmark = pytest.mark.browser

#: Files of the generated repository: enough for a crowded treemap, small enough for a quick load.
GENERATED_FILES = 300
#: A file of d3-hierarchy's real report with hit, missed and partial lines.
D3_FILE = "src/hierarchy/index.js"


@pytest.fixture
def check_graph_images(png_pixels: Callable[[bytes], Any]) -> Callable[[Any, tuple[int, int, int]], int]:
    """``check_graph_images(page, background)``: every ``img.graph`` of the page loaded and is mostly painted;
    returns how many there are."""

    def check(page: Any, background: tuple[int, int, int]) -> int:
        page.wait_for_function("Array.from(document.images).every((image) => image.complete)")
        images = page.locator("img.graph")
        for index in range(images.count()):
            image = images.nth(index)
            assert image.evaluate("(image) => image.naturalWidth") > 0, image.get_attribute("src")
            image.scroll_into_view_if_needed()
            rows = png_pixels(image.screenshot())
            painted = sum(pixel != background for row in rows for pixel in row)
            # Not blank: a good part is painted (a sunburst leaves the corners and its outer rings' gaps white).
            assert painted > 0.25 * len(rows) * len(rows[0]), (image.get_attribute("src"), painted)
        return images.count()

    return check


@pytest.fixture
def demo_app(make_database_url: Callable[[], str], tmp_path: Any) -> Iterator[Callable[[int], Flask]]:
    """A factory of example apps with the demo data (and its git mirrors), on new databases; their
    connections close at teardown.

    Request it before ``live_server``, so that the servers stop before the connections close.
    """
    apps: list[Flask] = []

    def make(generated_files: int) -> Flask:
        config = {
            "SECRET_KEY": "browser",
            "SQLALCHEMY_DATABASE_URI": make_database_url(),
            "COVERAGE_SOURCE_GIT_ROOT": str(tmp_path / f"mirrors{len(apps)}"),
        }
        apps.append(create_app(config))
        with apps[-1].app_context():
            load_demo(generated_files=generated_files)
        return apps[-1]

    yield make
    for app in apps:
        with app.app_context():
            app.extensions["sqlalchemy"].engine.dispose()


def shot(page: Any, path: Any, **options: Any) -> bytes:
    """A screenshot of ``page``, also kept as ``path`` (the test's folder) for a person to look at."""
    return page.screenshot(path=str(path), **options)


def test_the_example_app_in_chromium(
    demo_app: Callable[[int], Flask],
    browser_page: Any,
    page_errors: list[str],
    check_graph_images: Callable[[Any, tuple[int, int, int]], int],
    live_server: Callable[[Any], str],
    tmp_path: Any,
) -> None:
    base = live_server(demo_app(GENERATED_FILES))
    page = browser_page

    page.goto(f"{base}/")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(255, 255, 255)"
    assert check_graph_images(page, (255, 255, 255)) == 9  # 3 public repositories x 3 kinds

    # Into the service's repository page, in this app's layout: its graphs are <object>s with a legend.
    page.click("#repo-acme-marshmallow h2 a")
    page.wait_for_url(f"{base}/gh/acme/marshmallow")
    assert page.locator("header.site-header").count() == 1
    for kind in ("tree", "icicle", "sunburst"):
        size = page.locator(f"object.coverage-graph-{kind}").evaluate(
            "(object) => [object.contentDocument.documentElement.width.baseVal.value, object.clientWidth]"
        )
        assert size[0] > 0 and size[1] > 0, kind
    assert page.locator(".coverage-legend svg rect").count() == 12  # red, ten steps, green
    shot(page, tmp_path / "repository.png", full_page=True)
    # Sorting is a link: the file explorer by misses, most first.
    page.click("#coverage-files th >> text=Misses")
    page.click("#coverage-files th >> text=Misses")
    misses = [int(text) for text in page.locator("#coverage-files tbody td:nth-child(5)").all_text_contents()]
    assert misses == sorted(misses, reverse=True) and misses[0] > 0

    # The branch, pull and commit pages name their target.
    page.click("#coverage-branches a:text('fix/nested-partial')")
    page.wait_for_url(f"{base}/gh/acme/marshmallow/branch/fix/nested-partial")
    assert "fix/nested-partial" in page.text_content(".coverage-breadcrumb")
    page.click("#coverage-commit a >> nth=0")
    page.wait_for_url("**/gh/acme/marshmallow/commit/*")
    assert page.text_content("h1").startswith("Commit ")
    page.goto(f"{base}/gh/acme/marshmallow/pull/41")
    assert page.text_content("h1") == "Pull request #41"
    page.goto(f"{base}/gh/globex")
    assert page.locator("#coverage-repositories tbody tr").count() == 2

    # Signing in from the navigation leads to the extension's access-token page, in this app's layout.
    page.goto(f"{base}/")
    page.click("nav >> text=Access tokens")
    page.wait_for_url(lambda url: url.startswith(f"{base}/sign-in?next="))
    page.click("#sign-in-as-alice")
    page.wait_for_url(f"{base}/account/access")
    assert page.text_content("#signed-in-as strong") == "alice"
    assert page.locator("#coverage-tokens .coverage-token-name").all_text_contents() == ["demo"]
    # Its buttons are this app's buttons (its accent color), not the browser's.
    accent = page.evaluate("getComputedStyle(document.querySelector('#coverage-create-token button')).backgroundColor")
    assert accent == "rgb(59, 91, 219)"
    shot(page, tmp_path / "tokens.png", full_page=True)

    # Signed in as a member of acme, the private repository's graphs load too (the page adds the token).
    page.goto(f"{base}/")
    assert page.locator("#repo-acme-flask-sqlalchemy").count() == 1
    assert check_graph_images(page, (255, 255, 255)) == 12
    page.goto(f"{base}/gh/acme/flask-sqlalchemy")
    assert page.text_content("h1") == "acme/flask-sqlalchemy"
    while "/blob/" not in page.url:  # the file explorer's first folders, then its first file
        page.click("#coverage-files tbody a >> nth=0")
        page.wait_for_load_state()
    page.wait_for_url("**/gh/acme/flask-sqlalchemy/**/blob/**")
    assert page.locator("table.coverage-source").count() == 1
    # Signed out, the same pages are the one 404.
    page.click("#sign-out button")
    page.goto(f"{base}/gh/acme/flask-sqlalchemy")
    assert page.text_content("h1") == "Not found"
    page_errors.remove(f"404 {base}/gh/acme/flask-sqlalchemy")
    assert page_errors == []


def row_colors(page: Any) -> dict[str, set[str]]:
    """The background colors of the file view's rows, by state (``""``: lines that are not tracked)."""
    script = """() => Array.from(document.querySelectorAll("#coverage-lines tbody tr")).map((row) =>
        [row.className.replace("coverage-", ""), getComputedStyle(row).backgroundColor])"""
    colors: dict[str, set[str]] = {}
    for state, color in page.evaluate(script):
        colors.setdefault(state, set()).add(color)
    return colors


def test_a_block_opens_the_file_view_with_source_and_keys(
    demo_app: Callable[[int], Flask],
    browser_page: Any,
    page_errors: list[str],
    png_pixels: Callable[[bytes], Any],
    live_server: Callable[[Any], str],
    tmp_path: Any,
) -> None:
    base = live_server(demo_app(1))
    page = browser_page
    page.goto(f"{base}/gh/globex/d3-hierarchy")
    page.locator("object.coverage-graph-tree").evaluate("(object) => object.contentDocument.readyState")
    tree = next(frame for frame in page.frames if frame.url.endswith("/graphs/tree.svg"))
    tree.locator(f"a[href$='{D3_FILE}']").click()
    page.wait_for_url(f"{base}/gh/globex/d3-hierarchy/blob/{D3_FILE}")
    assert page.text_content("h1") == D3_FILE
    # Every line of the (generated) source, numbered; the tracked ones colored by state.
    rows = page.locator("#coverage-lines tbody tr")
    last = int(rows.last.get_attribute("id")[1:])
    assert rows.count() == last
    # (c8 reports every line of a file, so this one has no untracked lines; each of its branches is a
    # block of its own, so by Codecov's LCOV rule no line is partial: docs/parsing.md.)
    assert row_colors(page) == {"hit": {"rgb(230, 246, 221)"}, "miss": {"rgb(251, 227, 222)"}}
    miss = page.locator("tr.coverage-miss").first
    assert "work(" in miss.locator("td:nth-child(3)").text_content()
    miss.scroll_into_view_if_needed()
    pixels = png_pixels(miss.screenshot())
    assert pixels[len(pixels) // 2][-5] == (251, 227, 222)  # the row's right end: the miss tint
    shot(page, tmp_path / "file.png")

    # Keys: n / p go from missed range to missed range, j / k line by line; the URL follows.
    starts = [
        int(row_id[1:])
        for row_id in page.evaluate(
            """() => Array.from(document.querySelectorAll("#coverage-lines tbody tr")).filter((row) =>
                row.className === "coverage-miss" &&
                !(row.previousElementSibling && row.previousElementSibling.className === "coverage-miss"))
                .map((row) => row.id)"""
        )
    ]
    assert len(starts) >= 2
    page.goto(f"{base}/gh/globex/d3-hierarchy/blob/{D3_FILE}#L1")
    page.keyboard.press("n")
    assert page.evaluate("location.hash") == f"#L{starts[0]}"
    page.keyboard.press("n")
    assert page.evaluate("location.hash") == f"#L{starts[1]}"
    page.keyboard.press("j")
    assert page.evaluate("location.hash") == f"#L{starts[1] + 1}"
    page.keyboard.press("k")
    page.keyboard.press("p")
    assert page.evaluate("location.hash") == f"#L{starts[0]}"
    # The "Next miss" link from the current line.
    page.click("#coverage-next-miss")
    assert page.evaluate("location.hash") == f"#L{starts[1]}"
    outline = page.evaluate(f"getComputedStyle(document.getElementById('L{starts[1]}')).outlineStyle")
    assert outline == "solid"
    # A line with a taken and an untaken branch is partial, and tinted so (a Python file's: by Codecov's
    # rule a JavaScript file of an LCOV report has no partial lines, docs/parsing.md).
    page.goto(f"{base}/gh/acme/marshmallow/blob/src/marshmallow/fields.py")
    assert row_colors(page)["partial"] == {"rgb(252, 241, 207)"}
    assert page_errors == []


def test_the_pages_fit_400_pixels(
    demo_app: Callable[[int], Flask], browser: Any, live_server: Callable[[Any], str], tmp_path: Any
) -> None:
    base = live_server(demo_app(1))
    context = browser.new_context(viewport={"width": 400, "height": 800})
    try:
        page = context.new_page()
        for number, path in enumerate(
            ["/", "/gh/acme", "/gh/acme/marshmallow", "/gh/globex/d3-hierarchy/blob/src/treemap/squarify.js"]
        ):
            page.goto(base + path)
            # Nothing wider than the window: long lines and wide tables scroll inside their own box.
            assert page.evaluate("document.documentElement.scrollWidth") <= 400, path
            shot(page, tmp_path / f"narrow{number}.png", full_page=True)
    finally:
        context.close()
