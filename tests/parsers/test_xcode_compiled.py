"""The compiled reader of llvm-cov show text (``parsers/_speedups/xcode.c``) reads exactly what the
Python reader reads: the same files, lines, skips and errors, for any report and any chunking."""

from __future__ import annotations

from array import array
from functools import partial
from pathlib import Path

import pytest
from compiled_readers import Outcome, both_ways, read, skip_unless_built
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.lines import _U32
from flask_coverage.parsers import xcode

TOOLS = Path(__file__).resolve().parent.parent / "data" / "tools"

Parsed = Outcome
_read = partial(read, xcode)
_both = partial(both_ways, xcode)

needs_compiled = skip_unless_built("xcode")


@needs_compiled
def test_the_compiled_reader_is_used():
    assert xcode._compiled is not None
    files = xcode._compiled.read("/w/a.swift:\n    1|      5|f()\n    2|       |\n    3|      0|g()\n", False, 0)
    assert [(name, len(lines), len(hits), states) for name, lines, hits, states in files] == [
        ("/w/a.swift", 8, 8, b"\x00\x01")
    ]
    # Rows of the file open before the block come first, under None.
    files = xcode._compiled.read("    4|      2|h()\n  /w/b.c:  \n", True, 3)
    assert [(name, states) for name, _, _, states in files] == [(None, b"\x00"), ("/w/b.c", b"")]


@needs_compiled
@pytest.mark.parametrize(
    ("block", "is_open", "last"),
    [
        ("    1|      1|x\n", False, 0),  # a row before the first path: a skip to count
        ("    3|      1|x\n", True, 3),  # not after the open file's last line
        ("/w/a.c:\n    2|      1|x\n    1|      1|y\n", False, 0),  # out of order
        ("/w/a.c:\n    0|      1|x\n", False, 0),  # line 0
        ("/w/a.c:\n 10000001|      1|x\n", False, 0),  # above MAX_LINE_NUMBER: an error
        ("/w/a.c:\n    1|     3E|x\n", False, 0),  # an E mark
        ("/w/a.c:\n    1|      q|x\n", False, 0),  # a count that is not a number
        ("/w/a.c:\n    1|1234567890123456789|x\n", False, 0),  # read through float() by Python
        ("\x1b[0;36m/w/a.c:\n\x1b[0m    1|      1|x\n", False, 0),  # colour codes
        ("/w/a.c:\n    1|      1|\u00a0}\n", False, 0),  # a brace a Unicode space may leave alone
        ("\u00a0/w/a.c:\n", False, 0),  # a path line a Unicode space may start
        ("/w/a.c:\n    1|      1|x", False, 0),  # not a whole line
    ],
)
def test_the_compiled_reader_leaves_the_rest_to_python(block, is_open, last):
    assert xcode._compiled.read(block, is_open, last) is None


@needs_compiled
def test_scaled_counts_are_rounded_as_python_rounds_them():
    texts = [f"{whole}.{fraction}{unit}" for whole in range(0, 13) for fraction in range(0, 100, 7) for unit in "kKMG"]
    texts += ["0.29k", "0.57k", "1.005k", "4.35k", "0.001k", "9.999T", "123456789012.345T", ".5", "5.", "2.5", "0.0k"]
    for text in texts:
        files = xcode._compiled.read(f"/w/a.c:\n    1|{text:>7}|x\n", False, 0)
        assert files is not None, text
        (_, _, hits, states) = files[0]
        expected = min(xcode._count(text), xcode.MAX_HITS)  # type: ignore[type-var]
        assert array(_U32, hits).tolist() == [expected], text
        assert states == (b"\x00" if expected else b"\x01"), text


