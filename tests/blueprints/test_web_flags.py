"""The Flags tab of a repository: each flag's coverage at the default branch's tip, its trend, its graphs."""

from __future__ import annotations

import re
from typing import Any, Callable

import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.ingest import UploadMeta, upload_report

FIRST, SECOND = "1" * 40, "2" * 40


def lcov(files: dict[str, dict[int, int]]) -> bytes:
    return "".join(
        f"SF:{path}\n" + "".join(f"DA:{n},{hits}\n" for n, hits in lines.items()) + "end_of_record\n"
        for path, lines in files.items()
    ).encode()


def test_the_flags_tab(make_app: Callable[..., Flask], make_database_url: Callable[[], str]) -> None:
    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "acme")
        repository = operations.add_repo("github", "acme", "widgets")
        operations.add_repo("github", "acme", "secret", private=True)
        for sha, unit_hits in ((FIRST, 0), (SECOND, 1)):
            unit = lcov({"a.py": {1: 1, 2: unit_hits}})
            upload_report(repository, unit, commit=sha, branch="main", meta=UploadMeta.create(flags="unit"))
            e2e = lcov({"b.py": {1: 1, 2: 0, 3: 0, 4: 0}})
            upload_report(repository, e2e, commit=sha, branch="main", meta=UploadMeta.create(flags="e2e"))
    web = webtest.TestApp(app)
    overview = web.get("/gh/acme/widgets")
    tabs = overview.html.select(".coverage-tabs a")
    assert [a.text for a in tabs] == ["Overview", "Flags", "Settings"] and tabs[0]["aria-current"] == "page"
    page = web.get(tabs[1]["href"])
    rows = [
        [cell.text.split()[0] for cell in row.select("td")[:2]]
        for row in page.html.select("#coverage-flag-list tbody tr")
    ]
    assert rows == [["e2e", "25.00%"], ["unit", "100.00%"]]
    api = web.get("/api/v2/github/acme/repos/widgets/flags/").json["results"]
    assert {flag["flag_name"]: flag["coverage"] for flag in api} == {"e2e": 25.0, "unit": 100.0}
    unit_row = page.html.select("#coverage-flag-list tbody tr")[1]
    # The flag's trend: its coverage in each commit of the branch, oldest first.
    trend = unit_row.select_one("object")["data"]
    assert trend == "/gh/acme/widgets/graphs/commits.svg?flag=unit&width=200&height=40"
    body = web.get(trend).text
    assert re.findall(r"UTC: ([\d.]+%)</title>", body) == ["50.00%", "100.00%"]
    # Its graphs, and the repository page of the flag.
    links = [a["href"] for a in unit_row.select("td:last-child a")]
    assert links == [f"/gh/acme/widgets/graphs/{kind}.svg?flag=unit" for kind in ("tree", "icicle", "sunburst")]
    for link in links:
        assert web.get(link).content_type == "image/svg+xml"
    assert unit_row.select_one("a")["href"] == "/gh/acme/widgets?flag=unit#coverage-graphs-title"
    assert web.get("/gh/acme/widgets/graphs/commits.svg?flag=no%20way", status=400)
    # A repository without flags says so; a private one is the one 404.
    assert web.get("/gh/acme/secret/flags", status=404).body == web.get("/gh/acme/nothing/flags", status=404).body
    with app.app_context():
        operations.add_repo("github", "acme", "plain")
    assert web.get("/gh/acme/plain/flags").html.select_one("#coverage-no-flags") is not None


def test_no_flag_trend_mixes_with_the_commit_s(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str]
) -> None:
    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "acme")
        repository = operations.add_repo("github", "acme", "widgets")
        upload_report(repository, lcov({"a.py": {1: 1, 2: 0}}), commit=FIRST, branch="main")
    web = webtest.TestApp(app)
    everything: Any = web.get("/gh/acme/widgets/graphs/commits.svg").text
    assert "50.00%" in everything
    assert "UTC" not in web.get("/gh/acme/widgets/graphs/commits.svg?flag=unit").text  # no commit has the flag
