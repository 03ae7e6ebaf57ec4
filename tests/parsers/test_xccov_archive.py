"""Xcode's per-line archive JSON (``xcrun xccov view --archive --json``, ``parsers/xccov_archive.py``):
the hand-written sample, the line-state rule, skips, errors, detection, fuzzed and truncated input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import Skips, detect_format, merge_by_path, parse_report
from flask_coverage.parsers._common import EMPTY_NAME, HITS_NEGATIVE, LINE_BELOW_ONE
from flask_coverage.parsers._json import SMALL_VALUE
from flask_coverage.parsers.xccov_archive import (
    NOT_A_LIST,
    NOT_AN_INTEGER,
    NOT_AN_OBJECT,
    NOT_EXECUTABLE_FLAG,
    ODD_SUBRANGE,
)

XCODE = Path(__file__).parent.parent / "data" / "tools" / "xcode"
ROOT = "/Users/runner/work/shapes/shapes"


def parse(data: bytes, **options: Any) -> tuple[dict[str, list[tuple[int, int, int]]], dict[str, int]]:
    skips = Skips()
    files = merge_by_path(parse_report(data, format="xccov_archive", skips=skips, **options))
    return {path: list(lines) for path, lines in files.items()}, skips.counts


def line(number: Any, count: Any = None, *subranges: Any, executable: Any = True) -> dict[str, Any]:
    entry = {"line": number, "isExecutable": executable, "executionCount": count}
    if subranges:
        entry["subranges"] = [{"column": 1, "length": 2, "executionCount": sub} for sub in subranges]
    return entry


def test_the_sample_agrees_with_xcodes_own_report_of_the_same_run():
    # Both hand-written in Apple's shapes (no Xcode here): the per-line archive's executable and
    # covered lines (HIT or PARTIAL) are the report's executableLines and coveredLines of each file.
    files, skips = parse((XCODE / "xccov-archive.json").read_bytes(), root=ROOT)
    report = json.loads((XCODE / "xccov-report.json").read_text())
    expected = {
        entry["path"][len(ROOT) + 1 :]: (entry["executableLines"], entry["coveredLines"])
        for target in report["targets"]
        for entry in target["files"]
    }
    assert {
        path: (len(lines), sum(state != MISS for _, _, state in lines)) for path, lines in files.items()
    } == expected
    assert not skips
    shapes = dict((number, state) for number, _, state in files["Sources/Shapes/Shapes.swift"])
    assert [number for number, state in shapes.items() if state == PARTIAL] == [5, 28]
    assert detect_format((XCODE / "xccov-archive.json").read_bytes()) == "xccov_archive"


def test_a_line_is_partial_when_some_of_its_parts_ran_and_some_did_not():
    report = {
        "/w/A.swift": [
            line(1, 3),
            line(2, 0),
            line(3, 3, 0),  # ran, a subrange did not
            line(4, 3, 2, 1),  # every part ran
            line(5, 0, 0),  # nothing ran
            line(6, 0, 4),  # the start did not run, a subrange did
            line(7, 2, 1, 0),
            {"line": 8, "isExecutable": True, "executionCount": 1, "subranges": []},
            {"line": 9, "isExecutable": False},
            {"line": 10, "isExecutable": False, "executionCount": None, "subranges": []},
        ]
    }
    files, skips = parse(json.dumps(report).encode())
    assert files == {
        "w/A.swift": [
            (1, 3, HIT),
            (2, 0, MISS),
            (3, 3, PARTIAL),
            (4, 3, HIT),
            (5, 0, MISS),
            (6, 0, PARTIAL),
            (7, 2, PARTIAL),
            (8, 1, HIT),
        ]
    }
    assert skips == {}


def test_odd_entries_are_skipped_and_counted():
    report = {
        "": [line(1, 1)],
        "/w/list.swift": {"line": 1},
        "/w/A.swift": [
            "a line",
            line(1, 1, executable="yes"),
            line(2, None),  # executable without a count
            line(3, 1.5),
            line("4", 1),
            line(True, 1),
            line(0, 1),
            line(5, -2),
            line(6, 2, "x", -1),
            {"line": 7, "isExecutable": True, "executionCount": 1, "subranges": {"column": 1}},
            {"line": 8, "isExecutable": True, "executionCount": 0, "subranges": [None]},
            line(9, 1, executable=None),
        ],
        "/w/none.swift": [line(1, executable=False)],
    }
    files, skips = parse(json.dumps(report).encode())
    assert files == {
        "w/A.swift": [(5, 0, MISS), (6, 2, PARTIAL), (7, 1, HIT), (8, 0, MISS)],
        "w/none.swift": [],
    }
    assert skips == {
        EMPTY_NAME: 1,
        NOT_A_LIST: 1,
        NOT_AN_OBJECT: 1,
        NOT_EXECUTABLE_FLAG: 2,
        NOT_AN_INTEGER: 4,
        LINE_BELOW_ONE: 1,
        HITS_NEGATIVE: 2,
        ODD_SUBRANGE: 3,
    }


@pytest.mark.parametrize(
    ("report", "message"),
    [
        (b'{"a.swift": [{"line": 10000001, "isExecutable": true, "executionCount": 1}]}', "line"),
        (b'{"a.swift": [{"line": 1, "isExecutable": true, "executionCount": 99999999999999999999}]}', "count"),
        (b'[{"line": 1}]', "object of files"),
        (b'{"a.swift": [{"line": 1, "isExecutable": true', "truncated"),
        (b'{"a.swift": []} []', "after the report"),
        (b'{"../a.swift": []}', "climbs out"),
    ],
)
def test_bad_reports_are_refused(report, message):
    with pytest.raises(ReportError, match=message):
        parse(report)


def test_a_file_too_long_to_decode_whole_is_read_a_line_at_a_time():
    lines = [line(n, n % 3, *([0] if n % 5 == 0 else [])) for n in range(1, 6001)]
    lines[7] = "odd"
    data = json.dumps({"/w/big.swift": lines, "/w/small.swift": lines[:10]}).encode()
    assert len(data) > 2 * SMALL_VALUE
    files, skips = parse(data)
    expected = [
        (n, n % 3, PARTIAL if n % 5 == 0 and n % 3 else MISS if not n % 3 else HIT) for n in range(1, 6001) if n != 8
    ]
    assert files == {"w/big.swift": expected, "w/small.swift": expected[:9]}
    assert skips == {NOT_AN_OBJECT: 2}


LINES = st.one_of(
    st.builds(
        line,
        st.integers(-1, 30),
        st.one_of(st.integers(-2, 5), st.none(), st.just(1.0), st.just("3")),
        *[st.integers(-1, 3)] * 2,
        executable=st.sampled_from([True, True, True, False, None, 1]),
    ),
    st.builds(lambda n: {"line": n, "isExecutable": False}, st.integers(1, 30)),
    st.sampled_from([None, [], "line", 7, {"line": 1}]),
)


@settings(max_examples=200, deadline=None)
@given(files=st.dictionaries(st.sampled_from(["/w/a.swift", "/w/b.swift", "", " ", "c.swift"]), st.lists(LINES)))
def test_generated_reports_give_files_and_counts_or_a_report_error(files):
    # Whatever the lines, one file per name (an empty name skipped), tracked lines only where the
    # line was executable with integer line and count, in order, without repeats.
    result, skips = parse(json.dumps(files).encode())
    named = {name for name in files if name.strip()}
    assert len(result) == len(named)
    for lines in result.values():
        numbers = [number for number, _, _ in lines]
        assert numbers == sorted(set(numbers)) and all(number >= 1 for number in numbers)
        assert all(state in (HIT, MISS, PARTIAL) for _, _, state in lines)
    tracked = sum(len(lines) for lines in result.values())
    written = sum(
        1
        for name, lines in files.items()
        if name.strip()
        for entry in lines
        if type(entry) is dict and entry.get("isExecutable") is True
    )
    assert tracked <= written


def test_every_prefix_of_the_sample_is_refused_or_read_in_part():
    data = (XCODE / "xccov-archive.json").read_bytes()
    whole, _ = parse(data, root=ROOT)
    for cut in range(0, len(data), max(1, len(data) // 200)):
        try:
            files, _ = parse(data[:cut], root=ROOT)
        except ReportError as error:
            assert "\n" not in str(error)
        else:
            for path, lines in files.items():
                assert set(lines) <= set(whole[path])


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fuzzed_samples_give_files_or_a_report_error(data):
    report = bytearray((XCODE / "xccov-archive.json").read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(report) - 1))
        report[at : at + data.draw(st.integers(0, 3))] = data.draw(st.binary(max_size=3))
    try:
        parse(bytes(report), root=ROOT)
    except ReportError as error:
        assert "\n" not in str(error)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'{"\\/w\\/A.swift" : [\n  {\n    "line" : 1,\n    "isExecutable" : false\n  }', "xccov_archive"),
        (
            b'{"/w/A.swift": [], "/w/B.swift": [{"line": 1, "isExecutable": true, "executionCount": 0}]}',
            "xccov_archive",
        ),
        # Istanbul's object of files, Codecov's and xccov's report: not the archive.
        (b'{"/w/a.js": {"path": "/w/a.js", "statementMap": {"0": {}}, "s": {"0": 1}}}', "istanbul"),
        (b'{"coverage": {"a.py": [null, 1, 0]}}', "codecov"),
        (b'{"coveredLines": 1, "lineCoverage": 1, "targets": [{"files": [], "executableLines": 1}]}', "xccov"),
    ],
)
def test_detection(head, expected):
    assert detect_format(head) == expected


def test_a_list_of_objects_without_isexecutable_is_not_the_archive():
    with pytest.raises(ReportError, match="unknown report format"):
        detect_format(b'{"items": [{"line": 1, "count": 2}]}')
