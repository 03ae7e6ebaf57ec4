"""The compiled reader of the JSON formats' lines (``_speedups/json_lines.c``) reads exactly as their
Python code: SimpleCov, Coveralls and covr lists of counts, Codecov JSON objects of lines. Each report
is parsed with the reader and without it (``_compiled`` None, as where no compiler built it): the same
files, lines, skips and errors, whatever odd values are mixed in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compiled_readers import skip_unless_built
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.parsers import Skips, codecov, coveralls, parse_report

DATA = Path(__file__).resolve().parent.parent / "data"


compiled = coveralls._compiled
needs_compiled = skip_unless_built("json_lines")

# Counts as the tools write them, mostly, and now and then an odd one.
PLAIN = st.none() | st.integers(0, 500)
ODD = st.sampled_from(
    [
        -1,
        -3,
        2**32 - 1,
        2**32,
        2**64,
        -(2**64),
        1.0,
        0.5,
        -2.5,
        True,
        False,
        "ignored",
        "ignore",
        "3",
        "",
        "\ud800",
        "é",
        [1],
        {},
    ]
)
COUNTS = st.lists(st.one_of(PLAIN, PLAIN, PLAIN, PLAIN, ODD), max_size=30)
NAMES = st.sampled_from(["a.rb", "lib/b.rb", "src/c.c", "a.rb", "d/e.R"])
# Codecov JSON: mostly increasing decimal keys and plain values, now and then an odd key or value.
CODECOV_KEYS = st.integers(1, 40).map(str) | st.sampled_from(
    ["0", "01", "a", "+2", " 3", "٣", "\ud800", "1\ud800", "99999999999", "10000001"]
)
CODECOV_VALUES = st.one_of(
    PLAIN,
    st.sampled_from(["1/2", "2/2", "0/3", "0/0", "10/3", "007", "0", "5", True, False, -1]),
    ODD,
    st.sampled_from(["-2", "1/2/3", "1/", "/2", "1234567890/1", "12345678901234567890", "n/a", -1.0]),
)


def _outcome(report: bytes, format: str) -> tuple[object, dict[str, int]]:
    skips = Skips()
    try:
        files = [(file.path, list(file.lines)) for file in parse_report(report, format=format, skips=skips)]
    except ReportError as exc:
        return str(exc), skips.counts
    return files, skips.counts


def _both_ways(report: bytes, format: str) -> None:
    with_reader = _outcome(report, format)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(coveralls, "_compiled", None)
        patch.setattr(codecov, "_compiled", None)
        python = _outcome(report, format)
    assert with_reader == python


def _list_report(format: str, files: list[tuple[str, Any]]) -> bytes:
    if format == "simplecov":
        return json.dumps({"RSpec": {"coverage": {name: {"lines": lines} for name, lines in files}}}).encode()
    if format == "coveralls":
        return json.dumps({"source_files": [{"name": name, "coverage": lines} for name, lines in files]}).encode()
    return json.dumps({"files": [{"name": name, "coverage": lines} for name, lines in files], "uploader": "R"}).encode()


@settings(max_examples=150, deadline=None)
@given(format=st.sampled_from(["simplecov", "coveralls", "covr"]), files=st.lists(st.tuples(NAMES, COUNTS), max_size=4))
def test_lists_of_counts_read_the_same_with_and_without_the_reader(format: str, files: list[tuple[str, Any]]) -> None:
    _both_ways(_list_report(format, files), format)


@settings(max_examples=200, deadline=None)
@given(
    files=st.lists(
        st.tuples(
            NAMES,
            st.dictionaries(CODECOV_KEYS, CODECOV_VALUES, max_size=20)
            | st.lists(CODECOV_VALUES, max_size=30).map(lambda values: {str(n): v for n, v in enumerate(values, 1)}),
        ),
        max_size=3,
    )
)
def test_codecov_objects_read_the_same_with_and_without_the_reader(files: list[tuple[str, dict[str, Any]]]) -> None:
    _both_ways(json.dumps({"coverage": dict(files)}).encode(), "codecov")


SAMPLES = [
    ("ruby/resultset.json", "simplecov"),
    ("c/gcovr-coveralls.json", "coveralls"),
    ("r/covr.json", "covr"),
    ("codecov/coverage.json", "codecov"),
]


@pytest.mark.parametrize(("name", "format"), SAMPLES, ids=[format for _, format in SAMPLES])
def test_every_prefix_of_a_real_report_reads_the_same_with_and_without_the_reader(name: str, format: str) -> None:
    data = (DATA / "tools" / name).read_bytes()
    for end in range(len(data) + 1):
        _both_ways(data[:end], format)


@needs_compiled
def test_the_reader_takes_the_well_formed_case() -> None:
    # Else the comparisons above would compare the Python code with itself.
    assert compiled is not None and codecov._compiled is compiled
    lines, hits, states = compiled.list_lines([None, 3, 0, "ignored", 2**40], 1)
    assert (len(lines), len(hits), states) == (12, 12, b"\x00\x01\x00")
    assert compiled.list_lines([7, 1, None], 0)[2] == b"\x00"  # element 0 is line 0: no line
    lines, hits, states = compiled.dict_lines({"2": "1/2", "3": "0/2", "5": -1, "7": True, "8": "4", "9": False})
    assert (len(lines), states) == (16, b"\x02\x01\x02\x00")


@needs_compiled
@pytest.mark.parametrize(
    "counts",
    [[1, -1], [1, 1.0], [True], ["3"], [None, [1]], ["ignore"], ["\ud800"], [2**70, -(2**70)]],
)
def test_the_reader_leaves_odd_lists_to_the_python_code(counts: list[Any]) -> None:
    assert compiled is not None and compiled.list_lines(counts, 1) is None


@needs_compiled
@pytest.mark.parametrize(
    "lines",
    [
        {"2": 1, "1": 1},
        {"0": 1},
        {"01": 1},
        {"a": None},
        {"1": -2},
        {"1": 1.0},
        {"1": "1/2/3"},
        {"1": "-1"},
        {"10000001": 1},
        {"1": "12345678901"},
        {"1": []},
        {"\ud800": 1},
        {"1": "\ud800"},
        {"1": "1/\ud800"},
        {"1": "é"},
    ],
)
def test_the_reader_leaves_odd_objects_to_the_python_code(lines: dict[str, Any]) -> None:
    assert compiled is not None and compiled.dict_lines(lines) is None


def test_both_readers_agree_on_the_benchmark_shapes() -> None:
    counts = [None if n % 11 == 0 else n % 3 for n in range(100)]
    for format in ("simplecov", "coveralls", "covr"):
        _both_ways(_list_report(format, [("a.rb", counts), ("b.rb", counts)]), format)
    _both_ways(
        json.dumps({"coverage": {"a.c": {str(n): "1/2" if n % 7 == 0 else n % 3 for n in range(1, 101)}}}).encode(),
        "codecov",
    )
