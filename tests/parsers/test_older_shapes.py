"""The last readings of issue 37: Visual Studio's older ``CoverageDSPriv`` XML, Mono's coverage XML,
llvm-cov's text before 3.9 (``count|line|source``) and JSCover's ``lineData`` object of files, each on
a report shaped by its tool's documentation or source, with what is skipped, counted and refused."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_new_formats import TOOLS, parse
from test_xml_fast_paths import NUMBERS, element, read

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import ParserSettings, Skips, detect_format, merge_by_path, parse_report, vscoverage
from flask_coverage.parsers._common import (
    EMPTY_NAME,
    HITS_DECIMAL,
    HITS_NEGATIVE,
    HITS_NOT_A_NUMBER,
    LINE_BELOW_ONE,
    LINE_NOT_A_NUMBER,
)
from flask_coverage.parsers._format import ParseContext

# Visual Studio's CoverageDSPriv


def test_the_data_set_shape_reads_what_the_results_shape_of_the_same_run_reads():
    data = (TOOLS / "vscoverage" / "shapes.dspriv.xml").read_bytes()
    assert detect_format(data) == "vscoverage"
    files, skips = parse(data)
    assert skips == {}
    assert files == parse((TOOLS / "vscoverage" / "shapes.coveragexml").read_bytes())[0]
    lines = files["build/Shapes/src/Shapes.cs"]
    module = re.search(
        rb"<LinesCovered>(\d+)</LinesCovered>\s*<LinesPartiallyCovered>(\d+)</LinesPartiallyCovered>\s*"
        rb"<LinesNotCovered>(\d+)</LinesNotCovered>",
        data,
    )
    assert module is not None
    states = [state for _, _, state in lines]
    assert (states.count(HIT), states.count(PARTIAL), states.count(MISS)) == tuple(int(n) for n in module.groups())


def lines_row(start: str, end: str, coverage: str, source: str) -> str:
    return (
        f"<Lines><LnStart>{start}</LnStart><ColStart>1</ColStart><LnEnd>{end}</LnEnd><ColEnd>9</ColEnd>"
        f"<Coverage>{coverage}</Coverage><SourceFileID>{source}</SourceFileID><LineID>0</LineID></Lines>"
    )


def names_row(source: str, name: str) -> str:
    fields = f"<SourceFileID>{source}</SourceFileID><SourceFileName>{name}</SourceFileName>"
    return f"<SourceFileNames>{fields}</SourceFileNames>"


def test_rows_straight_under_the_root_are_read_as_codecov_reads_them():
    # Codecov's sample has no modules: its rows sit under the root, the names after them.
    report = (
        '<?xml version="1.0" standalone="yes"?><CoverageDSPriv>'
        + lines_row("20", "20", "1", "3")
        + lines_row("4", "5", "2", "7")
        + lines_row("6", "6", "0", "7")
        + names_row("3", "lib\\native\\sock.cpp")
        + names_row("7", "Src\\App\\Rows.cs")
        + "</CoverageDSPriv>"
    )
    files, skips = parse(report.encode())
    assert files == {
        "Src/App/Rows.cs": [(4, 0, MISS), (5, 0, MISS), (6, 1, HIT)],
        "lib/native/sock.cpp": [(20, 1, PARTIAL)],
    }
    assert skips == {}


def test_odd_data_set_rows_are_skipped_and_counted():
    report = (
        "<CoverageDSPriv><Module><NamespaceTable><Class><Method>"
        + lines_row("1", "1", "0", "1")
        + lines_row("2", "2", "3", "1")  # no such Coverage code (Codecov: partial)
        + lines_row("4", "3", "0", "1")  # ends before it starts
        + lines_row("0", "0", "2", "1")
        + lines_row("x", "x", "2", "1")
        + lines_row("5", "5", "0", "9")  # a file not named
        + "<Lines><LnStart>6</LnStart><Coverage>0</Coverage><SourceFileID>1</SourceFileID></Lines>"
        + "<Lines/>"
        # The fields in another order, with blanks and a comment, take the checked path.
        + "<Lines>\n <SourceFileID> 1 </SourceFileID><!-- x --><Coverage>1</Coverage><LnEnd>8</LnEnd>"
        + "<LnStart>7</LnStart>\n</Lines>"
        + "</Method></Class></NamespaceTable></Module>"
        + names_row("1", "src/A.cs")
        + names_row("2", "  ")
        + "</CoverageDSPriv>"
    )
    files, skips = parse(report.encode())
    assert files == {"src/A.cs": [(1, 1, HIT), (7, 1, PARTIAL), (8, 1, PARTIAL)]}
    assert skips == {
        "Lines rows whose Coverage is not 0, 1 or 2, skipped": 1,
        "ranges ending before they start or spanning over 1,000 lines, skipped": 1,
        LINE_BELOW_ONE: 1,
        LINE_NOT_A_NUMBER: 1,
        "ranges of a source file not listed, skipped": 1,
        "Lines rows without LnStart, LnEnd, Coverage or SourceFileID, skipped": 2,
        EMPTY_NAME: 1,
    }


def test_a_field_cut_by_a_chunk_reads_whole():
    data = (TOOLS / "vscoverage" / "shapes.dspriv.xml").read_bytes()
    whole = list(vscoverage.FORMAT.parse([data], ParseContext()))
    for size in (1, 7, 64, 333):
        chunks = [data[k : k + size] for k in range(0, len(data), size)]
        assert list(vscoverage.FORMAT.parse(chunks, ParseContext())) == whole


def data_set_report(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    rows = []
    for number, other, kind in lines:
        fields = [
            ("LnStart", number),
            ("ColStart", "1"),
            ("LnEnd", other if kind == 5 else number),
            ("ColEnd", "9"),
            ("Coverage", ["0", "1", "2", other][kind % 4]),
            ("SourceFileID", " 1" if kind < 6 else "2"),
            ("LineID", "0"),
        ]
        rows.append("<Lines>" + "".join(f"<{k}>{v}</{k}>" for k, v in (reversed(fields) if reverse else fields)))
        rows.append("</Lines>")
    return f"<CoverageDSPriv>{''.join(rows)}{names_row('1', 'src/A.cs')}</CoverageDSPriv>".encode()


@given(lines=st.lists(st.tuples(NUMBERS, NUMBERS, st.integers(0, 6)), max_size=12))
def test_the_data_set_fast_path_reads_as_the_checked_path(lines):
    assert read(data_set_report(lines, reverse=False), "vscoverage") == read(
        data_set_report(lines, reverse=True), "vscoverage"
    )


# Mono

NO_FILE = "statements of a method without a file name (no debug symbols) or before the first method, skipped"

#: In the shape mono's coverage profiler writes (mono/profiler/coverage.c; mono 6.8's wrote the same for
#: a like program): the Shapes program of the other .NET reports, classify called with (2,2,2) and
#: (3,4,5), area never; a framework method without symbols (filename "") and one never run.
MONO = b"""<?xml version="1.0"?>
<coverage version="0.3">
\t<assembly name="shapes" guid="6A1D0BC0-B3A5-D74C-9E1A-6C0B8B3F2A4D" filename="/w/shapes/bin/shapes.exe" \
method-count="3" full="2" partial="0"/>
\t<class name="Shapes.Triangle" method-count="2" full="1" partial="0"/>
\t<class name="Shapes.Program" method-count="1" full="1" partial="0"/>
\t<method assembly="shapes" class="Shapes.Triangle" name="Classify (int,int,int)" filename="/w/shapes/src/Shapes.cs" \
token="100663297">
\t\t<statement offset="0" counter="2" line="7" column="9"/>
\t\t<statement offset="1" counter="2" line="8" column="13"/>
\t\t<statement offset="14" counter="1" line="9" column="17"/>
\t\t<statement offset="20" counter="1" line="10" column="13"/>
\t\t<statement offset="41" counter="0" line="10" column="40"/>
\t\t<statement offset="49" counter="0" line="11" column="17"/>
\t\t<statement offset="55" counter="1" line="12" column="13"/>
\t</method>
\t<method assembly="mscorlib" class="System.Collections.Generic.Dictionary`2" name=".ctor ()" filename="" \
token="100663870">
\t\t<statement offset="0" counter="1" line="1" column="1"/>
\t\t<statement offset="8" counter="1" line="1" column="1"/>
\t</method>
\t<method assembly="shapes" class="Shapes.Program" name="Main (string[])" filename="/w/shapes/src/Program.cs" \
token="100663299">
\t\t<statement offset="0" counter="1" line="5" column="9"/>
\t\t<statement offset="22" counter="1" line="6" column="9"/>
\t</method>
\t<method assembly="shapes" class="Shapes.Triangle" name="Area ()" filename="/w/shapes/src/Shapes.cs" \
token="100663298">
\t\t<statement offset="0" counter="0" line="16" column="9"/>
\t\t<statement offset="1" counter="0" line="17" column="13"/>
\t</method>
\t<method assembly="shapes" class="Shapes.Program" name=".ctor ()" filename="" token="100663300">
\t</method>
</coverage>
"""


def test_mono_statements_mark_their_lines_as_codecov_reads_them():
    assert detect_format(MONO) == "mono"
    skips = Skips()
    files = {path: list(lines) for path, lines in parse_report(MONO, root="/w/shapes", skips=skips)}
    assert skips.counts == {NO_FILE: 2}
    # Line 10 holds a statement run and one not: hits add up and a hit wins, as on Codecov. The file's
    # methods are apart in the report: they make one file, in first-seen order.
    assert files == {
        "src/Shapes.cs": [(7, 2, HIT), (8, 2, HIT), (9, 1, HIT), (10, 1, HIT), (11, 0, MISS), (12, 1, HIT)]
        + [(16, 0, MISS), (17, 0, MISS)],
        "src/Program.cs": [(5, 1, HIT), (6, 1, HIT)],
    }
    # The profiler's own counts are of methods: those with a statement run are its "full" ones.
    methods = re.findall(rb'<method assembly="shapes".*?</method>', MONO, re.DOTALL)
    ran = [m for m in methods if re.search(rb'counter="[1-9]', m)]
    assert len(ran) == sum(int(n) for n in re.findall(rb'<assembly [^>]*full="(\d+)"', MONO))


def test_odd_mono_statements_are_skipped_and_counted():
    report = (
        b'<coverage version="0.3"><assembly name="a"/>'
        b'<statement offset="0" counter="1" line="1" column="1"/>'  # before any method
        b'<method name="F ()" filename="">'
        b'<statement offset="0" counter="1" line="1" column="1"/></method>'
        b'<method name="G ()" filename="/w/a.cs">'
        b'<statement offset="0" counter="1" line="0" column="1"/>'
        b'<statement offset="1" counter="1" line="x" column="1"/>'
        b'<statement offset="2" counter="x" line="3" column="1"/>'
        b'<statement offset="3" counter="-1" line="4" column="1"/>'
        b'<statement offset="4" counter="2.0" line="5" column="1"/>'
        b'<statement line="6" counter="12345"/>'
        b"</method></coverage>"
    )
    files, skips = parse(report)
    assert files == {"w/a.cs": [(4, 0, MISS), (5, 2, HIT), (6, 12345, HIT)]}
    assert skips == {
        NO_FILE: 2,
        LINE_BELOW_ONE: 1,
        LINE_NOT_A_NUMBER: 1,
        HITS_NOT_A_NUMBER: 1,
        HITS_NEGATIVE: 1,
        HITS_DECIMAL: 1,
    }


def mono_report(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    body = "".join(
        element(
            "statement",
            [("offset", "0"), ("counter", hits), ("line", number), ("column", "3")][: 4 if kind < 6 else 3],
            reverse,
        )
        for number, hits, kind in lines
    )
    return f'<coverage version="0.3"><assembly name="a"/><method filename="a.cs">{body}</method></coverage>'.encode()


@given(lines=st.lists(st.tuples(NUMBERS, NUMBERS, st.integers(0, 6)), max_size=12))
def test_the_mono_fast_path_reads_as_the_checked_path(lines):
    assert read(mono_report(lines, reverse=False), "mono") == read(mono_report(lines, reverse=True), "mono")


def test_mono_and_cobertura_tell_each_other_apart():
    cobertura = b'<?xml version="1.0"?><coverage version="7.4" timestamp="1"><sources><source>/w</source></sources>'
    assert detect_format(cobertura) == "cobertura"
    assert detect_format(b'<coverage version="0.3">\n  <!-- a comment -->\n  <assembly name="a"/>') == "mono"
    with pytest.raises(ReportError, match="^invalid XML report: "):
        list(parse_report(MONO.replace(b"</method>\n</coverage>", b"</coverage>"), format="mono"))
    with pytest.raises(ReportError, match=r"^invalid XML report \(truncated\?\)"):
        list(parse_report(MONO[: len(MONO) // 2]))


# llvm-cov show before 3.9: count|line|source

COLOUR = re.compile("\x1b\\[[0-9;]*m")


def counts_first(text: str) -> str:
    """llvm-cov 3.9's rows in the layout of llvm-cov 3.5 to 3.8 (SourceCoverageView.cpp of those
    releases: the count column first, 7 wide, then the line number, 5 wide, colour codes kept where they
    were: a reset before the row, the count's own colour); other lines as they are."""
    rows = []
    for row in text.split("\n"):
        fields = row.split("|", 2)
        visible = [COLOUR.sub("", field) for field in fields]
        if len(fields) == 3 and len(visible[0]) == 5 and visible[0].strip().isdecimal():
            prefix = "".join(COLOUR.findall(fields[0]))
            count = fields[1].strip(" ")
            width = 7 - len(COLOUR.sub("", count))
            row = f"{prefix}{' ' * width}{count}|{visible[0].strip():>5}|{fields[2]}"
        rows.append(row)
    return "\n".join(rows)


