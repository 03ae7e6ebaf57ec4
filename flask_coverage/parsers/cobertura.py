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

from typing import Iterable, Iterator
from xml.parsers import expat

from ..errors import ReportError
from ..lines import HIT, MISS, PARTIAL, LineCoverageBuilder
from ._common import (
    MAX_LINE_NUMBER,
    MAX_REPORTED_HITS,
    ParsedFile,
    check_hit_count,
    check_line_number,
    quote,
)
from ._format import ParseContext, ReportFormat, ReportHead
from ._paths import MAX_PATH_LENGTH, PathResolver
from ._xml import MAX_RUN, UNKNOWN_ENCODING, refuse_entities, refuse_external
from .sonarqube import is_sonarqube

__all__ = ["FORMAT", "MAX_RUN", "parse_cobertura"]


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
            # Fast path for well-formed lines; _checked_numbers explains any problem.
            if number_text.isdecimal() and hits_text.isdecimal() and len(hits_text) < 20:
                number = int(number_text) if len(number_text) < 9 else 0
                hits = int(hits_text)
                if not 1 <= number <= MAX_LINE_NUMBER or hits > MAX_REPORTED_HITS:
                    number, hits = self._checked_numbers(number_text, hits_text)
            else:
                number, hits = self._checked_numbers(number_text, hits_text)
            if not hits:
                target.add(number, 0, MISS)
            elif attrs.get("branch") == "true" and not _fully_covered(attrs.get("condition-coverage")):
                target.add(number, hits, PARTIAL)
            else:
                target.add(number, hits, HIT)
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
        filename = attrs.get("filename")
        if filename is None:
            raise ReportError("invalid Cobertura report: a <class> has no filename attribute")
        if self._resolver is None:
            # <sources> precede <packages> (the Cobertura DTD's order), so they are all known here.
            self._resolver = self._context.resolver(self._sources)
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

    def _checked_numbers(self, number_text: str, hits_text: str) -> tuple[int, int]:
        if not number_text:
            raise ReportError(f"invalid Cobertura report: a <line> of {quote(self._path)} has no number")
        number = check_line_number(number_text, self._path)
        if not hits_text:
            raise ReportError(f"invalid Cobertura report: line {number} of {quote(self._path)} has no hits")
        return number, check_hit_count(hits_text, number, self._path)


def _fully_covered(condition: str | None) -> bool:
    # "50% (1/2)" -> False, "100% (2/2)" -> True; absent or unreadable counts as covered, the
    # same as a line without branch data.
    if not condition:
        return True
    percent = condition.split("%", 1)[0].strip()
    if percent.replace(".", "", 1).isdecimal():
        return float(percent) >= 100
    return True


def _describe(exc: expat.ExpatError) -> str:
    message = expat.ErrorString(exc.code) if exc.code else str(exc)
    return f"{message} at line {exc.lineno}, column {exc.offset}"
