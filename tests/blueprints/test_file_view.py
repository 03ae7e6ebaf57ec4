"""The file coverage view: one file of one commit, line by line, in HTML."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import webtest
from flask import Flask
from markupsafe import escape

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.queries.files import file_totals
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit

SHA = "0badc0de" + "1" * 32
HOSTILE = "src/<b>bold</b> & \"quoted\" 'single'.py"
# LCOV: line 1 hit 3 times, line 2 missed, line 4 hit once with an untaken branch (partial).
REPORT = f"""SF:pkg/mod.py
DA:1,3
DA:2,0
DA:4,1
BRDA:4,0,0,1
BRDA:4,0,1,0
end_of_record
SF:{HOSTILE}
DA:1,1
end_of_record
SF:pkg/empty.py
end_of_record
""".encode()
MARSHMALLOW = Path(__file__).resolve().parent.parent / "data" / "marshmallow.coverage.xml"


@pytest.fixture(scope="module")
def tokens(module_app: Flask) -> dict[str, str]:
    with module_app.app_context():
        operations.add_org("github", "acme")
        public = operations.add_repo("github", "acme", "widgets")
        private = operations.add_repo("github", "acme", "secret", private=True)
        upload_report(public, REPORT, commit=SHA, branch="main", pullid=3)
        upload_report(private, REPORT, commit=SHA, branch="main")
        root = "/home/runner/work/marshmallow/marshmallow"
        upload_report(public, MARSHMALLOW.read_bytes(), commit="d" * 40, root=root)
        return {"secret": private.image_token, "widgets": public.image_token}


@pytest.fixture
def web(module_app: Flask, tokens: dict[str, str]) -> webtest.TestApp:
    return webtest.TestApp(module_app)


def rows(page: Any) -> list[tuple[str, str, str, str]]:
    """``(class, line, state, hits)`` of every line row of the page."""
    pattern = (
        r'<tr class="coverage-(\w+)" id="L(\d+)"><td><a href="#L\d+">\d+</a></td><td>(\w+)</td><td>(\d+)</td></tr>'
    )
    return [(css, line, state, hits) for css, line, state, hits in re.findall(pattern, page.text)]


def test_lines_and_their_states(web: webtest.TestApp) -> None:
    page = web.get(f"/gh/acme/widgets/commit/{SHA}/blob/pkg/mod.py")
    assert page.content_type == "text/html"
    assert rows(page) == [("hit", "1", "hit", "3"), ("miss", "2", "miss", "0"), ("partial", "4", "partial", "1")]
    totals = {
        dt.text: dd.text
        for dt, dd in zip(page.html.select("#coverage-file-totals dt"), page.html.select("#coverage-file-totals dd"))
    }
    # 3 tracked lines: 1 hit, 1 miss, 1 partial; coverage = hits / lines, rounded down.
    assert totals == {"Coverage": "33.33%", "Lines": "3", "Hits": "1", "Partials": "1", "Misses": "1"}
    assert "<title>pkg/mod.py · acme/widgets · Coverage</title>" in page.text
    assert SHA[:12] in page.text


@pytest.mark.parametrize("target", ["", "/branch/main", "/pull/3", f"/commit/{SHA[:7]}", f"/commit/{SHA.upper()}"])
def test_every_target_names_a_commit(web: webtest.TestApp, target: str) -> None:
    """The file views have the graphs' targets: the tips of the default branch, a branch, a pull, or a commit."""
    page = web.get(f"/gh/acme/widgets{target}/blob/pkg/mod.py")
    assert len(rows(page)) == 3
    assert f'title="{SHA}"' in page.text


def test_every_file_of_a_real_report_has_its_page(web: webtest.TestApp, module_app: Flask) -> None:
    with module_app.app_context():
        repository = find_repository("github", "acme", "widgets")
        files = file_totals(resolve_commit(repository, sha="d" * 40))
    assert len(files) == 13
    for file in files:
        page = web.get(f"/gh/acme/widgets/commit/ddddddd/blob/{file.path}")
        states = [state for _, _, state, _ in rows(page)]
        assert (len(states), states.count("hit"), states.count("miss"), states.count("partial")) == (
            file.lines,
            file.hits,
            file.misses,
            file.partials,
        )


