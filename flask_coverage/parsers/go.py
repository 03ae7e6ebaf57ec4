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
from typing import Iterable, Iterator

from ..errors import ReportError
from ..lines import HIT, MISS, PARTIAL, LineCoverageBuilder
from ._common import LINE_BELOW_ONE, MAX_LINE_NUMBER, ParsedFile, bad_line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._paths import PathResolver
from ._text import text_lines

__all__ = ["FORMAT", "parse_go"]

_BLOCK = re.compile(r"(.+):([0-9]{1,9})\.([0-9]{1,9}),([0-9]{1,9})\.([0-9]{1,9}) ([0-9]{1,9}) ([0-9]{1,20})")
_FIRST_BLOCK = re.compile(rb"[^\s:]+\.go:[0-9]+\.[0-9]+,[0-9]+\.[0-9]+ [0-9]+ [0-9]+\s")
_MODES = ("mode: set", "mode: count", "mode: atomic")
#: Lines the blocks may span in all, beyond this many per character read: a hostile profile of
#: blocks from line 1 to line ten million must not cost ten million steps per block.
_SPAN_PER_CHARACTER = 64
_SPAN_ALLOWANCE = 1_000_000


def parse_go(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of a Go coverage profile read from ``chunks``, one per run of its blocks."""
    skips = context.skips
    resolver = context.resolver()
    name = ""
    blocks: dict[tuple[int, int, int, int], int] = {}
    seen_mode = False
    characters = spanned = 0
    for lines in text_lines(chunks, "Go coverage profile"):
        for line in lines:
            characters += len(line) + 1
            match = _BLOCK.fullmatch(line.rstrip())
            if match is None:
                if line.startswith("mode:"):
                    if line.strip() not in _MODES:
                        raise ReportError(f"Go coverage profile has an unknown mode: {line.strip()[:40]!r}")
                    seen_mode = True
                elif line.strip():
                    skips.add("lines that are not coverage blocks, skipped")
                continue
            file_name, start, start_column, end, end_column, _, count = match.groups()
            first, last = int(start), int(end)
            if first < 1:
                skips.add(LINE_BELOW_ONE)
                continue
            if last > MAX_LINE_NUMBER:
                bad_line_number(end, file_name)
            if last < first:
                skips.add("blocks ending before they start, skipped")
                continue
            spanned += last - first + 1
            if spanned > _SPAN_ALLOWANCE + _SPAN_PER_CHARACTER * characters:
                raise ReportError("Go coverage profile: its blocks span too many lines for its size")
            if file_name != name:
                if blocks:
                    yield _file(resolver, name, blocks)
                name, blocks = file_name, {}
            region = (first, int(start_column), last, int(end_column))
            blocks[region] = max(blocks.get(region, 0), int(count))
    if not seen_mode and not name:
        raise ReportError("Go coverage profile has no mode line and no block")
    if blocks:
        yield _file(resolver, name, blocks)


def _file(resolver: PathResolver, name: str, blocks: dict[tuple[int, int, int, int], int]) -> ParsedFile:
    # Per line: [largest count, a block with a count, a block without].
    seen: dict[int, list[int]] = {}
    for (first, _, last, end_column), count in blocks.items():
        if last > first and end_column <= 2:
            last -= 1
        for number in range(first, last + 1):
            line = seen.get(number)
            if line is None:
                seen[number] = [count, count > 0, count == 0]
            else:
                line[0] = max(line[0], count)
                line[1] |= count > 0
                line[2] |= count == 0
    builder = LineCoverageBuilder()
    for number in sorted(seen):
        count, hit, missed = seen[number]
        builder.add(number, count, MISS if not hit else PARTIAL if missed else HIT)
    return ParsedFile(resolver.resolve(name), builder.build())


def _detect(head: ReportHead) -> bool:
    return head.kind == "text" and (head.text.startswith(b"mode: ") or _FIRST_BLOCK.match(head.text) is not None)


FORMAT = ReportFormat("go", "Go coverage profile", _detect, parse_go, ("*.out", "cover*.txt", "*.coverprofile"))
