"""Bounded, streaming decompression of uploads: gzip (one or more members) and zlib.

Cost is linear in the compressed bytes: the input is walked with a moving offset and handed to zlib
in steps that start small and double while a member goes on, so the end of a member never copies
more than about twice that member's compressed size (never "the rest of the body"). The output
stops one byte past ``limit``, so a bomb costs at most ``limit`` bytes of memory before it is
refused with :class:`~flask_coverage.errors.ReportTooLarge`; data that is not gzip/zlib, is
truncated or has too many gzip members is refused with :class:`~flask_coverage.errors.ReportError`.
See docs/upload.md ("Limits").
"""

from __future__ import annotations

import zlib
from typing import Iterable, Optional, Union

from .errors import ReportError, ReportTooLarge

__all__ = ["GZIP_MAGIC", "MAX_GZIP_MEMBERS", "check_size", "gunzip", "inflate"]

#: The first two bytes of every gzip member.
GZIP_MAGIC = b"\x1f\x8b"
#: Gzip members one body may hold (``cat a.gz b.gz`` makes two). Members cost a fixed amount of work
#: each, whatever their size: thousands of empty ones are only a way to spend the server's time.
MAX_GZIP_MEMBERS = 1000

_FIRST_STEP = 256
_LAST_STEP = 256 * 1024
_GZIP = 16 + zlib.MAX_WBITS

Chunks = Union[bytes, bytearray, memoryview, Iterable[Union[bytes, bytearray, memoryview]]]


def check_size(size: int, limit: Optional[int], what: str) -> None:
    """:class:`~flask_coverage.errors.ReportTooLarge` if ``size`` bytes of ``what`` pass ``limit``.

    The one test of the upload limit (``COVERAGE_MAX_UPLOAD_BYTES``), wherever the bytes are counted:
    a body's ``Content-Length``, the body as it streams in, its decompressed form, a report as it is read.
    """
    if limit is not None and size > limit:
        raise ReportTooLarge(f"{what} is larger than the limit of {limit} bytes")


def gunzip(data: Chunks, limit: Optional[int], what: str = "body") -> bytearray:
    """``data`` (bytes, or an iterable of byte chunks) decompressed as gzip of one or more members.

    ``what`` names the data in error messages ("the decompressed body is larger than ...").
    """
    return _decompress(data, limit, what, "gzip", _GZIP, MAX_GZIP_MEMBERS)


def inflate(data: Chunks, limit: Optional[int], what: str = "data") -> bytearray:
    """``data`` decompressed as one zlib stream (what Python's ``zlib.compress`` makes)."""
    return _decompress(data, limit, what, "zlib", zlib.MAX_WBITS, 1)


def _decompress(data: Chunks, limit: Optional[int], what: str, kind: str, wbits: int, members: int) -> bytearray:
    chunks = (data,) if isinstance(data, (bytes, bytearray, memoryview)) else data
    out = bytearray()
    inflater: Optional[zlib._Decompress] = None
    step = _FIRST_STEP
    started = 0
    for chunk in chunks:
        view = memoryview(chunk).cast("B")
        position = 0
        while position < len(view):
            if inflater is None:
                if started == members:
                    if members > 1:
                        raise ReportError(f"the {what} has more than {members} gzip members")
                    raise ReportError(f"the {what} goes on after the end of its {kind} stream")
                inflater = zlib.decompressobj(wbits)
                started += 1
                step = _FIRST_STEP
            piece = view[position : position + step]
            position += len(piece)
            try:
                # Never more than one byte past the limit: a bomb stops here.
                out += inflater.decompress(piece, 0 if limit is None else limit + 1 - len(out))
            except zlib.error:
                raise ReportError(f"the {what} is not valid {kind} data") from None
            check_size(len(out), limit, f"the decompressed {what}")
            if inflater.eof:
                # Back to the first byte after this member: the next one starts there.
                position -= len(inflater.unused_data)
                inflater = None
            else:
                step = min(2 * step, _LAST_STEP)
    if inflater is not None:
        raise ReportError(f"the {kind} data is truncated")
    return out
