"""Graph responses over HTTP: headers, ETag and 304, the render cache, parameters, colors, hooks."""

from __future__ import annotations

import gc
import gzip
import re
import threading
from typing import Any, Callable, Optional

import pytest
import sqlalchemy as sa
import webtest
from defusedxml import ElementTree
from flask import Flask

from flask_coverage import operations
from flask_coverage.blueprints import graphs
from flask_coverage.ingest import upload_report
from flask_coverage.models import Repository
from flask_coverage.queries import graph_records
from flask_coverage.state import get_cache, get_session
from flask_coverage.svg import GraphOptions, coverage_color

SHA = "c0ffee" + "0" * 34
URL = "/gh/acme/widgets/graphs/tree.svg"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def uploaded(widgets: Repository, make_lcov: Callable[..., bytes]) -> Repository:
    """widgets at main: a.py 2/4 lines hit (50 %), b/c.py 9/10 (90 %), b/d.py 0 lines."""
    report = make_lcov(
        {
            "a.py": {1: 1, 2: 1, 3: 0, 4: 0},
            "b/c.py": {n: (0 if n == 10 else 3) for n in range(1, 11)},
            "b/d.py": {},
        }
    )
    upload_report(widgets, report, commit=SHA, branch="main")
    return widgets


@pytest.fixture
def render_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the layouts: the kinds the graph blueprint renders."""
    calls: list[str] = []
    real = graphs.render_graph_svg

    def counting(files: Any, options: GraphOptions) -> str:
        calls.append(options.kind)
        return real(files, options)

    monkeypatch.setattr(graphs, "render_graph_svg", counting)
    return calls


def fills(body: bytes) -> dict[str, str]:
    """``{title: fill}`` of every block of an SVG (the fill is on the enclosing group)."""
    root = ElementTree.fromstring(body)
    out = {}
    for group in root.iter(f"{SVG}g"):
        for title in group.iter(f"{SVG}title"):
            out[title.text] = group.get("fill")
    return out


def test_headers(testapp: webtest.TestApp, uploaded: Repository) -> None:
    response = testapp.get(URL)
    assert response.content_type == "image/svg+xml"
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    # No source is allowed, so no script can run, even with the SVG opened on its own.
    assert response.headers["Content-Security-Policy"] == "default-src 'none'"
    assert re.fullmatch(r'W/"[0-9a-f]{32}"', response.headers["ETag"])
    assert response.headers["Vary"] == "Accept-Encoding"
    assert "Content-Encoding" not in response.headers
    assert b"<script" not in response.body
    head = testapp.head(URL)
    assert head.headers["ETag"] == response.headers["ETag"] and not head.body


def test_conditional_get_answers_304_without_a_layout(
    testapp: webtest.TestApp, uploaded: Repository, render_calls: list[str]
) -> None:
    etag = testapp.get(URL).headers["ETag"]
    assert render_calls == ["tree"]
    for sent in (etag, etag[2:], f'"other", {etag}', "*"):
        response = testapp.get(URL, headers={"If-None-Match": sent}, status=304)
        assert response.body == b""
        assert response.headers["ETag"] == etag
        assert response.headers["Cache-Control"] == "no-cache"
        assert response.headers["Vary"] == "Accept-Encoding"
    assert testapp.get(URL, headers={"If-None-Match": '"stale"'}).status_int == 200
    assert render_calls == ["tree"]


def test_a_repeat_request_is_a_cache_hit(
    testapp: webtest.TestApp, uploaded: Repository, render_calls: list[str], make_lcov: Callable[..., bytes]
) -> None:
    first = testapp.get(URL)
    again = testapp.get(URL)
    assert again.body == first.body and render_calls == ["tree"]
    # Other parameters or another kind are other drawings.
    testapp.get(URL + "?width=300")
    testapp.get(URL.replace("tree", "icicle"))
    assert render_calls == ["tree", "tree", "icicle"]
    # A new upload to the commit bumps its version: new ETag, new layout.
    upload_report(uploaded, make_lcov({"e.py": {1: 1}}), commit=SHA)
    get_session().remove()
    after = testapp.get(URL, headers={"If-None-Match": first.headers["ETag"]})
    assert after.status_int == 200 and after.headers["ETag"] != first.headers["ETag"]
    assert b"e.py" in after.body
    assert render_calls[-1] == "tree" and len(render_calls) == 4


def test_gzip_for_clients_that_accept_it(client: Any, uploaded: Repository, render_calls: list[str]) -> None:
    # Flask's client, not WebTest: WebTest unpacks gzip bodies by itself.
    plain = client.get(URL)
    assert "Content-Encoding" not in plain.headers
    for accept in ("gzip", "deflate, gzip;q=0.5, br", "*"):
        packed = client.get(URL, headers={"Accept-Encoding": accept})
        assert packed.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(packed.data) == plain.data
        assert packed.headers["ETag"] == plain.headers["ETag"]
        assert int(packed.headers["Content-Length"]) == len(packed.data) < len(plain.data)
    for refused in ("identity", "gzip;q=0", "br"):
        assert client.get(URL, headers={"Accept-Encoding": refused}).data == plain.data
    assert render_calls == ["tree"]


def test_a_broken_cache_does_not_break_the_graphs(
    testapp: webtest.TestApp, uploaded: Repository, monkeypatch: pytest.MonkeyPatch, render_calls: list[str]
) -> None:
    def down(*args: Any) -> Any:
        raise ConnectionError("cache server down")

    cache = get_cache()
    monkeypatch.setattr(cache, "get", down)
    monkeypatch.setattr(cache, "set", down)
    assert testapp.get(URL).status_int == 200
    assert testapp.get(URL).status_int == 200
    assert render_calls == ["tree", "tree"]


def test_the_cache_backend_comes_from_the_config(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str]
) -> None:
    app = make_app(
        make_database_url(), COVERAGE_CACHE_CONFIG={"CACHE_TYPE": "NullCache", "CACHE_NO_NULL_WARNING": True}
    )
    with app.app_context():
        assert type(get_cache().cache).__name__ == "NullCache"
        assert app.config["COVERAGE_CACHE_CONFIG"]["CACHE_TYPE"] == "NullCache"
    other = make_app(make_database_url())
    with other.app_context():
        assert type(get_cache().cache).__name__ == "SimpleCache"


def test_the_parameters_shape_the_drawing(testapp: webtest.TestApp, uploaded: Repository) -> None:
    root = ElementTree.fromstring(testapp.get(f"{URL}?width=320&height=200&border_size=3&border_color=%23ABC").body)
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("320", "200", "0 0 320 200")
    assert 'stroke="#abc" stroke-width="3"' in ElementTree.tostring(root, encoding="unicode").replace("ns0:", "")
    plain = testapp.get(f"{URL}?border_size=0").text
    assert "stroke=" not in plain


def test_colors_follow_the_repository_range(
    testapp: webtest.TestApp, uploaded: Repository, app: Flask, db: Any
) -> None:
    shown = fills(testapp.get(URL).body)
    # Default range 70..100: 50 % is at the red end, 90 % in between, a file without lines is grey.
    assert shown["a.py 50.00%"] == coverage_color(50) == "#e05d44"
    assert shown["b/c.py 90.00%"] == coverage_color(90)
    assert not any(name.startswith("b/d.py") for name in shown)  # no tracked line: not stored, as on Codecov
    # An UPDATE, not the fixture's object: a request may end the session that loaded it.
    db.session.execute(
        sa.update(Repository).where(Repository.name == "widgets").values(coverage_low=10, coverage_high=50)
    )
    db.session.commit()
    shown = fills(testapp.get(URL).body)
    assert shown["a.py 50.00%"] == "#4c1"
    assert shown["b/c.py 90.00%"] == "#4c1"


def test_colors_follow_the_app_range(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], make_lcov: Callable[..., bytes]
) -> None:
    app = make_app(make_database_url(), COVERAGE_COLOR_RANGE=(40, 60))
    with app.app_context():
        operations.add_user("github", "ann")
        repository = operations.add_repo("github", "ann", "lib")
        upload_report(repository, make_lcov({"a.py": {1: 1, 2: 1, 3: 0, 4: 0}}), commit=SHA, branch="main")
    shown = fills(webtest.TestApp(app).get("/gh/ann/lib/graphs/sunburst.svg").body)
    assert shown["a.py 50.00%"] == coverage_color(50, 40, 60) != coverage_color(50)


def test_names_from_reports_are_escaped(
    testapp: webtest.TestApp, widgets: Repository, make_lcov: Callable[..., bytes]
) -> None:
    hostile = "src/<script>alert(1)</script>&\"'.py"
    upload_report(widgets, make_lcov({hostile: {1: 1}, "ok.py": {1: 0}}), commit=SHA, branch="main")
    for kind in ("tree", "icicle", "sunburst"):
        body = testapp.get(f"/gh/acme/widgets/graphs/{kind}.svg").body
        assert b"<script" not in body
        root = ElementTree.fromstring(body)
        assert f"{hostile} 100.00%" in [title.text for title in root.iter(f"{SVG}title")]
    href = next(ElementTree.fromstring(body).iter(f"{SVG}a")).get("href")
    assert "<" not in href and '"' not in href


def test_the_file_url_hook_points_the_links_elsewhere(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], make_lcov: Callable[..., bytes]
) -> None:
    app = make_app(make_database_url())
    service = app.extensions["coverage"].service
    seen: list[tuple[str, str]] = []

    @service.file_url
    def code_browser(repository: Repository, commit: Any) -> str:
        seen.append((repository.name, commit.sha))
        return f"https://code.example/{repository.name}/{commit.sha[:7]}/"

    with app.app_context():
        operations.add_user("github", "ann")
        repository = operations.add_repo("github", "ann", "lib", private=True)
        token = repository.image_token
        upload_report(repository, make_lcov({"a b.py": {1: 1}}), commit=SHA, branch="main")
    web = webtest.TestApp(app)
    body = web.get(f"/gh/ann/lib/graphs/tree.svg?token={token}").text
    # Used as it is, and the graph token is never sent to another site.
    assert '<a href="https://code.example/lib/c0ffee0/a%20b.py" target="_top">' in body
    assert token not in body
    assert seen == [("lib", SHA)]

    @service.file_url
    def no_links(repository: Repository, commit: Any) -> None:
        return None

    body = web.get(f"/gh/ann/lib/graphs/tree.svg?token={token}").text
    assert "<a " not in body and "<title>a b.py 100.00%</title>" in body


def test_a_javascript_url_from_the_hook_is_refused(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], make_lcov: Callable[..., bytes]
) -> None:
    app = make_app(make_database_url())

    @app.extensions["coverage"].service.file_url
    def evil(repository: Repository, commit: Any) -> str:
        return "javascript:alert(1)//"

    with app.app_context():
        operations.add_user("github", "ann")
        upload_report(
            operations.add_repo("github", "ann", "lib"), make_lcov({"a.py": {1: 1}}), commit=SHA, branch="main"
        )
    with pytest.raises(ValueError, match="link_prefix"):
        webtest.TestApp(app).get("/gh/ann/lib/graphs/tree.svg")


@pytest.mark.parametrize(
    ("web_prefix", "link"),
    [
        # Web pages at the graphs' prefix: a short link relative to the graph, right for every target.
        ("/coverage", "../blob/pkg/a.py"),
        # Elsewhere: the commit's file view at the web pages' prefix (with the app's script root).
        ("/web", f"/app/web/gh/ann/lib/commit/{SHA}/blob/pkg/a.py"),
        # Not mounted: no file view to link to.
        (None, None),
    ],
)
def test_graphs_under_a_url_prefix(
    make_app: Callable[..., Flask],
    make_database_url: Callable[[], str],
    make_lcov: Callable[..., bytes],
    web_prefix: Optional[str],
    link: Optional[str],
) -> None:
    app = make_app(make_database_url(), COVERAGE_GRAPH_URL_PREFIX="/coverage", COVERAGE_WEB_URL_PREFIX=web_prefix)
    with app.app_context():
        operations.add_user("github", "ann")
        repository = operations.add_repo("github", "ann", "lib")
        upload_report(repository, make_lcov({"pkg/a.py": {1: 1}}), commit=SHA, branch="feat/x")
    web = webtest.TestApp(app, extra_environ={"SCRIPT_NAME": "/app"})
    web.get("/gh/ann/lib/commit/c0ffee0/graphs/tree.svg", status=404)
    body = web.get("/coverage/gh/ann/lib/commit/c0ffee0/graphs/tree.svg").text
    found = re.search(r'<a href="([^"]+)"', body)
    assert (found and found.group(1)) == link
    if web_prefix is None:
        web.get("/coverage/gh/ann/lib/commit/c0ffee0/blob/pkg/a.py", status=404)
        return
    page = web.get(f"{web_prefix}/gh/ann/lib/branch/feat/x/blob/pkg/a.py")
    assert page.html.select_one("h1").text == "pkg/a.py"
    # The page's own links include the prefix and the app's script root.
    graphs = page.html.select_one("#coverage-graphs-link")["href"]
    assert graphs == f"/app{web_prefix}/gh/ann/lib/branch/feat/x#coverage-graphs-title"


def test_the_collector_pause_restores_the_collector() -> None:
    assert gc.isenabled()
    with graph_records.gc_paused():
        assert not gc.isenabled()
        with graph_records.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the outer block still holds the pause"
    assert gc.isenabled()
    # Overlapping blocks in threads: the collector comes back when the last one leaves.
    entered, leave = threading.Barrier(3), threading.Event()

    def hold() -> None:
        with graph_records.gc_paused():
            entered.wait()
            leave.wait()

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for thread in threads:
        thread.start()
    entered.wait()
    assert not gc.isenabled()
    leave.set()
    for thread in threads:
        thread.join()
    assert gc.isenabled()
    # A host that runs without the collector keeps it off.
    gc.disable()
    try:
        with graph_records.gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failed_render_restores_the_collector(
    testapp: webtest.TestApp, uploaded: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("layout bug")

    monkeypatch.setattr(graphs, "render_graph_svg", broken)
    with pytest.raises(RuntimeError):
        testapp.get(URL)
    assert gc.isenabled()
