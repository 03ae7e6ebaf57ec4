"""Cobertura XML (coverage.py ``coverage xml``, Istanbul/c8, gcovr, JaCoCo converters).

The XML is streamed through the shared safe expat reader (``parsers/_xml.py``, which says why expat
and how it is made safe) with handlers that keep only the class being read, so memory grows with the
largest class, not with the report.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator, List

from ..errors import ReportError
from ..lines import HIT, MISS, PARTIAL, LineColumns
from ._common import EMPTY_NAME, ParsedFile, hit_count, line_number
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._paths import MAX_PATH_LENGTH, PathResolver
from ._xml import SMALL_NUMBERS, XmlReader, attributes, read_xml
from .mono import is_mono
from .sonarqube import is_sonarqube

__all__ = ["FORMAT", "parse_cobertura"]

_CONDITIONS = re.compile(r"\(([0-9]{1,9})/([0-9]{1,9})\)")


def parse_cobertura(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``<class>`` of a Cobertura report read from ``chunks``.

    Several classes of one file (Java inner classes) are yielded separately: merge them per path.
    Raises ReportError for malformed, truncated or hostile XML and for impossible numbers.
    """
    return read_xml(chunks, _CoberturaReader(context))


def _detect(head: ReportHead) -> bool:
    # Clover's root is <coverage> too, but with generated="..." (and clover="..."), never Cobertura's.
    # SonarQube's generic coverage is a <coverage version="1"> too, without Cobertura's rates; Mono's
    # is a <coverage version="0.3"> whose first child is an <assembly>.
    return (
        head.xml_root == "coverage"
        and not head.xml_root_has("generated")
        and not head.xml_root_has("clover")
        and not is_sonarqube(head)
        and not is_mono(head)
    )


FORMAT = ReportFormat(
    "cobertura",
    "Cobertura XML",
    _detect,
    parse_cobertura,
    ("cobertura*.xml", "coverage*.xml"),
    partials_as_hits=lambda settings: settings.cobertura_partials_as_hits,
)

Handler = Callable[[str, List[str]], None]