@pytest.mark.parametrize("name", ["llvm/show.txt", "llvm/show-color.txt"])
def test_the_layout_before_3_9_reads_what_the_current_layout_reads(name):
    current = (TOOLS / name).read_text()
    older = counts_first(current)
    assert older != current and "      1|    5|{" in counts_first((TOOLS / "llvm/show.txt").read_text())
    assert detect_format(older.encode()) == "xcode"
    assert parse(older.encode()) == parse(current.encode())


def test_the_layout_before_3_9_skips_sub_views_and_closing_braces():
    # An uncounted first row (detected all the same), an expansion's rows indented under their line,
    # an instantiation's name and rows, a count over 9,999,999 cut to 7 digits as llvm-cov 3.8 cut it.
    report = (
        b"/w/src/a.cpp:\n"
        b"       |    1|#define SQUARE(x) ((x) * (x))\n"
        b"      3|    2|int f(int x) { return SQUARE(x); }\n"
        b"  |  ------------------\n"
        b"  |      3|    1|#define SQUARE(x) ((x) * (x))\n"
        b"  |  ------------------\n"
        b"      0|    3|int g() {\n"
        b"      0|    4|}\n"
        b"1234567|    5|template <class T> T h(T t) { return t; }\n"
        b"  |  ------------------\n"
        b"  | _Z1hIiET_S0_:\n"
        b"  |1234567|    5|template <class T> T h(T t) { return t; }\n"
        b"  |  ------------------\n"
    )
    assert detect_format(report) == "xcode"
    files, skips = parse(report)
    assert files == {"w/src/a.cpp": [(2, 3, HIT), (3, 0, MISS), (5, 1234567, HIT)]}
    assert skips == {}


