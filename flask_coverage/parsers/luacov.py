"""luacov's text report (``luacov.report.out``, its default reporter: Lua).

Each file is a rule of ``=``, its name, another rule, then its source, one row per line: a count
column (``  12``, ``**0`` for a line never run, blanks for no code), a blank, the source line. A file
named ``Summary`` ends the files (luacov's own table follows). As Codecov reads it: a count is HIT,
``*0`` MISS, a row without a count no code. Codecov takes any row's first word for its count, so a
row of a table (``      20``, no code) would count 20 hits; here the count column's width decides, as
luacov writes it: the width is the same on every row of a file (the widest count plus one), and a
row is code only when its count ends there. Paths are the names as written (relative to where luacov
ran), placed by the network list.

Skipped and counted: rows before the first file, a file with an empty name (its rows too); refused as
in every format: a count over 2**63-1, a file over 10,000,000 lines. Read line by line; a file's rows
with a count are held until its end, where the width is known. It has no compiled reader: luacov's
reports are small (docs/parsing.md#compiled-readers says what one would save).
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..lines import HIT, MISS, LineCoverageBuilder
from ._common import (
    EMPTY_NAME,
    MAX_LINE_NUMBER,
    MAX_REPORTED_HITS,
    NUMBER_DIGITS,
    ParsedFile,
    bad_hit_count,
    bad_line_number,
)
from ._format import ParseContext, ReportFormat, ReportHead
from ._text import text_blocks

__all__ = ["FORMAT", "parse_luacov"]

_RULE = re.compile(r"={7,}")
_COUNT = re.compile(rf" *([0-9]{{1,{NUMBER_DIGITS}}}|\*+0) ")
_HEAD = re.compile(rb"={7,}\r?\n[^\r\n]*\r?\n={7,}\r?(?:\n|$)")


def parse_luacov(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per file of a luacov report read from ``chunks``."""
    resolver = context.resolver()
    skips = context.skips
    # "start" (before the first rule), "name" (after a rule), "body" (a file's rows), "skip" (a
    # nameless file's rows); a rule after a name opens the body, a rule in a body ends the file.
    state = "start"
    path = ""
    rows: list[tuple[int, int, int]] = []  # (line, hits, where the count ends) of the file being read
    number = 0
    for block in text_blocks(chunks, "luacov report"):
        for row in block.split("\n")[:-1]:
            rule = _RULE.fullmatch(row) is not None
            if state == "body":
                if rule and number == 0:
                    continue  # the rule under the name
                if rule:
                    yield _finished(path, rows)
                    rows, state = [], "name"
                    continue
                number += 1
                if number > MAX_LINE_NUMBER:
                    bad_line_number(str(number), path)
                match = _COUNT.match(row)
                if match is not None:
                    count = match.group(1)
                    rows.append((number, 0 if count[0] == "*" else int(count), match.end()))
            elif state == "name":
                if row == "Summary":
                    return  # luacov's own table follows
                number, rows = 0, []
                if row.strip():
                    path, state = resolver.resolve(row), "body"
                else:
                    skips.add(EMPTY_NAME)
                    state = "skip"
            elif rule:
                if state == "skip" and number == 0:
                    number = 1  # the rule under the empty name
                else:
                    state = "name"
            elif state == "start" and row.strip():
                skips.add("rows before the first file, skipped")
    if state == "body":
        yield _finished(path, rows)


def _finished(path: str, rows: list[tuple[int, int, int]]) -> ParsedFile:
    # The count column ends at one place on every row of a file; a row whose "count" ends further
    # right is source text (a number in a table) on a row without code.
    width = min((end for _, _, end in rows), default=0)
    builder = LineCoverageBuilder()
    for line, hits, end in rows:
        if end == width:
            if hits > MAX_REPORTED_HITS:
                bad_hit_count(str(hits), line, path)
            builder.add(line, hits, HIT if hits else MISS)
    return ParsedFile(path, builder.build())


def _detect(head: ReportHead) -> bool:
    return head.kind == "text" and _HEAD.match(head.text) is not None


FORMAT = ReportFormat("luacov", "luacov report", _detect, parse_luacov, ("luacov.report.out", "*.report.out"))
