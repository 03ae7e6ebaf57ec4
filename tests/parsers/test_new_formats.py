"""The formats of issue 25, one rule at a time: line states, what is skipped and counted ("skip, count
and say"), what is refused as not the format, and fuzzing (no input gives anything but files or a
ReportError)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import Skips, merge_by_path, parse_report
from flask_coverage.parsers._common import (
    EMPTY_NAME,
    HITS_DECIMAL,
    HITS_NEGATIVE,
    HITS_NOT_A_NUMBER,
    LINE_BELOW_ONE,
    LINE_NOT_A_NUMBER,
)

TOOLS = Path(__file__).resolve().parent.parent / "data" / "tools"


def parse(data: bytes, format: str = "auto") -> tuple[dict[str, list[tuple[int, int, int]]], dict[str, int]]:
    """The files of a report, as line lists, and the skip counts."""
    skips = Skips()
    files = merge_by_path(parse_report(data, format=format, skips=skips))
    return {path: list(lines) for path, lines in files.items()}, skips.counts


# JaCoCo


def jacoco(lines: str, package: str = "com/acme") -> bytes:
    return (
        '<?xml version="1.0"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd">'
        f'<report name="x"><package name="{package}"><class name="{package}/A" sourcefilename="A.java"/>'
        f'<sourcefile name="A.java">{lines}<counter type="LINE" missed="1" covered="1"/></sourcefile>'
        '<counter type="LINE" missed="1" covered="1"/></package></report>'
    ).encode()


def test_jacoco_line_states_are_codecovs():
    files, skips = parse(
        jacoco(
            '<line nr="1" mi="0" ci="3" mb="0" cb="0"/>'  # covered instructions: hit
            '<line nr="2" mi="2" ci="0" mb="0" cb="0"/>'  # none covered: miss
            '<line nr="3" mi="0" ci="4" mb="1" cb="1"/>'  # a branch missed, one covered: partial
            '<line nr="4" mi="1" ci="0" mb="2" cb="0"/>'  # no branch covered: miss
            '<line nr="5" mi="3" ci="2" mb="0" cb="2"/>'  # every branch covered: hit
        )
    )
    assert files == {"com/acme/A.java": [(1, 3, HIT), (2, 0, MISS), (3, 4, PARTIAL), (4, 0, MISS), (5, 2, HIT)]}
    assert skips == {}


def test_jacoco_odd_lines_are_skipped_and_counted():
    files, skips = parse(
        jacoco(
            '<line nr="0" mi="0" ci="1" mb="0" cb="0"/><line nr="x" mi="0" ci="1" mb="0" cb="0"/>'
            '<line nr="2" mi="0" ci="1.0" mb="0" cb="0"/><line nr="3" mi="0" ci="-1" mb="0" cb="0"/>'
            '<line nr="4" mi="0" ci="1" mb="0" cb="0"/>'
        )
        + b"",
    )
    # The rules of every format: line 0 and "x" skipped, 1.0 rounded down, -1 clamped to 0.
    assert files == {"com/acme/A.java": [(2, 1, HIT), (3, 0, MISS), (4, 1, HIT)]}
    assert skips == {LINE_BELOW_ONE: 1, LINE_NOT_A_NUMBER: 1, HITS_DECIMAL: 1, HITS_NEGATIVE: 1}


def test_jacoco_default_package_and_a_nameless_source_file():
    data = jacoco('<line nr="1" mi="0" ci="1" mb="0" cb="0"/>', package="")
    assert parse(data)[0] == {"A.java": [(1, 1, HIT)]}
    nameless = data.replace(b'<sourcefile name="A.java">', b"<sourcefile>")
    assert parse(nameless) == ({}, {EMPTY_NAME: 1})


# Go


def test_go_lines_of_a_block_and_its_closing_brace():
    profile = b"mode: count\nm/a.go:3.14,5.3 2 4\nm/a.go:5.3,7.2 1 0\nm/a.go:9.1,9.20 1 1\nm/a.go:9.20,9.30 1 0\n"
    # 3-5 hit; 5 also starts a missed block (partial); 6 missed; 7 is a closing brace in column 1:
    # not code. 9 holds a hit and a missed block: partial.
    assert parse(profile)[0] == {"m/a.go": [(3, 4, HIT), (4, 4, HIT), (5, 4, PARTIAL), (6, 0, MISS), (9, 1, PARTIAL)]}


def test_go_profiles_of_several_runs_count_a_block_once():
    run = b"m/a.go:1.1,1.9 1 0\nm/a.go:2.1,2.9 1 3\n"
    assert parse(b"mode: set\n" + run + b"mode: set\n" + run.replace(b" 0\n", b" 1\n"))[0] == {
        "m/a.go": [(1, 1, HIT), (2, 3, HIT)]
    }


def test_go_odd_lines_are_skipped_and_counted():
    profile = (
        b"mode: atomic\nm/a.go:19: calcP 100.0%\nm/a.go:0.1,1.2 1 1\ngarbage\nm/a.go:5.2,4.1 1 1\nm/a.go:2.1,2.5 1 1\n"
    )
    assert parse(profile) == (
        {"m/a.go": [(2, 1, HIT)]},
        {
            "lines that are not coverage blocks, skipped": 2,
            LINE_BELOW_ONE: 1,
            "blocks ending before they start, skipped": 1,
        },
    )


def test_go_refusals():
    with pytest.raises(ReportError, match="unknown mode"):
        parse(b"mode: sometimes\nm/a.go:1.1,1.9 1 0\n")
    with pytest.raises(ReportError, match="span too many lines"):
        parse(b"mode: set\n" + b"m/a.go:1.1,9999999.2 1 1\n" * 200)
    with pytest.raises(ReportError, match="no mode line and no block"):
        parse(b"hello\n", format="go")


# Istanbul


def istanbul(statements: dict, counts: dict, branches: dict | None = None, branch_counts: dict | None = None) -> bytes:
    entry = {"path": "/app/a.js", "statementMap": statements, "s": counts, "fnMap": {}, "f": {}}
    entry.update({"branchMap": branches or {}, "b": branch_counts or {}})
    return json.dumps({"/app/a.js": entry}).encode()


def loc(line: int, column: int = 0) -> dict:
    return {"start": {"line": line, "column": column}, "end": {"line": line, "column": column + 5}}


def test_istanbul_lines_take_the_largest_statement_count_and_branches_make_partials():
    data = istanbul(
        {"0": loc(1), "1": loc(1, 8), "2": loc(2), "3": loc(3), "4": {**loc(4), "skip": True}},
        {"0": 0, "1": 5, "2": 1, "3": 0, "4": 0},
        {"0": {"loc": loc(2), "type": "if", "locations": [loc(2), loc(2, 9)], "line": 2}},
        {"0": [1, 0]},
    )
    assert parse(data) == ({"app/a.js": [(1, 5, HIT), (2, 1, PARTIAL), (3, 0, MISS)]}, {})


def test_istanbul_odd_entries_are_skipped_and_counted():
    data = json.loads(istanbul({"0": loc(1), "1": {"start": {}}, "2": loc(2)}, {"0": 1, "1": 1, "2": "x"}))
    data["/app/b.js"] = [1, 2]
    data["/app/a.js"]["branchMap"] = {"0": {"loc": loc(1), "locations": []}}
    data["/app/a.js"]["b"] = {"0": "x"}
    assert parse(json.dumps(data).encode()) == (
        {"app/a.js": [(1, 1, HIT)]},
        {
            "statements without a readable line or count, skipped": 2,
            "branches without a readable line or counts, skipped": 1,
            "file entries that are not objects, skipped": 1,
        },
    )


# Clover


def clover(lines: str, name: str = "/app/src/a.php", root: str = '<coverage generated="1">') -> bytes:
    return (
        f'<?xml version="1.0"?>{root}<project timestamp="1"><file name="{name}">'
        f'<class name="A"><metrics statements="1"/></class>{lines}<metrics loc="20" statements="3"/></file>'
        '<metrics files="1" loc="999"/></project></coverage>'
    ).encode()


def test_clover_line_states_of_openclover_and_istanbul():
    lines = (
        '<line num="1" type="method" count="1"/><line num="2" type="stmt" count="0"/>'
        '<line num="3" type="cond" count="2" truecount="2" falsecount="0"/>'
        '<line num="4" type="cond" count="2" truecount="1" falsecount="1"/>'
        '<line num="5" type="cond" count="0" truecount="0" falsecount="0"/>'
    )
    # OpenClover: truecount/falsecount are how often the condition was true and false.
    assert parse(clover(lines, name="/app/a.java"))[0] == {
        "app/a.java": [(1, 1, HIT), (2, 0, MISS), (3, 2, PARTIAL), (4, 2, HIT), (5, 0, MISS)]
    }
    # Istanbul: they are the branch paths covered and not covered.
    istanbul_root = '<coverage generated="1" clover="3.2.0">'
    assert parse(clover(lines, name="/app/a.js", root=istanbul_root))[0] == {
        "app/a.js": [(1, 1, HIT), (2, 0, MISS), (3, 2, HIT), (4, 2, PARTIAL), (5, 0, MISS)]
    }


def test_clover_skips_what_codecov_skips_and_counts_it():
    lines = (
        '<line num="0" type="stmt" count="1"/><line num="3" type="stmt" count="2"/>'
        '<line num="25" type="stmt" count="1"/>'
    )
    assert parse(clover(lines)) == (
        {"app/src/a.php": [(3, 2, HIT)]},
        {LINE_BELOW_ONE: 1, "PHP lines past the file's end (loc), skipped": 1},
    )
    assert parse(clover(lines, name="/app/vendor/lib/b.php"))[1] == {"PHP files under vendor/, skipped": 1}
    assert parse(clover(lines, name="/app/{{template}}.js"))[1] == {"files whose name is a template ({), skipped": 1}


# gcov


GCOV = b"""        -:    0:Source:src/a.c
        -:    0:Graph:a.gcno
        -:    1:#include <stdio.h>