def test_a_report_of_the_current_layout_is_not_taken_for_the_older_one():
    # Line numbers and counts that would both read as numbers either way: the widths decide.
    report = b"/w/a.c:\n    1|      1|int a;\n    2|      9|int b;\n"
    assert parse(report)[0] == {"w/a.c": [(1, 1, HIT), (2, 9, HIT)]}
    assert parse(counts_first(report.decode()).encode())[0] == {"w/a.c": [(1, 1, HIT), (2, 9, HIT)]}


# JSCover's lineData (Istanbul's older object of files)


def test_jscover_line_data_reads_nycs_lines_of_the_same_run():
    data = (TOOLS / "jscover" / "jscoverage.json").read_bytes()
    assert detect_format(data) == "istanbul"
    nyc = merge_by_path(parse_report((TOOLS / "js" / "lcov.info").read_bytes()))["shapes.js"]
    default = merge_by_path(parse_report(data, settings=ParserSettings()))
    assert list(default) == ["src/js/shapes.js"]
    # Codecov's default (enable_partials false): a line is its count, as nyc's LCOV of a .js file reads.
    assert list(default["src/js/shapes.js"]) == list(nyc)
    # With partials: a line run with a condition not evaluated both ways is partial (line 14 never ran).
    files, skips = parse(data)
    assert skips == {}
    partial = [line for line, _, state in files["src/js/shapes.js"] if state == PARTIAL]
    assert partial == [3, 6, 7]


