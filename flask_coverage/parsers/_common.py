"""What every parser shares: the parsed-file record, the sanity limits and number checks."""

from __future__ import annotations

import re
from typing import NamedTuple, NoReturn, Protocol

from ..errors import ReportError
from ..lines import LineCoverage


class SkipCounter(Protocol):
    """What the line readers below need of :class:`~flask_coverage.parsers._format.Skips`: to count a
    line skipped or clamped."""

    def add(self, reason: str, count: int = 1) -> None: ...


#: Line numbers above this are refused: no real source file is ten million lines long, and a bound
#: keeps every consumer (file views, graphs) safe from a hostile report.
MAX_LINE_NUMBER = 10_000_000
#: Hit counts above this are refused as corrupt; anything that fits is stored saturated at 2**32-1.
MAX_REPORTED_HITS = 2**63 - 1
#: The number rule every reader shares (mirrored in ``_speedups/common.h``): a number is decimal digits,
#: at most NUMBER_DIGITS of them (a longer one is never converted: it is not a number, or one too large,
#: as the reader's rule says); a line number fits in LINE_DIGITS, those of MAX_LINE_NUMBER. A fast path
#: takes a number of at most those digits and compares its value with the bounds; the checked path
#: (``line_number``, ``hit_count``) decides every other.
NUMBER_DIGITS = 20
LINE_DIGITS = len(str(MAX_LINE_NUMBER))

# The skip reasons the parsers share (docs/parsing.md): fixed phrases, counted per upload.
LINE_BELOW_ONE = "lines numbered 0 or less, skipped"
LINE_UNDEFINED = 'lines numbered "undefined", skipped'
LINE_NOT_A_NUMBER = "lines whose number is not an integer, skipped"
HITS_NOT_A_NUMBER = "lines whose hit count is not a number, skipped"
HITS_NEGATIVE = "negative hit counts, clamped to 0"
HITS_DECIMAL = "hit counts written as decimals, rounded down"
EMPTY_NAME = "files with an empty name, skipped"

# A decimal or exponent form of a number, short enough that float() is cheap and exact enough.
_DECIMAL = re.compile(r"-?[0-9]{1,20}(?:\.[0-9]{0,20})?(?:[eE][+-]?[0-9]{1,3})?|-?\.[0-9]{1,20}")


class ParsedFile(NamedTuple):
    """One file of a report: its repository-relative ``path`` and its line coverage."""

    path: str
    lines: LineCoverage


def quote(text: str, limit: int = 120) -> str:
    """``text`` for an error message: repr-escaped (control characters can't leak) and shortened."""
    if len(text) > limit:
        return repr(text[:limit]) + "..."
    return repr(text)


def bad_line_number(text: str, path: str) -> NoReturn:
    """Raise the ReportError that explains why ``text`` is not a usable line number."""
    reason = _number_problem(text, MAX_LINE_NUMBER)
    if reason == "negative" or reason is None:
        reason = "must be at least 1"
    raise ReportError(f"invalid line number {quote(text, 40)} in {quote(path)}: {reason}")


def bad_hit_count(text: str, line: object, path: str) -> NoReturn:
    """Raise the ReportError that explains why ``text`` is not a usable hit count."""
    reason = _number_problem(text, MAX_REPORTED_HITS) or "not an integer"
    raise ReportError(f"invalid hit count {quote(text, 40)} for line {line} of {quote(path)}: {reason}")


def check_line_number(value: object, path: str) -> int:
    """``value`` (int or text) as a line number in 1..MAX_LINE_NUMBER, else ReportError."""
    if type(value) is int:
        if 1 <= value <= MAX_LINE_NUMBER:
            return value
        bad_line_number(str(value), path)
    if isinstance(value, str):
        number = _to_int(value)
        if number is not None and 1 <= number <= MAX_LINE_NUMBER:
            return number
        bad_line_number(value, path)
    raise ReportError(f"invalid line number {quote(repr(value), 40)} in {quote(path)}")


def check_hit_count(text: str, line: object, path: str) -> int:
    """``text`` as a hit count in 0..MAX_REPORTED_HITS, else ReportError."""
    number = _to_int(text)
    if number is None or not 0 <= number <= MAX_REPORTED_HITS:
        bad_hit_count(text, line, path)
    return number


def line_number(text: str, path: str, skips: SkipCounter) -> int | None:
    """``text`` as a line number, or None for a line Codecov's processors skip (counted in ``skips``).

    Line 0 and below, ``undefined`` and anything else that is not an integer are skipped; a number
    above MAX_LINE_NUMBER is a ReportError (a bound, not an odd line).
    """
    stripped = text.strip()
    number = _to_int(stripped)
    if number is None:
        skips.add(LINE_UNDEFINED if stripped == "undefined" else LINE_NOT_A_NUMBER)
        return None
    if number < 1:
        skips.add(LINE_BELOW_ONE)
        return None
    if number > MAX_LINE_NUMBER:
        bad_line_number(text, path)
    return number


def json_line_number(value: object, path: str, skips: SkipCounter) -> int | None:
    """A JSON value (an integer, or an integer written as a string) as :func:`line_number` reads it;
    any other value is a line whose number is not an integer (skipped and counted)."""
    if type(value) is int:
        value = str(value)
    return line_number(value if isinstance(value, str) else "", path, skips)


def hit_count(text: str, line: object, path: str, skips: SkipCounter) -> int | None:
    """``text`` as a hit count, read as Codecov's processors read it, or None to skip the line.

    A negative count is clamped to 0, a decimal or exponent form (``1.0``, ``1e+0``) is rounded down,
    anything else that is not a number skips the line; each is counted in ``skips``. A count above
    MAX_REPORTED_HITS is a ReportError.
    """
    stripped = text.strip()
    number = _to_int(stripped)
    if number is None:
        if stripped.lstrip("-").isdecimal():
            bad_hit_count(text, line, path)  # too many digits
        if _DECIMAL.fullmatch(stripped) is None:
            skips.add(HITS_NOT_A_NUMBER)
            return None
        value = float(stripped)
        if value > MAX_REPORTED_HITS:
            bad_hit_count(text, line, path)
        if value >= 0:
            skips.add(HITS_DECIMAL)
            return int(value)
        number = -1
    if number < 0:
        skips.add(HITS_NEGATIVE)
        return 0
    if number > MAX_REPORTED_HITS:
        bad_hit_count(text, line, path)
    return number


def _to_int(text: str) -> int | None:
    # Short decimal strings only: no "1_000", no "+1", no 5000-digit monsters to convert
    # (isdecimal() accepts exactly the digits int() accepts).
    stripped = text.strip()
    if stripped.startswith("-"):
        stripped = stripped[1:]
        sign = -1
    else:
        sign = 1
    if not stripped or len(stripped) > NUMBER_DIGITS or not stripped.isdecimal():
        return None
    return sign * int(stripped)


def _number_problem(text: str, limit: int) -> str | None:
    stripped = text.strip()
    digits = stripped[1:] if stripped.startswith("-") else stripped
    if not digits or not digits.isdecimal():
        return "not an integer"
    if stripped.startswith("-"):
        return "negative"
    if len(digits) > NUMBER_DIGITS or int(digits) > limit:
        return f"too large (the limit is {limit})"
    return None
