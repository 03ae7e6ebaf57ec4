"""gcov's compiled reader (``parsers/_speedups/gcov.c``) reads the usual lines of a block and gives the
rest to the Python reader: both ways must give the same files, lines, skips and errors, whatever the
lines and wherever the chunks cut them."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from compiled_readers import Outcome, both_ways, read, skip_unless_built
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.parsers import gcov

DATA = Path(__file__).resolve().parents[1] / "data"

pytestmark = skip_unless_built("gcov")

Outcome = Outcome
_parse = partial(read, gcov)
_both = partial(both_ways, gcov)


def _real_reports() -> bytes:
    return b"".join(path.read_bytes() for path in sorted((DATA / "tools" / "c").glob("*.gcov")))


def _read(text: str, open_file: bool = True, pending: list[int] | None = None) -> object:
    assert gcov._compiled is not None
    return gcov._compiled.read(text, open_file, pending)


def test_the_real_reports_are_read_in_c():
    text = _real_reports().decode()
    read = _read(text, False)
    assert read is not None
    head, sections, pending = read
    assert head == (b"", b"", bytearray()) and len(sections) == 3 and pending is None
    compiled, python = _both(text.encode(), 1 << 20)
    assert compiled == python and len(compiled[0]) == 3 and not compiled[1]


def test_the_compiled_reader_reads_the_usual_lines():
    text = (
        "        -:    0:Source:a.c\n"
        "        -:    1:#include <stdio.h>\n"
        "function f called 2 returned 100% blocks executed 80%\n"
        "        2:    2:int f(int x)\n"
        "        -:    3:{\n"
        "        2:    4:    if (x > 1)\n"
        "branch  0 taken 1\n"
        "branch  1 taken 0\n"
        "       1*:    5:        x += 1;\n"
        "    #####:    6:    while (x)\n"
        "    #####:    7:static int g(void)\n"
        "        3:    8:    for (;;)\n"
        "branch  0 never executed\n"
        "call    0 returned 1\n"
        "        2:    9:    }\n"
        "        4:   10:  x++; }\n"
        "    =====:   11:  x--;\n"
        "        1:   12:    if (y)\n"
        "branch  0 taken 3\n"
    )
    head, sections, pending = _read(text, False)  # type: ignore[misc]
    assert head == (b"", b"", bytearray())
    [(source, lines, hits, states, ordered)] = sections
    assert source == "a.c" and ordered
    assert list(memoryview(lines).cast("I")) == [2, 4, 5, 6, 8, 10, 11]
    assert list(memoryview(hits).cast("I")) == [2, 2, 1, 0, 3, 4, 0]
    assert states == bytes([0, 2, 0, 1, 1, 0, 1])
    assert pending == [12, 1, 1, 1]
    # The next block goes on counting the branch line, then the open file.
    head, sections, pending = _read("branch  1 taken 0\n        5:   13:  y;\n", True, pending)  # type: ignore[misc]
    assert (list(memoryview(head[0]).cast("I")), list(memoryview(head[1]).cast("I")), head[2]) == (
        [12, 13],
        [1, 5],
        bytearray([2, 0]),
    )
    assert sections == [] and pending is None


@pytest.mark.parametrize(
    "line",
    [
        "        x:    3:  y;",  # a count that is not a number
        "   1 *:    3:  y;",
        "    ######:    3:  y;",
        "  12345678901:    3:  y;",  # more digits than C reads
        "  4294967296:    3:  y;",  # above the saturated maximum
        "        1:    0:  y;",  # line 0
        "        1:  abc:  y;",
        "        1: 123456789:  y;",
        "        1:   -3:  y;",
        "        1: \u0663:  y;",  # a decimal digit outside ASCII
        "  \u00a01:    3:  y;",  # whitespace outside ASCII
        "        1:    3: \u00a0if (x)",
        "        1:    3: \u00a0}",
        "    #####:    3:\u2003static int f(void)",
        "        1:    3:    if\u00a0(x)",
        "\u00a0-:0:Source:b.c",  # a header of an unusual shape: the regular expression decides
        "        -: 0 :Source:b.c",
        '        -:    5:  puts("Source: x");',
    ],
)
def test_the_compiled_reader_leaves_odd_lines_to_python(line):
    assert _read(f"        -:    0:Source:a.c\n        1:    1:  x;\n{line}\n", False) is None


def test_lines_before_the_first_header_are_left_to_python():
    assert _read("        1:    1:  x;\n", False) is None
    assert _read("        -:    1:  x;\n        -:    0:Source:a.c\n", False) is not None


def test_a_file_read_out_of_order_is_built_by_the_builder():
    data = b"-:0:Source:a.c\n1:5:a\n2:3:b\n3:5:c\n-:0:Source:b.c\n1:1:x\n"
    compiled, python = _both(data, 1 << 20)
    assert compiled == python
    assert compiled[0][0] == ("a.c", [(3, 2, 0), (5, 4, 0)])


def test_the_compiled_reader_refuses_a_bad_pending_branch():
    for pending in ([1, 2, 3], [0, 1, 0, 0], (1, 1, 0, 0), [1, "1", 0, 0], [1, 2**70, 0, 0]):
        with pytest.raises(TypeError):
            _read("branch  0 taken 1\n", True, pending)  # type: ignore[arg-type]


# The usual lines, which C reads (some make C give up on a chunk all the same: its lines before the
# first header, line numbers out of order in a file that C builds whole).
_USUAL_LINES = [
    "        -:    0:Source:a.c",
    "-:0:Source:b.c",
    "        -:    0:Source:",
    "        -:    0:Graph:a.gcno",
    "        -:    {n}:#include <x.h>",
    "        {c}:    {n}:    x = {n};",
    "    #####:    {n}:    x = 1;",
    "    =====:    {n}:  y;",
    "  $$$$$:{n}:z",
    "%%%%%:{n}:z",
    "       {c}*:    {n}:  w;",
    "    #####:    {n}:static int f(void)",
    "    #####:    {n}:  inline int g(void)",
    "        {c}:    {n}:static int h",
    "        {c}:    {n}:    if (x > {n})",
    "        {c}:    {n}:    }} else if (y)",
    "        {c}:    {n}:\tfor(;;)",
    "        {c}:    {n}:    while (z)",
    "        {c}:    {n}:    if(a) {{",
    "        {c}:    {n}:  iff (b)",
    "        {c}:    {n}:  x = f(y);",
    "branch  0 taken 1",
    "branch  1 taken 0",
    "branch  2 taken 0%",
    "branch  3 never executed",
    "branch  4 taken 50% (fallthrough)",
    "call    0 returned 1",
    "function f called 1 returned 100%",
    "        {c}:    {n}:{{",
    "        {c}:    {n}:}}",
    "        {c}:    {n}:   }}  ",
    "        {c}:    {n}:  }} x;",
    "",
    "   ",
    "------------------",
    "_Z3fooi:",
    "a:b",
    "        {c}:    {n}:\u00e9t\u00e9;",
]
_USUAL = st.sampled_from(_USUAL_LINES)
# Lines the Python reader skips, counts, refuses or reads with a rule C leaves to it.
_ODD = st.sampled_from(
    [
        "        x:    {n}:  bad;",
        "        {c}:    0:  zero;",
        "        {c}:  abc:  nan;",
        "        {c}: 99999999:  big;",
        "  -1:    {n}:  neg;",
        "   1 *:    {n}:  odd;",
        "  12345678901234:    {n}:  wide;",
        '        {c}:    {n}:  puts("Source: x");',
        "        {c}:    {n}: \u00a0if (u)",
        "        {c}: \u0663:  arabic;",
        "        {c}:    {n}:  // LCOV_EXCL_LINE",
        "        -:    {n}:  // LCOV_EXCL_START",
        "        -:    {n}:  // LCOV_EXCL_STOP",
    ]
)


@st.composite
def _reports(draw: st.DrawFn) -> bytes:
    lines = []
    if draw(st.booleans()):
        lines.append("        -:    0:Source:first.c")
    ordered = draw(st.booleans())
    for k, odd in enumerate(draw(st.lists(st.integers(0, 19).map(lambda r: r == 0), min_size=10, max_size=80))):
        template = draw(_ODD if odd else _USUAL)
        n = k + 1 if ordered else draw(st.integers(1, 40))
        lines.append(template.format(n=n, c=draw(st.sampled_from([0, 1, 7, 4294967295]))))
    return ("\n".join(lines) + "\n").encode()


@settings(max_examples=400, deadline=None)
@given(_reports(), st.sampled_from([1 << 20, 1 << 20, 1, 7, 23, 64, 200, 700]))
def test_compiled_and_python_readers_agree(data, size):
    compiled, python = _both(data, size)
    assert compiled == python


def test_every_prefix_of_the_real_reports_reads_the_same():
    data = _real_reports()
    step = max(1, len(data) // 200)
    for end in range(0, len(data) + 1, step):
        for size in (1 << 20, 97):
            compiled, python = _both(data[:end], size)
            assert compiled == python, end


def test_each_usual_line_reads_the_same_before_branch_records_and_in_any_chunks():
    templates = [line for line in _USUAL_LINES if "{n}" in line]
    parts = []
    for k, template in enumerate(templates):
        if k % 9 == 0:
            parts.append(f"        -:    0:Source:f{k}.c")
        for count in (0, 3):
            parts.append(template.format(n=2 * k + 1 + (count > 0), c=count))
            parts.append("branch  0 taken 2\nbranch  1 taken 0" if k % 2 else "branch  0 never executed")
    data = ("\n".join(parts) + "\n").encode()
    for size in (*range(1, 90, 7), 1 << 20):
        compiled, python = _both(data, size)
        assert compiled == python, size
    assert any(state == 2 for _, lines in compiled[0] for _, _, state in lines)


def test_files_out_of_order_in_one_block_read_the_same():
    # Repeated or decreasing lines, among the plain lines or from a branch line, in files C reads whole.
    orders = [(5, 3, 5, 9), (1, 3, 4), (3, 5, 5), (2, 7, 9), (6, 8), ()]
    parts = []
    for k, order in enumerate(orders):
        parts.append(f"-:0:Source:f{k}.c")
        parts.extend(f"{k}:{n}:    x{n};" for n in order)
        parts.append(f"{k + 1}:{(1, 2, 6, 9, 8, 1)[k]}:    if (y)\nbranch  0 taken 0\nbranch  1 taken 1")
        parts.append(f"1:{(7, 5, 8, 10, 9, 2)[k]}:  z;")
    compiled, python = _both(("\n".join(parts) + "\n").encode(), 1 << 20)
    assert compiled == python
    assert compiled[0][3] == ("f3.c", [(2, 3, 0), (7, 3, 0), (9, 7, 0), (10, 1, 0)])


@pytest.mark.parametrize("mark", ["#####*", "#####**", "=====*", "##### x"])
@pytest.mark.parametrize("code", ["static int f(void)", "  inline int g(void)", "  x();"])
def test_a_mark_with_a_suffix_is_skipped_and_counted_both_ways(mark, code):
    # Issue 35 item 8: "#####*" before an unused static function was passed over silently in C, and
    # skipped and counted (a count that is not a number) in Python.
    data = f"        -:    0:Source:a.c\n        1:    1:int a;\n{mark:>9}:    2:{code}\n".encode()
    compiled, python = _both(data)
    assert compiled == python
    assert compiled[1] == {"lines whose hit count is not a number, skipped": 1}
