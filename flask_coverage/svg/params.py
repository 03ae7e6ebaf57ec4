"""Graph parameters: defaults per kind, accepted ranges and their validation.

The web layer validates query arguments here before rendering.  Error
messages are plain sentences that never repeat the rejected value.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional, Union

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


class GraphParams(NamedTuple):
    """Validated graph parameters, ready for the ``render_*_svg`` functions."""

    kind: str
    width: int
    height: int
    border_size: int
    border_color: str


def _integer(name: str, value: Union[str, int, None], default: int, bounds: tuple[int, int]) -> int:
    lo, hi = bounds
    message = f"{name} must be an integer from {lo} to {hi}"
    if value is None:
        return default
    if isinstance(value, bool):
        raise ValueError(message)
    if isinstance(value, str):
        # Only ASCII digits: int() would also take signs, spaces, "_" and other scripts' digits.
        if _digits(value) is None:
            raise ValueError(message)
        value = int(value)
    if not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(message)
    return value


def validate_border_color(value: Optional[str]) -> str:
    """The color, lower-cased, if it is a CSS color name or ``#rgb``/``#rrggbb``
    (``None`` gives the default); otherwise ``ValueError``."""
    if value is None:
        return DEFAULT_BORDER_COLOR
    if isinstance(value, str) and value.isascii():
        color = value.lower()
        if color in CSS_COLOR_NAMES or _hex_color(color) is not None:
            return color
    raise ValueError("border_color must be a CSS color name, #rgb or #rrggbb")


def validate_graph_params(
    kind: str,
    width: Union[str, int, None] = None,
    height: Union[str, int, None] = None,
    border_size: Union[str, int, None] = None,
    border_color: Optional[str] = None,
) -> GraphParams:
    """Check graph parameters as they come from a query string (``str``),
    from code (``int``) or absent (``None``: the kind's default).

    Accepts ``kind`` in :data:`GRAPH_KINDS`, width and height in
    :data:`SIZE_RANGE`, border size in :data:`BORDER_SIZE_RANGE` (numbers as
    plain ASCII digits), and a border color accepted by
    :func:`validate_border_color`.  Raises ``ValueError`` with a message
    naming the parameter and the accepted values, never the rejected value.
    """
    if not isinstance(kind, str) or kind not in GRAPH_DEFAULTS:
        raise ValueError("the graph kind must be one of: " + ", ".join(GRAPH_KINDS))
    default_width, default_height = GRAPH_DEFAULTS[kind]
    return GraphParams(
        kind,
        _integer("width", width, default_width, SIZE_RANGE),
        _integer("height", height, default_height, SIZE_RANGE),
        _integer("border_size", border_size, DEFAULT_BORDER_SIZE, BORDER_SIZE_RANGE),
        validate_border_color(border_color),
    )
