from __future__ import annotations

import random
import re
import unicodedata
from urllib.parse import unquote

import pytest
from defusedxml import ElementTree as ET
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.svg import GRAPH_DEFAULTS, GraphOptions, render_graph_svg, validate_graph_params
from flask_coverage.svg.writer import format_percent

NS = "{http://www.w3.org/2000/svg}"


def _renderer(kind):
    def render(files, **options):
        return render_graph_svg(files, validate_graph_params(kind, **options))

    render.__name__ = f"render_{kind}"
    return render


RENDERERS = [render_tree, render_icicle, render_sunburst] = [_renderer(kind) for kind in ("tree", "icicle", "sunburst")]

# Any code point, surrogates included, with the troublemakers made frequent.
any_char = st.one_of(
    st.integers(0, 0x10FFFF).map(chr),
    st.sampled_from(list("<>&\"'/\x00\x08\x0b\x1b\t\n\r\x7f\x85\ud800\udfff\ufffe\uffff\u202e")),
)
names = st.text(alphabet=any_char, min_size=1, max_size=12)


@st.composite
def records(draw, max_size=25):
    paths = draw(st.lists(st.lists(names, min_size=1, max_size=4).map("/".join), min_size=1, max_size=max_size))
    out = []
    for path in paths:
        lines = draw(st.integers(0, 400))
        out.append((path, lines, draw(st.integers(0, lines))))
    return out


def _xml_legal(ch):
    cp = ord(ch)
    return cp in (9, 10, 13) or 0x20 <= cp <= 0xD7FF or 0xE000 <= cp <= 0xFFFD or cp >= 0x10000


def _clean(text):
    """What a name looks like once in a title: control and XML-illegal characters gone."""
    return "".join(ch for ch in text if _xml_legal(ch) and unicodedata.category(ch) != "Cc")


def _shapes(root):
    """(shape, title text, href or None) for every drawn block."""
    parents = {child: parent for parent in root.iter() for child in parent}
    out = []
    for shape in root.iter():
        if shape.tag not in (NS + "path", NS + "circle"):
            continue
        parent = parents[shape]
        holder = parent if parent.tag == NS + "a" else shape
        title = holder.find(NS + "title")
        href = parent.get("href") if parent.tag == NS + "a" else None
        out.append((shape, title.text if title is not None else None, href))
    return out


@settings(max_examples=80, deadline=None)
@given(records(), st.sampled_from(RENDERERS), st.sampled_from([None, "/gh/o/r/commit/abc/blob/", 'x/?a=1&b="2"<>/']))
def test_any_names_give_well_formed_safe_svg(files, render, prefix):
    svg = render(files, link_prefix=prefix)
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    assert {"width", "height", "viewBox"} <= set(root.attrib)
    assert all(_xml_legal(ch) and unicodedata.category(ch) != "Cc" for ch in svg)
    assert "script" not in {el.tag.replace(NS, "") for el in root.iter()}
    assert not any(name.startswith("on") for el in root.iter() for name in el.attrib)
    shapes = _shapes(root)
    assert shapes
    # Every link opens as the page itself, also from inside an <object> or <iframe>.
    assert all(a.get("target") == "_top" for a in root.iter(NS + "a"))
    file_paths = {_clean(p) for p, _, _ in files}
    for _, title, href in shapes:
        assert title
        label, _, pct = title.rpartition(" ")
        assert re.fullmatch(r"\d{1,3}\.\d\d%|n/a", pct)
        if href is not None:
            assert prefix is not None
            assert href.startswith(prefix)
            assert label in file_paths
            # The href is the quoted path: nothing but URL-safe ASCII after the prefix.
            assert re.fullmatch(r"[A-Za-z0-9_.~/%-]*", href[len(prefix) :])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(alphabet="ab/é &", min_size=1, max_size=8), min_size=1, max_size=15, unique=True))
