"""The formats of Codecov's remaining processors (issue 37): each one's line rule on a report shaped by
its tool's documentation, what is skipped and counted, and what is refused."""

from __future__ import annotations

import json
import plistlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_new_formats import TOOLS, parse
from test_xml_fast_paths import NUMBERS, element, read

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import Skips, merge_by_path, parse_report, xcode_plist
from flask_coverage.parsers._common import (
    EMPTY_NAME,
    HITS_DECIMAL,
    HITS_NEGATIVE,
    HITS_NOT_A_NUMBER,
    LINE_BELOW_ONE,
    LINE_NOT_A_NUMBER,
)

# dotCover


def test_dotcover_statements_mark_their_first_line_and_agree_with_the_reports_totals():
    data = (TOOLS / "dotcover" / "dotcover.xml").read_bytes()
    files, skips = parse(data)
    assert skips == {}
    assert files == {
        "build/Shapes/src/Shapes.cs": [
            (7, 1, HIT),
            (8, 1, HIT),
            (9, 1, HIT),
            (10, 0, MISS),
            (12, 1, HIT),
            (16, 0, MISS),
            (17, 0, MISS),
        ],
        # Line 5 holds a covered and an uncovered statement: a hit wins.
        "build/Shapes/src/Program.cs": [(5, 1, HIT), (6, 1, HIT), (8, 0, MISS)],
    }
    # The report's own totals count statements: its Statement elements say the same.
    text = data.decode()
    root = re.search(r'<Root CoveredStatements="(\d+)" TotalStatements="(\d+)"', text)
    assert root is not None
    assert text.count('Covered="True"') == int(root.group(1))
    assert text.count("<Statement ") == int(root.group(2))


def test_dotcover_odd_statements_are_skipped_and_counted():
    report = (
        b'<Root DotCoverVersion="2023.3"><FileIndices><File Index="1" Name="src\\A.cs"/><File Index="2" Name=""/>'
        b"</FileIndices><Assembly><Type><Method>"
        b'<Statement FileIndex="1" Line="3" Covered="True"/>'
        b'<Statement FileIndex="1" Line="0" Covered="True"/>'
        b'<Statement FileIndex="1" Line="4" Covered="maybe"/>'
        b'<Statement FileIndex="9" Line="5" Covered="False"/>'
        b"</Method></Type></Assembly></Root>"
    )
    files, skips = parse(report)
    assert files == {"src/A.cs": [(3, 1, HIT)]}
    assert skips == {
        LINE_BELOW_ONE: 1,
        'statements whose Covered is neither "True" nor "False", skipped': 1,
        "statements of a file not listed, skipped": 1,
        "files with an empty name, skipped": 1,
    }


def test_dotcover_a_file_in_two_assemblies_is_merged():
    point = '<Statement FileIndex="1" Line="{}" Covered="{}"/>'
    report = (
        '<Root DotCoverVersion="2023.3"><FileIndices><File Index="1" Name="src/Shared.cs"/></FileIndices>'
        f'<Assembly Name="A"><Type><Method>{point.format(3, "False")}</Method></Type></Assembly>'
        f'<Assembly Name="B"><Type><Method>{point.format(3, "True")}{point.format(4, "False")}</Method></Type>'
        "</Assembly></Root>"
    ).encode()
    read = list(parse_report(report, skips=Skips()))
    assert [path for path, _ in read] == ["src/Shared.cs", "src/Shared.cs"]  # one assembly at a time
    assert parse(report)[0] == {"src/Shared.cs": [(3, 1, HIT), (4, 0, MISS)]}


# Flow


