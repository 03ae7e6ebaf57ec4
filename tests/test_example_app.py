"""The example host app (``example_app``) over HTTP (WebTest), with the demo data loaded once per module."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
import sqlalchemy as sa
import webtest
from flask import Flask

from example_app import create_app, instance_secret_key
from example_app.auth import safe_next
from example_app.models import SignIn
from flask_coverage.demo import load_demo
from flask_coverage.models import metadata
from flask_coverage.queries.repositories import find_repository

DEMO_FILES = 30


@pytest.fixture(scope="module")
def example(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The example app with the demo data (a small generated repository), shared by the module's tests.

    On PostgreSQL it uses the session's shared test database and empties it afterwards, as the
    ``app`` fixture does after each test.
    """
    on_postgresql = bool(os.environ.get("COVERAGE_TEST_DATABASE_URL"))
    if on_postgresql:
        url = request.getfixturevalue("shared_pg_url")
    else:
        url = f"sqlite:///{tmp_path_factory.mktemp('example')}/example.sqlite"
    mirrors = str(tmp_path_factory.mktemp("mirrors"))
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "example tests",
            "SQLALCHEMY_DATABASE_URI": url,
            "COVERAGE_SOURCE_GIT_ROOT": mirrors,
        }
    )
    with app.app_context():
        load_demo(generated_files=DEMO_FILES)
    yield app
    with app.app_context():
        db = app.extensions["sqlalchemy"]
        db.session.remove()
        if on_postgresql:
            names = ", ".join(table.name for table in metadata.sorted_tables)
            with db.engine.begin() as connection:
                connection.execute(sa.text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
                SignIn.__table__.drop(connection)
        for engine in db.engines.values():
            engine.dispose()


@pytest.fixture
def web(example: Flask) -> webtest.TestApp:
    """A browser of its own (fresh cookies) on the example app."""
    return webtest.TestApp(example)


def sign_in(web: webtest.TestApp, username: str, next: str = "") -> webtest.TestResponse:
    page = web.get("/sign-in" + (f"?next={quote(next)}" if next else ""))
    form = page.forms["sign-in-other"]
    form["username"] = username
    return form.submit(status="*")


def local_location(response: webtest.TestResponse) -> str:
    """The redirect's target on this site (path and query); fails for any other site."""
    parts = urlsplit(response.location)
    assert parts.netloc in ("", "localhost"), response.location
    return parts.path + (f"?{parts.query}" if parts.query else "")


def repository_ids(page: webtest.TestResponse) -> set[str]:
    return {section["id"] for section in page.html.select("section.repo-card")}


def test_visitors_see_the_public_repositories_and_their_graphs(web: webtest.TestApp) -> None:
    home = web.get("/")
    assert repository_ids(home) == {"repo-acme-marshmallow", "repo-globex-d3-hierarchy", "repo-globex-platform"}
    assert "flask-sqlalchemy" not in home.text
    assert "default-src 'none'" in home.headers["Content-Security-Policy"]
    images = home.html.select("img.graph")
    assert len(images) == 9
    # Each repository's graphs come with the legend of its colors.
    assert len(home.html.select(".repo-card .coverage-legend")) == 3
    assert {image["class"][1] for image in images} == {"graph-tree", "graph-icicle", "graph-sunburst"}
    for image in images:
        graph = web.get(image["src"])
        assert graph.content_type == "image/svg+xml"
        assert b"<svg" in graph.body[:200] and re.search(rb"<(rect|path)\b", graph.body)


def test_private_repositories_are_for_members_only(web: webtest.TestApp, example: Flask) -> None:
    with example.app_context():
        token = find_repository("github", "acme", "flask-sqlalchemy").image_token
    web.get("/gh/acme/flask-sqlalchemy", status=404)
    web.get("/gh/acme/flask-sqlalchemy/graphs/tree.svg", status=404)
    assert "flask-sqlalchemy" not in web.get("/gh/acme").text

    sign_in(web, "carol")  # admin of globex, not in acme
    assert "repo-acme-flask-sqlalchemy" not in repository_ids(web.get("/"))
    web.get("/gh/acme/flask-sqlalchemy", status=404)

    sign_in(web, "dave")  # a deactivated member of acme
    web.get("/gh/acme/flask-sqlalchemy", status=404)

    sign_in(web, "bob")
    home = web.get("/")
    assert "repo-acme-flask-sqlalchemy" in repository_ids(home)
    card = home.html.select_one("#repo-acme-flask-sqlalchemy")
    sources = [image["src"] for image in card.select("img.graph")]
    assert len(sources) == 3 and all(f"token={token}" in src for src in sources)
    for src in sources:
        assert web.get(src).content_type == "image/svg+xml"
    assert "flask-sqlalchemy" in web.get("/gh/acme").html.select_one("#coverage-repositories").text
    page = web.get("/gh/acme/flask-sqlalchemy")
    assert "private" in page.html.select_one(".coverage-breadcrumb").text
    # The graphs need the graph token; a member's links to the service's pages do not.
    assert all(f"token={token}" in obj["data"] for obj in page.html.select(".coverage-graph object"))
    file_link = first_file_link(web, page)
    assert "token=" not in file_link
    assert web.get(file_link).html.select_one("#coverage-lines") is not None


def first_file_link(web: webtest.TestApp, page: Any) -> str:
    """The first file of the page's file explorer, down its first folders."""
    link = page.html.select_one("#coverage-files tbody a")["href"]
    while "/tree/" in link:
        link = web.get(link).html.select_one("#coverage-files tbody a")["href"]
    return str(link)


def test_sign_in_and_sign_out(web: webtest.TestApp, example: Flask) -> None:
    assert web.get("/").html.select_one("#sign-in-link") is not None
    response = sign_in(web, "Alice")  # usernames are case-insensitive
    assert response.status_int == 303 and local_location(response) == "/"
    home = response.follow()
    assert home.html.select_one("#signed-in-as strong").text == "alice"
    with example.app_context():
        assert (
            example.extensions["sqlalchemy"]
            .session.execute(sa.select(SignIn.username).order_by(SignIn.id.desc()))
            .scalars()
            .first()
            == "alice"
        )
    assert "alice" in web.get("/sign-in").html.select_one("ul.recent").text

    home.forms["sign-out"].submit(status=303)
    assert web.get("/").html.select_one("#signed-in-as") is None


def test_sign_out_needs_the_csrf_token(web: webtest.TestApp) -> None:
    sign_in(web, "alice")
    web.post("/sign-out", status=303)
    assert web.get("/").html.select_one("#signed-in-as strong").text == "alice"


@pytest.mark.parametrize(
    ("username", "message"),
    [("nobody", "There is no user 'nobody'"), ("acme", "There is no user 'acme'"), ("a\x00b", "There is no user")],
)
def test_sign_in_refuses_unknown_users_and_organizations(web: webtest.TestApp, username: str, message: str) -> None:
    page = sign_in(web, username)
    assert page.status_int == 400
    assert message in page.html.select_one("#sign-in-error").text
    assert web.get("/").html.select_one("#signed-in-as") is None


def test_sign_in_needs_the_csrf_token(web: webtest.TestApp) -> None:
    page = web.post("/sign-in", {"username": "alice"}, status=400)
    assert "out of date" in page.text
    assert web.get("/").html.select_one("#signed-in-as") is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/gh/acme/marshmallow", "/gh/acme/marshmallow"),
        ("/account/access?x=1", "/account/access?x=1"),
        ("//evil.example/", None),
        ("/\\evil.example/", None),
        ("https://evil.example/", None),
        ("javascript:alert(1)", None),
        ("/a\r\nLocation: x", None),
        ("", None),
        (None, None),
    ],
)
def test_only_local_paths_are_followed_after_sign_in(value: Any, expected: Any) -> None:
    assert safe_next(value) == expected


