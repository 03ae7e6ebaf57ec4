"""The Components tab of a repository (docs/web.md): each component's coverage at the default branch's tip,
against totals computed here from the uploaded reports, and the same numbers as the API's."""

from __future__ import annotations

from test_api_components import REPO, YAML, merged, uploaded  # noqa: F401 (uploaded is a fixture)

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.svg.writer import format_percent


def counts(files, wanted) -> tuple[int, int, int]:
    """``(files, lines, hits)`` of the files ``wanted`` selects, counted here."""
    chosen = [counts for path, counts in files.items() if wanted(path)]
    lines = sum(len(c) for c in chosen)
    return len(chosen), lines, sum(1 for c in chosen for hits in c.values() if hits)


def test_the_components_tab(testapp, uploaded) -> None:  # noqa: F811
    overview = testapp.get("/gh/acme/widgets")
    tabs = overview.html.select(".coverage-tabs a")
    assert [a.text for a in tabs] == ["Overview", "Flags", "Components", "Settings"]
    page = testapp.get(tabs[2]["href"])
    assert page.html.select_one(".coverage-tabs a[aria-current=page]").text == "Components"
    rows = [
        [td.get_text(" ", strip=True) for td in tr.select("td")]
        for tr in page.html.select("#coverage-component-list tbody tr")
    ]
    api = testapp.get(f"{REPO}/components/").json["results"]
    assert len(rows) == len(api) == 8
    files = merged(uploaded)
    for row, component in zip(rows, api):
        assert row[0].startswith(component["name"])
        shown = row[4]
        expected = "no coverage" if component["coverage"] is None else f"{component['coverage']:.2f}%"
        assert shown == expected, (row, component)
    # The folder component's files and lines, counted here.
    n, lines, hits = counts(files, lambda p: p.startswith("src/app/"))
    assert rows[0][2:5] == [str(n), str(lines), format_percent(hits, lines)]
    assert rows[0][0] == "App app_folder" and rows[0][1] == "^src/app/"
    assert rows[5][2:5] == ["0", "0", "no coverage"]  # matches nothing: an empty component
    assert rows[6][1] == "every file"
    assert "flags: unit" in rows[7][0]


def test_no_tab_without_components_and_the_same_404(testapp, widgets, make_lcov) -> None:
    upload_report(widgets, make_lcov({"a.py": {1: 1}}), commit="ab" * 20, branch="main")
    assert [a.text for a in testapp.get("/gh/acme/widgets").html.select(".coverage-tabs a")] == [
        "Overview",
        "Flags",
        "Settings",
    ]
    page = testapp.get("/gh/acme/widgets/components")
    assert page.html.select_one("#coverage-no-components") is not None
    operations.add_repo("github", "acme", "secret", private=True)
    assert (
        testapp.get("/gh/acme/secret/components", status=404).body
        == testapp.get("/gh/acme/nothing/components", status=404).body
    )
    operations.set_repository_yaml("github", "acme", "widgets", YAML)
    assert "Components" in [a.text for a in testapp.get("/gh/acme/widgets/flags").html.select(".coverage-tabs a")]
