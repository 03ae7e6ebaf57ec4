"""GAP's line profile as JSON lines, one JSON object a line, in the shape Codecov's GAP reader reads (a
file's ``S`` line first). GAP 4.12's own ``CoverageLineByLine`` file starts with a header line and
interleaves its files by ``FileId``: not detected, as on Codecov (docs/parsing.md); read with the format
named, each line goes to the file of its ``FileId``, those files held until the end.

A ``{"Type": "S", "File": "<path>"}`` object starts a file; each object after it marks its ``Line``.
As Codecov reads them: ``"R"`` (the line was read) MISS, any other type (``"E"``, executed) HIT, hits 1
or 0; objects sharing a line merge by the usual rules (a line read and executed is a hit). Paths are
the ``File``s as written.

Skipped and counted: an object outside a named file, without a ``Type`` or a ``Line``, a line that is
not a number or is 0, a file with an empty name. Refused: a line that is not a JSON object. Read a
block of lines at a time, one file at a time.
"""

from __future__ import annotations

import json
import re
from typing import Iterable, Iterator

from ..errors import ReportError
from ..lines import HIT, MISS, LineColumns
from ._common import EMPTY_NAME, ParsedFile, json_line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._text import text_blocks

__all__ = ["FORMAT", "parse_gap"]

_FIRST_LINE = re.compile(rb'\{[^\n]*"Type"\s*:\s*"S"[^\n]*\}[ \t\r]*\n')


def parse_gap(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of a GAP JSON-lines profile read from ``chunks``, one at a time."""
    resolver = context.resolver()
    skips = context.skips
    lines = LineColumns()
    path: str | None = None
    #: GAP's own file: its files by ``FileId`` (a path, or None for a nameless file), lines held per file.
    by_id: dict[object, str | None] = {}
    held: dict[str, LineColumns] = {}
    number = 0
    for block in text_blocks(chunks, "GAP profile"):
        for row in block.splitlines():
            number += 1
            if not row.strip():
                continue
            try:
                entry = json.loads(row)
            except (ValueError, RecursionError):
                entry = None
            if not isinstance(entry, dict):
                raise ReportError(f"invalid GAP profile: line {number} is not a JSON object")
            kind = entry.get("Type")
            file_id = entry.get("FileId")
            if kind == "S":
                if path is not None and len(lines) and not by_id:
                    yield ParsedFile(path, lines.take())
                name = entry.get("File")
                if not isinstance(name, str) or not name.strip():
                    skips.add(EMPTY_NAME)
                    path = None
                else:
                    path = resolver.resolve(name)
                if file_id is not None and not isinstance(file_id, (dict, list)):
                    by_id[file_id] = path
                continue
            if file_id is not None and by_id:
                path = by_id.get(file_id) if not isinstance(file_id, (dict, list)) else None
                if path is not None:
                    lines = held.setdefault(path, LineColumns())
            if path is None:
                skips.add("lines outside a named file, skipped")
                continue
            if not isinstance(kind, str) or "Line" not in entry:
                skips.add("lines without a Type or a Line, skipped")
                continue
            line = json_line_number(entry["Line"], path, skips)
            if line is not None:
                if kind == "R":
                    lines.add(line, 0, MISS)
                else:
                    lines.add(line, 1, HIT)
    if by_id:
        for held_path, held_lines in held.items():
            if len(held_lines):
                yield ParsedFile(held_path, held_lines.take())
    elif path is not None and len(lines):
        yield ParsedFile(path, lines.take())


def _detect(head: ReportHead) -> bool:
    # The first line: a JSON object starting a file, with its "File".
    first = _FIRST_LINE.match(head.text) if head.kind == "json" else None
    return first is not None and b'"File"' in first.group()


FORMAT = ReportFormat("gap", "GAP profile JSON lines", _detect, parse_gap, ("*.gap.json", "*.coverage"))
