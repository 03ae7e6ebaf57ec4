"""Istanbul's ``coverage-final.json`` (nyc ``--reporter=json``, Jest, c8, Vitest's Istanbul provider).

The report is an object of files, each with a ``statementMap`` and its counts ``s``, a ``branchMap``
and its counts ``b`` (one per branch path), and a ``fnMap``. A line's hits are the largest count of
the statements that start on it; it is MISS at 0, and a hit line is PARTIAL when a branch starting on
it has a path never taken. That is Istanbul's own line rule (``getLineCoverage``) and the one its
LCOV writer follows (``DA`` and ``BRDA``), so the JSON and the LCOV of one run give the same lines. The
``fnMap`` adds no line: a function's lines are its statements'. Statements and branches marked
``skip`` (``/* istanbul ignore */``) are left out. Paths are the object's keys, as written (absolute).

Two older shapes of the same object of files are read as Codecov reads them. JSCover's
``jscoverage.json`` (and blanket-style reports) give a file a ``lineData`` list, element *i* line *i*:
null no code, a count HIT or (0) MISS; its ``branchData`` (line -> a list of conditions, each with
``evalTrue``/``evalFalse``) makes a hit line PARTIAL when one of its conditions was not evaluated both
ways. A ``linesCovered`` object is a count per line (``{"3": 1}``). Istanbul 0.x's ``l`` object comes
with its ``statementMap`` and says what the statements say: it is not read.

Skipped and counted: a file entry that is not an object, a statement or branch without a readable
line or count; in the older shapes, as every format, a count that is not a number (negative clamped,
decimals rounded down), a line that is not a number or is 0. Streamed one file entry at a time.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, LineCoverageBuilder
from ._common import MAX_LINE_NUMBER, ParsedFile, json_line_number
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream
from .coveralls import json_hit_count, list_lines

__all__ = ["FORMAT", "parse_istanbul"]


def parse_istanbul(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per file entry of an Istanbul ``coverage-final.json`` read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "an Istanbul coverage-final.json report is an object of files")
    for name in stream.members():
        entry = stream.value()
        if isinstance(entry, dict) and isinstance(entry.get("data"), dict):
            entry = entry["data"]  # the wrapping of Istanbul's older FileCoverage.toJSON
        if not isinstance(entry, dict):
            context.skips.add("file entries that are not objects, skipped")
            continue
        path = resolver.resolve(name)
        yield ParsedFile(path, _file_lines(entry, context.skips, path))
    stream.end()


def _file_lines(entry: dict[str, Any], skips: Skips, path: str) -> Any:
    if isinstance(entry.get("lineData"), list):
        return _line_data(entry, skips, path)
    if isinstance(entry.get("linesCovered"), dict):
        return _lines_covered(entry["linesCovered"], skips, path)
    hits: dict[int, int] = {}
    statements, counts = _map(entry, "statementMap"), _map(entry, "s")
    for key, statement in statements.items():
        if isinstance(statement, dict) and statement.get("skip") is True:
            continue
        line, count = _start_line(statement), counts.get(key)
        if line is None or type(count) is not int or count < 0:
            skips.add("statements without a readable line or count, skipped")
            continue
        hits[line] = max(hits.get(line, 0), count)
    missed_branches = set()
    branches, branch_counts = _map(entry, "branchMap"), _map(entry, "b")
    for key, branch in branches.items():
        if isinstance(branch, dict) and branch.get("skip") is True:
            continue
        taken = branch_counts.get(key)
        line = branch.get("line") if isinstance(branch, dict) else None
        if type(line) is not int or not 1 <= line <= MAX_LINE_NUMBER:
            line = _start_line(branch)
        if line is None or not isinstance(taken, list) or any(type(t) is not int for t in taken):
            skips.add("branches without a readable line or counts, skipped")
            continue
        if 0 in taken:
            missed_branches.add(line)
    builder = LineCoverageBuilder()
    for line in sorted(hits):
        count = hits[line]
        builder.add(line, count, HIT if count else MISS)
    return builder.build(missed_branches)


def _line_data(entry: dict[str, Any], skips: Skips, path: str) -> Any:
    # JSCover: element i of lineData is line i, read as covr's list (coveralls.list_lines); a run line
    # with a condition of branchData not evaluated both ways is partial.
    data = entry["lineData"]
    lines = list_lines(data, 0, skips)
    half_taken = set()
    for key, conditions in _map(entry, "branchData").items():
        line = json_line_number(key, path, skips)
        if line is None:
            continue
        if not isinstance(conditions, list):
            skips.add("branches without a readable line or counts, skipped")
        elif any(isinstance(c, dict) and not (c.get("evalTrue") and c.get("evalFalse")) for c in conditions):
            half_taken.add(line)
    run = sorted(line for line in half_taken if line < len(data) and _ran(data[line]))
    return lines.with_branch_states(run, [2] * len(run), [1] * len(run)) if run else lines


def _ran(count: Any) -> bool:
    return (type(count) is int or type(count) is float) and count >= 1


def _lines_covered(counts: dict[str, Any], skips: Skips, path: str) -> Any:
    builder = LineCoverageBuilder()
    for key, count in counts.items():
        line = json_line_number(key, path, skips)
        hits = None if line is None else json_hit_count(count, skips)
        if line is not None and hits is not None:
            builder.add(line, hits, HIT if hits else MISS)
    return builder.build()


def _map(entry: dict[str, Any], key: str) -> dict[str, Any]:
    value = entry.get(key)
    return value if isinstance(value, dict) else {}


def _start_line(node: Any) -> int | None:
    # A statement is a location; a branch has "loc", or only "locations".
    if not isinstance(node, dict):
        return None
    location = node.get("loc", node)
    if "start" not in location and isinstance(node.get("locations"), list) and node["locations"]:
        location = node["locations"][0]
    start = location.get("start") if isinstance(location, dict) else None
    line = start.get("line") if isinstance(start, dict) else None
    return line if type(line) is int and 1 <= line <= MAX_LINE_NUMBER else None


def _detect(head: ReportHead) -> bool:
    if head.kind != "json":
        return False
    return (
        head.json_value_start("statementMap") == "{"
        or head.json_value_start("lineData") == "["
        or head.json_value_start("linesCovered") == "{"
    )


FORMAT = ReportFormat(
    "istanbul",
    "Istanbul JSON",
    _detect,
    parse_istanbul,
    ("coverage-final.json", "*.json"),
    partials_as_hits=lambda settings: not settings.javascript_partials,
)