def test_lines_covered_and_odd_line_data_are_read_or_counted():
    # lineData is read as covr's list of counts (element 0 no line), linesCovered as a count per line.
    report = (
        b'{"/app/a.js": {"data": {"lineData": [null, 2, 0, "x", -1, 1.5, null, 4], "branchData": '
        b'{"7": [null, {"evalTrue": 1, "evalFalse": 0}], "0": [], "9": 3,'
        b' "1": [null, {"evalTrue": 2, "evalFalse": 1}], "2": [null, {"evalTrue": 0, "evalFalse": 0}]}}},'
        b' "/app/b.js": {"linesCovered": {"1": 1, "2": 0, "x": 4, "3": "4"}},'
        b' "/app/c.js": {"lineData": [3]}}'
    )
    assert detect_format(report) == "istanbul"
    files, skips = parse(report)
    assert files == {
        "app/a.js": [(1, 2, HIT), (2, 0, MISS), (4, 0, MISS), (5, 1, HIT), (7, 4, PARTIAL)],
        "app/b.js": [(1, 1, HIT), (2, 0, MISS)],
        "app/c.js": [],
    }
    assert skips == {
        HITS_NOT_A_NUMBER: 2,
        HITS_NEGATIVE: 1,
        HITS_DECIMAL: 1,
        LINE_BELOW_ONE: 1,
        "branches without a readable line or counts, skipped": 1,
        LINE_NOT_A_NUMBER: 1,
    }


