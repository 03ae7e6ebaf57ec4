"""scoverage XML (Scala: ``scoverage.xml`` of sbt-scoverage, scoverage-maven-plugin, gradle-scoverage).

``<scoverage>`` holds packages, classes and methods whose ``<statement source line invocation-count
ignored>`` elements are the data (Codecov's older sample, a root ``<statements>`` with the same fields
as child elements, is read too). As Codecov reads it: the statements of a line that are not
``ignored`` decide its state: all invoked HIT, none MISS, else PARTIAL. The hits are the largest
``invocation-count`` of the line (Codecov stores the number of statements invoked: the same states,
so the same totals). A line whose statements sit in two packages is merged by the usual rules. Paths
are each statement's ``source`` (absolute), else its class's ``filename``: stripped by ``root`` or
placed by the network list.

Skipped and counted as in every format (``parsers/_common.py``): a line that is 0 or not a number, a
count that is not a number (negative clamped, decimals rounded down), a statement without a source.
Streamed with expat, one package at a time.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Optional

from ..lines import HIT, MISS, PARTIAL, LineCoverageBuilder
from ._common import EMPTY_NAME, ParsedFile, hit_count, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import XmlReader, attributes, read_xml

__all__ = ["FORMAT", "parse_scoverage"]

#: The fields of a statement written as child elements (Codecov's ``<statements>`` sample).
_FIELDS = frozenset(("source", "line", "count", "invocation-count", "ignored"))
#: Text kept per field of the child form: a path is at most 4096 characters, the rest far shorter.
_MAX_FIELD = 8192


def parse_scoverage(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of an scoverage XML report read from ``chunks``, package by package."""
    return read_xml(chunks, _ScoverageReader(context))


class _ScoverageReader(XmlReader):
    title = "scoverage XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("scoverage", "statements")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._resolved: dict[str, str] = {}
        self._class_file = ""
        # path -> line -> [statements, statements invoked, largest count], for the package being read
        self._files: dict[str, dict[int, list[int]]] = {}
        self._fields: Optional[dict[str, str]] = None  # a statement written as child elements
        self._field = ""
        self.parser.EndElementHandler = self._end

    def start(self, name: str, attrs: list[str]) -> None:
        if name == "statement":
            if "line" in attrs[::2]:
                self._statement(attributes(attrs))
            else:
                self._fields = {}
        elif self._fields is not None and name in _FIELDS:
            self._field = name
            self._fields[name] = ""
            self.parser.CharacterDataHandler = self._text
        elif name == "class":
            self._class_file = attributes(attrs).get("filename", "")

    def _text(self, text: str) -> None:
        if self._fields is not None and len(self._fields[self._field]) < _MAX_FIELD:
            self._fields[self._field] += text

    def _end(self, name: str) -> None:
        if name == self._field:
            self.parser.CharacterDataHandler = None
            self._field = ""
        elif name == "statement" and self._fields is not None:
            fields, self._fields = self._fields, None
            self._statement({key: value.strip() for key, value in fields.items()})
        elif name == "package":
            self.finish()

    def _statement(self, attrs: dict[str, str]) -> None:
        if attrs.get("ignored") == "true":
            return
        source = attrs.get("source") or self._class_file
        if not source.strip():
            self._skips.add(EMPTY_NAME)
            return
        path = self._resolved.get(source)
        if path is None:
            path = self._resolved[source] = self._resolver.resolve(source)
        number = line_number(attrs.get("line", ""), path, self._skips)
        if number is None:
            return
        count = attrs.get("invocation-count", attrs.get("count", ""))
        hits = hit_count(count, number, path, self._skips)
        if hits is None:
            return
        line = self._files.setdefault(path, {}).get(number)
        if line is None:
            self._files[path][number] = [1, 1 if hits else 0, hits]
        else:
            line[0] += 1
            line[1] += 1 if hits else 0
            line[2] = max(line[2], hits)

    def finish(self) -> None:
        for path, lines in self._files.items():
            builder = LineCoverageBuilder()
            for number, (statements, invoked, hits) in lines.items():
                builder.add(number, hits, HIT if invoked == statements else MISS if not invoked else PARTIAL)
            self.done.append(ParsedFile(path, builder.build()))
        self._files = {}
        if len(self._resolved) > 4096:
            self._resolved = {}


def _detect(head: ReportHead) -> bool:
    return head.xml_root in ("scoverage", "statements")


FORMAT = ReportFormat("scoverage", "scoverage XML", _detect, parse_scoverage, ("scoverage*.xml",))
