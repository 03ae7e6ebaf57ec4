"""The trend chart as drawn (svg/trend.py): points placed by time and percent, one commit a point."""

from __future__ import annotations

import datetime as dt

from defusedxml import ElementTree as ET

from flask_coverage.svg.trend import TrendPoint, render_trend_svg

SVG = "{http://www.w3.org/2000/svg}"
DAY = dt.datetime(2026, 11, 1, 12, 0)


def circles(body: bytes) -> list[tuple[float, float, str]]:
    root = ET.fromstring(body)
    return [(float(c.get("cx")), float(c.get("cy")), c.find(f"{SVG}title").text) for c in root.iter(f"{SVG}circle")]


def test_points_by_time_and_percent() -> None:
    points = [
        TrendPoint(DAY, 50.0),
        TrendPoint(DAY + dt.timedelta(days=1), 100.0),
        TrendPoint(DAY + dt.timedelta(days=4), 0.0),
    ]
    drawn = circles(render_trend_svg(points, 700, 150))
    # The plot: x from 40 to 688, y from 8 (100 %) to 130 (0 %).
    assert [(round(x), round(y)) for x, y, _ in drawn] == [(40, 69), (202, 8), (688, 130)]
    assert [title for _, _, title in drawn] == [
        "2026-11-01 12:00 UTC: 50.00%",
        "2026-11-02 12:00 UTC: 100.00%",
        "2026-11-05 12:00 UTC: 0.00%",
    ]
    root = ET.fromstring(render_trend_svg(points, 700, 150))
    dates = list(root.iter(f"{SVG}text"))[5:]
    assert [text.text for text in dates] == ["Nov 01", "Nov 02", "Nov 03", "Nov 04", "Nov 05"]
    assert [text.get("text-anchor") for text in dates] == ["start", "middle", "middle", "middle", "end"]
    # Within two days, the axis tells hours.
    hours = [TrendPoint(DAY, 50.0), TrendPoint(DAY + dt.timedelta(hours=6), 60.0)]
    labels = [text.text for text in ET.fromstring(render_trend_svg(hours, 700, 150)).iter(f"{SVG}text")][5:]
    assert labels[0] == "12:00" and labels[-1] == "18:00"


def test_one_commit_is_a_point_not_a_line() -> None:
    body = render_trend_svg([TrendPoint(DAY, 80.0)], 700, 150)
    root = ET.fromstring(body)
    assert root.find(f"{SVG}polyline") is None and root.find(f"{SVG}polygon") is None
    [(x, y, title)] = circles(body)
    assert (x, round(y, 1)) == (364.0, 32.4) and title == "2026-11-01 12:00 UTC: 80.00%"


def test_no_commits_and_a_small_chart() -> None:
    assert circles(render_trend_svg([], 700, 150)) == []
    small = ET.fromstring(render_trend_svg([TrendPoint(DAY, 80.0)], 100, 40))
    assert list(small.iter(f"{SVG}text")) == []  # too small for axes: the point and the bands alone
    assert len(list(small.iter(f"{SVG}circle"))) == 1


def axis_labels(points: list[TrendPoint]) -> list[tuple[str, str]]:
    texts = list(ET.fromstring(render_trend_svg(points, 700, 150)).iter(f"{SVG}text"))[5:]
    return [(text.text, text.get("text-anchor")) for text in texts]


def test_the_date_axis_never_repeats_a_label() -> None:
    # Commits of one minute (a CI matrix uploading at once): one label, in the middle, not six "12:00".
    minute = [TrendPoint(DAY + dt.timedelta(seconds=10 * k), 50.0 + k) for k in range(5)]
    assert axis_labels(minute) == [("12:00", "middle")]
    # Two and a half days: six ticks would say each day twice; each day is said once, the edges inside.
    days = [TrendPoint(DAY, 50.0), TrendPoint(DAY + dt.timedelta(hours=60), 60.0)]
    labels = axis_labels(days)
    assert [text for text, _ in labels] == ["Nov 01", "Nov 02", "Nov 03", "Nov 04"]
    assert labels[0][1] == "start" and labels[-1][1] == "end"
