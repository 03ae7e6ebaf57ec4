"""LCOV tracefiles (``lcov``/``geninfo``, c8/Istanbul, coverage.py ``coverage lcov``).

Only the records that describe lines matter here: ``SF:`` opens a file, ``DA:line,hits[,checksum]``
gives a line, ``BRDA:line,block,branch,taken`` marks a branch (``-`` or ``0`` = not taken) and
``end_of_record`` closes the file. As on Codecov, a line with branches takes its state from them
(all taken HIT, none MISS, some PARTIAL), with or without a ``DA`` record. Other records (``TN``,
``FN*``, ``LF``, ``BRF``, ``VER`` ...) are passed over; what is skipped or clamped is counted
(docs/parsing.md).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from itertools import compress
from operator import not_
from typing import Iterable, Iterator

from ..errors import ReportError
from ..lines import HIT, MAX_HITS, MISS, LineCoverage, LineCoverageBuilder
from ._common import (
    EMPTY_NAME,
    MAX_LINE_NUMBER,
    ParsedFile,
    hit_count,
    line_number,
)
from ._format import ParseContext, ReportFormat, ReportHead
from ._paths import PathResolver
from ._text import numbers_of, text_blocks

__all__ = ["FORMAT", "parse_lcov"]

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

    A chunk is cut at its ``SF:`` and ``end_of_record`` lines. Between them, the records of a file
    come in runs (all ``DA`` lines together, all ``BRDA`` lines together): the runs of the whole chunk
    are read at once in C (:func:`numbers_of`), and the other lines are checked to be other records
    (``LF``, ``FN``, ``TN`` ...). In a chunk where that fails (a record to skip or clamp, a stray line),
    each file's runs are read on their own, and a file with the odd line line by line, with the exact
    rules.
    """

    def __init__(self, context: ParseContext) -> None:
        self.skips = context.skips
        self.resolver: PathResolver = context.resolver()
        self.path = ""
        self.builder: LineCoverageBuilder | None = None
        self.branches = _Branches()
        self.seen_file = False

    def read(self, block: str) -> Iterator[ParsedFile]:
        """Read one block of whole lines."""
        # The plan of the block: ("open", name, _), ("close", "", _), or ("text", text, (DA run,
        # BRDA run)) for the lines between, whose runs are read at once for the whole block.
        plan: list[tuple[str, str, tuple[str, str]]] = []
        das: list[str] = []
        brdas: list[str] = []
        others: list[str] = []
        file_open = self.builder is not None
        at = 0
        for line_start, is_file in _boundaries(block):
            text = block[at:line_start]
            at = block.index("\n", line_start) + 1
            if text:
                plan.append(("text", text, _cut_runs(text, das, brdas, others) if file_open else _none(text, others)))
            plan.append(("open", block[line_start + 3 : at - 1], _NO_RUNS) if is_file else ("close", "", _NO_RUNS))
            file_open = is_file
        text = block[at:]
        if text:
            plan.append(("text", text, _cut_runs(text, das, brdas, others) if file_open else _none(text, others)))
        da = _numbers(das, b"DA:,\n", b"DA:", 2)
        brda = _numbers([run.replace(",-\n", ",0\n") for run in brdas], b"BRDA:,,,\n", b"BRDA:", 4)
        if da is None or brda is None or not _other_records("".join(others)):
            yield from self._one_by_one_plan(plan)
            return
        da_at = brda_at = 0
        for kind, text, (da_run, brda_run) in plan:
            if kind == "text":
                count = da_run.count("\n") * 2
                if count:
                    self._add_lines(da[da_at : da_at + count : 2], da[da_at + 1 : da_at + count : 2])
                    da_at += count
                count = brda_run.count("\n") * 4
                if count:
                    self.branches.extend(brda[brda_at : brda_at + count : 4], brda[brda_at + 3 : brda_at + count : 4])
                    brda_at += count
            elif kind == "open":
                yield from self.open(text)
            else:
                yield from self.close()

    def _one_by_one_plan(self, plan: list[tuple[str, str, tuple[str, str]]]) -> Iterator[ParsedFile]:
        # The block as a plan again, a file's lines at a time: the runs of the files without an odd
        # line are still read at once, the others line by line.
        for kind, text, _ in plan:
            if kind == "text":
                das: list[str] = []
                brdas: list[str] = []
                others: list[str] = []
                if self.builder is not None:
                    _cut_runs(text, das, brdas, others)
                    da = _numbers(das, b"DA:,\n", b"DA:", 2)
                    brda = _numbers([run.replace(",-\n", ",0\n") for run in brdas], b"BRDA:,,,\n", b"BRDA:", 4)
                    if da is not None and brda is not None and _other_records("".join(others)):
                        if da:
                            self._add_lines(da[0::2], da[1::2])
                        if brda:
                            self.branches.extend(brda[0::4], brda[3::4])
                        continue
                self._one_by_one(text)
            elif kind == "open":
                yield from self.open(text)
            else:
                yield from self.close()

    def _add_lines(self, lines: list[int], hits: list[int]) -> None:
        if self.builder is not None:
            self.builder.extend(lines, hits, bytes(map(not_, hits)))  # 0 hits: MISS (1), else HIT (0)

    def open(self, name: str) -> Iterator[ParsedFile]:
        if self.builder is not None:
            self.skips.add(NOT_CLOSED)
            yield from self.close()
        self.seen_file = True
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
            yield ParsedFile(self.path, self.branches.apply(self.builder))
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
                if number_text.isdecimal() and hits_text.isdecimal() and len(number_text) < 9 and len(hits_text) < 10:
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
        self.lines = array("I")
        self.taken = bytearray()

    def add(self, line: int, taken: bool) -> None:
        self.lines.append(line)
        self.taken.append(taken)

    def extend(self, lines: list[int], counts: list[int]) -> None:
        self.lines.extend(lines)
        self.taken.extend(map(bool, counts))

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


