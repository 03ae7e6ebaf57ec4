"""The regular expressions of a ``codecov.yml`` (its path and branch patterns once coerced, a
component's ``flag_regexes``, the ``before`` of its ``fixes``): compiled in one place, by RE2, which
the validator asks too, and matched by :func:`matches`. Pure: no Flask, no database.

Anyone who can push a ``codecov.yml`` writes these patterns, and each is run against every path of
every upload. Python's ``re`` backtracks: ``(a+)+$`` against thirty ``a`` and a ``!`` takes minutes.
RE2 (``google-re2``) runs in time linear in the text, whatever the pattern; what it cannot run that
way (backreferences, lookahead and lookbehind, atomic groups, possessive quantifiers) it refuses, and
so does the validator (docs/pull-requests.md, "Patterns run in linear time").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Optional, Protocol

import re2

#: A regular expression of a path or branch pattern is at most this long.
MAX_PATTERN = 1000
#: Patterns kept compiled (a repository's YAML has a few dozen; statuses match each against every file).
_CACHED = 1024

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refused pattern is the validator's answer, not a line on stderr
_OPTIONS.never_capture = True  # only whether and where a pattern matches is read, never a group


class Compiled(Protocol):
    """A compiled pattern: ``match`` anchors at the start of ``text``, as ``re``'s does."""

    def match(self, text: str) -> Optional[Any]: ...


class PatternError(ValueError):
    """A pattern that cannot be used; the message says why, to be shown after the pattern's key."""


def _re2_syntax(pattern: str) -> str:
    r"""``pattern`` with ``\Z`` (Python's end of text, which the coerced globs end with) as RE2 spells it, ``\z``."""
    out = []
    escaped = False
    for char in pattern:
        out.append("z" if escaped and char == "Z" else char)
        escaped = not escaped and char == "\\"
    return "".join(out)


@lru_cache(maxsize=_CACHED)
def _compiled(pattern: str) -> Compiled:
    """The one place a pattern of a ``codecov.yml`` is compiled."""
    try:
        return re2.compile(_re2_syntax(pattern), _OPTIONS)
    except re2.error as error:
        raise PatternError(_refusal(pattern, error)) from None


def _refusal(pattern: str, error: Exception) -> str:
    reason = error.args[0].decode("utf-8", "replace") if isinstance(error.args[0], bytes) else str(error)
    try:
        re.compile(pattern)  # never run: only tells a construct RE2 refuses from a broken pattern
    except re.error:
        return f"is not a valid regular expression: {reason}"
    return (
        f"is not a regular expression RE2 runs ({reason}): every pattern must run in linear time, so "
        "backreferences, lookahead, lookbehind, atomic groups and possessive quantifiers are refused"
    )


def compile_pattern(pattern: str) -> Compiled:
    """``pattern`` compiled by RE2, or :class:`PatternError` (too long, or not RE2's syntax)."""
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"is longer than {MAX_PATTERN} characters")
    return _compiled(pattern)


def any_match(patterns: Sequence[str]) -> Callable[[str], bool]:
    """Whether some of ``patterns`` (each valid) matches at the start of a value: one RE2 pass over the
    value for all of them, or one per pattern when together they are past RE2's memory bound."""
    if not patterns:
        return lambda value: False
    try:
        together = _compiled("|".join(f"(?:{pattern})" for pattern in patterns))
    except PatternError:
        each = [compile_pattern(pattern) for pattern in patterns]
        return lambda value: any(pattern.match(value) for pattern in each)
    return lambda value: together.match(value) is not None


@dataclass(frozen=True)
class PatternFilter:
    """Coerced patterns (path or branch) as :func:`matches` reads them, compiled once: ``excluded``
    by the ``!`` ones (without their ``!``), ``included`` by the plain ones (``None`` without any)."""

    included: Optional[Callable[[str], bool]]
    excluded: Callable[[str], bool]

    def passes(self, value: str) -> bool:
        if self.excluded(value):
            return False
        return self.included is None or self.included(value)


@lru_cache(maxsize=_CACHED)
def pattern_filter(patterns: tuple[str, ...]) -> PatternFilter:
    """The :class:`PatternFilter` of coerced patterns."""
    positive = [pattern for pattern in patterns if not pattern.startswith("!")]
    negative = [pattern[1:] for pattern in patterns if pattern.startswith("!")]
    return PatternFilter(any_match(positive) if positive else None, any_match(negative))


def matches(patterns: Optional[Sequence[str]], value: str) -> bool:
    """Whether ``value`` passes coerced patterns (path or branch): no list passes everything; a
    ``!`` pattern that matches excludes; otherwise some plain pattern must match (if there is one)."""
    return not patterns or pattern_filter(tuple(patterns)).passes(value)
