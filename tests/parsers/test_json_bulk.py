"""The JSON formats' bulk conversions (C-level builtins over a decoded list or object) read exactly as
their element-by-element rules: the same lines, the same skips counted, the same refusals."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.parsers import Skips, codecov, coveralls, parse_report

# Counts as the tools write them, and the odd ones: null, negative, huge, decimals, booleans, strings.
COUNTS = st.one_of(
    st.none(),
    st.integers(0, 300),
    st.sampled_from([-1, -7, 2**32 - 1, 2**32, 2**63, 1.0, 2.5, -0.5, True, False, "ignored", "3", [1], {}]),
)
PLAIN_COUNTS = st.lists(st.none() | st.integers(0, 1000), max_size=60)


def _outcome(read: Callable[[Skips], Any]) -> tuple[object, dict[str, int]]:
    skips = Skips()
    try:
        return list(read(skips)), skips.counts
    except ReportError as exc:
        return str(exc), skips.counts


@settings(max_examples=300, deadline=None)
@given(counts=st.lists(COUNTS, max_size=40) | PLAIN_COUNTS, first=st.integers(-2, 3))
def test_a_list_of_counts_reads_as_one_count_at_a_time(counts: list[Any], first: int) -> None:
    bulk = _outcome(lambda skips: coveralls.list_lines(counts, first, skips))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(coveralls, "_compiled", None)
        one_by_one = _outcome(lambda skips: coveralls.list_lines(counts, first, skips))
    assert bulk == one_by_one


# Codecov JSON: line keys (decimal or not, zero, leading zeros, repeats once parsed) and coverage values.
LINE_KEYS = st.integers(0, 60).map(str) | st.sampled_from(["01", "a", " 2", "+3", "-1", "1.0", "", "٣", "0" * 20 + "1"])
CODECOV_VALUES = COUNTS | st.sampled_from(["1/2", "2/2", "0/3", "10/3", "7", "0", "-2", "1/0", "n/a", None, -1, 2**40])


@settings(max_examples=300, deadline=None)
@given(
    lines=st.dictionaries(LINE_KEYS, CODECOV_VALUES, max_size=25)
    | st.lists(st.integers(0, 9), max_size=40).map(lambda hits: {str(n): h for n, h in enumerate(hits, 1)})
)
def test_a_codecov_object_of_lines_reads_as_one_line_at_a_time(lines: dict[str, Any]) -> None:
    report = json.dumps({"coverage": {"a.c": lines}}).encode()

    def parse(skips: Skips) -> list[Any]:
        return [list(file.lines) for file in parse_report(report, format="codecov", skips=skips)]

    bulk = _outcome(parse)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codecov, "_compiled", None)
        one_by_one = _outcome(parse)
    assert bulk == one_by_one