def test_an_offsite_next_goes_home(web: webtest.TestApp) -> None:
    assert local_location(sign_in(web, "bob", next="//evil.example/")) == "/"


def test_the_access_token_page_asks_visitors_to_sign_in(web: webtest.TestApp) -> None:
    redirect = web.get("/account/access", status=302)
    assert local_location(redirect) == "/sign-in?next=/account/access"
    page = redirect.follow()
    page.forms["sign-in-other"]["username"] = "alice"
    tokens = page.forms["sign-in-other"].submit(status=303).follow()
    assert tokens.request.path == "/account/access"
    # The extension's page, in the host's layout, listing the demo token.
    assert tokens.html.select_one("#signed-in-as strong").text == "alice"
    assert tokens.html.select_one("nav a[href='/api-examples']") is not None
    assert [cell.text for cell in tokens.html.select("#coverage-tokens .coverage-token-name")] == ["demo"]


def test_the_api_examples_are_ready_to_run_for_signed_in_users(web: webtest.TestApp) -> None:
    visitor = web.get("/api-examples")
    assert "Bearer <ACCESS_TOKEN>" in visitor.html.select_one("#curl-users").text
    sign_in(web, "bob")
    page = web.get("/api-examples")
    line = page.html.select_one("#curl-users").text
    match = re.fullmatch(r'curl -H "Authorization: Bearer ([0-9a-f-]{36})" "(http://localhost/\S+)"', line)
    assert match, line
    token, url = match.groups()
    assert url == "http://localhost/api/v2/github/acme/users/"
    users = web.get(url, headers={"Authorization": f"Bearer {token}"}).json
    assert users["count"] == 63 and users["total_pages"] == 4
    settings_line = page.html.select_one("#curl-settings").text
    assert f'"Authorization: {token}"' in settings_line
    settings_url = settings_line.rsplit(" ", 1)[1].strip('"')
    assert web.get(settings_url, headers={"Authorization": token}).json["repo"]["name"] == "marshmallow"


