"""The coverage report of a commit: ``GET .../repos/{repo}/report/`` (docs/upload.md), its schemas and
its JSON writer.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii
from typing import Any, Optional

from marshmallow import Schema, fields, validate

from ..identifiers import (
    FLAG_PATTERN,
)
from ..lines import LineCoverage, Totals, percent
from ..queries.files import Coverage, file_rows
from .common import CommitQuerySchema, name_rule
from .fields import PlainNested


class CoverageTotalsSchema(Schema):
    """Totals of a set of files; ``lines`` = ``hits`` + ``misses`` + ``partials``."""

    files = fields.Integer(required=True, metadata={"description": "Files counted."})
    lines = fields.Integer(required=True, metadata={"description": "Tracked lines."})
    hits = fields.Integer(required=True, metadata={"description": "Lines that ran (every branch taken)."})
    misses = fields.Integer(required=True, metadata={"description": "Tracked lines that never ran."})
    partials = fields.Integer(required=True, metadata={"description": "Lines that ran with a branch not taken."})
    coverage = fields.Float(
        required=True, metadata={"description": "hits / lines * 100 rounded down to 2 decimals (0 without lines)."}
    )
    branches = fields.Integer(required=True, metadata={"description": "Not measured: always 0."})
    methods = fields.Integer(required=True, metadata={"description": "Not measured: always 0."})


class FileReportSchema(Schema):
    """One file of a commit with its totals and the state of every tracked line."""

    name = fields.String(required=True, metadata={"description": "The path from the repository root."})
    totals = PlainNested(CoverageTotalsSchema, required=True)
    # Raw: a file can have millions of lines, and every pair is already two plain integers.
    line_coverage = fields.Raw(
        required=True,
        metadata={
            "type": "array",
            "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
            "description": "[line, type] for every tracked line in line order; type 0 hit, 1 miss, 2 partial.",
        },
    )


class CommitReportSchema(Schema):
    """The coverage report of one commit (or of the files under ``path``)."""

    totals = PlainNested(CoverageTotalsSchema, required=True)
    files = fields.List(fields.Nested(FileReportSchema), required=True, metadata={"description": "By path."})
    commit_file_url = fields.String(
        required=True,
        metadata={"format": "uri", "description": "Where the commit's coverage is shown (its tree graph)."},
    )


class ReportQuerySchema(CommitQuerySchema):
    """Query arguments of ``repos_report_retrieve``: which commit, which of its files, which flag."""

    path = fields.String(
        validate=[validate.Length(max=1024), name_rule],
        metadata={
            "description": "Only the files whose path starts with this text (literally, case-sensitive). "
            "No control, format or line-separator characters.",
        },
    )
    flag = fields.String(
        validate=validate.Regexp(rf"\A(?:{FLAG_PATTERN.pattern})?\Z", error="Not a flag name."),
        metadata={
            "pattern": f"^(?:{FLAG_PATTERN.pattern})?$",
            "description": "Only the coverage of the uploads with this flag (1 to 45 letters, digits, _ . -); "
            "a flag the commit has no upload with gives an empty report. Empty: all uploads.",
        },
    )


#: The report is yielded in pieces of about this many characters: one write to the client per piece.
REPORT_PIECE = 64 * 1024


def report_json(commit: Optional[Coverage], path: Optional[str] = None) -> Iterator[str]:
    """The members ``"files": [...], "totals": ...`` of a report's JSON object, as pieces of text
    (of a commit, or of a flag of it; ``None``: an empty report).

    Each file is written to JSON text as soon as its row is read, in one format string (the bytes
    Flask's JSON provider gives :class:`~flask_coverage.schemas.FileReportSchema`'s dump: keys
    sorted, ``", "`` and ``": "``, ASCII), and the text is yielded in pieces of about
    :data:`REPORT_PIECE` characters: a streamed answer holds one piece at a time, whatever the number
    of files. ``files`` comes first so that ``totals`` are those of the very files sent.
    """
    files = lines = hits = misses = partials = 0
    piece = ['"files": [']
    size = 0
    separator = ""
    decode = LineCoverage.decode
    for name, file_lines, file_hits, file_misses, file_partials, data in (
        file_rows(commit, path) if commit is not None else ()
    ):
        pairs = ", ".join(itertools.starmap("[{}, {}]".format, decode(data).line_states()))
        totals = totals_json(file_lines, file_hits, file_misses, file_partials, 1)
        text = f'{separator}{{"line_coverage": [{pairs}], "name": {encode_basestring_ascii(name)}, "totals": {totals}}}'
        piece.append(text)
        size += len(text)
        if size >= REPORT_PIECE:
            yield "".join(piece)
            piece, size = [], 0
        separator = ", "
        files += 1
        lines += file_lines
        hits += file_hits
        misses += file_misses
        partials += file_partials
    piece.append('], "totals": ' + totals_json(lines, hits, misses, partials, files))
    yield "".join(piece)


def totals_json(lines: int, hits: int, misses: int, partials: int, files: int) -> str:
    """:func:`totals_body` as JSON text (keys sorted), written without a dict or a schema."""
    return (
        f'{{"branches": 0, "coverage": {percent(hits, lines)!r}, "files": {files}, "hits": {hits}, '
        f'"lines": {lines}, "methods": 0, "misses": {misses}, "partials": {partials}}}'
    )


def totals_body(totals: Totals, files: int) -> dict[str, Any]:
    """The ``CoverageTotalsSchema`` fields of ``totals`` over ``files`` files."""
    return {
        "files": files,
        "lines": totals.lines,
        "hits": totals.hits,
        "misses": totals.misses,
        "partials": totals.partials,
        "coverage": totals.coverage,
        "branches": 0,
        "methods": 0,
    }
