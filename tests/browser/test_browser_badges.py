"""A real Chromium draws badges: each text sits inside its part, with the padding the layout promises.

The badges are shown as a README shows them (``<img>``), at twice the pixel density, and read back
from a screenshot: in each part, the columns holding white text pixels must start and end about
5 px (the padding) inside the part, on both sides - a text too wide for its width table would
touch or cross the part's edge, one too narrow would leave a wider gap on one side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from flask import Flask

from flask_coverage.svg.badge import PADDING, render_badge_svg, text_width

pytestmark = pytest.mark.browser

SCALE = 2
BADGES = [
    ("coverage", "100%", "#4c1"),
    ("coverage", "7.25%", "#e05d44"),
    ("coverage", "0%", "#e05d44"),
    ("coverage", "66.67%", "#dfb317"),
    ("coverage", "unknown", "#9f9f9f"),
    ("coverage of the integration tests", "99.9%", "#4c1"),
    ("WWW mmm", "11.11%", "#4c1"),
    ("façade élève", "88%", "#97ca00"),
]


def text_columns(row_block: list[list[tuple[int, int, int]]], x0: int, x1: int) -> tuple[int, int]:
    """The first and last column in ``[x0, x1)`` with a near-white (text) pixel."""
    columns = [x for x in range(x0, x1) if any(min(row[x]) > 170 for row in row_block)]
    assert columns, (x0, x1)
    return columns[0], columns[-1]


def test_texts_fit_their_parts(
    make_app: Callable[..., Flask],
    make_database_url: Callable[[], str],
    live_server: Any,
    browser: Any,
    png_pixels: Callable[[bytes], list[list[tuple[int, int, int]]]],
    tmp_path: Path,
) -> None:
    app = make_app(make_database_url())

    @app.get("/badge/<int:n>.svg")
    def badge(n: int) -> Any:
        return render_badge_svg(*BADGES[n]), {"Content-Type": "image/svg+xml"}

    @app.get("/badges")
    def page() -> str:
        images = "".join(
            f'<img id="b{n}" src="/badge/{n}.svg" style="display:block;margin:4px">' for n in range(len(BADGES))
        )
        return f"<!doctype html><body style='margin:0;background:#fff'>{images}</body>"

    base = live_server(app)
    context = browser.new_context(device_scale_factor=SCALE)
    try:
        page = context.new_page()
        page.goto(f"{base}/badges")
        page.wait_for_load_state("load")
        assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
        (tmp_path / "badges.png").write_bytes(page.screenshot())
        for n, (label, value, _color) in enumerate(BADGES):
            pixels = png_pixels(page.locator(f"#b{n}").screenshot())
            label_width = (round(text_width(label)) + 2 * PADDING) * SCALE
            value_width = (round(text_width(value)) + 2 * PADDING) * SCALE
            assert len(pixels[0]) == label_width + value_width
            rows = pixels[4 * SCALE : 16 * SCALE]  # the text band
            for x0, x1 in ((0, label_width), (label_width, label_width + value_width)):
                first, last = text_columns(rows, x0, x1)
                left, right = first - x0, x1 - 1 - last
                # 5 px of padding each side, give or take a pixel of side bearing and anti-aliasing.
                assert 3 * SCALE <= left <= 7 * SCALE, (label, value, left, right)
                assert 3 * SCALE <= right <= 7 * SCALE, (label, value, left, right)
                assert abs(left - right) <= 2 * SCALE, (label, value, left, right)
        # The width table is the font Chromium draws with: natural widths (no textLength) agree.
        texts = sorted({text for label, value, _ in BADGES for text in (label, value)})
        page.set_content(
            '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="20">'
            + "".join(
                f'<text font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11">{text}</text>'
                for text in texts
            )
            + "</svg>"
        )
        measured = page.evaluate("[...document.querySelectorAll('text')].map(t => t.getComputedTextLength())")
        for text, width in zip(texts, measured):
            assert width == pytest.approx(text_width(text), abs=0.6), text
    finally:
        context.close()
