"""Coverage badges (``graph/badge.svg``, ``graphs/badge.txt``) and the ``graph/`` aliases of the graphs."""

from __future__ import annotations

import re
from typing import Any, Callable

import pytest
import webtest
from defusedxml import ElementTree
from flask import Flask

from flask_coverage import operations
from flask_coverage.errors import ReportError
from flask_coverage.ingest import upload_report
from flask_coverage.models import Repository
from flask_coverage.svg import coverage_color
from flask_coverage.svg.badge import format_coverage, render_badge_svg, text_width

SVG = "{http://www.w3.org/2000/svg}"
SHA = "ba0d9e" + "1" * 34
SHA_PULL = "ba0d9e" + "2" * 34
TOKEN_LESS = "0123456789"

#: The four targets of widgets, each with its coverage (see ``repos``).
TARGETS = {
    "": "75",
    "/branch/feature/x": "50",
    "/pull/7": "50",
    f"/commit/{SHA[:9]}": "75",
}


@pytest.fixture
def repos(widgets: Repository, make_lcov: Callable[..., bytes]) -> dict[str, Repository]:
    """widgets (public) and secret (private), each: main at SHA (3/4 lines hit), pull 7 on
    feature/x at SHA_PULL (1/2 lines hit)."""
    secret = operations.add_repo("github", "acme", "secret", private=True)
    for repository in (widgets, secret):
        upload_report(repository, make_lcov({"a.py": {1: 1, 2: 1, 3: 4, 4: 0}}), commit=SHA, branch="main")
        upload_report(repository, make_lcov({"b.py": {1: 1, 2: 0}}), commit=SHA_PULL, branch="feature/x", pullid=7)
    return {"widgets": widgets, "secret": secret}


def badge_text(body: bytes) -> tuple[str, str]:
    """The label and value a badge SVG shows (each drawn twice: shadow and text)."""
    texts = [element.text for element in ElementTree.fromstring(body).iter(f"{SVG}text")]
    assert len(texts) == 4 and texts[0] == texts[1] and texts[2] == texts[3]
    return texts[0], texts[2]


def value_fill(body: bytes) -> str:
    return ElementTree.fromstring(body).findall(f"{SVG}g/{SVG}rect")[1].get("fill")


