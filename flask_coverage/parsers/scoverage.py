"""scoverage XML (Scala: ``scoverage.xml`` of sbt-scoverage, scoverage-maven-plugin, gradle-scoverage).

``<scoverage>`` holds packages, classes and methods whose ``<statement source line invocation-count
ignored>`` elements are the data (Codecov's older sample, a root ``<statements>`` with the same fields
as child elements, is read too). The statements of a line that are not ``ignored`` decide its
state: all invoked HIT, none MISS, else PARTIAL (scoverage's own count). The hits are the largest
``invocation-count`` of the line. Codecov stores a line's largest count, so a line with a statement
invoked is a hit there: with ``ParserSettings`` (an upload's) the PARTIAL lines are
made HITs after this reader (``FORMAT.partials_as_hits``). A line whose statements sit in two
packages is merged by the usual rules (a package ends where the next one starts, or with the
document). Paths are each statement's ``source`` (absolute), as on Codecov, else its class's
``filename``: stripped by ``root`` or placed by the network list.

Skipped and counted as in every format (``parsers/_common.py``): a line that is 0 or not a number, a
count that is not a number (negative clamped, decimals rounded down), a statement without a source.
Streamed with expat, one package at a time.

Speed (``parsers/_xml.py``): only start tags are followed (an end-tag handler only inside a statement
written as child elements). A ``<statement>`` is read in the start handler itself when its attributes
come in the layout of the first statement (scoverage writes them all alike: the positions of
``source``, ``line``, ``invocation-count`` and ``ignored`` are learnt once), it is not ignored, its
source is the one of the statement before, and its line and count are small (:data:`SMALL_NUMBERS`).
Its line then extends or joins the last one of its file (statements come in source order, so a
file's lines are built in order, with no per-line dict). Anything else takes the checked path.
"""

from __future__ import annotations

from array import array
from typing import Callable, Iterable, Iterator, List, Optional, Tuple

from ..lines import _U32, HIT, MAX_HITS, MISS, PARTIAL, LineCoverage
from ._common import EMPTY_NAME, ParsedFile, hit_count, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, XmlReader, attributes, read_xml

__all__ = ["FORMAT", "parse_scoverage"]

#: The fields of a statement written as child elements (Codecov's ``<statements>`` sample).
_FIELDS = frozenset(("source", "line", "count", "invocation-count", "ignored"))
#: Text kept per field of the child form: a path is at most 4096 characters, the rest far shorter.
_MAX_FIELD = 8192
#: The attributes the fast path reads, in the order of a :data:`Layout`.
_KEYS = ("source", "line", "invocation-count", "ignored")

#: A statement's attribute list: its length and the index of the value of each of :data:`_KEYS`.
Layout = Tuple[int, int, int, int, int]
Handler = Callable[[str, List[str]], None]