@pytest.mark.parametrize(
    ("path", "title", "graph"),
    [
        ("/gh/acme/marshmallow", "acme/marshmallow", "/gh/acme/marshmallow/graphs/tree.svg"),
        (
            "/gh/acme/marshmallow/branch/fix/nested-partial",
            "Branch fix/nested-partial",
            "/gh/acme/marshmallow/branch/fix/nested-partial/graphs/tree.svg",
        ),
        ("/gh/acme/marshmallow/pull/41", "Pull request #41", "/gh/acme/marshmallow/pull/41/graphs/tree.svg"),
        ("/gh/globex/d3-hierarchy/branch/treemap/binary", "Branch treemap/binary", None),
    ],
)
def test_the_service_pages_in_the_host_layout(web: webtest.TestApp, path: str, title: str, graph: Any) -> None:
    page = web.get(path)
    # The host's layout (its navigation) around the service's page.
    assert page.html.select_one("header.site-header nav a[href='/api-examples']") is not None
    assert page.html.select_one("h1").text == title
    objects = page.html.select(".coverage-graph object")
    # A branch's trend chart first, then the three graphs, then a pull's comparison: its base's and head's trees.
    first = [] if "/pull/" in path else ["commits.svg"]
    more = ["tree.svg", "tree.svg"] if "/pull/" in path else []
    assert [obj["data"].split("?")[0].rsplit("/", 1)[1] for obj in objects] == [
        *first,
        "tree.svg",
        "icicle.svg",
        "sunburst.svg",
        *more,
    ]
    if graph is not None:
        assert objects[len(first)]["data"] == graph
    for obj in objects:
        assert web.get(obj["data"]).content_type == "image/svg+xml"
    # Branches and pulls link to their own pages; files to the file view, which shows the demo's source.
    for link in page.html.select("#coverage-branches a, #coverage-pulls a")[:3]:
        web.get(link["href"])
    file_view = web.get(first_file_link(web, page))
    assert file_view.html.select_one("table.coverage-source") is not None
    assert file_view.html.select_one("header.site-header") is not None


def test_tips_differ_between_branches(web: webtest.TestApp) -> None:
    page = web.get("/gh/acme/marshmallow")
    rows = {
        row.select("td")[0].a.text: row.select("td")[2].text for row in page.html.select("#coverage-branches tbody tr")
    }
    assert set(rows) == {"main", "fix/nested-partial", "docs/typos"}
    assert rows["main"] == "96.39%" and len(set(rows.values())) == 3
    assert len(page.html.select("#coverage-commits tbody tr")) == 6


@pytest.mark.parametrize(
    "path",
    [
        "/gh/acme/marshmallow/branch/no-such-branch",
        "/gh/acme/marshmallow/pull/999",
        "/gh/acme/marshmallow/pull/abc",
        "/gh/acme/marshmallow/commit/0000000",
        "/xx/acme/marshmallow",
        "/gh/acme/nothing",
        "/gh/acme/marsh%00mallow",
        "/gh/nobody",
    ],
)
def test_unknown_pages_are_404(web: webtest.TestApp, path: str) -> None:
    page = web.get(path, status=404)
    assert "Not found" in page.html.select_one("h1").text
    assert page.html.select_one("header.site-header") is not None


def test_an_empty_database_gets_its_tables_and_a_hint(make_database_url: Any) -> None:
    app = create_app({"TESTING": True, "SECRET_KEY": "empty", "SQLALCHEMY_DATABASE_URI": make_database_url()})
    try:
        with app.app_context():
            names = set(sa.inspect(app.extensions["sqlalchemy"].engine).get_table_names())
        assert {"example_sign_in", *(table.name for table in metadata.sorted_tables)} <= names
        web = webtest.TestApp(app)
        assert web.get("/").html.select_one("#no-repositories") is not None
        assert "no demo users yet" in web.get("/sign-in").text
    finally:
        with app.app_context():
            app.extensions["sqlalchemy"].engine.dispose()


def test_the_secret_key_is_made_once_and_kept_private(tmp_path: Any) -> None:
    app = Flask("keys", instance_path=str(tmp_path / "instance"))
    key = instance_secret_key(app)
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    assert instance_secret_key(app) == key
    mode = os.stat(tmp_path / "instance" / "secret_key").st_mode
    assert stat.S_IMODE(mode) == 0o600
    assert os.listdir(tmp_path / "instance") == ["secret_key"]  # no draft left behind
    (tmp_path / "instance" / "secret_key").write_text("")
    with pytest.raises(RuntimeError, match="secret_key is empty"):
        instance_secret_key(app)
