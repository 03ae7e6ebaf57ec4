"""``.../graphs/commits.svg``: the coverage trend chart of a branch (docs/graphs.md)."""

from __future__ import annotations

import datetime as dt
import re

import sqlalchemy as sa
from defusedxml import ElementTree as ET
from v2_history import C0, C1, DATA, upload

from flask_coverage.models import Commit, utcnow
from flask_coverage.queries.targets import find_target
from flask_coverage.state import execute, get_session

URL = "/gh/acme/widgets/graphs/commits.svg"


SVG = "{http://www.w3.org/2000/svg}"


def point_titles(body: bytes) -> list[str]:
    return [circle.find(f"{SVG}title").text for circle in ET.fromstring(body).iter(f"{SVG}circle")]


def test_the_trend_chart_of_the_default_branch(testapp, history) -> None:
    response = testapp.get(URL)
    assert response.content_type == "image/svg+xml" and response.headers["Cache-Control"] == "no-cache"
    assert "script-src" not in response.headers["Content-Security-Policy"]
    root = ET.fromstring(response.body)
    # main's C0 and C1, oldest first: a point each, its date and coverage on hover, joined by a line.
    c0, c1 = (testapp.get("/api/v2/github/acme/repos/widgets/totals/", params={"sha": s}).json for s in (C0, C1))
    titles = point_titles(response.body)
    assert [title.rsplit(": ", 1)[1] for title in titles] == [
        f"{t['totals']['hits'] * 100 / t['totals']['lines']:.2f}%" for t in (c0, c1)
    ]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC: [\d.]+%", title) for title in titles)
    assert len(root.find(f"{SVG}polyline").get("points").split()) == 2
    # Axes: percentages every 25 points, and dates; the repository's range (70 to 100 by default) as bands.
    texts = [text.text for text in root.iter(f"{SVG}text")]
    assert texts[:5] == ["0%", "25%", "50%", "75%", "100%"] and len(texts) > 5
    bands = [rect.find(f"{SVG}title").text for rect in root.iter(f"{SVG}rect") if rect.find(f"{SVG}title") is not None]
    assert bands == ["0% to 70%", "70% to 100%"]
    assert testapp.get(URL, headers={"If-None-Match": response.headers["ETag"]}, status=304).body == b""
    # Another upload to a commit of the chart changes what it shows, and so its ETag.
    upload(testapp, history.widgets.upload_token, (DATA / "flask-sqlalchemy.lcov").read_bytes(), C0, branch="main")
    assert testapp.get(URL).headers["ETag"] != response.headers["ETag"]


def test_the_period(app, testapp, history) -> None:
    everything = point_titles(testapp.get(URL).body)
    assert point_titles(testapp.get(URL + "?period=all").body) == everything
    # C0 seen 40 days ago: out of the last 7 and 30 days, in the last 90.
    with app.app_context():
        commit = find_target("github", "acme", "widgets", sha=C0)[1]
        execute(sa.update(Commit).where(Commit.id == commit.id).values(timestamp=utcnow() - dt.timedelta(days=40)))
        get_session().commit()
    assert len(point_titles(testapp.get(URL + "?period=7d").body)) == len(everything) - 1
    assert len(point_titles(testapp.get(URL + "?period=30d").body)) == len(everything) - 1
    assert len(point_titles(testapp.get(URL + "?period=90d").body)) == len(everything)
    refused = testapp.get(URL + "?period=1y", status=400).text.strip()
    assert refused == "Bad request: period must be one of 7d, 30d, 90d, all."


def test_a_branch_a_size_and_what_has_no_trend(testapp, history) -> None:
    branch = testapp.get("/gh/acme/widgets/branch/feature/faster/graph/commits.svg?width=300&height=60")
    assert re.search(rb'width="300" height="60"', branch.body)
    for url in ["/gh/acme/widgets/pull/7/graphs/commits.svg", f"/gh/acme/widgets/commit/{C0}/graphs/commits.svg",
                "/gh/acme/widgets/branch/nope/graphs/commits.svg", "/gh/acme/nope/graphs/commits.svg"]:  # fmt: skip
        assert testapp.get(url, status=404).content_type == "image/svg+xml"
    assert testapp.get(URL + "?width=abc", status=400).content_type == "text/plain"


def test_a_private_repository_needs_its_graph_token(testapp, history) -> None:
    url = "/gh/acme/secret/graphs/commits.svg"
    assert testapp.get(url, status=404).body == testapp.get("/gh/acme/nothing/graphs/commits.svg", status=404).body
    response = testapp.get(url, params={"token": history.secret.image_token})
    assert response.headers["Cache-Control"] == "private, no-cache"
