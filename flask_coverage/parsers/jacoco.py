"""JaCoCo XML (``jacoco:report``, Gradle's ``jacocoTestReport``, Maven's ``jacoco:report``).

A ``<sourcefile>`` of a ``<package>`` holds one ``<line nr mi ci mb cb>`` per line with code: missed and
covered instructions, missed and covered branches. Codecov's rule decides the state: a line with a
missed branch is PARTIAL if another branch was covered and MISS if none was; otherwise a line with a
covered branch or a covered instruction is HIT, and one without is MISS. The hits are the covered
instructions (JaCoCo counts no executions). The path is the package plus the file name, as JaCoCo
writes them (``com/example/Shapes.java``); placing it in the repository is the path placement's job.

Skipped, clamped and counted as in every format (``parsers/_common.py``): a line numbered 0 or less or
not a number, a count that is not a number; negative counts clamped to 0, decimals rounded down; a
nameless ``<sourcefile>``. Streamed with expat, one source file at a time.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverageBuilder
from ._common import EMPTY_NAME, ParsedFile, hit_count, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import XmlReader, read_xml

__all__ = ["FORMAT", "parse_jacoco"]


def parse_jacoco(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``<sourcefile>`` of a JaCoCo XML report read from ``chunks``."""
    return read_xml(chunks, _JacocoReader(context))


class _JacocoReader(XmlReader):
    title = "JaCoCo XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("report")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._package = ""
        self._path = ""
        self._lines: LineCoverageBuilder | None = None

    def start(self, name: str, attrs: dict[str, str]) -> None:
        # Only start tags are followed: a source file ends where the next element that is not one of
        # its lines or counters starts, or where the document ends.
        if name == "line":
            if self._lines is not None:
                self._line(self._lines, attrs)
        elif name == "sourcefile":
            self.finish()
            file_name = attrs.get("name", "").strip()
            if not file_name:
                self._skips.add(EMPTY_NAME)
                return
            self._path = self._resolver.resolve(f"{self._package}/{file_name}" if self._package else file_name)
            self._lines = LineCoverageBuilder()
        elif name == "package":
            self.finish()
            self._package = attrs.get("name", "").strip().strip("/")
        elif name != "counter":
            self.finish()

    def _line(self, lines: LineCoverageBuilder, attrs: dict[str, str]) -> None:
        number = line_number(attrs.get("nr", ""), self._path, self._skips)
        if number is None:
            return
        counts = []
        for key in ("ci", "mb", "cb"):
            count = hit_count(attrs.get(key, ""), number, self._path, self._skips)
            if count is None:
                return
            counts.append(count)
        covered, missed_branches, covered_branches = counts
        if missed_branches:
            state = PARTIAL if covered_branches else MISS
        else:
            state = HIT if covered_branches or covered else MISS
        lines.add(number, 0 if state == MISS else max(covered, 1), state)

    def finish(self) -> None:
        if self._lines is not None:
            self.done.append(ParsedFile(self._path, self._lines.build()))
            self._lines = None


def _detect(head: ReportHead) -> bool:
    return head.xml_root == "report"


FORMAT = ReportFormat("jacoco", "JaCoCo XML", _detect, parse_jacoco, ("jacoco*.xml", "*jacoco*.xml"))
