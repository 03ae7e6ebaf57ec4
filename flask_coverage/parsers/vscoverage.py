"""Visual Studio's coverage XML in its two shapes, Codecov's two "Visual Basic" processors.

``<results>`` (``CodeCoverage.exe analyze /output:x.coveragexml``, ``dotnet-coverage merge -f xml``,
Codecov's ``vb``): each ``<module>`` lists its functions' ``<range source_id covered start_line end_line>`` elements,
then its ``<source_files>`` (``<source_file id path>``). As Codecov reads them: a range marks every
line from ``start_line`` to ``end_line``, ``covered="yes"`` HIT, ``no`` MISS, ``partial`` PARTIAL
(hits 1 or 0: the report has no counts); ranges sharing a line merge by the usual rules. Paths are the
``path``s as written (Windows separators become ``/``).

Skipped and counted: a range of a source file the module does not list, a ``covered`` other than
``yes``/``no``/``partial``, a range ending before it starts or spanning over 1,000 lines; as every
format a line that is not a number or is 0; a source file without a path. Streamed with expat, one
module at a time (its ranges held, as packed lines, until its source files are read).

``<CoverageDSPriv>`` (the IDE's export and ``CodeCoverage.exe analyze`` of older Visual Studio, a
``CoverageDS`` data set written as XML; Codecov's ``vb2``): every field is a child element with text.
Each ``<Lines>`` row (in a ``<Method>`` of a ``<Class>`` of a ``<NamespaceTable>`` of a ``<Module>``, or
straight under the root as in Codecov's sample: read wherever it is) marks ``LnStart`` to ``LnEnd`` of
its ``SourceFileID``, ``Coverage`` 0 HIT, 1 PARTIAL, 2 MISS (hits 1 or 0); the ``<SourceFileNames>``
rows (``SourceFileID``, ``SourceFileName``), written after the modules, name the files, so every row's
lines are held, packed, to the end of the document. Skipped and counted: a row of a file not named, a
``Coverage`` other than 0, 1 or 2 (Codecov reads any other as partial), a row without its four fields,
ranges as above, a file row without a name.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator, List

from ..lines import HIT, MISS, PARTIAL, LineColumns
from ._common import EMPTY_NAME, ParsedFile, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, XmlReader, attributes, read_xml

__all__ = ["FORMAT", "parse_vscoverage"]

#: No statement is longer: a range over more lines is taken for garbage, not walked.
MAX_RANGE_LINES = 1000
_STATES = {"yes": (1, HIT), "no": (0, MISS), "partial": (1, PARTIAL)}
_MODULE = re.compile(rb"<module\s[^>]*\bblock_coverage\s*=")
#: ``CoverageDSPriv``'s ``Coverage`` codes: 0 covered, 1 partially covered, 2 not covered.
_DS_STATES = {"0": (1, HIT), "1": (1, PARTIAL), "2": (0, MISS)}
#: The fields of ``CoverageDSPriv``'s two rows, in the order the data set writes them.
_LINES_NAMES = ("LnStart", "ColStart", "LnEnd", "ColEnd", "Coverage", "SourceFileID", "LineID")
_NAMES = ("SourceFileID", "SourceFileName")
_LINES_FIELDS = {name: n for n, name in enumerate(_LINES_NAMES)}
_NAMES_FIELDS = {name: n for n, name in enumerate(_NAMES)}
_LINES_ORDER = list(range(len(_LINES_NAMES)))


def parse_vscoverage(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of a Visual Studio coverage XML report read from ``chunks``, module by module."""
    return read_xml(chunks, _VsCoverageReader(context))


