"""PathResolver.resolve's fast path for clean names gives exactly what the full rule gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.parsers._paths import PathResolver

_SEGMENTS = st.sampled_from(
    [
        "a",
        "src",
        "b.py",
        ".",
        "..",
        "",
        "\\",
        "C:",
        "c:",
        "x\x00",
        "\x7f",
        "é",
        "ü.c",
        " ",
        "a b",
        "...",
        ".a",
        "%",
        "~",
    ]
)
_NAMES = st.builds(
    lambda lead, parts: lead + "/".join(parts),
    st.sampled_from(["", "/", "//", "\\", "C:/", "./"]),
    st.lists(_SEGMENTS, max_size=6),
)
_ROOTS = st.one_of(st.none(), _NAMES.filter(lambda n: n.strip() != ""))


def _answer(resolve, name):
    try:
        return resolve(name)
    except ReportError as error:
        return ("error", str(error))


@given(name=_NAMES, root=_ROOTS, sources=st.lists(_NAMES, max_size=3))
def test_fast_rule_is_the_full_rule(name, root, sources):
    resolver = PathResolver(root, sources)
    assert _answer(resolver.resolve, name) == _answer(resolver._resolve_fully, name)


def test_fast_rule_edges():
    for root, sources in [
        (None, ()),
        ("src", ()),
        ("/home/ci/repo", ()),
        (".", ()),
        (None, ["/home/ci/repo", "/home/ci/repo/tests"]),
        ("/", ["/x"]),
    ]:
        resolver = PathResolver(root, sources)
        for name in [
            "a/b.py",
            "/home/ci/repo/a.py",
            "/home/ci/repo",
            "src",
            "src/a.py",
            "/x/y",
            "/",
            "x" * 4097,
            "a/" * 2048 + "b",
        ]:
            assert _answer(resolver.resolve, name) == _answer(resolver._resolve_fully, name)
