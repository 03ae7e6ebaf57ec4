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

from typing import Iterable, Iterator

from ..lines import HIT, MISS, PARTIAL, LineCoverageBuilder
from ._common import ParsedFile, hit_count, line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import XmlReader, read_xml

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
        self._lines: dict[str, LineCoverageBuilder] = {}
        self._file: LineCoverageBuilder | None = None  # where the current method's points go
        self._path = ""

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "SequencePoint":
            if self._file is not None:
                self._point(self._file, attrs)
        elif name == "FileRef":
            uid = attrs.get("uid", "")
            if uid in self._paths:
                self._file, self._path = self._lines.setdefault(uid, LineCoverageBuilder()), self._paths[uid]
            else:
                self._skips.add("methods of a file not listed, skipped")
        elif name == "Method":
            self._file = None
        elif name == "File":
            path = attrs.get("fullPath", "").strip()
            if path:
                self._paths[attrs.get("uid", "")] = self._resolver.resolve(path)
        elif name == "Module":
            self.finish()

    def _point(self, lines: LineCoverageBuilder, attrs: dict[str, str]) -> None:
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
            self.done.append(ParsedFile(self._paths[uid], lines.build()))
        self._paths, self._lines, self._file = {}, {}, None


def _detect(head: ReportHead) -> bool:
    return head.xml_root == "CoverageSession"


FORMAT = ReportFormat("opencover", "OpenCover XML", _detect, parse_opencover, ("*opencover*.xml",))
