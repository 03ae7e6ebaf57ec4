"""Xcode's ``xccoverage`` archive as an XML property list (Xcode 7 to 9.2 wrote ``Action.xccoverage``;
``plutil -convert xml1`` makes it XML, the form Codecov reads).

The plist is an ``NSKeyedArchiver`` graph: ``$objects`` is a list whose entries refer to one another by
``{"CF$UID": index}``. Entry 2 lists the targets; a target's ``sourceFiles`` its files; a file's
``documentLocation`` is its path and ``lines`` its lines, one per source line from line 1, each with
``x`` (executable or not), ``c`` (its count) and ``s`` (its subranges, each ``c`` column, ``len`` and
``x`` count; 0 when none). A line not executable is no code; an executable line's ``c`` is its hits,
and its state is that of the same line of Xcode's archive JSON (``xccov_archive.line_state``): PARTIAL
when some of its parts (its start and its subranges, those two characters long left out as Codecov
does: a method's closing brace) ran and some did not, else HIT or MISS. Codecov makes a line with
subranges "n of m subranges run", so a line that ran with its one subrange not run is a MISS there
and PARTIAL here, as in the archive JSON; the totals of the two formats of one run agree.

The graph is read whole (references point anywhere), so a plist over :data:`MAX_PLIST_BYTES` is
refused. Skipped and counted: a line that is not an object, a count that is not a number (negative
clamped, decimals rounded down), a file without a path. Refused: references out of range or of the wrong
kind, and a graph that refers to more lines and subranges than it holds objects (no archive Xcode
writes shares them; a hostile one would cost as much as its references multiply).
"""

from __future__ import annotations

import plistlib
from typing import Any, Iterable, Iterator
from xml.parsers import expat

from ..errors import ReportError
from ..lines import HIT, MISS, LineColumns
from ._common import EMPTY_NAME, MAX_LINE_NUMBER, ParsedFile, bad_line_number
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from .coveralls import json_hit_count
from .xccov_archive import line_state

__all__ = ["FORMAT", "MAX_PLIST_BYTES", "parse_xcode_plist"]

#: The largest plist read: it is parsed whole, its objects taking about ten times its bytes.
MAX_PLIST_BYTES = 32 * 1024 * 1024

_NOT_AN_ARCHIVE = "invalid Xcode plist report: not an xccoverage archive"


def parse_xcode_plist(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per source file of an xccoverage XML plist read from ``chunks``."""
    data = bytearray()
    for chunk in chunks:
        data += chunk
        if len(data) > MAX_PLIST_BYTES:
            raise ReportError(
                f"Xcode plist report over {MAX_PLIST_BYTES} bytes refused: it is read whole; upload "
                "`xcrun xccov view --archive --json` (xccov_archive) instead"
            )
    try:
        archive = plistlib.loads(bytes(data), fmt=plistlib.FMT_XML)
    except (plistlib.InvalidFileException, expat.ExpatError, ValueError, LookupError) as exc:
        raise ReportError(f"invalid Xcode plist report: {exc}".splitlines()[0]) from None
    objects = archive.get("$objects") if isinstance(archive, dict) else None
    if not isinstance(objects, list):
        raise ReportError(_NOT_AN_ARCHIVE)
    return _files(_Graph(objects), context)


class _Graph:
    """``$objects`` and its references, each followed once per use within a budget of its size."""

    def __init__(self, objects: list[Any]) -> None:
        self.objects = objects
        self.budget = len(objects)

    def follow(self, reference: Any, kind: type) -> Any:
        index = reference.get("CF$UID") if isinstance(reference, dict) else None
        if type(index) is not int or not 0 <= index < len(self.objects):
            raise ReportError(_NOT_AN_ARCHIVE)
        value = self.objects[index]
        if not isinstance(value, kind):
            raise ReportError(_NOT_AN_ARCHIVE)
        return value

    def items(self, reference: Any) -> list[Any]:
        """The ``NS.objects`` of the array ``reference`` points at, charged to the budget."""
        items = self.follow(reference, dict).get("NS.objects")
        if not isinstance(items, list):
            raise ReportError(_NOT_AN_ARCHIVE)
        self.budget -= len(items)
        if self.budget < 0:
            raise ReportError("invalid Xcode plist report: it refers to more lines than it holds")
        return items


def _files(graph: _Graph, context: ParseContext) -> Iterator[ParsedFile]:
    resolver = context.resolver()
    targets = graph.objects[2] if len(graph.objects) > 2 else None
    if not isinstance(targets, dict) or not isinstance(targets.get("NS.objects"), list):
        raise ReportError(_NOT_AN_ARCHIVE)
    for target in targets["NS.objects"]:
        for source in graph.items(graph.follow(target, dict).get("sourceFiles")):
            entry = graph.follow(source, dict)
            name = graph.follow(entry.get("documentLocation"), str)
            if not name.strip():
                context.skips.add(EMPTY_NAME)
                continue
            path = resolver.resolve(name)
            lines = _lines(graph, graph.items(entry.get("lines")), path, context.skips)
            if len(lines):
                yield ParsedFile(path, lines.take())


def _lines(graph: _Graph, references: list[Any], path: str, skips: Skips) -> LineColumns:
    lines = LineColumns()
    if len(references) > MAX_LINE_NUMBER:
        bad_line_number(str(len(references)), path)
    for number, reference in enumerate(references, start=1):
        line = graph.follow(reference, object)
        if not isinstance(line, dict):
            skips.add("lines that are not objects, skipped")
            continue
        if line.get("x") is False:
            continue  # not executable: no code
        hits = json_hit_count(line.get("c"), skips)
        if hits is None:
            continue
        subranges = line.get("s")
        parts = []
        if isinstance(subranges, dict) and subranges.get("CF$UID") != 0:
            for item in graph.items(subranges):
                subrange = graph.follow(item, dict)
                if subrange.get("len") != 2:  # two characters long: a method's closing brace
                    parts.append({"executionCount": subrange.get("x")})
        lines.add(number, hits, line_state(hits, parts, skips) if parts else HIT if hits else MISS)
    return lines


def _detect(head: ReportHead) -> bool:
    return (
        head.xml_root == "plist"
        and b"NSKeyedArchiver" in head.text
        and (b"<key>sourceFiles</key>" in head.text or b"<key>documentLocation</key>" in head.text)
    )


FORMAT = ReportFormat(
    "xcode_plist", "Xcode xccoverage plist", _detect, parse_xcode_plist, ("*xccoverage.plist", "*.xccoverage")
)
