"""elm-coverage's JSON for Codecov (``elm-coverage --report codecov``: ``{"coverageData": {"<Module>":
[{"from": {"line", "column"}, "to": {...}, "count", "type", "complexity"}]}, "moduleMap": {"<Module>":
"<path>"}}``).

Each region (a declaration, a ``let`` declaration, a lambda, a ``case`` or ``if`` branch) has an
evaluation ``count``. As Codecov reads them: a region on one line marks that line; a region over
several lines marks its first line to the line before its last; a count HIT, 0 (or none) MISS. Regions
sharing a line merge by the usual rules (a hit wins: a declaration run whose lambda never was is a hit
where they meet). Paths are the ``moduleMap``'s values for the modules, as written.

Skipped and counted: a module the ``moduleMap`` does not name, a region without a readable start and
end line, a line 0; counts as every format reads them (negative clamped, decimals rounded down, not a
number skipped). Streamed a module at a time; when the ``moduleMap`` comes after the ``coverageData``
(as elm-coverage writes it), the modules read are held, as packed lines, until it is read.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, LineColumns, LineCoverage
from ._common import ParsedFile, json_line_number
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream
from .coveralls import json_hit_count

__all__ = ["FORMAT", "parse_elm"]

_COVERAGE_DATA = re.compile(rb'"coverageData"\s*:\s*\{')
#: No Elm region is longer: one spanning more lines is taken for garbage, not walked.
MAX_REGION_LINES = 10_000
NOT_IN_MODULE_MAP = "modules the moduleMap does not name, skipped"


def parse_elm(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per module of elm-coverage's JSON read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "elm-coverage JSON is an object")
    paths: dict[str, Any] | None = None
    waiting: list[tuple[str, LineCoverage]] = []  # modules read before the moduleMap
    for key in stream.members():
        if key == "moduleMap":
            value = stream.value()
            paths = value if isinstance(value, dict) else {}
            for module, lines in waiting:
                found = _path(paths, module, context.skips)
                if found is not None:
                    yield ParsedFile(resolver.resolve(found), lines)
            waiting = []
        elif key == "coverageData":
            stream.expect("{", "elm-coverage JSON: coverageData is not an object")
            for module in stream.members():
                lines = _module_lines(stream.value(), module, context.skips)
                if not len(lines):
                    continue
                if paths is None:
                    waiting.append((module, lines))
                    continue
                found = _path(paths, module, context.skips)
                if found is not None:
                    yield ParsedFile(resolver.resolve(found), lines)
        else:
            stream.skip()
    stream.end()
    if waiting:
        context.skips.add(NOT_IN_MODULE_MAP, len(waiting))


def _path(paths: dict[str, Any], module: str, skips: Skips) -> str | None:
    path = paths.get(module)
    if not isinstance(path, str) or not path.strip():
        skips.add(NOT_IN_MODULE_MAP)
        return None
    return path


def _module_lines(regions: Any, module: str, skips: Skips) -> LineCoverage:
    lines = LineColumns()
    if not isinstance(regions, list):
        skips.add("modules whose regions are not a list, skipped")
        return lines.take()
    for region in regions:
        start = region.get("from") if isinstance(region, dict) else None
        end = region.get("to") if isinstance(region, dict) else None
        if not isinstance(start, dict) or not isinstance(end, dict) or "line" not in start or "line" not in end:
            skips.add("regions without a start and an end line, skipped")
            continue
        first = json_line_number(start["line"], module, skips)
        last = json_line_number(end["line"], module, skips) if first is not None else None
        hits = json_hit_count(region.get("count", 0), skips) if last is not None else None
        if first is None or last is None or hits is None:
            continue
        if not first <= last <= first + MAX_REGION_LINES:
            skips.add("regions ending before they start or spanning over 10,000 lines, skipped")
            continue
        state = HIT if hits else MISS
        for number in range(first, max(last, first + 1)):
            lines.add(number, hits, state)
    return lines.take()


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and _COVERAGE_DATA.search(head.text) is not None


FORMAT = ReportFormat("elm", "elm-coverage JSON", _detect, parse_elm)
