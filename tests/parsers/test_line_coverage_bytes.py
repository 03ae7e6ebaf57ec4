"""LineCoverage.from_bytes, the compiled readers' way to a LineCoverage."""

from __future__ import annotations

from array import array

import pytest

from flask_coverage.lines import _U32, HIT, MISS, PARTIAL, LineCoverage


def test_from_bytes_equals_from_columns():
    lines, hits, states = [1, 2, 7], [3, 0, 1], bytes([HIT, MISS, PARTIAL])
    made = LineCoverage.from_bytes(array(_U32, lines).tobytes(), array(_U32, hits).tobytes(), states)
    assert made == LineCoverage.from_columns(lines, hits, states)
    assert list(made) == [(1, 3, HIT), (2, 0, MISS), (7, 1, PARTIAL)]


def test_from_bytes_checks_the_lengths():
    with pytest.raises(ValueError):
        LineCoverage.from_bytes(array(_U32, [1, 2]).tobytes(), array(_U32, [1]).tobytes(), b"\x00\x00")
    with pytest.raises(ValueError):  # not a whole number of 32-bit items
        LineCoverage.from_bytes(b"\x01\x00\x00", b"", b"")
