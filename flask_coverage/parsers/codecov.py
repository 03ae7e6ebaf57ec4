"""Codecov's own JSON (``{"coverage": {path: lines}}``: what Codecov's docs call the v1 JSON, written
by hand-made scripts and a few tools).

A file's ``lines`` are an object ``{"<line>": coverage}``, a list whose element *i* is line *i* (the
element 0 unused), or ``{"lines": [...]}`` whose element *i* is line *i + 1*, as Codecov reads them. A
coverage is a count (HIT, or MISS at 0; a numeric string too; read as every format reads counts),
``"n/m"`` branches (``n == m`` HIT, ``n == 0`` MISS, else PARTIAL; hits ``n``) or ``true`` (PARTIAL);
``null``, ``false`` and ``-1`` (Codecov's "skipped") are not tracked. The ``coverage`` key comes first
in the object, as Codecov's docs write it; ``messages`` and other keys are not read. Paths are as
written.

Skipped and counted: a line key that is not a number, a coverage of any other kind, a file whose
lines are none of the three shapes; a negative count is clamped to 0, a decimal rounded down.
Streamed one file entry at a time.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from ..lines import HIT, MAX_HITS, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from . import _speedups
from ._common import LINE_NOT_A_NUMBER, MAX_LINE_NUMBER, NUMBER_DIGITS, ParsedFile, bad_line_number
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream
from .coveralls import json_hit_count

__all__ = ["FORMAT", "parse_codecov"]

_FIRST_KEY = re.compile(rb'\{\s*"coverage"\s*:\s*\{')
_BRANCHES = re.compile(r"([0-9]{1,9})/([0-9]{1,9})")
_compiled = _speedups.load("json_lines")


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
        columns = _compiled.dict_lines(lines) if _compiled is not None else None
        if columns is not None:  # increasing decimal keys, plain values: line numbers, hits, states
            return LineCoverage.from_bytes(*columns)
        entries = lines.items()
    elif isinstance(lines, list):
        entries = enumerate(lines)
    else:
        skips.add("files whose lines are not an object or a list, skipped")
        return None
    numbers: list[int] = []
    hit_counts: list[int] = []
    states = bytearray()
    for key, coverage in entries:
        if type(key) is str:  # an object's key (what _line_number reads, without the call)
            number = int(key) if key.isdecimal() and len(key) <= NUMBER_DIGITS else -1
        else:
            number = _line_number(key)
        if coverage is None or coverage is False or coverage == -1 or number == 0:
            continue  # no code, Codecov's "skipped", or a list's unused element 0
        if number < 0:
            skips.add(LINE_NOT_A_NUMBER)
            continue
        if number > MAX_LINE_NUMBER:
            bad_line_number(str(key), "a Codecov JSON file")
        if type(coverage) is int and coverage >= 0:  # what _line reads a count as, without the call
            hits, state = coverage, HIT if coverage else MISS
        else:
            line = _line(coverage, skips)
            if line is None:
                continue
            hits, state = line
        numbers.append(number)
        hit_counts.append(hits if hits <= MAX_HITS else MAX_HITS)
        states.append(state)
    builder = LineCoverageBuilder()  # sorts the lines of an object whose keys are out of order, merges repeats
    builder.extend(numbers, hit_counts, states)
    return builder.build()


def _line(coverage: Any, skips: Skips) -> tuple[int, int] | None:
    """The hits and state of a line's coverage value (not null, false or -1), or None for one skipped
    (and counted)."""
    if isinstance(coverage, str) and coverage.isdecimal() and len(coverage) <= NUMBER_DIGITS:
        coverage = int(coverage)
    if coverage is True:
        return 1, PARTIAL
    if isinstance(coverage, str) and (branches := _BRANCHES.fullmatch(coverage)):
        covered, total = int(branches.group(1)), int(branches.group(2))
        state = HIT if covered == total else MISS if not covered else PARTIAL
        return (covered if state != MISS else 0), state
    hits = json_hit_count(coverage, skips)
    return None if hits is None else (hits, HIT if hits else MISS)


def _line_number(key: Any) -> int:
    # A list's index, or an object's key: a decimal string; anything else is -1.
    if type(key) is int:
        return key
    return int(key) if isinstance(key, str) and key.isdecimal() and len(key) <= NUMBER_DIGITS else -1


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and _FIRST_KEY.match(head.text) is not None and b'"simplecov_version"' not in head.text


FORMAT = ReportFormat("codecov", "Codecov JSON", _detect, parse_codecov, ("codecov*.json", "coverage.json"))
