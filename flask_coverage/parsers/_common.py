"""What every parser shares: the parsed-file record, the sanity limits and number checks."""

from __future__ import annotations

from typing import NamedTuple, NoReturn

from ..errors import ReportError
from ..lines import LineCoverage

#: Line numbers above this are refused: no real source file is ten million lines long, and a bound
#: keeps every consumer (file views, graphs) safe from a hostile report.
MAX_LINE_NUMBER = 10_000_000
#: Hit counts above this are refused as corrupt; anything that fits is stored saturated at 2**32-1.
MAX_REPORTED_HITS = 2**63 - 1


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


def _to_int(text: str) -> int | None:
    # Short decimal strings only: no "1_000", no "+1", no 5000-digit monsters to convert
    # (isdecimal() accepts exactly the digits int() accepts).
    stripped = text.strip()
    if stripped.startswith("-"):
        stripped = stripped[1:]
        sign = -1
    else:
        sign = 1
    if not stripped or len(stripped) > 20 or not stripped.isdecimal():
        return None
    return sign * int(stripped)


def _number_problem(text: str, limit: int) -> str | None:
    stripped = text.strip()
    digits = stripped[1:] if stripped.startswith("-") else stripped
    if not digits or not digits.isdecimal():
        return "not an integer"
    if stripped.startswith("-"):
        return "negative"
    if len(digits) > 20 or int(digits) > limit:
        return f"too large (the limit is {limit})"
    return None
