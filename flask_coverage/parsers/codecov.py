"""Codecov's own JSON (``{"coverage": {path: lines}}``: what Codecov's docs call the v1 JSON, written
by hand-made scripts and a few tools).

A file's ``lines`` are an object ``{"<line>": coverage}``, a list whose element *i* is line *i* (the
element 0 unused), or ``{"lines": [...]}`` whose element *i* is line *i + 1*, as Codecov reads them. A
coverage is a count (HIT, or MISS at 0; a numeric string too), ``"n/m"`` branches (``n == m`` HIT,
``n == 0`` MISS, else PARTIAL; hits ``n``) or ``true`` (PARTIAL); ``null``, ``false`` and ``-1``
(Codecov's "skipped") are not tracked. The ``coverage`` key comes first in the object, as Codecov's
docs write it; ``messages`` and other keys are not read. Paths are as written.

Skipped and counted: a line key that is not a number in range, a coverage of any other kind, a
file whose lines are none of the three shapes. Streamed one file entry at a time.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from ._common import MAX_LINE_NUMBER, ParsedFile
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

__all__ = ["FORMAT", "parse_codecov"]

_FIRST_KEY = re.compile(rb'\{\s*"coverage"\s*:\s*\{')
_BRANCHES = re.compile(r"([0-9]{1,9})/([0-9]{1,9})")


def parse_codecov(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per file of the ``coverage`` object of a Codecov JSON report read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "a Codecov JSON report is an object")
    for key in stream.members():
        if key != "coverage":
            stream.skip()
            continue
        stream.expect("{", "Codecov JSON report: coverage is not an object")
        for name in stream.members():
            lines = _file_lines(stream.value(), context.skips)
            if lines is not None:
                yield ParsedFile(resolver.resolve(name), lines)
    stream.end()


def _file_lines(lines: Any, skips: Skips) -> LineCoverage | None:
    if isinstance(lines, dict) and isinstance(lines.get("lines"), list):
        entries: Iterable[tuple[Any, Any]] = enumerate(lines["lines"], 1)
    elif isinstance(lines, dict):
        entries = lines.items()
    elif isinstance(lines, list):
        entries = enumerate(lines)
    else:
        skips.add("file whose lines are not an object or a list")
        return None
    builder = LineCoverageBuilder()
    for key, coverage in entries:
        number = (
            key if type(key) is int else int(key) if isinstance(key, str) and key.isdecimal() and len(key) < 9 else -1
        )
        if coverage is None or coverage is False or coverage == -1 or number == 0:
            continue  # no code, Codecov's "skipped", or a list's unused element 0
        if not 1 <= number <= MAX_LINE_NUMBER:
            skips.add("line number out of range or not a number")
            continue
        if isinstance(coverage, str) and coverage.isdecimal() and len(coverage) < 20:
            coverage = int(coverage)
        if coverage is True:
            builder.add(number, 1, PARTIAL)
        elif type(coverage) is int and coverage >= 0:
            builder.add(number, coverage, HIT if coverage else MISS)
        elif isinstance(coverage, str) and (branches := _BRANCHES.fullmatch(coverage)):
            covered, total = int(branches.group(1)), int(branches.group(2))
            state = HIT if covered == total else MISS if not covered else PARTIAL
            builder.add(number, covered if state != MISS else 0, state)
        else:
            skips.add("line whose coverage is not a count, branches or true")
    return builder.build()


def _line_number(key: Any) -> int:
    # A list's index, or an object's key: a short decimal string; anything else is -1 (out of range).
    if type(key) is int:
        return key
    return int(key) if isinstance(key, str) and key.isdecimal() and len(key) < 9 else -1


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and _FIRST_KEY.match(head.text) is not None and b'"simplecov_version"' not in head.text


FORMAT = ReportFormat("codecov", "Codecov JSON", _detect, parse_codecov, ("codecov*.json", "coverage.json"))