def test_a_file_without_tracked_lines(web: webtest.TestApp) -> None:
    # Not stored, as on Codecov (docs/upload.md): no page.
    web.get(f"/gh/acme/widgets/commit/{SHA}/blob/pkg/empty.py", status=404)


def test_names_are_escaped(web: webtest.TestApp) -> None:
    page = web.get(f"/gh/acme/widgets/commit/{SHA}/blob/{HOSTILE}")
    assert "<b>bold</b>" not in page.text
    assert f'<h1 class="coverage-path">{escape(HOSTILE)}</h1>' in page.text


def test_headers(web: webtest.TestApp) -> None:
    page = web.get(f"/gh/acme/widgets/commit/{SHA}/blob/pkg/mod.py")
    csp = page.headers["Content-Security-Policy"]
    # Scripts and styles from the service's own files only; nothing inline, no framing.
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Referrer-Policy"] == "same-origin"
    assert page.headers["Cache-Control"] == "private, no-cache"
    web.get(
        f"/gh/acme/widgets/commit/{SHA}/blob/pkg/mod.py", headers={"If-None-Match": page.headers["ETag"]}, status=304
    )
    # The page's style sheet is served by the extension (CSP 'self').
    sheet = re.search(r'<link rel="stylesheet" href="([^"]+)"', page.text).group(1)
    assert b".coverage-miss" in web.get(sheet).body


def test_the_page_links_to_the_graphs_of_its_target(web: webtest.TestApp) -> None:
    page = web.get(f"/gh/ACME/Widgets/commit/{SHA[:7]}/blob/pkg/mod.py")
    graphs = page.html.select_one("#coverage-graphs-link")["href"]
    assert graphs == f"/gh/acme/widgets/commit/{SHA[:7]}#coverage-graphs-title"
    assert web.get(graphs).html.select_one("object.coverage-graph-tree")["data"].endswith("/graphs/tree.svg")
    page = web.get("/gh/acme/widgets/branch/main/blob/pkg/mod.py")
    assert page.html.select_one("#coverage-graphs-link")["href"] == "/gh/acme/widgets/branch/main#coverage-graphs-title"


def test_the_graph_token_does_not_open_a_private_file(web: webtest.TestApp, tokens: dict[str, str]) -> None:
    url = f"/gh/acme/secret/commit/{SHA}/blob/pkg/mod.py"
    # The graph token opens the images (issue 26, F8) ...
    assert web.get(f"/gh/acme/secret/commit/{SHA}/graphs/tree.svg?token={tokens['secret']}").status_int == 200
    # ... never the source: the private file is the one 404 with it, as without it.
    reference = web.get(f"/gh/acme/nothing/commit/{SHA}/blob/pkg/mod.py", status=404)
    for token in ("", "?token=", "?token=wrong", f"?token={tokens['widgets']}", f"?token={tokens['secret']}"):
        response = web.get(url + token, status=404)
        assert response.body == reference.body
        assert sorted(response.headers.items()) == sorted(reference.headers.items())


@pytest.mark.parametrize(
    "url",
    [
        f"/gh/acme/widgets/commit/{SHA}/blob/pkg/nothing.py",
        f"/gh/acme/widgets/commit/{SHA}/blob/pkg",
        f"/gh/acme/widgets/commit/{SHA}/blob/PKG/mod.py",
        f"/gh/acme/widgets/commit/{SHA}/blob/pkg/mod.py%00",
        f"/gh/acme/widgets/commit/{'e' * 40}/blob/pkg/mod.py",
        "/gh/acme/widgets/commit/0bad/blob/pkg/mod.py",
        "/gh/acme/widgets/commit/main/blob/pkg/mod.py",
        "/gh/acme/widgets/branch/nope/blob/pkg/mod.py",
        "/gh/acme/widgets/pull/4/blob/pkg/mod.py",
        "/gh/acme/widgets/pull/x/blob/pkg/mod.py",
        "/gh/acme/empty/blob/pkg/mod.py",
        f"/gh/nobody/widgets/commit/{SHA}/blob/pkg/mod.py",
    ],
)
def test_not_found(web: webtest.TestApp, url: str) -> None:
    response = web.get(url, status=404)
    assert response.content_type == "text/html"
    assert "signed in" in response.html.select_one("#coverage-error-message").text
