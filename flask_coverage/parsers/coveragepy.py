"""coverage.py's JSON report (``coverage json``, format 2 and 3).

Per file, ``executed_lines`` are hits (count 1: the format has no counts), ``missing_lines`` are
misses, and an executed line that is the source of a ``missing_branches`` arc is PARTIAL — the same
rule coverage.py applies when it writes XML (``condition-coverage`` under 100%) and LCOV (a ``BRDA``
not taken), so the three formats of one run agree.

The report is streamed down to the elements of each file's line lists: the outer object, the
``files`` object and each file's entry are walked here, ``executed_lines`` and ``missing_lines`` are
read a run of numbers at a time, ``missing_branches`` one arc at a time (a bad element stops the read
at once), and everything else (``summary``, ``excluded_lines``, the per-function and per-class copies of
format 3, ``contexts``) is skipped by a scan that builds no objects. So memory follows the coverage
kept, not the size of one entry, and no array of a hostile report is ever decoded whole.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, NoReturn

from ..errors import ReportError
from ..lines import HIT, MISS, LineCoverage, LineCoverageBuilder
from ._common import EMPTY_NAME, LINE_BELOW_ONE, MAX_LINE_NUMBER, ParsedFile, bad_line_number, quote
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import JsonStream

__all__ = ["FORMAT", "parse_coveragepy"]


def parse_coveragepy(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per entry of the ``files`` object of a coverage.py JSON report.

    Raises ReportError for invalid JSON, a report without ``meta`` and ``files``, and bad entries.
    """
    resolver = context.resolver()
    stream = JsonStream(chunks)
    seen = set()
    stream.expect("{", "a coverage.py JSON report is an object")
    for key in stream.members():
        if key == "files":
            stream.expect("{", "coverage.py JSON report: files is not an object")
            for name in stream.members():
                if not name.strip():
                    context.skips.add(EMPTY_NAME)
                    stream.skip()
                    continue
                path = resolver.resolve(name)
                yield ParsedFile(path, _file_lines(stream, name, context.skips))
        else:
            value = stream.value()
            if key == "meta" and not isinstance(value, dict):
                raise ReportError("coverage.py JSON report: meta is not an object")
        seen.add(key)
    stream.end()
    if "meta" not in seen or "files" not in seen:
        raise ReportError("not a coverage.py JSON report: it needs both meta and files")


def _detect(head: ReportHead) -> bool:
    # coverage.py's "files" is an object keyed by path; other tools' "files" arrays are not this.
    return head.kind == "json" and head.json_value_start("files") == "{"


FORMAT = ReportFormat("coveragepy", "coverage.py JSON", _detect, parse_coveragepy, ("coverage.json",))


def _file_lines(stream: JsonStream, name: str, skips: Skips) -> LineCoverage:
    """Read the entry of the file ``name`` from ``stream``: its lines, with executed lines that start
    a missing branch PARTIAL."""
    if stream.peek() != "{":
        stream.skip()  # the whole value, to say what it is not
        raise ReportError(f"coverage.py JSON report: the entry of {quote(name)} is not an object")
    stream.expect("{", "")
    builder = LineCoverageBuilder()
    partial: set[int] = set()
    for key in stream.members():
        if key == "executed_lines" or key == "missing_lines":
            hits, state = (1, HIT) if key == "executed_lines" else (0, MISS)
            add = builder.add
            for run in stream.numbers(f"coverage.py JSON report: {key} of {quote(name)} is not a list"):
                if not (type(run[0]) is int and min(run) >= 1 and max(run) <= MAX_LINE_NUMBER):
                    run = _usable_lines(run, name, skips)
                for number in run:
                    add(number, hits, state)
        elif key == "missing_branches":
            for arc in stream.items(f"coverage.py JSON report: {key} of {quote(name)} is not a list"):
                if not isinstance(arc, list) or len(arc) != 2:
                    raise ReportError(f"coverage.py JSON report: bad branch {quote(repr(arc))} in {quote(name)}")
                if type(arc[0]) is not int or arc[0] > MAX_LINE_NUMBER:
                    _bad_line(arc[0], name)
                partial.add(arc[0])  # one from line 0 or below names no tracked line: harmless
        else:
            stream.skip()
    return builder.build(partial)


def _usable_lines(run: list[Any], name: str, skips: Skips) -> list[int]:
    # Line 0 and below are skipped and counted, as Codecov skips them; anything else odd is refused.
    usable = []
    for number in run:
        if type(number) is int and number < 1:
            skips.add(LINE_BELOW_ONE)
        elif type(number) is not int or number > MAX_LINE_NUMBER:
            _bad_line(number, name)
        else:
            usable.append(number)
    return usable


def _bad_line(number: object, name: str) -> NoReturn:
    if type(number) is int:
        bad_line_number(str(number), name)
    raise ReportError(f"invalid line number {quote(json.dumps(number), 40)} in {quote(name)}: not an integer")
