"""Streaming XML for every XML format: a safe expat parser and its reading loop ("XML in").

Safety is set on the expat parser itself, the way defusedxml does it, with one deliberate difference:

- any ``<!ENTITY>`` declaration (internal, external, parameter or unparsed) is refused before it can
  be used, which stops entity expansion ("billion laughs") and external entities alike;
- external references are never resolved: parameter-entity parsing is off, so an external DTD is
  neither read nor fetched, and the external-entity handler refuses;
- unlike defusedxml's ``forbid_dtd``, a ``<!DOCTYPE coverage SYSTEM "http://...">`` without entities
  is accepted, because Istanbul writes exactly that line, and it is harmless once never fetched;
- a tag or text longer than :data:`MAX_RUN` is refused before expat buffers it.

A reader sets its handlers on ``parser`` and appends finished files to ``done``; :func:`read_xml`
yields them as the chunks are parsed, so memory follows one file, not the report.

Speed: expat calls Python once per start tag; that call is the floor of any Python expat consumer
(``benchmarks/bench_parse.py``). The readers keep the rest small: one start handler, with the
attributes as a flat list (``ordered_attributes``: unpacked in one step, no dict), its test for the
hot element (``<line>``) first, that element read in the handler itself when it has the usual
attributes in the usual order with small counts (:data:`SMALL_NUMBERS`: one dict lookup checks and
converts) and appended to :class:`~flask_coverage.lines.LineColumns` (C calls); anything else goes
to the checked path of ``parsers/_common.py`` (:func:`attributes` makes it a dict). No end-tag or
text handler where none is needed.

Why not ``defusedxml.ElementTree.iterparse``: it builds every element through the pure-Python
XMLParser and TreeBuilder; on the 2,000,000-line benchmark merely walking its events took 4.9 s of CPU,
more than this whole Cobertura parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, Iterable, Iterator, List, NoReturn, Optional, Tuple
from xml.parsers import expat

from ..errors import ReportError
from ..lines import LineColumns, LineCoverage
from ._common import EMPTY_NAME, ParsedFile, _to_int, line_number, quote

if TYPE_CHECKING:
    from ._format import ParseContext

__all__ = [
    "FileXmlReader",
    "MAX_RUN",
    "SMALL_NUMBERS",
    "UNKNOWN_ENCODING",
    "XmlReader",
    "attributes",
    "int_attribute",
    "read_xml",
    "refuse_entities",
    "refuse_external",
]

#: The error of an XML declaration naming an encoding Python does not know (expat asks Python).
UNKNOWN_ENCODING = "invalid XML report: its declaration names an unknown encoding"
#: Bytes between two ``>`` (one tag with its attributes, or one text): real ones are far shorter.
MAX_RUN = 1 << 20
#: ``"0"`` to ``"9999"`` and their values: the fast paths' check and conversion of a line number or a
#: count in one lookup (most are small). Any other text (``"0042"``, ``" 7"``, ``"12345"``) is not in
#: it and takes the checked path.
SMALL_NUMBERS = {str(number): number for number in range(10_000)}


class XmlReader:
    """What :func:`read_xml` drives: a safe expat ``parser`` and the ``done`` files not yet yielded.

    The root element must be one of ``roots``; it and every start tag after it go to :meth:`start`.
    A subclass may set other handlers on ``parser`` (a faster start handler inside a file), and
    overrides :meth:`finish`, called once the document ended well.
    """

    #: The format's title, for error messages ("JaCoCo XML").
    title = "XML"

    def __init__(self, *roots: str) -> None:
        self.done: list[ParsedFile] = []
        self._roots = roots
        self.parser = parser = expat.ParserCreate()
        parser.ordered_attributes = True
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.EntityDeclHandler = refuse_entities
        parser.UnparsedEntityDeclHandler = refuse_entities
        parser.ExternalEntityRefHandler = refuse_external
        parser.StartElementHandler = self._start_root

    def start(self, name: str, attrs: list[str]) -> None:
        """A start tag (the root's included); ``attrs`` alternates names and values."""

    def finish(self) -> None:
        """The document ended: finish the file being read, if any."""

    def _start_root(self, name: str, attrs: list[str]) -> None:
        if name not in self._roots:
            raise ReportError(
                f"XML report has root element <{quote(name, 40)[1:-1]}>, not <{self._roots[0]}>: not {self.title}"
            )
        self.parser.StartElementHandler = self.start
        self.start(name, attrs)


class FileXmlReader(XmlReader):
    """The skeleton of a format whose files are elements holding one element per line (JaCoCo,
    SonarQube, Clover): :meth:`start` follows the document and calls :meth:`open_file` at a file; the
    file's line elements are read by the format's :meth:`file_handler` (the fast path, appending to
    ``lines``, else :meth:`checked_line` and the format's :meth:`line`); the file ends where
    :meth:`start` calls :meth:`finish` (the next file, a new package) or where the document ends, and
    :meth:`file_done` keeps it.
    """

    #: The root elements the format allows.
    roots: Tuple[str, ...] = ()

    def __init__(self, context: ParseContext) -> None:
        super().__init__(*self.roots)
        self.skips = context.skips
        self.resolver = context.resolver()
        self.path = ""
        self.lines = LineColumns()
        #: The C appends of ``lines``' columns (line, hits, state), for the fast paths.
        self.appends = (self.lines.lines.append, self.lines.hits.append, self.lines.states.append)
        self._in_file = False
        self._start_in_file = self.file_handler()

    #: The attribute of a line element that holds the line number (for :meth:`checked_line`).
    number_key = ""

    def file_handler(self) -> Callable[[str, List[str]], None]:
        """The start handler inside a file, built once: it reads the file's line elements itself (one
        Python call a line), at once where they have the writer's usual shape (appended with
        ``appends``), else through :meth:`checked_line`, and passes any other element to :meth:`start`."""
        raise NotImplementedError

    def checked_line(self, attrs: List[str]) -> None:
        """A line element by the checked rules: its number (skipped and counted, or refused, as in
        every format), then the format's :meth:`line`."""
        named = attributes(attrs)
        number = line_number(named.get(self.number_key, ""), self.path, self.skips)
        if number is not None:
            self.line(number, named)

    def line(self, number: int, attrs: Dict[str, str]) -> None:
        """The rest of a line element's checked path, its number read."""
        raise NotImplementedError

    def open_file(self, name: str, folder: str = "") -> None:
        """End the file being read, then read the file ``name`` (in ``folder``, as the report writes
        them) from the next start tag on; a file without a name is skipped and counted."""
        self.finish()
        name = name.strip()
        if not name:
            self.skips.add(EMPTY_NAME)
            return
        self.path = self.resolver.resolve(self.place(f"{folder}/{name}" if folder else name))
        self._in_file = True
        self.parser.StartElementHandler = self._start_in_file

    def place(self, name: str) -> str:
        """Where the report's file ``name`` is in the repository, before the name rule (a format may
        move it: JaCoCo's modules)."""
        return name

    def finish(self) -> None:
        if self._in_file:
            self._in_file = False
            self.parser.StartElementHandler = self.start
            self.file_done(self.lines.take())

    def file_done(self, lines: LineCoverage) -> None:
        """Keep the file just read (a format may drop lines, or the file)."""
        self.done.append(ParsedFile(self.path, lines))


def read_xml(chunks: Iterable[bytes], reader: XmlReader) -> Iterator[ParsedFile]:
    """Parse ``chunks`` with ``reader``, yielding its files as they are done."""
    parser = reader.parser
    since_tag_end = 0  # bytes since the last ">"
    try:
        for chunk in chunks:
            first = chunk.find(b">")
            if since_tag_end + (len(chunk) if first < 0 else first) > MAX_RUN:
                # expat would buffer the whole tag (or text) before a handler sees it.
                raise ReportError(f"invalid {reader.title} report: a tag or text runs over {MAX_RUN} bytes")
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
    except LookupError:
        raise ReportError(UNKNOWN_ENCODING) from None
    reader.finish()
    yield from reader.done


def _describe(exc: expat.ExpatError) -> str:
    message = expat.ErrorString(exc.code) if exc.code else str(exc)
    return f"{message} at line {exc.lineno}, column {exc.offset}"


def attributes(attrs: list[str]) -> dict[str, str]:
    """The attributes of a start tag (names and values alternating) as a dict."""
    return dict(zip(attrs[::2], attrs[1::2]))


def int_attribute(attrs: dict[str, str], key: str) -> Optional[int]:
    """The attribute ``key`` as a short decimal integer (a sign allowed), or None when absent or not one."""
    text = attrs.get(key)
    return None if text is None else _to_int(text)


def refuse_entities(*_args: object) -> NoReturn:
    """Expat's handler of ``<!ENTITY>`` declarations: every one is refused."""
    raise ReportError(
        "XML report declares entities (<!ENTITY ...>); they are refused for safety (entity expansion and "
        "external entities)"
    )


def refuse_external(*_args: object) -> NoReturn:
    """Expat's handler of external references: every one is refused."""
    raise ReportError("XML report refers to an external entity; external references are refused")
