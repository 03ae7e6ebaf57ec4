"""The web pages' pull comparison and trend chart (docs/web.md)."""

from __future__ import annotations

from v2_history import C0, C1, C2


def coverage(testapp, sha: str) -> float:
    return testapp.get("/api/v2/github/acme/repos/widgets/totals/", params={"sha": sha}).json["totals"]["coverage"]


def test_a_pull_page_compares_with_its_base(testapp, history) -> None:
    page = testapp.get("/gh/acme/widgets/pull/7")
    section = page.html.find(id="coverage-comparison")
    assert section is not None and C1[:12] in section.text
    assert page.html.find(id="coverage-change").text == f"{coverage(testapp, C2) - coverage(testapp, C1):+.2f}"
    rows = page.html.find(id="coverage-changed-files").find_all("tr")[1:]
    compared = testapp.get("/api/v2/github/acme/repos/widgets/compare/", params={"pullid": 7, "page_size": 100}).json[
        "files"
    ]
    changed = [f for f in compared if f["totals"]["base"] != f["totals"]["head"]]
    assert f"{len(changed)} files changed coverage" in section.text and len(rows) == min(10, len(changed))
    graphs = [tag["data"] for tag in section.find_all("object")]
    assert graphs == [f"/gh/acme/widgets/commit/{C1}/graphs/tree.svg", "/gh/acme/widgets/pull/7/graphs/tree.svg"]
    assert testapp.get("/gh/acme/widgets/pull/8").html.find(id="coverage-comparison").find("code").text == C0[:12]


def test_the_repository_page_shows_the_trend_of_its_default_branch(testapp, history) -> None:
    trend = testapp.get("/gh/acme/widgets").html.find(id="coverage-trend")
    assert trend.find("object")["data"] == "/gh/acme/widgets/graphs/commits.svg"
    testapp.get(trend.find("object")["data"], status=200)
    assert testapp.get(f"/gh/acme/widgets/commit/{C1}").html.find(id="coverage-trend") is None
    assert testapp.get("/gh/acme/widgets/pull/7").html.find(id="coverage-trend") is None
