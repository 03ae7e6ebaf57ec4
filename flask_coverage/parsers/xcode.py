"""llvm-cov's text view (``llvm-cov show``, ``xcrun llvm-cov show``: what codecov-cli's Xcode plugin
uploads for Swift and Objective-C, and any clang build).

Each file starts with its path and a colon alone on a line (``/w/Sources/App/View.swift:``), then one
row per source line: ``line|count|source``. As Codecov reads it: an empty count is no code, a count is
HIT or (0) MISS (``1.2k`` and ``3.4M`` are thousands and millions; ``E`` marks are dropped), a row
whose source is a lone ``}`` is not tracked, and rows of the function instantiations' sub-views
(``|``, ``-`` first) are skipped. Colour output (``-use-color``) marks a region never run inside a
line in red: a counted line with one is PARTIAL here, where Codecov stores it as 0 (a miss), because a
line that ran with a part that did not is what PARTIAL means in every other format. The path is as
written (Codecov drops its first character, the ``/`` of an absolute path: the same path once placed).

llvm-cov before 3.9 wrote ``count|line|source`` (a count column 7 wide, then a line column 5 wide;
counts as plain integers cut to 7 digits): the first row of the report decides the layout by those
widths, and such a report is read by the rules above with the two columns swapped, sub-views (rows
indented by ``  |``) skipped, in Python (the compiled reader knows the current layout only). Codecov
reads a report ``count|line|source`` unless a row's second column is not a number while its first is
``1``, and then ``line|count|source``.

Skipped and counted as in every format (``parsers/_common.py``): a row whose line number or count is
not a number, line 0, rows before the first path.
Read a block at a time by the compiled reader ``_speedups/xcode.c`` where it was built and the block is
well formed (no colour codes, no ``E`` mark, plain numbers in range, rows in order); otherwise, and
without the compiled reader, line by line with the rules above.
"""

from __future__ import annotations

import re
from array import array
from typing import Iterable, Iterator

from ..lines import _U32, HIT, MAX_HITS, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from . import _speedups
from ._common import (
    HITS_NOT_A_NUMBER,
    LINE_DIGITS,
    MAX_LINE_NUMBER,
    MAX_REPORTED_HITS,
    NUMBER_DIGITS,
    ParsedFile,
    line_number,
)
from ._format import ParseContext, ReportFormat, ReportHead
from ._text import text_blocks

__all__ = ["FORMAT", "parse_xcode"]

#: What llvm-cov writes around a region never run, with ``-use-color``.
RED = "\x1b[0;41m"
_COLOR = re.compile(r"\x1b\[[0-9;]*m")
_COLOR_BYTES = re.compile(rb"\x1b\[[0-9;]*m")
_EXTENSIONS = (".h", ".m", ".mm", ".swift", ".hpp", ".cpp", ".cxx", ".c", ".C", ".cc", ".c++", ".rs")
_FIRST_ROW = re.compile(rb"[^\n]*:[ \t]*\r?\n[ \t]*(?:[0-9]+\||\|[ \t]*[0-9]+\|)")
#: The widths of llvm-cov's count and line columns before 3.9, which wrote ``count|line|source``.
COUNT_WIDTH, LINE_WIDTH = 7, 5
_SCALE = {"k": 1_000, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000, "T": 1_000_000_000_000}

#: The compiled reader of a block's well-formed rows, or None where it was not built.
_compiled = _speedups.load("xcode")


