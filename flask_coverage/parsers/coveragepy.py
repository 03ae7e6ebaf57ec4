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
from operator import itemgetter
from typing import Any, Iterable, Iterator, NoReturn

from ..errors import ReportError
from ..lines import HIT, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from . import flow
from ._common import EMPTY_NAME, LINE_BELOW_ONE, MAX_LINE_NUMBER, ParsedFile, bad_line_number, quote
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._json import TOO_LARGE, JsonStream

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
    # coverage.py's "files" is an object keyed by path; other tools' "files" arrays are not this, nor
    # is Flow's "files" object.
    return head.kind == "json" and head.json_value_start("files") == "{" and not flow.FORMAT.detect(head)


FORMAT = ReportFormat("coveragepy", "coverage.py JSON", _detect, parse_coveragepy, ("coverage.json",))


def _file_lines(stream: JsonStream, name: str, skips: Skips) -> LineCoverage:
    """Read the entry of the file ``name`` from ``stream``: its lines, with executed lines that start
    a missing branch PARTIAL. An entry of up to SMALL_VALUE characters (nearly all) is decoded whole
    in C and converted in bulk; a longer one is walked, its arrays a run of numbers at a time."""
    if stream.peek() != "{":
        stream.skip()  # the whole value, to say what it is not
        raise ReportError(f"coverage.py JSON report: the entry of {quote(name)} is not an object")
    entry = stream.small_value()
    if entry is not TOO_LARGE:
        return _bulk_lines(entry, name) or _entry_lines(entry.items(), name, skips)
    stream.expect("{", "")
    return _entry_lines(_walked(stream, name), name, skips)


def _walked(stream: JsonStream, name: str) -> Iterator[tuple[str, Iterator[list[Any]]]]:
    # The entry's kept members as (key, runs of elements); the others skipped unbuilt.
    for key in stream.members():
        if key == "missing_branches":
            yield key, ([arc] for arc in stream.items(_not_a_list(key, name)))
        elif key in _KEPT:
            yield key, stream.numbers(_not_a_list(key, name))
        else:
            stream.skip()


def _entry_lines(members: Iterable[tuple[str, Any]], name: str, skips: Skips) -> LineCoverage:
    # Element by element, in the entry's order: each odd element skipped (and counted) or refused.
    builder = LineCoverageBuilder()
    partial: set[int] = set()
    for key, value in members:
        if key not in _KEPT:
            continue
        if isinstance(value, list):
            value = [value]  # a decoded entry's list: one run
        elif not isinstance(value, Iterator):
            raise ReportError(_not_a_list(key, name))
        if key == "missing_branches":
            for run in value:
                for arc in run:
                    if not isinstance(arc, list) or len(arc) != 2:
                        raise ReportError(f"coverage.py JSON report: bad branch {quote(repr(arc))} in {quote(name)}")
                    if type(arc[0]) is not int or arc[0] > MAX_LINE_NUMBER:
                        _bad_line(arc[0], name)
                    partial.add(arc[0])  # one from line 0 or below names no tracked line: harmless
            continue
        hits, state = (1, HIT) if key == "executed_lines" else (0, MISS)
        add = builder.add
        for run in value:
            if not (run and set(map(type, run)) == _INT and min(run) >= 1 and max(run) <= MAX_LINE_NUMBER):
                run = _usable_lines(run, name, skips)
            for number in run:
                add(number, hits, state)
    return builder.build(partial)


def _bulk_lines(entry: dict[str, Any], name: str) -> LineCoverage | None:
    """The lines of a decoded entry built with C-level builtins, or None when an element is odd
    (repeated, not a line number, a bad arc, a list missing): then the entry is read element by
    element, which skips, counts or refuses as the rules say."""
    executed, missing, arcs = (entry.get(key, _NONE) for key in _KEPT)
    if type(executed) is not list or type(missing) is not list or type(arcs) is not list:
        return None
    if not (set(map(type, arcs)) <= _LIST and set(map(len, arcs)) <= _PAIR):
        return None
    try:
        states = dict.fromkeys(missing, MISS)
        states.update(dict.fromkeys(executed, HIT))  # an executed line wins, as the builder merges them
        lines = sorted(states)  # two sorted runs: one merge
        starts = set(map(itemgetter(0), arcs))
    except TypeError:  # unhashable, or numbers and strings mixed
        return None
    if (
        len(states) != len(executed) + len(missing)  # a line listed twice adds up its hits: the builder's rule
        or (lines and (set(map(type, lines)) != _INT or lines[0] < 1 or lines[-1] > MAX_LINE_NUMBER))
        or not set(map(type, starts)) <= _INT
        or (starts and max(starts) > MAX_LINE_NUMBER)
    ):
        return None
    for line in states.keys() & starts:
        if states[line] == HIT:
            states[line] = PARTIAL
    state_column = bytes(map(states.__getitem__, lines))
    return LineCoverage.from_columns(lines, iter(state_column.translate(_HITS_OF_STATE)), state_column)


_KEPT = ("executed_lines", "missing_lines", "missing_branches")
_NONE: list[Any] = []
_INT = {int}
_LIST = {list}
_PAIR = {2}
# coverage.py has no counts: a hit or partial line counts 1, a missed one 0.
_HITS_OF_STATE = bytes.maketrans(bytes((HIT, MISS, PARTIAL)), bytes((1, 0, 1)))


def _not_a_list(key: str, name: str) -> str:
    return f"coverage.py JSON report: {key} of {quote(name)} is not a list"


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
