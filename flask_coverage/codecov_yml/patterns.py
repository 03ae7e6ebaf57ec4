"""The regular expressions of a ``codecov.yml`` (its path and branch patterns once coerced, a
component's ``flag_regexes``, the ``before`` of its ``fixes``): compiled in one place,
:func:`compile_pattern`, which the validator asks too, and matched by :func:`matches`. Pure: no
Flask, no database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Optional

#: A regular expression of a path or branch pattern is at most this long.
MAX_PATTERN = 1000
#: A compiled pattern.
Compiled = re.Pattern[str]
#: Patterns kept compiled (a repository's YAML has a few dozen; statuses match each against every file).
_CACHED = 1024


class PatternError(ValueError):
    """A pattern that cannot be used; the message says why, to be shown after the pattern's key."""


@lru_cache(maxsize=_CACHED)
def compile_pattern(pattern: str) -> Compiled:
    """``pattern`` compiled, or :class:`PatternError`."""
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"is longer than {MAX_PATTERN} characters")
    try:
        return re.compile(pattern)
    except re.error as error:
        raise PatternError(f"is not a valid regular expression: {error}") from None


def matches(patterns: Optional[list[str]], value: str) -> bool:
    """Whether ``value`` passes coerced patterns (path or branch): no list passes everything; a
    ``!`` pattern that matches excludes; otherwise some plain pattern must match (if there is one)."""
    if not patterns:
        return True
    return passes(*split(patterns), value)


def split(patterns: Iterable[str]) -> tuple[list[Compiled], list[Compiled]]:
    """Coerced patterns compiled: the plain ones, and the ``!`` ones without their ``!``."""
    positive = [compile_pattern(pattern) for pattern in patterns if not pattern.startswith("!")]
    negative = [compile_pattern(pattern[1:]) for pattern in patterns if pattern.startswith("!")]
    return positive, negative


def passes(positive: list[Compiled], negative: list[Compiled], value: str) -> bool:
    """Whether ``value`` passes patterns :func:`split` compiled (as :func:`matches` says)."""
    if any(pattern.match(value) for pattern in negative):
        return False
    return not positive or any(pattern.match(value) for pattern in positive)
