"""The coverage color scale: red -> orange -> yellow -> green."""

from __future__ import annotations

import functools

#: Color at or below the low end of the range (also for NaN).
LOW_COLOR = "#e05d44"
#: Color at or above the high end of the range.
HIGH_COLOR = "#4c1"
#: Color of a file or folder with no tracked lines (its coverage is "n/a").
NO_DATA_COLOR = "#9f9f9f"

#: Number of discrete colors strictly between the two ends.  Few colors keep
#: the SVG small (one ``<g fill>`` group each) and are still easy to tell apart.
STEPS = 10

# Piecewise-linear stops of the scale: red, orange, yellow, green.
_STOPS = (
    (0.0, (0xE0, 0x5D, 0x44)),
    (1 / 3, (0xFE, 0x7D, 0x37)),
    (2 / 3, (0xDF, 0xB3, 0x17)),
    (1.0, (0x44, 0xCC, 0x11)),
)


def _mix(t: float) -> str:
    """The scale's color at ``t`` in ``[0, 1]``, as ``#rrggbb``."""
    for (t0, c0), (t1, c1) in zip(_STOPS, _STOPS[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            r, g, b = (round(a + (b - a) * f) for a, b in zip(c0, c1))
            return f"#{r:02x}{g:02x}{b:02x}"
    raise ValueError("t must be within [0, 1]")  # pragma: no cover


# Step i stands for the sub-range [i, i + 1) / STEPS and takes its middle's color.
PALETTE: tuple[str, ...] = tuple(_mix((i + 0.5) / STEPS) for i in range(STEPS))


def coverage_color(percent: float, low: float = 70, high: float = 100) -> str:
    """The fill color of ``percent`` coverage on the scale ``low..high``.

    At or below ``low`` (or NaN) it is exactly :data:`LOW_COLOR` (``#e05d44``),
    at or above ``high`` exactly :data:`HIGH_COLOR` (``#4c1``).  In between,
    the range is cut into :data:`STEPS` equal steps, each with one color of
    the red -> orange -> yellow -> green scale; the hue never decreases as
    ``percent`` grows.
    """
    if not percent > low:
        return LOW_COLOR
    if percent >= high:
        return HIGH_COLOR
    step = int((percent - low) / (high - low) * STEPS)
    return PALETTE[min(step, STEPS - 1)]


@functools.lru_cache(maxsize=64)
def coverage_steps(low: float = 70, high: float = 100) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The scale ``low..high`` by hundredths of a percent: ``(bounds, colors)``.

    For a whole number ``q`` of hundredths (0 to 10000), ``colors[bisect_right(bounds, q)]`` is
    ``coverage_color(q / 100, low, high)``: a writer colors thousands of blocks with one bisection
    each instead of a call.
    """
    bounds: list[int] = []
    colors = [coverage_color(0.0, low, high)]
    while coverage_color(100.0, low, high) != colors[-1]:
        # The scale never goes back to a color it left: bisect for the next change.
        same, other = bounds[-1] if bounds else 0, 10000
        while other - same > 1:
            middle = (same + other) // 2
            if coverage_color(middle / 100, low, high) == colors[-1]:
                same = middle
            else:
                other = middle
        bounds.append(other)
        colors.append(coverage_color(other / 100, low, high))
    return tuple(bounds), tuple(colors)
