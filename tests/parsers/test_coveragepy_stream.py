"""coverage.py JSON read element by element: the same lines whatever the chunking, skipped sections
never built, hostile arrays stopped at their first bad element (docs/parsing.md)."""

from __future__ import annotations

import io
import json
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import Skips, _input, parse_report
from flask_coverage.parsers._json import SMALL_VALUE, TOO_LARGE, JsonStream

ENTRY = {
    "executed_lines": [1, 2, 3, 10, 11, 123456],
    "summary": {"covered_lines": 6, "percent_covered": 60.0, "note": 'a "quoted" \\ ] } [ { string'},
    "missing_lines": [4, 5],
    "excluded_lines": [],
    "executed_branches": [[2, 3]],
    "missing_branches": [[2, -1], [10, 12]],
    "functions": {"f": {"executed_lines": [1], "missing_lines": [], "contexts": {"1": ["t[1]", "{"]}}},
    "classes": {"": {"executed_lines": [1, 2], "excluded_lines": [[[[]]]]}},
}
EXPECTED = [
    (1, 1, HIT),
    (2, 1, PARTIAL),
    (3, 1, HIT),
    (4, 0, MISS),
    (5, 0, MISS),
    (10, 1, PARTIAL),
    (11, 1, HIT),
    (123456, 1, HIT),
]


def report(files: dict, indent: int | None = None) -> bytes:
    return json.dumps({"meta": {"format": 3}, "files": files}, indent=indent).encode()


@pytest.mark.parametrize("indent", [None, 1])
@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 20])
def test_lines_are_the_same_whatever_the_chunks(monkeypatch: pytest.MonkeyPatch, indent, chunk: int) -> None:
    monkeypatch.setattr(_input, "CHUNK_SIZE", chunk)
    data = report({"a.py": ENTRY, "b.py": {"executed_lines": list(range(1, 3000)), "missing_lines": []}}, indent)
    parsed = {f.path: list(f.lines) for f in parse_report(io.BytesIO(data))}
    assert parsed["a.py"] == EXPECTED
    assert [line for line, _, _ in parsed["b.py"]] == list(range(1, 3000))


BAD = {
    "trailing comma": (b'"executed_lines": [1, 2,]', "Expecting value"),
    "float": (b'"executed_lines": [1, 2.5]', "invalid line number '2.5'"),
    "string": (b'"missing_lines": ["3"]', "invalid line number '\"3\"'"),
    "boolean": (b'"executed_lines": [1, true]', "invalid line number 'true'"),
    "too big": (b'"executed_lines": [99999999999]', "invalid line number"),
    "not a list": (b'"executed_lines": 3', "executed_lines of 'a.py' is not a list"),
    "empty arc": (b'"missing_branches": [[], []]', r"bad branch '\[\]' in 'a.py'"),
    "unclosed skip": (b'"functions": {"f": [1, 2}', "unexpected '}'"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_entries(case: str) -> None:
    body, message = BAD[case]
    data = b'{"meta": {}, "files": {"a.py": {' + body + b"}}}"
    with pytest.raises(ReportError, match=message):
        list(parse_report(data))


def test_an_entry_that_is_not_an_object() -> None:
    with pytest.raises(ReportError, match="the entry of 'a.py' is not an object"):
        list(parse_report(b'{"meta": {}, "files": {"a.py": [1, 2, [3]]}}'))


def test_the_reviews_body_stops_at_the_first_bad_arc_with_little_memory() -> None:
    """50 MB of empty arcs (51 KB gzipped) took 1.4 GB when an entry was decoded whole."""
    data = b'{"files":{"x.py":{"executed_lines":[1],"missing_branches":[' + b"[]," * 5_000_000 + b'[]]}}, "meta": {}}'
    tracemalloc.start()
    try:
        with pytest.raises(ReportError, match="bad branch"):
            list(parse_report(io.BytesIO(data)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak


def test_skipped_sections_are_not_built() -> None:
    """A huge format-3 section next to the lines costs its scan, not its objects."""
    functions = {f"f{n}": {"executed_lines": list(range(1, 50)), "contexts": {}} for n in range(20_000)}
    data = report({"a.py": {"executed_lines": [1], "functions": functions, "missing_lines": [2]}})
    assert len(data) > 4_000_000
    tracemalloc.start()
    try:
        (parsed,) = parse_report(io.BytesIO(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert list(parsed.lines) == [(1, 1, HIT), (2, 0, MISS)]
    assert peak < 8 * 2**20, peak


# Line numbers as reports write them, odd ones included: 0 and below, too large, decimals, booleans,
# strings, nested lists, repeats (small numbers repeat often).
ODD_NUMBERS = st.one_of(
    st.integers(1, 40),
    st.integers(-3, 0),
    st.sampled_from([10_000_000, 10_000_001, 2**40, 1.0, 2.5, True, False, "3", None, [4]]),
)
ENTRIES = st.fixed_dictionaries(
    {},
    optional={
        "executed_lines": st.lists(st.integers(1, 40), max_size=30).map(sorted) | st.lists(ODD_NUMBERS, max_size=8),
        "missing_lines": st.lists(st.integers(1, 40), max_size=30).map(sorted) | st.lists(ODD_NUMBERS, max_size=8),
        "missing_branches": st.lists(st.lists(ODD_NUMBERS, min_size=1, max_size=3), max_size=6)
        | st.lists(st.tuples(st.integers(1, 40), st.integers(-1, 40)).map(list), max_size=10),
        "excluded_lines": st.lists(ODD_NUMBERS, max_size=4),
    },
)


def _outcome(data: bytes) -> tuple[object, dict[str, int]]:
    skips = Skips()
    try:
        return [list(f.lines) for f in parse_report(data, skips=skips)], skips.counts
    except ReportError as exc:
        return str(exc), skips.counts


@settings(max_examples=300, deadline=None)
@given(entry=ENTRIES)
def test_an_entry_decoded_whole_reads_as_when_walked(entry: dict) -> None:
    """The bulk conversion of a decoded entry (C-level builtins) gives the lines, the skips and the
    refusal of the element-by-element walk of an entry too large to decode."""
    data = report({"a.py": entry})
    whole = _outcome(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(JsonStream, "small_value", lambda self: TOO_LARGE)
        walked = _outcome(data)
    assert whole == walked


def test_an_entry_past_the_decoded_size_is_walked_to_the_same_lines() -> None:
    lines = list(range(1, 200_000))  # over SMALL_VALUE characters of text
    data = report({"big.py": {"executed_lines": lines[::2], "missing_lines": lines[1::2]}, "a.py": ENTRY})
    assert len(data) > 2 * SMALL_VALUE
    parsed = {f.path: list(f.lines) for f in parse_report(io.BytesIO(data))}
    assert parsed["big.py"] == [(n, n % 2, HIT if n % 2 else MISS) for n in lines]
    assert parsed["a.py"] == EXPECTED
