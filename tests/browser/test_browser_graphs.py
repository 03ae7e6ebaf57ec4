"""A real Chromium draws every graph kind, opened directly and inside an <img>, with the right colors.

The expected picture is computed independently of the SVG: the layout functions place a known file
(marshmallow's ``fields.py``, the biggest block), and the color scale gives its color. A pixel at
the center of that block in Chromium's screenshot must have that color. Then a click on the block
opens its file view.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import pytest
from flask import Flask

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.queries.graph_records import read_graph_records
from flask_coverage.queries.repositories import get_owner
from flask_coverage.svg import GRAPH_DEFAULTS, coverage_color
from flask_coverage.svg.hierarchy import build_hierarchy
from flask_coverage.svg.params import MIN_BLOCK_SIZE
from flask_coverage.svg.partition import icicle, sunburst
from flask_coverage.svg.treemap import squarified_treemap

pytestmark = pytest.mark.browser

REPORT = Path(__file__).resolve().parent.parent / "data" / "marshmallow.coverage.xml"
KNOWN = "src/marshmallow/fields.py"
SHA = "f1e1d5" + "0" * 34


def rgb(color: str) -> tuple[int, int, int]:
    digits = color.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def known_block_center(kind: str, records: list[Any]) -> tuple[int, int]:
    """Where the layout puts the center of :data:`KNOWN` in the graph ``kind`` of default size."""
    width, height = GRAPH_DEFAULTS[kind]
    root = build_hierarchy(records)
    if kind == "sunburst":
        for arc in sunburst(root, min(width, height) / 2, min_arc=MIN_BLOCK_SIZE):
            if arc.folded is None and arc.node.path == KNOWN:
                angle = math.radians((arc.a0 + arc.a1) / 2)
                radius = (arc.r0 + arc.r1) / 2
                return round(width / 2 + radius * math.sin(angle)), round(height / 2 - radius * math.cos(angle))
    else:
        layout = (
            squarified_treemap(root, width, height, min_area=MIN_BLOCK_SIZE**2)
            if kind == "tree"
            else icicle(root, width, height, min_width=MIN_BLOCK_SIZE)
        )
        for block in layout:
            if block.folded is None and block.node.path == KNOWN:
                return (block.x0 + block.x1) // 2, (block.y0 + block.y1) // 2
    raise AssertionError(f"{KNOWN} has no block of its own in the {kind}")


@pytest.fixture
def served(make_app: Callable[..., Flask], make_database_url: Callable[[], str], live_server: Any) -> dict[str, Any]:
    """A host app with acme/widgets (public) and acme/secret (private), both at marshmallow's report; the
    visitor is signed in as bob, an activated member of acme."""
    app = make_app(make_database_url())

    @app.extensions["coverage"].service.current_user_loader
    def signed_in() -> Any:
        return get_owner("github", "bob")

    @app.get("/embed/<path:graph>")
    def embed(graph: str) -> str:
        # The host's own page, showing a graph the way a README or dashboard does.
        return f'<!doctype html><body style="margin:0"><img id="graph" src="/{graph}" style="display:block"></body>'

    with app.app_context():
        operations.add_org("github", "acme")
        secret = operations.add_repo("github", "acme", "secret", private=True)
        operations.add_user("github", "bob")
        operations.add_member("github", "acme", "bob", activated=True)
        root = "/home/runner/work/marshmallow/marshmallow"
        for repository in (operations.add_repo("github", "acme", "widgets"), secret):
            commit = upload_report(repository, REPORT.read_bytes(), commit=SHA, branch="main", root=root)
        records = [tuple(row) for row in read_graph_records(commit)]
        token = secret.image_token
    known = next(record for record in records if record[0] == KNOWN)
    expected = coverage_color(known[2] * 10000 // known[1] / 100)
    return {"base": live_server(app), "records": records, "color": expected, "token": token}


def assert_color_near(actual: tuple[int, int, int], expected: str) -> None:
    # A little room for color management; neighbouring colors of the scale differ far more.
    assert max(abs(a - b) for a, b in zip(actual, rgb(expected))) <= 3, (actual, expected)


@pytest.mark.parametrize("kind", ["tree", "icicle", "sunburst"])
def test_each_kind_renders_with_the_file_colors(
    browser_page: Any, page_errors: list[str], png_pixels: Callable[[bytes], Any], served: dict[str, Any], kind: str
) -> None:
    page = browser_page
    x, y = known_block_center(kind, served["records"])
    graph = f"gh/acme/widgets/graphs/{kind}.svg"

    page.goto(f"{served['base']}/{graph}")
    assert_color_near(png_pixels(page.screenshot())[y][x], served["color"])

    page.goto(f"{served['base']}/embed/{graph}")
    page.wait_for_function("document.getElementById('graph').complete")
    assert page.evaluate("document.getElementById('graph').naturalWidth") == GRAPH_DEFAULTS[kind][0]
    assert_color_near(png_pixels(page.screenshot())[y][x], served["color"])
    assert page_errors == []


@pytest.mark.parametrize("kind", ["tree", "icicle", "sunburst"])
def test_a_click_on_a_block_opens_its_file_view(
    browser_page: Any, page_errors: list[str], png_pixels: Callable[[bytes], Any], served: dict[str, Any], kind: str
) -> None:
    page = browser_page
    x, y = known_block_center(kind, served["records"])
    token = served["token"]
    page.goto(f"{served['base']}/gh/acme/secret/branch/main/graphs/{kind}.svg?token={token}")
    assert_color_near(png_pixels(page.screenshot())[y][x], served["color"])
    page.mouse.click(x, y)
    # The link carries no graph token (it opens images only): the member reads the file signed in.
    page.wait_for_url(f"{served['base']}/gh/acme/secret/branch/main/blob/{KNOWN}")
    assert page.text_content("h1") == KNOWN
    assert page.locator("tr.coverage-miss").count() > 0
    # The page's style sheet applies (the CSP allows it): missed lines are tinted.
    background = page.evaluate("getComputedStyle(document.querySelector('tr.coverage-miss')).backgroundColor")
    assert background == "rgb(251, 227, 222)"
    assert page_errors == []
