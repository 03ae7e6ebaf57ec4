"""SonarQube's generic test coverage XML (``sonar.coverageReportPaths``; gcovr ``--sonarqube``, and
the converters of many tools).

``<coverage version="1">`` holds ``<file path>`` elements with ``<lineToCover lineNumber covered
branchesToCover coveredBranches>``. Codecov reads no such format; the rule is SonarQube's own: a line
not covered is MISS, a covered one is PARTIAL when fewer branches were covered than there are, else
HIT. The format has no counts: a covered line has 1 hit. Paths are as written (relative to the
project's base folder, or absolute).

Skipped and counted as in every format (``parsers/_common.py``): a line or branch count that is not a
number, a line numbered 0 or less, a ``covered`` that is neither ``true`` nor ``false``, a file without
a path. Streamed with expat, one file at a time.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator, List

from ..lines import HIT, MISS, PARTIAL
from ._common import ParsedFile, hit_count
from ._format import ParseContext, ReportFormat, ReportHead
from ._xml import SMALL_NUMBERS, FileXmlReader, attributes, read_xml

__all__ = ["FORMAT", "is_sonarqube", "parse_sonarqube"]

NOT_TRUE_OR_FALSE = "lines whose covered is neither true nor false, skipped"
_FIRST_CHILD = re.compile(rb"\s*(?:<!--.*?-->\s*)*<(/?)([A-Za-z_][\w.-]*)", re.DOTALL)


def parse_sonarqube(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``<file>`` of a SonarQube generic coverage report read from ``chunks``."""
    return read_xml(chunks, _SonarReader(context))


class _SonarReader(FileXmlReader):
    title, roots = "SonarQube generic coverage XML", ("coverage",)
    number_key = "lineNumber"

    def start(self, name: str, attrs: list[str]) -> None:
        if name == "file":
            self.open_file(attributes(attrs).get("path", ""))

    def file_handler(self) -> Callable[[str, List[str]], None]:
        # The start handler inside a <file>, its <lineToCover>s read in it (one Python call a line), in
        # the order the tools write them; the next <file> to start.
        add_line, add_hits, add_state = self.appends
        small, checked, other = SMALL_NUMBERS.get, self.checked_line, self.start

        def start_in_file(name: str, attrs: List[str]) -> None:
            if name != "lineToCover":
                other(name, attrs)
                return
            size = len(attrs)
            if size == 4:
                number_key, number_text, covered_key, covered = attrs
                number = small(number_text)
                if number and number_key == "lineNumber" and covered_key == "covered":
                    if covered == "true":
                        add_line(number)
                        add_hits(1)
                        add_state(HIT)
                        return
                    if covered == "false":
                        add_line(number)
                        add_hits(0)
                        add_state(MISS)
                        return
            elif size == 8:
                number_key, number_text, covered_key, covered, branches_key, branches, taken_key, taken = attrs
                number = small(number_text)
                branch_count = small(branches)
                taken_count = small(taken)
                if (
                    number
                    and branch_count is not None
                    and taken_count is not None
                    and number_key == "lineNumber"
                    and covered_key == "covered"
                    and branches_key == "branchesToCover"
                    and taken_key == "coveredBranches"
                ):
                    if covered == "true":
                        add_line(number)
                        add_hits(1)
                        add_state(PARTIAL if taken_count < branch_count else HIT)
                        return
                    if covered == "false":
                        add_line(number)
                        add_hits(0)
                        add_state(MISS)
                        return
            checked(attrs)

        return start_in_file

    def line(self, number: int, attrs: dict[str, str]) -> None:
        covered = attrs.get("covered", "").strip().lower()
        if covered not in ("true", "false"):
            self.skips.add(NOT_TRUE_OR_FALSE)
            return
        branches = hit_count(attrs.get("branchesToCover", "0"), number, self.path, self.skips)
        covered_branches = hit_count(attrs.get("coveredBranches", "0"), number, self.path, self.skips)
        if branches is None or covered_branches is None:
            return
        if covered == "false":
            self.lines.add(number, 0, MISS)
        else:
            self.lines.add(number, 1, PARTIAL if covered_branches < branches else HIT)


def is_sonarqube(head: ReportHead) -> bool:
    """Whether the head is SonarQube's generic coverage: a ``<coverage version=...>`` root without
    Cobertura's rates or Clover's attributes, whose first child (if any) is a ``<file>``."""
    if head.xml_root != "coverage" or not head.xml_root_has("version") or not head.xml_root_tag.endswith(b">"):
        return False
    if any(head.xml_root_has(name) for name in ("line-rate", "lines-valid", "timestamp", "generated", "clover")):
        return False
    if head.xml_root_tag.endswith(b"/>"):
        return True
    rest = head.text[head.text.find(head.xml_root_tag) + len(head.xml_root_tag) :]
    child = _FIRST_CHILD.match(rest)
    return child is not None and (child.group(1) == b"/" or child.group(2) == b"file")


FORMAT = ReportFormat(
    "sonarqube", "SonarQube generic coverage XML", is_sonarqube, parse_sonarqube, ("sonar*.xml", "*sonarqube*.xml")
)
