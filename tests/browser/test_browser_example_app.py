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
def demo_app(make_database_url: Callable[[], str]) -> Iterator[Callable[[int], Flask]]:
    """A factory of example apps with the demo data, on new databases; their connections close at teardown.

    Request it before ``live_server``, so that the servers stop before the connections close.
    """
    apps: list[Flask] = []

    def make(generated_files: int) -> Flask:
        apps.append(create_app({"SECRET_KEY": "browser", "SQLALCHEMY_DATABASE_URI": make_database_url()}))
        with apps[-1].app_context():
            load_demo(generated_files=generated_files)
        return apps[-1]

    yield make
    for app in apps:
        with app.app_context():
            app.extensions["sqlalchemy"].engine.dispose()


def test_the_example_app_in_chromium(
    demo_app: Callable[[int], Flask],
    browser_page: Any,
    page_errors: list[str],
    check_graph_images: Callable[[Any, tuple[int, int, int]], int],
    live_server: Callable[[Any], str],
) -> None:
    base = live_server(demo_app(GENERATED_FILES))
    page = browser_page

    page.goto(f"{base}/")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(255, 255, 255)"
    assert check_graph_images(page, (255, 255, 255)) == 9  # 3 public repositories x 3 kinds

    # Into a repository: its interactive graphs are <object>s; its files link to the file view.
    page.click("#repo-acme-marshmallow h2 a")
    page.wait_for_url(f"{base}/repos/gh/acme/marshmallow/")
    for kind in ("tree", "icicle", "sunburst"):
        size = page.locator(f"object.graph-{kind}").evaluate(
            "(object) => [object.contentDocument.documentElement.width.baseVal.value, object.clientWidth]"
        )
        assert size[0] > 0 and size[1] > 0, kind
    # A graph opened on its own: its blocks link to the file views of the commit drawn.
    page.click("#graph-tree a.open-graph")
    page.wait_for_url("**/graphs/tree.svg")
    page.locator("a").first.click()
    page.wait_for_url("**/blob/src/marshmallow/**")
    assert page.locator("text=src/marshmallow").count() > 0
    page.go_back()
    page.go_back()
    page.click("#branches a:text('fix/nested-partial')")
    page.wait_for_url(f"{base}/repos/gh/acme/marshmallow/branch/fix/nested-partial")
    link = page.locator("a.file-link").first
    path = link.text_content()
    link.click()
    page.wait_for_url("**/blob/**")
    assert path in page.content()
    assert page.locator("text=src/marshmallow").count() > 0

    # Signing in from the navigation leads to the extension's access-token page, in this app's layout.
    page.goto(f"{base}/")
    page.click("nav >> text=Access tokens")
    page.wait_for_url(lambda url: url.startswith(f"{base}/sign-in?next="))
    page.click("#sign-in-as-alice")
    page.wait_for_url(f"{base}/account/access")
    assert page.text_content("#signed-in-as strong") == "alice"
    assert page.locator("#coverage-tokens .coverage-token-name").all_text_contents() == ["demo"]

    # Signed in as a member of acme, the private repository's graphs load too (the page adds the token).
    page.goto(f"{base}/")
    assert page.locator("#repo-acme-flask-sqlalchemy").count() == 1
    assert check_graph_images(page, (255, 255, 255)) == 12
    assert page_errors == []


def test_a_block_of_an_embedded_graph_opens_the_file_view(
    demo_app: Callable[[int], Flask], browser_page: Any, live_server: Callable[[Any], str]
) -> None:
    base = live_server(demo_app(1))
    page = browser_page
    page.goto(f"{base}/repos/gh/acme/marshmallow/")
    page.locator("object.graph-tree").evaluate("(object) => object.contentDocument.readyState")
    tree = next(frame for frame in page.frames if frame.url.endswith("/graphs/tree.svg"))
    tree.locator("a").first.click()
    page.wait_for_url("**/blob/src/marshmallow/**", timeout=3000)