# Every shape, fuzzed

FUZZED = {
    "CoverageDSPriv": lambda: (TOOLS / "vscoverage" / "shapes.dspriv.xml").read_bytes(),
    "Mono": lambda: MONO,
    "llvm-cov before 3.9": lambda: counts_first((TOOLS / "llvm" / "show-color.txt").read_text()).encode(),
    "JSCover": lambda: (TOOLS / "jscover" / "jscoverage.json").read_bytes(),
}


@pytest.mark.parametrize("shape", sorted(FUZZED))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_fuzzed_reports_of_the_older_shapes_give_files_or_one_line_errors(shape, data):
    report = bytearray(FUZZED[shape]())
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(report) - 1))
        action = data.draw(st.sampled_from(["replace", "delete", "repeat"]))
        if action == "replace":
            report[at : at + 1] = data.draw(st.sampled_from([b"\x00", b"\xff", b"|", b"9" * 30, b"<", b"\n", b'"']))
        elif action == "delete":
            del report[at : at + data.draw(st.integers(1, 40))]
        else:
            report[at:at] = report[at : at + data.draw(st.integers(1, 200))] * 3
    try:
        for _path, lines in parse_report(bytes(report), skips=Skips()):
            assert all(line >= 1 for line, _, _ in lines)
    except ReportError as error:
        assert str(error) and "\n" not in str(error)
