"""Reading a report's bytes in chunks, with a size limit, keeping the head for format detection."""

from __future__ import annotations

from typing import BinaryIO, Iterator, Union

from ..errors import ReportError
from ..inflate import check_size

#: Bytes read per chunk: large enough to amortise per-call costs, small enough to stay cache-friendly.
CHUNK_SIZE = 1 << 20
#: Bytes looked at to detect the format.
HEAD_SIZE = 64 * 1024

ReportSource = Union[bytes, bytearray, memoryview, BinaryIO]


class ReportInput:
    """The bytes of one report, read once, front to back.

    Counting happens as chunks are read, so a file object over ``max_bytes`` is refused after at most
    ``max_bytes + 1`` bytes were read, never loaded whole.
    """

    def __init__(self, source: ReportSource, max_bytes: int | None = None) -> None:
        self._max_bytes = max_bytes
        self._read = 0
        if isinstance(source, (bytes, bytearray, memoryview)):
            # A view, not a copy: an upload's body is not held twice.
            data = memoryview(source).cast("B")
            self._count(len(data))
            self._data: memoryview | None = data
            self._file = None
            self.head = bytes(data[:HEAD_SIZE])
        elif callable(getattr(source, "read", None)):
            self._data = None
            self._file = source
            self.head = self._read_at_least(HEAD_SIZE)
        else:
            raise TypeError(f"a report is bytes or a binary file object, not {type(source).__name__}")
        self._consumed = False

    def chunks(self) -> Iterator[bytes]:
        """The whole report, head included, as a sequence of non-empty byte strings."""
        if self._consumed:
            raise RuntimeError("a report can only be read once")
        self._consumed = True
        if self._data is not None:
            data = self._data
            for start in range(0, len(data), CHUNK_SIZE):
                yield bytes(data[start : start + CHUNK_SIZE])
            return
        if self.head:
            yield self.head
        while True:
            chunk = self._read_some(CHUNK_SIZE)
            if not chunk:
                return
            yield chunk

    def _read_at_least(self, size: int) -> bytes:
        # A file object (a socket, a pipe) may return fewer bytes than asked: loop until full or EOF.
        parts = []
        got = 0
        while got < size:
            chunk = self._read_some(size - got)
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def _read_some(self, size: int) -> bytes:
        if self._file is None:
            return b""
        if self._max_bytes is not None:
            # Never ask for more than one byte past the limit.
            size = max(1, min(size, self._max_bytes - self._read + 1))
        chunk = self._file.read(size)
        if not isinstance(chunk, (bytes, bytearray)):
            raise TypeError("the report file object must be opened in binary mode")
        self._count(len(chunk))
        return bytes(chunk)

    def _count(self, size: int) -> None:
        self._read += size
        check_size(self._read, self._max_bytes, "report")


def strip_bom(data: bytes) -> bytes:
    """``data`` without a UTF-8 byte order mark."""
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def not_utf8(offset: int) -> ReportError:
    """The ReportError for a report whose byte at ``offset`` breaks UTF-8."""
    return ReportError(f"report is not valid UTF-8 (invalid byte at offset {offset})")
