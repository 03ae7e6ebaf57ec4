"""LCOV tracefiles (``lcov``/``geninfo``, c8/Istanbul, coverage.py ``coverage lcov``).

Only the records that describe lines matter here: ``SF:`` opens a file, ``DA:line,hits[,checksum]``
gives a line, ``BRDA:line,block,branch,taken`` marks a branch (``-`` or ``0`` = not taken) and
``end_of_record`` closes the file. As on Codecov, a line with branches takes its state from them
(all taken HIT, none MISS, some PARTIAL), with or without a ``DA`` record. Other records (``TN``,
``FN*``, ``LF``, ``BRF``, ``VER`` ...) are passed over; what is skipped or clamped is counted
(docs/parsing.md).
"""

from __future__ import annotations

import codecs
import re
from typing import Iterable, Iterator

from ..errors import ReportError
from ..lines import HIT, MISS, LineCoverage, LineCoverageBuilder
from ._common import (
    EMPTY_NAME,
    MAX_LINE_NUMBER,
    MAX_REPORTED_HITS,
    ParsedFile,
    hit_count,
    line_number,
)
from ._format import ParseContext, ReportFormat, ReportHead
from ._input import not_utf8

__all__ = ["FORMAT", "parse_lcov"]

#: Longer lines are refused: real records (paths, C++ function names) are far shorter.
MAX_RECORD_LENGTH = 1 << 20

_FIRST_RECORD = re.compile(rb"(?:TN|SF|VER):")

# What the parser skips, counted (docs/parsing.md).
NOT_A_RECORD = "lines that are not LCOV records, skipped"
OUTSIDE_A_FILE = "DA or BRDA records outside an SF: block, skipped"
SHORT_BRDA = "BRDA records without line, block, branch and taken, skipped"
NOT_CLOSED = "SF: blocks without end_of_record, closed"

# A BRDA record's weight in _Branches: up to 4095 branches a line are counted exactly (hits saturate).
_ONE_BRANCH = 1 << 20


def parse_lcov(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``SF:`` ... ``end_of_record`` block of an LCOV tracefile.

    A file listed in several blocks (one per test name) is yielded once per block: merge per path.
    Raises ReportError on anything that is not LCOV, on a record cut short and on bad numbers.
    """
    resolver = context.resolver()
    decoder = codecs.getincrementaldecoder("utf-8-sig")()  # a byte order mark first is dropped
    offset = 0
    lineno = 0
    pending = ""
    path = ""
    builder: LineCoverageBuilder | None = None
    branches = _Branches()
    skips = context.skips
    seen_file = False
    final = False
    chunk_iter = iter(chunks)
    while not final:
        chunk = next(chunk_iter, None)
        final = chunk is None
        data = chunk or b""
        # Bytes of a character split across chunks wait in the decoder; offsets count from them.
        start = offset - len(decoder.getstate()[0])
        try:
            text = decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            raise not_utf8(start + exc.start) from None
        offset += len(data)
        text = pending + text
        if "\r" in text:
            # Windows line ends; a lone trailing CR can only be the last line's.
            text = text.replace("\r\n", "\n")
            if final and text.endswith("\r"):
                text = text[:-1]
        records = text.split("\n")
        pending = "" if final else records.pop()
        if len(pending) > MAX_RECORD_LENGTH:
            # Without a line end in sight, joining chunks would copy ever more on every read.
            raise ReportError(f"LCOV line {lineno + len(records) + 1} is longer than {MAX_RECORD_LENGTH} characters")
        for record in records:
            lineno += 1
            if record.startswith("DA:"):
                if builder is None:
                    skips.add(OUTSIDE_A_FILE)
                    continue
                number_text, _, rest = record[3:].partition(",")
                hits_text = rest.partition(",")[0]
                # Fast path for well-formed lines; line_number and hit_count read or skip the rest.
                if number_text.isdecimal() and hits_text.isdecimal() and len(hits_text) < 20:
                    number = int(number_text) if len(number_text) < 9 else 0
                    hits = int(hits_text)
                    if 1 <= number <= MAX_LINE_NUMBER and hits <= MAX_REPORTED_HITS:
                        builder.add(number, hits, HIT if hits else MISS)
                        continue
                checked = line_number(number_text, path, skips)
                hits_checked = None if checked is None else hit_count(hits_text, checked, path, skips)
                if checked is not None and hits_checked is not None:
                    builder.add(checked, hits_checked, HIT if hits_checked else MISS)
            elif record.startswith("BRDA:"):
                if builder is None:
                    skips.add(OUTSIDE_A_FILE)
                    continue
                body = record[5:]
                if body.count(",") < 3:
                    skips.add(SHORT_BRDA)
                    continue
                # The branch's name may hold commas (coverage.py's descriptions): taken is the last field.
                number_text = body[: body.find(",")]
                if number_text.isdecimal() and len(number_text) < 9 and 0 < int(number_text) <= MAX_LINE_NUMBER:
                    branch_line: int | None = int(number_text)
                else:
                    branch_line = line_number(number_text, path, skips)
                if branch_line is not None:
                    taken = body[body.rfind(",") + 1 :].strip()
                    branches.add(branch_line, taken != "-" and taken != "0")
            elif record.startswith("SF:"):
                if builder is not None:
                    skips.add(NOT_CLOSED)
                    if path:
                        yield ParsedFile(path, branches.apply(builder))
                    branches = _Branches()
                seen_file = True
                name = record[3:]
                if name.strip():
                    path = resolver.resolve(name)
                else:
                    skips.add(EMPTY_NAME)
                    path = ""  # read, then dropped
                builder = LineCoverageBuilder()
            elif record == "end_of_record":
                if builder is None:
                    skips.add(NOT_A_RECORD)
                    continue
                if path:
                    yield ParsedFile(path, branches.apply(builder))
                builder = None
                branches = _Branches()
            elif record and not _is_other_record(record):
                skips.add(NOT_A_RECORD)
    if builder is not None:
        # Codecov reads a last record without its end_of_record too.
        skips.add(NOT_CLOSED)
        if path:
            yield ParsedFile(path, branches.apply(builder))
    if not seen_file:
        raise ReportError("LCOV report has no SF: record")


class _Branches:
    """The ``BRDA`` records of one file in one builder, as compactly as its ``DA`` lines: each record
    adds ``2**20`` (one branch) plus 1 if taken to its line's hits, which the builder sums per line."""

    def __init__(self) -> None:
        self.builder = LineCoverageBuilder()
        self._line = self._packed = 0  # the records of one line come together: summed before adding

    def add(self, line: int, taken: bool) -> None:
        if line != self._line:
            if self._line:
                self.builder.add(self._line, self._packed, MISS)
            self._line, self._packed = line, 0
        self._packed += _ONE_BRANCH + 1 if taken else _ONE_BRANCH

    def apply(self, builder: LineCoverageBuilder) -> LineCoverage:
        """The file's lines, where a line with branches takes its state from them, as on Codecov: all
        taken HIT, none MISS, some PARTIAL; a line with branches and no ``DA`` is tracked, its hits
        the number of branches taken."""
        lines = builder.build()
        if self._line:
            self.builder.add(self._line, self._packed, MISS)
            self._line = 0
        if not len(self.builder):
            return lines
        return lines.with_branch_states(self.builder.build(), _ONE_BRANCH)


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
