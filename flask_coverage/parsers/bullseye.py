"""BullseyeCoverage XML (``covxml``, Bullseye's XML export: ``<BullseyeCoverage>`` holding ``<folder
name>`` elements, nested, with ``<src name>`` files, their ``<fn>`` functions and each function's
``<probe line kind event>`` probes).

As Codecov reads them: a probe's ``event`` ``full`` (every way taken: a function called, a decision
both true and false) marks its line HIT, ``none`` MISS, any other (``true``, ``false``: a decision one
way only) PARTIAL; probes sharing a line merge by the usual rules. Hits are 1 or 0: the report has no
counts. A file's path is its folders' names and its own, joined by ``/``.

Skipped and counted: a probe outside a file, without an ``event``, a line that is not a number or is
0; a file without a name. Streamed with expat, one file at a time.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, List

from ..lines import HIT, MISS, PARTIAL, LineColumns
from ._common import EMPTY_NAME, ParsedFile, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, XmlReader, attributes, read_xml

__all__ = ["FORMAT", "parse_bullseye"]

_EVENTS = {"full": (1, HIT), "none": (0, MISS)}
_PARTIAL = (1, PARTIAL)  # any other event: one way only


def parse_bullseye(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of a BullseyeCoverage XML report read from ``chunks``."""
    return read_xml(chunks, _BullseyeReader(context))


class _BullseyeReader(XmlReader):
    title = "BullseyeCoverage XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("BullseyeCoverage")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._folders: list[str] = []
        self._path: str | None = None  # the file being read, if any
        self._lines = LineColumns()
        self.parser.EndElementHandler = self._end
        self._in_file = self._file_handler()

    def start(self, name: str, attrs: list[str]) -> None:
        if name == "probe":
            self._probe(attributes(attrs))
        elif name == "src":
            self.finish()
            own = attributes(attrs).get("name", "").strip()
            if not own:
                self._skips.add(EMPTY_NAME)
                return
            self._path = self._resolver.resolve("/".join([*self._folders, own]))
            self.parser.StartElementHandler = self._in_file
        elif name == "folder":
            self._folders.append(attributes(attrs).get("name", "").strip().strip("/"))

    def _file_handler(self) -> Callable[[str, List[str]], None]:
        # The start handler inside a named <src>: probes as covxml writes them (line column kind event)
        # read here.
        add_line, add_hits, add_state = self._lines.lines.append, self._lines.hits.append, self._lines.states.append
        small = SMALL_NUMBERS.get
        events = _EVENTS.get
        other = self.start

        def start_in_file(name: str, attrs: list[str]) -> None:
            if name == "probe" and len(attrs) == 8 and attrs[0] == "line" and attrs[6] == "event":
                number = small(attrs[1])
                if number:
                    hits, state = events(attrs[7], _PARTIAL)
                    add_line(number)
                    add_hits(hits)
                    add_state(state)
                    return
            other(name, attrs)

        return start_in_file

    def _end(self, name: str) -> None:
        if name == "folder" and self._folders:
            self._folders.pop()
        elif name == "src":
            self.finish()

    def _probe(self, attrs: dict[str, str]) -> None:
        if self._path is None:
            self._skips.add("probes outside a file, skipped")
            return
        event = attrs.get("event")
        if event is None:
            self._skips.add("probes without an event, skipped")
            return
        number = line_number(attrs.get("line", ""), self._path, self._skips)
        if number is not None:
            hits, state = _EVENTS.get(event, _PARTIAL)
            self._lines.add(number, hits, state)

    def finish(self) -> None:
        if self._path is not None and len(self._lines):
            self.done.append(ParsedFile(self._path, self._lines.take()))
        self._path = None
        self.parser.StartElementHandler = self.start


def _detect(head: ReportHead) -> bool:
    return head.xml_root == "BullseyeCoverage"


FORMAT = ReportFormat("bullseye", "BullseyeCoverage XML", _detect, parse_bullseye, ("*.covxml", "*bullseye*.xml"))
