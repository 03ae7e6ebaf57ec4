"""The one rule for names that may be stored and shown: owners, repositories, branches, token names, paths.

A name must not hold a character that is invisible or changes how the text around it reads: C0 and C1
control characters (Unicode category Cc, e.g. NUL, newline, U+0085), format characters (Cf: the
bidirectional controls such as U+202E, zero-width characters, the byte order mark), line and paragraph
separators (Zl, Zp: U+2028, U+2029) and lone surrogates (Cs, which no database can store). The report
parsers, the upload endpoint, the CLI and the Python API refuse such names with one message; every
lookup (the APIs, the graphs, the file view) treats them as names that cannot exist. So what is stored
can always be looked up and shown. See docs/parsing.md ("Paths").
"""

from __future__ import annotations

import re
import unicodedata
from typing import Optional

from .errors import InvalidInput

__all__ = ["MAX_NAME_LENGTH", "REFUSED", "check_name", "is_storable", "refusal", "refused_character"]

#: Owner, repository and branch names are at most this long.
MAX_NAME_LENGTH = 255
#: What the message of a refused name says, after the name of the thing refused.
REFUSED = "must not contain control, format (bidirectional, zero-width) or line-separator characters"

_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def refused_character(value: str) -> Optional[str]:
    """The first character of ``value`` that the rule refuses, or ``None`` if there is none."""
    if value.isascii():  # nearly every name: one regular-expression scan
        found = _ASCII_CONTROL.search(value)
        return found.group() if found else None
    for char in value:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            return char
    return None


def refusal(what: str, char: str) -> str:
    """The one message for ``what`` holding the refused character ``char``."""
    return f"{what} {REFUSED} (it holds U+{ord(char):04X})"


def is_storable(value: Optional[str], max_length: int = MAX_NAME_LENGTH) -> bool:
    """Whether ``value`` could be a stored name: not empty, at most ``max_length`` long, no refused character.

    Lookups check it first, so that a name that cannot exist (or that PostgreSQL would refuse, like NUL)
    never reaches SQL and answers "not found".
    """
    return bool(value) and len(value) <= max_length and refused_character(value) is None  # type: ignore[arg-type]


def check_name(value: Optional[str], what: str, *, max_length: int = MAX_NAME_LENGTH, single_word: bool = True) -> str:
    """``value`` stripped of surrounding blanks, or :class:`InvalidInput` if empty, too long or refused.

    A ``single_word`` name (usernames, repository names) has no whitespace and no ``/`` either.
    """
    value = (value or "").strip()
    if not value:
        raise InvalidInput(f"{what} must not be empty")
    if len(value) > max_length:
        raise InvalidInput(f"{what} is longer than {max_length} characters")
    char = refused_character(value)
    if char is not None:
        raise InvalidInput(refusal(what, char))
    if single_word and ("/" in value or any(char.isspace() for char in value)):
        raise InvalidInput(f"{what} must not contain '/' or spaces")
    return value
