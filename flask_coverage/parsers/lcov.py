"""LCOV tracefiles (``lcov``/``geninfo``, c8/Istanbul, coverage.py ``coverage lcov``).

Only the records that describe lines matter here: ``SF:`` opens a file, ``DA:line,hits[,checksum]``
gives a line, ``BRDA:line,block,branch,taken`` marks a branch (``-`` or ``0`` = not taken) and
``end_of_record`` closes the file. A hit line with any branch not taken is PARTIAL. Other records
(``TN``, ``FN*``, ``LF``, ``BRF``, ``VER`` ...) are skipped.
"""

from __future__ import annotations

import codecs
import re
from typing import Iterable, Iterator

from ..errors import ReportError
from ..lines import HIT, MISS, LineCoverageBuilder
from ._common import (
    MAX_LINE_NUMBER,
    MAX_REPORTED_HITS,
    ParsedFile,
    check_hit_count,
    check_line_number,
    quote,
)
from ._format import ParseContext, ReportFormat, ReportHead
from ._input import not_utf8

__all__ = ["FORMAT", "parse_lcov"]

#: Longer lines are refused: real records (paths, C++ function names) are far shorter.
MAX_RECORD_LENGTH = 1 << 20

_FIRST_RECORD = re.compile(rb"(?:TN|SF|VER):")


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
    missed_branches: set[int] = set()
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
                    raise ReportError(f"LCOV line {lineno}: DA record outside of an SF: block")
                number_text, _, rest = record[3:].partition(",")
                hits_text = rest.partition(",")[0]
                # Fast path for well-formed lines; the checks explain anything else.
                if number_text.isdecimal() and hits_text.isdecimal() and len(hits_text) < 20:
                    number = int(number_text) if len(number_text) < 9 else 0
                    hits = int(hits_text)
                    if not 1 <= number <= MAX_LINE_NUMBER or hits > MAX_REPORTED_HITS:
                        number = check_line_number(number_text, path)
                        hits = check_hit_count(hits_text, number, path)
                else:
                    number = check_line_number(number_text, path)
                    hits = check_hit_count(hits_text, number, path)
                builder.add(number, hits, HIT if hits else MISS)
            elif record.startswith("BRDA:"):
                if builder is None:
                    raise ReportError(f"LCOV line {lineno}: BRDA record outside of an SF: block")
                body = record[5:]
                taken = body.rpartition(",")[2].strip()
                if taken == "-" or taken == "0":
                    missed_branches.add(check_line_number(body.partition(",")[0], path))
            elif record.startswith("SF:"):
                if builder is not None:
                    raise ReportError(
                        f"LCOV line {lineno}: SF: record for {quote(path)} is not closed by end_of_record"
                    )
                path = resolver.resolve(record[3:])
                builder = LineCoverageBuilder()
            elif record == "end_of_record":
                if builder is None:
                    raise ReportError(f"LCOV line {lineno}: end_of_record without an SF: record")
                yield ParsedFile(path, builder.build(missed_branches))
                builder = None
                missed_branches = set()
            elif record and not _is_other_record(record):
                raise ReportError(f"LCOV line {lineno} is not an LCOV record: {quote(record, 60)}")
    if builder is not None:
        raise ReportError(f"LCOV report is truncated: the record for {quote(path)} has no end_of_record")
    if not lineno or not path:
        raise ReportError("LCOV report has no SF: record")


def _detect(head: ReportHead) -> bool:
    # The first record of a tracefile: a test name, a source file, or lcov 2's version.
    return head.kind == "text" and _FIRST_RECORD.match(head.text) is not None


FORMAT = ReportFormat("lcov", "LCOV", _detect, parse_lcov, ("*.lcov", "lcov.info", "*.info"))


def _is_other_record(record: str) -> bool:
    key, colon, _ = record.partition(":")
    return bool(colon) and key.isupper() and key.replace("_", "").isalpha()