@pytest.mark.parametrize("folder", ["graph", "graphs"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_every_target_public_and_private(
    testapp: webtest.TestApp, repos: dict[str, Repository], target: str, folder: str
) -> None:
    unknown = testapp.get("/gh/acme/nothing/graphs/badge.svg").body
    expected = TARGETS[target]
    token = repos["secret"].image_token
    for name, query, shown in [
        ("widgets", "", True),
        ("widgets", "?token=wrong", True),  # public repositories ignore the token
        ("secret", f"?token={token}", True),
        ("secret", "", False),
        ("secret", "?token=wrong", False),
        ("secret", f"?token={token.upper() if token != token.upper() else token.lower()}", False),
    ]:
        base = f"/gh/acme/{name}{target}/{folder}/badge"
        svg = testapp.get(f"{base}.svg{query}")
        txt = testapp.get(f"{base}.txt{query}")
        assert svg.status_int == txt.status_int == 200
        assert svg.content_type == "image/svg+xml" and txt.content_type == "text/plain"
        if shown:
            assert badge_text(svg.body) == ("coverage", f"{expected}%"), (name, query)
            assert txt.text == expected
            private = name == "secret"
            assert svg.headers["Cache-Control"] == ("private, no-cache" if private else "no-cache")
        else:
            assert svg.body == unknown, (name, query)
            assert txt.text == "unknown"


def test_the_unknown_badge_is_one_and_the_same(
    testapp: webtest.TestApp, repos: dict[str, Repository], make_lcov: Callable[..., bytes]
) -> None:
    empty = operations.add_repo("github", "acme", "empty")
    with pytest.raises(ReportError, match="no files with coverage"):  # a file of no lines is not stored
        upload_report(empty, make_lcov({"no_lines.py": {}}), commit=SHA, branch="main")
    operations.add_repo("github", "acme", "never-uploaded")
    urls = [
        "/gh/acme/nothing/graphs/badge.svg",  # unknown repository
        "/gh/nobody/widgets/graph/badge.svg",  # unknown owner
        "/xx/acme/widgets/graphs/badge.svg",  # unknown provider
        "/gl/acme/widgets/graphs/badge.svg",  # other provider
        "/gh/acme/widgets/branch/nope/graphs/badge.svg",
        "/gh/acme/widgets/pull/8/graphs/badge.svg",  # a pull with no uploads
        "/gh/acme/widgets/pull/x/graphs/badge.svg",
        "/gh/acme/widgets/pull/99999999999999/graphs/badge.svg",
        "/gh/acme/widgets/commit/" + "f" * 40 + "/graphs/badge.svg",
        "/gh/acme/widgets/commit/nothex/graphs/badge.svg",
        "/gh/acme/widgets/commit/ba0d9e/graphs/badge.svg",  # too short
        "/gh/acme/secret/graphs/badge.svg",  # private, no token
        "/gh/acme/secret/graphs/badge.svg?token=" + "x" * 500,
        "/gh/acme/secret/pull/7/graph/badge.svg?token=wrong&precision=2",
        "/gh/acme/empty/graphs/badge.svg",  # no coverage: files without lines
        "/gh/acme/empty/graphs/badge.svg?precision=1",
        "/gh/acme/never-uploaded/graphs/badge.svg",
        "/gh/acme/wid%00gets/graphs/badge.svg",
        "/gh/acme/widgets/branch/a%00b/graphs/badge.svg",
    ]
    responses = [testapp.get(url) for url in urls]
    first = responses[0]
    assert badge_text(first.body) == ("coverage", "unknown")
    assert value_fill(first.body) == "#9f9f9f"
    for url, response in zip(urls, responses):
        assert response.status_int == 200, url
        assert response.body == first.body, url
        # The headers tell nothing either.
        assert dict(response.headers) == dict(first.headers), url
    # The same for the number alone, and a 304 for a client that has it.
    for url in urls:
        assert testapp.get(url.replace(".svg", ".txt")).text == "unknown", url
    testapp.get(urls[-3], headers={"If-None-Match": first.headers["ETag"]}, status=304)


@pytest.mark.parametrize(
    ("hits", "lines", "shown"),
    [
        (24999, 25000, ("100", "100.0", "100.00")),  # 99.996 %: rounded as Codecov's badges round
        (99989, 100000, ("100", "100.0", "99.99")),  # 99.989 %
        (2, 3, ("67", "66.7", "66.67")),
        (1, 3, ("33", "33.3", "33.33")),
        (1, 8, ("12", "12.5", "12.50")),  # 12.5: a tie goes to the even neighbour, as "%.0f" does
        (3, 8, ("38", "37.5", "37.50")),
        (5, 5, ("100", "100.0", "100.00")),
        (0, 5, ("0", "0.0", "0.00")),
    ],
)
def test_precision_rounds_to_the_nearest(
    testapp: webtest.TestApp, widgets: Repository, hits: int, lines: int, shown: tuple[str, str, str]
) -> None:
    report = "SF:a.py\n" + "".join(f"DA:{n},{1 if n <= hits else 0}\n" for n in range(1, lines + 1))
    upload_report(widgets, (report + "end_of_record\n").encode(), commit=SHA, branch="main")
    for precision, value in enumerate(shown):
        assert format_coverage(hits, lines, precision) == value
        query = "" if precision == 0 else f"?precision={precision}"
        assert testapp.get(f"/gh/acme/widgets/graph/badge.txt{query}").text == value
        svg = testapp.get(f"/gh/acme/widgets/graphs/badge.svg{query}").body
        assert badge_text(svg) == ("coverage", f"{value}%")
        assert value_fill(svg) == coverage_color(hits * 100 / lines)


@pytest.mark.parametrize("precision", ["3", "x", "-1", "", "1.0", " 1", "01", "٢"])
def test_a_bad_precision_is_a_400(testapp: webtest.TestApp, repos: dict[str, Repository], precision: str) -> None:
    for url in ("/gh/acme/widgets/graphs/badge.svg", "/gh/acme/nothing/graph/badge.txt"):
        response = testapp.get(url, params={"precision": precision}, status=400)
        assert response.content_type == "text/plain"
        assert response.text == "Bad request: precision must be 0, 1 or 2.\n"


def test_other_badge_formats_are_a_404(testapp: webtest.TestApp, repos: dict[str, Repository]) -> None:
    testapp.get("/gh/acme/widgets/graphs/badge.png", status=404)
    testapp.get("/gh/acme/widgets/graphs/badge.svg.txt", status=404)


def test_etag_304_and_a_new_upload(
    testapp: webtest.TestApp, repos: dict[str, Repository], make_lcov: Callable[..., bytes]
) -> None:
    url = "/gh/acme/widgets/graphs/badge.svg"
    first = testapp.get(url)
    assert first.headers["Cache-Control"] == "no-cache"
    assert first.headers["X-Content-Type-Options"] == "nosniff"
    assert first.headers["Content-Security-Policy"] == "default-src 'none'"
    testapp.get(url, headers={"If-None-Match": first.headers["ETag"]}, status=304)
    # Each precision and format is its own representation.
    etags = {testapp.get(f"{url}?precision={p}").headers["ETag"] for p in "012"}
    etags.add(testapp.get(url.replace(".svg", ".txt")).headers["ETag"])
    assert len(etags) == 4
    upload_report(repos["widgets"], make_lcov({"c.py": {1: 1}}), commit=SHA, branch="main")
    again = testapp.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_int == 200
    assert badge_text(again.body)[1] == "80%"


def test_the_repository_range_colors_the_value(testapp: webtest.TestApp, repos: dict[str, Repository], db: Any) -> None:
    url = "/gh/acme/widgets/graphs/badge.svg"
    assert value_fill(testapp.get(url).body) == coverage_color(75)
    widgets = repos["widgets"]
    widgets.coverage_low, widgets.coverage_high = 50, 75
    db.session.commit()
    assert value_fill(testapp.get(url).body) == "#4c1"
    widgets.coverage_low, widgets.coverage_high = 80, 95
    db.session.commit()
    assert value_fill(testapp.get(url).body) == "#e05d44"


def test_a_badge_costs_one_query_and_reads_no_file(
    testapp: webtest.TestApp, repos: dict[str, Repository], statements: list[str]
) -> None:
    token = repos["secret"].image_token
    for target in TARGETS:
        for ext in ("svg", "txt"):
            statements.clear()
            testapp.get(f"/gh/acme/secret{target}/graph/badge.{ext}?token={token}")
            assert len(statements) == 1, statements
            assert "coverage_file" not in statements[0]


def test_the_label_comes_from_the_config(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], make_lcov: Callable[..., bytes]
) -> None:
    app = make_app(make_database_url(), COVERAGE_BADGE_LABEL='tests & "more" <b>')
    with app.app_context():
        operations.add_org("github", "acme")
        upload_report(
            operations.add_repo("github", "acme", "widgets"), make_lcov({"a.py": {1: 1}}), commit=SHA, branch="main"
        )
    testapp = webtest.TestApp(app)
    for url in ("/gh/acme/widgets/graphs/badge.svg", "/gh/acme/nothing/graphs/badge.svg"):
        body = testapp.get(url).body
        assert b"<b>" not in body
        assert badge_text(body)[0] == 'tests & "more" <b>'


def test_widths_follow_the_text() -> None:
    def widths(label: str, value: str) -> tuple[int, int]:
        rects = ElementTree.fromstring(render_badge_svg(label, value, "#4c1")).findall(f"{SVG}g/{SVG}rect")
        return int(rects[0].get("width")), int(rects[1].get("width"))

    # DejaVu Sans at 11 px: digits are 7 px, "%" 10.5 px, "." 3.5 px.
    assert text_width("100%") == pytest.approx(31.4, abs=0.05)
    assert widths("coverage", "100%") == (61, 41)
    assert widths("coverage", "7.25%") == (61, 45)
    assert widths("coverage", "7%") == (61, 27)
    long_label = "coverage of the integration tests"
    assert widths(long_label, "7%")[0] == round(text_width(long_label)) + 10 == 191
    # Characters beyond Latin-1 count as one em each.
    assert text_width("覆盖率") == 33
    width = re.search(rb'<svg[^>]* width="(\d+)"', render_badge_svg("coverage", "7%", "#4c1"))
    assert width is not None and int(width.group(1)) == 61 + 27


@pytest.mark.parametrize("kind", ["tree", "icicle", "sunburst"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_graph_is_an_alias_of_graphs(
    testapp: webtest.TestApp, repos: dict[str, Repository], kind: str, target: str
) -> None:
    token = repos["secret"].image_token
    for name, query in (("widgets", ""), ("secret", f"?token={token}")):
        graphs = testapp.get(f"/gh/acme/{name}{target}/graphs/{kind}.svg{query}")
        graph = testapp.get(f"/gh/acme/{name}{target}/graph/{kind}.svg{query}")
        assert graph.status_int == graphs.status_int == 200
        assert graph.body == graphs.body and graph.headers["ETag"] == graphs.headers["ETag"]
    testapp.get(f"/gh/acme/secret{target}/graph/{kind}.svg", status=404)
