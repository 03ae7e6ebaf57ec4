"""Clover XML (PHPUnit ``--coverage-clover``, Istanbul's ``clover`` reporter, OpenClover).

Each ``<file>`` (its ``path``, else its ``name``, as written) holds ``<line num type count>`` elements:
``stmt`` and ``method`` lines are HIT when counted and MISS at 0, as Codecov reads them (so a
method's declaration line is tracked, where PHPUnit's own line total leaves it out). A ``cond`` line
at 0 is MISS; counted, its two numbers decide, and what they mean depends on the writer:

- OpenClover (and Codecov's reading): ``truecount``/``falsecount`` are how often the condition was
  true and false; the line is PARTIAL when either is 0, else HIT.
- Istanbul (its root says ``clover="3.2.0"``): they are the branch paths covered and not covered; the
  line is PARTIAL when some path was not covered, so its Clover, LCOV and JSON of one run agree.
  (Codecov reads Istanbul's file with the OpenClover rule and makes fully covered lines partial.)

A ``cond`` line without a ``count`` is read by its two numbers alone, as Codecov reads every ``cond``
line: both taken HIT, one PARTIAL, none MISS; its hits are their sum.

Skipped, as Codecov does: a file whose name holds ``{`` (a template), a PHP file under ``vendor/``, a
line numbered below 1 or, in a PHP file, past the file's ``loc``. Counted too, as in every format
(``parsers/_common.py``): a line or count that is not a number (skipped), a negative count (clamped to
0), a decimal one (rounded down). Streamed with expat, one file at a time.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, List

from ..lines import HIT, MAX_HITS, MISS, PARTIAL, LineCoverage
from ._common import ParsedFile, hit_count
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, FileXmlReader, attributes, int_attribute, read_xml

__all__ = ["FORMAT", "parse_clover"]

#: The ``clover`` attribute Istanbul's Clover writer puts on the root, whatever its own version.
ISTANBUL_CLOVER = "3.2.0"


def parse_clover(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``<file>`` of a Clover XML report read from ``chunks``."""
    return read_xml(chunks, _CloverReader(context))


