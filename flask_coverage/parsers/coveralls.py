"""Coveralls' JSON (``source_files``: coveralls reporters, gcovr ``--coveralls``, excoveralls,
cargo-tarpaulin and grcov's Coveralls output).

``{"source_files": [{"name": path, "coverage": [null, 1, 0, ...]}]}``: element *i* of ``coverage`` is
line *i + 1*, ``null`` no code, a count HIT or (0) MISS, as Codecov reads it (some reporters write the
list as a JSON string: it is decoded too). Coveralls' ``branches`` are not read, as Codecov does not.
Paths are as written (relative to the repository, usually).

Skipped and counted: a file entry without a name or a readable ``coverage`` list, an element that is
neither null nor a count. Streamed one file entry at a time.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, LineCoverage, LineCoverageBuilder
from ._common import MAX_LINE_NUMBER, ParsedFile
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

__all__ = ["FORMAT", "list_lines", "parse_coveralls"]


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
                context.skips.add("file entry without a name or a readable coverage list")
                continue
            yield ParsedFile(resolver.resolve(name), list_lines(coverage, 1, context.skips))
    stream.end()


def list_lines(counts: list[Any], first: int, skips: Skips) -> LineCoverage:
    """The lines of a list of counts whose element 0 is line ``first``: null (and "ignored") no code,
    a count HIT or (0) MISS; anything else skipped and counted."""
    builder = LineCoverageBuilder()
    odd = 0
    for number, hits in enumerate(counts[: MAX_LINE_NUMBER + 1 - first], first):
        if type(hits) is int and hits >= 0:
            if number >= 1:
                builder.add(number, hits, HIT if hits else MISS)
        elif hits is not None and hits != "ignored":
            odd += 1
    if odd:
        skips.add("line whose count is not a count", odd)
    return builder.build()


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and head.json_value_start("source_files") == "["


FORMAT = ReportFormat("coveralls", "Coveralls JSON", _detect, parse_coveralls, ("coveralls*.json", "excoveralls.json"))