_NO_RUNS = ("", "")


def _none(text: str, others: list[str]) -> tuple[str, str]:
    """Lines outside a file: all to be other records (``TN:``), else the block is read line by line."""
    others.append(text)
    return _NO_RUNS


def _cut_runs(text: str, das: list[str], brdas: list[str], others: list[str]) -> tuple[str, str]:
    """The run of ``DA`` lines and the run of ``BRDA`` lines of ``text`` (the records of one file), each
    also appended to ``das``, ``brdas``, and the rest appended to ``others``. A run is from the first
    line with its key to the last; runs that interleave are left to ``others``."""
    cut = []
    for key, runs in (("DA:", das), ("BRDA:", brdas)):
        first = 0 if text.startswith(key) else text.find("\n" + key) + 1
        if first or text.startswith(key):
            end = text.find("\n", max(first, text.rfind("\n" + key) + 1)) + 1
            cut.append((first, end, runs))
    runs_text = ["", ""]
    at = 0
    cut.sort()
    if len(cut) == 2 and cut[1][0] < cut[0][1]:
        cut = []  # interleaved: read line by line
    rest = []
    for first, end, runs in cut:
        rest.append(text[at:first])
        run = text[first:end]
        runs.append(run)
        runs_text[runs is brdas] = run
        at = end
    rest.append(text[at:])
    others.extend(rest)
    return runs_text[0], runs_text[1]


def _numbers(runs: list[str], shape: bytes, key: bytes, per_line: int) -> list[int] | None:
    """The numbers of ``runs``, or None unless all are well-formed records with line numbers in range
    (and, for ``DA``, counts that need no clamp)."""
    if not runs:
        return []
    numbers = numbers_of("".join(runs), shape, b",\n", key)
    if not numbers:
        return None
    lines = numbers[0::per_line]
    if min(lines) < 1 or max(lines) > MAX_LINE_NUMBER:
        return None
    if per_line == 2 and max(numbers[1::2]) > MAX_HITS:
        return None
    return numbers


def _other_records(text: str) -> bool:
    """Whether every line of ``text`` is blank or a record other than ``DA`` and ``BRDA``."""
    keys = {line[: line.find(":") + 1] or line for line in text.split("\n")}
    keys.discard("")
    return all(key.endswith(":") and key not in ("DA:", "BRDA:") and _is_other_record(key) for key in keys)


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
