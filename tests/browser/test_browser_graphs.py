"""A real Chromium draws every graph kind, opened directly and inside an <img>, with the right colors.

The expected picture is computed independently of the SVG: the layout functions place a known file
(marshmallow's ``fields.py``, the biggest block), and the color scale gives its color. A pixel at
the center of that block in Chromium's screenshot must have that color. Then a click on the block
opens its file view.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path
from typing import Any, Callable

import pytest
from flask import Flask

from flask_coverage import operations
from flask_coverage.blueprints.graphs import graph_records
from flask_coverage.ingest import upload_report
from flask_coverage.svg import GRAPH_DEFAULTS, coverage_color
from flask_coverage.svg.hierarchy import build_hierarchy
from flask_coverage.svg.partition import icicle, sunburst
from flask_coverage.svg.treemap import squarified_treemap
from flask_coverage.svg.writer import MIN_BLOCK_SIZE

pytestmark = pytest.mark.browser

REPORT = Path(__file__).resolve().parent.parent / "data" / "marshmallow.coverage.xml"
KNOWN = "src/marshmallow/fields.py"
SHA = "f1e1d5" + "0" * 34


def decode_png(data: bytes) -> tuple[int, int, int, bytes]:
    """``(width, height, bytes per pixel, pixels)`` of an 8-bit RGB or RGBA, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        chunk = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and color in (2, 6) and interlace == 0
        elif kind == b"IDAT":
            idat += chunk
        position += 12 + length
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    pixels = bytearray()
    previous = bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            up_left = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                line[i] = (line[i] + predictor) & 0xFF
        pixels += line
        previous = line
    return width, height, bpp, bytes(pixels)


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    width, _, bpp, pixels = decode_png(png)
    offset = (y * width + x) * bpp
    return pixels[offset], pixels[offset + 1], pixels[offset + 2]


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
    """A host app with acme/widgets (public) and acme/secret (private), both at marshmallow's report."""
    app = make_app(make_database_url())

    @app.get("/embed/<path:graph>")
    def embed(graph: str) -> str:
        # The host's own page, showing a graph the way a README or dashboard does.
        return f'<!doctype html><body style="margin:0"><img id="graph" src="/{graph}" style="display:block"></body>'

    with app.app_context():
        operations.add_org("github", "acme")
        secret = operations.add_repo("github", "acme", "secret", private=True)
        root = "/home/runner/work/marshmallow/marshmallow"
        for repository in (operations.add_repo("github", "acme", "widgets"), secret):
            commit = upload_report(repository, REPORT.read_bytes(), commit=SHA, branch="main", root=root)
        records = [tuple(row) for row in graph_records(commit)]
        token = secret.image_token
    known = next(record for record in records if record[0] == KNOWN)
    expected = coverage_color(known[2] * 10000 // known[1] / 100)
    return {"base": live_server(app), "records": records, "color": expected, "token": token}


def watch_errors(page: Any) -> list[str]:
    """Failed loads, script errors and CSP violations (console errors) seen by ``page``."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            # Failed loads are checked by status below (the host app has no favicon).
            errors.append(message.text)
            if message.type == "error" and not message.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.on(
        "response",
        lambda response: (
            errors.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico")
            else None
        ),
    )
    return errors


def assert_color_near(actual: tuple[int, int, int], expected: str) -> None:
    # A little room for color management; neighbouring colors of the scale differ far more.
    assert max(abs(a - b) for a, b in zip(actual, rgb(expected))) <= 3, (actual, expected)


@pytest.mark.parametrize("kind", ["tree", "icicle", "sunburst"])
def test_each_kind_renders_with_the_file_colors(browser_page: Any, served: dict[str, Any], kind: str) -> None:
    page = browser_page
    errors = watch_errors(page)
    x, y = known_block_center(kind, served["records"])
    graph = f"gh/acme/widgets/graphs/{kind}.svg"

    page.goto(f"{served['base']}/{graph}")
    assert_color_near(pixel(page.screenshot(), x, y), served["color"])

    page.goto(f"{served['base']}/embed/{graph}")
    page.wait_for_function("document.getElementById('graph').complete")
    assert page.evaluate("document.getElementById('graph').naturalWidth") == GRAPH_DEFAULTS[kind][0]
    assert_color_near(pixel(page.screenshot(), x, y), served["color"])
    assert errors == []


@pytest.mark.parametrize("kind", ["tree", "icicle", "sunburst"])
def test_a_click_on_a_block_opens_its_file_view(browser_page: Any, served: dict[str, Any], kind: str) -> None:
    page = browser_page
    errors = watch_errors(page)
    x, y = known_block_center(kind, served["records"])
    token = served["token"]
    page.goto(f"{served['base']}/gh/acme/secret/branch/main/graphs/{kind}.svg?token={token}")
    assert_color_near(pixel(page.screenshot(), x, y), served["color"])
    page.mouse.click(x, y)
    page.wait_for_url(f"{served['base']}/gh/acme/secret/branch/main/blob/{KNOWN}?token={token}")
    assert page.text_content("h1") == KNOWN
    assert page.locator("tr.coverage-miss").count() > 0
    # The page's style sheet applies (the CSP allows it): missed lines are tinted.
    background = page.evaluate("getComputedStyle(document.querySelector('tr.coverage-miss')).backgroundColor")
    assert background == "rgb(251, 227, 222)"
    assert errors == []
