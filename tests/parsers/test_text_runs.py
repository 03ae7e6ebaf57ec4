"""The text parsers read well-formed runs of records in C, a chunk at a time, and anything else line
by line: both ways must give the same files, whatever the chunks (parsers/_text.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.parsers import ParseContext, Skips, go, lcov, xcode
from flask_coverage.parsers._text import text_blocks


def _parse(parse, data: bytes, size: int) -> tuple[list[tuple[str, list[tuple[int, int, int]]]], dict[str, int]]:
    skips = Skips()
    chunks = [data[k : k + size] for k in range(0, len(data), size)]
    files = [(f.path, list(f.lines)) for f in parse(chunks, ParseContext(skips=skips))]
    return files, skips.counts


def test_blocks_are_whole_lines_with_any_line_end():
    chunks = [b"\xef\xbb\xbfa\r", b"\nb\rc", b"\xc3", b"\xa9\r\n", b"d"]
    blocks = list(text_blocks(chunks, "test"))
    assert "".join(blocks) == "a\nb\nc\u00e9\nd\n"
    assert all(block.endswith("\n") for block in blocks)


_LCOV_LINES = st.sampled_from(
    [
        "DA:1,1", "DA:2,0", "DA:3,7", "DA:3,2", "DA:0,1", "DA:x,1", "DA:4,-1", "DA:5,1.0", "DA:6,01",
        "DA:7,3,abc", "BRDA:1,0,0,1", "BRDA:1,0,1,-", "BRDA:2,0,0,0", "BRDA:9,0,0,1", "BRDA:3,0,0",
        "BRDA:8,0,jump to 9,1", "LF:3", "FN:1,f", "TN:t", "", "stray", "end_of_record", "SF:a.c", "SF:b.c",
    ]
)  # fmt: skip


@settings(max_examples=300)
@given(st.lists(_LCOV_LINES, max_size=40), st.integers(1, 64))
def test_lcov_runs_read_as_line_by_line(lines, size):
    data = ("SF:a.c\n" + "\n".join(lines) + "\n").encode()
    # A stray line sends its chunk file by file and its file line by line; the chunk sizes move the runs about.
    expected, expected_skips = _parse(lcov.parse_lcov, data + b"stray\n", 1 << 20)
    expected_skips = dict(expected_skips)
    expected_skips[lcov.NOT_A_RECORD] -= 1
    expected_skips = {reason: count for reason, count in expected_skips.items() if count}
    assert _parse(lcov.parse_lcov, data, size) == (expected, expected_skips)


_GO_LINES = st.sampled_from(
    [
        "a.go:1.2,1.30 1 1", "a.go:2.2,4.2 1 0", "a.go:3.5,5.3 2 4", "a.go:1.2,1.30 1 0", "a.go:0.1,1.2 1 1",
        "a.go:5.1,4.1 1 1", "a.go:01.2,1.3 1 1", "b.go:1.2,2.2 1 3", "b.go:7.1,9.9 1 0", "mode: set",
        "a.go:6.1,6.9 1 99999999999", "c:d.go:1.1,1.9 1 1", "", "ok  \texample.com/m 0.1s", "a.go:8.1,8.9 1 2 ",
    ]
)  # fmt: skip


@settings(max_examples=300)
@given(st.lists(_GO_LINES, max_size=40), st.integers(1, 64))
def test_go_runs_read_as_line_by_line(lines, size):
    data = ("mode: count\n" + "\n".join(lines) + "\n").encode()
    expected = _parse(go.parse_go, data + b"mode: count\n", 1 << 20)  # a second mode line: line by line
    assert _parse(go.parse_go, data, size) == expected


def test_xcode_rows_as_llvm_cov_writes_them():
    data = (
        b"/w/a.swift:\n    1|      5|func f() {\n    2|      0|  g()\n    3|   1.2k|  h()\n    4|      E|  i()\n"
        b"    5|     3E|  j()\n    6|      2|  }\n    7|       |\n    0|      1|x\n    x|      1|x\n    8|      q|x\n"
    )
    files, skips = _parse(xcode.parse_xcode, data, 5)
    assert files == [("w/a.swift", [(1, 5, 0), (2, 0, 1), (3, 1200, 0), (5, 3, 0)])]
    assert sum(skips.values()) == 3