def parse_scoverage(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of an scoverage XML report read from ``chunks``, package by package."""
    return read_xml(chunks, _ScoverageReader(context))


def _layout(attrs: list[str]) -> Optional[Layout]:
    """Where a statement's attribute list holds the values the fast path reads, or None."""
    keys = attrs[::2]
    if not all(key in keys for key in _KEYS):
        return None
    source, line, count, ignored = (2 * keys.index(key) + 1 for key in _KEYS)
    return len(attrs), source, line, count, ignored


class _Lines:
    """A file's lines in one package: columns with a line 0 in front (so the last line is always at
    hand), each entry one line or a run of its statements in a row (hits the largest, the state
    combined); ``ordered`` while every entry's line is above the one before."""

    __slots__ = ("lines", "hits", "states", "ordered")

    def __init__(self) -> None:
        self.lines: array[int] = array(_U32, (0,))
        self.hits: array[int] = array(_U32, (0,))
        self.states = bytearray(1)
        self.ordered = True

    def add(self, number: int, hits: int) -> None:
        if hits > MAX_HITS:
            hits = MAX_HITS
        state = HIT if hits else MISS
        last = self.lines[-1]
        if number == last:
            if hits > self.hits[-1]:
                self.hits[-1] = hits
            if self.states[-1] != state:
                self.states[-1] = PARTIAL
            return
        if number < last:
            self.ordered = False
        self.lines.append(number)
        self.hits.append(hits)
        self.states.append(state)

    def coverage(self) -> LineCoverage:
        lines, hits, states = self.lines[1:], self.hits[1:], self.states[1:]
        if self.ordered:
            return LineCoverage._trusted(lines, hits, states)
        # A line whose statements are not in a row: the largest hits; the same state, else PARTIAL.
        merged: dict[int, list[int]] = {}
        for number, count, state in zip(lines, hits, states):
            line = merged.get(number)
            if line is None:
                merged[number] = [count, state]
            else:
                if count > line[0]:
                    line[0] = count
                if line[1] != state:
                    line[1] = PARTIAL
        numbers = sorted(merged)
        return LineCoverage._trusted(
            array(_U32, numbers),
            array(_U32, (merged[number][0] for number in numbers)),
            bytearray(merged[number][1] for number in numbers),
        )


class _ScoverageReader(XmlReader):
    title = "scoverage XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("scoverage", "statements")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._resolved: dict[str, str] = {}
        self._class_file = ""
        self._files: dict[str, _Lines] = {}  # path -> its lines, for the package being read
        self._fields: Optional[dict[str, str]] = None  # a statement written as child elements
        self._field = ""
        # What the fast start handler is bound to: a layout, a file and the source naming it.
        self._layout: Optional[Layout] = None
        self._file: Optional[_Lines] = None
        self._source: Optional[str] = None

    def start(self, name: str, attrs: list[str]) -> None:
        # No file bound (none read yet in this package, or the last one without a source of its own, or
        # no layout learnt): every statement is checked.
        if name == "statement":
            self._checked(attrs)
        else:
            self._other(name, attrs)

    def _bind(self, layout: Optional[Layout], file: Optional[_Lines], source: Optional[str]) -> None:
        # Sets the start handler that reads the statements of ``source`` laid out as ``layout`` into ``file``.
        self._layout, self._file, self._source = layout, file, source
        if layout is None or file is None or source is None:
            self.parser.StartElementHandler = self.start
            return
        size, at_source, at_line, at_count, at_ignored = layout
        lines, hits_column, states = file.lines, file.hits, file.states
        add_line, add_hits, add_state = lines.append, hits_column.append, states.append
        small = SMALL_NUMBERS.get
        checked, other = self._checked, self._other
        hit, miss, partial = HIT, MISS, PARTIAL

        def start(name: str, attrs: list[str]) -> None:
            if name == "statement":
                if (
                    len(attrs) == size
                    and attrs[at_source] == source
                    and attrs[at_ignored] == "false"
                    and attrs[at_line - 1] == "line"
                    and attrs[at_count - 1] == "invocation-count"
                    and attrs[at_source - 1] == "source"
                    and attrs[at_ignored - 1] == "ignored"
                ):
                    number = small(attrs[at_line])
                    hits = small(attrs[at_count])
                    if number and hits is not None:
                        last = lines[-1]
                        if number > last:
                            add_line(number)
                            add_hits(hits)
                            add_state(hit if hits else miss)
                            return
                        if number == last:
                            if hits > hits_column[-1]:
                                hits_column[-1] = hits
                            if states[-1] != (hit if hits else miss):
                                states[-1] = partial
                            return
                checked(attrs)
            else:
                other(name, attrs)

        self.parser.StartElementHandler = start

    def _checked(self, attrs: list[str]) -> None:
        # A <statement> off the fast path.
        if "line" in attrs[::2]:
            self._statement(attributes(attrs), attrs)
        else:
            self._fields = {}
            self.parser.EndElementHandler = self._end

    def _other(self, name: str, attrs: list[str]) -> None:
        if self._fields is not None and name in _FIELDS:
            self._field = name
            self._fields[name] = ""
            self.parser.CharacterDataHandler = self._text
        elif name == "class":
            self._class_file = attributes(attrs).get("filename", "")
        elif name == "package":
            self.finish()

    def _text(self, text: str) -> None:
        if self._fields is not None and len(self._fields[self._field]) < _MAX_FIELD:
            self._fields[self._field] += text

    def _end(self, name: str) -> None:
        # Only inside a statement written as child elements.
        if name == self._field:
            self.parser.CharacterDataHandler = None
            self._field = ""
        elif name == "statement" and self._fields is not None:
            fields, self._fields = self._fields, None
            self._statement({key: value.strip() for key, value in fields.items()}, None)
        if self._fields is None and not self._field:
            self.parser.EndElementHandler = None

    def _statement(self, attrs: dict[str, str], raw: Optional[list[str]]) -> None:
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
        file = self._files.get(path)
        if file is None:
            file = self._files[path] = _Lines()
        file.add(number, hits)
        if raw is None:
            return
        # The statements that follow are most likely laid out alike, in the same source.
        layout = _layout(raw)
        named = attrs.get("source") or None
        if layout != self._layout or file is not self._file or named != self._source:
            self._bind(layout, file, named)

    def finish(self) -> None:
        for path, lines in self._files.items():
            self.done.append(ParsedFile(path, lines.coverage()))
        self._files = {}
        self._bind(self._layout, None, None)
        if len(self._resolved) > 4096:
            self._resolved = {}


def _detect(head: ReportHead) -> bool:
    return head.xml_root in ("scoverage", "statements")


# Codecov stores a line's largest count: a line with a statement invoked is a hit (docs/parsing.md).
FORMAT = ReportFormat(
    "scoverage", "scoverage XML", _detect, parse_scoverage, ("scoverage*.xml",), partials_as_hits=lambda _settings: True
)