def parse_xcode(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per file of ``llvm-cov show`` text read from ``chunks``."""
    skips = context.skips
    resolver = context.resolver()
    path = ""
    lines: array[int] | None = None  # the file's rows, as three columns
    hits: array[int] = array(_U32)
    states = bytearray()
    trusted = True  # the file's rows all came from the compiled reader: increasing, in range
    compiled = _compiled
    counts_first: bool | None = None  # llvm-cov before 3.9: decided on the report's first row
    for block in text_blocks(chunks, "llvm-cov show text"):
        if counts_first is None:
            counts_first = _counts_first(block)
            if counts_first:
                compiled = None  # the compiled reader knows the current layout only
        if compiled is not None:
            files = compiled.read(block, lines is not None, lines[-1] if lines and trusted else 0)
            if files is not None:
                for name, line_bytes, hit_bytes, state_bytes in files:
                    if name is None:  # more rows of the open file
                        lines.frombytes(line_bytes)  # type: ignore[union-attr]
                        hits.frombytes(hit_bytes)
                        states += state_bytes
                        continue
                    if lines is not None:
                        yield ParsedFile(path, _coverage(lines, hits, states, trusted))
                    path, trusted = resolver.resolve(name), True
                    lines, hits, states = array(_U32, line_bytes), array(_U32, hit_bytes), bytearray(state_bytes)
                continue
        trusted = False
        # Colour codes may wrap the path, the count and parts of the source; none holds a "|".
        colour = "\x1b" in block
        for row in block.split("\n")[:-1]:
            number_text, bar, rest = row.partition("|")
            count_text, _, source = rest.partition("|")
            if colour:
                number_text, count_text = _COLOR.sub("", number_text), _COLOR.sub("", count_text)
            if counts_first and bar:
                if len(number_text) != COUNT_WIDTH:
                    continue  # a sub-view's row (an expansion, an instantiation): its indent first
                number_text, count_text = count_text, number_text
            number_text = number_text.strip()
            if not number_text or number_text[0] in "-w" or (not bar and not number_text.endswith(":")):
                continue  # blank, a separator, a warning, an instantiation's sub-view ("  | f:")
            if not bar:
                if lines is not None:
                    yield ParsedFile(path, _coverage(lines, hits, states, trusted))
                path, lines, hits, states = resolver.resolve(number_text[:-1]), array(_U32), array(_U32), bytearray()
                trusted = False
                continue
            if lines is None:
                skips.add("rows before the first file's path, skipped")
                continue
            count_text = count_text.strip()
            if "E" in count_text:
                count_text = count_text.replace("E", "").strip()
            if not count_text or "}" in source and (_COLOR.sub("", source) if colour else source).strip() == "}":
                continue
            if (
                number_text.isdecimal()
                and count_text.isdecimal()
                and len(number_text) <= LINE_DIGITS
                and len(count_text) <= NUMBER_DIGITS
            ):
                number, count = int(number_text), int(count_text)  # the usual row, read at once
                if not 1 <= number <= MAX_LINE_NUMBER:
                    number = line_number(number_text, path, skips)  # type: ignore[assignment]
                    if number is None:
                        continue
            else:
                checked = line_number(number_text, path, skips)
                if checked is None:
                    continue
                counted = _count(count_text)
                if counted is None:
                    skips.add(HITS_NOT_A_NUMBER)
                    continue
                number, count = checked, counted
            lines.append(number)
            hits.append(count if count <= MAX_HITS else MAX_HITS)
            states.append((PARTIAL if colour and RED in source else HIT) if count else MISS)
    if lines is not None:
        yield ParsedFile(path, _coverage(lines, hits, states, trusted))


def _counts_first(block: str) -> bool | None:
    """Whether the first row of the report (in its first block) is llvm-cov's layout before 3.9,
    ``count|line|source`` (a count column 7 wide, a line column 5 wide), rather than ``line|count|source``
    (5 then 7); None when the block holds no row yet."""
    for row in block.split("\n", 64)[:64]:
        fields = _COLOR.sub("", row).split("|", 2)
        if len(fields) == 3:
            return len(fields[0]) == COUNT_WIDTH and len(fields[1]) == LINE_WIDTH and fields[1].strip().isdecimal()
    return None


def _coverage(lines: array[int], hits: array[int], states: bytearray, trusted: bool) -> LineCoverage:
    if trusted:  # sorted, unique and in range (the compiled reader checks each row)
        return LineCoverage._trusted(lines, hits, states)
    builder = LineCoverageBuilder()
    builder.extend(lines, hits, states)
    return builder.build()


def _count(text: str) -> int | None:
    scale = _SCALE.get(text[-1], 1)
    digits = text[:-1] if scale > 1 else text
    if not digits or len(digits) > 24 or not digits.replace(".", "", 1).isdecimal():
        return None
    return min(int(float(digits) * scale), MAX_REPORTED_HITS)


def _detect(head: ReportHead) -> bool:
    text = _COLOR_BYTES.sub(b"", head.text[:8192])
    if head.kind != "text" or _FIRST_ROW.match(text) is None:
        return False
    first = text.partition(b"\n")[0].decode("utf-8", "replace").strip()
    return first.endswith(":") and first[:-1].endswith(_EXTENSIONS)


FORMAT = ReportFormat("xcode", "llvm-cov show text", _detect, parse_xcode, ("*.coverage.txt",))
