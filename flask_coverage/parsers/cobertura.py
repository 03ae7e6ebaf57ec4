"""Cobertura XML (coverage.py ``coverage xml``, Istanbul/c8, gcovr, JaCoCo converters).

The XML is streamed through expat with handlers that keep only the file being read, so memory grows
with the largest file, not with the report. Safety is set on the expat parser itself, the way
defusedxml does it, with one deliberate difference:

- any ``<!ENTITY>`` declaration (internal, external, parameter or unparsed) is refused before it can
  be used, which stops entity expansion ("billion laughs") and external entities alike;
- external references are never resolved: parameter-entity parsing is off, so an external DTD is
  neither read nor fetched, and the external-entity handler refuses;
- unlike defusedxml's ``forbid_dtd``, a ``<!DOCTYPE coverage SYSTEM "http://...">`` without entities
  is accepted, because Istanbul writes exactly that line, and it is harmless once never fetched.

Why not ``defusedxml.ElementTree.iterparse``: it builds every element through the pure-Python
XMLParser and TreeBuilder; on the 2,000,000-line benchmark merely walking its events took 4.9 s of CPU,
against 3.3 s for this whole parser, and its DTD switch is all-or-nothing.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator
from xml.parsers import expat

from ..errors import ReportError
from ..lines import HIT, MISS, PARTIAL, LineCoverageBuilder
from ._common import (
    EMPTY_NAME,
    MAX_LINE_NUMBER,
    MAX_REPORTED_HITS,
    ParsedFile,
    hit_count,
    line_number,
    quote,
)
from ._format import ParseContext, ReportFormat, ReportHead, Skips
from ._paths import MAX_PATH_LENGTH, PathResolver
from ._xml import MAX_RUN, UNKNOWN_ENCODING, refuse_entities, refuse_external
from .sonarqube import is_sonarqube

__all__ = ["FORMAT", "MAX_RUN", "parse_cobertura"]

_CONDITIONS = re.compile(r"\(([0-9]{1,9})/([0-9]{1,9})\)")


def parse_cobertura(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per ``<class>`` of a Cobertura report read from ``chunks``.

    Several classes of one file (Java inner classes) are yielded separately: merge them per path.
    Raises ReportError for malformed, truncated or hostile XML and for impossible numbers.
    """
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = refuse_entities
    parser.UnparsedEntityDeclHandler = refuse_entities
    parser.ExternalEntityRefHandler = refuse_external
    reader = _CoberturaReader(parser, context)
    since_tag_end = 0  # bytes since the last ">"
    try:
        for chunk in chunks:
            first = chunk.find(b">")
            if since_tag_end + (len(chunk) if first < 0 else first) > MAX_RUN:
                # expat would buffer the whole tag (or text) before a handler sees it.
                raise ReportError(f"invalid Cobertura report: a tag or text runs over {MAX_RUN} bytes")
            since_tag_end = since_tag_end + len(chunk) if first < 0 else len(chunk) - 1 - chunk.rfind(b">")
            parser.Parse(chunk, False)
            if reader.done:
                yield from reader.done
                reader.done.clear()
    except expat.ExpatError as exc:
        raise ReportError(f"invalid XML report: {_describe(exc)}") from None
    except LookupError:
        raise ReportError(UNKNOWN_ENCODING) from None
    try:
        parser.Parse(b"", True)
    except expat.ExpatError as exc:
        # Errors that only show at the very end mean the document stopped short.
        raise ReportError(f"invalid XML report (truncated?): {_describe(exc)}") from None
    reader.end_class()
    yield from reader.done


def _detect(head: ReportHead) -> bool:
    # Clover's root is <coverage> too, but with generated="..." (and clover="..."), never Cobertura's.
    # SonarQube's generic coverage is a <coverage version="1"> too, without Cobertura's rates.
    return (
        head.xml_root == "coverage"
        and not head.xml_root_has("generated")
        and not head.xml_root_has("clover")
        and not is_sonarqube(head)
    )


FORMAT = ReportFormat("cobertura", "Cobertura XML", _detect, parse_cobertura, ("cobertura*.xml", "coverage*.xml"))