def test_flow_locations_mark_their_start_line_and_agree_with_the_reports_counts():
    data = (TOOLS / "flow" / "flow-coverage.json").read_bytes()
    files, skips = parse(data)
    assert skips == {}
    assert files == {
        # flow-coverage-report's own JSON (generate.sh): line 4 holds seven typed expressions (hits add
        # up); lines 10 and 12 hold typed and `any` ones (a hit wins), line 11 only `any` (a miss);
        # main.js's call from line 6 spans to line 10, its start line alone marked (7 to 9 are the
        # object's own members).
        "src/shapes.js": [(3, 4, HIT), (4, 7, HIT), (5, 1, HIT), (7, 1, HIT), (10, 1, HIT), (11, 0, MISS)]
        + [(12, 1, HIT)],
        "src/main.js": [(2, 2, HIT), (4, 4, HIT), (5, 8, HIT), (6, 6, HIT), (7, 1, HIT), (8, 1, HIT), (9, 1, HIT)],
    }
    for entry in json.loads(data)["files"].values():
        expressions = entry["expressions"]
        assert len(expressions["covered_locs"]) == expressions["covered_count"]
        assert len(expressions["uncovered_locs"]) == expressions["uncovered_count"]


def test_flow_odd_entries_are_skipped_and_counted():
    report = {
        "flowStatus": {"passed": True},
        "files": {
            "a.js": {
                "expressions": {
                    "covered_locs": [{"start": {"line": 2}}, {"start": {"line": 0}}, {"end": {"line": 3}}, 7],
                    "uncovered_locs": [{"start": {"line": "x"}}, {"start": {"line": 3}}],
                }
            },
            "b.js": {"expressions": {"covered_locs": {"start": {"line": 1}}}},
            "c.js": {"percent": 0},
            "": {"expressions": {"covered_locs": [{"start": {"line": 1}}]}},
        },
    }
    files, skips = parse(json.dumps(report).encode())
    assert files == {"a.js": [(2, 1, HIT), (3, 0, MISS)]}
    assert skips == {
        LINE_BELOW_ONE: 1,
        LINE_NOT_A_NUMBER: 1,
        "locations without a start line, skipped": 2,
        "location lists that are not lists, skipped": 1,
        "file entries without an expressions object, skipped": 1,
        EMPTY_NAME: 1,
    }


# Elm


def test_elm_regions_mark_lines_as_codecov_reads_them():
    files, skips = parse((TOOLS / "elm" / "codecov.json").read_bytes())
    assert skips == {}
    assert files == {
        # classify (lines 7-14, run twice) marks 7 to 13; its branches add their counts where they sit.
        # area (17-20) never ran: its let (19) and lambda (20) neither.
        "src/Shapes.elm": [(7, 2, HIT), (8, 2, HIT), (9, 3, HIT), (10, 2, HIT), (11, 2, HIT), (12, 2, HIT)]
        + [(13, 2, HIT), (14, 1, HIT), (17, 0, MISS), (18, 0, MISS), (19, 0, MISS), (20, 0, MISS)],
        "src/Main.elm": [(5, 1, HIT), (10, 0, MISS)],
    }


def test_elm_the_module_map_first_or_last_reads_the_same_and_odd_regions_are_counted():
    region = {"from": {"line": 2, "column": 1}, "to": {"line": 2, "column": 9}, "count": 3}
    data = {
        "A": [region, {"from": {"line": 0}, "to": {"line": 1}}, {"from": {"line": 5}}, {**region, "count": -1}],
        "B": [{"from": {"line": 4}, "to": {"line": 3}, "count": 1}, {**region, "count": "x"}],
        "Gone": [region],
    }
    module_map = {"A": "src/A.elm", "B": "src/B.elm"}
    last = parse(json.dumps({"coverageData": data, "moduleMap": module_map}).encode())
    first = parse(json.dumps({"moduleMap": module_map, "coverageData": data}).encode())
    assert last == first
    files, skips = last
    assert files == {"src/A.elm": [(2, 3, HIT)]}
    assert skips == {
        LINE_BELOW_ONE: 1,
        "regions without a start and an end line, skipped": 1,
        HITS_NEGATIVE: 1,
        "regions ending before they start or spanning over 10,000 lines, skipped": 1,
        HITS_NOT_A_NUMBER: 1,
        "modules the moduleMap does not name, skipped": 1,
    }


# Salesforce Apex


