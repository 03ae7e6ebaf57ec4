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
blocks spanning more lines than a bound proportional to the profile's size. Blocks are read file by file: a file whose
blocks come back later in the profile is yielded again, and merged per path like any duplicate.
"""

from __future__ import annotations

import re
from array import array
from itertools import chain, compress, repeat
from operator import add, and_, gt, le, lt, mul, not_, sub
from types import ModuleType
from typing import Iterable, Iterator, cast

from ..errors import ReportError
from ..lines import _U32, MAX_HITS, LineCoverage, LineCoverageBuilder
from ._common import LINE_BELOW_ONE, MAX_LINE_NUMBER, ParsedFile, bad_line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._speedups import load
from ._text import text_blocks

__all__ = ["FORMAT", "parse_go"]

_BLOCK = re.compile(r"(.+):([0-9]{1,9})\.([0-9]{1,9}),([0-9]{1,9})\.([0-9]{1,9}) ([0-9]{1,9}) ([0-9]{1,20})")
_FIRST_BLOCK = re.compile(rb"[^\s:]+\.go:[0-9]+\.[0-9]+,[0-9]+\.[0-9]+ [0-9]+ [0-9]+\s")
_compiled = load("go")
_MODES = ("mode: set", "mode: count", "mode: atomic")
#: Lines the blocks may span in all, beyond this many per character read: a hostile profile of
#: blocks from line 1 to line ten million must not cost ten million steps per block.
_SPAN_PER_CHARACTER = 64
_SPAN_ALLOWANCE = 1_000_000


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
        self.characters = self.spanned = 0

    def read(self, block: str) -> Iterator[ParsedFile]:
        if block.startswith("mode:"):
            line, _, block = block.partition("\n")
            yield from self._line(line)
            if not block:
                return
        if _compiled is not None:
            runs = _compiled.read(block, MAX_LINE_NUMBER)
            # Blocks past the span bound are read line by line, which says where the bound was passed.
            if runs is not None and self.spanned + runs[0] <= _SPAN_ALLOWANCE + _SPAN_PER_CHARACTER * self.characters:
                self.spanned += runs[0]
                self.characters += len(block)
                for name, packed in runs[1]:
                    if name != self.name:
                        yield from self.file()
                        self.name = name
                    self.packed.append(packed)
                return
        for line in block.split("\n")[:-1]:
            yield from self._line(line)

    def _line(self, line: str) -> Iterator[ParsedFile]:
        skips = self.skips
        self.characters += len(line) + 1
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
        self.spanned += last - first + 1
        if self.spanned > _SPAN_ALLOWANCE + _SPAN_PER_CHARACTER * self.characters:
            raise ReportError("Go coverage profile: its blocks span too many lines for its size")
        if file_name != self.name:
            yield from self.file()
            self.name = file_name
        for column, value in zip(self.columns, (first, int(start_column), last, int(end_column), int(count))):
            column.append(value)

    def file(self) -> Iterator[ParsedFile]:
        """The file read so far, if it has blocks; its blocks start empty again."""
        columns, packed = self.columns, self.packed
        if columns[0]:
            self.columns = ([], [], [], [], [])
            if packed:
                self.packed = []
                blocks = array(_U32, b"".join(packed))
                for at, column in enumerate(columns):
                    column.extend(blocks[at::5])
            yield ParsedFile(self.resolver.resolve(self.name), _lines(*columns))
        elif packed:
            self.packed = []
            # Blocks are packed only by the compiled reader, so it is there.
            lines, hits, states = cast(ModuleType, _compiled).lines(b"".join(packed))
            coverage = LineCoverage.from_bytes(lines, hits, states)
            yield ParsedFile(self.resolver.resolve(self.name), coverage)


def _lines(firsts: list[int], starts: list[int], lasts: list[int], ends: list[int], counts: list[int]) -> LineCoverage:
    """The lines of one file's blocks: a block covers its lines from the start line to the end line,
    the end line only when it ends after its second column; per line, all blocks counted HIT, none
    MISS, some PARTIAL, the hits the largest count. A block listed twice counts once, with its larger count."""
    # Blocks in order of their start lines (as go test writes them) are all different regions.
    if not all(map(lt, firsts, firsts[1:])) and not _increasing(
        list(map(add, map(mul, firsts, repeat(1 << 30)), starts))
    ):
        # Blocks out of order or listed twice: one region, one count (the largest).
        regions: dict[tuple[int, int, int, int], int] = {}
        for region, count in zip(zip(firsts, starts, lasts, ends), counts):
            regions[region] = max(regions.get(region, 0), count)
        firsts, starts, lasts, ends = (list(column) for column in zip(*regions)) if regions else ([], [], [], [])
        counts = list(regions.values())
    if lasts == firsts:
        lines, hits = firsts, counts  # blocks of one line each
    else:
        # The end line drops out when the block ends at its first or second column (a "}" alone).
        lasts = list(map(sub, lasts, map(and_, map(gt, lasts, firsts), map(le, ends, repeat(2)))))
        spans = list(map(add, map(sub, lasts, firsts), repeat(1)))
        lines = list(chain.from_iterable(map(range, firsts, map(add, firsts, spans))))
        hits = list(chain.from_iterable(map(repeat, counts, spans)))
    builder = LineCoverageBuilder()
    if max(hits) > MAX_HITS:
        hits = list(map(min, hits, repeat(MAX_HITS)))
    if _increasing(lines):
        builder.extend(lines, hits, bytes(map(not_, hits)))  # one block a line: HIT 0, MISS 1
        return builder.build()
    # Lines shared by blocks: the largest count (the last of each line once sorted by count), and
    # PARTIAL where both a counted and an uncounted block cover the line.
    order = sorted(range(len(hits)), key=hits.__getitem__)
    largest = dict(zip(map(lines.__getitem__, order), map(hits.__getitem__, order)))
    hit = set(compress(lines, hits))
    missed = set(compress(lines, map(not_, hits)))
    numbers = sorted(largest)
    # MISS only: 1; HIT only: 0; both: 2.
    states = bytes(map(mul, map(missed.__contains__, numbers), map(add, repeat(1), map(hit.__contains__, numbers))))
    builder.extend(numbers, list(map(largest.__getitem__, numbers)), states)
    return builder.build()


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