class _CoberturaReader(XmlReader):
    """Expat callbacks for Cobertura's millions of ``<line>`` elements.

    Only start tags are followed: a class ends where the next one starts (or the document ends), and
    an end-tag handler is installed only inside ``<methods>`` and ``<source>``. Where a ``<line>`` goes
    (the class, its methods, or nowhere outside a class) is which of three start handlers is set, so
    the handler itself tests nothing but the line.
    """

    title = "Cobertura XML"

    def __init__(self, context: ParseContext) -> None:
        super().__init__("coverage")
        self._context = context
        self._sources: list[str] = []
        self._source_text: list[str] = []
        self._resolver: PathResolver | None = None
        self._path = ""
        self._in_class = False
        self._class_lines = LineColumns()
        # Istanbul repeats lines inside <method> blocks; they count only if the class has no own lines.
        self._method_lines = LineColumns()
        self._methods_depth = 0
        # "50% (1/2)" -> PARTIAL: each condition-coverage seen, for the fast path (None: no "(n/m)").
        self._condition_states: dict[str, int | None] = {}
        self._in_lines = self._handler(self._class_lines)
        self._in_methods = self._handler(self._method_lines)

    def start(self, name: str, attrs: list[str]) -> None:
        # Outside a class: a <line> goes nowhere.
        if name != "line":
            self._other(name, attrs)

    def _handler(self, columns: LineColumns) -> Handler:
        # The start handler that sends <line>s to ``columns`` and other tags to _other.
        other = self._other
        add_line, add_hits, add_state = columns.lines.append, columns.hits.append, columns.states.append
        small = SMALL_NUMBERS.get
        condition_state = self._condition_states.get
        checked = self._checked_line
        hit, miss = HIT, MISS

        def start(name: str, attrs: list[str]) -> None:
            if name == "line":
                # The usual lines, as coverage.py, gcovr and Istanbul write them: number and hits in
                # this order, small; then branch="false", or branch="true" with its condition-coverage
                # (and coverage.py's missing-branches, not read). Anything else is checked.
                size = len(attrs)
                if size == 4:
                    number_key, number_text, hits_key, hits_text = attrs
                    number = small(number_text)
                    hits = small(hits_text)
                    if number and hits is not None and number_key == "number" and hits_key == "hits":
                        add_line(number)
                        add_hits(hits)
                        add_state(hit if hits else miss)
                        return
                elif 6 <= size <= 10:
                    number_key, number_text, hits_key, hits_text, branch_key, branch = attrs[:6]
                    number = small(number_text)
                    hits = small(hits_text)
                    if number and hits is not None and number_key == "number" and hits_key == "hits":
                        state = None
                        if branch_key == "branch":
                            if branch == "false":
                                if size == 6:
                                    state = hit if hits else miss
                            elif branch == "true" and size > 6 and attrs[6] == "condition-coverage":
                                state = condition_state(attrs[7])
                        if state is not None:
                            add_line(number)
                            add_hits(hits)
                            add_state(state)
                            return
                checked(columns, attributes(attrs))
            else:
                other(name, attrs)

        return start

    def _other(self, name: str, attrs: list[str]) -> None:
        if name == "statement":
            self._statement(attributes(attrs))
        elif name == "class":
            self._start_class(attributes(attrs))
        elif name == "methods":
            self._methods_depth += 1
            self.parser.StartElementHandler = self._in_methods if self._in_class else self.start
            self.parser.EndElementHandler = self._end_in_methods
        elif name == "source" and self._resolver is None and not self._in_class:
            # Only the report's <sources> (before any class); a <source> elsewhere is not a folder.
            self._source_text = []
            self.parser.CharacterDataHandler = self._source_data
            self.parser.EndElementHandler = self._end_source
        elif name == "package" or name == "packages":
            self.finish()

    def _end_in_methods(self, name: str) -> None:
        if name == "methods":
            self._methods_depth -= 1
            if not self._methods_depth:
                self.parser.StartElementHandler = self._in_lines if self._in_class else self.start
                self.parser.EndElementHandler = None

    def _source_data(self, text: str) -> None:
        self._source_text.append(text)
        if len(self._source_text) > 64 and sum(map(len, self._source_text)) > MAX_PATH_LENGTH + 1024:
            # Blanks around the folder are allowed, a megabyte of text is not kept.
            raise ReportError(f"invalid Cobertura report: a <source> is longer than {MAX_PATH_LENGTH} characters")

    def _end_source(self, name: str) -> None:
        self.parser.CharacterDataHandler = None
        self.parser.EndElementHandler = None
        text = "".join(self._source_text).strip()
        if len(text) > MAX_PATH_LENGTH:
            raise ReportError(f"invalid Cobertura report: a <source> is longer than {MAX_PATH_LENGTH} characters")
        if text:
            self._sources.append(text)

    def _start_class(self, attrs: dict[str, str]) -> None:
        self.finish()
        if self._resolver is None:
            # <sources> precede <packages> (the Cobertura DTD's order), so they are all known here.
            self._resolver = self._context.resolver(self._sources)
        filename = attrs.get("filename", "")
        if not filename.strip():
            # Codecov skips such a class; its lines go nowhere.
            self._context.skips.add(EMPTY_NAME)
            return
        self._path = self._resolver.resolve(filename)
        self._in_class = True
        self.parser.StartElementHandler = self._in_lines

    def finish(self) -> None:
        """Finish the class being read, if any."""
        if not self._in_class:
            return
        self._in_class = False
        self.parser.StartElementHandler = self.start
        lines, method_lines = self._class_lines.take(), self._method_lines.take()
        self.done.append(ParsedFile(self._path, lines if len(lines) or not len(method_lines) else method_lines))

    def _checked_line(self, columns: LineColumns, attrs: dict[str, str]) -> None:
        # A <line> off the fast path: a branch line, or numbers to check, skip (counted) or refuse.
        skips = self._context.skips
        number = line_number(attrs.get("number", ""), self._path, skips)
        if number is None:
            return
        taken = _conditions(attrs.get("condition-coverage")) if _is_branch(attrs) else None
        # A branch line's state comes from its conditions: its hits are a fallback, not worth a word.
        hits = hit_count(attrs.get("hits", ""), number, self._path, skips if taken is None else Skips())
        if hits is None:
            if taken is None:
                return
            hits = taken[0]
        if taken is None:
            columns.add(number, hits, HIT if hits else MISS)
        else:
            # Codecov's rule: the state of a branch line comes from "(n/m)", whatever the hits.
            covered, total = taken
            columns.add(number, hits, _branch_state(covered, total))
        if len(self._condition_states) < 256 and _is_branch(attrs):
            # The fast path's table of the conditions seen (a report has a few distinct ones).
            condition = attrs.get("condition-coverage", "")
            self._condition_states[condition] = None if taken is None else _branch_state(*taken)

    def _statement(self, attrs: dict[str, str]) -> None:
        # scoverage's <statement line= invocation-count=>, counted like a <line>; ignored="true" skipped.
        if not self._in_class or attrs.get("ignored") == "true":
            return
        skips = self._context.skips
        number = line_number(attrs.get("line", ""), self._path, skips)
        if number is None:
            return
        hits = hit_count(attrs.get("invocation-count", ""), number, self._path, skips)
        if hits is not None:
            self._class_lines.add(number, hits, HIT if hits else MISS)


def _branch_state(covered: int, total: int) -> int:
    return HIT if covered == total else MISS if covered == 0 else PARTIAL


def _is_branch(attrs: dict[str, str]) -> bool:
    return attrs.get("branch", "").lower() == "true"


def _conditions(condition: str | None) -> tuple[int, int] | None:
    # "50% (1/2)" -> (1, 2); None when there is no "(n/m)", and the hits decide, as on Codecov.
    if not condition:
        return None
    match = _CONDITIONS.search(condition)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))
