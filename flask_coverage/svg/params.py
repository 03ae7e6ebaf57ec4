"""Graph options: defaults per kind, accepted ranges, and their validation into one :class:`GraphOptions`.

The web layer (and any other caller) validates here, once, at the edge; the writer trusts a
:class:`GraphOptions` (it still escapes every string it writes).  Error messages are plain
sentences that never repeat the rejected value.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional, Tuple, Union

from ..errors import InvalidInput

#: The graph kinds, in URL order.
GRAPH_KINDS = ("tree", "icicle", "sunburst")
#: Default ``(width, height)`` in pixels per kind.
GRAPH_DEFAULTS: dict[str, tuple[int, int]] = {
    "tree": (500, 500),
    "icicle": (700, 150),
    "sunburst": (300, 300),
}
DEFAULT_BORDER_SIZE = 1
DEFAULT_BORDER_COLOR = "white"
#: Coverage (percent) drawn red at and below the first value, green at and above the second.
DEFAULT_COLOR_RANGE = (70, 100)
#: Default smallest block (tree: side of a square of the same area; icicle:
#: width; sunburst: outer rim length), in pixels, drawn on its own; smaller
#: trailing blocks of a folder are folded into one block.  With the default
#: 1 px border a 6 px block shows a 5 px square of its color: enough to read
#: the color and to point at for the tooltip.  Smaller blocks only appear in
#: crowded graphs, where they are mostly border: noise on screen, and most of
#: the render time and bytes (docs/svg.md has the measurements).
MIN_BLOCK_SIZE = 6
#: Accepted width and height, inclusive.
SIZE_RANGE = (16, 4000)
#: Accepted border size, inclusive.
BORDER_SIZE_RANGE = (0, 20)

#: CSS named colors (CSS Color 4) plus ``transparent``; matched case-insensitively.
CSS_COLOR_NAMES = frozenset(
    # A word list reads and diffs better as text than as 149 quoted items.
    """
    aliceblue antiquewhite aqua aquamarine azure beige bisque black
    blanchedalmond blue blueviolet brown burlywood cadetblue chartreuse
    chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan
    darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta
    darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen
    darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink
    deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen
    fuchsia gainsboro ghostwhite gold goldenrod gray green greenyellow grey
    honeydew hotpink indianred indigo ivory khaki lavender lavenderblush
    lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow
    lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen
    lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime
    limegreen linen magenta maroon mediumaquamarine mediumblue mediumorchid
    mediumpurple mediumseagreen mediumslateblue mediumspringgreen
    mediumturquoise mediumvioletred midnightblue mintcream mistyrose moccasin
    navajowhite navy oldlace olive olivedrab orange orangered orchid
    palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff
    peru pink plum powderblue purple rebeccapurple red rosybrown royalblue
    saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue
    slateblue slategray slategrey snow springgreen steelblue tan teal thistle
    tomato turquoise violet wheat white whitesmoke yellow yellowgreen
    transparent
    """.split()  # noqa: SIM905
)

_hex_color = re.compile(r"#(?:[0-9a-f]{3}|[0-9a-f]{6})").fullmatch
_digits = re.compile(r"[0-9]{1,9}").fullmatch


class GraphOptions(NamedTuple):
    """Everything a graph's drawing depends on besides its files, as :func:`validate_graph_params`
    returns it; :func:`~flask_coverage.svg.writer.render_graph_svg` takes it as is.

    ``color_range`` is ``(low, high)`` in percent; ``link_prefix`` (``None``: no links) and
    ``link_suffix`` wrap each file block in ``<a href="{link_prefix}{quoted path}{link_suffix}">``;
    ``min_block_size`` is the smallest block, in pixels, drawn on its own.
    """

    kind: str
    width: int
    height: int
    border_size: int = DEFAULT_BORDER_SIZE
    border_color: str = DEFAULT_BORDER_COLOR
    color_range: Tuple[float, float] = DEFAULT_COLOR_RANGE
    link_prefix: Optional[str] = None
    link_suffix: str = ""
    min_block_size: int = MIN_BLOCK_SIZE


def _integer(name: str, value: Union[str, int, None], default: int, bounds: tuple[int, int]) -> int:
    lo, hi = bounds
    message = f"{name} must be an integer from {lo} to {hi}"
    if value is None:
        return default
    if isinstance(value, bool):
        raise InvalidInput(message)
    if isinstance(value, str):
        # Only ASCII digits: int() would also take signs, spaces, "_" and other scripts' digits.
        if _digits(value) is None:
            raise InvalidInput(message)
        value = int(value)
    if not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidInput(message)
    return value


def validate_border_color(value: Optional[str]) -> str:
    """The color, lower-cased, if it is a CSS color name or ``#rgb``/``#rrggbb``
    (``None`` gives the default); otherwise :class:`~flask_coverage.errors.InvalidInput` (a ``ValueError``)."""
    if value is None:
        return DEFAULT_BORDER_COLOR
    if isinstance(value, str) and value.isascii():
        color = value.lower()
        if color in CSS_COLOR_NAMES or _hex_color(color) is not None:
            return color
    raise InvalidInput("border_color must be a CSS color name, #rgb or #rrggbb")


def validate_graph_params(
    kind: str,
    width: Union[str, int, None] = None,
    height: Union[str, int, None] = None,
    border_size: Union[str, int, None] = None,
    border_color: Optional[str] = None,
    *,
    color_range: Tuple[float, float] = DEFAULT_COLOR_RANGE,
    link_prefix: Optional[str] = None,
    link_suffix: str = "",
    min_block_size: int = MIN_BLOCK_SIZE,
) -> GraphOptions:
    """The :class:`GraphOptions` of a graph, from parameters as they come from a
    query string (``str``), from code (``int``) or absent (``None``: the kind's default).

    Accepts ``kind`` in :data:`GRAPH_KINDS`, width and height in
    :data:`SIZE_RANGE`, border size in :data:`BORDER_SIZE_RANGE` (numbers as
    plain ASCII digits), and a border color accepted by
    :func:`validate_border_color`.  Raises ``InvalidInput`` (a ``ValueError``) with a message
    naming the parameter and the accepted values, never the rejected value.
    The keyword-only options come from code and are taken as given (the
    writer refuses a ``link_prefix`` with a non-http(s) scheme).
    """
    if not isinstance(kind, str) or kind not in GRAPH_DEFAULTS:
        raise InvalidInput("the graph kind must be one of: " + ", ".join(GRAPH_KINDS))
    default_width, default_height = GRAPH_DEFAULTS[kind]
    return GraphOptions(
        kind,
        _integer("width", width, default_width, SIZE_RANGE),
        _integer("height", height, default_height, SIZE_RANGE),
        _integer("border_size", border_size, DEFAULT_BORDER_SIZE, BORDER_SIZE_RANGE),
        validate_border_color(border_color),
        color_range,
        link_prefix,
        link_suffix,
        min_block_size,
    )
