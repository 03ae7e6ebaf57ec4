"""The graphs of every kind for every target, public and private, end to end through HTTP.

One set of real reports is uploaded once for the whole module (through ``ingest.upload_report``);
every test reads it back through the graph URLs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
import webtest
from defusedxml import ElementTree
from flask import Flask

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.queries.repositories import find_repository

DATA = Path(__file__).resolve().parent.parent / "data"
MARSHMALLOW_ROOT = "/home/runner/work/marshmallow/marshmallow"
SVG = "{http://www.w3.org/2000/svg}"
KINDS = ("tree", "icicle", "sunburst")
DEFAULT_SIZES = {"tree": ("500", "500"), "icicle": ("700", "150"), "sunburst": ("300", "300")}

MAIN_SHA = "a1b2c3d4e5" + "0" * 30
FEATURE_SHA = "f" * 40
PULL_SHA = "abcdef1" + "0" * 33
TWIN_SHA = "abcdef1" + "1" * 33  # shares a 7-digit prefix with PULL_SHA
SECRET_SHA = "5ec2e7" + "0" * 34


@pytest.fixture(scope="module")
def data(module_app: Flask) -> dict[str, Any]:
    """acme/widgets (public): main, feature/x, pull 7; acme/secret (private): main; acme/empty: nothing."""
    with module_app.app_context():
        operations.add_org("github", "acme")
        widgets = operations.add_repo("github", "acme", "widgets")
        secret = operations.add_repo("github", "acme", "secret", private=True)
        operations.add_repo("github", "acme", "empty", private=True)
        operations.add_org("gitlab", "acme")
        operations.add_repo("gitlab", "acme", "widgets")  # same names, other provider, no coverage
        marshmallow = (DATA / "marshmallow.coverage.xml").read_bytes()
        upload_report(widgets, marshmallow, commit=MAIN_SHA, branch="main", root=MARSHMALLOW_ROOT)
        flask_sqlalchemy = (DATA / "flask-sqlalchemy.coverage.json").read_bytes()
        upload_report(widgets, flask_sqlalchemy, commit=FEATURE_SHA, branch="feature/x")
        d3 = (DATA / "d3-hierarchy.lcov").read_bytes()
        upload_report(widgets, d3, commit=PULL_SHA, pullid=7)
        upload_report(widgets, d3, commit=TWIN_SHA)
        upload_report(secret, d3, commit=SECRET_SHA, branch="main")
        return {"graph_token": secret.image_token, "widgets_token": widgets.image_token}


@pytest.fixture
def web(module_app: Flask, data: dict[str, Any]) -> webtest.TestApp:
    return webtest.TestApp(module_app)


TARGETS = {
    "default": ("", MAIN_SHA),
    "branch": ("/branch/main", MAIN_SHA),
    "branch-with-slash": ("/branch/feature/x", FEATURE_SHA),
    "pull": ("/pull/7", PULL_SHA),
    "commit": (f"/commit/{MAIN_SHA}", MAIN_SHA),
    "commit-prefix": (f"/commit/{PULL_SHA[:8]}", PULL_SHA),
    "commit-upper-case": (f"/commit/{MAIN_SHA.upper()}", MAIN_SHA),
}


def parse_svg(response: Any) -> Any:
    assert response.content_type == "image/svg+xml"
    root = ElementTree.fromstring(response.body)
    assert root.tag == f"{SVG}svg"
    return root


def titles(root: Any) -> list[str]:
    return [title.text for title in root.iter(f"{SVG}title")]


def links(root: Any) -> list[str]:
    return [a.get("href") for a in root.iter(f"{SVG}a")]


def follow(web: webtest.TestApp, graph_url: str, href: str, **kwargs: Any) -> Any:
    """GET what a browser opens when the block with ``href`` is clicked in the graph at ``graph_url``."""
    return web.get(urljoin(f"http://localhost{graph_url}", href), **kwargs)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("target", TARGETS)
def test_public_graph_of_every_target(web: webtest.TestApp, kind: str, target: str) -> None:
    path, sha = TARGETS[target]
    url = f"/gh/acme/widgets{path}/graphs/{kind}.svg"
    root = parse_svg(web.get(url))
    assert (root.get("width"), root.get("height")) == DEFAULT_SIZES[kind]
    hrefs = links(root)
    assert hrefs, "file blocks link to the file view"
    assert all("token=" not in href for href in hrefs), "a public repository's links carry no token"
    # Every link opens the file view of the drawn commit; the title of its block names that file.
    page = follow(web, url, hrefs[0])
    assert page.status_int == 200
    assert page.content_type == "text/html"
    assert sha[:12] in page.text
    block = next(a for a in root.iter(f"{SVG}a") if a.get("href") == hrefs[0])
    file_path = block.find(f"{SVG}title").text.rsplit(" ", 1)[0]
    assert f'<h1 class="coverage-path">{file_path}</h1>' in page.text


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("target", ["default", "branch", "commit", "commit-prefix"])
def test_private_graph_needs_the_graph_token_and_its_links_do_not_carry_it(
    web: webtest.TestApp, data: dict[str, Any], kind: str, target: str
) -> None:
    path = {"default": "", "branch": "/branch/main", "commit": f"/commit/{SECRET_SHA}"}.get(
        target, f"/commit/{SECRET_SHA[:9]}"
    )
    url = f"/gh/acme/secret{path}/graphs/{kind}.svg?token={data['graph_token']}"
    response = web.get(url)
    assert response.headers["Cache-Control"] == "private, no-cache"
    root = parse_svg(response)
    hrefs = links(root)
    assert hrefs and all("token" not in href for href in hrefs)
    # The graph token opens images only (issue 26, F8): the file view of a private file needs a reader.
    assert follow(web, url, hrefs[-1], status=404).status_int == 404
    assert follow(web, url, f"{hrefs[-1]}?token={data['graph_token']}", status=404).status_int == 404


def test_the_tree_names_every_file_and_its_coverage(web: webtest.TestApp) -> None:
    root = parse_svg(web.get("/gh/acme/widgets/graphs/tree.svg"))
    shown = dict(title.rsplit(" ", 1) for title in titles(root))
    # 13 files of marshmallow, each a block of the 500x500 tree, titled "path coverage%".
    assert len(shown) == 13
    assert all(path.startswith("src/marshmallow/") for path in shown)
    report = web.get(f"/gh/acme/widgets/commit/{MAIN_SHA}/blob/src/marshmallow/fields.py")
    coverage = report.html.select_one(".coverage-percent").text
    assert shown["src/marshmallow/fields.py"] == coverage


def test_links_open_the_file_view_of_the_same_target(web: webtest.TestApp) -> None:
    """``../blob/{path}``: a few bytes per block, resolved from the graph's own URL, however it is spelled."""
    for url in (
        "/gh/acme/widgets/graphs/tree.svg",
        "/gh/ACME/Widgets/branch/main/graphs/tree.svg",
        "/gh/acme/widgets/branch/feature/x/graphs/tree.svg",
        "/gh/acme/widgets/branch/feature%2Fx/graphs/tree.svg",
        "/gh/acme/widgets/pull/7/graphs/tree.svg",
        f"/gh/acme/widgets/commit/{PULL_SHA[:10]}/graphs/tree.svg",
    ):
        hrefs = links(parse_svg(web.get(url)))
        assert all(href.startswith("../blob/") for href in hrefs), (url, hrefs[:2])
        assert follow(web, url, hrefs[0]).status_int == 200


