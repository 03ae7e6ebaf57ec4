"""LCOV tracefiles (``lcov``/``geninfo``, c8/Istanbul, coverage.py ``coverage lcov``).

Only the records that describe lines matter here: ``SF:`` opens a file, ``DA:line,hits[,checksum]``
gives a line, ``BRDA:line,block,branch,taken`` marks a branch (``-`` or ``0`` = not taken) and
``end_of_record`` closes the file. As on Codecov, a line with branches takes its state from them
(all taken HIT, none MISS, some PARTIAL), with or without a ``DA`` record, except in a ``.js`` file,
which Codecov reads by its ``DA`` counts alone (a line that ran is a hit). Other records (``TN``,
``FN*``, ``LF``, ``BRF``, ``VER`` ...) are passed over; what is skipped or clamped is counted
(docs/parsing.md).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from itertools import compress
from operator import not_
from typing import Any, Iterable, Iterator

from ..errors import ReportError
from ..lines import _U32, HIT, MAX_HITS, MISS, LineCoverage, LineCoverageBuilder
from . import _speedups
from ._common import (
    EMPTY_NAME,
    LINE_DIGITS,
    MAX_LINE_NUMBER,
    NUMBER_DIGITS,
    ParsedFile,
    hit_count,
    line_number,
)
from ._format import ParseContext, ReportFormat, ReportHead
from ._paths import PathResolver
from ._text import text_blocks

__all__ = ["FORMAT", "parse_lcov"]

_compiled = _speedups.load("lcov")

_FIRST_RECORD = re.compile(rb"(?:TN|SF|VER):")

# What the parser skips, counted (docs/parsing.md).
NOT_A_RECORD = "lines that are not LCOV records, skipped"
OUTSIDE_A_FILE = "DA or BRDA records outside an SF: block, skipped"
SHORT_BRDA = "BRDA records without line, block, branch and taken, skipped"
NOT_CLOSED = "SF: blocks without end_of_record, closed"


def parse_lcov(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``SF:`` ... ``end_of_record`` block of an LCOV tracefile.

    A file listed in several blocks (one per test name) is yielded once per block: merge per path.
    Raises ReportError on anything that is not LCOV, on a record cut short and on bad numbers.
    """
    reader = _Reader(context)
    for block in text_blocks(chunks, "LCOV"):
        yield from reader.read(block)
    if reader.builder is not None:
        # Codecov reads a last record without its end_of_record too.
        reader.skips.add(NOT_CLOSED)
        yield from reader.close()
    if not reader.seen_file:
        raise ReportError("LCOV report has no SF: record")


