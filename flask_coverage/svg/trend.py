"""The coverage trend chart (``.../graphs/commits.svg``): a line of the coverage of a branch's commits.

A pure function over numbers, no Flask and no database; every value written is a number.
"""

from __future__ import annotations

from collections.abc import Sequence

from .color import coverage_color

#: The most recent commits the chart shows.
TREND_COMMITS = 100


def render_trend_svg(
    coverages: Sequence[float], width: int, height: int, color_range: tuple[float, float] = (70, 100)
) -> bytes:
    """An SVG line chart of ``coverages`` (percentages, oldest first) over ``width`` x ``height`` pixels.

    The y axis runs from 0 % (bottom) to 100 % (top); the points are evenly spaced, the area under the
    line is filled with the color of the last coverage on the graphs' scale.
    """
    low, high = color_range
    color = coverage_color(coverages[-1], low, high) if coverages else "#9f9f9f"
    step = width / (len(coverages) - 1) if len(coverages) > 1 else 0.0
    points = [(index * step, height - value / 100 * height) for index, value in enumerate(coverages)]
    if len(points) == 1:
        points.append((float(width), points[0][1]))
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    title = f"{len(coverages)} commits, last {coverages[-1]:.2f}%" if coverages else "no commits"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}"><title>{title}</title>'
        f'<rect width="{width}" height="{height}" fill="#fff"/>'
        + (
            f'<polygon points="0,{height} {line} {width},{height}" fill="{color}" fill-opacity="0.35"/>'
            f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>'
            if points
            else ""
        )
        + "</svg>"
    ).encode()