class _CloverReader(FileXmlReader):
    title, roots, number_key = "Clover XML", ("coverage",), "num"
    _istanbul = False  # the root says Istanbul wrote the report
    _php = False  # the file being read is PHP
    _end_of_file: int | None = None  # its loc, where a PHP file's <metrics> say it

    def start(self, name: str, attrs: list[str]) -> None:
        # Only start tags are followed: a file ends where the next file, package or project starts,
        # or where the document ends (an end-tag handler would cost a Python call per line).
        if name == "file":
            self.finish()
            if len(attrs) == 4 and attrs[0] == "name" and attrs[2] == "path":
                file_name = (attrs[3] or attrs[1]).strip()  # Istanbul's file: its path, else its name
            else:
                named = attributes(attrs)
                file_name = (named.get("path") or named.get("name") or "").strip()
            if "{" in file_name:
                self.skips.add("files whose name is a template ({), skipped")
            elif file_name.endswith(".php") and "/vendor/" in "/" + file_name.replace("\\", "/"):
                self.skips.add("PHP files under vendor/, skipped")
            else:
                self._php = file_name.endswith(".php")
                self._end_of_file = None
                self.open_file(file_name)
        elif name == "metrics":
            if self._in_file and self._php and self._end_of_file is None:
                # The file's own <metrics> (a project's or package's counts its files).
                named = attributes(attrs)
                if "files" not in named:
                    self._end_of_file = int_attribute(named, "loc")
        elif name == "package" or name == "project" or name == "testproject":
            self.finish()
        elif name == "coverage":
            self._istanbul = attributes(attrs).get("clover") == ISTANBUL_CLOVER

    def file_handler(self) -> Callable[[str, List[str]], None]:
        # The start handler inside a <file>, its <line>s read in it (one Python call a line): in
        # Istanbul's orders (num count type, then truecount falsecount on a cond line) and PHPUnit's
        # (num type count; a method line has name visibility complexity crap before its count).
        add_line, add_hits, add_state = self.appends
        small, checked, other, reader = SMALL_NUMBERS.get, self.checked_line, self.start, self

        def start_in_file(name: str, attrs: List[str]) -> None:
            if name != "line":
                other(name, attrs)
                return
            if len(attrs) == 6:
                num_key, num_text, key, value, last_key, last_value = attrs
                if key == "count":  # Istanbul's: num count type
                    count, usual = small(value), last_key == "type" and last_value != "cond"
                else:  # PHPUnit's: num type count
                    count, usual = small(last_value), key == "type" and last_key == "count" and value != "cond"
                number = small(num_text)
                if usual and number and count is not None and num_key == "num":
                    add_line(number)
                    add_hits(count)
                    add_state(MISS if count == 0 else HIT)
                    return
            elif len(attrs) == 10:
                # Istanbul's cond line.
                num_key, num_text, count_key, count_text, type_key, kind, true_key, trues, false_key, falses = attrs
                number = small(num_text)
                count = small(count_text)
                true_count = small(trues)
                false_count = small(falses)
                if (
                    number
                    and count is not None
                    and true_count is not None
                    and false_count is not None
                    and num_key == "num"
                    and count_key == "count"
                    and type_key == "type"
                    and kind == "cond"
                    and true_key == "truecount"
                    and false_key == "falsecount"
                ):
                    add_line(number)
                    add_hits(count)
                    if not count:
                        add_state(MISS)
                    elif reader._istanbul:
                        add_state(PARTIAL if false_count else HIT)
                    else:
                        add_state(PARTIAL if not true_count or not false_count else HIT)
                    return
            elif len(attrs) == 14:
                # PHPUnit's method line (the keys between type and count are read by no rule; XML
                # allows no second num, type or count).
                number = small(attrs[1])
                count = small(attrs[13])
                if (
                    number
                    and count is not None
                    and attrs[0] == "num"
                    and attrs[2] == "type"
                    and attrs[12] == "count"
                    and attrs[3] != "cond"
                ):
                    add_line(number)
                    add_hits(count)
                    add_state(MISS if count == 0 else HIT)
                    return
            checked(attrs)

        return start_in_file

    def line(self, number: int, attrs: dict[str, str]) -> None:
        if not attrs.get("count") and attrs.get("type") == "cond" and "truecount" in attrs:
            self._condition(number, attrs)
            return
        count = hit_count(attrs["count"], number, self.path, self.skips) if attrs.get("count") else 0
        if count is None:
            return
        state = HIT if count else MISS
        if count and attrs.get("type") == "cond":
            true_count = hit_count(attrs.get("truecount", ""), number, self.path, self.skips)
            false_count = hit_count(attrs.get("falsecount", ""), number, self.path, self.skips)
            if true_count is None or false_count is None:
                return
            if self._istanbul:
                state = PARTIAL if false_count > 0 else HIT
            elif true_count == 0 or false_count == 0:
                state = PARTIAL
        self.lines.add(number, count, state)

    def _condition(self, number: int, attrs: dict[str, str]) -> None:
        # A cond line without a count: Codecov's reading of its two numbers.
        true_count = hit_count(attrs["truecount"], number, self.path, self.skips)
        false_count = hit_count(attrs.get("falsecount", ""), number, self.path, self.skips)
        if true_count is None or false_count is None:
            return
        taken = (true_count > 0) + (false_count > 0)
        self.lines.add(number, min(true_count + false_count, MAX_HITS), (MISS, PARTIAL, HIT)[taken])

    def file_done(self, lines: LineCoverage) -> None:
        end = self._end_of_file
        if end is not None:
            kept = [entry for entry in lines if entry[0] <= end]
            if len(kept) < len(lines):
                self.skips.add("PHP lines past the file's end (loc), skipped", len(lines) - len(kept))
                lines = LineCoverage(kept)
        if len(lines):
            super().file_done(lines)


def _detect(head: ReportHead) -> bool:
    # Cobertura's root is <coverage> too, but never with Clover's generated= or clover=.
    return head.xml_root == "coverage" and (head.xml_root_has("generated") or head.xml_root_has("clover"))


FORMAT = ReportFormat("clover", "Clover XML", _detect, parse_clover, ("clover*.xml", "*.clover"))
