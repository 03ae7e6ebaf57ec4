"""D's coverage listing (``dmd -cov``, ``ldc2 -cov``, ``dub test --coverage``: one ``<module>.lst`` per
source file).

Each row is one source line: a count right-aligned in a column of 7 or more (``0000000`` for a line
never run, blanks for no code), a ``|``, the source line. The last row names the file: ``src/app.d is
80% covered`` (or ``... has no code``). As Codecov reads it: a count HIT, 0 MISS, blanks no code; the
path is the last row's name (without a ``source `` prefix), else the report's file name with ``.lst``
made ``.d``.

Skipped and counted: a row whose count is not a number, rows after the last row; a count over the
bound refuses the report. A report has one file: it is yielded once the last row named it.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..errors import ReportError
from ..lines import HIT, MISS, LineColumns
from ._common import MAX_LINE_NUMBER, ParsedFile, bad_line_number, hit_count
from ._format import ParseContext, ReportFormat, ReportHead
from ._text import text_blocks

__all__ = ["FORMAT", "parse_dlst"]

# The head's blanks are stripped: the first row's count column is known by its second and third rows.
_FIRST_ROWS = re.compile(rb"[0-9]*\|[^\n]*\n( *[0-9]*)\|[^\n]*\n( *[0-9]*)\|")
_LAST_ROW = re.compile(r"(.+?) (?:is \d{1,3}% covered|has no code)")
ROW_NOT_A_COUNT = "rows whose count is not a number, skipped"


def parse_dlst(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the one file of a D coverage listing read from ``chunks``."""
    lines = LineColumns()
    skips = context.skips
    number = 0
    name = None
    for block in text_blocks(chunks, "D coverage listing"):
        for row in block.splitlines():
            number += 1
            count, bar, _source = row.partition("|")
            if name is not None:
                skips.add("rows after the summary row, skipped")
                continue
            if not bar:
                last = _LAST_ROW.fullmatch(row.strip())
                if last is not None:
                    name = last.group(1).removeprefix("source ")
                    continue
                skips.add(ROW_NOT_A_COUNT)
                continue
            count = count.strip()
            if not count:
                continue
            if number > MAX_LINE_NUMBER:
                bad_line_number(str(number), "the D coverage listing")
            hits = hit_count(count, number, "the D coverage listing", skips)
            if hits is not None:
                lines.add(number, hits, HIT if hits else MISS)
    if name is None:
        hint = (context.name or "").replace("\\", "/")
        if not hint.endswith(".lst"):
            raise ReportError(
                "D coverage listing without its last row ('FILE is N% covered') and uploaded without a "
                ".lst file name: which file it covers is unknown"
            )
        name = hint[:-3] + "d"
    if len(lines):
        yield ParsedFile(context.resolver().resolve(name), lines.take())


def _detect(head: ReportHead) -> bool:
    # The first three rows: the count column (7 or more wide) ends at the same "|".
    rows = _FIRST_ROWS.match(head.text) if head.kind == "text" else None
    return rows is not None and len(rows.group(1)) == len(rows.group(2)) >= 7


FORMAT = ReportFormat("dlst", "D coverage listing", _detect, parse_dlst, ("*.lst",))
