"""Flow's type coverage as JSON (``flow-coverage-report -t json``: ``{"flowStatus": {...}, ...,
"files": {"<path>": {"expressions": {"covered_locs": [...], "uncovered_locs": [...]}}}}``).

Flow's coverage is of types, not of runs: an expression is covered when Flow knows its type (not
``any``). As Codecov reads the report: each location marks its start line, HIT (hits 1) for a covered
expression, MISS for an uncovered one; locations sharing a line merge by the usual rules (a hit wins).
Paths are the keys of ``files`` as written (relative to the project). Skipped and counted: a file
entry without a name or an ``expressions`` object, a location list that is not a list, a location
without a start line, a line that is not a number or is 0. Streamed one file
entry at a time.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, LineColumns
from ._common import EMPTY_NAME, ParsedFile, json_line_number
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

__all__ = ["FORMAT", "parse_flow"]

_FLOW_STATUS = re.compile(rb'"flowStatus"\s*:\s*\{')
LOCATION_WITHOUT_LINE = "locations without a start line, skipped"


def parse_flow(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per entry of ``files`` of Flow's coverage JSON read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "Flow coverage JSON is an object")
    for key in stream.members():
        if key != "files":
            stream.skip()
            continue
        stream.expect("{", "Flow coverage JSON: files is not an object")
        for name in stream.members():
            entry = stream.value()
            expressions = entry.get("expressions") if isinstance(entry, dict) else None
            if not isinstance(expressions, dict):
                context.skips.add("file entries without an expressions object, skipped")
                continue
            if not name.strip():
                context.skips.add(EMPTY_NAME)
                continue
            path = resolver.resolve(name)
            lines = LineColumns()
            _add_locations(lines, expressions.get("covered_locs"), 1, HIT, path, context.skips)
            _add_locations(lines, expressions.get("uncovered_locs"), 0, MISS, path, context.skips)
            if len(lines):
                yield ParsedFile(path, lines.take())
    stream.end()


def _add_locations(lines: LineColumns, locations: Any, hits: int, state: int, path: str, skips: Skips) -> None:
    if locations is None:
        return
    if not isinstance(locations, list):
        skips.add("location lists that are not lists, skipped")
        return
    for location in locations:
        start = location.get("start") if isinstance(location, dict) else None
        if not isinstance(start, dict) or "line" not in start:
            skips.add(LOCATION_WITHOUT_LINE)
            continue
        number = json_line_number(start["line"], path, skips)
        if number is not None:
            lines.add(number, hits, state)


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and _FLOW_STATUS.search(head.text) is not None


FORMAT = ReportFormat("flow", "Flow coverage JSON", _detect, parse_flow, ("flow-coverage.json",))
