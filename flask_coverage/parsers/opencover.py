"""OpenCover XML (.NET: OpenCover, coverlet ``--format opencover``, AltCover).

A ``<Module>`` lists its ``<File uid fullPath>`` elements, then classes whose ``<Method>`` elements
point at a file (``<FileRef uid>``) and hold ``<SequencePoint vc sl el bec bev>`` (visits, start and
end line, branches and branches visited). As Codecov reads them: a sequence point with branches gives
``bev/bec`` (all visited HIT, none MISS, else PARTIAL), one without its visit count (HIT, or MISS at
0), on every line from ``sl`` to ``el``. Sequence points sharing a line merge by the usual rules (a
hit wins). Paths are the ``fullPath``s as written (Windows separators become ``/``).

Skipped and counted as in every format (``parsers/_common.py``): a line or count that is not a number,
line 0; also a sequence point of a file not listed, or spanning more than 1,000 lines. Streamed with
expat, one module at a time.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, List

from ..lines import HIT, MISS, PARTIAL, LineColumns
from ._common import ParsedFile, hit_count, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, XmlReader, attributes, read_xml

__all__ = ["FORMAT", "parse_opencover"]

#: No statement is longer: a sequence point over more lines is taken for garbage, not walked.
MAX_SEQUENCE_LINES = 1000


def parse_opencover(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield the files of an OpenCover XML report read from ``chunks``, module by module."""
    return read_xml(chunks, _OpenCoverReader(context))


class _OpenCoverReader(XmlReader):
    title = "OpenCover XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("CoverageSession")
        self._skips = context.skips
        self._resolver = context.resolver()
        self._paths: dict[str, str] = {}  # the module's files: uid -> path
        self._lines: dict[str, LineColumns] = {}
        self._path = ""

    def start(self, name: str, attrs: list[str]) -> None:
        # A <SequencePoint> goes to the handler of its method's file (_in_method), else nowhere.
        if name == "FileRef":
            uid = attributes(attrs).get("uid", "")
            if uid in self._paths:
                self._path = self._paths[uid]
                # The method's points go to its file's lines, until the next <Method>.
                self.parser.StartElementHandler = self._in_method(self._lines.setdefault(uid, LineColumns()))
            else:
                self._skips.add("methods of a file not listed, skipped")
        elif name == "Method":
            self.parser.StartElementHandler = self.start
        elif name == "File":
            named = attributes(attrs)
            path = named.get("fullPath", "").strip()
            if path:
                self._paths[named.get("uid", "")] = self._resolver.resolve(path)
        elif name == "Module":
            self.finish()

    def _in_method(self, lines: LineColumns) -> Callable[[str, List[str]], None]:
        # The start handler inside a <Method> with its file known: one-line sequence points, as
        # coverlet writes them (vc uspid ordinal sl sc el ec bec bev fileid), read here.
        add_line, add_hits, add_state = lines.lines.append, lines.hits.append, lines.states.append
        small = SMALL_NUMBERS.get
        other, checked = self.start, self._point
        hit, miss, partial = HIT, MISS, PARTIAL

        def start_in_method(name: str, attrs: list[str]) -> None:
            if name == "SequencePoint":
                if len(attrs) == 20 and attrs[7] == attrs[11]:
                    visits = small(attrs[1])
                    number = small(attrs[7])
                    branches = small(attrs[15])
                    visited = small(attrs[17])
                    if (
                        number
                        and visits is not None
                        and branches is not None
                        and visited is not None
                        and attrs[0] == "vc"
                        and attrs[6] == "sl"
                        and attrs[10] == "el"
                        and attrs[14] == "bec"
                        and attrs[16] == "bev"
                    ):
                        add_line(number)
                        if not branches:
                            add_hits(visits)
                            add_state(hit if visits else miss)
                        elif not visited:
                            add_hits(0)
                            add_state(miss)
                        else:
                            add_hits(visited)
                            add_state(hit if visited >= branches else partial)
                        return
                checked(lines, attributes(attrs))
            else:
                other(name, attrs)

        return start_in_method

    def _point(self, lines: LineColumns, attrs: dict[str, str]) -> None:
        path = self._path
        first = line_number(attrs.get("sl", ""), path, self._skips)
        last = line_number(attrs.get("el", ""), path, self._skips) if first is not None else None
        visits = hit_count(attrs.get("vc", ""), first, path, self._skips) if last is not None else None
        if first is None or last is None or visits is None:
            return
        if not first <= last <= first + MAX_SEQUENCE_LINES:
            self._skips.add("sequence points ending before they start or spanning over 1,000 lines, skipped")
            return
        branches = hit_count(attrs.get("bec") or "0", first, path, self._skips) or 0
        if branches:
            visited = hit_count(attrs.get("bev") or "0", first, path, self._skips) or 0
            state = HIT if visited >= branches else MISS if not visited else PARTIAL
            hits = visited if state != MISS else 0
        else:
            state, hits = (HIT if visits else MISS), visits
        for number in range(first, last + 1):
            lines.add(number, hits, state)

    def finish(self) -> None:
        for uid, lines in self._lines.items():
            self.done.append(ParsedFile(self._paths[uid], lines.take()))
        self._paths, self._lines = {}, {}
        self.parser.StartElementHandler = self.start


def _detect(head: ReportHead) -> bool:
    return head.xml_root == "CoverageSession"


FORMAT = ReportFormat("opencover", "OpenCover XML", _detect, parse_opencover, ("*opencover*.xml",))