function f called 3 returned 100% blocks executed 80%
        3:    2:int f(int x)
        -:    3:{
        3:    4:    if (x > 0)
branch  0 taken 2 (fallthrough)
branch  1 taken 0
        2:    5:        return 1;
    #####:    6:    return 0;
    =====:    7:    g();
       1*:    8:    return x ? 1 : 2;
branch  0 taken 1
branch  1 taken 0
    #####:    9:static int unused(void) { return 0; }
        1:   10:    }
    #####:   11:    for (;;) {  // LCOV_EXCL_LINE
        -:   12:    /* LCOV_EXCL_START */
        1:   13:    h();
        -:   14:    /* LCOV_EXCL_STOP */
       x1:   15:    h();
"""


def test_gcov_text_follows_codecovs_rules():
    files, skips = parse(GCOV)
    # 3 "{" and 10 "}" are not code; 4 is an if with a branch not taken; 8's ternary is no if, for or
    # while (Codecov's default branch detection); 9 is an unused static function; 11 and 13 excluded.
    assert files == {"src/a.c": [(2, 3, HIT), (4, 3, PARTIAL), (5, 2, HIT), (6, 0, MISS), (7, 0, MISS), (8, 1, HIT)]}
    assert skips == {HITS_NOT_A_NUMBER: 1}


def test_gcov_files_one_after_the_other():
    two = (
        b"        -:    0:Source:a.c\n        1:    1:int a;\n"
        b"        -:    0:Source:/usr/include/b.h\n    #####:    2:int b;\n"
    )
    assert parse(two)[0] == {"a.c": [(1, 1, HIT)], "usr/include/b.h": [(2, 0, MISS)]}


# SonarQube


def test_sonarqube_line_states_and_odd_lines():
    report = (
        b'<coverage version="1"><file path="src/a.c">'
        b'<lineToCover lineNumber="1" covered="true"/><lineToCover lineNumber="2" covered="false"/>'
        b'<lineToCover lineNumber="3" covered="true" branchesToCover="2" coveredBranches="1"/>'
        b'<lineToCover lineNumber="4" covered="true" branchesToCover="2" coveredBranches="2"/>'
        b'<lineToCover lineNumber="0" covered="true"/><lineToCover lineNumber="5" covered="maybe"/>'
        b'</file><file path=""/></coverage>'
    )
    assert parse(report) == (
        {"src/a.c": [(1, 1, HIT), (2, 0, MISS), (3, 1, PARTIAL), (4, 1, HIT)]},
        {
            LINE_BELOW_ONE: 1,
            "lines whose covered is neither true nor false, skipped": 1,
            EMPTY_NAME: 1,
        },
    )


# SimpleCov


def test_simplecov_lines_and_odd_elements():
    lines = [None, 1, 0, "ignored", -1, 2.5, 3]
    resultset = {"RSpec": {"coverage": {"/app/a.rb": {"lines": lines}}, "timestamp": 1}}
    legacy = {"Minitest": {"coverage": {"/app/a.rb": lines}, "timestamp": 1}}
    # -1 is clamped to 0 and 2.5 rounded down, as every format reads counts.
    expected = {"app/a.rb": [(2, 1, HIT), (3, 0, MISS), (5, 0, MISS), (6, 2, HIT), (7, 3, HIT)]}
    for report in (resultset, legacy):
        assert parse(json.dumps(report).encode()) == (expected, {HITS_NEGATIVE: 1, HITS_DECIMAL: 1})


def test_simplecov_commands_of_one_resultset_are_merged():
    report = {
        "RSpec": {"coverage": {"/app/a.rb": {"lines": [1, 0]}}, "timestamp": 1},
        "Cucumber": {"coverage": {"/app/a.rb": {"lines": [0, 2]}}, "timestamp": 1},
    }
    assert parse(json.dumps(report).encode())[0] == {"app/a.rb": [(1, 1, HIT), (2, 2, HIT)]}


# Coveralls, Codecov JSON


def test_coveralls_lists_and_json_strings_and_odd_entries():
    report = {
        "service_name": "x",
        "source_files": [
            {"name": "a.c", "coverage": [None, 1, 0, "x", -2]},
            {"name": "b.c", "coverage": "[0, 3]"},
            {"name": "c.c"},
            {"name": "d.c", "coverage": "[not json"},
        ],
    }
    assert parse(json.dumps(report).encode()) == (
        {"a.c": [(2, 1, HIT), (3, 0, MISS), (5, 0, MISS)], "b.c": [(1, 0, MISS), (2, 3, HIT)]},
        {
            HITS_NOT_A_NUMBER: 1,
            HITS_NEGATIVE: 1,
            "file entries without a name or a readable coverage list, skipped": 2,
        },
    )


def test_codecov_json_shapes_and_coverages():
    report = {
        "coverage": {
            "a.py": {"1": 1, "2": 0, "3": "1/2", "4": "0/2", "5": "2/2", "6": True, "7": None, "8": "3", "9": -1},
            "b.py": [None, 4, 0],
            "c.py": {"lines": [None, 2]},
            "d.py": {"0": 1, "x": 1, "10": 1.5, "11": "half"},
            "e.py": 7,
        },
        "messages": {},
    }
    assert parse(json.dumps(report).encode()) == (
        {
            "a.py": [
                (1, 1, HIT),
                (2, 0, MISS),
                (3, 1, PARTIAL),
                (4, 0, MISS),
                (5, 2, HIT),
                (6, 1, PARTIAL),
                (8, 3, HIT),
            ],
            "b.py": [(1, 4, HIT), (2, 0, MISS)],
            "c.py": [(2, 2, HIT)],
            "d.py": [(10, 1, HIT)],
        },
        {
            LINE_NOT_A_NUMBER: 1,
            HITS_DECIMAL: 1,
            HITS_NOT_A_NUMBER: 1,
            "files whose lines are not an object or a list, skipped": 1,
        },
    )


def test_gcov_json_lines_branches_and_odd_entries():
    report = {
        "gcc_version": "12.2.0",
        "format_version": "1",
        "files": [
            {
                "file": "src/a.c",
                "lines": [
                    {"line_number": 1, "count": 2, "branches": [{"count": 2}, {"count": 0}]},
                    {"line_number": 2, "count": 2, "branches": [{"count": 1}, {"count": 1}]},
                    {"line_number": 3, "count": 0, "branches": []},
                    {"line_number": 0, "count": 1},
                    {"line_number": 4, "count": -1},
                ],
            },
            {"file": "src/b.c"},
        ],
    }
    assert parse(json.dumps(report).encode()) == (
        {"src/a.c": [(1, 2, PARTIAL), (2, 2, HIT), (3, 0, MISS)]},
        {
            "lines without a readable number or count, skipped": 2,
            "file entries without a name or a lines list, skipped": 1,
        },
    )


def test_llvm_export_lines_from_segments():
    segments = [
        [1, 10, 5, True, True, False],  # a function's region starts: line 1 counted 5
        [2, 4, 0, True, True, False],  # a region never run starts on line 2
        [2, 9, 5, True, False, False],  # and ends there: the wrapping count of 5 goes on
        [4, 1, 0, True, False, True],  # a gap region starts: line 4 keeps the count around it, 5 its 0
        [6, 1, 0, False, True, False],  # a skipped region (#if 0): line 6 is no code
        [7, 1, 1, True, True, False],
        [7, 3, 0, False, False, False],  # the end of the file's regions
        "odd",
    ]
    report = {
        "data": [
            {
                "files": [
                    {"filename": "/w/a.c", "segments": segments, "branches": [[7, 1, 7, 3, 1, 0, 0, 0, 4], ["x"]]},
                    {"filename": "/w/b.c"},
                ],
                "functions": [{"name": "f", "regions": [[1, 1, 2, 2, 1, 0, 0, 0]]}],
            }
        ],
        "type": "llvm.coverage.json.export",
        "version": "2.0.1",
    }
    # Line 2 starts a region never run but is wrapped by a counted one: the largest count (5) wins.
    assert parse(json.dumps(report).encode()) == (
        {"w/a.c": [(1, 5, HIT), (2, 5, HIT), (3, 5, HIT), (4, 5, HIT), (5, 0, MISS), (7, 1, PARTIAL)]},
        {
            "segments that are not numbers, skipped": 1,
            "branches that are not numbers, skipped": 1,
            "file entries without a filename or segments, skipped": 1,
        },
    )


def test_llvm_export_segments_spanning_too_many_lines_are_refused():
    report = {
        "data": [{"files": [{"filename": "a.c", "segments": [[1, 1, 1, True, True], [9_000_000, 1, 0, False, False]]}]}]
    }
    with pytest.raises(ReportError, match="span too many lines"):
        parse(json.dumps(report).encode())


def test_llvm_cov_show_rows():
    text = (
        b"/w/Sources/App/View.swift:\n"
        b"    1|       |import UIKit\n"
        b"    2|  1.50k|func f() {\n"
        b"    3|     2E|    g()\n"
        b"    4|      0|    h()\n"
        b"    5|      3|}\n"
        b"  ------------------\n"
        b"  | f:\n"
        b"  |    2|      1|func f() {\n"
        b"  ------------------\n"
        b"    6|      x|    odd()\n"
        b"\n"
        b"/w/Sources/App/Model.swift:\n"
        b"    1|      4|let a = b ? \x1b[0;41mc\x1b[0m : d\n"
    )
    assert parse(text) == (
        {
            "w/Sources/App/View.swift": [(2, 1500, HIT), (3, 2, HIT), (4, 0, MISS)],
            "w/Sources/App/Model.swift": [(1, 4, PARTIAL)],
        },
        {HITS_NOT_A_NUMBER: 1},
    )


def test_opencover_sequence_points_and_their_summary():
    # A hand-written sample in coverlet's shape (no .NET SDK in Debian): its own <Summary> counts.
    data = (TOOLS / "opencover/coverage.opencover.xml").read_bytes()
    summary = re.search(rb'numSequencePoints="(\d+)" visitedSequencePoints="(\d+)"', data)
    assert summary
    files, skips = parse(data)
    lines = files["build/Shapes/src/Shapes.cs"]  # C:\build\Shapes\src\Shapes.cs, separators and drive gone
    visited = [entry for entry in lines if entry[2] != MISS]
    assert len(visited) == int(summary.group(2))  # each visited point is one line
    assert len(lines) == int(summary.group(1)) + 1  # one point spans lines 25-26
    assert dict((n, state) for n, _, state in lines)[7] == PARTIAL  # bev 3 of bec 6
    assert dict((n, state) for n, _, state in lines)[24] == MISS  # bev 0 of bec 2
    assert skips == {}


def test_opencover_odd_points():
    data = (
        b'<CoverageSession><Modules><Module><Files><File uid="1" fullPath="a.cs"/></Files><Classes><Class><Methods>'
        b'<Method><FileRef uid="1"/><SequencePoints><SequencePoint vc="1" sl="0" el="0"/>'
        b'<SequencePoint vc="-1" sl="2" el="2"/><SequencePoint vc="1" sl="9" el="3"/>'
        b'<SequencePoint vc="1" sl="3" el="3" bec="2" bev="2"/></SequencePoints></Method>'
        b'<Method><FileRef uid="7"/><SequencePoints><SequencePoint vc="1" sl="1" el="1"/></SequencePoints></Method>'
        b"</Methods></Class></Classes></Module></Modules></CoverageSession>"
    )
    assert parse(data) == (
        {"a.cs": [(2, 0, MISS), (3, 2, HIT)]},
        {
            LINE_BELOW_ONE: 1,
            HITS_NEGATIVE: 1,
            "sequence points ending before they start or spanning over 1,000 lines, skipped": 1,
            "methods of a file not listed, skipped": 1,
        },
    )


def test_covr_elements_are_lines_from_zero():
    report = {
        "files": [{"name": "R/a.R", "coverage": [None, 1, 0, None, "x"]}, {"name": "R/b.R"}],
        "uploader": "R",
    }
    assert parse(json.dumps(report).encode()) == (
        {"R/a.R": [(1, 1, HIT), (2, 0, MISS)]},
        {HITS_NOT_A_NUMBER: 1, "file entries without a name or a coverage list, skipped": 1},
    )


# scoverage


def scoverage(statements: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?><scoverage statement-count="1" version="1.0"><packages>'
        '<package name="p"><classes><class name="p.A" filename="p/A.scala"><methods><method name="m"><statements>'
        f"{statements}</statements></method></methods></class></classes></package></packages></scoverage>"
    ).encode()


def test_scoverage_statements_of_a_line_decide_its_state():
    files, skips = parse(
        scoverage(
            '<statement source="/w/p/A.scala" line="1" invocation-count="2" branch="false" ignored="false"/>'
            '<statement source="/w/p/A.scala" line="1" invocation-count="5" branch="true" ignored="false"/>'
            '<statement source="/w/p/A.scala" line="2" invocation-count="3" branch="true" ignored="false"/>'
            '<statement source="/w/p/A.scala" line="2" invocation-count="0" branch="true" ignored="false"/>'
            '<statement source="/w/p/A.scala" line="3" invocation-count="0" branch="false" ignored="false"/>'
            '<statement source="/w/p/A.scala" line="3" invocation-count="0" branch="false" ignored="false"/>'
            '<statement source="/w/p/A.scala" line="4" invocation-count="0" branch="false" ignored="false"/>'
            '<statement source="/w/p/A.scala" line="4" invocation-count="9" branch="false" ignored="true"/>'
            '<statement source="/w/p/A.scala" line="5" invocation-count="9" ignored="true"/>'
            '<statement line="6" invocation-count="1"/>'  # no source: the class's filename
        )
    )
    assert files == {
        "w/p/A.scala": [(1, 5, HIT), (2, 3, PARTIAL), (3, 0, MISS), (4, 0, MISS)],
        "p/A.scala": [(6, 1, HIT)],
    }
    assert skips == {}


def test_scoverage_odd_statements_are_skipped_and_counted():
    files, skips = parse(
        scoverage(
            '<statement source="a.scala" line="0" invocation-count="1"/>'
            '<statement source="a.scala" line="x" invocation-count="1"/>'
            '<statement source="a.scala" line="2" invocation-count="-1"/>'
            '<statement source="a.scala" line="3" invocation-count="1.0"/>'
            '<statement source="a.scala" line="4" invocation-count="many"/>'
        ).replace(b'filename="p/A.scala"', b'filename=""')
        + b"",
    )
    assert files == {"a.scala": [(2, 0, MISS), (3, 1, HIT)]}
    assert skips == {LINE_BELOW_ONE: 1, LINE_NOT_A_NUMBER: 1, HITS_NEGATIVE: 1, HITS_DECIMAL: 1, HITS_NOT_A_NUMBER: 1}
    files, skips = parse(scoverage('<statement line="1" invocation-count="1"/>').replace(b'filename="p/A.scala"', b""))
    assert (files, skips) == ({}, {EMPTY_NAME: 1})


def test_scoverage_codecovs_sample_of_child_elements():
    # Codecov's own sample: a root <statements>, each field a child element.
    data = (
        b'<?xml version="1.0" ?><statements>'
        b"<statement><source>source.scala</source><line>1</line><branch>false</branch><count>1</count></statement>"
        b"<statement><source>source.scala</source><line>2</line><branch>true</branch><count>0</count>"
        b"<ignored>false</ignored></statement>"
        b"<statement><source>source.scala</source><line>10</line><branch>true</branch><count>0</count>"
        b"<ignored>true</ignored></statement>"
        b"<statement><source> source.scala </source><line>3</line><branch>false</branch><count>0</count></statement>"
        b"</statements>"
    )
    assert parse(data) == ({"source.scala": [(1, 1, HIT), (2, 0, MISS), (3, 0, MISS)]}, {})


# luacov


def test_luacov_counts_by_the_width_of_the_count_column():
    text = (
        b"==============================================================================\n"
        b"a.lua\n"
        b"==============================================================================\n"
        b"     -- a comment\n"
        b"  12 local t = {\n"
        b"        10\n"  # a table's row: no code, though Codecov reads 10 hits
        b"   1 }\n"
        b"***0 f()\n"
        b"\n"
        b"==============================================================================\n"
        b"b.lua\n"
        b"==============================================================================\n"
        b" 1 x()\r\n"
        b"==============================================================================\n"
        b"Summary\n"
        b"==============================================================================\n"
        b"\n"
        b"File  Hits Missed Coverage\n"
        b"a.lua 2    1      66.67%\n"
    )
    assert parse(text) == ({"a.lua": [(2, 12, HIT), (4, 1, HIT), (5, 0, MISS)], "b.lua": [(1, 1, HIT)]}, {})


def test_luacov_odd_rows_are_skipped_and_counted():
    text = b"=======\nx\n=======\n 1 a()\n=======\n\n=======\n 1 b()\n"
    assert parse(text, format="luacov") == ({"x": [(1, 1, HIT)]}, {EMPTY_NAME: 1})
    assert parse(b"stray\n=======\na.lua\n=======\n 1 a()\n", format="luacov") == (
        {"a.lua": [(1, 1, HIT)]},
        {"rows before the first file, skipped": 1},
    )
    with pytest.raises(ReportError, match="invalid hit count"):
        parse(b"=======\na.lua\n=======\n 99999999999999999999 a()\n")


# xccov


def test_xccov_functions_are_lines():
    functions = [
        {"lineNumber": 3, "executionCount": 4, "coveredLines": 2, "executableLines": 2},
        {"lineNumber": 8, "executionCount": 1, "coveredLines": 1, "executableLines": 3},
        {"lineNumber": 12, "executionCount": 0, "coveredLines": 0, "executableLines": 3},
        {"lineNumber": 0, "executionCount": 1},
        {"lineNumber": "9", "executionCount": 1},
        {"lineNumber": 20, "executionCount": -2},
    ]
    report = {
        "coveredLines": 3,
        "lineCoverage": 0.5,
        "targets": [
            {"name": "A.app", "files": [{"path": "/w/A/a.swift", "functions": functions}, {"path": "/w/A/b.swift"}]},
            {
                "name": "B.xctest",
                "files": [{"path": "/w/A/a.swift", "functions": [{"lineNumber": 12, "executionCount": 1}]}],
            },
        ],
        "executableLines": 6,
    }
    assert parse(json.dumps(report).encode()) == (
        {"w/A/a.swift": [(3, 4, HIT), (8, 1, PARTIAL), (12, 1, HIT), (20, 0, MISS)]},
        {
            LINE_BELOW_ONE: 1,
            HITS_NEGATIVE: 1,
            "functions whose line or count is not an integer, skipped": 1,
            "file entries without a path or a functions list, skipped": 1,
        },
    )


# Every format


NOT_THE_FORMAT = {
    "jacoco": b'<coverage line-rate="1"><packages/></coverage>',
    "clover": b"<report><package/></report>",
    "sonarqube": b'<coverage generated="1"/>',
    "istanbul": b"[1, 2]",
    "simplecov": b'"just a string"',
    "go": b"TN:\nSF:a.c\nend_of_record\n",
    "coveralls": b'{"files": []}',
    "codecov": b'{"coverage": [1, 2]}',
    "gcov_json": b'{"gcc_version": "12", "files": {"a.c": {}}}',
    "llvm": b'{"data": {"files": []}}',
    "xcode": b"",
    "opencover": b'<coverage line-rate="1"/>',
    "covr": b'{"files": {"a.R": {}}}',
    "gcov": b"",
    "scoverage": b'<coverage line-rate="1"/>',
    "luacov": b"",
    "xccov": b'{"targets": {"files": []}}',
    "dotcover": b'<coverage line-rate="1"/>',
    "flow": b'{"files": [{"name": "a.js"}]}',
    "elm": b'{"coverage": {"a.elm": [1]}}',
    "salesforce": b'{"name": "A", "lines": {"1": 1}}',
    "xcode_plist": b'<?xml version="1.0"?><plist version="1.0"><dict/></plist>',
    "dlst": b"1|2|int a;\n",
    "bullseye": b'<coverage line-rate="1"/>',
    "vscoverage": b'<coverage line-rate="1"/>',
    "gap": b'{"coverage": {"a.g": [1]}}',
    "mono": b'<coverage line-rate="1"><packages/></coverage>',
}


@pytest.mark.parametrize("format", sorted(NOT_THE_FORMAT))
def test_a_report_forced_into_a_format_it_is_not_is_refused_or_holds_nothing(format):
    # Refused with a clear error, or read as nothing at all: never another format's files.
    try:
        files, _ = parse(NOT_THE_FORMAT[format] or b"SF:a.c\nDA:1,1\nend_of_record\n", format=format)
    except ReportError as error:
        assert "\n" not in str(error)
    else:
        assert files == {}


@pytest.mark.parametrize(
    "format", ["cobertura", "jacoco", "clover", "sonarqube", "opencover", "scoverage", "dotcover", "bullseye"]
)
def test_an_xml_declaration_of_an_unknown_encoding_is_a_report_error(format):
    # expat asks Python for the codec, whose LookupError is no ReportError (and was a 500 for Cobertura).
    with pytest.raises(ReportError, match="^invalid XML report: its declaration names an unknown encoding$"):
        parse(b'<?xml version="1.0" encoding="TF-8"?><coverage/>', format=format)


SAMPLES = {
    "jacoco": "java/jacoco.xml",
    "go": "go/cover-count.out",
    "istanbul": "js/coverage-final.json",
    "clover": "js/clover.xml",
    "gcov": "c/shapes.c.gcov",
    "sonarqube": "c/gcovr-sonarqube.xml",
    "simplecov": "ruby/resultset.json",
    "coveralls": "c/gcovr-coveralls.json",
    "codecov": "codecov/coverage.json",
    "gcov_json": "c/shapes.gcov.json",
    "llvm": "llvm/export.json",
    "xcode": "llvm/show-color.txt",
    "opencover": "opencover/coverage.opencover.xml",
    "covr": "r/covr.json",
    "scoverage": "scala/scoverage.xml",
    "luacov": "lua/luacov.report.out",
    "xccov": "xcode/xccov-report.json",
    "dotcover": "dotcover/dotcover.xml",
    "flow": "flow/flow-coverage.json",
    "elm": "elm/codecov.json",
    "salesforce": "salesforce/test-result-codecoverage.json",
    "xcode_plist": "xcode/Action.xccoverage.plist",
    "dlst": "d/source-shapes.lst",
    "bullseye": "bullseye/coverage.xml",
    "vscoverage": "vscoverage/shapes.coveragexml",
    "gap": "gap/profile.coverage",
}


@pytest.mark.parametrize("format", sorted(SAMPLES))
def test_a_truncated_report_is_refused_or_read_in_part(format):
    # Cut anywhere: a ReportError, or lines of the whole report (a text report stops at its last whole
    # line, and that one's number or count may be cut short).
    data = (TOOLS / SAMPLES[format]).read_bytes()
    whole = {path: {line for line, _, _ in lines} for path, lines in parse(data, format=format)[0].items()}
    refused = 0
    for cut in range(1, len(data), max(1, len(data) // 50)):
        try:
            files, _ = parse(data[:cut], format=format)
        except ReportError:
            refused += 1
        else:
            for path, lines in files.items():
                if path in whole:
                    assert {line for line, _, _ in lines[:-1]} <= whole[path]
    assert refused or format in ("go", "gcov", "xcode", "luacov", "dlst")


@pytest.mark.parametrize("format", sorted(SAMPLES))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fuzzed_reports_give_files_or_a_report_error(format, data):
    # Real reports with bytes replaced, removed or repeated, NULs and invalid UTF-8 among them.
    report = bytearray((TOOLS / SAMPLES[format]).read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(report) - 1))
        action = data.draw(st.sampled_from(["replace", "delete", "repeat"]))
        if action == "replace":
            report[at : at + 1] = data.draw(
                st.sampled_from([b"\x00", b"\xff", b"-", b"9" * 30, b"{", b"<", b"\n", b'"'])
            )
        elif action == "delete":
            del report[at : at + data.draw(st.integers(1, 40))]
        else:
            report[at:at] = report[at : at + data.draw(st.integers(1, 200))] * 3
    try:
        for _path, lines in parse_report(bytes(report), format=format, skips=Skips()):
            assert all(line >= 1 for line, _, _ in lines)
    except ReportError as error:
        assert str(error) and "\n" not in str(error)