def test_salesforce_lines_agree_with_the_reports_totals():
    data = (TOOLS / "salesforce" / "test-result-codecoverage.json").read_bytes()
    files, skips = parse(data)
    assert skips == {}
    assert files == {
        "Triangle.cls": [(3, 2, HIT), (4, 2, HIT), (5, 1, HIT), (6, 1, HIT), (7, 0, MISS), (8, 1, HIT)]
        + [(12, 0, MISS), (13, 0, MISS), (14, 0, MISS)],
        "ShapeTrigger.cls": [(2, 1, HIT), (3, 1, HIT), (5, 0, MISS)],
    }
    for entry in json.loads(data):
        lines = files[entry["name"] + ".cls"]
        assert len(lines) == entry["totalLines"]
        assert sum(state == HIT for _, _, state in lines) == entry["totalCovered"]


def test_salesforce_odd_entries_are_skipped_and_counted():
    report = [
        {"id": "1", "name": "A", "lines": {"1": 1, "0": 1, "x": 1, "2": -3, "3": 1.5, "4": "y"}},
        {"id": "2", "name": "b.trigger", "lines": {"7": 0}},
        {"id": "3", "name": "C"},
        None,
        {"id": "4", "name": "", "lines": {"1": 1}},
    ]
    files, skips = parse(json.dumps(report).encode())
    assert files == {"A.cls": [(1, 1, HIT), (2, 0, MISS), (3, 1, HIT)], "b.trigger": [(7, 0, MISS)]}
    assert skips == {
        LINE_BELOW_ONE: 1,
        LINE_NOT_A_NUMBER: 1,
        HITS_NEGATIVE: 1,
        HITS_DECIMAL: 1,
        HITS_NOT_A_NUMBER: 1,
        "entries without a name or a lines object, skipped": 3,
    }


# Xcode xccoverage plist


def plist(objects: list[object]) -> bytes:
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$objects": objects}, fmt=plistlib.FMT_XML)


def uid(index: int) -> dict[str, int]:
    return {"CF$UID": index}


def test_xcode_plist_reads_as_the_archive_json_of_the_same_run():
    files, skips = parse((TOOLS / "xcode" / "Action.xccoverage.plist").read_bytes())
    assert skips == {}
    assert files == parse((TOOLS / "xcode" / "xccov-archive.json").read_bytes())[0]
    assert (5, 12, PARTIAL) in files["Users/runner/work/shapes/shapes/Sources/Shapes/Shapes.swift"]


def test_xcode_plist_lines_subranges_and_odd_lines():
    objects = [
        "$null",
        {},
        {"NS.objects": [uid(3)]},  # the targets
        {"sourceFiles": uid(4)},
        {"NS.objects": [uid(5)]},
        {"documentLocation": uid(6), "lines": uid(7)},
        "/w/A.swift",
        {"NS.objects": [uid(n) for n in range(8, 15)]},
        {"x": False, "c": 0, "s": uid(0)},  # line 1: no code
        {"x": True, "c": 3, "s": uid(0)},  # 2: HIT
        {"x": True, "c": 0, "s": uid(0)},  # 3: MISS
        {"x": True, "c": 2, "s": uid(15)},  # 4: ran, one part not: PARTIAL
        {"x": True, "c": 2, "s": uid(17)},  # 5: its only subrange a closing brace: HIT
        "not a line",
        {"x": True, "c": -1, "s": uid(0)},  # 7: clamped
        {"NS.objects": [uid(16)]},
        {"c": 10, "len": 5, "x": 0},
        {"NS.objects": [uid(18)]},
        {"c": 1, "len": 2, "x": 0},
    ]
    files, skips = parse(plist(objects))
    assert files == {"w/A.swift": [(2, 3, HIT), (3, 0, MISS), (4, 2, PARTIAL), (5, 2, HIT), (7, 0, MISS)]}
    assert skips == {"lines that are not objects, skipped": 1, HITS_NEGATIVE: 1}


