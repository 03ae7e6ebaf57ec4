"""Fixtures of the tests that drive a real Chromium (marked ``browser``): ``browser``, ``browser_page``,
``page_errors`` and ``png_pixels`` (a PNG decoder for screenshots). The live servers they open pages
on come from tests/conftest.py (``live_server``).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from typing import Any, Callable

import pytest


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium (or ``CHROMIUM_PATH``) driven by Playwright, shared by the session's tests.

    Launched by ``example_app.screenshots.launch_chromium``, as for the README's pictures.
    """
    sync_api = pytest.importorskip("playwright.sync_api")
    from example_app.screenshots import launch_chromium

    with sync_api.sync_playwright() as playwright:
        chromium = launch_chromium(playwright)  # no Chromium: FileNotFoundError, saying what to do
        yield chromium
        chromium.close()


@pytest.fixture
def browser_page(browser: Any) -> Iterator[Any]:
    """A fresh page in a fresh browser context (own cookies and storage), closed after the test."""
    context = browser.new_context()
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def page_errors(browser_page: Any) -> list[str]:
    """What goes wrong on ``browser_page``: script errors, console errors (CSP violations among them) and
    failed loads (status 400 or more) but a missing favicon, which host apps need not have."""
    errors: list[str] = []
    browser_page.on("pageerror", lambda error: errors.append(str(error)))
    browser_page.on(
        "console",
        lambda message: (
            # Chromium logs a failed load too; the response handler reports it, with its URL.
            errors.append(message.text)
            if message.type == "error" and not message.text.startswith("Failed to load resource")
            else None
        ),
    )
    browser_page.on(
        "response",
        lambda response: (
            errors.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico")
            else None
        ),
    )
    return errors


def decode_png(data: bytes) -> list[list[tuple[int, int, int]]]:
    """The RGB pixels, row by row, of an 8-bit RGB or RGBA non-interlaced PNG (what Chromium's screenshots are)."""
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
    channels = 3 if color == 2 else 4
    stride = width * channels
    raw = zlib.decompress(idat)
    rows: list[list[tuple[int, int, int]]] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        # Undo the row's filter (PNG specification, section 9).
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            up_left = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - up_left
                a, b, c = abs(estimate - left), abs(estimate - up), abs(estimate - up_left)
                line[x] = (line[x] + (left if a <= b and a <= c else up if b <= c else up_left)) & 0xFF
        rows.append([(line[x], line[x + 1], line[x + 2]) for x in range(0, stride, channels)])
        previous = line
    return rows


@pytest.fixture
def png_pixels() -> Callable[[bytes], list[list[tuple[int, int, int]]]]:
    """:func:`decode_png`: ``png_pixels(page.screenshot())[y][x]`` is the RGB color at ``(x, y)``."""
    return decode_png