def test_a_public_repository_ignores_the_token(web: webtest.TestApp, data: dict[str, Any]) -> None:
    plain = web.get("/gh/acme/widgets/graphs/icicle.svg")
    for token in ("wrong", data["graph_token"], data["widgets_token"]):
        with_token = web.get(f"/gh/acme/widgets/graphs/icicle.svg?token={token}")
        assert with_token.body == plain.body
        assert with_token.headers["ETag"] == plain.headers["ETag"]
        assert with_token.headers["Cache-Control"] == "no-cache"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("width=abc", "width must be an integer"),
        ("width=10", "width must be an integer"),
        ("width=99999", "width must be an integer"),
        ("width=-5", "width must be an integer"),
        ("width=%EF%BC%95%EF%BC%90", "width must be an integer"),  # full-width digits
        ("height=1e3", "height must be an integer"),
        ("border_size=21", "border_size must be an integer"),
        ("border_color=%3Cscript%3Ealert(1)%3C/script%3E", "border_color must be"),
        ("border_color=red%22%20onload=%22alert(1)", "border_color must be"),
        ("border_color=%23ggg", "border_color must be"),
    ],
)
def test_a_bad_parameter_is_a_400_that_never_echoes_it(web: webtest.TestApp, query: str, message: str) -> None:
    response = web.get(f"/gh/acme/widgets/graphs/tree.svg?{query}", status=400)
    assert response.content_type == "text/plain"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert message in response.text
    for echoed in ("script", "alert", "abc", "99999", "ggg", "1e3", "onload"):
        assert echoed not in response.text