def test_xcode_plist_broken_or_costly_graphs_are_refused():
    lines = {"NS.objects": [uid(7)] * 3}
    file = {"documentLocation": uid(6), "lines": uid(8)}
    # A hundred files share one list of lines: refused, not read a hundred times over.
    shared = ["$null", {}, {"NS.objects": [uid(3)]}, {"sourceFiles": uid(4)}, {"NS.objects": [uid(5)] * 100}]
    shared += [file, "/w/A.swift", {"x": True, "c": 1, "s": uid(0)}, lines]
    with pytest.raises(ReportError, match="refers to more lines than it holds"):
        parse(plist(shared))
    out_of_range = ["$null", {}, {"NS.objects": [uid(99)]}, {}]
    with pytest.raises(ReportError, match="not an xccoverage archive"):
        parse(plist(out_of_range), format="xcode_plist")
    with pytest.raises(ReportError, match="^invalid Xcode plist report"):
        parse(
            b'<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "b">]><plist><string>&a;</string></plist>', "xcode_plist"
        )


def test_xcode_plist_over_the_size_bound_is_refused(monkeypatch):
    data = (TOOLS / "xcode" / "Action.xccoverage.plist").read_bytes()
    monkeypatch.setattr(xcode_plist, "MAX_PLIST_BYTES", len(data) - 1)
    with pytest.raises(ReportError, match="read whole"):
        parse(data)


# D coverage listing


def test_dlst_rows_are_lines_and_agree_with_the_listings_percentage():
    data = (TOOLS / "d" / "source-shapes.lst").read_bytes()
    files, skips = parse(data)
    assert skips == {}
    lines = files["source/shapes.d"]
    # LDC's own listing (generate.sh): line 5's `a == b && b == c` counts each operand's run.
    assert lines == [(5, 3, HIT), (6, 1, HIT), (7, 3, HIT), (8, 0, MISS), (9, 1, HIT), (14, 0, MISS)]
    percent = re.search(rb"is (\d+)% covered", data)
    assert percent is not None
    assert 100 * sum(state == HIT for _, _, state in lines) // len(lines) == int(percent.group(1))


def test_dlst_the_file_name_without_a_last_row_and_odd_rows():
    rows = b"       |int a;\n      x|int b;\n      3|int c;\n0000000|int d;\n"
    skips = Skips()
    read = merge_by_path(parse_report(rows, format="dlst", name="src-app.lst", skips=skips))
    assert {path: list(lines) for path, lines in read.items()} == {"src-app.d": [(3, 3, HIT), (4, 0, MISS)]}
    assert skips.counts == {HITS_NOT_A_NUMBER: 1}
    with pytest.raises(ReportError, match="which file it covers is unknown"):
        parse(rows, "dlst")
    files, skips_after = parse(rows + b"app.d has no code\n      1|int e;\n", "dlst")
    assert files == {"app.d": [(3, 3, HIT), (4, 0, MISS)]} and skips_after == {
        HITS_NOT_A_NUMBER: 1,
        "rows after the summary row, skipped": 1,
    }


# BullseyeCoverage


def test_bullseye_probes_mark_lines_and_agree_with_the_reports_function_counts():
    data = (TOOLS / "bullseye" / "coverage.xml").read_bytes()
    files, skips = parse(data)
    assert skips == {}
    assert files == {
        # Line 6: a decision and a condition both ways, a condition true only: a hit wins.
        "src/shapes/shapes.c": [(4, 1, HIT), (6, 3, HIT), (8, 2, PARTIAL), (13, 0, MISS), (14, 0, MISS)],
        "src/main.c": [(3, 1, HIT), (5, 1, PARTIAL)],
    }
    # Each file's function probes say what its fn_cov/fn_total say.
    for source in re.finditer(rb'<src name="[^"]+" [^>]*fn_cov="(\d+)" fn_total="(\d+)"(.*?)</src>', data, re.S):
        called = source.group(3).count(b'kind="function" event="full"')
        assert (called, source.group(3).count(b'kind="function"')) == (int(source.group(1)), int(source.group(2)))


