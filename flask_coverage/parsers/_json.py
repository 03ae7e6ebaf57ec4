"""A streaming JSON reader: objects and arrays walked a member at a time, values decoded one by one.

Used by the coverage.py JSON parser and by codecov-cli's upload payload (``ingest/envelope.py``), so
that memory follows the value being read, never the document.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any, Iterable, Iterator

from ..errors import ReportError
from ._common import quote
from ._input import not_utf8

__all__ = ["SMALL_VALUE", "TOO_LARGE", "JsonStream"]

_NOT_BLANK = re.compile(r"[^ \t\n\r]")
# A run of "number," elements of an integer array, and its last element (or an empty array's end).
_INT_RUN = re.compile(r"(?:[ \t\n\r]*[0-9]{1,9}[ \t\n\r]*,)+")
_LAST_INT = re.compile(r"[ \t\n\r]*([0-9]{1,9})?[ \t\n\r]*\]")
# What skip() passes over in one step: anything but strings and brackets; a whole string.
_NOT_STRUCTURE = re.compile(r'[^"\[\]{}]*')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
# A key without escapes or control characters, and its colon: what members() reads without decoding.
_PLAIN_KEY = re.compile(r'[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:')
_MAX_DEPTH = 1000
_DECODER = json.JSONDecoder()
# Text is handed to the buffer in pieces of _PIECE characters, and small_value() decodes a value whole
# when it ends within SMALL_VALUE characters: a failed attempt (a longer value) has built the objects of
# at most 256 Ki characters, 5.5 MB of empty arrays (21 bytes a character; the tracemalloc peak of
# 15 MB of them is 9 MB). Smaller pieces cost more: a value cut at a piece's end is decoded twice
# (64 Ki pieces made Istanbul's benchmark 10% slower).
_PIECE = 1 << 18
SMALL_VALUE = 1 << 17
#: What small_value() answers for a value it leaves to a walk.
TOO_LARGE: Any = object()


class JsonStream:
    """Just enough of a streaming JSON reader to walk two levels of objects.

    Values below that are decoded whole by ``json.JSONDecoder.raw_decode`` from a text buffer that
    grows until the value is complete; consumed text is dropped, so memory follows the largest value.
    :meth:`small_value` decodes a whole file entry in one such call when it is short, so that a parser
    converts decoded lists in bulk rather than walking them a token at a time in Python.
    """

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._buffer = ""
        self._pos = 0
        self._offset = 0
        self._text = ""  # the chunk decoded last, handed to the buffer a piece at a time
        self._at = 0
        self._eof = False
        self._first = True

    def _read(self) -> bool:
        # Decode the next chunk into _text; False at the end of input.
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
        self._text, self._at = text, 0
        return True

    def _fill(self, wanted: int = 1) -> bool:
        """Append at least ``wanted`` more characters to the buffer (fewer at the end of input), in
        pieces of at most _PIECE beyond that: what a decode of the buffer builds before it fails on a
        value cut at its end stays bounded. False when the input is used up."""
        parts = []
        while wanted > 0:
            if self._at >= len(self._text):
                if not self._read():
                    break
                continue
            piece = self._text[self._at : self._at + max(wanted, _PIECE)]
            self._at += len(piece)
            wanted -= len(piece)
            parts.append(piece)
        if not parts:
            return False
        if self._pos > (1 << 16):
            self._buffer, self._pos = self._buffer[self._pos :] + "".join(parts), 0
        else:
            self._buffer += "".join(parts)
        return True

    def _grow(self) -> bool:
        # Double what is buffered after the position: a huge value is re-decoded a few times, not per piece.
        return self._fill(len(self._buffer) - self._pos + 1)

    @property
    def _ended(self) -> bool:
        return self._eof and self._at >= len(self._text)

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

    def small_value(self) -> Any:
        """Decode the value that comes next in one call of json's C decoder if its text ends within
        :data:`SMALL_VALUE` characters; else (or if it is not valid JSON) answer :data:`TOO_LARGE`,
        the stream left at the value for the caller to walk, which also says what is wrong with it."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buffer, self._pos)
            except (json.JSONDecodeError, RecursionError, ValueError):
                if len(self._buffer) - self._pos < SMALL_VALUE and self._grow():
                    continue
                return TOO_LARGE
            if end == len(self._buffer) and self._fill():
                continue  # a number or literal may go on in the next piece
            self._pos = end
            return value

    def elements(self, not_a_list: str) -> Iterator[None]:
        """After a ``[`` comes next: stop at each element, leaving the stream at it for the caller to
        read (or skip); consume the ``]``. The array's counterpart of :meth:`members`."""
        if self.peek() != "[":
            raise ReportError(not_a_list)
        self._pos += 1
        if self.peek() == "]":
            self._pos += 1
            return
        while True:
            yield None
            if self._closed("]"):
                return

    def items(self, not_a_list: str) -> Iterator[Any]:
        """The elements of the array that comes next, each decoded on its own."""
        if self.peek() != "[":
            raise ReportError(not_a_list)
        self._pos += 1
        if self.peek() == "]":
            self._pos += 1
            return
        while True:
            yield self.value()
            if self._closed("]"):
                return

    def numbers(self, not_a_list: str) -> Iterator[list[Any]]:
        """The elements of an array of small integers, in lists: a run of them at a time, matched by one
        regular expression and converted by ``int``; anything else is decoded alone (a list of one)."""
        if self.peek() != "[":
            raise ReportError(not_a_list)
        self._pos += 1
        started = False  # after a comma, a number must follow ("[1,]" is not JSON)
        while True:
            run = _INT_RUN.match(self._buffer, self._pos)
            if run is not None:
                self._pos = run.end()
                started = True
                yield list(map(int, run.group().split(",")[:-1]))
                continue
            last = _LAST_INT.match(self._buffer, self._pos)
            if last is not None and (last.group(1) is not None or not started):
                self._pos = last.end()
                if last.group(1) is not None:
                    yield [int(last.group(1))]
                return
            if len(self._buffer) - self._pos < 64 and self._fill():
                continue  # a number, its comma or the bracket may be in the next chunk
            # Not a plain run (a float, a string, a nested value, an error): one element, decoded.
            yield [self.value()]
            started = True
            if self._closed("]"):
                return

    def skip(self) -> None:
        """Pass over the value that comes next without keeping it (beyond the buffer, without building it:
        strings are matched, brackets counted)."""
        if self.peek() not in ("[", "{"):
            self.value()
            return
        # A value that ends within the text already buffered (a piece or two) is decoded in C and
        # dropped: its objects are bounded by the buffer. A longer one is scanned.
        try:
            _, end = _DECODER.raw_decode(self._buffer, self._pos)
        except (json.JSONDecodeError, RecursionError, ValueError):
            pass  # cut by the buffer's end, or not valid: the scan finds out which
        else:
            self._pos = end
            return
        closing: list[str] = []
        while True:
            self._pos = _NOT_STRUCTURE.match(self._buffer, self._pos).end()  # type: ignore[union-attr]
            if self._pos >= len(self._buffer):
                if not self._fill():
                    raise ReportError("invalid JSON report: it stops in the middle of a value (truncated?)")
                continue
            char = self._buffer[self._pos]
            if char == '"':
                string = _STRING.match(self._buffer, self._pos)
                if string is None:
                    if not self._grow():
                        raise ReportError("invalid JSON report: it stops in the middle of a value (truncated?)")
                    continue
                self._pos = string.end()
            elif char in "[{":
                closing.append("]" if char == "[" else "}")
                if len(closing) > _MAX_DEPTH:
                    raise ReportError("invalid JSON report: nested too deeply")
                self._pos += 1
            else:
                if char != closing.pop():
                    raise ReportError(self._error(f"unexpected {char!r}"))
                self._pos += 1
                if not closing:
                    return

    def members(self) -> Iterator[str]:
        """After a ``{``: yield each key, leaving the stream at its value; consume the ``}``."""
        if self.peek() == "}":
            self._pos += 1
            return
        while True:
            plain = _PLAIN_KEY.match(self._buffer, self._pos)
            if plain is not None:
                key = plain.group(1)
                self._pos = plain.end()
            else:
                if self.peek() != '"':
                    raise ReportError(self._error("expected a key"))
                key = self.value()
                self.expect(":", "")
            yield key
            if self._closed("}"):
                return

    def _closed(self, closer: str) -> bool:
        """Read the separator after an element: ``True`` at ``closer`` (the container ends), ``False``
        at a comma; anything else is an error."""
        separator = self.peek()
        self._pos += 1
        if separator == closer:
            return True
        if separator != ",":
            raise ReportError(self._error(f"expected ',' or '{closer}'"))
        return False

    def end(self) -> None:
        if self.peek():
            raise ReportError(self._error("unexpected data after the report"))

    def _error(self, what: str) -> str:
        if self._ended and self._pos >= len(self._buffer):
            return f"invalid JSON report: {what} but the input ended (truncated?)"
        return f"invalid JSON report: {what} near {quote(self._buffer[self._pos : self._pos + 30])}"
