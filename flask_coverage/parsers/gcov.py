"""gcov's text output (``gcov -pb``: the ``*.gcov`` files codecov-cli's gcov plugin uploads).

A file starts with ``-: 0:Source:<path>``; each source line follows as ``count:line:source``. A count
is a number, ``#####`` or ``=====`` (never run: 0) or ``-`` (no code: not tracked); gcc 8+ marks a
line with a block never run by a ``*`` after its count (``1*``), read as its number (Codecov drops
those lines; gcovr and gcov's own totals count them). Codecov's rules, with its default
``branch_detection`` (conditionals and loops, not methods nor macros):

- a line whose source starts with ``{`` or ``}``, or is ``}`` alone, is not tracked;
- an unused ``inline``/``static`` function's line (``#####``) is not tracked;
- a hit ``if (``, ``} else if (``, ``for (`` or ``while (`` line followed by ``branch`` records is
  PARTIAL when some of its branches were taken and some not, MISS when none was, HIT when all were;
- lines between ``LCOV_EXCL_START`` and ``LCOV_EXCL_STOP``, and those marked ``LCOV_EXCL_LINE``,
  are left out.

Other ``parsers.gcov.branch_detection`` settings (``context.settings``) choose the lines as Codecov
does: a function's first line (after a ``function`` record) only with ``method``, then a loop line
only with ``loop``, a conditional only with ``conditional``, any other line only with ``macro``.
With ``gcov_unexecuted_blocks`` off (the service's ``COVERAGE_GCOV_UNEXECUTED_BLOCKS``), a ``1*`` line is
dropped, as Codecov drops it. The compiled reader knows the defaults alone: with other settings Python
reads every block.

Skipped and counted as in every format (``parsers/_common.py``): a source line whose count or number
is not a number, line 0, lines before the first ``0:Source:``. The path is the ``Source:`` as gcov wrote
it (relative to the build folder, or absolute). Read line by line; several files one after the other are several files.

Where it was built, the compiled reader (``_speedups/gcov.c``) reads a block's usual lines with the same
rules and gives every block with anything else (an odd line, an exclusion marker) to the code below.
"""

from __future__ import annotations

import re
from array import array
from functools import partial
from typing import Iterable, Iterator

from ..lines import _U32, HIT, MAX_HITS, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from . import _speedups
from ._common import HITS_NOT_A_NUMBER, LINE_DIGITS, MAX_LINE_NUMBER, NUMBER_DIGITS, ParsedFile, line_number
from ._format import ParseContext, ParserSettings, ReportFormat, ReportHead
from ._text import text_blocks

__all__ = ["FORMAT", "parse_gcov"]

_SOURCE = re.compile(r"\s*-:\s*0:Source:(.*)")
_LOOP = r"\s+(?:for\s?\(|while\s?\()"
_CONDITIONAL = r"\s+(?:if\s?\(|\} else if\s?\()"
# The lines whose branch records decide their state with Codecov's default branch_detection.
_BRANCHY = re.compile(f"{_CONDITIONAL}|{_LOOP}")
_IS_LOOP = re.compile(_LOOP).match
_IS_CONDITIONAL = re.compile(_CONDITIONAL).match
# The compiled reader of a block's usual lines (_speedups/gcov.c), or None: then Python reads all.
_compiled = _speedups.load("gcov")


