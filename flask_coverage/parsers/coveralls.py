"""Coveralls' JSON (``source_files``: coveralls reporters, gcovr ``--coveralls``, excoveralls,
cargo-tarpaulin and grcov's Coveralls output).

``{"source_files": [{"name": path, "coverage": [null, 1, 0, ...]}]}``: element *i* of ``coverage`` is
line *i + 1*, ``null`` no code, a count HIT or (0) MISS, as Codecov reads it (some reporters write the
list as a JSON string: it is decoded too). Coveralls' ``branches`` are not read, as Codecov does not.
Paths are as written (relative to the repository, usually).

Skipped and counted: a file entry without a name or a readable ``coverage`` list, an element that is
neither null nor a number; negative counts are clamped to 0, decimals rounded down. Streamed one file entry at a time.
"""

from __future__ import annotations

import json
from array import array
from typing import Any, Iterable, Iterator

from ..lines import _U32, HIT, MAX_HITS, MISS, LineCoverage
from . import _speedups
from ._common import HITS_DECIMAL, HITS_NEGATIVE, HITS_NOT_A_NUMBER, MAX_LINE_NUMBER, MAX_REPORTED_HITS, ParsedFile
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

_compiled = _speedups.load("json_lines")

__all__ = ["FORMAT", "json_hit_count", "list_lines", "parse_coveralls"]


def parse_coveralls(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per entry of ``source_files`` of a Coveralls JSON report read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "a Coveralls JSON report is an object")
    for key in stream.members():
        if key != "source_files":
            stream.skip()
            continue
        for entry in stream.items("Coveralls JSON report: source_files is not a list"):
            coverage = entry.get("coverage") if isinstance(entry, dict) else None
            if isinstance(coverage, str) and len(coverage) < (1 << 24):
                try:
                    coverage = json.loads(coverage)
                except (ValueError, RecursionError):
                    coverage = None
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not isinstance(coverage, list):
                context.skips.add("file entries without a name or a readable coverage list, skipped")
                continue
            yield ParsedFile(resolver.resolve(name), list_lines(coverage, 1, context.skips))
    stream.end()


def list_lines(counts: list[Any], first: int, skips: Skips) -> LineCoverage:
    """The lines of a list of counts whose element 0 is line ``first``: null (and "ignored") no code,
    a count HIT or (0) MISS (:func:`json_hit_count`)."""
    if _compiled is not None:
        columns = _compiled.list_lines(counts, first)
        if columns is not None:  # nulls, "ignored" and counts only: line numbers, hits, states
            return LineCoverage.from_bytes(*columns)
    counts = counts[: MAX_LINE_NUMBER + 1 - first] if len(counts) > MAX_LINE_NUMBER - first else counts
    if first < 1:  # elements before line 1 are no lines, their odd values counted all the same
        for hits in counts[: 1 - first]:
            json_hit_count(hits, skips)
        counts, first = counts[1 - first :], 1
    numbers: list[int] = []
    hit_counts: list[int] = []
    states = bytearray()
    for number, value in enumerate(counts, first):  # increasing from 1: the columns need no sort
        if value is None:
            continue
        hits = value if type(value) is int and value >= 0 else json_hit_count(value, skips)
        if hits is not None:
            numbers.append(number)
            hit_counts.append(hits if hits <= MAX_HITS else MAX_HITS)
            states.append(HIT if hits else MISS)
    return LineCoverage._trusted(array(_U32, numbers), array(_U32, hit_counts), states)


def json_hit_count(value: Any, skips: Skips) -> int | None:
    """A JSON count as a hit count, read as every format reads counts (``parsers/_common.py``): null
    and ``"ignored"`` are no code (None), a negative count is clamped to 0, a decimal one rounded
    down, anything else skipped (None); each odd one counted."""
    if type(value) is int:
        if value >= 0:
            return value
        skips.add(HITS_NEGATIVE)
        return 0
    if value is None or value == "ignored":
        return None
    if type(value) is float and value == value and abs(value) <= MAX_REPORTED_HITS:
        if value < 0:
            skips.add(HITS_NEGATIVE)
            return 0
        skips.add(HITS_DECIMAL)
        return int(value)
    skips.add(HITS_NOT_A_NUMBER)
    return None


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and head.json_value_start("source_files") == "["


FORMAT = ReportFormat("coveralls", "Coveralls JSON", _detect, parse_coveralls, ("coveralls*.json", "excoveralls.json"))
