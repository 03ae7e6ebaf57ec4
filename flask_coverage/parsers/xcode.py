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

Skipped and counted as in every format (``parsers/_common.py``): a row whose line number or count is
not a number, line 0, rows before the first path.
Read line by line.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverageBuilder
from ._common import HITS_NOT_A_NUMBER, MAX_REPORTED_HITS, ParsedFile, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._text import text_lines

__all__ = ["FORMAT", "parse_xcode"]

#: What llvm-cov writes around a region never run, with ``-use-color``.
RED = "\x1b[0;41m"
_COLOR = re.compile(r"\x1b\[[0-9;]*m")
_COLOR_BYTES = re.compile(rb"\x1b\[[0-9;]*m")
_EXTENSIONS = (".h", ".m", ".mm", ".swift", ".hpp", ".cpp", ".cxx", ".c", ".C", ".cc", ".c++", ".rs")
_FIRST_ROW = re.compile(rb"[^\n]*:[ \t]*\r?\n[ \t]*[0-9]+\|")
_SCALE = {"k": 1_000, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000, "T": 1_000_000_000_000}


def parse_xcode(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per file of ``llvm-cov show`` text read from ``chunks``."""
    skips = context.skips
    resolver = context.resolver()
    path = ""
    builder: LineCoverageBuilder | None = None
    for rows in text_lines(chunks, "llvm-cov show text"):
        for row in rows:
            # Colour codes may wrap the path, the count and parts of the source; none holds a "|".
            number_text, bar, rest = row.partition("|")
            number_text = _COLOR.sub("", number_text).strip()
            if not number_text or number_text[0] in "-w" or (not bar and not number_text.endswith(":")):
                continue  # blank, a separator, a warning, an instantiation's sub-view ("  | f:")
            if not bar:
                if builder is not None:
                    yield ParsedFile(path, builder.build())
                path, builder = resolver.resolve(number_text[:-1]), LineCoverageBuilder()
                continue
            if builder is None:
                skips.add("rows before the first file's path, skipped")
                continue
            count_text, _, source = rest.partition("|")
            count_text = _COLOR.sub("", count_text).replace("E", "").strip()
            if not count_text or _COLOR.sub("", source).strip() == "}":
                continue
            number = line_number(number_text, path, skips)
            if number is None:
                continue
            count = _count(count_text)
            if count is None:
                skips.add(HITS_NOT_A_NUMBER)
                continue
            state = HIT if count else MISS
            if count and RED in source:
                state = PARTIAL
            builder.add(number, count, state)
    if builder is not None:
        yield ParsedFile(path, builder.build())


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
