"""Go coverage profiles (``go test -coverprofile``, ``mode: set``, ``count`` or ``atomic``).

After the ``mode:`` line, each line is a block: ``name.go:startLine.startCol,endLine.endCol statements
count``. A block covers its lines from the start line to the end line, the end line only when the block
ends after its second column (a closing ``}`` alone at the start of a line is not code), as Codecov
reads it. Per line, the blocks on it decide: all counted HIT, none counted MISS, some PARTIAL (an
``if`` whose body never ran); the hits are the largest count. A block listed twice (profiles of
several runs concatenated) counts once, with its larger count. The path is the import path the
profile writes (``example.com/m/pkg/x.go``); placing it in the repository is the path placement's job.

Skipped and counted: a line that is not a block (``go tool cover -func`` lines, garbage), a block
starting on line 0 or ending before it starts. Refused: an unknown mode, a line number past the limit,
files whose blocks cover more distinct lines than the profile's blocks allow (:data:`_LINE_ALLOWANCE`
and :data:`_LINES_PER_BLOCK`). Blocks are read file by file: a file whose blocks come back later in
the profile is yielded again, and merged per path like any duplicate.

Cost: a file's lines are built from its blocks in time and memory that follow its blocks and its
distinct lines (at most its largest end line), never the lines its blocks span one by one: blocks of
ten million lines each, overlapping, cost their distinct lines once, and those are counted against the
allowance before anything per line is allocated.
"""

from __future__ import annotations

import re
from array import array
from heapq import heappop, heappush
from itertools import chain, repeat
from operator import add, and_, gt, le, lt, mul, not_, sub
from types import ModuleType
from typing import Iterable, Iterator, cast

from ..errors import ReportError
from ..lines import _U32, HIT, MAX_HITS, MISS, PARTIAL, LineCoverage
from ._common import LINE_BELOW_ONE, MAX_LINE_NUMBER, NUMBER_DIGITS, ParsedFile, bad_line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._speedups import load
from ._text import text_blocks

__all__ = ["FORMAT", "parse_go"]

_BLOCK = re.compile(
    rf"(.+):([0-9]{{1,9}})\.([0-9]{{1,9}}),([0-9]{{1,9}})\.([0-9]{{1,9}}) ([0-9]{{1,9}}) ([0-9]{{1,{NUMBER_DIGITS}}})"
)
_FIRST_BLOCK = re.compile(rb"[^\s:]+\.go:[0-9]+\.[0-9]+,[0-9]+\.[0-9]+ [0-9]+ [0-9]+\s")
_compiled = load("go")
_BLOCK_SIZE = 5 * array(_U32).itemsize  # a block as the compiled reader packs it
_MODES = ("mode: set", "mode: count", "mode: atomic")
#: Distinct lines the files of a profile may hold in all: this many, plus _LINES_PER_BLOCK per block
#: line read (a file's own lines are also at most its largest end line). A real profile holds far
#: fewer (a block is a basic block: a few lines on average; a long generated one fits in the first
#: term); a hostile one of long blocks is refused before its lines are built.
_LINE_ALLOWANCE = 1_000_000
_LINES_PER_BLOCK = 16
TOO_MANY_LINES = "Go coverage profile: its blocks span too many lines for its size"


