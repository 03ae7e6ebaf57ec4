"""Visual Studio's coverage XML (``CodeCoverage.exe analyze /output:x.coveragexml``, ``dotnet-coverage
merge -f xml``, Codecov's "Visual Basic" processor: root ``<results>``).

Each ``<module>`` lists its functions' ``<range source_id covered start_line end_line>`` elements,
then its ``<source_files>`` (``<source_file id path>``). As Codecov reads them: a range marks every
line from ``start_line`` to ``end_line``, ``covered="yes"`` HIT, ``no`` MISS, ``partial`` PARTIAL
(hits 1 or 0: the report has no counts); ranges sharing a line merge by the usual rules. Paths are the
``path``s as written (Windows separators become ``/``).

Skipped and counted: a range of a source file the module does not list, a ``covered`` other than
``yes``/``no``/``partial``, a range ending before it starts or spanning over 1,000 lines; as every
format a line that is not a number or is 0; a source file without a path. Streamed with expat, one
module at a time (its ranges held, as packed lines, until its source files are read).
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


def parse_vscoverage(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of a Visual Studio coverage XML report read from ``chunks``, module by module."""
    return read_xml(chunks, _VsCoverageReader(context))


class _VsCoverageReader(XmlReader):
    title = "Visual Studio coverage XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("results")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._lines: dict[str, LineColumns] = {}  # the module's ranges by source_id
        self._paths: dict[str, str] = {}  # the module's source files: id -> path

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
        where = "the ranges of source file " + attrs.get("source_id", "")[:20]
        first = line_number(attrs.get("start_line", ""), where, self._skips)
        last = line_number(attrs.get("end_line", ""), where, self._skips) if first is not None else None
        if first is None or last is None:
            return
        if not first <= last <= first + MAX_RANGE_LINES:
            self._skips.add("ranges ending before they start or spanning over 1,000 lines, skipped")
            return
        lines = self._lines.setdefault(attrs.get("source_id", ""), LineColumns())
        hits, line_state = state
        for number in range(first, last + 1):
            lines.add(number, hits, line_state)

    def finish(self) -> None:
        for source_id, lines in self._lines.items():
            path = self._paths.get(source_id)
            if path is None:
                self._skips.add("ranges of a source file not listed, skipped", len(lines))
            else:
                self.done.append(ParsedFile(path, lines.take()))
        self._lines, self._paths = {}, {}


def _detect(head: ReportHead) -> bool:
    # <results> alone is too plain a name: a module with its block coverage says whose it is.
    return head.xml_root == "results" and _MODULE.search(head.text) is not None


FORMAT = ReportFormat(
    "vscoverage", "Visual Studio coverage XML", _detect, parse_vscoverage, ("*.coveragexml", "*.coverage.xml")
)