def parse_gcov(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``0:Source:`` section of gcov text read from ``chunks``."""
    skips = context.skips
    resolver = context.resolver()
    settings = context.settings
    detected = None if settings.gcov_default else partial(_detected, settings)
    after_function = False
    path = ""
    file: _File | None = None
    # The line whose branch records are being counted: [line, hits, taken, total], or None.
    branches: list[int] | None = None
    excluded = False
    for block in text_blocks(chunks, "gcov"):
        markers = "LCOV_EXCL" in block  # looked for per line only in a chunk that has some
        read = (
            None
            if _compiled is None or markers or excluded or detected is not None
            else _compiled.read(block, file is not None, branches)
        )
        if read is not None:
            # C read the whole block: the open file's lines before the block's first header, then
            # each header's file (the last one still open), and the branch line left counting.
            head, sections, branches = read
            if file is not None:
                file.extend(*head)
            if sections:
                if file is not None:
                    yield ParsedFile(path, file.build())
                for source, lines, hits, states, ordered in sections[:-1]:
                    if ordered:
                        coverage = LineCoverage.from_bytes(lines, hits, states)
                    else:
                        coverage = _File.of(lines, hits, states).build()
                    yield ParsedFile(resolver.resolve(source), coverage)
                source, lines, hits, states, _ = sections[-1]
                path, file = resolver.resolve(source), _File.of(lines, hits, states)
            continue
        for line in block.split("\n")[:-1]:
            if line.startswith("branch"):
                if branches is not None:
                    branches[3] += 1
                    if "taken 0" not in line and "never executed" not in line:
                        branches[2] += 1
                continue
            if branches is not None and file is not None:
                file.add_branch_line(branches)
            branches = None
            if line.startswith(("call", "function")) or not line.strip():
                after_function = after_function or line.startswith("function")
                continue
            if "Source:" in line:
                source = _SOURCE.match(line)
                if source is not None:
                    if file is not None:
                        yield ParsedFile(path, file.build())
                    path, file, excluded = resolver.resolve(source.group(1)), _File(), False
                    continue
            if excluded:
                excluded = "LCOV_EXCL_STOP" not in line and "LCOV_EXCL_END" not in line
                continue
            if markers:
                if "LCOV_EXCL_START" in line:
                    excluded = True
                    continue
                if "LCOV_EXCL_LINE" in line:
                    continue
            count_text, _, rest = line.partition(":")
            number_text, colon, code = rest.partition(":")
            count_text = count_text.strip()
            if not colon or count_text == "-" or count_text.startswith("-"):
                continue  # no code, or not a source line ("-:", gcov's headers)
            if file is None:
                skips.add("lines before the first 0:Source:, skipped")
                continue
            if code[:1] in ("{", "}") or "}" in code and code.strip() == "}":
                continue
            if count_text in ("#####", "=====", "$$$$$", "%%%%%"):
                if count_text == "#####" and code.lstrip().startswith(("inline", "static")):
                    continue
                count = 0
            else:
                if count_text[-1:] == "*" and not settings.gcov_unexecuted_blocks:
                    continue  # Codecov drops the line
                count_text = count_text.rstrip("*")
                if not count_text.isdecimal() or len(count_text) > NUMBER_DIGITS:
                    skips.add(HITS_NOT_A_NUMBER)
                    continue
                count = int(count_text)
            stripped = number_text.strip()
            if stripped.isdecimal() and len(stripped) <= LINE_DIGITS and 0 < int(stripped) <= MAX_LINE_NUMBER:
                number = int(stripped)  # the usual line; line_number skips or refuses the others
            else:
                checked = line_number(number_text, path, skips)
                if checked is None:
                    continue
                number = checked
            if count and (
                ("(" in code and _BRANCHY.match(code)) if detected is None else detected(code, after_function)
            ):
                branches = [number, count, 0, 0]
            else:
                file.add(number, count, HIT if count else MISS)
            after_function = False
    if branches is not None and file is not None:
        file.add_branch_line(branches)
    if file is not None:
        yield ParsedFile(path, file.build())


def _detected(settings: ParserSettings, code: str, method: bool) -> bool:
    """Whether a line's branch records decide its state under these settings (Codecov's order)."""
    if method and not settings.gcov_method:
        return False
    if _IS_LOOP(code):
        return settings.gcov_loop
    if _IS_CONDITIONAL(code):
        return settings.gcov_conditional
    return settings.gcov_macro


class _File:
    """The lines of one file as three columns, built once at its end."""

    __slots__ = ("lines", "hits", "states")

    def __init__(self) -> None:
        self.lines = array(_U32)
        self.hits = array(_U32)
        self.states = bytearray()

    @classmethod
    def of(cls, lines: bytes, hits: bytes, states: bytes) -> _File:
        """A file starting with the columns of the compiled reader (native uint32 lines and hits)."""
        file = cls()
        file.extend(lines, hits, states)
        return file

    def extend(self, lines: bytes, hits: bytes, states: bytes) -> None:
        self.lines.frombytes(lines)
        self.hits.frombytes(hits)
        self.states += states

    def add(self, number: int, count: int, state: int) -> None:
        self.lines.append(number)
        self.hits.append(count if count <= MAX_HITS else MAX_HITS)
        self.states.append(state)

    def add_branch_line(self, branches: list[int]) -> None:
        number, count, taken, total = branches
        if not total:
            state = HIT
        else:
            state = HIT if taken == total else MISS if not taken else PARTIAL
        self.add(number, count, state)

    def build(self) -> LineCoverage:
        builder = LineCoverageBuilder()
        builder.extend(self.lines, self.hits, self.states)
        return builder.build()


def _detect(head: ReportHead) -> bool:
    return head.kind == "text" and b"0:Source:" in head.text.partition(b"\n")[0]


FORMAT = ReportFormat("gcov", "gcov text", _detect, parse_gcov, ("*.gcov",))