def test_links_round_trip_to_the_path(paths):
    files = [(p, 10, 5) for p in paths]
    prefix = "https://cov.example/gh/o/r/commit/abc/blob/"
    for render in RENDERERS:
        for _, title, href in _shapes(ET.fromstring(render(files, link_prefix=prefix))):
            if href is not None:
                path = unquote(href[len(prefix) :])
                assert path in paths
                assert title == f"{path} 50.00%"


def test_tree_block_has_title_link_and_color():
    svg = render_tree([("src/app.py", 7, 6), ("src/ok.py", 10, 10), ("bad.py", 10, 0)], link_prefix="/blob/")
    root = ET.fromstring(svg)
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("500", "500", "0 0 500 500")
    shapes = {title: (shape, href) for shape, title, href in _shapes(root)}
    assert set(shapes) == {"src/app.py 85.71%", "src/ok.py 100.00%", "bad.py 0.00%"}
    assert shapes["src/app.py 85.71%"][1] == "/blob/src/app.py"
    fills = {}
    for group in root.iter(NS + "g"):
        for a in group.findall(NS + "a"):
            fills[a.get("href")] = group.get("fill")
    assert fills["/blob/src/ok.py"] == "#4c1"
    assert fills["/blob/bad.py"] == "#e05d44"


def test_tree_blocks_are_proportional():
    svg = render_tree([("a.py", 300, 0), ("b.py", 100, 0)], width=400, height=100, border_size=0)
    d = sorted(re.findall(r'd="M(\d+) (\d+)h(\d+)v(\d+)', svg))
    assert d == [("0", "0", "300", "100"), ("300", "0", "100", "100")]


def test_zero_line_file_is_drawn_grey():
    svg = render_tree([("big.py", 200, 150), ("pkg/__init__.py", 0, 0), ("x.py", 30, 3)])
    titles = [t for _, t, _ in _shapes(ET.fromstring(svg))]
    assert "pkg/__init__.py n/a" in titles
    assert 'fill="#9f9f9f"' in svg


def test_tiny_files_fold_into_their_folder_block():
    # Each tiny file would get half a pixel; together they get about 100.
    files = [("src/big.py", 20000, 20000)] + [(f"src/tiny{i}.py", 1, 0) for i in range(200)]
    svg = render_tree(files, width=100, height=100)
    titles = [t for _, t, _ in _shapes(ET.fromstring(svg))]
    assert "src/big.py 100.00%" in titles
    assert "src/ 200 files 0.00%" in titles
    assert not any("tiny" in t for t in titles)
    # One small file alone (a 1 px strip, under 12 x 12 px): "1 file".
    lone = render_tree(
        [("src/big.py", 20000, 20000), ("src/tiny.py", 200, 0)], width=100, height=100, min_block_size=12
    )
    assert "src/ 1 file 0.00%" in [t for _, t, _ in _shapes(ET.fromstring(lone))]


def test_icicle_has_project_folders_and_files():
    files = [("src/a/x.py", 10, 10), ("src/a/y.py", 10, 5), ("src/b.py", 20, 0), ("setup.py", 5, 5)]
    titles = [t for _, t, _ in _shapes(ET.fromstring(render_icicle(files)))]
    assert titles[0] == "/ 4 files 44.44%"
    assert set(titles) == {
        "/ 4 files 44.44%",
        "src/ 3 files 37.50%",
        "src/a/ 2 files 75.00%",
        "src/a/x.py 100.00%",
        "src/a/y.py 50.00%",
        "src/b.py 0.00%",
        "setup.py 100.00%",
    }


def test_sunburst_has_center_disc_and_rings():
    files = [("src/a.py", 10, 10), ("src/b.py", 30, 0), ("c.py", 40, 20)]
    root = ET.fromstring(render_sunburst(files))
    (disc,) = root.iter(NS + "circle")
    assert (disc.get("cx"), disc.get("cy")) == ("150", "150")
    assert len(list(root.iter(NS + "path"))) == 4


def test_sunburst_full_ring_for_a_single_top_folder():
    svg = render_sunburst([("src/a.py", 10, 10), ("src/b.py", 30, 0)])
    titles = [t for _, t, _ in _shapes(ET.fromstring(svg))]
    assert "src/ 2 files 25.00%" in titles
    ET.fromstring(svg)


