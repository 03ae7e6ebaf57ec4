"""The service's web pages over HTTP (WebTest): owner, repository, branch, pull and commit pages."""

from __future__ import annotations

from typing import Any, Callable, Optional
from urllib.parse import quote, unquote

import pytest
import webtest
from flask import Flask, request
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.models import Owner
from flask_coverage.queries.repositories import get_owner

MAIN = "a" * 40
BRANCH = "b" * 40
HOSTILE = "feat/<script>alert(1)</script>"


@pytest.fixture(scope="module")
def site(module_app: Flask) -> dict[str, Any]:
    """acme/widgets (public) and acme/secret (private) with a few commits; bob is an activated member of
    acme, eve a user of no organization. The signed-in user is the ``X-User`` header's."""
    service = module_app.extensions["coverage"].service

    @service.current_user_loader
    def current_user() -> Optional[Owner]:

        name = request.headers.get("X-User")
        return get_owner("github", name) if name else None

    files = {f"pkg/mod{n:03d}.py": {1: 1, 2: n % 3, 3: 0 if n % 5 == 0 else 4} for n in range(130)}
    report = "".join(
        f"SF:{path}\n" + "".join(f"DA:{line},{hits}\n" for line, hits in lines.items()) + "end_of_record\n"
        for path, lines in files.items()
    ).encode()
    with module_app.app_context():
        operations.add_org("github", "acme")
        operations.add_user("github", "bob")
        operations.add_user("github", "eve")
        operations.add_member("github", "acme", "bob", activated=True)
        public = operations.add_repo("github", "acme", "widgets")
        private = operations.add_repo("github", "acme", "secret", private=True)
        operations.add_repo("github", "acme", "empty")
        for repository in (public, private):
            upload_report(repository, report, commit=MAIN, branch="main")
            upload_report(repository, report[: len(report) // 2], commit=BRANCH, branch=HOSTILE, pullid=7)
        return {"token": private.image_token}


@pytest.fixture
def web(module_app: Flask, site: dict[str, Any]) -> webtest.TestApp:
    return webtest.TestApp(module_app)


def texts(page: Any, selector: str) -> list[str]:
    return [element.text.strip() for element in page.html.select(selector)]


def test_the_owner_page_lists_what_the_visitor_may_see(web: webtest.TestApp) -> None:
    def names(user: Optional[str]) -> list[str]:
        page = web.get("/gh/ACME", headers={"X-User": user} if user else {})
        return [row.select_one("a").text for row in page.html.select("#coverage-repositories tbody tr")]

    assert names(None) == ["empty", "widgets"]
    assert names("eve") == ["empty", "widgets"]
    assert names("bob") == ["empty", "secret", "widgets"]
    row = web.get("/gh/acme").html.select("#coverage-repositories tbody tr")[1]
    assert row.select("td")[-1].text == "82.05%"
    web.get("/gh/nobody", status=404)


def test_the_repository_page(web: webtest.TestApp) -> None:
    page = web.get("/gh/acme/widgets")
    summary = dict(zip(texts(page, "#coverage-summary dt"), texts(page, "#coverage-summary dd")))
    assert summary == {
        "Coverage": "82.05%",
        "Lines": "390",
        "Hits": "320",
        "Partials": "0",
        "Misses": "70",
        "Files": "130",
    }
    assert [row.select_one("a").text for row in page.html.select("#coverage-branches tbody tr")] == [HOSTILE, "main"]
    assert texts(page, "#coverage-pulls tbody td a") == ["#7"]
    # Recent commits, newest first, with their upload dates.
    assert [cell.text for cell in page.html.select("#coverage-commits tbody td:first-child a")] == [
        BRANCH[:7],
        MAIN[:7],
    ]
    assert all(time["datetime"].endswith("Z") for time in page.html.select("#coverage-commits time"))
    # Graphs with a legend: 12 swatches from red to green over the default range.
    assert [obj["data"] for obj in page.html.select(".coverage-graph object")] == [
        "/gh/acme/widgets/graphs/commits.svg",  # the default branch's trend, first
        "/gh/acme/widgets/graphs/tree.svg",
        "/gh/acme/widgets/graphs/icicle.svg",
        "/gh/acme/widgets/graphs/sunburst.svg",
    ]
    swatches = [rect["fill"] for rect in page.html.select(".coverage-legend rect")]
    assert swatches[0] == "#e05d44" and swatches[-1] == "#4c1" and len(swatches) == 12
    # The file explorer at the top: the one folder, with its totals and a coverage bar.
    rows = page.html.select("#coverage-files tbody tr")
    assert [cell.text.split() for cell in rows[0].select("td")] == [
        ["pkg/", "130", "files"],
        ["390"],
        ["320"],
        ["0"],
        ["70"],
        ["82.05%"],
    ]
    assert rows[0].select_one("a")["href"] == "/gh/acme/widgets/tree/main/pkg"
    assert rows[0].select("rect")[1]["width"] == str(round(60 * 320 / 390, 1))
    # The folder: 100 entries a page, by name.
    folder = web.get("/gh/acme/widgets/tree/main/pkg")
    rows = folder.html.select("#coverage-files tbody tr")
    assert len(rows) == 100
    assert [cell.text.strip() for cell in rows[0].select("td")] == ["mod000.py", "3", "1", "0", "2", "33.33%"]
    assert rows[0].select_one("a")["href"] == "/gh/acme/widgets/branch/main/blob/pkg/mod000.py"
    assert folder.html.select_one("a[rel=next]")["href"] == (
        "/gh/acme/widgets/tree/main/pkg?sort=name&order=asc&page=2#coverage-files-title"
    )
    assert len(web.get("/gh/acme/widgets/tree/main/pkg?page=2").html.select("#coverage-files tbody tr")) == 30


@pytest.mark.parametrize(
    ("sort", "order", "first"),
    [("name", "desc", "mod129.py"), ("misses", "desc", "mod120.py"), ("hits", "desc", "mod128.py")],
)
def test_the_explorer_sorts_by_any_column(web: webtest.TestApp, sort: str, order: str, first: str) -> None:
    page = web.get(f"/gh/acme/widgets/tree/main/pkg?sort={sort}&order={order}")
    assert page.html.select_one("#coverage-files tbody td a").text == first
    header = page.html.select_one("#coverage-files th[aria-sort]")
    assert header["aria-sort"] == f"{order}ending"
    # The header links the other order.
    assert f"sort={sort}&order={'asc' if order == 'desc' else 'desc'}" in header.a["href"]


@pytest.mark.parametrize(
    ("query", "status"),
    [("sort=nope", 400), ("order=up", 400), ("page=0", 404), ("page=3", 404), ("page=x", 404), ("page=1e3", 404)],
)
def test_bad_table_arguments(web: webtest.TestApp, query: str, status: int) -> None:
    page = web.get(f"/gh/acme/widgets?{query}", status=status)
    assert page.html.select_one("#coverage-error-message").text


def test_branch_pull_and_commit_pages_name_their_target(web: webtest.TestApp) -> None:
    branch = web.get(f"/gh/acme/widgets/branch/{HOSTILE}")
    # Names are escaped everywhere.
    assert "<script>" not in branch.text
    assert branch.html.select_one("h1").text == f"Branch {HOSTILE}"
    assert HOSTILE in branch.html.select_one(".coverage-breadcrumb").text
    assert branch.html.select_one("#coverage-branches") is None  # not the repository page again
    assert texts(branch, "#coverage-commits-title") == ["Commits of this branch"]
    pull = web.get("/gh/acme/widgets/pull/7")
    assert pull.html.select_one("h1").text == "Pull request #7"
    assert "/graphs/" in pull.html.select_one(".coverage-graph object")["data"]
    assert pull.html.select_one(".coverage-graph object")["data"] == "/gh/acme/widgets/pull/7/graphs/tree.svg"
    commit = web.get(f"/gh/acme/widgets/commit/{MAIN[:7]}")
    assert commit.html.select_one("h1").text == f"Commit {MAIN[:12]}"
    assert commit.html.select_one("#coverage-commits") is None
    link = commit.html.select_one("#coverage-files tbody a")["href"]
    assert link == f"/gh/acme/widgets/tree/{MAIN[:7]}/pkg"
    file_link = web.get(link).html.select_one("#coverage-files tbody a")["href"]
    assert file_link.startswith(f"/gh/acme/widgets/commit/{MAIN[:7]}/blob/pkg/")


def test_a_repository_without_coverage(web: webtest.TestApp) -> None:
    page = web.get("/gh/acme/empty")
    assert page.html.select_one("#coverage-no-coverage") is not None
    web.get("/gh/acme/empty/branch/main", status=404)


def test_private_pages_for_members_only_the_graph_token_opens_images(
    web: webtest.TestApp, site: dict[str, Any]
) -> None:
    token = site["token"]
    for url, headers in [
        ("/gh/acme/secret", {}),
        ("/gh/acme/secret", {"X-User": "eve"}),
        ("/gh/acme/secret?token=wrong", {}),
        # The graph token opens the images, never the pages or the source (issue 26, F8).
        (f"/gh/acme/secret?token={token}", {}),
        (f"/gh/acme/secret/pull/7?token={token}", {}),
        (f"/gh/acme/secret/branch/main?token={token}", {"X-User": "eve"}),
        (f"/gh/acme/secret/commit/{MAIN}?token={token}", {}),
        (f"/gh/acme/secret/blob/pkg/mod001.py?token={token}", {}),
        (f"/gh/acme/secret/blob/pkg/mod001.py?token={'t' * 300}", {}),
        ("/gh/acme/secret/tree/main/pkg", {"X-User": "eve"}),
        ("/gh/acme/secret/pull/7/tree/pkg", {}),
    ]:
        # The same page as for a repository that does not exist, for the same visitor (the layout says who).
        reference = web.get("/gh/acme/nothing", headers=headers, status=404)
        response = web.get(url, headers=headers, status=404)
        assert response.body == reference.body, url
    assert web.get(f"/gh/acme/secret/graphs/tree.svg?token={token}").content_type == "image/svg+xml"
    member = web.get("/gh/acme/secret", headers={"X-User": "bob"})
    # A member's links carry no token; the graphs carry the graph token.
    links = [a["href"] for a in member.html.select("#coverage-files tbody a, #coverage-branches a, th a")]
    assert links and all("token=" not in link for link in links)
    assert all(obj["data"].endswith(f"?token={token}") for obj in member.html.select(".coverage-graph object"))
    for link in links[:3]:
        web.get(link.split("#")[0], headers={"X-User": "bob"})
    assert member.headers["Cache-Control"] == "private, no-cache"


def test_the_pages_can_be_left_out(make_app: Callable[..., Flask], make_database_url: Callable[[], str]) -> None:
    app = make_app(make_database_url(), COVERAGE_WEB_URL_PREFIX=None)
    with app.app_context():
        operations.add_org("github", "acme")
        operations.add_repo("github", "acme", "widgets")
    web = webtest.TestApp(app)
    web.get("/gh/acme", status=404)
    web.get("/gh/acme/widgets", status=404)
    assert "coverage_web" not in app.blueprints


def test_the_pages_leave_the_host_routes_alone(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str]
) -> None:
    app = make_app(make_database_url())

    @app.get("/users/<name>")
    def host_page(name: str) -> str:
        return f"host {name}"

    with app.app_context():
        operations.add_org("github", "acme")
    web = webtest.TestApp(app)
    assert web.get("/users/bob").text == "host bob"
    assert web.get("/gh/acme").status_int == 200


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["", "/branch/", "/pull/", "/commit/", "/blob/", "/branch/main/blob/", "/tree/", "/pull/7/tree/"]),
    st.text(st.characters(codec="utf-8", exclude_characters="#?"), max_size=40),
    st.sampled_from(["", "?sort=", "?page=", "?order=", "?token="]),
    st.text(max_size=10),
)
def test_no_input_is_a_500(web: webtest.TestApp, target: str, name: str, query: str, value: str) -> None:
    url = f"/gh/acme/widgets{target}{quote(name, safe='/')}{query}{quote(value)}"
    response = web.get(url, expect_errors=True)
    assert response.status_int in (200, 308, 400, 404), (url, response.status)


