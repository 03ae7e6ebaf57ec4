"""The coverage trend chart (``.../graphs/commits.svg``): the coverage of a branch's commits over time.

A pure function over numbers and times, no Flask and no database; every value written is a number or a
date. The chart reads on its own, in a README too: a percent axis with grid lines, a date axis, the
repository's color range as bands (below its low end, between, above its high end), and a point per
commit whose ``<title>`` (shown on hover) says its date and coverage.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import NamedTuple

from .color import coverage_color

#: The most recent commits the chart shows.
TREND_COMMITS = 100
#: The periods a trend covers, in days back from now (``all``: the last :data:`TREND_COMMITS` commits).
TREND_PERIODS = {"7d": 7, "30d": 30, "90d": 90, "all": None}
#: Room for the axes' labels: left, right, top, bottom; a chart smaller than this draws the line alone.
_MARGINS = (40, 12, 8, 20)
_MIN_AXES_SIZE = (160, 80)
_BANDS = ("#e05d44", "#dfb317", "#44cc11")
_FONT = 'font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="10" fill="#555"'


class TrendPoint(NamedTuple):
    """A commit of the trend: when the service first saw it (UTC) and its coverage in percent."""

    time: dt.datetime
    coverage: float


def point_label(point: TrendPoint) -> str:
    """What a point's hover and the page's table say of it: ``2026-11-26 13:59 UTC: 66.52%``."""
    return f"{point.time:%Y-%m-%d %H:%M} UTC: {point.coverage:.2f}%"


def render_trend_svg(
    points: Sequence[TrendPoint], width: int, height: int, color_range: tuple[float, float] = (70, 100)
) -> bytes:
    """An SVG chart of ``points`` (oldest first) over ``width`` x ``height`` pixels.

    Percent from 0 (bottom) to 100 (top); time from the first point to the last (one point, or points of
    one moment, in the middle). The line and the area under it take the color of the last coverage on the
    graphs' scale.
    """
    low, high = color_range
    axes = width >= _MIN_AXES_SIZE[0] and height >= _MIN_AXES_SIZE[1]
    left, right, top, bottom = _MARGINS if axes else (4, 4, 4, 4)
    plot_w, plot_h = width - left - right, height - top - bottom

    def y_of(percent: float) -> float:
        return top + plot_h - percent / 100 * plot_h

    first = points[0].time if points else None
    span = (points[-1].time - points[0].time).total_seconds() if points else 0.0

    def x_of(moment: dt.datetime) -> float:
        if not span or first is None:
            return left + plot_w / 2
        return left + (moment - first).total_seconds() / span * plot_w

    title = f"Coverage trend: {len(points)} commits, last {points[-1].coverage:.2f}%" if points else "no commits"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img"><title>{title}</title><rect width="{width}" height="{height}" fill="#fff"/>'
    ]
    # The repository's range as bands: below low, from low to high, above high.
    for color, (lower, upper) in zip(_BANDS, ((0.0, low), (low, high), (high, 100.0))):
        if upper > lower:
            out.append(
                f'<rect x="{left}" y="{y_of(upper):.1f}" width="{plot_w}" height="{y_of(lower) - y_of(upper):.1f}" '
                f'fill="{color}" fill-opacity="0.08"><title>{lower:g}% to {upper:g}%</title></rect>'
            )
    if axes:
        for percent in (0, 25, 50, 75, 100):
            y = y_of(percent)
            out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
            out.append(f'<text x="{left - 4}" y="{y + 3:.1f}" text-anchor="end" {_FONT}>{percent}%</text>')
        ticks = _date_ticks(points, plot_w)
        for moment, text in ticks:
            x = x_of(moment)
            # The first and last labels stay inside the chart.
            edges = {} if len(ticks) == 1 else {points[0].time: "start", points[-1].time: "end"}
            anchor = edges.get(moment, "middle")
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + plot_h}" y2="{top + plot_h + 3}" stroke="#999"/>')
            out.append(f'<text x="{x:.1f}" y="{height - 6}" text-anchor="{anchor}" {_FONT}>{text}</text>')
    if points:
        color = coverage_color(points[-1].coverage, low, high)
        coordinates = [(x_of(point.time), y_of(point.coverage)) for point in points]
        if len(points) > 1:
            line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coordinates)
            base = top + plot_h
            out.append(
                f'<polygon points="{coordinates[0][0]:.1f},{base} {line} {coordinates[-1][0]:.1f},{base}" '
                f'fill="{color}" fill-opacity="0.25"/>'
            )
            out.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>')
        for point, (x, y) in zip(points, coordinates):
            out.append(
                f'<circle class="trend-point" cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}" stroke="#fff">'
                f"<title>{point_label(point)}</title></circle>"
            )
    out.append("</svg>")
    return "".join(out).encode()


def _date_ticks(points: Sequence[TrendPoint], plot_w: float) -> list[tuple[dt.datetime, str]]:
    """Where the date axis is labelled, and the label: the first and last point's times and evenly
    between (one label per 120 pixels at most), in hours within two days, else in days. A label that
    would repeat the one before it is left out; one left alone (commits of one minute) sits in the middle."""
    if not points:
        return []
    first, last = points[0].time, points[-1].time
    label = "%H:%M" if (last - first).total_seconds() < 2 * 86400 else "%b %d"
    count = 1 if first == last else max(2, min(6, int(plot_w // 120)))
    ticks: list[tuple[dt.datetime, str]] = []
    for index in range(count):
        moment = first + (last - first) * index / max(count - 1, 1)
        if not ticks or ticks[-1][1] != f"{moment:{label}}":
            ticks.append((moment, f"{moment:{label}}"))
    if len(ticks) == 1:
        return [(first + (last - first) / 2, ticks[0][1])]
    return ticks
