"""An upload's reports read: parsed, hashed for the upload's key, and packed per path as they will be
stored, before anything is written; at most ``COVERAGE_MAX_REPORT_FILES`` files (docs/upload.md)."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterable, Iterator
from typing import AbstractSet, Any, Callable, NamedTuple, Optional

from ..errors import ReportError, ReportTooLarge
from ..lines import LineCoverage
from ..models import FileCoverage
from ..parsers import ParsedFile, ParserSettings, ReportSource, Skips, parse_report

#: Called with the number of report bytes read since the previous call.
ProgressCallback = Callable[[int], None]

_MAX_PATH_LENGTH: int = FileCoverage.__table__.c.path.type.length  # type: ignore[attr-defined]


class Packed(NamedTuple):
    """A file's coverage as it is stored: its totals' columns and its encoded lines (``data``).

    An upload holds every file of its reports until its transaction: packed, a file costs its encoding
    (a few bytes per line, compressed) instead of a :class:`LineCoverage`'s 9 bytes per line and
    its arrays, which kept a 50 MB SimpleCov report of 141,000 files over 300 MB.
    """

    lines: int
    hits: int
    misses: int
    partials: int
    data: bytes

    @classmethod
    def of(cls, coverage: LineCoverage) -> Packed:
        totals = coverage.totals()
        return cls(totals.lines, totals.hits, totals.misses, totals.partials, coverage.encode())

    def coverage(self) -> LineCoverage:
        return LineCoverage.decode(self.data)

    def merge(self, other: LineCoverage) -> Packed:
        return Packed.of(self.coverage().merge(other))


def read_reports(
    reports: Iterable[tuple[str, ReportSource]],
    *,
    root: Optional[str],
    format: str,
    max_bytes: Optional[int],
    max_files: int,
    progress: Optional[ProgressCallback],
    digests: list[str],
    skips: Skips,
    known: AbstractSet[str],
    settings: ParserSettings,
) -> dict[str, Packed]:
    """Every report parsed (:func:`~flask_coverage.parsers.parse_report`) and its files packed, merged
    per path (as :func:`~flask_coverage.parsers.merge_by_path`), a file with no tracked line left out
    as Codecov leaves it out (an LCOV record with no ``DA``, a class with no lines); each report's
    SHA-256 appended to ``digests`` once it was read. The parsers are given ``known``, the repository's
    files the upload is placed on (``ParseContext.known``), and ``settings``, the codecov.yml's
    ``parsers:``. More than ``max_files`` paths, all reports together, is a
    :class:`~flask_coverage.errors.ReportTooLarge`, raised as the first path past the bound comes: an
    upload holds about 250 bytes per file until its transaction."""
    packed: dict[str, Packed] = {}
    # A path repeated right after itself (Java's inner classes, one ``<class>`` each) is merged unpacked.
    path, lines = "", None
    for parsed in _parsed(
        reports,
        root=root,
        format=format,
        max_bytes=max_bytes,
        progress=progress,
        digests=digests,
        skips=skips,
        known=known,
        settings=settings,
    ):
        if lines is not None and parsed.path == path:
            lines = lines.merge(parsed.lines)
            continue
        if lines is not None:
            packed[path] = Packed.of(lines) if path not in packed else packed[path].merge(lines)
            if len(packed) >= max_files and parsed.path not in packed:
                raise ReportTooLarge(
                    f"the upload's reports hold more than {max_files:,} files (COVERAGE_MAX_REPORT_FILES)"
                )
        path, lines = parsed
    if lines is not None:
        packed[path] = Packed.of(lines) if path not in packed else packed[path].merge(lines)
    return {path: file for path, file in packed.items() if file.lines}


class _HashingReader:
    """A binary file object over ``source`` that hashes what is read and reports its size to ``progress``."""

    def __init__(self, source: ReportSource, digest: Any, progress: Optional[ProgressCallback]) -> None:
        self._file = io.BytesIO(source) if isinstance(source, (bytes, bytearray, memoryview)) else source
        self._digest = digest
        self._progress = progress

    def read(self, size: int = -1) -> bytes:
        chunk = self._file.read(size)
        if chunk:
            self._digest.update(chunk)
            if self._progress is not None:
                self._progress(len(chunk))
        return chunk


def _parsed(
    reports: Iterable[tuple[str, ReportSource]],
    *,
    root: Optional[str],
    format: str,
    max_bytes: Optional[int],
    progress: Optional[ProgressCallback],
    digests: list[str],
    skips: Skips,
    known: AbstractSet[str],
    settings: ParserSettings,
) -> Iterator[ParsedFile]:
    for name, source in reports:  # each report's SHA-256 goes to digests once it was read
        digest = hashlib.sha256()
        if progress is None and isinstance(source, (bytes, bytearray, memoryview)):
            digest.update(source)
        else:
            source = _HashingReader(source, digest, progress)  # type: ignore[assignment]
        try:
            for parsed in parse_report(
                source,
                format=format,
                root=root,
                max_bytes=max_bytes,
                skips=skips,
                name=name,
                known=known,
                settings=settings,
            ):
                check_storable(parsed.path)
                yield parsed
            digests.append(digest.hexdigest())
        except ReportError as error:
            # Name the report inside a multi-report upload; same class, so a 413 stays a 413.
            if not name:
                raise
            raise type(error)(f"report {name!r}: {error}") from None


def check_storable(path: str) -> None:
    """A ReportError for a path longer than the path column holds (the parsers already applied the name
    rule, flask_coverage.identifiers)."""
    if len(path) > _MAX_PATH_LENGTH:
        raise ReportError(f"path {path[:80]!r}... is longer than {_MAX_PATH_LENGTH} characters")