# --- the entry page and the navigation (issue 27) ------------------------------------------------


def test_the_entry_page_lists_what_the_visitor_may_see(web: webtest.TestApp) -> None:
    def listed(user: Optional[str]) -> list[tuple[str, list[str]]]:
        page = web.get("/", headers={"X-User": user} if user else {})
        return [
            (section.select_one("h2 a")["href"], [a["href"] for a in section.select("tbody td:first-child a")])
            for section in page.html.select(".coverage-owner")
        ]

    public = [("/gh/acme", ["/gh/acme/empty", "/gh/acme/widgets"])]
    assert listed(None) == listed("eve") == public
    assert listed("bob") == [("/gh/acme", ["/gh/acme/empty", "/gh/acme/secret", "/gh/acme/widgets"])]
    row = web.get("/").html.select(".coverage-owner tbody tr")[1]
    assert [cell.text.strip() for cell in row.select("td")][-1] == "82.05%"


def test_the_layout_says_who_is_signed_in_and_links_the_tokens_page(web: webtest.TestApp) -> None:
    for url in ("/", "/gh/acme", "/gh/acme/widgets", "/gh/acme/widgets/blob/pkg/mod001.py", "/gh/acme/nothing"):
        anonymous = web.get(url, status="*").html.select_one(".coverage-header")
        assert anonymous.select_one(".coverage-home")["href"] == "/"
        assert anonymous.select_one(".coverage-user").text.strip() == "Not signed in"
        member = web.get(url, headers={"X-User": "bob"}, status="*").html.select_one(".coverage-header")
        assert " ".join(member.select_one(".coverage-user").text.split()) == "Signed in as bob · Access tokens"
        assert member.select_one(".coverage-user a")["href"] == "/account/access"


