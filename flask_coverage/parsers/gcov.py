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

Skipped and counted as in every format (``parsers/_common.py``): a source line whose count or number
is not a number, line 0, lines before the first ``0:Source:``. The path is the ``Source:`` as gcov wrote
it (relative to the build folder, or absolute). Read line by line; several files one after the other are several files.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverageBuilder
from ._common import HITS_NOT_A_NUMBER, ParsedFile, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._text import text_lines

__all__ = ["FORMAT", "parse_gcov"]

_SOURCE = re.compile(r"\s*-:\s*0:Source:(.*)")
_BRANCHY = re.compile(r"\s+(?:if\s?\(|\} else if\s?\(|for\s?\(|while\s?\()")


def parse_gcov(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``0:Source:`` section of gcov text read from ``chunks``."""
    skips = context.skips
    resolver = context.resolver()
    path = ""
    builder: LineCoverageBuilder | None = None
    # The line whose branch records are being counted: [line, hits, taken, total], or None.
    branches: list[int] | None = None
    excluded = False
    for lines in text_lines(chunks, "gcov"):
        for line in lines:
            if line.startswith("branch"):
                if branches is not None:
                    branches[3] += 1
                    if "taken 0" not in line and "never executed" not in line:
                        branches[2] += 1
                continue
            if branches is not None and builder is not None:
                _add_branch_line(builder, branches)
            branches = None
            if line.startswith(("call", "function")) or not line.strip():
                continue
            source = _SOURCE.match(line)
            if source is not None:
                if builder is not None:
                    yield ParsedFile(path, builder.build())
                path, builder, excluded = resolver.resolve(source.group(1)), LineCoverageBuilder(), False
                continue
            if excluded:
                excluded = "LCOV_EXCL_STOP" not in line and "LCOV_EXCL_END" not in line
                continue
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
            if builder is None:
                skips.add("lines before the first 0:Source:, skipped")
                continue
            if code.strip() == "}" or code[:1] in ("{", "}"):
                continue
            if count_text in ("#####", "=====", "$$$$$", "%%%%%"):
                if count_text == "#####" and code.lstrip().startswith(("inline", "static")):
                    continue
                count = 0
            else:
                count_text = count_text.rstrip("*")
                if not count_text.isdecimal() or len(count_text) > 20:
                    skips.add(HITS_NOT_A_NUMBER)
                    continue
                count = int(count_text)
            number = line_number(number_text, path, skips)
            if number is None:
                continue
            if count and _BRANCHY.match(code):
                branches = [number, count, 0, 0]
            else:
                builder.add(number, count, HIT if count else MISS)
    if branches is not None and builder is not None:
        _add_branch_line(builder, branches)
    if builder is not None:
        yield ParsedFile(path, builder.build())


def _add_branch_line(builder: LineCoverageBuilder, branches: list[int]) -> None:
    number, count, taken, total = branches
    if not total:
        state = HIT
    else:
        state = HIT if taken == total else MISS if not taken else PARTIAL
    builder.add(number, count, state)


def _detect(head: ReportHead) -> bool:
    return head.kind == "text" and b"0:Source:" in head.text.partition(b"\n")[0]


FORMAT = ReportFormat("gcov", "gcov text", _detect, parse_gcov, ("*.gcov",))
