"""SimpleCov's JSON (Ruby): ``coverage/.resultset.json`` and the JSON formatters' ``coverage.json``.

Three shapes are read, each a map from file path to its ``lines``:

- ``.resultset.json``: ``{"<command name>": {"coverage": {path: {"lines": [...]}}, "timestamp": ...}}``
  (SimpleCov before 0.18 wrote the list itself in place of ``{"lines": ...}``); every command's run is
  read, and a file of several runs is merged per path;
- ``simplecov_json_formatter``: ``{"meta": {"simplecov_version": ...}, "coverage": {path: {"lines": [...]}}}``;
- ``simplecov-json``: ``{"command_name": ..., "files": [{"filename": path, "coverage": [...] or {"lines": [...]}}]}``.

Element *i* of ``lines`` is line *i + 1*: ``null`` is no code (not tracked), a count is HIT or (0) MISS,
and ``"ignored"`` (``# :nocov:``) is left out, as Codecov reads them. SimpleCov's branch data is not
read, as Codecov does not: lines are never PARTIAL. Paths are as written (absolute).

Skipped and counted: a file entry without a readable ``lines`` list, an element that is neither null,
``"ignored"`` nor a count. Streamed one file entry at a time.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from ..lines import LineCoverage
from ._common import ParsedFile
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream
from ._paths import PathResolver
from .coveralls import list_lines

__all__ = ["FORMAT", "parse_simplecov"]

NO_LINES = "file entries without a readable filename or lines, skipped"

_RESULTSET = re.compile(rb'\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"coverage"\s*:\s*\{')


def parse_simplecov(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per file entry of a SimpleCov JSON report read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "a SimpleCov JSON report is an object")
    for key in stream.members():
        if key == "coverage" and stream.peek() == "{":
            yield from _files(stream, resolver, context.skips)
        elif key == "files" and stream.peek() == "[":
            for entry in stream.items(""):
                if not isinstance(entry, dict) or not isinstance(entry.get("filename"), str):
                    context.skips.add(NO_LINES)
                    continue
                lines = _lines(entry.get("coverage"), context.skips)
                if lines is not None:
                    yield ParsedFile(resolver.resolve(entry["filename"]), lines)
        elif stream.peek() == "{":  # a command's run in .resultset.json
            stream.expect("{", "")
            for part in stream.members():
                if part == "coverage" and stream.peek() == "{":
                    yield from _files(stream, resolver, context.skips)
                else:
                    stream.skip()
        else:
            stream.skip()
    stream.end()


def _files(stream: JsonStream, resolver: PathResolver, skips: Skips) -> Iterator[ParsedFile]:
    stream.expect("{", "")
    for name in stream.members():
        lines = _lines(stream.value(), skips)
        if lines is not None:
            yield ParsedFile(resolver.resolve(name), lines)


def _lines(coverage: Any, skips: Skips) -> LineCoverage | None:
    if isinstance(coverage, dict):
        coverage = coverage.get("lines")
    if not isinstance(coverage, list):
        skips.add(NO_LINES)
        return None
    return list_lines(coverage, 1, skips)


def _detect(head: ReportHead) -> bool:
    if head.kind != "json":
        return False
    if b'"simplecov_version"' in head.text and head.json_value_start("coverage") == "{":
        return True
    if head.json_value_start("command_name") == '"' and head.json_value_start("files") == "[":
        return True
    return _RESULTSET.match(head.text) is not None


FORMAT = ReportFormat(
    "simplecov", "SimpleCov JSON", _detect, parse_simplecov, (".resultset.json", "resultset.json", "coverage.json")
)