def test_codecovs_file_links_redirect_to_the_file_view(web: webtest.TestApp) -> None:
    file = "pkg/mod001.py"
    assert web.get(f"/gh/acme/widgets/blob/main/{file}", status=302).location.endswith(
        f"/gh/acme/widgets/branch/main/blob/{file}"
    )
    assert web.get(f"/gh/acme/widgets/blob/{MAIN}/{file}?flag=x", status=302).location.endswith(
        f"/gh/acme/widgets/commit/{MAIN}/blob/{file}?flag=x"
    )
    # A branch name with "/" in it (the longest branch that starts the path wins).
    hostile = web.get(f"/gh/acme/widgets/blob/{quote(HOSTILE)}/{file}", status=302).location
    assert unquote(hostile).endswith(f"/gh/acme/widgets/branch/{HOSTILE}/blob/{file}")
    assert web.get(hostile).html.select_one("h1").text == file
    web.get(f"/gh/acme/widgets/blob/{file}", status=200)  # the default branch's file view as before
    web.get(f"/gh/acme/widgets/blob/nobranch/{file}", status=404)
    # A private repository's link answers only those who may read it.
    nothing = web.get("/gh/acme/nothing", status=404).body
    assert web.get(f"/gh/acme/secret/blob/main/{file}", status=404).body == nothing
    web.get(f"/gh/acme/secret/blob/main/{file}", headers={"X-User": "bob"}, status=302)


