"""The web pages' pull comparison and trend chart (docs/web.md)."""

from __future__ import annotations

from v2_history import C0, C1, C2


def coverage(testapp, sha: str) -> float:
    return testapp.get("/api/v2/github/acme/repos/widgets/totals/", params={"sha": sha}).json["totals"]["coverage"]


def test_a_pull_page_is_led_by_its_changed_files(testapp, history) -> None:
    page = testapp.get("/gh/acme/widgets/pull/7")
    section = page.html.find(id="coverage-comparison")
    assert section is not None and C1[:12] in section.text
    change = f"{coverage(testapp, C2) - coverage(testapp, C1):+.2f}"
    assert page.html.find(id="coverage-change").text == change
    assert page.html.find(id="coverage-base-change").text == change  # next to the coverage, at the top
    # The changed files come before the trend, the explorer and the graphs.
    order = [tag.get("id") for tag in page.html.find_all("section")]
    assert order[0] == "coverage-comparison" and order.index("coverage-explorer") > 0
    rows = page.html.find(id="coverage-changed-files").find_all("tr")[1:]
    compared = testapp.get("/api/v2/github/acme/repos/widgets/compare/", params={"pullid": 7, "page_size": 100}).json[
        "files"
    ]
    changed = {f["name"]["head"]: f["totals"] for f in compared if f["totals"]["base"] != f["totals"]["head"]}
    assert f"{len(changed)} files changed coverage" in section.text and len(rows) == min(10, len(changed))
    for row in rows:
        name, base, head, delta, patch = (cell.text for cell in row.find_all("td"))
        totals = changed[name]
        assert head == f"{totals['head']['coverage']:.2f}%"
        before = float(totals["base"]["coverage"]) if totals["base"] else 0.0
        assert delta == f"{float(totals['head']['coverage']) - before:+.2f}"
        assert patch == "no patch coverage yet"
        # Each file opens its file view at the pull's head.
        assert row.find("a")["href"] == f"/gh/acme/widgets/pull/7/blob/{name}"
    # The list is cut, and says so: "10 of N shown, all →".
    assert len(changed) > 10
    assert page.html.find(id="coverage-changed-count").text == f"10 of {len(changed)} shown"
    every = testapp.get(section.find("a", string="all →")["href"])
    assert len(every.html.find(id="coverage-changed-files").find_all("tr")) - 1 == len(changed)
    assert every.html.find(id="coverage-changed-count") is None
    testapp.get("/gh/acme/widgets/pull/7?changes=some", status=400)
    graphs = [tag["data"] for tag in page.html.select("#coverage-graphs-title ~ .coverage-graphs object")][-2:]
    assert graphs == [f"/gh/acme/widgets/commit/{C1}/graphs/tree.svg", "/gh/acme/widgets/pull/7/graphs/tree.svg"]
    assert testapp.get("/gh/acme/widgets/pull/8").html.find(id="coverage-comparison").find("code").text == C0[:12]


def test_the_repository_page_shows_the_trend_of_its_default_branch(testapp, history) -> None:
    trend = testapp.get("/gh/acme/widgets").html.find(id="coverage-trend")
    assert trend.find("object")["data"] == "/gh/acme/widgets/graphs/commits.svg"
    testapp.get(trend.find("object")["data"], status=200)
    assert testapp.get(f"/gh/acme/widgets/commit/{C1}").html.find(id="coverage-trend") is None
    assert testapp.get("/gh/acme/widgets/pull/7").html.find(id="coverage-trend") is None
