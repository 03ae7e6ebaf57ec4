"""JaCoCo XML (``jacoco:report``, Gradle's ``jacocoTestReport``, Maven's ``jacoco:report``).

A ``<sourcefile>`` of a ``<package>`` holds one ``<line nr mi ci mb cb>`` per line with code: missed and
covered instructions, missed and covered branches. Codecov's rule decides the state: a line with a
missed branch is PARTIAL if another branch was covered and MISS if none was; otherwise a line with a
covered branch or a covered instruction is HIT, and one without is MISS. The hits are the covered
instructions (JaCoCo counts no executions). The path is the package plus the file name, as JaCoCo
writes them (``com/example/Shapes.java``); placing it in the repository is the path placement's job.
A multi-module build writes one report per module, named after it (``<report name="module_a">``) with
paths relative to it: as on Codecov, ``<name>/<package>/<file>`` and then
``<name>/src/main/java/<package>/<file>`` are tried against the repository's files
(``context.known``) before the bare path, and with no files to try them on the first is taken, so two
modules' ``com/x/Util.java`` never merge. A name with a space is no module name (Codecov's rule).

Skipped, clamped and counted as in every format (``parsers/_common.py``): a line numbered 0 or less or
not a number, a count that is not a number; negative counts clamped to 0, decimals rounded down; a
nameless ``<sourcefile>``. Streamed with expat, one source file at a time.
"""

from __future__ import annotations

from typing import AbstractSet, Callable, Iterable, Iterator, List, Optional

from ..lines import HIT, MISS, PARTIAL
from ._common import ParsedFile, hit_count
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, FileXmlReader, attributes, read_xml

__all__ = ["FORMAT", "parse_jacoco"]


def parse_jacoco(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``<sourcefile>`` of a JaCoCo XML report read from ``chunks``."""
    return read_xml(chunks, _JacocoReader(context))


class _JacocoReader(FileXmlReader):
    title, roots, number_key = "JaCoCo XML", ("report",), "nr"
    _package = ""  # the <package> being read
    _module: Optional[_Module] = None  # the module a multi-module build's report is named after

    def __init__(self, context: ParseContext) -> None:
        super().__init__(context)
        self._known = context.known

    def place(self, name: str) -> str:
        return name if self._module is None else self._module.place(name)

    def start(self, name: str, attrs: list[str]) -> None:
        # Only start tags are followed: a source file ends where the next element that is not one of
        # its lines or counters starts, or where the document ends.
        if name == "sourcefile":
            self.open_file(attributes(attrs).get("name", ""), self._package)
        elif name == "report":
            module = attributes(attrs).get("name", "").strip("/")
            if module.strip() and " " not in module and self._known is not None:
                self._module = _Module(module, self._known)
        elif name == "package":
            self.finish()
            self._package = attributes(attrs).get("name", "").strip().strip("/")
        elif name != "counter" and name != "line":
            self.finish()

    def file_handler(self) -> Callable[[str, List[str]], None]:
        # The start handler inside a <sourcefile>, its <line>s read in it (one Python call a line), in
        # the order JaCoCo writes them (nr mi ci mb cb); its <counter>s and the next element to start.
        add_line, add_hits, add_state = self.appends
        small, checked, other = SMALL_NUMBERS.get, self.checked_line, self.start

        def start_in_file(name: str, attrs: List[str]) -> None:
            if name != "line":
                other(name, attrs)
                return
            if len(attrs) == 10:
                nr_key, nr, mi_key, _, ci_key, ci, mb_key, mb, cb_key, cb = attrs
                number = small(nr)
                covered = small(ci)
                missed_branches = small(mb)
                covered_branches = small(cb)
                if (
                    number
                    and covered is not None
                    and missed_branches is not None
                    and covered_branches is not None
                    and nr_key == "nr"
                    and mi_key == "mi"
                    and ci_key == "ci"
                    and mb_key == "mb"
                    and cb_key == "cb"
                ):
                    add_line(number)
                    if missed_branches:
                        add_hits((covered or 1) if covered_branches else 0)
                        add_state(PARTIAL if covered_branches else MISS)
                    else:
                        counted = covered_branches or covered
                        add_hits((covered or 1) if counted else 0)
                        add_state(HIT if counted else MISS)
                    return
            checked(attrs)

        return start_in_file

    def line(self, number: int, attrs: dict[str, str]) -> None:
        counts = []
        for key in ("ci", "mb", "cb"):
            count = hit_count(attrs.get(key, ""), number, self.path, self.skips)
            if count is None:
                return
            counts.append(count)
        covered, missed_branches, covered_branches = counts
        if missed_branches:
            state = PARTIAL if covered_branches else MISS
        else:
            state = HIT if covered_branches or covered else MISS
        self.lines.add(number, 0 if state == MISS else max(covered, 1), state)


class _Module:
    """A module's report: its names tried against the repository's files as Codecov tries them."""

    def __init__(self, name: str, known: AbstractSet[str]) -> None:
        self.name = name
        self.known = known
        # The listed files under a folder of this name, by their path from it on (None: several).
        self.inside: dict[str, Optional[str]] = {}
        marker = f"/{name}/"
        for path in known:
            starts = [0] if path.startswith(marker[1:]) else []
            at = path.find(marker)
            while at >= 0:
                starts.append(at + 1)
                at = path.find(marker, at + 1)
            for start in starts:
                ending = path[start:]
                self.inside[ending] = path if ending not in self.inside else None

    def place(self, name: str) -> str:
        """The first of ``<module>/<name>``, ``<module>/src/main/java/<name>`` that is a listed file (or
        the end of one), else ``name``; with no files listed, the first."""
        first = f"{self.name}/{name}"
        if not self.known:
            return first
        for candidate in (first, f"{self.name}/src/main/java/{name}"):
            if candidate in self.known:
                return candidate
            listed = self.inside.get(candidate)
            if listed is not None:
                return listed
        return name


def _detect(head: ReportHead) -> bool:
    return head.xml_root == "report"


FORMAT = ReportFormat(
    "jacoco",
    "JaCoCo XML",
    _detect,
    parse_jacoco,
    ("jacoco*.xml", "*jacoco*.xml"),
    partials_as_hits=lambda settings: settings.jacoco_partials_as_hits,
)