NOT_FOUND = {
    "unknown provider": "/xx/acme/widgets/graphs/tree.svg",
    "unknown provider, upper case": "/GH/acme/widgets/graphs/tree.svg",
    "unknown owner": "/gh/nobody/widgets/graphs/tree.svg",
    "unknown repository": "/gh/acme/nothing/graphs/tree.svg",
    "no coverage on that provider": "/gl/acme/widgets/graphs/tree.svg",
    "unknown branch": "/gh/acme/widgets/branch/nope/graphs/tree.svg",
    "unknown nested branch": "/gh/acme/widgets/branch/feature/y/graphs/tree.svg",
    "unknown pull": "/gh/acme/widgets/pull/8/graphs/tree.svg",
    "pull that is not a number": "/gh/acme/widgets/pull/seven/graphs/tree.svg",
    "pull out of range": "/gh/acme/widgets/pull/99999999999/graphs/tree.svg",
    "unknown commit": f"/gh/acme/widgets/commit/{'9' * 40}/graphs/tree.svg",
    "ambiguous sha prefix": f"/gh/acme/widgets/commit/{PULL_SHA[:7]}/graphs/tree.svg",
    "sha prefix too short": f"/gh/acme/widgets/commit/{MAIN_SHA[:6]}/graphs/tree.svg",
    "sha that is not hex": "/gh/acme/widgets/commit/zzzzzzzzzz/graphs/tree.svg",
    "unknown kind": "/gh/acme/widgets/graphs/pie.svg",
    "private, no token": "/gh/acme/secret/graphs/tree.svg",
    "private, empty token": "/gh/acme/secret/graphs/tree.svg?token=",
    "private, wrong token": "/gh/acme/secret/graphs/tree.svg?token=0123456789",
    "private, another repository's token": "/gh/acme/secret/graphs/tree.svg?token={widgets_token}",
    "private, token with a NUL": "/gh/acme/secret/graphs/tree.svg?token=%00{graph_token}",
    "private, huge token": "/gh/acme/secret/graphs/tree.svg?token=" + "a" * 5000,
    "private, no coverage yet": "/gh/acme/empty/graphs/tree.svg?token={empty_token}",
    "owner name with a NUL": "/gh/ac%00me/widgets/graphs/tree.svg",
    "branch name with a control character": "/gh/acme/widgets/branch/ma%01in/graphs/tree.svg",
}


@pytest.mark.parametrize("case", NOT_FOUND)
def test_every_failure_is_the_same_404(
    web: webtest.TestApp, module_app: Flask, data: dict[str, Any], case: str
) -> None:
    """Not found and "private, wrong token" look the same, so a private repository's existence does not leak."""
    with module_app.app_context():
        empty_token = find_repository("github", "acme", "empty").image_token
    reference = web.get("/gh/nobody/nothing/graphs/tree.svg", status=404)
    response = web.get(NOT_FOUND[case].format(empty_token=empty_token, **data), status=404)
    assert response.body == reference.body
    assert sorted(response.headers.items()) == sorted(reference.headers.items())
    assert response.content_type == "image/svg+xml"
    assert "ETag" not in response.headers
    assert b"?token=" in response.body  # the hint for private repositories
    ElementTree.fromstring(response.body)  # an image an <img> can show
