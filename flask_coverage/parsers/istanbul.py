"""Istanbul's ``coverage-final.json`` (nyc ``--reporter=json``, Jest, c8, Vitest's Istanbul provider).

The report is an object of files, each with a ``statementMap`` and its counts ``s``, a ``branchMap``
and its counts ``b`` (one per branch path), and a ``fnMap``. A line's hits are the largest count of
the statements that start on it; it is MISS at 0, and a hit line is PARTIAL when a branch starting on
it has a path never taken. That is Istanbul's own line rule (``getLineCoverage``) and the one its
LCOV writer follows (``DA`` and ``BRDA``), so the JSON and the LCOV of one run give the same lines. The
``fnMap`` adds no line: a function's lines are its statements'. Statements and branches marked
``skip`` (``/* istanbul ignore */``) are left out. Paths are the object's keys, as written (absolute).

Skipped and counted: a file entry that is not an object, a statement or branch without a readable
line or count. Streamed one file entry at a time.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, LineCoverageBuilder
from ._common import MAX_LINE_NUMBER, ParsedFile
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

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
        yield ParsedFile(resolver.resolve(name), _file_lines(entry, context.skips))
    stream.end()


def _file_lines(entry: dict[str, Any], skips: Skips) -> Any:
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
    return head.kind == "json" and head.json_value_start("statementMap") == "{"


FORMAT = ReportFormat(
    "istanbul",
    "Istanbul JSON",
    _detect,
    parse_istanbul,
    ("coverage-final.json", "*.json"),
    partials_as_hits=lambda settings: not settings.javascript_partials,
)