_NUMBERS = st.sampled_from(["1", "2", "3", "5", "8", "9", "12", "0", "00004", "x", "", " ", "-", "w", "123456789"])
_COUNTS = st.sampled_from(
    [
        "", "0", "1", "5", "007", "1.2k", "3M", "0.5", ".5", "5.", "E", "3E", "1e3", "k", "1.2.3", "4294967296",
        "99999999999", "1234567890123456789", "12345678901234567k", "\t3", "-1", "\u0663", "2G", "1.5T",
    ]
)  # fmt: skip
_SOURCES = st.sampled_from(["x += 1", "}", "  }  ", "} x", "|a|", "\u00a0}", "\u00e9 f()", "", "\t}\x0b", "{"])
_OTHER = st.sampled_from(
    [
        "/w/a.swift:", "  /w/b.c:  ", "w/x.c:", "-----", "  ------------------", "warning: x", "", "  | f:",
        "  |  Branch (1:2): [True: 1, False: 0]", "  |  ^1", "\x1b[0;36m/w/c.c:", "\x1b[0m    4|      1|x",
        "    6|      1|\x1b[0;41mx\x1b[0m", "\u00a0/w/d.c:", "\u00e9/e.c:", "/w/\u00e9.c:", "stray", ":", " 12 ",
        "    7|      1", "10000001|      1|x", "    3|  1|x|y",
    ]
)  # fmt: skip


@st.composite
def _rows(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(_OTHER)
    if kind <= 2:
        return f"{draw(_NUMBERS):>5}|{draw(_COUNTS):>7}|{draw(_SOURCES)}"
    # The usual row: a line number near the last one, a plain count.
    number = draw(st.integers(1, 40))
    count = draw(st.sampled_from(["", "0", "1", "17", "4294967295", "4294967296", "1.2k"]))
    return f"{number:>5}|{count:>7}|    x += {number}"


@needs_compiled
@settings(max_examples=400, deadline=None)
@given(
    rows=st.lists(_rows(), max_size=60),
    ordered=st.booleans(),
    size=st.sampled_from([7, 64, 300, 1 << 20]),
)
def test_both_readers_read_the_same(rows, ordered, size):
    if ordered:  # numbered in order under a path, as llvm-cov writes: the compiled reader's case
        rows = ["/w/p.swift:"] + [
            f"{n:>5}|{row.split('|', 2)[1] if row.count('|') >= 2 else '1'}|x" for n, row in enumerate(rows, 1)
        ]
    data = ("\n".join(rows) + "\n").encode()
    with_c, without = _both(data, size)
    assert with_c == without


@needs_compiled
@pytest.mark.parametrize("name", ["llvm/show.txt", "llvm/show-color.txt"])
def test_every_prefix_of_a_real_report_reads_the_same(name):
    data = (TOOLS / name).read_bytes()
    for end in range(len(data) + 1):
        for size in (1 << 20, 97):
            with_c, without = _both(data[:end], size)
            assert with_c == without, (end, size)


@needs_compiled
def test_a_large_report_reads_the_same_in_any_chunks():
    rows = []
    for f in range(30):
        rows.append(f"/w/Sources/p{f}/c{f}.swift:")
        rows.extend(f"{n:>5}|{'' if n % 4 == 0 else n % 3:>7}|    x += {n}" for n in range(1, 200))
        rows.append("")
    data = ("\n".join(rows) + "\n").encode()
    for size in (1 << 20, 4096, 1000):
        with_c, without = _both(data, size)
        assert with_c == without
        assert len(with_c[0]) == 30 and not with_c[1] and not with_c[2]


@needs_compiled
def test_a_file_read_partly_by_each_reader_is_built_by_the_usual_rules():
    # The first block has colour codes (Python); the next one's rows, out of order with it, are C's.
    first = b"/w/a.c:\n    5|      1|\x1b[0;41mx\x1b[0m\n"
    data = first + b"    3|      2|y\n    5|      4|z\n/w/b.c:\n    1|      0|w\n"
    with_c, without = _both(data, len(first))
    assert with_c == without
    assert with_c[0][0][1] == [(3, 2, 0), (5, 5, 0)]


@needs_compiled
@pytest.mark.parametrize("name", ["llvm/show.txt", "llvm/show-color.txt"])
def test_the_layout_before_3_9_reads_the_same_both_ways_in_any_chunks(name):
    # The compiled reader knows the current layout only: the first row's widths send the older
    # layout (count|line|source) to the Python reader, whatever the chunks.
    from test_older_shapes import counts_first

    data = counts_first((TOOLS / name).read_text()).encode()
    whole = _read(data)
    assert whole[0] and whole == _read((TOOLS / name).read_bytes())
    for end in range(0, len(data) + 1, 7):
        for size in (1 << 20, 97):
            with_c, without = _both(data[:end], size)
            assert with_c == without, (end, size)
