"""The file explorer of the web pages (WebTest): folders by folder at .../tree/{ref}/{folder}, their
totals kept at upload, refs that are branches with a slash, shas and pull requests."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.models import TreeEntry
from flask_coverage.state import execute, get_session

FIRST, SECOND, PULL_HEAD = "1" * 40, "2" * 40, "3" * 40
# Three levels of folders, a file at the top, and a second upload that adds a file and covers a line.
FILES = {
    "setup.py": {1: 1, 2: 0},
    "src/app/core/engine.py": {1: 1, 2: 1, 3: 0, 4: 0},
    "src/app/core/rules.py": {1: 1, 2: 1},
    "src/app/views.py": {1: 0, 2: 0},
    "src/cli.py": {1: 1},
}
MORE = {"src/app/core/engine.py": {3: 1}, "src/app/core/new.py": {1: 0}}


def lcov(files: dict[str, dict[int, int]]) -> bytes:
    return "".join(
        f"SF:{path}\n" + "".join(f"DA:{n},{hits}\n" for n, hits in lines.items()) + "end_of_record\n"
        for path, lines in files.items()
    ).encode()


@pytest.fixture(scope="module")
def web(module_app: Flask) -> webtest.TestApp:
    with module_app.app_context():
        operations.add_org("github", "globex")
        repository = operations.add_repo("github", "globex", "layers")
        upload_report(repository, lcov(FILES), commit=FIRST, branch="main")
        upload_report(repository, lcov(FILES), commit=SECOND, branch="feat/x", parent=FIRST)
        upload_report(repository, lcov(MORE), commit=SECOND, branch="feat/x")
        upload_report(repository, lcov(FILES), commit=PULL_HEAD, branch="fix", pullid=4, parent=FIRST)
    return webtest.TestApp(module_app)


def rows(page: Any) -> list[list[str]]:
    return [
        [" ".join(cell.text.split()) for cell in row.select("td")][:2] + [row.select("td")[-1].text.strip()]
        for row in page.html.select("#coverage-files tbody tr")
    ]


def test_three_levels_down_and_back(web: webtest.TestApp) -> None:
    top = web.get("/gh/globex/layers")
    # Folders first, each with its files' sums; then the files.
    assert rows(top) == [["src/ 4 files", "9", "55.55%"], ["setup.py", "2", "50.00%"]]
    page = top
    for name, expected in [
        ("src/", [["app/ 3 files", "8", "50.00%"], ["cli.py", "1", "100.00%"]]),
        ("app/", [["core/ 2 files", "6", "66.66%"], ["views.py", "2", "0.00%"]]),
        ("core/", [["engine.py", "4", "50.00%"], ["rules.py", "2", "100.00%"]]),
    ]:
        page = web.get(_link(page, name))
        assert rows(page) == expected
    assert page.request.path == "/gh/globex/layers/tree/main/src/app/core"
    assert page.html.select_one("#coverage-files-title code").text == "src/app/core"
    # The folder path leads back up, each level a link; the last is the page itself.
    crumbs = page.html.select(".coverage-folder-path a")
    assert [a.text for a in crumbs] == ["layers", "src", "app", "core"]
    assert crumbs[-1]["aria-current"] == "page"
    assert rows(web.get(crumbs[1]["href"])) == rows(web.get(_link(top, "src/")))
    assert web.get(crumbs[0]["href"]).request.path == "/gh/globex/layers/tree/main"
    assert rows(web.get(crumbs[0]["href"])) == rows(top)
    # A file of the folder opens its file view at the same branch.
    file_page = web.get(page.html.select_one("#coverage-files tbody a")["href"])
    assert file_page.request.path == "/gh/globex/layers/branch/main/blob/src/app/core/engine.py"


def _link(page: Any, text: str) -> str:
    for anchor in page.html.select("#coverage-files tbody a"):
        if text in anchor.text:
            return str(anchor["href"])
    raise AssertionError(f"no link {text!r}")


def test_a_branch_with_a_slash_a_sha_and_a_pull(web: webtest.TestApp) -> None:
    # feat/x merged a second upload: a new file and a line covered, in every folder above them.
    branch = web.get("/gh/globex/layers/tree/feat/x/src/app/core")
    assert rows(branch) == [
        ["engine.py", "4", "75.00%"],
        ["new.py", "1", "0.00%"],
        ["rules.py", "2", "100.00%"],
    ]
    assert _link(branch, "engine.py") == "/gh/globex/layers/branch/feat/x/blob/src/app/core/engine.py"
    assert rows(web.get("/gh/globex/layers/tree/feat/x"))[0] == ["src/ 5 files", "10", "60.00%"]
    # A sha (or a prefix) where no branch has that name.
    assert rows(web.get(f"/gh/globex/layers/tree/{SECOND[:7]}/src/app/core")) == rows(branch)
    pull = web.get("/gh/globex/layers/pull/4/tree/src")
    assert _link(pull, "app/") == "/gh/globex/layers/pull/4/tree/src/app"
    assert web.get("/gh/globex/layers/pull/4").html.select_one("#coverage-files tbody a")["href"] == (
        "/gh/globex/layers/pull/4/tree/src"
    )


def test_the_change_against_the_parent(web: webtest.TestApp) -> None:
    page = web.get("/gh/globex/layers/branch/feat/x")
    # 12 lines, 7 hit (58.33%) against the parent's 11 lines, 6 hit (54.54%).
    assert page.html.select_one("#coverage-parent-change").text == f"{700 / 12 - 600 / 11:+.2f}"
    # The first commit has no parent: no change shown.
    assert web.get("/gh/globex/layers").html.select_one("#coverage-parent-change") is None


@pytest.mark.parametrize(
    "url",
    [
        "/gh/globex/layers/tree/main/nowhere",
        "/gh/globex/layers/tree/main/setup.py",  # a file is not a folder
        "/gh/globex/layers/tree/main/src//app",
        "/gh/globex/layers/tree/nobranch/src",
        "/gh/globex/layers/pull/5/tree/src",
        "/gh/globex/layers/tree/main/src?page=2",
    ],
)
def test_what_is_not_a_folder_is_the_404_page(web: webtest.TestApp, url: str) -> None:
    assert web.get(url, status=404).body == web.get("/gh/globex/nothing", status=404).body


def test_init_db_builds_the_rows_of_older_commits(module_app: Flask, web: webtest.TestApp) -> None:
    before = web.get("/gh/globex/layers/tree/feat/x/src").body
    with module_app.app_context():
        execute(sa.delete(TreeEntry))
        get_session().commit()
        operations.init_db()
        assert execute(sa.select(sa.func.count()).select_from(TreeEntry)).scalar_one() > 0
    assert web.get("/gh/globex/layers/tree/feat/x/src").body == before


def test_the_trend_and_its_table_say_the_same(web: webtest.TestApp) -> None:
    page = web.get("/gh/globex/layers/branch/feat/x")
    chart = page.html.select_one("#coverage-trend object")["data"]
    assert chart == "/gh/globex/layers/branch/feat/x/graphs/commits.svg"
    svg = web.get(chart).body.decode()
    titles = [title for title in svg.split("<title>")[1:] if "UTC" in title]
    table = [" ".join(td.text for td in row.select("td")) for row in page.html.select("#coverage-trend-table tbody tr")]
    assert [title.split("</title>")[0].replace(" UTC:", " UTC") for title in titles] == table
    assert table[0].endswith(" UTC 58.33%")
    # The period: links to each, the chosen one marked and passed on to the chart.
    links = page.html.select(".coverage-periods a")
    assert [a.text for a in links] == ["last 7 days", "last 30 days", "last 90 days", "last 100 commits"]
    assert links[3]["aria-current"] == "true"
    week = web.get(links[0]["href"])
    assert week.html.select_one("#coverage-trend object")["data"].endswith("/graphs/commits.svg?period=7d")
    assert week.html.select_one(".coverage-periods a[aria-current]").text == "last 7 days"
    assert web.get("/gh/globex/layers?period=1y", status=400).html.select_one("#coverage-error-message").text
