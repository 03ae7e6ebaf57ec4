"""Coverage badges: a flat two-part badge (grey label, colored value), as shields and Codecov draw it.

The parts are as wide as their text plus 5 px on each side (shields' flat layout). Text widths come
from the font the badge names first, DejaVu Sans at 11 px: :data:`_ADVANCES` holds the advance
widths (font units, 2048 per em) of its printable ASCII and Latin-1 glyphs, read from the
``hmtx`` table of ``DejaVuSans.ttf`` 2.37 (Debian's fonts-dejavu-core; the font's license lets
anyone use its metrics). Any other character counts as one em, the width of the wide scripts.
Each text also carries ``textLength``, so a browser that falls back to another font still fits
it into its part: nothing is clipped, nothing is padded.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from .escape import xml_escape

#: What a badge shows when there is no coverage to show.
UNKNOWN = "unknown"
#: The decimals a badge may show (``?precision=``), as Codecov allows.
PRECISIONS = ("0", "1", "2")
#: The value part's color when there is nothing to show.
UNKNOWN_COLOR = "#9f9f9f"
LABEL_COLOR = "#555"

FONT_SIZE = 11
_UNITS_PER_EM = 2048
# U+0020..U+007E, then U+00A0..U+00FF.
# fmt: off
_ADVANCES = (
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087,
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612,
    1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024,
    1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253,
    1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
    651, 821, 1303, 1303, 1303, 1303, 690, 1024, 1024, 2048, 965, 1253, 1716, 739, 2048, 1024,
    1024, 1716, 821, 821, 1024, 1303, 1303, 651, 1024, 821, 965, 1253, 1985, 1985, 1985, 1087,
    1401, 1401, 1401, 1401, 1401, 1401, 1995, 1430, 1294, 1294, 1294, 1294, 604, 604, 604, 604,
    1587, 1532, 1612, 1612, 1612, 1612, 1612, 1716, 1612, 1499, 1499, 1499, 1499, 1251, 1239, 1290,
    1255, 1255, 1255, 1255, 1255, 1255, 2011, 1126, 1260, 1260, 1260, 1260, 569, 569, 569, 569,
    1253, 1298, 1253, 1253, 1253, 1253, 1253, 1716, 1253, 1298, 1298, 1298, 1298, 1212, 1300, 1212,
)
# fmt: on
#: Horizontal space on each side of a part's text, in pixels.
PADDING = 5


def _advance(char: str) -> int:
    code = ord(char)
    if 0x20 <= code <= 0x7E:
        return _ADVANCES[code - 0x20]
    if 0xA0 <= code <= 0xFF:
        return _ADVANCES[code - 0xA0 + 95]
    return _UNITS_PER_EM


def text_width(text: str) -> float:
    """The width in pixels of ``text`` set in DejaVu Sans at :data:`FONT_SIZE` px (no kerning)."""
    return sum(map(_advance, text)) * FONT_SIZE / _UNITS_PER_EM


def format_coverage(hits: int, lines: int, precision: int) -> str:
    """``hits / lines`` as a percentage with ``precision`` decimals, rounded to the nearest (ties
    to even), as Codecov's badges round: ``99.996`` is ``"100"``, ``"100.0"`` or ``"100.00"``.

    Exact: the ratio is a fraction, never a float, so a value just below a tie is never rounded up.
    """
    scaled = round(Fraction(hits * 100 * 10**precision, lines))
    whole, decimals = divmod(scaled, 10**precision)
    return f"{whole}.{decimals:0{precision}d}" if precision else str(whole)


def _part(x: float, width: float, text: str) -> str:
    middle = f"{x + width / 2:g}"
    fit = f'textLength="{width - 2 * PADDING}" lengthAdjust="spacing"'
    return (
        f'<text x="{middle}" y="15" fill="#010101" fill-opacity=".3" {fit}>{text}</text>'
        f'<text x="{middle}" y="14" {fit}>{text}</text>'
    )


@functools.lru_cache(maxsize=512)
def render_badge_svg(label: str, value: str, color: str) -> bytes:
    """A flat badge reading ``label | value``, the value on ``color`` (``#rgb`` or ``#rrggbb``).

    Cached: the inputs are few (a label, a number, a color), so a repeat costs a dictionary lookup.
    """
    label_width = round(text_width(label)) + 2 * PADDING
    value_width = round(text_width(value)) + 2 * PADDING
    width = label_width + value_width
    label, value = xml_escape(label), xml_escape(value)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{label}: {value}"><title>{label}: {value}</title>'
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
        '<stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{label_width}" height="20" fill="{LABEL_COLOR}"/>'
        f'<rect x="{label_width}" width="{value_width}" height="20" fill="{color}"/>'
        f'<rect width="{width}" height="20" fill="url(#s)"/></g>'
        '<g fill="#fff" text-anchor="middle" font-family="DejaVu Sans,Verdana,Geneva,sans-serif" '
        f'font-size="{FONT_SIZE}">'
        f"{_part(0, label_width, label)}{_part(label_width, value_width, value)}</g></svg>"
    ).encode()