def parse_go(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of a Go coverage profile read from ``chunks``, one per run of its blocks."""
    reader = _Reader(context)
    for block in text_blocks(chunks, "Go coverage profile"):
        yield from reader.read(block)
    if not reader.seen_mode and not reader.name:
        raise ReportError("Go coverage profile has no mode line and no block")
    yield from reader.file()


class _Reader:
    """The profile's state: its file being read, its blocks, the lines they span.

    A chunk of well-formed blocks is read at once by the compiled reader (``_speedups/go.c``), which
    hands back each run of one file's blocks packed, five native uint32 a block; a chunk with any other
    line (a ``mode:`` line, a line to skip, a number out of bounds), or every chunk where the reader was
    not built, is read line by line into five columns. A file's blocks may come both ways (chunks of
    either kind): its lines are built when the next file starts.
    """

    def __init__(self, context: ParseContext) -> None:
        self.skips = context.skips
        self.resolver = context.resolver()
        self.name = ""
        # The blocks of the file, in the order read: start line, start column, end line, end column, count.
        self.columns: tuple[list[int], list[int], list[int], list[int], list[int]] = ([], [], [], [], [])
        self.packed: list[bytes] = []  # the same, as the compiled reader packs them
        self.seen_mode = False
        # The block lines read (their files' allowance) and the distinct lines built.
        self.blocks = self.kept = 0

    def read(self, block: str) -> Iterator[ParsedFile]:
        if block.startswith("mode:"):
            line, _, block = block.partition("\n")
            yield from self._line(line)
            if not block:
                return
        if _compiled is not None:
            runs = _compiled.read(block, MAX_LINE_NUMBER)
            if runs is not None:
                for name, packed in runs:
                    if name != self.name:
                        yield from self.file()
                        self.name = name
                    self.packed.append(packed)
                    self.blocks += len(packed) // _BLOCK_SIZE
                return
        for line in block.split("\n")[:-1]:
            yield from self._line(line)

    def _line(self, line: str) -> Iterator[ParsedFile]:
        skips = self.skips
        match = _BLOCK.fullmatch(line.rstrip())
        if match is None:
            if line.startswith("mode:"):
                if line.strip() not in _MODES:
                    raise ReportError(f"Go coverage profile has an unknown mode: {line.strip()[:40]!r}")
                self.seen_mode = True
            elif line.strip():
                skips.add("lines that are not coverage blocks, skipped")
            return
        file_name, start, start_column, end, end_column, _, count = match.groups()
        first, last = int(start), int(end)
        if first < 1:
            skips.add(LINE_BELOW_ONE)
            return
        if last > MAX_LINE_NUMBER:
            bad_line_number(end, file_name)
        if last < first:
            skips.add("blocks ending before they start, skipped")
            return
        if file_name != self.name:
            yield from self.file()
            self.name = file_name
        self.blocks += 1
        for column, value in zip(self.columns, (first, int(start_column), last, int(end_column), int(count))):
            column.append(value)

    def file(self) -> Iterator[ParsedFile]:
        """The file read so far, if it has blocks; its blocks start empty again."""
        columns, packed = self.columns, self.packed
        allowance = _LINE_ALLOWANCE + _LINES_PER_BLOCK * self.blocks - self.kept
        coverage: LineCoverage | None
        if columns[0]:
            self.columns = ([], [], [], [], [])
            if packed:
                self.packed = []
                blocks = array(_U32, b"".join(packed))
                for at, column in enumerate(columns):
                    column.extend(blocks[at::5])
            coverage = _lines(*columns, allowance)
        elif packed:
            self.packed = []
            # Blocks are packed only by the compiled reader, so it is there.
            built = cast(ModuleType, _compiled).lines(b"".join(packed), max(allowance, 0))
            coverage = None if built is None else LineCoverage.from_bytes(*built)
        else:
            return
        if coverage is None:
            raise ReportError(TOO_MANY_LINES)
        self.kept += len(coverage)
        yield ParsedFile(self.resolver.resolve(self.name), coverage)


def _lines(
    firsts: list[int],
    starts: list[int],
    lasts: list[int],
    ends: list[int],
    counts: list[int],
    allowance: int = MAX_LINE_NUMBER,
) -> LineCoverage | None:
    """The lines of one file's blocks, or None when they are more than ``allowance`` distinct lines (by
    default the most a file has): a
    block covers its lines from the start line to the end line, the end line only when it ends after
    its second column; per line, all blocks counted HIT, none MISS, some PARTIAL, the hits the largest
    count. A block listed twice counts once, with its larger count."""
    # Blocks in order of their start lines (as go test writes them) are all different regions.
    if not all(map(lt, firsts, firsts[1:])) and not _increasing(
        list(map(add, map(mul, firsts, repeat(1 << 30)), starts))
    ):
        # Blocks out of order or listed twice: one region, one count (the largest).
        regions: dict[tuple[int, int, int, int], int] = {}
        for region, count in zip(zip(firsts, starts, lasts, ends), counts):
            regions[region] = max(regions.get(region, 0), count)
        order = sorted(regions)
        firsts, starts, lasts, ends = (list(column) for column in zip(*order))
        counts = list(map(regions.__getitem__, order))
    if max(counts) > MAX_HITS:
        counts = list(map(min, counts, repeat(MAX_HITS)))
    if lasts == firsts and _increasing(firsts):
        # Blocks of one line each, one after the other.
        if len(firsts) > allowance:
            return None
        hits = array(_U32, counts)
        return LineCoverage._trusted(array(_U32, firsts), hits, bytearray(map(not_, hits)))  # HIT 0, MISS 1
    # The end line drops out when the block ends at its first or second column (a "}" alone).
    lasts = list(map(sub, lasts, map(and_, map(gt, lasts, firsts), map(le, ends, repeat(2)))))
    if all(map(lt, lasts, firsts[1:])):
        # Blocks one after the other (the usual file): their lines, each once.
        spans = list(map(add, map(sub, lasts, firsts), repeat(1)))
        if sum(spans) > allowance:
            return None
        lines = array(_U32, chain.from_iterable(map(range, firsts, map(add, lasts, repeat(1)))))
        hits = array(_U32, chain.from_iterable(map(repeat, counts, spans)))
        return LineCoverage._trusted(lines, hits, bytearray(map(not_, hits)))
    return _overlapping(firsts, lasts, counts, allowance)


def _overlapping(firsts: list[int], lasts: list[int], counts: list[int], allowance: int) -> LineCoverage | None:
    # Blocks in order of their start lines, some overlapping: their distinct lines are counted first;
    # between two consecutive starts or ends every line has the same open blocks, so each such stretch
    # is written at once (the largest count of the counted blocks open, PARTIAL where an uncounted one
    # is open too).
    distinct = reach = 0
    for first, last in zip(firsts, lasts):
        if last > reach:
            distinct += last - max(first, reach + 1) + 1
            reach = last
    if distinct > allowance:
        return None
    points = sorted({*firsts, *map(add, lasts, repeat(1))})
    counted: list[tuple[int, int]] = []  # (-count, last) of the counted blocks open
    missed: list[int] = []  # the last lines of the uncounted blocks open
    lines, hits, states = array(_U32), array(_U32), bytearray()
    at, size = 0, len(firsts)
    for start, stop in zip(points, points[1:]):
        while at < size and firsts[at] == start:
            if counts[at]:
                heappush(counted, (-counts[at], lasts[at]))
            else:
                heappush(missed, lasts[at])
            at += 1
        while counted and counted[0][1] < start:
            heappop(counted)
        while missed and missed[0] < start:
            heappop(missed)
        if counted or missed:
            lines.extend(range(start, stop))
            hits.extend(repeat(-counted[0][0] if counted else 0, stop - start))
            states.extend(repeat((PARTIAL if missed else HIT) if counted else MISS, stop - start))
    return LineCoverage._trusted(lines, hits, states)


def _increasing(numbers: list[int]) -> bool:
    return all(map(lt, numbers, numbers[1:]))


def _detect(head: ReportHead) -> bool:
    return head.kind == "text" and (head.text.startswith(b"mode: ") or _FIRST_BLOCK.match(head.text) is not None)


FORMAT = ReportFormat(
    "go",
    "Go coverage profile",
    _detect,
    parse_go,
    ("*.out", "cover*.txt", "*.coverprofile"),
    partials_as_hits=lambda settings: settings.go_partials_as_hits,
)