class _VsCoverageReader(XmlReader):
    title = "Visual Studio coverage XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("results", "CoverageDSPriv")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._lines: dict[str, LineColumns] = {}  # the module's ranges by source_id
        self._paths: dict[str, str] = {}  # the module's source files: id -> path
        self._data_set_end: Callable[[], None] | None = None  # CoverageDSPriv: closes the last row

    def start(self, name: str, attrs: list[str]) -> None:
        if name == "range":
            self._range(attributes(attrs))
        elif name == "results":
            self.parser.StartElementHandler = self._handler()
        elif name == "source_file":
            named = attributes(attrs)
            path = named.get("path", "").strip()
            if not path:
                self._skips.add(EMPTY_NAME)
                return
            self._paths[named.get("id", "")] = self._resolver.resolve(path)
        elif name == "module":
            self.finish()
        elif name == "CoverageDSPriv":
            self.parser.StartElementHandler = self._data_set_handler()

    def _handler(self) -> Callable[[str, List[str]], None]:
        # The start handler inside <results>: one-line ranges as CodeCoverage.exe writes them
        # (source_id covered start_line start_column end_line end_column) read here.
        small = SMALL_NUMBERS.get
        states = _STATES.get
        other, checked = self.start, self._range

        def start_in_results(name: str, attrs: list[str]) -> None:
            if name == "range":
                if (
                    len(attrs) == 12
                    and attrs[5] == attrs[9]
                    and attrs[0] == "source_id"
                    and attrs[2] == "covered"
                    and attrs[4] == "start_line"
                    and attrs[8] == "end_line"
                ):
                    number = small(attrs[5])
                    state = states(attrs[3])
                    if number and state is not None:
                        lines = self._lines.get(attrs[1])
                        if lines is None:
                            lines = self._lines[attrs[1]] = LineColumns()
                        lines.lines.append(number)
                        lines.hits.append(state[0])
                        lines.states.append(state[1])
                        return
                checked(attributes(attrs))
            else:
                other(name, attrs)

        return start_in_results

    def _range(self, attrs: dict[str, str]) -> None:
        state = _STATES.get(attrs.get("covered", ""))
        if state is None:
            self._skips.add('ranges whose covered is not "yes", "no" or "partial", skipped')
            return
        self._mark(attrs.get("source_id", ""), attrs.get("start_line", ""), attrs.get("end_line", ""), state)

    def _mark(self, source_id: str, first_text: str, last_text: str, state: tuple[int, int]) -> None:
        # The checked path of a range of either shape: lines first_text to last_text of source_id.
        where = "the ranges of source file " + source_id[:20]
        first = line_number(first_text, where, self._skips)
        last = line_number(last_text, where, self._skips) if first is not None else None
        if first is None or last is None:
            return
        if not first <= last <= first + MAX_RANGE_LINES:
            self._skips.add("ranges ending before they start or spanning over 1,000 lines, skipped")
            return
        lines = self._lines.get(source_id)
        if lines is None:
            lines = self._lines[source_id] = LineColumns()
        hits, line_state = state
        for number in range(first, last + 1):
            lines.add(number, hits, line_state)

    def _data_set_handler(self) -> Callable[[str, List[str]], None]:
        # CoverageDSPriv: each field a child element with its text. Inside a row (<Lines>,
        # <SourceFileNames>) the start handler appends each field's number (its place in the row's
        # fields) and expat appends the text after it (buffered: one piece, with the blanks after it,
        # unless a chunk ends in it), straight into a list: no Python call per text. The row ends where
        # an element that is not one of its fields starts (the next row, a <Method>, ...) or where the
        # document ends; a <Lines> row of the usual fields in the usual order with a one-line range
        # and small numbers is read there at once, any other by the checked path.
        parser = self.parser
        parser.buffer_text = True
        small, states = SMALL_NUMBERS.get, _DS_STATES.get
        by_source = self._lines
        values: list[str | int] = []
        fields: dict[str, int] = {}  # the open row's fields by name; empty outside a row
        row_fields: tuple[str, ...] = ()

        def close() -> None:
            # The row just read, by the checked path: its fields and texts in ``values``.
            nonlocal fields
            parser.CharacterDataHandler = None
            self._data_set_row(_row(values, row_fields), fields is _LINES_FIELDS)
            values.clear()
            fields = {}

        def start_in_data_set(name: str, attrs: list[str]) -> None:
            nonlocal fields, row_fields
            field = fields.get(name)
            if field is not None:
                values.append(field)
                return
            if fields is _LINES_FIELDS:
                # A <Lines> row ends. The usual one: its 7 fields in order, each with one text (the
                # blanks before the first, if any, come first).
                row = values
                if len(values) == 15 and values[1::2] == _LINES_ORDER:
                    row = values[1:]
                elif len(values) != 14 or values[::2] != _LINES_ORDER:
                    row = []
                if row:
                    _, first, _, _, _, last, _, _, _, coverage, _, source_id, _, _ = row
                    first = first.strip()  # type: ignore[union-attr]
                    number, state = small(first), states(coverage.strip())  # type: ignore[union-attr]
                    if number and state is not None and last.strip() == first:  # type: ignore[union-attr]
                        source_id = source_id.strip()  # type: ignore[union-attr]
                        lines = by_source.get(source_id)
                        if lines is None:
                            lines = by_source[source_id] = LineColumns()
                        lines.lines.append(number)
                        lines.hits.append(state[0])
                        lines.states.append(state[1])
                        values.clear()
                        if name == "Lines":
                            return  # the next row: the same fields, the text still appended
                        parser.CharacterDataHandler = None
                        fields = {}
                if fields:
                    close()
            elif fields:
                close()
            if name == "Lines":
                fields, row_fields = _LINES_FIELDS, _LINES_NAMES
                parser.CharacterDataHandler = values.append
            elif name == "SourceFileNames":
                fields, row_fields = _NAMES_FIELDS, _NAMES
                parser.CharacterDataHandler = values.append

        def end() -> None:
            if fields:
                start_in_data_set("", [])  # the last row ends

        self._data_set_end = end
        return start_in_data_set

    def _data_set_row(self, row: dict[str, str], lines_row: bool) -> None:
        if not lines_row:
            path = row.get("SourceFileName", "").strip()
            if not path:
                self._skips.add(EMPTY_NAME)
                return
            self._paths[row.get("SourceFileID", "").strip()] = self._resolver.resolve(path)
            return
        first, last, coverage, source_id = (row.get(key) for key in ("LnStart", "LnEnd", "Coverage", "SourceFileID"))
        if first is None or last is None or coverage is None or source_id is None:
            self._skips.add("Lines rows without LnStart, LnEnd, Coverage or SourceFileID, skipped")
            return
        state = _DS_STATES.get(coverage.strip())
        if state is None:
            self._skips.add("Lines rows whose Coverage is not 0, 1 or 2, skipped")
            return
        self._mark(source_id.strip(), first.strip(), last.strip(), state)

    def finish(self) -> None:
        if self._data_set_end is not None:
            self._data_set_end()
            self._data_set_end = None
        for source_id, lines in self._lines.items():
            path = self._paths.get(source_id)
            if path is None:
                self._skips.add("ranges of a source file not listed, skipped", len(lines))
            else:
                self.done.append(ParsedFile(path, lines.take()))
        self._lines, self._paths = {}, {}


def _row(values: list[str | int], names: tuple[str, ...]) -> dict[str, str]:
    # A row's fields from the list the data set reader collects: each field's number, then its text in
    # one piece or more. A field written twice keeps its last text.
    row: dict[str, str] = {}
    name = ""
    for value in values:
        if type(value) is int:
            name = names[value]
            row[name] = ""
        elif name:
            row[name] += value  # type: ignore[operator]
    return row


def _detect(head: ReportHead) -> bool:
    # <results> alone is too plain a name: a module with its block coverage says whose it is.
    if head.xml_root == "CoverageDSPriv":
        return True
    return head.xml_root == "results" and _MODULE.search(head.text) is not None


FORMAT = ReportFormat(
    "vscoverage", "Visual Studio coverage XML", _detect, parse_vscoverage, ("*.coveragexml", "*.coverage.xml")
)
