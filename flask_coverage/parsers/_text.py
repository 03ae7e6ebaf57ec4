"""Reading a text report a chunk at a time: UTF-8 checked, line ends of any platform read as LF.

The one place for "lines in" of every text format. :func:`text_blocks` hands out each chunk's whole
lines as one string, so a parser can let C do the work per chunk (``str.count``, ``find``, one
compiled expression, ``json.loads`` of numbers); :func:`text_lines` splits the same blocks into lines
for a parser, or a part of one, that reads line by line.
"""

from __future__ import annotations

import codecs
import json
from typing import Iterable, Iterator

from ..errors import ReportError
from ._input import not_utf8

__all__ = ["MAX_TEXT_LINE", "numbers_of", "text_blocks", "text_lines"]

#: Longer lines are refused: real ones (paths, C++ names, source lines) are far shorter.
MAX_TEXT_LINE = 1 << 20

_DIGITS = b"0123456789"


def text_blocks(chunks: Iterable[bytes], title: str) -> Iterator[str]:
    """The text of the report as blocks of whole lines, each line ending with ``"\\n"``.

    A block is what one chunk completes; a line cut by a chunk's end waits for the next. A byte order
    mark first is dropped; CRLF and lone CR line ends are read as LF, and the last line gets a line
    end if it had none. Raises ReportError for bytes that are not UTF-8 and for a line longer than
    :data:`MAX_TEXT_LINE` characters (so a report without line ends is never joined up in memory).
    """
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    offset = 0
    pending = ""
    count = 0
    for chunk in chunks:
        start = offset - len(decoder.getstate()[0])
        try:
            text = pending + decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            raise not_utf8(start + exc.start) from None
        offset += len(chunk)
        if "\r" in text:
            # A CR at the very end may be the first half of a CRLF: it waits with the cut line.
            text = text.replace("\r\n", "\n")
            cr_last = text.endswith("\r")
            text = text.replace("\r", "\n")
            if cr_last:
                text = text[:-1] + "\r"
        cut = text.rfind("\n") + 1
        pending = text[cut:]
        if len(pending) > MAX_TEXT_LINE:
            number = count + text.count("\n", 0, cut) + 1
            raise ReportError(f"{title} line {number} is longer than {MAX_TEXT_LINE} characters")
        if cut:
            block = text[:cut] if pending else text
            count += block.count("\n")
            yield block
    try:
        pending += decoder.decode(b"", True)
    except UnicodeDecodeError as exc:
        raise not_utf8(offset - len(decoder.getstate()[0]) + exc.start) from None
    if pending:
        yield pending.replace("\r\n", "\n").replace("\r", "\n") + ("" if pending.endswith(("\n", "\r")) else "\n")


def text_lines(chunks: Iterable[bytes], title: str) -> Iterator[list[str]]:
    """The lines of the report, without their line ends, a list per block of :func:`text_blocks`."""
    for block in text_blocks(chunks, title):
        lines = block.split("\n")
        lines.pop()  # the empty string after the block's last line end
        yield lines


def numbers_of(lines: str, shape: bytes, separators: bytes, dropped: bytes = b"") -> list[int] | None:
    """The whole numbers written in ``lines`` (whole lines, all of one shape), in order, or None.

    ``shape`` is one line with its digits taken out (``b"DA:,\n"`` for ``DA:12,3``): every line must be
    exactly that around its numbers. ``separators`` are the shape's characters between numbers (each
    read as a comma) and ``dropped`` its other characters. A number written with a leading zero, or
    an empty one, gives None too: the caller then reads those lines one by one, with its exact rules.
    All the work is in C: one ``translate`` checks the shape, one ``json.loads`` reads the numbers.
    """
    data = lines.encode()
    if data.translate(None, _DIGITS) != shape * data.count(b"\n"):
        return None
    data = data.translate(bytes.maketrans(separators, b"," * len(separators)), dropped)
    try:
        numbers: list[int] = json.loads(b"[" + data[:-1] + b"]")
    except ValueError:  # "01", ",,", or more digits than int() reads
        return None
    return numbers
