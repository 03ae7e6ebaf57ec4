"""The JSON formats' bulk conversions (C-level builtins over a decoded list or object) read exactly as
their element-by-element rules: the same lines, the same skips counted, the same refusals."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.parsers import Skips, coveralls

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
        patch.setattr(coveralls, "_bulk_lines", lambda counts, first: None)
        one_by_one = _outcome(lambda skips: coveralls.list_lines(counts, first, skips))
    assert bulk == one_by_one
