"""coverage.py's JSON report (``coverage json``, format 2 and 3).

Per file, ``executed_lines`` are hits (count 1: the format has no counts), ``missing_lines`` are
misses, and an executed line that is the source of a ``missing_branches`` arc is PARTIAL — the same
rule coverage.py applies when it writes XML (``condition-coverage`` under 100%) and LCOV (a ``BRDA``
not taken), so the three formats of one run agree.

The report is streamed: the outer object and the ``files`` object are walked here, one file's entry
is decoded at a time with the standard JSON decoder. The per-function and per-class copies of every
file's data (format 3) would otherwise triple the memory of a big report.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any, Iterable, Iterator, NoReturn

from ..errors import ReportError
from ..lines import HIT, MISS, PARTIAL, LineCoverage, LineCoverageBuilder
from ._common import MAX_LINE_NUMBER, ParsedFile, bad_line_number, quote
from ._input import not_utf8
from ._paths import PathResolver

__all__ = ["parse_coveragepy"]

_NOT_BLANK = re.compile(r"[^ \t\n\r]")
_DECODER = json.JSONDecoder()


def parse_coveragepy(chunks: Iterable[bytes], root: str | None = None) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per entry of the ``files`` object of a coverage.py JSON report.

    Raises ReportError for invalid JSON, a report without ``meta`` and ``files``, and bad entries.
    """
    resolver = PathResolver(root)
    stream = _JsonStream(chunks)
    seen = set()
    stream.expect("{", "a coverage.py JSON report is an object")
    for key in stream.members():
        if key == "files":
            stream.expect("{", "coverage.py JSON report: files is not an object")
            for name in stream.members():
                entry = stream.value()
                yield ParsedFile(resolver.resolve(name), _file_lines(name, entry))
        else:
            value = stream.value()
            if key == "meta" and not isinstance(value, dict):
                raise ReportError("coverage.py JSON report: meta is not an object")
        seen.add(key)
    stream.end()
    if "meta" not in seen or "files" not in seen:
        raise ReportError("not a coverage.py JSON report: it needs both meta and files")


def _file_lines(name: str, entry: Any) -> LineCoverage:
    if not isinstance(entry, dict):
        raise ReportError(f"coverage.py JSON report: the entry of {quote(name)} is not an object")
    executed = _line_list(entry, "executed_lines", name)
    missing = _line_list(entry, "missing_lines", name)
    partial = set()
    for arc in _list(entry, "missing_branches", name):
        if not isinstance(arc, list) or len(arc) != 2:
            raise ReportError(f"coverage.py JSON report: bad branch {quote(repr(arc))} in {quote(name)}")
        if type(arc[0]) is not int or not 1 <= arc[0] <= MAX_LINE_NUMBER:
            _bad_line(arc[0], name)
        partial.add(arc[0])
    builder = LineCoverageBuilder()
    for number in executed:
        builder.add(number, 1, PARTIAL if number in partial else HIT)
    for number in missing:
        builder.add(number, 0, MISS)
    return builder.build()


def _list(entry: dict[str, Any], key: str, name: str) -> list[Any]:
    value = entry.get(key, [])
    if not isinstance(value, list):
        raise ReportError(f"coverage.py JSON report: {key} of {quote(name)} is not a list")
    return value


def _line_list(entry: dict[str, Any], key: str, name: str) -> list[int]:
    numbers = _list(entry, key, name)
    for number in numbers:
        if type(number) is not int or not 1 <= number <= MAX_LINE_NUMBER:
            _bad_line(number, name)
    return numbers


def _bad_line(number: object, name: str) -> NoReturn:
    if type(number) is int:
        bad_line_number(str(number), name)
    raise ReportError(f"invalid line number {quote(json.dumps(number), 40)} in {quote(name)}: not an integer")


class _JsonStream:
    """Just enough of a streaming JSON reader to walk two levels of objects.

    Values below that are decoded whole by ``json.JSONDecoder.raw_decode`` from a text buffer that
    grows until the value is complete; consumed text is dropped, so memory follows the largest value.
    """

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._buffer = ""
        self._pos = 0
        self._offset = 0
        self._eof = False
        self._first = True

    def _fill(self) -> bool:
        # Append the next chunk of text; False at the end of input.
        if self._eof:
            return False
        chunk = next(self._chunks, None)
        start = self._offset - len(self._decoder.getstate()[0])
        try:
            text = self._decoder.decode(chunk or b"", chunk is None)
        except UnicodeDecodeError as exc:
            raise not_utf8(start + exc.start) from None
        if chunk is None:
            self._eof = True
        else:
            self._offset += len(chunk)
        if self._first and text:
            text = text.lstrip("\ufeff")
            self._first = False
        if self._pos > (1 << 16):
            self._buffer, self._pos = self._buffer[self._pos :], 0
        self._buffer += text
        return True

    def _grow(self) -> bool:
        wanted = 2 * (len(self._buffer) - self._pos) + 1
        if not self._fill():
            return False
        while len(self._buffer) - self._pos < wanted and self._fill():
            pass
        return True

    def peek(self) -> str:
        """The next non-blank character, or "" at the end of input."""
        while True:
            match = _NOT_BLANK.search(self._buffer, self._pos)
            if match:
                self._pos = match.start()
                return match.group()
            self._pos = len(self._buffer)
            if not self._fill():
                return ""

    def expect(self, char: str, message: str) -> None:
        if self.peek() != char:
            raise ReportError(message or self._error(f"expected {char!r}"))
        self._pos += 1

    def value(self) -> Any:
        """Decode the JSON value that starts at the next non-blank character."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buffer, self._pos)
            except json.JSONDecodeError as exc:
                # Incomplete or invalid: only the end of input can tell which. Doubling what is
                # buffered before retrying keeps a huge value from being re-decoded per chunk.
                if self._grow():
                    continue
                if exc.msg.startswith("Unterminated") or exc.pos >= len(self._buffer.rstrip()):
                    raise ReportError("invalid JSON report: it stops in the middle of a value (truncated?)") from None
                raise ReportError(self._error(exc.msg)) from None
            except RecursionError:
                raise ReportError("invalid JSON report: nested too deeply") from None
            except ValueError:
                # Python refuses to convert integers of thousands of digits.
                raise ReportError("invalid JSON report: a number is absurdly large") from None
            # A number or literal cut at the end of the buffer may go on in the next chunk.
            if end == len(self._buffer) and self._fill():
                continue
            self._pos = end
            return value

    def members(self) -> Iterator[str]:
        """After a ``{``: yield each key, leaving the stream at its value; consume the ``}``."""
        if self.peek() == "}":
            self._pos += 1
            return
        while True:
            if self.peek() != '"':
                raise ReportError(self._error("expected a key"))
            key = self.value()
            self.expect(":", "")
            yield key
            separator = self.peek()
            self._pos += 1
            if separator == "}":
                return
            if separator != ",":
                raise ReportError(self._error("expected ',' or '}'"))

    def end(self) -> None:
        if self.peek():
            raise ReportError(self._error("unexpected data after the report"))

    def _error(self, what: str) -> str:
        if self._eof and self._pos >= len(self._buffer):
            return f"invalid JSON report: {what} but the input ended (truncated?)"
        return f"invalid JSON report: {what} near {quote(self._buffer[self._pos : self._pos + 30])}"
