"""Mono's coverage XML: what its coverage profiler writes (``mono --debug --profile=coverage:output=x.xml``),
Codecov's ``mono`` processor.

A root ``<coverage version="0.3">`` holds, one after the other, an ``<assembly>`` and a ``<class>`` per
assembly and class measured (their method counts only), then a ``<method filename=...>`` per method,
each with its ``<statement offset counter line column>`` elements: an IL sequence point and how often it
ran. As Codecov reads them: each statement marks its ``line`` of the method's ``filename``, HIT when its
``counter`` is above 0, MISS at 0, with the counter as hits; statements sharing a line merge by the usual
rules (hits add up, a hit wins). Paths are the ``filename``\\ s as written (absolute), stripped by
``root`` or placed by the network list.

Skipped and counted: a statement of a method without a file name (``filename=""``: the profiler
measures the framework's assemblies too, without their symbols) or before the first method (a method
ends where the next starts: no end tag is followed); as every format
a line that is not a number or is 0, a count that is not a number (negative clamped, decimals rounded
down). The methods of one file are scattered through the report (the profiler writes them in its hash
table's order), so every file's lines are held, packed, to the end of the document.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator, List

from ..lines import HIT, MISS, LineColumns
from ._common import ParsedFile, hit_count, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, XmlReader, attributes, read_xml

__all__ = ["FORMAT", "parse_mono"]

_FIRST_CHILD = re.compile(rb"\s*(?:<!--.*?-->\s*)*<([A-Za-z_][\w.-]*)", re.DOTALL)
_NO_FILE = "statements of a method without a file name (no debug symbols) or before the first method, skipped"


def parse_mono(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of a Mono coverage XML report read from ``chunks``."""
    return read_xml(chunks, _MonoReader(context))


class _MonoReader(XmlReader):
    title = "Mono coverage XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("coverage")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._files: dict[str, LineColumns] = {}  # every file's lines, by path, in first-seen order
        self._names: dict[str, str] = {}  # filename as written -> its path
        self._lines: LineColumns | None = None  # the lines of the method being read
        self._path = ""

    def start(self, name: str, attrs: list[str]) -> None:
        if name == "coverage":
            self.parser.StartElementHandler = self._handler()

    def _handler(self) -> Callable[[str, List[str]], None]:
        # The start handler inside the root: a method's statements as the profiler writes them (offset
        # counter line column) with small numbers appended here to its file's columns.
        small = SMALL_NUMBERS.get
        checked, method = self._statement, self._method
        unused = LineColumns()  # the appends before the first method with a file: never called
        add_line, add_hits, add_state = unused.lines.append, unused.hits.append, unused.states.append
        in_file = False

        def start_in_report(name: str, attrs: list[str]) -> None:
            nonlocal add_line, add_hits, add_state, in_file
            if name == "statement":
                if in_file and len(attrs) == 8 and attrs[2] == "counter" and attrs[4] == "line":
                    number, hits = small(attrs[5]), small(attrs[3])
                    if number and hits is not None:
                        add_line(number)
                        add_hits(hits)
                        add_state(HIT if hits else MISS)
                        return
                checked(attributes(attrs))
            elif name == "method":
                lines = method(attributes(attrs).get("filename", ""))
                in_file = lines is not None
                if lines is not None:
                    add_line, add_hits, add_state = lines.lines.append, lines.hits.append, lines.states.append

        return start_in_report

    def _method(self, filename: str) -> LineColumns | None:
        # The lines a method's statements go to: its file's (None for a method without a file name).
        self._lines = None
        path = self._names.get(filename)
        if path is None:
            name = filename.strip()
            if not name:
                return None
            path = self._names[filename] = self._resolver.resolve(name)
        lines = self._files.get(path)
        if lines is None:
            lines = self._files[path] = LineColumns()
        self._lines, self._path = lines, path
        return lines

    def _statement(self, attrs: dict[str, str]) -> None:
        if self._lines is None:
            self._skips.add(_NO_FILE)
            return
        number = line_number(attrs.get("line", ""), self._path, self._skips)
        if number is None:
            return
        hits = hit_count(attrs.get("counter", ""), number, self._path, self._skips)
        if hits is not None:
            self._lines.add(number, hits, HIT if hits else MISS)

    def finish(self) -> None:
        for path, lines in self._files.items():
            self.done.append(ParsedFile(path, lines.take()))
        self._files = {}


def is_mono(head: ReportHead) -> bool:
    """Whether the head is Mono's coverage XML: a ``<coverage>`` root whose first child is an
    ``<assembly>`` (Codecov's test: a ``<coverage>`` with an ``<assembly>`` child)."""
    if head.xml_root != "coverage" or not head.xml_root_tag.endswith(b">") or head.xml_root_tag.endswith(b"/>"):
        return False
    rest = head.text[head.text.find(head.xml_root_tag) + len(head.xml_root_tag) :]
    child = _FIRST_CHILD.match(rest)
    return child is not None and child.group(1) == b"assembly"


FORMAT = ReportFormat("mono", "Mono coverage XML", is_mono, parse_mono, ("coverage.xml",))