class _Reader:
    """The file being read, and how a chunk's lines are read.

    A chunk is read by the compiled reader when it takes it whole (well-formed records only: a simple
    file comes back built, the others as their records, in order, between open and close); else it
    is cut at its ``SF:`` and ``end_of_record`` lines and the lines between are read one by one, with
    the exact rules.
    """

    def __init__(self, context: ParseContext) -> None:
        self.skips = context.skips
        self.resolver: PathResolver = context.resolver()
        self.path = ""
        self.by_counts = False
        self.builder: LineCoverageBuilder | None = None
        self.branches = _Branches()
        self.seen_file = False

    def read(self, block: str) -> Iterator[ParsedFile]:
        """Read one block of whole lines."""
        if _compiled is not None:
            items = _compiled.read(block, self.builder is not None)
            if items is not None:
                yield from self._compiled_items(items)
                return
        at = 0
        for line_start, is_file in _boundaries(block):
            if line_start > at:
                self._one_by_one(block[at:line_start])
            at = block.index("\n", line_start) + 1
            if is_file:
                yield from self.open(block[line_start + 3 : at - 1])
            else:
                yield from self.close()
        if at < len(block):
            self._one_by_one(block[at:])

    def _compiled_items(self, items: list[Any]) -> Iterator[ParsedFile]:
        # What the compiled reader read: a name opens a file, None closes it, a tuple holds records.
        for item in items:
            if item is None:
                yield from self.close()
            elif type(item) is str:
                yield from self.open(item)
            elif len(item) == 4:
                yield from self._whole_file(*item)
            else:
                lines, hits, states, branch_lines, taken = item
                if lines and self.builder is not None:
                    line_array, hit_array = array(_U32), array(_U32)
                    line_array.frombytes(lines)
                    hit_array.frombytes(hits)
                    self.builder.extend(line_array, hit_array, states)
                if branch_lines:
                    self.branches.lines.frombytes(branch_lines)
                    self.branches.taken.extend(taken)

    def _whole_file(self, name: str, lines: bytes, hits: bytes, states: bytes) -> Iterator[ParsedFile]:
        # A file read whole by the compiled reader, its lines built: as open(), then close().
        if self.builder is not None:
            self.skips.add(NOT_CLOSED)
            yield from self.close()
        self.seen_file = True
        if name.strip():
            self.path = self.resolver.resolve(name)
            if _by_counts(name):
                hit_array = array(_U32)
                hit_array.frombytes(hits)
                states = bytes(map(not_, hit_array))  # MISS (1) where no hits, else HIT (0)
            yield ParsedFile(self.path, LineCoverage.from_bytes(lines, hits, states))
        else:
            self.skips.add(EMPTY_NAME)
            self.path = ""

    def open(self, name: str) -> Iterator[ParsedFile]:
        if self.builder is not None:
            self.skips.add(NOT_CLOSED)
            yield from self.close()
        self.seen_file = True
        self.by_counts = _by_counts(name)
        if name.strip():
            self.path = self.resolver.resolve(name)
        else:
            self.skips.add(EMPTY_NAME)
            self.path = ""  # read, then dropped
        self.builder = LineCoverageBuilder()

    def close(self) -> Iterator[ParsedFile]:
        if self.builder is None:
            self.skips.add(NOT_A_RECORD)  # an end_of_record with no file open
            return
        if self.path:
            yield ParsedFile(self.path, self.builder.build() if self.by_counts else self.branches.apply(self.builder))
        self.builder = None
        self.branches = _Branches()

    def _one_by_one(self, text: str) -> None:
        builder, path, skips = self.builder, self.path, self.skips
        for record in text.split("\n"):
            if record.startswith("DA:"):
                if builder is None:
                    skips.add(OUTSIDE_A_FILE)
                    continue
                number_text, _, rest = record[3:].partition(",")
                hits_text = rest.partition(",")[0]
                if (
                    number_text.isdecimal()
                    and hits_text.isdecimal()
                    and len(number_text) <= LINE_DIGITS
                    and len(hits_text) <= NUMBER_DIGITS
                ):
                    line, count = int(number_text), int(hits_text)  # a well-formed record, at once
                    if 1 <= line <= MAX_LINE_NUMBER and count <= MAX_HITS:
                        builder.add(line, count, HIT if count else MISS)
                        continue
                number = line_number(number_text, path, skips)
                hits = None if number is None else hit_count(hits_text, number, path, skips)
                if number is not None and hits is not None:
                    builder.add(number, hits, HIT if hits else MISS)
            elif record.startswith("BRDA:"):
                if builder is None:
                    skips.add(OUTSIDE_A_FILE)
                    continue
                body = record[5:]
                if body.count(",") < 3:
                    skips.add(SHORT_BRDA)
                    continue
                # The branch's name may hold commas (coverage.py's descriptions): taken is the last field.
                branch_line = line_number(body[: body.find(",")], path, skips)
                if branch_line is not None:
                    taken = body[body.rfind(",") + 1 :].strip()
                    self.branches.add(branch_line, taken != "-" and taken != "0")
            elif record and not _is_other_record(record):
                skips.add(NOT_A_RECORD)


class _Branches:
    """The ``BRDA`` records of one file: each one's line, and whether it was taken (5 bytes a record)."""

    def __init__(self) -> None:
        self.lines = array(_U32)
        self.taken = bytearray()

    def add(self, line: int, taken: bool) -> None:
        self.lines.append(line)
        self.taken.append(taken)

    def apply(self, builder: LineCoverageBuilder) -> LineCoverage:
        """The file's lines, where a line with branches takes its state from them, as on Codecov: all
        taken HIT, none MISS, some PARTIAL; a line with branches and no ``DA`` is tracked, its hits
        the number of branches taken."""
        lines = builder.build()
        if not self.lines:
            return lines
        branches = Counter(self.lines)  # records per line, counted in C
        taken = Counter(compress(self.lines, self.taken))
        numbers = sorted(branches)
        return lines.with_branch_states(
            numbers, list(map(branches.__getitem__, numbers)), list(map(taken.__getitem__, numbers))
        )


def _by_counts(name: str) -> bool:
    """Whether a file is read by its ``DA`` counts alone, its ``BRDA`` records passed over: as on
    Codecov, a name ending in ``.js`` (JavaScript tools' branch records are not gcc's)."""
    return name.rstrip().endswith(".js")


def _boundaries(block: str) -> list[tuple[int, bool]]:
    """Where the block's ``SF:`` (True) and ``end_of_record`` (False) lines start, in order."""
    found = []
    for marker, is_file in (("SF:", True), ("end_of_record\n", False)):
        if block.startswith(marker):
            found.append((0, is_file))
        at = block.find("\n" + marker)
        while at >= 0:
            found.append((at + 1, is_file))
            at = block.find("\n" + marker, at + 1)
    found.sort()
    return found


def _detect(head: ReportHead) -> bool:
    # The first record of a tracefile (a test name, a source file, or lcov 2's version), or, after
    # stray lines, a record's end (what Codecov looks for).
    if head.kind != "text":
        return False
    return _FIRST_RECORD.match(head.text) is not None or b"\nend_of_record" in head.text


FORMAT = ReportFormat("lcov", "LCOV", _detect, parse_lcov, ("*.lcov", "lcov.info", "*.info"))


def _is_other_record(record: str) -> bool:
    key, colon, _ = record.partition(":")
    return bool(colon) and key.isupper() and key.replace("_", "").isalpha()