@pytest.mark.parametrize("render", RENDERERS)
def test_nothing_to_draw_is_still_a_document(render):
    root = ET.fromstring(render([]))
    assert root.tag == NS + "svg"


@pytest.mark.parametrize("kind", ["tree", "icicle", "sunburst"])
def test_default_size_per_kind(kind):
    root = ET.fromstring(render_graph_svg([("a.py", 1, 1)], validate_graph_params(kind)))
    width, height = GRAPH_DEFAULTS[kind]
    assert root.get("viewBox") == f"0 0 {width} {height}"


def test_border_is_set_once_and_escaped():
    # A color from code is taken as given (GraphOptions is not validated again), and escaped.
    svg = render_graph_svg([("a.py", 1, 1)], GraphOptions("tree", 500, 500, 3, 'red"/><script>x</script>'))
    root = ET.fromstring(svg)
    assert not root.findall(f".//{NS}script")
    stroke_groups = [g for g in root.iter(NS + "g") if g.get("stroke")]
    assert len(stroke_groups) == 1 and stroke_groups[0].get("stroke-width") == "3"
    assert "stroke" not in render_tree([("a.py", 1, 1)], border_size=0)


@pytest.mark.parametrize("prefix", ["javascript:alert(1)//", " JaVaScRiPt:x/", "java\tscript:x/", "data:text/html,x/"])
def test_script_link_prefixes_are_refused(prefix):
    with pytest.raises(ValueError) as info:
        render_tree([("a.py", 1, 1)], link_prefix=prefix)
    assert "script" not in str(info.value)


def test_link_suffix_follows_the_quoted_path():
    svg = render_icicle([("a b.py", 3, 2)], link_prefix="../blob/", link_suffix="?token=x&y=<1>")
    assert 'href="../blob/a%20b.py?token=x&amp;y=&lt;1&gt;"' in svg
    (_, _, href), *_ = (s for s in _shapes(ET.fromstring(svg)) if s[2])
    assert href == "../blob/a%20b.py?token=x&y=<1>"


def test_paths_cannot_become_schemes():
    svg = render_tree([("javascript:alert(1)", 1, 1)], link_prefix="")
    assert 'href="javascript%3Aalert%281%29"' in svg


@pytest.mark.parametrize("kwargs", [{"width": 15}, {"height": 4001}, {"border_size": 21}, {"width": "wide"}])
def test_sizes_out_of_range_are_refused(kwargs):
    with pytest.raises(ValueError):
        render_tree([("a.py", 1, 1)], **kwargs)


def test_unknown_kind():
    with pytest.raises(ValueError):
        render_graph_svg([], GraphOptions("pie", 500, 500))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a/x", "a/y", "b/z", "c", "a/b/q"]), st.integers(0, 50), st.integers(0, 50)).map(
            lambda r: (f"{r[0]}{r[1]}", r[1], min(r[1], r[2]))
        ),
        max_size=30,
        unique_by=lambda r: r[0],
    ),
    st.randoms(use_true_random=False),
)
def test_output_does_not_depend_on_input_order(files, rnd):
    shuffled = list(files)
    rnd.shuffle(shuffled)
    for render in RENDERERS:
        assert render(files) == render(shuffled)


def test_format_percent_rounds_down():
    assert format_percent(6, 7) == "85.71%"
    assert format_percent(2, 3) == "66.66%"
    assert format_percent(1, 1) == "100.00%"
    assert format_percent(0, 0) == "n/a"


def test_large_repository_is_compact():
    rng = random.Random(5)
    files = [(f"pkg{i % 40}/mod{i % 7}/file{i}.py", int(rng.lognormvariate(4, 1.2)), 0) for i in range(3000)]
    svg = render_tree(files, link_prefix="/b/")
    drawn = svg.count("<a ")
    assert drawn > 500
    assert len(svg.encode()) / drawn < 150
