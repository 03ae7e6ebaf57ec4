"""Xcode's coverage report as JSON (``xcrun xccov view --report --json Test.xcresult``: Swift, Objective-C).

``{"targets": [{"name", "files": [{"path", "functions": [{"name", "lineNumber", "executionCount",
"coveredLines", "executableLines"}]}]}], "lineCoverage", ...}``. The report holds functions, not lines:
each function is one line here, its ``lineNumber`` (where it starts), with its ``executionCount`` as
hits: MISS at 0, PARTIAL when it ran but ``coveredLines`` < ``executableLines``, else HIT. Codecov
reads no such format (its Xcode support reads ``llvm-cov show`` text and the older ``xccoverage``
plist); the file totals here are therefore functions, as Xcode's own report counts them per function,
not its ``coveredLines``. For line coverage, upload ``llvm-cov show`` text (format ``xcode``) or
``xccov view --archive --json`` (format ``xccov_archive``, ``parsers/xccov_archive.py``). Paths are
the ``path``s as written (absolute), stripped by ``root`` or placed by the network list; a file listed
by two targets (a framework and its tests) is merged.

Skipped and counted: a file entry without a path or a ``functions`` list, a function whose line or
count is not an integer, line 0; a negative count clamped to 0. Streamed one file entry at a time.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from ._common import HITS_NEGATIVE, LINE_BELOW_ONE, MAX_LINE_NUMBER, MAX_REPORTED_HITS, ParsedFile, bad_line_number
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

__all__ = ["FORMAT", "parse_xccov"]


def parse_xccov(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per file of each target of an xccov JSON report read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "xccov's JSON report is an object")
    for key in stream.members():
        if key != "targets":
            stream.skip()
            continue
        for _ in stream.elements("xccov JSON: targets is not a list"):
            stream.expect("{", "xccov JSON: a target is not an object")
            for target_key in stream.members():
                if target_key != "files":
                    stream.skip()
                    continue
                for entry in stream.items("xccov JSON: a target's files is not a list"):
                    path = entry.get("path") if isinstance(entry, dict) else None
                    functions = entry.get("functions") if isinstance(entry, dict) else None
                    if not isinstance(path, str) or not path.strip() or not isinstance(functions, list):
                        context.skips.add("file entries without a path or a functions list, skipped")
                        continue
                    placed = resolver.resolve(path)
                    yield ParsedFile(placed, _lines(functions, placed, context.skips))
    stream.end()


def _lines(functions: list[Any], path: str, skips: Skips) -> LineCoverage:
    builder = LineCoverageBuilder()
    for function in functions:
        number = function.get("lineNumber") if isinstance(function, dict) else None
        count = function.get("executionCount") if isinstance(function, dict) else None
        if type(number) is not int or type(count) is not int:
            skips.add("functions whose line or count is not an integer, skipped")
            continue
        if number < 1:
            skips.add(LINE_BELOW_ONE)
            continue
        if number > MAX_LINE_NUMBER:
            bad_line_number(str(number), path)
        if count < 0:
            skips.add(HITS_NEGATIVE)
        hits = min(max(count, 0), MAX_REPORTED_HITS)
        covered, executable = function.get("coveredLines"), function.get("executableLines")
        some_not_run = type(covered) is int and type(executable) is int and covered < executable
        builder.add(number, hits, MISS if not hits else PARTIAL if some_not_run else HIT)
    return builder.build()


def _detect(head: ReportHead) -> bool:
    return (
        head.kind == "json"
        and head.json_value_start("targets") == "["
        and b'"executableLines"' in head.text
        and b'"lineCoverage"' in head.text
    )


FORMAT = ReportFormat("xccov", "xccov JSON report", _detect, parse_xccov, ("*xccov*.json", "*.xcresult.json"))
