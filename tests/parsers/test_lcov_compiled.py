"""The compiled LCOV reader (parsers/_speedups/lcov.c) reads the well-formed records and leaves every
other block to lcov.py's Python reader: a tracefile parses to the same files, skips and errors with it
and without it, whatever the lines and the chunks."""

from __future__ import annotations

from array import array
from functools import partial
from pathlib import Path

import pytest
from compiled_readers import Outcome, both_ways, read, skip_unless_built
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.lines import _U32
from flask_coverage.parsers import lcov

DATA = Path(__file__).resolve().parent.parent / "data"
needs_reader = skip_unless_built("lcov")

Parsed = Outcome
_parse = partial(read, lcov)
_both_ways = partial(both_ways, lcov)


_NAMES = st.sampled_from(["src/a.c", "b.py", "dir/\u00e9t\u00e9.js", "x y.c", " ", ""])
_COUNTS = st.sampled_from([0, 0, 1, 2, 7, 999999999, 2**32 - 1])


@st.composite
def _record(draw: st.DrawFn) -> str:
    line = draw(st.integers(1, 12))
    kind = draw(st.sampled_from(["DA", "DA", "DA", "BRDA", "BRDA", "other"]))
    if kind == "DA":
        checksum = draw(st.sampled_from(["", ",abc", ",", ",x,y"]))
        return f"DA:{line},{draw(_COUNTS)}{checksum}"
    if kind == "BRDA":
        taken = draw(st.sampled_from(["-", "0", "1", "3", "00", "12"]))
        return f"BRDA:{line},{draw(st.integers(0, 2))},{draw(st.sampled_from(['0', '1', 'a, b']))},{taken}"
    return draw(st.sampled_from(["TN:", "TN:t", "FN:1,f", "FNDA:1,f", "FNF:1", "LF:3", "LH:2", "BRF:2", "VER:2"]))


_ODD = st.sampled_from(
    [
        "", " ", "stray", "DA:0,1", "DA:01,1", "DA:1,01", "DA:1", "DA:1,", "DA:,1", "DA:1,-1", "DA:1,1.5",
        "DA:1,4294967296", "DA:123456789,1", "DA:10000001,1", "DA:1,1234567890", "DA:1, 2", "DA: 1,2",
        "DA:\u0661,1", "DA:1,\u0661", "DA:undefined,1", "BRDA:1,0,0", "BRDA:0,0,0,1", "BRDA:01,0,0,1",
        "BRDA:1,0,0, 1", "BRDA:1,0,0,- ", "BRDA:1,0,0,", "BRDA:x,0,0,1", "BRDA:10000001,0,0,1",
        "BRDA: 1,0,0,1", "BRDA:1,0,0,\u0661", "end_of_record ", "end_of_recordx", "SF:", "SF: ",
        "Tn:x", "_:x", "A1:x", "\u00c9:x", "LF", "sf:a.c", "da:1,1",
    ]
)  # fmt: skip


@st.composite
def _tracefile(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            lines.append("TN:")
        lines.append("SF:" + draw(_NAMES))
        lines.extend(draw(st.lists(st.one_of(_record(), _record(), _record(), _ODD), max_size=12)))
        if draw(st.integers(0, 5)):
            lines.append("end_of_record")
        lines.extend(draw(st.lists(_ODD, max_size=1)))
    return "".join(line + "\n" for line in lines)


@needs_reader
@settings(max_examples=300)
@given(_tracefile(), st.sampled_from([1, 5, 17, 64, 1 << 20]), st.booleans())
def test_the_same_files_skips_and_errors_with_and_without_the_reader(text, size, crlf):
    data = text.encode()
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    compiled, pure = _both_ways(data, size)
    assert compiled == pure


@needs_reader
@settings(max_examples=200)
@given(st.lists(st.one_of(_record(), _record(), _NAMES.map("SF:{}".format), st.just("end_of_record")), max_size=30))
def test_records_in_any_order_read_the_same(lines):
    data = "".join(line + "\n" for line in ["SF:a.c", *lines]).encode()
    for size in (3, 1 << 20):
        compiled, pure = _both_ways(data, size)
        assert compiled == pure


@needs_reader
@pytest.mark.parametrize("name", ["d3-hierarchy.lcov", "flask-sqlalchemy.lcov", "marshmallow.lcov", "tools/js/c8.lcov"])
def test_every_prefix_of_a_real_tracefile_reads_the_same(name):
    data = (DATA / name).read_bytes()
    step = max(1, len(data) // 200)
    for end in [*range(0, len(data), step), len(data) - 1, len(data)]:
        compiled, pure = _both_ways(data[:end], 1 << 20)
        assert compiled == pure, end
    compiled, pure = _both_ways(data, 97)
    assert compiled == pure


@needs_reader
def test_a_clean_tracefile_is_read_by_the_reader_only(monkeypatch):
    def refuse(*args):
        raise AssertionError("read line by line")

    monkeypatch.setattr(lcov._Reader, "_one_by_one", refuse)
    data = (
        b"TN:\nSF:a.c\nFN:1,f\nDA:1,1\nDA:2,0\nDA:3,4\nBRDA:3,0,0,1\nBRDA:3,0,1,-\nBRDA:5,0,0,2\nLF:3\nend_of_record\n"
    )
    files, skips, error = _parse(data * 3, 7)
    assert files == [("a.c", [(1, 1, 0), (2, 0, 1), (3, 4, 2), (5, 1, 0)])] * 3
    assert (skips, error) == ({}, "")


@needs_reader
def test_what_the_reader_refuses():
    read = lcov._compiled.read
    assert read("SF:a.c\nDA:1,2\nend_of_record\n", False) is not None
    for odd in ["DA:1,2\n", "BRDA:1,0,0,1\n", "stray\n", "DA:01x,1\n", "end_of_record", "SF:a\ud800\n"]:
        assert read(odd, False) is None, odd
    assert read("DA:1,2,x\n", True) == [(array(_U32, [1]).tobytes(), array(_U32, [2]).tobytes(), b"\x00", b"", b"")]
    with pytest.raises(TypeError):
        read(b"DA:1,2\n", True)


@needs_reader
@pytest.mark.parametrize(
    "records",
    [
        "DA:1,1\nDA:1,2\n", "DA:2,1\nDA:1,0\n", "DA:1,0\nDA:1,0\nBRDA:1,0,0,1\n", "DA:1,3\nBRDA:2,0,0,1\n",
        "BRDA:1,0,0,1\n", "DA:1,0\nBRDA:1,0,0,1\nBRDA:1,0,1,-\n", "DA:1,2\nBRDA:1,0,0,-\nBRDA:1,0,1,0\n",
        "DA:1,2\nDA:3,0\nBRDA:3,0,0,4\nBRDA:3,0,1,5\nBRDA:1,0,0,1\n", "",
    ],
)  # fmt: skip
@pytest.mark.parametrize("name", ["a.c", "a.js"])
def test_a_whole_file_reads_the_same(records, name):
    data = f"TN:\nSF:{name}\n{records}end_of_record\nSF:b.c\n{records}end_of_record\n".encode()
    compiled, pure = _both_ways(data, 1 << 20)
    assert compiled == pure
    assert compiled[0]
