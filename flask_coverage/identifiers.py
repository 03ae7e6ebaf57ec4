"""The rules for what names things: services, owners, repositories, branches, commits, pull requests, flags.

Each rule is written here once, and the schemas, the views, the CLI, the uploads and the lookups ask
it: what a caller may send and what may be stored are the same everywhere.

**The name rule**, for owners, repositories, branches, token names and paths: a name must not hold a
character that is invisible or changes how the text around it reads: C0 and C1
control characters (Unicode category Cc, e.g. NUL, newline, U+0085), format characters (Cf: the
bidirectional controls such as U+202E, zero-width characters, the byte order mark), line and paragraph
separators (Zl, Zp: U+2028, U+2029) and lone surrogates (Cs, which no database can store). The report
parsers, the upload endpoint, the CLI and the Python API refuse such names with one message; every
lookup (the APIs, the graphs, the file view) treats them as names that cannot exist. So what is stored
can always be looked up and shown. See docs/parsing.md ("Paths").

**Commits** are named by a full sha (40 hex digits, or 64 in SHA-256 repositories) or, where a URL
reads one, a unique prefix of at least 7; **branches** by what git takes as a branch name
(``git check-ref-format --branch``: no ``..`` segment, among others); **pull requests** by a number from 1 to 2**31 - 1;
**flags** by 1 to 45 letters, digits, ``_``, ``.`` or ``-``; **services** by a
:class:`~flask_coverage.models.ServiceEnum` value (the operator may write the prefix of the web URLs,
``gh``, ...).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Optional, Union

from .errors import InvalidInput
from .models import SERVICE_BY_SHORT, ServiceEnum

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


def without_refused(value: str) -> str:
    """``value`` without the characters the rule refuses (a refused space, a line break, becomes a space):
    for display text that arrives from elsewhere and is kept, such as a pull request's title."""
    if refused_character(value) is None:
        return value
    kept = (
        " " if char.isspace() else "" if unicodedata.category(char) in _REFUSED_CATEGORIES else char for char in value
    )
    return "".join(kept)


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


def parse_service(value: Union[str, ServiceEnum], *, short: bool = False) -> ServiceEnum:
    """The :class:`~flask_coverage.models.ServiceEnum` member named ``value`` (``github``), or
    :class:`InvalidInput`. With ``short``, as the operator names it (the CLI, an upload's
    ``SERVICE/OWNER/REPO``), the prefix of the web URLs (``gh``) names it too; the v2 API's paths take the
    values only, as Codecov's do."""
    try:
        return ServiceEnum(value)
    except ValueError:
        service = SERVICE_BY_SHORT.get(value) if short and isinstance(value, str) else None
        if service is not None:
            return service
        choices = ", ".join(member.value for member in ServiceEnum)
        shorts = f" (or {', '.join(SERVICE_BY_SHORT)})" if short else ""
        raise InvalidInput(f"unknown service {str(value)!r}: expected one of {choices}{shorts}") from None


#: The shortest sha prefix that names a commit (what ``git log --oneline`` shows).
MIN_SHA_PREFIX = 7
#: Full shas: 40 hex digits (SHA-1) or 64 (SHA-256 repositories).
FULL_SHA_LENGTHS = (40, 64)
#: A full sha or a prefix of one, in either case, as a regular expression (for schemas and OpenAPI).
SHA_PREFIX_PATTERN = f"[0-9a-fA-F]{{{MIN_SHA_PREFIX},{max(FULL_SHA_LENGTHS)}}}"

_HEX = re.compile(r"[0-9a-f]+")


def normalize_sha(value: str, *, prefix: bool = False) -> Optional[str]:
    """``value`` as a lower-case commit sha, or ``None`` if it is not one.

    A full sha has 40 or 64 hex digits; with ``prefix=True`` any 7 to 64 hex digits are accepted.
    """
    sha = (value or "").strip().lower()
    if not _HEX.fullmatch(sha):
        return None
    if prefix:
        return sha if MIN_SHA_PREFIX <= len(sha) <= max(FULL_SHA_LENGTHS) else None
    return sha if len(sha) in FULL_SHA_LENGTHS else None


def check_sha(value: str, what: str = "commit") -> str:
    """``value`` as a full lower-case commit sha; InvalidInput (naming ``what``) if it is not one."""
    sha = normalize_sha(value)
    if sha is None:
        raise InvalidInput(f"{what} must be a full sha (40 or 64 hex digits), not {str(value)[:80]!r}")
    return sha


#: Pull request numbers are stored in a 32-bit column.
MAX_PULLID = 2**31 - 1
#: What CI uploaders send as ``pr`` outside of a pull request build (Travis sends ``false``).
NO_PULL_REQUEST = frozenset({"", "false", "null", "undefined", "none", "true"})


def pull_number(text: str) -> Optional[int]:
    """The pull request number that ``text`` (from a URL) names: up to 10 ASCII digits, else ``None``.

    Whether the number is in range is the lookup's question (no pull request has it).
    """
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 10 else None


