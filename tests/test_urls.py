"""The URLs the service writes into its answers come from its routes (``flask_coverage.urls``): the same as
``url_for`` in a request, below the public URL or the request's root, and outside a request alike."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

import pytest
import webtest
from flask import url_for

from flask_coverage import operations
from flask_coverage.urls import commit_url, commit_web_path, external_url, pull_file_url, pull_page_url

SHA = "c" * 40
NAMES = {"prov": "gh", "owner": "acme", "repo": "we?ird #näme"}
#: One URL of each page family, with the values its route is built from.
PAGES: list[tuple[str, dict[str, Any]]] = [
    ("coverage_web.entry_page", {"root": ""}),
    ("coverage_web.owner_page", {"prov": "gl", "owner": "acme"}),
    ("coverage_web.repository_page", NAMES),
    ("coverage_web.repository_page", {**NAMES, "branch": "feature/ü x"}),
    ("coverage_web.repository_page", {**NAMES, "pullid": 7}),
    ("coverage_web.repository_page", {**NAMES, "sha": SHA}),
    ("coverage_web.flags_page", NAMES),
    ("coverage_web.settings_page", NAMES),
    ("coverage_web.tree_page", {**NAMES, "rest": "main/src/app"}),
    ("coverage_web.tree_page", {**NAMES, "pullid": 7, "rest": "src"}),
    ("coverage_web.file_view", {**NAMES, "path": "src/a (1)+b.py"}),
    ("coverage_web.file_view", {**NAMES, "pullid": 7, "path": "src/%41.py"}),
    ("coverage_web.file_view", {**NAMES, "sha": SHA, "path": "lib/x.go"}),
    ("coverage_graphs.graph", {**NAMES, "kind": "tree", "branch": "main", "token": "t0k", "flag": "unit"}),
    ("coverage_graphs.graph", {**NAMES, "kind": "badge"}),
    ("coverage_graphs.badge", {**NAMES, "ext": "svg", "pullid": 7}),
    ("coverage_upload.upload_put", {"signature": "a.b+c"}),
    ("coverage_api.repos_totals_retrieve", {"service": "github", "owner_username": "acme", "repo": "wid gets"}),
]
PREFIXES = {
    "COVERAGE_WEB_URL_PREFIX": "/coverage",
    "COVERAGE_API_URL_PREFIX": "/api/v2",
    "COVERAGE_GRAPH_URL_PREFIX": "",
}


@pytest.mark.parametrize("public", [None, "https://coverage.example.com", "https://coverage.example.com/ci/"])
@pytest.mark.parametrize("mount", ["", "/app"])
def test_every_page_family_is_built_as_url_for_builds_it(make_app, make_database_url, public, mount) -> None:
    app = make_app(make_database_url(), COVERAGE_PUBLIC_URL=public, **PREFIXES)
    # url_for in a request to the public URL, or to the request's own host and mount point without one.
    root = public or f"http://cov.example.org{mount}/"
    for endpoint, values in PAGES:
        with app.test_request_context(base_url=root):
            expected = url_for(endpoint, _external=True, **values)
        # In a request (whatever host it names when the public URL is set), and outside one.
        with app.test_request_context(base_url=f"http://evil.example{mount}/" if public else root):
            assert external_url(endpoint, **values) == expected
        with app.app_context():
            assert external_url(endpoint, root, **values) == expected
            if public:
                assert external_url(endpoint, "http://other.example/", **values) == expected
    with app.app_context():
        file_view = external_url("coverage_web.file_view", root, **NAMES, pullid=7, path="src/%41.py")
    assert file_view == f"{root.rstrip('/')}/coverage/gh/acme/we%3Fird%20%23n%C3%A4me/pull/7/blob/src/%2541.py"


def test_outside_a_request_an_absolute_url_needs_a_root(app) -> None:
    with app.app_context(), pytest.raises(RuntimeError, match="COVERAGE_PUBLIC_URL"):
        external_url("coverage_web.owner_page", prov="gh", owner="acme")


@pytest.mark.parametrize("mount", ["", "/app"])
def test_a_commits_url_is_its_page_or_else_its_tree_graph(make_app, make_database_url, mount) -> None:
    pages = make_app(make_database_url(), COVERAGE_WEB_URL_PREFIX="/coverage/")
    graphs = make_app(make_database_url(), COVERAGE_WEB_URL_PREFIX=None, COVERAGE_GRAPH_URL_PREFIX="/graphs")
    for app, path, endpoint in [
        (pages, "/coverage/gh/acme/we%3Fird%23name/commit/{sha}", "coverage_web.repository_page"),
        (graphs, "/graphs/gh/acme/we%3Fird%23name/commit/{sha}/graphs/tree.svg", "coverage_graphs.graph"),
    ]:
        with app.app_context():
            operations.add_org("github", "acme")
            odd = operations.add_repo("github", "acme", "we?ird#name")
            assert commit_web_path(odd, SHA) == path.format(sha=SHA)  # without the mount point
            with app.test_request_context(base_url=f"http://cov.example.org{mount}/"):
                assert commit_url(odd, SHA) == f"http://cov.example.org{mount}{path.format(sha=SHA)}"
            # The app's route of the page, or of the graph, answers there.
            assert app.url_map.bind("cov.example.org").match(unquote(path.format(sha=SHA)))[0] == endpoint


def test_feedback_links_outside_a_request(make_app, make_database_url) -> None:
    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "acme")
        widgets = operations.add_repo("github", "acme", "widgets")
        base = "http://cov.example.org/app/"  # where the upload came to
        assert pull_page_url(widgets, 7, SHA, base) == "http://cov.example.org/app/gh/acme/widgets/pull/7"
        assert pull_page_url(widgets, None, SHA, base) == f"http://cov.example.org/app/gh/acme/widgets/commit/{SHA}"
        path = "src/a b(1).py"
        link = pull_file_url(widgets, 7, path, base)
        assert link == f"http://cov.example.org/app/gh/acme/widgets/pull/7/blob/{quote(path, safe='/()')}"
        # No address to link to: no link.
        assert pull_page_url(widgets, 7, SHA, None) is None and pull_file_url(widgets, 7, path, None) is None
        app.config["COVERAGE_PUBLIC_URL"] = "https://coverage.example.com"
        assert pull_page_url(widgets, 7, SHA, base) == "https://coverage.example.com/gh/acme/widgets/pull/7"
    without_pages = make_app(make_database_url(), COVERAGE_WEB_URL_PREFIX=None)
    with without_pages.app_context():
        operations.add_org("github", "acme")
        widgets = operations.add_repo("github", "acme", "widgets")
        assert pull_page_url(widgets, 7, SHA, "http://cov.example.org/") is None
        assert pull_file_url(widgets, 7, "a.py", "http://cov.example.org/") is None


@pytest.mark.parametrize("public", [None, "https://coverage.example.com/ci"])
def test_the_settings_snippets_link_below_the_mount_point_once(make_app, make_database_url, public) -> None:
    app = make_app(make_database_url(), COVERAGE_PUBLIC_URL=public)
    with app.app_context():
        operations.add_org("github", "acme")
        operations.add_repo("github", "acme", "widgets")
    mounted = webtest.TestApp(app, extra_environ={"SCRIPT_NAME": "/app"})
    snippet = mounted.get("/app/gh/acme/widgets/settings").html.select_one("#coverage-badge-markdown").text
    root = public or "http://localhost/app"
    assert snippet == f"[![coverage]({root}/gh/acme/widgets/graphs/badge.svg)]({root}/gh/acme/widgets)"