def test_a_host_apps_own_root_keeps_its_page(
    make_app: Callable[..., Flask], module_database_url: str, site: dict[str, Any]
) -> None:
    for prefix, entry in (("", None), ("/coverage", "/coverage/")):
        app = make_app(module_database_url, COVERAGE_WEB_URL_PREFIX=prefix)
        app.add_url_rule("/", "home", lambda: "the host's home page")  # registered after the service
        client = webtest.TestApp(app)
        assert client.get("/").text == "the host's home page"
        if entry is not None:
            page = client.get(entry)
            assert page.html.select_one(".coverage-home")["href"] == entry
            assert page.html.select_one(".coverage-owner h2 a")["href"] == "/coverage/gh/acme"


PAGES = [
    "",
    "/branch/main",
    f"/commit/{MAIN}",
    f"/commit/{MAIN[:9]}",
    "/pull/7",
    "/blob/pkg/mod001.py",
    "/tree/main/pkg",
    f"/tree/{MAIN[:7]}/pkg",
    "/pull/7/tree/pkg",
    "/flags",
    "/settings",
]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("visitor", [None, "eve"])
def test_private_and_missing_pages_run_the_same_statements(
    module_app: Flask, web: webtest.TestApp, site: dict[str, Any], page: str, visitor: Optional[str]
) -> None:
    """Anonymous or signed in without access, a private repository's page costs what a missing one's does:
    the same statements in the same order, so no timing tells it exists or which branches it has
    (issue 26, F5). The API's lookups are held to it by benchmarks/bench_abuse.py --only oracle."""
    import sqlalchemy as sa

    from flask_coverage.state import get_engine

    headers = {"X-User": visitor} if visitor else {}
    seen: dict[str, list[str]] = {}
    for repo in ("secret", "nothing", "secret", "nothing"):
        statements: list[str] = []

        def record(conn: Any, cursor: Any, statement: str, *args: Any, into: list[str] = statements) -> None:
            into.append(statement)

        with module_app.app_context():
            engine = get_engine()
        sa.event.listen(engine, "before_cursor_execute", record)
        try:
            response = web.get(f"/gh/acme/{repo}{page}", headers=headers, status=404)
        finally:
            sa.event.remove(engine, "before_cursor_execute", record)
        assert seen.setdefault(repo, statements) == statements  # warm: the same again
        seen[f"{repo} body"] = [response.text]
    assert seen["secret"] == seen["nothing"] and seen["secret"]
    assert seen["secret body"] == seen["nothing body"]
