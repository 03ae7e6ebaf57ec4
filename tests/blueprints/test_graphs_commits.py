"""``.../graphs/commits.svg``: the coverage trend chart of a branch (docs/graphs.md)."""

from __future__ import annotations

import re

from defusedxml import ElementTree as ET
from v2_history import C0, C1, DATA, upload

URL = "/gh/acme/widgets/graphs/commits.svg"


def test_the_trend_chart_of_the_default_branch(testapp, history) -> None:
    response = testapp.get(URL)
    assert response.content_type == "image/svg+xml" and response.headers["Cache-Control"] == "no-cache"
    assert "script-src" not in response.headers["Content-Security-Policy"]
    root = ET.fromstring(response.body)
    points = root.find("{http://www.w3.org/2000/svg}polyline").get("points").split()
    assert len(points) == 2  # main's C0 and C1, oldest first
    c0, c1 = (testapp.get("/api/v2/github/acme/repos/widgets/totals/", params={"sha": s}).json for s in (C0, C1))
    heights = [float(point.split(",")[1]) for point in points]
    assert [round((150 - h) / 150 * 100, 1) for h in heights] == [
        round(t["totals"]["hits"] * 100 / t["totals"]["lines"], 1) for t in (c0, c1)
    ]
    assert testapp.get(URL, headers={"If-None-Match": response.headers["ETag"]}, status=304).body == b""
    # Another upload to a commit of the chart changes what it shows, and so its ETag.
    upload(testapp, history.widgets.upload_token, (DATA / "flask-sqlalchemy.lcov").read_bytes(), C0, branch="main")
    assert testapp.get(URL).headers["ETag"] != response.headers["ETag"]


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