def normalize_pullid(value: Union[int, str, None]) -> Optional[int]:
    """A pull request number from an int or decimal text; ``None`` for none.

    The words CI uploaders send outside of pull requests (``false``, ``null``, ...) mean none.
    Raises InvalidInput for anything else that is not a number from 1 to 2**31 - 1.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    else:
        text = value.strip()
        if text.lower() in NO_PULL_REQUEST:
            return None
        parsed = pull_number(text)
        if parsed is None:
            raise InvalidInput(f"pull request number must be a positive integer, not {text[:40]!r}")
        number = parsed
    if not 1 <= number <= MAX_PULLID:
        raise InvalidInput(f"pull request number must be between 1 and {MAX_PULLID}, not {number}")
    return number


#: What git's ``check-ref-format`` refuses anywhere in a ref name: ``..``, ``@{``, ``//``, controls,
#: space and ``~^:?*[\``; and in a slash-separated component: a leading ``.``, a trailing ``.lock``.
_NOT_IN_REF = re.compile(r"\.\.|@\{|//|[\x00-\x20\x7f~^:?*\[\\]|(?:^|/)\.|\.lock(?:/|$)")
#: What a refused branch's message says it must be.
BRANCH_RULE = (
    "a git branch name (git check-ref-format --branch): no '..', '@{', '//', spaces, control characters or"
    " any of ~^:?*[\\, no part starting with '.' or ending with '.lock', not starting with '-' or '/' nor"
    " ending with '/' or '.'"
)


def is_branch_name(name: str) -> bool:
    """Whether git takes ``name`` as a branch name: ``git check-ref-format --branch name`` succeeds.

    Such a name has no ``..`` segment, so a link that holds it cannot climb out of its repository's URLs.
    """
    return (
        bool(name)
        and name != "HEAD"
        and name[0] not in "-/"
        and name[-1] not in "/."
        and _NOT_IN_REF.search(name) is None
    )


def check_branch(value: Optional[str]) -> str:
    """``value`` stripped, if it is a storable name (:func:`check_name`) and a git branch name; else InvalidInput."""
    name = check_name(value, "branch", max_length=MAX_NAME_LENGTH, single_word=False)
    if not is_branch_name(name):
        raise InvalidInput(f"branch {name[:80]!r} must be {BRANCH_RULE}")
    return name


#: The user part of a fork's branch as codecov-cli names it (``user:branch``): a GitHub, GitLab or
#: Bitbucket account name.
_FORK_USER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def is_fork_branch(name: Optional[str]) -> bool:
    """Whether ``name`` is a fork's branch as codecov-cli names it for a pull request from a fork,
    ``user:branch`` (an account name, a colon, a git branch name): never a branch of the repository
    itself, whose names git refuses colons in."""
    user, colon, branch = (name or "").partition(":")
    return bool(colon) and _FORK_USER.fullmatch(user) is not None and is_branch_name(branch)


def normalize_branch(value: Optional[str]) -> Optional[str]:
    """A branch name as uploaders send it, cleaned up: ``None`` for none.

    ``refs/heads/`` and ``origin/`` prefixes are dropped and ``HEAD`` (a detached checkout) means
    no branch, as CI environments report them. A fork's ``user:branch`` (:func:`is_fork_branch`) is
    kept as it is. Raises InvalidInput for a name that cannot be stored or that git would refuse
    (:func:`check_branch`).
    """
    name = (value or "").strip()
    for prefix in ("refs/heads/", "origin/"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    if not name or name == "HEAD":
        return None
    if is_fork_branch(name):
        return check_name(name, "branch", max_length=MAX_NAME_LENGTH, single_word=False)
    return check_branch(name)


#: A flag: 1 to 45 letters, digits, ``_``, ``.`` or ``-``.
FLAG_PATTERN = re.compile(r"[A-Za-z0-9_.\-]{1,45}")
#: What a refused flag's message says it must be.
FLAG_RULE = "1 to 45 letters, digits, '_', '.' or '-'"
#: Flags one upload may carry.
MAX_FLAGS = 100


def check_flags(value: Union[str, Iterable[str], None]) -> tuple[str, ...]:
    """Flags from comma-separated text or a list of them: unique, sorted.

    Each flag matches :data:`FLAG_PATTERN` (blank items are skipped); anything else, or more than
    :data:`MAX_FLAGS` flags, is an InvalidInput naming it.
    """
    items = value.split(",") if isinstance(value, str) else list(value or ())
    flags: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise InvalidInput(f"a flag must be text, not {type(item).__name__}")
        flag = item.strip()
        if not flag:
            continue
        if not FLAG_PATTERN.fullmatch(flag):
            raise InvalidInput(f"flag {flag[:60]!r} must be {FLAG_RULE}")
        flags.add(flag)
        if len(flags) > MAX_FLAGS:
            raise InvalidInput(f"an upload may carry at most {MAX_FLAGS} flags")
    return tuple(sorted(flags))
