"""gcov's JSON format (``gcov --json-format``, gcc 9+: ``*.gcov.json.gz``, decompressed).

``{"gcc_version": ..., "files": [{"file": path, "lines": [{"line_number", "count", "branches": [{"count",
...}]}]}]}``. Codecov reads no such format (its gcov plugin makes text); the rule is gcovr's, which
reads these files: a line at 0 is MISS; a counted line is PARTIAL when one of its branches was never
taken, else HIT. The JSON holds no source text, so the text format's rule (branches of ``if``/``for``/
``while`` lines only, Codecov's default) cannot be applied: a ternary's untaken branch makes its line
PARTIAL here, as gcovr's Cobertura says. A line listed twice (an inline function in several callers)
adds up. Paths are the ``file`` names as gcc was given them (relative to
``current_working_directory``, or absolute).

Skipped and counted: a file entry without a name or a ``lines`` list, a line without a readable number
or count. Streamed one source file at a time.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from ._common import MAX_LINE_NUMBER, ParsedFile
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

__all__ = ["FORMAT", "parse_gcov_json"]


def parse_gcov_json(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per entry of ``files`` of gcov's JSON format read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "gcov's JSON format is an object")
    for key in stream.members():
        if key != "files":
            stream.skip()
            continue
        for entry in stream.items("gcov JSON: files is not a list"):
            name = entry.get("file") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not isinstance(entry.get("lines"), list):
                context.skips.add("file entries without a name or a lines list, skipped")
                continue
            yield ParsedFile(resolver.resolve(name), _lines(entry["lines"], context.skips))
    stream.end()


def _lines(lines: list[Any], skips: Skips) -> LineCoverage:
    builder = LineCoverageBuilder()
    for line in lines:
        number = line.get("line_number") if isinstance(line, dict) else None
        count = line.get("count") if isinstance(line, dict) else None
        if type(number) is not int or type(count) is not int or not 1 <= number <= MAX_LINE_NUMBER or count < 0:
            skips.add("lines without a readable number or count, skipped")
            continue
        branches = line.get("branches")
        untaken = isinstance(branches, list) and any(
            isinstance(branch, dict) and branch.get("count") == 0 for branch in branches
        )
        builder.add(number, count, MISS if not count else PARTIAL if untaken else HIT)
    return builder.build()


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and b'"gcc_version"' in head.text and head.json_value_start("files") == "["


FORMAT = ReportFormat("gcov_json", "gcov JSON", _detect, parse_gcov_json, ("*.gcov.json",))
