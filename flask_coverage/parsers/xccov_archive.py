"""Xcode's per-line coverage as JSON (``xcrun xccov view --archive --json Test.xcresult``: Swift,
Objective-C).

``{"/abs/path/File.swift": [{"line": 1, "isExecutable": true, "executionCount": 3, "subranges":
[{"column", "length", "executionCount"}, ...]}, ...], ...}``: per file every line of the source, in
order; a line that is not executable has ``"isExecutable": false`` and no count (or a null one) and
is not tracked. An executable line's ``executionCount`` is its hits. Its ``subranges`` are the parts
of the line that ran a different number of times than its start (``if ok { return }``): the line is
PARTIAL when some of its parts ran and some did not (the start counted as one part), else HIT when it
ran and MISS when it did not.

Codecov reads no such JSON. The per-line rule is the one of the reader Codecov has for the older
Xcode format with the same per-line fields, the ``xccoverage`` plist: a line with subranges is "n of
m" of its subranges run (all HIT, none MISS, else PARTIAL). Here the line's own count is one more
part, so that a line that ran while all its subranges did not is PARTIAL, not MISS.

Paths are the keys as written (absolute), stripped by ``root`` or placed by the network list.
Skipped and counted: a file with an empty name or whose value is not a list, a line that is not an
object, whose ``isExecutable`` is neither true nor false, or (executable) whose line or count is not
an integer, line 0; a negative count clamped to 0; a subrange that is not an object with an integer
count is passed over. Refused: a line over 10,000,000, a count over 2**63 - 1. Streamed one file at a
time: a file's list is decoded whole when short (json's C decoder), else a line at a time.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from ._common import (
    EMPTY_NAME,
    HITS_NEGATIVE,
    LINE_BELOW_ONE,
    MAX_LINE_NUMBER,
    MAX_REPORTED_HITS,
    ParsedFile,
    bad_hit_count,
    bad_line_number,
)
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import TOO_LARGE, JsonStream

__all__ = ["FORMAT", "parse_xccov_archive"]

NOT_A_LIST = "file entries that are not a list of lines, skipped"
NOT_AN_OBJECT = "lines that are not an object, skipped"
NOT_EXECUTABLE_FLAG = "lines whose isExecutable is neither true nor false, skipped"
NOT_AN_INTEGER = "executable lines whose line or count is not an integer, skipped"
ODD_SUBRANGE = "subranges that are not an object with an integer count, passed over"

# The head: an object whose first member (a path, JSON escapes allowed) is a list of objects (or empty).
_HEAD = re.compile(rb'\{[ \t\r\n]*"(?:[^"\\]|\\.){0,8192}"[ \t\r\n]*:[ \t\r\n]*\[[ \t\r\n]*[{\]]')


def parse_xccov_archive(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per file of an ``xccov view --archive --json`` report read from ``chunks``."""
    resolver = context.resolver()
    skips = context.skips
    stream = JsonStream(chunks)
    stream.expect("{", "xccov's archive JSON is an object of files")
    for name in stream.members():
        if not name.strip():
            stream.skip()
            skips.add(EMPTY_NAME)
            continue
        value = stream.small_value()
        lines: Iterable[Any]
        if value is TOO_LARGE:
            if stream.peek() != "[":
                stream.skip()  # raises if it is not JSON
                skips.add(NOT_A_LIST)
                continue
            lines = stream.items("")
        elif type(value) is list:
            lines = value
        else:
            skips.add(NOT_A_LIST)
            continue
        path = resolver.resolve(name)
        yield ParsedFile(path, _coverage(lines, path, skips))
    stream.end()


def _coverage(lines: Iterable[Any], path: str, skips: Skips) -> LineCoverage:
    builder = LineCoverageBuilder()
    add = builder.add
    for line in lines:
        if type(line) is not dict:
            skips.add(NOT_AN_OBJECT)
            continue
        executable = line.get("isExecutable")
        if executable is not True:
            if executable is not False:
                skips.add(NOT_EXECUTABLE_FLAG)
            continue
        number = line.get("line")
        count = line.get("executionCount")
        if type(number) is not int or type(count) is not int:
            skips.add(NOT_AN_INTEGER)
            continue
        if number < 1:
            skips.add(LINE_BELOW_ONE)
            continue
        if number > MAX_LINE_NUMBER:
            bad_line_number(str(number), path)
        if count < 0:
            skips.add(HITS_NEGATIVE)
            count = 0
        elif count > MAX_REPORTED_HITS:
            bad_hit_count(str(count), number, path)
        subranges = line.get("subranges")
        add(number, count, line_state(count, subranges, skips) if subranges else HIT if count else MISS)
    return builder.build()


def line_state(count: int, subranges: Any, skips: Skips) -> int:
    """The state of an executable line that ran ``count`` times with its ``subranges`` (a list of
    ``{"executionCount"}``): PARTIAL when some of its parts ran and some did not, the line's start one
    of them. Xcode's plist reader (``parsers/xcode_plist.py``) reads its lines by this rule too."""
    if type(subranges) is not list:
        skips.add(ODD_SUBRANGE)
        return HIT if count else MISS
    ran = not_run = False
    if count:
        ran = True
    else:
        not_run = True
    for subrange in subranges:
        sub_count = subrange.get("executionCount") if type(subrange) is dict else None
        if type(sub_count) is not int:
            skips.add(ODD_SUBRANGE)
            continue
        if sub_count < 0:
            skips.add(HITS_NEGATIVE)
        if sub_count > 0:
            ran = True
        else:
            not_run = True
    return PARTIAL if ran and not_run else HIT if ran else MISS


def _detect(head: ReportHead) -> bool:
    return (
        head.kind == "json"
        and _HEAD.match(head.text) is not None
        and b'"isExecutable"' in head.text
        and b'"line"' in head.text
    )


FORMAT = ReportFormat(
    "xccov_archive",
    "xccov archive JSON",
    _detect,
    parse_xccov_archive,
    ("*xccov*.json", "*.xcresult.json"),
)
