"""luacov's compiled reader (``parsers/_speedups/luacov.c``) reads the files a block holds whole and
gives the rest to the Python reader: both ways must give the same files, lines, skips and errors,
whatever the rows and wherever the chunks cut them."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from compiled_readers import Outcome, both_ways, read, skip_unless_built
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.parsers import luacov

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "tools" / "lua" / "luacov.report.out"
RULE = "=" * 78

pytestmark = skip_unless_built("luacov")

Outcome = Outcome
_parse = partial(read, luacov)
_both = partial(both_ways, luacov)


def _read(text: str, at: int = 0) -> tuple[list[tuple[str, list[int], list[int], bytearray]], int, int]:
    assert luacov._compiled is not None
    files, at, stop = luacov._compiled.read(text, at)
    return (
        [
            (name, list(memoryview(lines).cast("I")), list(memoryview(hits).cast("I")), states)
            for name, lines, hits, states in files
        ],
        at,
        stop,
    )


def test_the_real_report_is_read_in_c():
    text = SAMPLE.read_text()
    files, at, stop = _read(text, len(RULE) + 1)
    assert [name for name, _, _, _ in files] == ["run.lua", "shapes.lua"]
    assert text[at:].startswith("Summary\n") and stop == len(text)
    compiled, python = _both(text.encode())
    assert compiled == python and len(compiled[0]) == 2 and not compiled[1] and not compiled[2]


def test_the_compiled_reader_reads_the_width_of_the_count_column():
    rows = "     -- a comment\n  12 local t = {\n        10 \n   1 }\n***0 f()\n 007 x\n\n"
    text = f"a.lua\n{RULE}\n{rows}{RULE}\nb.lua\n{RULE}\n 1 x()\n{RULE}\n"
    files, at, stop = _read(text)
    assert files == [
        ("a.lua", [2, 4, 5, 6], [12, 1, 0, 7], bytearray([0, 0, 1, 0])),
        ("b.lua", [1], [1], bytearray([0])),
    ]
    assert at == stop == len(text)
    # A count of ten digits saturates; a file with no count is empty.
    files, _, _ = _read(f"c.lua\n{RULE}\n 9999999999 x\n 0000000000001 y\n{RULE}\nd.lua\n{RULE}\n\n{RULE}\n")
    assert files == [("c.lua", [1], [2**32 - 1], bytearray([0])), ("d.lua", [], [], bytearray())]


@pytest.mark.parametrize(
    "file",
    [
        f"   \n{RULE}\n 1 x\n{RULE}\n",  # a blank name: skipped and counted by Python
        f"\u00a0\n{RULE}\n 1 x\n{RULE}\n",
        f"a.lua\n{RULE}\n 12345678901 x\n{RULE}\n",  # more significant digits than C reads
        f"a.lua\n{RULE}\n  1 x\n 99999999999999999999 y\n{RULE}\n",
    ],
)
def test_the_compiled_reader_leaves_odd_files_to_python(file):
    text = f"a.lua\n{RULE}\n 1 x\n{RULE}\n{file}b.lua\n{RULE}\n 1 x\n{RULE}\n"
    files, at, stop = _read(text)
    assert [name for name, _, _, _ in files] == ["a.lua"]
    assert text[at:stop] == file
    compiled, python = _both(text.encode())
    assert compiled == python


def test_the_compiled_reader_stops_at_the_summary_and_at_a_cut_file_and_reads_any_character():
    text = f"a.lua\n{RULE}\n 1 x\n{RULE}\nb.lua\n{RULE}\n 1 y\n"
    assert _read(text)[1:] == (text.index("b.lua"), len(text))
    text = f"a.lua\n{RULE}\n 1 x\n{RULE}\nSummary\n{RULE}\n"
    assert _read(text)[1:] == (text.index("Summary"), len(text))
    for other in ("\u00e9", "\u2603", "\U0001f600"):  # one, two and four bytes a character
        text = f"{other}.lua\n{RULE}\n 1 x -- {other}\n*0 {other}\n{RULE}\n\u3000\n{RULE}\n"
        assert _read(text) == ([(f"{other}.lua", [1, 2], [1, 0], bytearray([0, 1]))], len(text) - 81, len(text))
    text = f"a.lua\n{RULE}\n 1 x\n{RULE}\n"
    assert _read(text, -5) == ([], 0, len(text)) and _read(text, 10**6) == ([], 0, len(text))


def test_every_cut_of_the_real_report_reads_the_same_both_ways():
    data = SAMPLE.read_bytes()
    for cut in range(len(data) + 1):
        compiled, python = _both(data[:cut])
        assert compiled == python, cut
    for size in (1, 7, 50, 333):
        compiled, python = _both(data, size)
        assert compiled == python, size


_NAMES = st.sampled_from(
    ["a.lua", "src/b.lua", "Summary", "", "  ", "\u00a0", "=======", "\u00e9.lua", "\u2603.lua", "\u3000", "\U0001f600"]
)
_ROWS = st.one_of(
    st.builds(
        lambda width, hits, code: f"{hits:>{width}} {code}",
        st.integers(1, 6),
        st.integers(0, 10**6),
        st.sampled_from(["x()", "", " 10", "end"]),
    ),
    st.builds(lambda stars, code: f"{'*' * stars}0 {code}", st.integers(1, 4), st.sampled_from(["f()", ""])),
    st.sampled_from(
        [
            "",
            "    -- comment",
            "        20",
            "        20 ",
            "  1",
            "**0",
            "*00 x",
            " 0 x",
            " 007 x",
            " 12345678901 x",
            " 99999999999999999999 x",
            " 999999999999999999999 x",
            " 4294967296 x",
            RULE,
            "=======",
            "======",
            "\u00a0 1 x",
            " 1 \u2603",
            " 2 \U0001f600",
            "\u3000 1 x",
            " \u0661 x",  # a decimal digit outside ASCII: no count
            " 1\tx",
        ]
    ),
)
_FILES = st.builds(
    lambda name, rows, rule: "\n".join(([RULE, name, RULE] if rule else [RULE, name]) + rows),
    _NAMES,
    st.lists(_ROWS, max_size=12),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(
    head=st.sampled_from(["", "stray\n", "\n"]),
    files=st.lists(_FILES, max_size=6),
    tail=st.sampled_from(["", "\n", f"{RULE}\nSummary\n{RULE}\n\nFile Hits\na.lua 1\n", f"{RULE}\n"]),
    size=st.sampled_from([1 << 20, 1, 13, 64]),
    crlf=st.booleans(),
)
def test_generated_reports_read_the_same_both_ways(head, files, tail, size, crlf):
    text = head + "".join(f"{file}\n" for file in files) + tail
    data = text.replace("\n", "\r\n" if crlf else "\n").encode()
    compiled, python = _both(data, size)
    assert compiled == python


def test_a_report_of_many_blocks_reads_the_same_both_ways():
    # Files cut by every chunk's end, a nameless file and a table row here and there.
    parts = []
    for f in range(600):
        parts.append(f"{RULE}\n{'' if f % 97 == 5 else f'src/m{f}.lua'}\n{RULE}\n")
        parts.extend(f"{n % 7:>3} x = {n}\n" if n % 5 else f"**0 y = {n}\n" for n in range(1, 21))
        parts.append("          10\n\n" if f % 13 == 0 else "\n")
    data = "".join([*parts, f"{RULE}\nSummary\n{RULE}\n"]).encode()
    for size in (1 << 20, 1 << 12, 1000):
        compiled, python = _both(data, size)
        assert compiled == python and len(compiled[0]) == 600 - 7 and compiled[1] and not compiled[2]
