"""Reading a text report a chunk at a time: UTF-8 checked, line ends of any platform read as LF.

The one place for "lines in" of every text format. :func:`text_blocks` hands out each chunk's whole
lines as one string, so a parser can hand a whole block to its compiled reader (``parsers/_speedups``)
or split it into lines for its Python reader.
"""

from __future__ import annotations

import codecs
from typing import Iterable, Iterator

from ..errors import ReportError
from ._input import not_utf8

__all__ = ["MAX_TEXT_LINE", "text_blocks"]

#: Longer lines are refused: real ones (paths, C++ names, source lines) are far shorter.
MAX_TEXT_LINE = 1 << 20


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
