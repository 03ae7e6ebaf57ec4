"""llvm-cov's JSON export (``llvm-cov export``: C, C++, Rust, Swift, Objective-C).

``{"data": [{"files": [{"filename", "segments": [[line, col, count, hasCount, isRegionEntry, isGapRegion],
...], "branches": [[line, col, endLine, endCol, trueCount, falseCount, ...], ...]}], "functions": ...}]}``.
Codecov reads no such format (its Xcode plugin makes ``llvm-cov show`` text); the rule is llvm-cov's
own, the one ``llvm-cov report`` counts lines with and its LCOV export writes:

- a line is code when a region with a count starts on it (not a gap region), or the region around it
  from an earlier line has a count, and it is not the start of a skipped region;
- its count is the largest of the wrapping region's and those of the regions starting on it;
- a counted line is PARTIAL when a branch starting on it was never taken one way (``BRDA`` ``0``).

Paths are the ``filename``s as written (absolute). Skipped and counted: a file entry without a name
or a segments list, a segment or branch that is not numbers. Refused: segments spanning more lines
than 64 per character read (a cost bound). Streamed one source file at a time; ``functions`` and
``totals`` are skipped unread.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from ..errors import ReportError
from ..lines import HIT, MISS, LineCoverage, LineCoverageBuilder
from ._common import MAX_LINE_NUMBER, ParsedFile
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

__all__ = ["FORMAT", "parse_llvm"]

_EXPORT = re.compile(rb'\{\s*"data"\s*:\s*\[\s*\{\s*"files"\s*:\s*\[')
#: A file's lines beyond its segments' count: a region wrapping ten million lines costs as many steps.
_LINES_PER_SEGMENT = 1000


def parse_llvm(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per source file of an ``llvm-cov export`` JSON document read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "an llvm-cov export is a JSON object")
    for key in stream.members():
        if key != "data":
            stream.skip()
            continue
        for _ in stream.elements("llvm-cov export: data is not a list"):
            stream.expect("{", "llvm-cov export: an element of data is not an object")
            for part in stream.members():
                if part != "files":
                    stream.skip()
                    continue
                for entry in stream.items("llvm-cov export: files is not a list"):
                    name = entry.get("filename") if isinstance(entry, dict) else None
                    if not isinstance(name, str) or not isinstance(entry.get("segments"), list):
                        context.skips.add("file entries without a filename or segments, skipped")
                        continue
                    lines = _lines(entry["segments"], entry.get("branches"), context.skips)
                    yield ParsedFile(resolver.resolve(name), lines)
    stream.end()


def _lines(segments: list[Any], branches: Any, skips: Skips) -> LineCoverage:
    # (line, count, has count, region entry, gap) of each well-formed segment, in order.
    read = []
    for segment in segments:
        if (
            isinstance(segment, list)
            and len(segment) >= 5
            and all(type(value) is int for value in segment[:3])
            and 1 <= segment[0] <= MAX_LINE_NUMBER
            and segment[2] >= 0
        ):
            gap = bool(segment[5]) if len(segment) > 5 else False
            read.append((segment[0], segment[2], bool(segment[3]), bool(segment[4]), gap))
        else:
            skips.add("segments that are not numbers, skipped")
    read.sort(key=lambda s: s[0])  # stable: the columns' order within a line is kept
    if read and read[-1][0] - read[0][0] > _LINES_PER_SEGMENT * len(read):
        raise ReportError("llvm-cov export: a file's segments span too many lines for their number")
    builder = LineCoverageBuilder()
    wrapped = None
    at = 0
    line = read[0][0] if read else 1
    while at < len(read):
        starting = []
        while at < len(read) and read[at][0] == line:
            starting.append(read[at])
            at += 1
        regions = [count for _, count, has_count, entry, gap in starting if has_count and entry and not gap]
        skipped = bool(starting) and not starting[0][2] and starting[0][3]
        if not skipped and ((wrapped is not None and wrapped[2]) or regions):
            count = max([wrapped[1] if wrapped is not None else 0, *regions])
            builder.add(line, count, HIT if count else MISS)
        if starting:
            wrapped = starting[-1]
        line += 1
    return builder.build(_missed_branch_lines(branches, skips))


def _missed_branch_lines(branches: Any, skips: Skips) -> set[int]:
    missed = set()
    for branch in branches if isinstance(branches, list) else ():
        if isinstance(branch, list) and len(branch) >= 6 and all(type(value) is int for value in branch[:6]):
            if branch[4] == 0 or branch[5] == 0:
                missed.add(branch[0])
        else:
            skips.add("branches that are not numbers, skipped")
    return missed


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and (_EXPORT.match(head.text) is not None or b'"llvm.coverage.json.export"' in head.text)


FORMAT = ReportFormat("llvm", "llvm-cov export JSON", _detect, parse_llvm, ("*.json",))
