"""The compiled Go profile reader (parsers/_speedups/go.c) reads the well-formed blocks and leaves every
other line to go.py's Python reader: a profile parses to the same files, skips and errors with it and
without it, whatever the lines and the chunks."""

from __future__ import annotations

import struct
from array import array
from functools import partial
from pathlib import Path
from unittest import mock

import pytest
from compiled_readers import Outcome, both_ways, read, skip_unless_built
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.lines import _U32
from flask_coverage.parsers import go

GO_DATA = Path(__file__).resolve().parent.parent / "data" / "tools" / "go"
needs_reader = skip_unless_built("go")

Parsed = Outcome
_parse = partial(read, go)
_both_ways = partial(both_ways, go)


_NAMES = st.sampled_from(["example.com/m/a.go", "b.go", "c:d.go", "dir/\u00e9t\u00e9.go", "x y.go"])
_COUNTS = st.sampled_from([0, 0, 1, 2, 7, 2**32 - 1, 2**32, 10**19])


@st.composite
def _block(draw: st.DrawFn) -> str:
    first = draw(st.integers(1, 30))
    last = first + draw(st.integers(0, 4))
    return (
        f"{draw(_NAMES)}:{first}.{draw(st.integers(0, 40))},{last}.{draw(st.integers(0, 40))} "
        f"{draw(st.integers(0, 3))} {draw(_COUNTS)}"
    )


_ODD = st.sampled_from(
    [
        "", "\t", "mode: set", "mode: count", "mode: bogus", "mode:1.1,1.2 1 1", "ok  \texample.com/m 0.1s",
        "a.go:01.2,1.3 1 1", "a.go:1.2,1.3 1 01", "a.go:1.2,1.3 1 1 ", "a.go:1.2,1.3 1 1\x0c", "a.go:0.1,1.2 1 1",
        "a.go:5.1,4.1 1 1", "a.go:1.1,10000001.2 1 1", "a.go:1.1,1.1234567890 1 1",
        "a.go:1.1,1.2 1 123456789012345678901", "a.go:1.1,1.2 1", "a.go:1.1;1.2 1 1", ":1.1,1.2 1 1",
        "a.go:+1.1,1.2 1 1", "a.go:1.1,2.2  1 1", "a.go 1.1,2.2 1 1", "a.go:\u0661.1,1.2 1 1", "a.go:1.1,9999999.1 1 1",
        "b.go:x:1.1,1.2 1 1", "b.go.bak:1.1,1.2 1 1", "b.go:1.1,1.2 1 1:2.1,2.2 1 1", "b.go:", "b.go:1.1,1.2 1 1x",
    ]
)  # fmt: skip


@needs_reader
@settings(max_examples=300)
@given(
    st.lists(st.one_of(_block(), _block(), _block(), _ODD), max_size=40),
    st.sampled_from([1, 3, 17, 64, 1 << 20]),
    st.booleans(),
)
def test_the_same_files_skips_and_errors_with_and_without_the_reader(lines, size, mode):
    data = (("mode: count\n" if mode else "") + "".join(line + "\n" for line in lines)).encode()
    compiled, python = _both_ways(data, size)
    assert compiled == python


@needs_reader
def test_every_prefix_of_real_profiles_reads_the_same_both_ways():
    data = b"".join((GO_DATA / f"cover-{mode}.out").read_bytes() for mode in ("set", "count", "atomic"))
    for end in range(len(data) + 1):
        for size in (7, 1 << 20):
            compiled, python = _both_ways(data[:end], size)
            assert compiled == python, end


@needs_reader
def test_a_clean_profile_is_read_by_the_reader():
    lines: list[str] = []
    data = (GO_DATA / "cover-count.out").read_bytes()
    with mock.patch.object(go._Reader, "_line", lambda self, line: lines.append(line) or iter(())):
        files, skips, error = _parse(data, 100)
    assert lines == ["mode: count"]
    assert [path for path, _ in files] == ["example.com/shapes/shapes.go"] and not skips and not error
    assert files == _both_ways(data, 100)[1][0]


@needs_reader
def test_the_reader_refuses_lines_that_need_a_rule():
    assert go._compiled.read("a.go:1.2,3.4 1 5\nb.go:2.1,2.9 0 0\n", 10) == [
        ("a.go", struct.pack("=5I", 1, 2, 3, 4, 5)),
        ("b.go", struct.pack("=5I", 2, 1, 2, 9, 0)),
    ]
    assert go._compiled.read("", 10) == []
    for odd in (
        "a.go:1.2,11.4 1 5\n",  # past the line limit given
        "a.go:1.2,3.4 1 4294967296\n",  # a count to clamp
        "a.go:1.2,3.4 1 5",  # no line end
        "a.go:0.2,3.4 1 5\n",
        "a.go:3.2,2.4 1 5\n",
        "mode:1.2,3.4 1 5\n",
        "a.go:1.2,3.4 1 5\n\n",
        "a.go:1.2,3.4 1 05\n",
        "a.go:1.2,3.4 1 5 \n",
        "a.go:1.2,3.1234567890 1 5\n",
    ):
        assert go._compiled.read(odd, 10) is None, odd


_SMALL_BLOCKS = st.lists(
    st.tuples(
        st.integers(1, 12), st.integers(0, 4), st.integers(0, 3), st.integers(0, 4), st.sampled_from([0, 0, 1, 5])
    ),
    min_size=1,
    max_size=30,
)


@needs_reader
@settings(max_examples=300)
@given(_SMALL_BLOCKS)
def test_lines_expands_blocks_as_the_python_rule(blocks):
    columns = [[first, start, first + extra, stop, count] for first, start, extra, stop, count in blocks]
    packed = array(_U32, [value for block in columns for value in block]).tobytes()
    lines, hits, states = go._compiled.lines(packed)
    expected = go._lines(*(list(column) for column in zip(*columns)))
    assert list(zip(array(_U32, lines), array(_U32, hits), states)) == list(expected)


@needs_reader
def test_lines_refuses_what_is_not_blocks():
    for bad in (b"", b"1234", struct.pack("=5I", 0, 1, 1, 1, 1), struct.pack("=5I", 3, 1, 2, 1, 1)):
        with pytest.raises(TypeError):
            go._compiled.lines(bad)
    with pytest.raises(TypeError):
        go._compiled.read(b"a.go:1.1,1.2 1 1\n", 10)