def test_bullseye_odd_probes_are_skipped_and_counted():
    report = (
        b'<BullseyeCoverage xmlns="https://www.bullseye.com/covxml"><probe line="1" event="full"/>'
        b'<folder name="lib/"><src name=""><fn><probe line="2" event="full"/></fn></src>'
        b'<src name="a.c"><fn><probe line="3" event="full"/><probe line="0" event="none"/>'
        b'<probe line="4"/><probe line="5" event="true"/></fn></src></folder>'
        b'<src name="b.c"><fn><probe line="7" event="none"/></fn></src></BullseyeCoverage>'
    )
    files, skips = parse(report)
    assert files == {"lib/a.c": [(3, 1, HIT), (5, 1, PARTIAL)], "b.c": [(7, 0, MISS)]}
    assert skips == {
        "probes outside a file, skipped": 2,
        EMPTY_NAME: 1,
        LINE_BELOW_ONE: 1,
        "probes without an event, skipped": 1,
    }


# Visual Studio coverage XML


def test_vscoverage_ranges_mark_lines_and_agree_with_the_modules_counts():
    data = (TOOLS / "vscoverage" / "shapes.coveragexml").read_bytes()
    files, skips = parse(data)
    assert skips == {}
    lines = files["build/Shapes/src/Shapes.cs"]
    assert lines == [(7, 1, HIT), (8, 1, HIT), (9, 1, HIT), (10, 1, PARTIAL), (11, 1, HIT), (12, 1, HIT)] + [
        (16, 0, MISS),
        (17, 0, MISS),
        (18, 0, MISS),
    ]
    module = re.search(
        rb'<module [^>]*lines_covered="(\d+)" lines_partially_covered="(\d+)" lines_not_covered="(\d+)"', data
    )
    assert module is not None
    states = [state for _, _, state in lines]
    assert (states.count(HIT), states.count(PARTIAL), states.count(MISS)) == tuple(int(n) for n in module.groups())


def test_vscoverage_ranges_wait_for_their_modules_source_files_and_odd_ranges_are_counted():
    module = (
        '<module block_coverage="1"><functions><function><ranges>{}</ranges></function></functions>'
        '<source_files><source_file id="0" path="src\\{}"/><source_file id="2" path=""/></source_files></module>'
    )
    point = '<range source_id="{}" covered="{}" start_line="{}" end_line="{}"/>'
    first = point.format(0, "yes", 3, 4) + point.format(1, "no", 5, 5) + point.format(0, "maybe", 6, 6)
    second = point.format(0, "no", 2, 1) + point.format(0, "no", 0, 1) + point.format(0, "partial", 9, 9)
    report = f"<results><modules>{module.format(first, 'A.cs')}{module.format(second, 'B.cs')}</modules></results>"
    files, skips = parse(report.encode())
    assert files == {"src/A.cs": [(3, 1, HIT), (4, 1, HIT)], "src/B.cs": [(9, 1, PARTIAL)]}
    assert skips == {
        "ranges of a source file not listed, skipped": 1,
        'ranges whose covered is not "yes", "no" or "partial", skipped': 1,
        "ranges ending before they start or spanning over 1,000 lines, skipped": 1,
        LINE_BELOW_ONE: 1,
        EMPTY_NAME: 2,
    }


# GAP


def test_gap_lines_read_are_misses_unless_executed():
    files, skips = parse((TOOLS / "gap" / "profile.coverage").read_bytes())
    assert skips == {}
    assert files == {
        "home/runner/work/shapes/lib/shapes.gi": [(1, 0, MISS), (2, 1, HIT), (3, 1, HIT), (4, 0, MISS)]
        + [(5, 1, HIT), (8, 0, MISS), (9, 0, MISS)],
        "home/runner/work/shapes/tst/shapes.g": [(1, 1, HIT), (2, 1, HIT)],
    }


