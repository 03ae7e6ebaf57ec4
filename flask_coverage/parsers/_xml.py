"""Streaming XML for the XML formats other than Cobertura: a safe expat parser and its reading loop.

The safety is the one ``parsers/cobertura.py`` explains: every ``<!ENTITY>`` declaration and
every external reference is refused, an external DTD is never read, and a tag or text longer than
:data:`MAX_RUN` is refused before expat buffers it. A reader sets its
handlers on ``parser`` and appends finished files to ``done``; :func:`read_xml` yields them as the
chunks are parsed, so memory follows one file, not the report.
"""

from __future__ import annotations

from typing import Iterable, Iterator, NoReturn, Optional
from xml.parsers import expat

from ..errors import ReportError
from ._common import ParsedFile, _to_int, quote

__all__ = [
    "MAX_RUN",
    "UNKNOWN_ENCODING",
    "XmlReader",
    "int_attribute",
    "read_xml",
    "refuse_entities",
    "refuse_external",
]

#: The error of an XML declaration naming an encoding Python does not know (expat asks Python).
UNKNOWN_ENCODING = "invalid XML report: its declaration names an unknown encoding"
#: Bytes between two ``>`` (one tag with its attributes, or one text): real ones are far shorter.
MAX_RUN = 1 << 20


class XmlReader:
    """What :func:`read_xml` drives: a safe expat ``parser`` and the ``done`` files not yet yielded.

    The root element must be ``root``; every start tag after it goes to :meth:`start`. A subclass
    may set other handlers on ``parser``, and overrides :meth:`finish`, called once the document
    ended well.
    """

    #: The format's title, for error messages ("JaCoCo XML").
    title = "XML"

    def __init__(self, root: str) -> None:
        self.done: list[ParsedFile] = []
        self._root = root
        self.parser = parser = expat.ParserCreate()
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.EntityDeclHandler = refuse_entities
        parser.UnparsedEntityDeclHandler = refuse_entities
        parser.ExternalEntityRefHandler = refuse_external
        parser.StartElementHandler = self._start_root

    def start(self, name: str, attrs: dict[str, str]) -> None:
        """A start tag (the root's included)."""

    def finish(self) -> None:
        """The document ended: finish the file being read, if any."""

    def _start_root(self, name: str, attrs: dict[str, str]) -> None:
        if name != self._root:
            raise ReportError(
                f"XML report has root element <{quote(name, 40)[1:-1]}>, not <{self._root}>: not {self.title}"
            )
        self.parser.StartElementHandler = self.start
        self.start(name, attrs)


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
        parser.Parse(b"", True)
    except expat.ExpatError as exc:
        message = expat.ErrorString(exc.code) if exc.code else str(exc)
        raise ReportError(f"invalid XML report: {message} at line {exc.lineno}, column {exc.offset}") from None
    except LookupError:
        raise ReportError(UNKNOWN_ENCODING) from None
    reader.finish()
    yield from reader.done


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
