"""Reading a text report line by line, a chunk at a time: UTF-8 checked, line ends of any platform."""

from __future__ import annotations

import codecs
from typing import Iterable, Iterator

from ..errors import ReportError
from ._input import not_utf8

__all__ = ["MAX_TEXT_LINE", "text_lines"]

#: Longer lines are refused: real ones (paths, C++ names, source lines) are far shorter.
MAX_TEXT_LINE = 1 << 20


def text_lines(chunks: Iterable[bytes], title: str) -> Iterator[list[str]]:
    """The lines of the report, without their line ends, a list per chunk read.

    A byte order mark first is dropped; CRLF and lone CR line ends are read as LF. Raises ReportError
    for bytes that are not UTF-8 and for a line longer than :data:`MAX_TEXT_LINE` characters (so a
    report without line ends is never joined up in memory).
    """
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    offset = 0
    pending = ""
    count = 0
    for chunk in chunks:
        start = offset - len(decoder.getstate()[0])
        try:
            text = decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            raise not_utf8(start + exc.start) from None
        offset += len(chunk)
        lines = _split(pending + text)
        pending = lines.pop()
        if len(pending) > MAX_TEXT_LINE:
            raise ReportError(f"{title} line {count + len(lines) + 1} is longer than {MAX_TEXT_LINE} characters")
        count += len(lines)
        if lines:
            yield lines
    try:
        pending += decoder.decode(b"", True)
    except UnicodeDecodeError as exc:
        raise not_utf8(offset - len(decoder.getstate()[0]) + exc.start) from None
    if pending:
        lines = _split(pending)
        lines[-1] = lines[-1].rstrip("\r")
        yield lines


def _split(text: str) -> list[str]:
    if "\r" in text:
        # A CR at the very end may be the first half of a CRLF: the caller keeps the last piece.
        text = text.replace("\r\n", "\n")
        if not text.endswith("\r"):
            text = text.replace("\r", "\n")
        else:
            text = text[:-1].replace("\r", "\n") + "\r"
    return text.split("\n")