def test_gap_odd_lines_are_skipped_and_counted_and_a_line_not_json_refused():
    rows = [
        {"Type": "S", "File": "a.g"},
        {"Type": "E", "Line": 2},
        {"Type": "E", "Line": 0},
        {"Type": "E"},
        {"Line": 3},
        {"Type": "S", "File": ""},
        {"Type": "E", "Line": 4},
        {"Type": "S", "File": "b.g"},
        {"Type": "R", "Line": "x"},
        {"Type": "R", "Line": 5},
    ]
    report = "\n".join(json.dumps(row) for row in rows).encode()
    files, skips = parse(report)
    assert files == {"a.g": [(2, 1, HIT)], "b.g": [(5, 0, MISS)]}
    assert skips == {
        LINE_BELOW_ONE: 1,
        "lines without a Type or a Line, skipped": 2,
        EMPTY_NAME: 1,
        "lines outside a named file, skipped": 1,
        LINE_NOT_A_NUMBER: 1,
    }
    with pytest.raises(ReportError, match="^invalid GAP profile: line 3 is not a JSON object$"):
        parse(report.replace(b'\n{"Type": "E", "Line": 0}', b"\n[1, 2]"))


# The XML fast paths (parsers/_xml.py): the same report with its attributes reversed takes the
# checked path only, and reads the same.


def dotcover_report(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    body = "".join(
        element(
            "Statement",
            [("FileIndex", "1" if kind < 6 else "9"), ("Line", number), ("Column", "1")]
            + [("EndLine", number), ("EndColumn", "9"), ("Covered", ["True", "False", hits][kind % 3])],
            reverse,
        )
        for number, hits, kind in lines
    )
    return (
        '<Root DotCoverVersion="2023.3"><FileIndices><File Index="1" Name="src\\A.cs"/></FileIndices>'
        f"<Assembly><Type><Method>{body}</Method></Type></Assembly></Root>"
    ).encode()


def bullseye_report(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    body = "".join(
        element(
            "probe",
            [("line", number), ("column", "5"), ("kind", "decision")]
            + [("event", ["full", "none", "true", "false", hits, "full", "none"][kind])],
            reverse,
        )
        for number, hits, kind in lines
    )
    folder = f'<folder name="src"><src name="a.c"><fn>{body}</fn></src></folder>'
    return f"<BullseyeCoverage>{folder}</BullseyeCoverage>".encode()


def vscoverage_report(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    body = "".join(
        element(
            "range",
            [("source_id", "0" if kind < 6 else "3"), ("covered", ["yes", "no", "partial", hits][kind % 4])]
            + [("start_line", number), ("start_column", "1"), ("end_line", hits if kind == 5 else number)]
            + [("end_column", "9")],
            reverse,
        )
        for number, hits, kind in lines
    )
    return (
        f'<results><modules><module block_coverage="1"><functions><function><ranges>{body}</ranges></function>'
        '</functions><source_files><source_file id="0" path="src\\A.cs"/></source_files></module></modules></results>'
    ).encode()


FAST_PATH_WRITERS = {"dotcover": dotcover_report, "bullseye": bullseye_report, "vscoverage": vscoverage_report}


@pytest.mark.parametrize("format", sorted(FAST_PATH_WRITERS))
@given(lines=st.lists(st.tuples(NUMBERS, NUMBERS, st.integers(0, 6)), max_size=12))
def test_the_fast_path_reads_as_the_checked_path(format, lines):
    write = FAST_PATH_WRITERS[format]
    assert read(write(lines, reverse=False), format) == read(write(lines, reverse=True), format)


@pytest.mark.parametrize("format", sorted(FAST_PATH_WRITERS))
def test_usual_lines_are_read_on_either_path(format):
    lines = [("3", "2", 0), ("1", "0", 1), ("2", "5", 1), ("3", "1", 0), ("12345", "67890", 0)]
    write = FAST_PATH_WRITERS[format]
    files, skips = read(write(lines, reverse=False), format)
    assert (files, skips) == read(write(lines, reverse=True), format)
    assert isinstance(files, dict) and len(files) == 1 and not skips
    (tracked,) = files.values()
    assert [line for line, _, _ in tracked] == [1, 2, 3, 12345]
