"""JetBrains dotCover XML (``dotCover report --ReportType=DetailedXML``, also ``dotnet dotcover``).

The root ``<Root>`` lists the source files first (``<FileIndices>``, each ``<File Index Name>``), then
``<Assembly>``/``<Namespace>``/``<Type>``/``<Method>`` elements down to ``<Statement FileIndex Line
Column EndLine EndColumn Covered>``. As Codecov reads them: a statement marks its first line (``Line``)
HIT when ``Covered="True"``, else MISS; statements sharing a line merge by the usual rules (a hit
wins). Paths are the ``Name``s as written (Windows separators become ``/``).

Skipped and counted: a statement of a file not listed, a line that is not a number or is 0, a
``Covered`` other than ``True``/``False``. Streamed with expat, one assembly at a time (a file whose
statements sit in two assemblies is yielded twice, and merged by the caller).
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, List

from ..lines import HIT, MISS, LineColumns
from ._common import EMPTY_NAME, ParsedFile, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, XmlReader, attributes, read_xml

__all__ = ["FORMAT", "parse_dotcover"]


def parse_dotcover(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of a dotCover DetailedXML report read from ``chunks``."""
    return read_xml(chunks, _DotCoverReader(context))


class _DotCoverReader(XmlReader):
    title = "dotCover XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("Root")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._files: dict[str, tuple[str, LineColumns]] = {}  # Index -> path and the assembly's lines

    def start(self, name: str, attrs: list[str]) -> None:
        if name == "Statement":
            self._statement(attributes(attrs))
        elif name == "Root":
            self.parser.StartElementHandler = self._handler()
        elif name == "Assembly":
            self.finish()
        elif name == "File":
            named = attributes(attrs)
            path = named.get("Name", "").strip()
            if not path:
                self._skips.add(EMPTY_NAME)
                return
            self._files[named.get("Index", "")] = (self._resolver.resolve(path), LineColumns())

    def _handler(self) -> Callable[[str, List[str]], None]:
        # The start handler inside <Root>: statements as dotCover writes them (FileIndex Line Column
        # EndLine EndColumn Covered) read here, with their file's columns looked up once.
        files = self._files
        small = SMALL_NUMBERS.get
        other, checked = self.start, self._statement
        hit, miss = HIT, MISS

        def start_in_root(name: str, attrs: list[str]) -> None:
            if name == "Statement":
                if len(attrs) == 12 and attrs[0] == "FileIndex" and attrs[2] == "Line" and attrs[10] == "Covered":
                    listed = files.get(attrs[1])
                    number = small(attrs[3])
                    covered = attrs[11]
                    if listed is not None and number and (covered == "True" or covered == "False"):
                        lines = listed[1]
                        lines.lines.append(number)
                        if covered == "True":
                            lines.hits.append(1)
                            lines.states.append(hit)
                        else:
                            lines.hits.append(0)
                            lines.states.append(miss)
                        return
                checked(attributes(attrs))
            else:
                other(name, attrs)

        return start_in_root

    def _statement(self, attrs: dict[str, str]) -> None:
        listed = self._files.get(attrs.get("FileIndex", ""))
        if listed is None:
            self._skips.add("statements of a file not listed, skipped")
            return
        path, lines = listed
        number = line_number(attrs.get("Line", ""), path, self._skips)
        if number is None:
            return
        covered = attrs.get("Covered")
        if covered == "True":
            lines.add(number, 1, HIT)
        elif covered == "False":
            lines.add(number, 0, MISS)
        else:
            self._skips.add('statements whose Covered is neither "True" nor "False", skipped')

    def finish(self) -> None:
        # The files stay listed (every assembly refers to <FileIndices>); their lines are taken.
        for path, lines in self._files.values():
            if len(lines):
                self.done.append(ParsedFile(path, lines.take()))


def _detect(head: ReportHead) -> bool:
    # <Root> alone is too plain a name: dotCover's start tag names its version, and its report type.
    return head.xml_root == "Root" and (
        head.xml_root_has("DotCoverVersion") or b'ReportType="DetailedXml"' in head.xml_root_tag
    )


FORMAT = ReportFormat("dotcover", "dotCover XML", _detect, parse_dotcover, ("*dotcover*.xml",))
