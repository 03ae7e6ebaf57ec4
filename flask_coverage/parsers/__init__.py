"""Coverage report parsers: Cobertura XML, coverage.py JSON and LCOV, with format detection.

Pure functions over bytes: no Flask, no database. See docs/parsing.md for the rules in full.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator

from ..errors import ReportError
from ..lines import LineCoverage
from ._common import MAX_LINE_NUMBER, ParsedFile
from ._input import ReportInput, ReportSource, strip_bom
from ._paths import place_by_network
from .cobertura import parse_cobertura
from .coveragepy import parse_coveragepy
from .lcov import parse_lcov

__all__ = [
    "FORMATS",
    "MAX_LINE_NUMBER",
    "ParsedFile",
    "detect_format",
    "merge_by_path",
    "parse_report",
    "place_by_network",
]

#: The values ``parse_report(format=...)`` accepts besides ``"auto"``.
FORMATS = ("cobertura", "coveragepy", "lcov")

_PARSERS: dict[str, Callable[[Iterable[bytes], str | None], Iterator[ParsedFile]]] = {
    "cobertura": parse_cobertura,
    "coveragepy": parse_coveragepy,
    "lcov": parse_lcov,
}

_UNKNOWN = "unknown report format: expected Cobertura XML, coverage.py JSON or LCOV"
_XML_NAME = re.compile(rb"<([^\s/>!?]+)")
_SUBSET_END = re.compile(rb"\]\s*>")
_LCOV_FIRST = re.compile(rb"(?:TN|SF|VER):")


def detect_format(head: bytes) -> str:
    """The format of a report from its first bytes: ``"cobertura"``, ``"coveragepy"`` or ``"lcov"``.

    Looks at content only, never a file name: XML whose root element is ``<coverage>``, a JSON object
    with coverage.py's ``"meta"``/``"files"`` keys, or LCOV's first record (``TN:``, ``SF:``).
    Raises ReportError for an empty or unrecognised head.
    """
    text = strip_bom(head).lstrip()
    if not text:
        raise ReportError("empty report")
    if text.startswith(b"<"):
        name = _xml_root_name(text)
        if name == b"coverage":
            return "cobertura"
        if name:
            shown = name[:40].decode("ascii", "backslashreplace")
            raise ReportError(f"{_UNKNOWN} (XML whose root element is <{shown}>, not <coverage>)")
        raise ReportError(f"{_UNKNOWN} (XML without a root element)")
    if text.startswith(b"{"):
        if b'"files"' in text or b'"meta"' in text:
            return "coveragepy"
        raise ReportError(f"{_UNKNOWN} (JSON without coverage.py's meta and files)")
    if _LCOV_FIRST.match(text):
        return "lcov"
    raise ReportError(_UNKNOWN)


def _xml_root_name(text: bytes) -> bytes | None:
    # Skips the prolog (declaration, comments, processing instructions, DOCTYPE) with plain
    # searches: a regular expression for it backtracks exponentially on hostile input.
    pos = 0
    while True:
        while pos < len(text) and text[pos] in b" \t\r\n":
            pos += 1
        if text.startswith(b"<?", pos):
            end = text.find(b"?>", pos)
            pos = -1 if end < 0 else end + 2
        elif text.startswith(b"<!--", pos):
            end = text.find(b"-->", pos)
            pos = -1 if end < 0 else end + 3
        elif text.startswith(b"<!DOCTYPE", pos):
            close, subset = text.find(b">", pos), text.find(b"[", pos)
            if 0 <= subset < close:
                match = _SUBSET_END.search(text, subset)
                pos = -1 if match is None else match.end()
            else:
                pos = -1 if close < 0 else close + 1
        else:
            match = _XML_NAME.match(text, pos)
            return match.group(1) if match else None
        if pos < 0:
            return None


def parse_report(
    source: ReportSource,
    *,
    format: str = "auto",
    root: str | None = None,
    max_bytes: int | None = None,
) -> Iterator[ParsedFile]:
    """Parse a coverage report into repository-relative files with their line coverage.

    ``source`` is the report as bytes or a binary file object (read once, in chunks). ``format`` is
    ``"auto"`` (detected from the content) or one of :data:`FORMATS`. ``root``, the checkout
    directory the report was written in, is stripped from file paths. Reading more than
    ``max_bytes`` bytes raises :class:`~flask_coverage.errors.ReportTooLarge`.

    The format is checked before this returns; the files are then parsed lazily as the iterator is
    consumed. A path can be yielded more than once (Cobertura classes of one file, LCOV records per
    test): combine them with :func:`merge_by_path` or :meth:`LineCoverage.merge`. Every problem with
    the report raises :class:`~flask_coverage.errors.ReportError`, possibly after some files were
    yielded, so store a report only once it was read to the end.
    """
    if format != "auto" and format not in _PARSERS:
        raise ReportError(f"unknown report format {format!r}: expected auto, cobertura, coveragepy or lcov")
    report = ReportInput(source, max_bytes)
    if format == "auto":
        format = detect_format(report.head)
    elif not strip_bom(report.head).strip():
        raise ReportError("empty report")
    return _PARSERS[format](report.chunks(), root)


def merge_by_path(files: Iterable[ParsedFile]) -> dict[str, LineCoverage]:
    """Combine files by path with :meth:`LineCoverage.merge`, in first-seen order."""
    merged: dict[str, LineCoverage] = {}
    for path, lines in files:
        previous = merged.get(path)
        merged[path] = lines if previous is None else previous.merge(lines)
    return merged