class _CoberturaReader:
    """Expat callbacks; finished files collect in ``done`` until the reading loop yields them.

    Only start tags are followed for the millions of ``<line>`` elements: a class ends where the next
    one starts (or the document ends), and an end-tag handler is installed only inside ``<methods>``
    and ``<source>``. That halves the Python calls per line.
    """

    def __init__(self, parser: expat.XMLParserType, context: ParseContext) -> None:
        self.done: list[ParsedFile] = []
        self._parser = parser
        self._context = context
        self._sources: list[str] = []
        self._source_text: list[str] = []
        self._resolver: PathResolver | None = None
        self._path = ""
        self._class_lines: LineCoverageBuilder | None = None
        # Istanbul repeats lines inside <method> blocks; they count only if the class has no own lines.
        self._method_lines: LineCoverageBuilder | None = None
        # Where a <line> goes: the class, its methods, or nowhere (outside any class).
        self._target: LineCoverageBuilder | None = None
        self._methods_depth = 0
        parser.StartElementHandler = self._start_root

    def _start_root(self, name: str, attrs: dict[str, str]) -> None:
        if name != "coverage":
            raise ReportError(
                f"XML report has root element <{quote(name, 40)[1:-1]}>, not <coverage>: not a Cobertura report"
            )
        self._parser.StartElementHandler = self._start

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        if name == "line":
            target = self._target
            if target is None:
                return
            number_text = attrs.get("number", "")
            hits_text = attrs.get("hits", "")
            # Fast path for well-formed lines; _checked_numbers reads or skips anything else.
            if number_text.isdecimal() and hits_text.isdecimal() and len(hits_text) < 20:
                number = int(number_text) if len(number_text) < 9 else 0
                hits = int(hits_text)
                if not 1 <= number <= MAX_LINE_NUMBER or hits > MAX_REPORTED_HITS:
                    number, hits = self._checked_numbers(number_text, hits_text, attrs)
                    if not number:
                        return
            else:
                number, hits = self._checked_numbers(number_text, hits_text, attrs)
                if not number:
                    return
            branch = attrs.get("branch")
            if branch is not None and (branch == "true" or branch.lower() == "true"):
                # Codecov's rule: the state of a branch line comes from "(n/m)", whatever the hits.
                taken = _conditions(attrs.get("condition-coverage"))
                if taken is not None:
                    covered, total = taken
                    state = HIT if covered == total else MISS if covered == 0 else PARTIAL
                    target.add(number, hits, state)
                    return
            target.add(number, hits, HIT if hits else MISS)
        elif name == "statement":
            self._statement(attrs)
        elif name == "class":
            self._start_class(attrs)
        elif name == "methods":
            self._methods_depth += 1
            self._target = self._method_lines
            self._parser.EndElementHandler = self._end_in_methods
        elif name == "source" and self._resolver is None and self._class_lines is None:
            # Only the report's <sources> (before any class); a <source> elsewhere is not a folder.
            self._source_text = []
            self._parser.CharacterDataHandler = self._source_data
            self._parser.EndElementHandler = self._end_source
        elif name == "package" or name == "packages":
            self.end_class()

    def _end_in_methods(self, name: str) -> None:
        if name == "methods":
            self._methods_depth -= 1
            if not self._methods_depth:
                self._target = self._class_lines
                self._parser.EndElementHandler = None

    def _source_data(self, text: str) -> None:
        self._source_text.append(text)
        if len(self._source_text) > 64 and sum(map(len, self._source_text)) > MAX_PATH_LENGTH + 1024:
            # Blanks around the folder are allowed, a megabyte of text is not kept.
            raise ReportError(f"invalid Cobertura report: a <source> is longer than {MAX_PATH_LENGTH} characters")

    def _end_source(self, name: str) -> None:
        self._parser.CharacterDataHandler = None
        self._parser.EndElementHandler = None
        text = "".join(self._source_text).strip()
        if len(text) > MAX_PATH_LENGTH:
            raise ReportError(f"invalid Cobertura report: a <source> is longer than {MAX_PATH_LENGTH} characters")
        if text:
            self._sources.append(text)

    def _start_class(self, attrs: dict[str, str]) -> None:
        self.end_class()
        if self._resolver is None:
            # <sources> precede <packages> (the Cobertura DTD's order), so they are all known here.
            self._resolver = self._context.resolver(self._sources)
        filename = attrs.get("filename", "")
        if not filename.strip():
            # Codecov skips such a class; its lines go nowhere.
            self._context.skips.add(EMPTY_NAME)
            return
        self._path = self._resolver.resolve(filename)
        self._class_lines = self._target = LineCoverageBuilder()
        self._method_lines = LineCoverageBuilder()

    def end_class(self) -> None:
        """Finish the class being read, if any."""
        lines, method_lines = self._class_lines, self._method_lines
        if lines is None or method_lines is None:
            return
        chosen = lines if len(lines) or not len(method_lines) else method_lines
        self.done.append(ParsedFile(self._path, chosen.build()))
        self._class_lines = self._method_lines = self._target = None

    def _checked_numbers(self, number_text: str, hits_text: str, attrs: dict[str, str]) -> tuple[int, int]:
        # (0, 0) for a line to skip, counted in the skips.
        skips = self._context.skips
        number = line_number(number_text, self._path, skips)
        if number is None:
            return 0, 0
        # A branch line's state comes from its conditions: its hits are a fallback, not worth a word.
        taken = _conditions(attrs.get("condition-coverage")) if _is_branch(attrs) else None
        hits = hit_count(hits_text, number, self._path, skips if taken is None else Skips())
        if hits is None:
            if taken is None:
                return 0, 0
            hits = taken[0]
        return number, hits

    def _statement(self, attrs: dict[str, str]) -> None:
        # scoverage's <statement line= invocation-count=>, counted like a <line>; ignored="true" skipped.
        target = self._class_lines
        if target is None or attrs.get("ignored") == "true":
            return
        skips = self._context.skips
        number = line_number(attrs.get("line", ""), self._path, skips)
        if number is None:
            return
        hits = hit_count(attrs.get("invocation-count", ""), number, self._path, skips)
        if hits is not None:
            target.add(number, hits, HIT if hits else MISS)


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


def _describe(exc: expat.ExpatError) -> str:
    message = expat.ErrorString(exc.code) if exc.code else str(exc)
    return f"{message} at line {exc.lineno}, column {exc.offset}"
