"""One number rule (``parsers/_common.py``: ``NUMBER_DIGITS``, ``LINE_DIGITS``, mirrored in
``_speedups/common.h``): every compiled reader and its Python reader read the same line numbers and
counts, whatever their length, leading zeros or size against the bounds."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Callable

import pytest
from compiled_readers import both_ways, read, require_built

from flask_coverage.parsers import _common, codecov, coveralls, gcov, go, lcov, xcode

# Numbers around every bound of the rule: digits, the line limit, 2**32 - 1 (stored), 2**63 - 1 (refused).
NUMBERS = sorted(
    {
        *(digit * length for digit in "19" for length in range(1, 25)),
        *("0" * zeros + "7" for zeros in (1, 7, 8, 19, 20)),
        "0",
        str(_common.MAX_LINE_NUMBER),
        str(_common.MAX_LINE_NUMBER + 1),
        str(2**32 - 1),
        str(2**32),
        str(2**63 - 1),
        str(2**63),
    },
    key=lambda text: (len(text), text),
)

REPORTS: dict[str, tuple[ModuleType, Callable[[str, str], str]]] = {
    "lcov": (lcov, lambda line, count: f"SF:a.c\nDA:{line},{count}\nDA:{line}0,1\nend_of_record\n"),
    "go": (go, lambda line, count: f"mode: count\na.go:{line}.1,{line}.9 1 {count}\n"),
    "gcov": (gcov, lambda line, count: f"        -:    0:Source:a.c\n{count:>9}:{line:>5}:  x();\n"),
    "xcode": (xcode, lambda line, count: f"/w/a.c:\n{line:>5}|{count:>7}|x\n"),
    "codecov": (codecov, lambda line, count: json.dumps({"coverage": {"a.c": {line: int(count), "1": count}}})),
    "coveralls": (
        coveralls,
        lambda line, count: json.dumps({"source_files": [{"name": "a.c", "coverage": [None, int(count)]}]}),
    ),
}


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_the_compiled_and_python_readers_share_the_number_rule(name: str) -> None:
    module, report = REPORTS[name]
    require_built(module)
    kept = refused = 0
    for line in NUMBERS:
        for count in NUMBERS:
            data = report(line, count).encode()
            compiled, python = both_ways(module, data)
            assert compiled == python, (line, count)
            kept += bool(compiled[0])
            refused += bool(compiled[2])
    # The numbers reach both sides of the bounds: some reports read, some refused (Coveralls has no
    # line numbers, and saturates its counts).
    assert kept and (refused or name == "coveralls")


@pytest.mark.parametrize("name", ["lcov", "gcov", "xcode"])
def test_a_line_number_is_read_by_value_within_the_number_rule(name: str) -> None:
    # Leading zeros up to NUMBER_DIGITS digits are the same line; the checked path decides past the fast path's digits.
    module, report = REPORTS[name]
    for digits in range(1, _common.NUMBER_DIGITS + 1):
        files, _, error = read(module, report("7".rjust(digits, "0"), "3").encode())
        assert not error and [line for line, _, _ in files[0][1]][0] == 7, digits
