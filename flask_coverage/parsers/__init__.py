"""Coverage report parsers, one module per format, and the registry that detects them.

Pure functions over bytes: no Flask, no database. See docs/parsing.md for the rules in full and
docs/architecture.md ("A report format") for how a format plugs in (``_format.py``).
"""

from __future__ import annotations

from typing import AbstractSet, Iterable, Iterator

from ..errors import ReportError
from ..lines import LineCoverage
from . import (
    bullseye,
    clover,
    cobertura,
    codecov,
    coveragepy,
    coveralls,
    covr,
    dlst,
    dotcover,
    elm,
    flow,
    gap,
    gcov,
    gcov_json,
    go,
    istanbul,
    jacoco,
    lcov,
    llvm,
    luacov,
    mono,
    opencover,
    salesforce,
    scoverage,
    simplecov,
    sonarqube,
    vscoverage,
    xccov,
    xccov_archive,
    xcode,
    xcode_plist,
)
from ._common import MAX_LINE_NUMBER, ParsedFile
from ._format import ParseContext, ParserSettings, ReportFormat, ReportHead, Skips
from ._input import ReportInput, ReportSource, strip_bom
from ._paths import place_by_network

__all__ = [
    "FORMATS",
    "MAX_LINE_NUMBER",
    "REPORT_FORMATS",
    "ParseContext",
    "ParsedFile",
    "ParserSettings",
    "ReportFormat",
    "ReportHead",
    "Skips",
    "detect_format",
    "merge_by_path",
    "parse_report",
    "place_by_network",
]

#: Every format read, in the order their detectors are asked. Each detector refuses the others'
#: reports (tests/parsers/test_detection.py); where one signature is a special case of another's, the
#: special case comes first all the same, so the order alone could not confuse them either.
REPORT_FORMATS: tuple[ReportFormat, ...] = (
    cobertura.FORMAT,
    coveragepy.FORMAT,
    lcov.FORMAT,
    jacoco.FORMAT,
    go.FORMAT,
    istanbul.FORMAT,
    clover.FORMAT,
    gcov.FORMAT,
    sonarqube.FORMAT,
    simplecov.FORMAT,
    coveralls.FORMAT,
    codecov.FORMAT,
    gcov_json.FORMAT,
    llvm.FORMAT,
    xcode.FORMAT,
    opencover.FORMAT,
    covr.FORMAT,
    scoverage.FORMAT,
    luacov.FORMAT,
    xccov.FORMAT,
    xccov_archive.FORMAT,
    dotcover.FORMAT,
    flow.FORMAT,
    elm.FORMAT,
    salesforce.FORMAT,
    xcode_plist.FORMAT,
    dlst.FORMAT,
    bullseye.FORMAT,
    vscoverage.FORMAT,
    gap.FORMAT,
    mono.FORMAT,
)
_BY_NAME = {f.name: f for f in REPORT_FORMATS}

#: The values ``parse_report(format=...)`` accepts besides ``"auto"``.
FORMATS = tuple(_BY_NAME)


def detect_format(head: bytes, name: str | None = None) -> str:
    """The name of the format of a report from its first bytes (``"cobertura"``, ``"lcov"``, ...).

    Content decides: the first registered format whose detector accepts the head. ``name``, the
    report's file name as uploaded, only chooses among formats whose detectors all accept it.
    Raises ReportError for an empty head and, for one no detector accepts, one line saying what it
    looked like and which formats are read.
    """
    report = ReportHead(head, name)
    if not report.text:
        raise ReportError("empty report")
    accepted = [f for f in REPORT_FORMATS if f.detect(report)]
    if not accepted:
        titles = ", ".join(f.title for f in REPORT_FORMATS)
        raise ReportError(f"unknown report format: {report.describe()}; the formats read are {titles}")
    named = [f for f in accepted if report.name_matches(f.file_names)]
    return (named or accepted)[0].name


def parse_report(
    source: ReportSource,
    *,
    format: str = "auto",
    root: str | None = None,
    max_bytes: int | None = None,
    skips: Skips | None = None,
    name: str | None = None,
    known: AbstractSet[str] | None = None,
    settings: ParserSettings | None = None,
) -> Iterator[ParsedFile]:
    """Parse a coverage report into repository-relative files with their line coverage.

    ``source`` is the report as bytes or a binary file object (read once, in chunks). ``format`` is
    ``"auto"`` (detected from the content; ``name``, the report's file name, as a hint only) or one
    of :data:`FORMATS`. ``root``, the checkout directory the report was written in, is stripped from
    file paths. Reading more than ``max_bytes`` bytes raises
    :class:`~flask_coverage.errors.ReportTooLarge`. The lines the parser skipped or clamped are
    counted in ``skips`` (see docs/parsing.md) as the files are read. ``known``, the repository's
    files an upload is placed on, lets a format try its names against them as Codecov does (JaCoCo's
    module names); None places nothing. ``settings`` are the ``parsers:`` settings of the codecov.yml
    in force (:class:`ParserSettings`, whose defaults are Codecov's: an upload always passes them);
    with None each format keeps its own partial lines (Istanbul's, scoverage's), as its tool counts them.

    The format is checked before this returns; the files are then parsed lazily as the iterator is
    consumed. A path can be yielded more than once (Cobertura classes of one file, LCOV records per
    test): combine them with :func:`merge_by_path` or :meth:`LineCoverage.merge`. Every problem with
    the report raises :class:`~flask_coverage.errors.ReportError`, possibly after some files were
    yielded, so store a report only once it was read to the end.
    """
    if format != "auto" and format not in _BY_NAME:
        raise ReportError(f"unknown report format {format!r}: expected auto or one of {', '.join(FORMATS)}")
    report = ReportInput(source, max_bytes)
    if format == "auto":
        format = detect_format(report.head, name)
    elif not strip_bom(report.head).strip():
        raise ReportError("empty report")
    context = ParseContext(
        root=root,
        skips=Skips() if skips is None else skips,
        name=name,
        known=known,
        settings=ParserSettings() if settings is None else settings,
    )
    chosen = _BY_NAME[format]
    files = chosen.parse(report.chunks(), context)
    if settings is not None and chosen.partials_as_hits(settings):
        return (ParsedFile(path, lines.partials_as_hits()) for path, lines in files)
    return files


def merge_by_path(files: Iterable[ParsedFile]) -> dict[str, LineCoverage]:
    """Combine files by path with :meth:`LineCoverage.merge`, in first-seen order."""
    merged: dict[str, LineCoverage] = {}
    for path, lines in files:
        previous = merged.get(path)
        merged[path] = lines if previous is None else previous.merge(lines)
    return merged
