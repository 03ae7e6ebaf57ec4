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

Skipped, as Codecov does: a file whose name holds ``{`` (a template), a PHP file under ``vendor/``, a
line numbered below 1 or, in a PHP file, past the file's ``loc``. Counted too, as in every format
(``parsers/_common.py``): a line or count that is not a number (skipped), a negative count (clamped to
0), a decimal one (rounded down). Streamed with expat, one file at a time.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from ._common import EMPTY_NAME, ParsedFile, hit_count, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import XmlReader, int_attribute, read_xml

__all__ = ["FORMAT", "parse_clover"]

#: The ``clover`` attribute Istanbul's Clover writer puts on the root, whatever its own version.
ISTANBUL_CLOVER = "3.2.0"


def parse_clover(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``<file>`` of a Clover XML report read from ``chunks``."""
    return read_xml(chunks, _CloverReader(context))


class _CloverReader(XmlReader):
    title = "Clover XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("coverage")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._istanbul = False
        self._path = ""
        self._php = False
        self._end_of_file: int | None = None
        self._lines: LineCoverageBuilder | None = None
        self.parser.EndElementHandler = self._end

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "line":
            if self._lines is not None:
                self._line(self._lines, attrs)
        elif name == "file":
            self.finish()
            file_name = (attrs.get("path") or attrs.get("name") or "").strip()
            if not file_name:
                self._skips.add(EMPTY_NAME)
            elif "{" in file_name:
                self._skips.add("files whose name is a template ({), skipped")
            elif file_name.endswith(".php") and "/vendor/" in "/" + file_name.replace("\\", "/"):
                self._skips.add("PHP files under vendor/, skipped")
            else:
                self._path = self._resolver.resolve(file_name)
                self._php = file_name.endswith(".php")
                self._end_of_file = None
                self._lines = LineCoverageBuilder()
        elif name == "metrics":
            if self._lines is not None and self._php and self._end_of_file is None:
                self._end_of_file = int_attribute(attrs, "loc")
        elif name == "coverage":
            self._istanbul = attrs.get("clover") == ISTANBUL_CLOVER

    def _end(self, name: str) -> None:
        if name == "file":
            self.finish()

    def _line(self, lines: LineCoverageBuilder, attrs: dict[str, str]) -> None:
        number = line_number(attrs.get("num", ""), self._path, self._skips)
        if number is None:
            return
        count = hit_count(attrs["count"], number, self._path, self._skips) if attrs.get("count") else 0
        if count is None:
            return
        state = HIT if count else MISS
        if count and attrs.get("type") == "cond":
            true_count = hit_count(attrs.get("truecount", ""), number, self._path, self._skips)
            false_count = hit_count(attrs.get("falsecount", ""), number, self._path, self._skips)
            if true_count is None or false_count is None:
                return
            if self._istanbul:
                state = PARTIAL if false_count > 0 else HIT
            elif true_count == 0 or false_count == 0:
                state = PARTIAL
        lines.add(number, count, state)

    def finish(self) -> None:
        if self._lines is None:
            return
        lines = self._lines.build()
        self._lines = None
        end = self._end_of_file
        if end is not None:
            kept = [entry for entry in lines if entry[0] <= end]
            if len(kept) < len(lines):
                self._skips.add("PHP lines past the file's end (loc), skipped", len(lines) - len(kept))
                lines = LineCoverage(kept)
        if len(lines):
            self.done.append(ParsedFile(self._path, lines))


def _detect(head: ReportHead) -> bool:
    # Cobertura's root is <coverage> too, but never with Clover's generated= or clover=.
    return head.xml_root == "coverage" and (head.xml_root_has("generated") or head.xml_root_has("clover"))


FORMAT = ReportFormat("clover", "Clover XML", _detect, parse_clover, ("clover*.xml", "*.clover"))
