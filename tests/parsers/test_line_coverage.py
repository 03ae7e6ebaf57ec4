"""LineCoverage: totals, the binary codec and the merge rules, checked against a plain-dict model."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.lines import (
    HIT,
    MAX_HITS,
    MISS,
    PARTIAL,
    LineCoverage,
    LineCoverageBuilder,
    Totals,
)

# Bounded so the suite stays fast; the properties are simple enough for a few hundred examples.
BOUNDED = settings(max_examples=200, deadline=None)

states = st.sampled_from([HIT, MISS, PARTIAL])
line_numbers = st.one_of(st.integers(1, 60), st.integers(1, 2**32 - 1))
hit_counts = st.one_of(st.integers(0, 5), st.integers(0, MAX_HITS))
entries = st.lists(st.tuples(line_numbers, hit_counts, states), max_size=60)


def model_merge(a: dict[int, tuple[int, int]], b: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """The merge rules, written the obvious way."""
    out = dict(a)
    for line, (hits, state) in b.items():
        if line not in out:
            out[line] = (hits, state)
            continue
        old_hits, old_state = out[line]
        if HIT in (state, old_state):
            merged = HIT
        elif PARTIAL in (state, old_state):
            merged = PARTIAL
        else:
            merged = MISS
        out[line] = (min(old_hits + hits, MAX_HITS), merged)
    return out


def as_model(coverage: LineCoverage) -> dict[int, tuple[int, int]]:
    return {line: (hits, state) for line, hits, state in coverage}


def model_of(raw: list[tuple[int, int, int]]) -> dict[int, tuple[int, int]]:
    model: dict[int, tuple[int, int]] = {}
    for line, hits, state in raw:
        model = model_merge(model, {line: (hits, state)})
    return model


@BOUNDED
@given(entries)
def test_entries_are_sorted_and_repeats_combined(raw):
    coverage = LineCoverage(raw)
    lines = [line for line, _, _ in coverage]
    assert lines == sorted(set(lines))
    assert as_model(coverage) == model_of(raw)


@BOUNDED
@given(entries)
def test_codec_round_trip(raw):
    coverage = LineCoverage(raw)
    encoded = coverage.encode()
    assert isinstance(encoded, bytes)
    assert LineCoverage.decode(encoded) == coverage


@BOUNDED
@given(entries, entries)
def test_merge_follows_the_rules(raw_a, raw_b):
    a, b = LineCoverage(raw_a), LineCoverage(raw_b)
    merged = a.merge(b)
    assert as_model(merged) == model_merge(model_of(raw_a), model_of(raw_b))
    assert merged == b.merge(a)


@BOUNDED
@given(entries, entries, entries)
def test_merge_is_associative(raw_a, raw_b, raw_c):
    a, b, c = LineCoverage(raw_a), LineCoverage(raw_b), LineCoverage(raw_c)
    assert a.merge(b).merge(c) == a.merge(b.merge(c))


@BOUNDED
@given(st.lists(st.tuples(st.integers(1, 200), hit_counts, states), max_size=60, unique_by=lambda e: e[0]), st.data())
def test_merge_of_the_same_lines(raw, data):
    # Same line set on both sides takes the vectorised path: it must agree with the model.
    other = [(line, data.draw(hit_counts), data.draw(states)) for line, _, _ in raw]
    a, b = LineCoverage(raw), LineCoverage(other)
    assert as_model(a.merge(b)) == model_merge(model_of(raw), model_of(other))


@BOUNDED
@given(entries)
def test_totals_count_states(raw):
    coverage = LineCoverage(raw)
    states_ = [state for _, _, state in coverage]
    totals = coverage.totals()
    assert totals == Totals(len(states_), states_.count(HIT), states_.count(MISS), states_.count(PARTIAL))


@BOUNDED
@given(st.binary(max_size=200))
def test_decode_refuses_garbage(blob):
    try:
        decoded = LineCoverage.decode(blob)
    except ValueError:
        return
    # The rare blob that decodes is a real encoding of what it decoded to.
    assert LineCoverage.decode(decoded.encode()) == decoded


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"\x02" + zlib.compress(b"\x00" * 4),
        b"\x01not zlib at all",
        b"\x01" + zlib.compress(b"\x01\x00"),  # too short for the line count
        b"\x01" + zlib.compress(b"\x01\x00\x00\x00" + b"\x01" * 8),  # one byte short
        b"\x01" + zlib.compress(b"\x01\x00\x00\x00" + b"\x01" * 9 + b"x"),  # one byte too many
        b"\x01" + zlib.compress(b"\x01\x00\x00\x00" + b"\x00" * 9),  # line number 0
        b"\x01" + zlib.compress(b"\x02\x00\x00\x00" + b"\x05\x00\x00\x00\x00\x00\x00\x00" + b"\x00" * 8 + b"\x00\x00"),
        b"\x01" + zlib.compress(b"\x01\x00\x00\x00" + b"\x01\x00\x00\x00" + b"\x00" * 4 + b"\x07"),  # state 7
        b"\x01" + zlib.compress(b"\x02\x00\x00\x00" + b"\xff\xff\xff\xff" * 2 + b"\x00" * 8 + b"\x00\x00"),
        b"\x01" + zlib.compress(b"\xff\xff\xff\xff"),  # claims four billion lines
        b"\x01" + zlib.compress(b"\x00\x00\x00\x00") + b"trailing",
    ],
)
def test_decode_refuses_corrupt_encodings(blob):
    with pytest.raises(ValueError, match="LineCoverage"):
        LineCoverage.decode(blob)


def test_encoding_is_compact():
    coverage = LineCoverage((line, 1, HIT) for line in range(1, 100_001))
    assert len(coverage.encode()) < 2_000


def test_merge_saturates_hits():
    a = LineCoverage([(1, MAX_HITS - 1, HIT)])
    assert list(a.merge(a)) == [(1, MAX_HITS, HIT)]
    assert list(LineCoverage([(1, MAX_HITS + 10, HIT)])) == [(1, MAX_HITS, HIT)]


def test_partial_stays_partial_unless_hit():
    partial = LineCoverage([(1, 2, PARTIAL), (2, 1, PARTIAL), (3, 0, MISS)])
    other = LineCoverage([(1, 0, MISS), (2, 3, HIT), (3, 1, PARTIAL), (4, 0, MISS)])
    assert list(partial.merge(other)) == [(1, 2, PARTIAL), (2, 4, HIT), (3, 1, PARTIAL), (4, 0, MISS)]


def test_builder_marks_partial_lines():
    builder = LineCoverageBuilder()
    for line, hits in [(1, 1), (2, 0), (3, 4)]:
        builder.add(line, hits, HIT if hits else MISS)
    assert list(builder.build(partial_lines={2, 3, 9})) == [(1, 1, HIT), (2, 0, MISS), (3, 4, PARTIAL)]


@pytest.mark.parametrize(("line", "hits", "state"), [(0, 1, HIT), (1, -1, HIT), (1, 1, 3), (2**32, 1, HIT)])
def test_builder_refuses_bad_values(line, hits, state):
    with pytest.raises(ValueError):
        LineCoverageBuilder().add(line, hits, state)


@pytest.mark.parametrize(
    ("hits", "lines", "coverage"),
    [(2, 3, 66.66), (1, 3, 33.33), (0, 0, 0.0), (0, 5, 0.0), (5, 5, 100.0), (1, 7, 14.28), (9999, 10000, 99.99)],
)
def test_coverage_is_rounded_down(hits, lines, coverage):
    assert Totals.from_counts(hits, lines - hits, 0).coverage == coverage


@BOUNDED
@given(st.integers(0, 10**9), st.integers(0, 10**9), st.integers(0, 10**9))
def test_coverage_never_rounds_up(hits, misses, partials):
    totals = Totals.from_counts(hits, misses, partials)
    if totals.lines:
        assert totals.coverage <= hits / totals.lines * 100 + 1e-9
        assert totals.coverage == int(totals.coverage * 100 + 0.5) / 100


def test_totals_add_up():
    a, b = Totals.from_counts(1, 2, 3), Totals.from_counts(10, 20, 30)
    assert a + b == Totals(66, 11, 22, 33)
    assert sum([a, b]) == sum([a, b], Totals()) == a + b


def test_totals_must_be_consistent():
    with pytest.raises(ValueError):
        Totals(5, 1, 1, 1)
    with pytest.raises(ValueError):
        Totals(-1, -1, 0, 0)


def test_empty_coverage():
    empty = LineCoverage()
    assert len(empty) == 0 and list(empty) == []
    assert empty.totals() == Totals()
    assert LineCoverage.decode(empty.encode()) == empty
    other = LineCoverage([(1, 1, HIT)])
    assert empty.merge(other) == other == other.merge(empty)


def test_builder_starts_over_after_build():
    builder = LineCoverageBuilder()
    builder.add(5, 1, HIT)
    first = builder.build()
    builder.add(2, 0, MISS)
    builder.add(1, 0, MISS)
    assert list(first) == [(5, 1, HIT)]
    assert list(builder.build()) == [(1, 0, MISS), (2, 0, MISS)]


@BOUNDED
@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, MAX_HITS), st.sampled_from([HIT, MISS, PARTIAL]))))
def test_dense_unordered_entries_follow_the_same_rules(raw):
    """Many entries over few line numbers (a hostile report's repeats) take the dense path: same result."""
    builder = LineCoverageBuilder()
    for entry in [*raw, *raw[::-1]]:
        builder.add(*entry)
    assert as_model(builder.build()) == model_of([*raw, *raw[::-1]])
