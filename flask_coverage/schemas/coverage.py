"""A repository's coverage beyond the report: flags, uploads, totals, one file's report, the comparison
of two commits and the coverage trend (docs/api.md).
"""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, post_dump, validate, validates_schema

from ..identifiers import (
    FLAG_PATTERN,
    MAX_PULLID,
)
from ..lines import Totals
from .common import (
    SHA_PATTERN,
    SHA_RULE,
    CommitQuerySchema,
    PageEnvelopeSchema,
    PaginatedSchema,
    PaginationQuerySchema,
    RepositoryPathSchema,
    name_rule,
)
from .fields import PlainNested, QueryDateTime, QueryInteger, UtcDateTime
from .report import CoverageTotalsSchema, FileReportSchema, ReportQuerySchema


class FlagListQuerySchema(PaginationQuerySchema, CommitQuerySchema):
    """Query arguments of ``repos_flags_list``: a page, and the commit whose coverage is shown."""

    class Meta:
        unknown = EXCLUDE


class FlagSchema(Schema):
    """A flag of a repository and its coverage in the commit."""

    flag_name = fields.String(required=True, metadata={"description": "The flag, as uploads carry it."})
    coverage = fields.Function(
        lambda row: None if row.lines is None else Totals.of(row).coverage,
        required=True,
        allow_none=True,
        metadata={
            "type": "number",
            "nullable": True,
            "description": "hits / lines * 100 of the flag's uploads to the commit, rounded down to 2 decimals; "
            "null when the commit has no upload with the flag.",
        },
    )


class PaginatedFlagListSchema(PaginatedSchema):
    """A page of the flags of a repository."""

    results = fields.List(fields.Nested(FlagSchema), required=True)


class UploadSchema(Schema):
    """An upload merged into a commit, with what its uploader said about it."""

    external_id = fields.String(
        allow_none=True, metadata={"description": "The id given to the uploader (v4 and codecov-cli uploads)."}
    )
    created_at = UtcDateTime(required=True)
    state = fields.Constant("processed", metadata={"description": "Always `processed`: uploads merge at once."})
    upload_type = fields.Constant("uploaded")
    flags = fields.Method("_flags", metadata={"description": "The upload's flags, sorted."})
    name = fields.String(allow_none=True, metadata={"description": "The upload's name (`-n`)."})
    build_code = fields.String(attribute="build", allow_none=True, metadata={"description": "The CI build."})
    job_code = fields.String(attribute="job", allow_none=True, metadata={"description": "The CI job."})
    build_url = fields.String(allow_none=True, metadata={"description": "The CI build's URL."})
    provider = fields.String(allow_none=True, metadata={"description": "The CI service."})
    carriedforward_from = fields.String(
        allow_none=True,
        metadata={
            "description": "For an upload standing for a flag carried forward (`upload_type` "
            "`carriedforward`), the sha of the commit the flag's coverage was uploaded to; else null."
        },
    )

    def _flags(self, row: Any) -> list[str]:
        return sorted(row.flags.split(",")) if row.flags else []

    @post_dump
    def _carried(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        if data.get("carriedforward_from"):  # Codecov's type of a carried session
            data["upload_type"] = "carriedforward"
        return data


class PaginatedUploadListSchema(PaginatedSchema):
    """A page of the uploads of a commit."""

    results = fields.List(fields.Nested(UploadSchema), required=True)


class TotalsQuerySchema(PaginationQuerySchema, ReportQuerySchema):
    """Query arguments of ``repos_totals_retrieve``: which commit, which of its files, which flag, and
    which page of its files."""

    class Meta:
        unknown = EXCLUDE

    flag = fields.String(
        validate=validate.Regexp(rf"\A{FLAG_PATTERN.pattern}\Z", error="Not a flag (1 to 45 letters, digits, _ . -)."),
        metadata={
            "pattern": f"^{FLAG_PATTERN.pattern}$",
            "description": "Only the coverage of the uploads with this flag.",
        },
    )


class FileTotalsSchema(Schema):
    """One file of a commit with its totals."""

    name = fields.String(required=True, metadata={"description": "The path from the repository root."})
    totals = PlainNested(CoverageTotalsSchema, required=True)


class CommitTotalsReportSchema(PageEnvelopeSchema):
    """The totals of a commit (or of the files under ``path``), and a page of its files with theirs
    (``count``, ``next``, ``previous`` and ``total_pages`` are about the files, as in the lists)."""

    totals = PlainNested(CoverageTotalsSchema, required=True)
    files = fields.List(
        fields.Nested(FileTotalsSchema), required=True, metadata={"description": "One page of the files, by path."}
    )
    commit_file_url = fields.String(required=True, metadata={"format": "uri"})


class FileReportPathSchema(RepositoryPathSchema):
    """The path arguments of one file's report."""

    path = fields.String(required=True, metadata={"description": "The file's path from the repository root."})


class FlagPathSchema(RepositoryPathSchema):
    """The path arguments of one flag of a repository."""

    flag = fields.String(required=True, metadata={"description": "The flag, as uploads carry it."})


class CommitFileReportSchema(FileReportSchema):
    """One file of a commit with its totals and the state of each tracked line."""

    commit_sha = fields.String(required=True, metadata={"description": "The commit the coverage is of."})
    commit_file_url = fields.String(required=True, metadata={"format": "uri"})


class CompareQuerySchema(PaginationQuerySchema):
    """Query arguments of ``repos_compare_retrieve``: two commits, or a pull request, and which page of
    the head's files."""

    class Meta:
        unknown = EXCLUDE

    base = fields.String(validate=SHA_RULE, metadata={"pattern": SHA_PATTERN, "description": "The base commit."})
    head = fields.String(validate=SHA_RULE, metadata={"pattern": SHA_PATTERN, "description": "The head commit."})
    pullid = QueryInteger(
        validate=validate.Range(min=1, max=MAX_PULLID),
        metadata={"description": "A pull request: its base and head commits (instead of base and head)."},
    )

    @validates_schema
    def _one_way(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "pullid" in data:
            if "base" in data or "head" in data:
                raise ValidationError("Give either pullid, or base and head.", "pullid")
        elif "base" not in data or "head" not in data:
            raise ValidationError("Give both base and head (or pullid).", "base" if "base" not in data else "head")


class ComparedTotalsSchema(Schema):
    """Totals before and after; ``patch``: the totals of the lines the diff adds (null without a diff)."""

    base = PlainNested(CoverageTotalsSchema, required=True, allow_none=True)
    head = PlainNested(CoverageTotalsSchema, required=True, allow_none=True)
    patch = PlainNested(CoverageTotalsSchema, required=True, allow_none=True)


class ComparedNameSchema(Schema):
    """A file's path in the base and head commits (null where it has no coverage)."""

    base = fields.String(required=True, allow_none=True)
    head = fields.String(required=True, allow_none=True)


class ChangeSummarySchema(Schema):
    """Lines tracked in both commits whose state changed, counted as Codecov does: each such line is
    -1 for its base state and +1 for its head state (only the states that changed appear)."""

    hits = fields.Integer()
    misses = fields.Integer()
    partials = fields.Integer()


class ComparedFileSchema(Schema):
    """One file of the head commit compared with the base."""

    name = fields.Nested(ComparedNameSchema, required=True)
    totals = fields.Nested(ComparedTotalsSchema, required=True)
    has_diff = fields.Boolean(required=True, metadata={"description": "Whether the diff base...head changes the file."})
    stats = fields.Raw(required=True, allow_none=True, metadata={"description": "Always null."})
    change_summary = fields.Nested(ChangeSummarySchema, required=True)


class ComparisonSchema(PageEnvelopeSchema):
    """The coverage of a head commit compared with a base commit: the totals, and a page of the head's
    files (``count``, ``next``, ``previous`` and ``total_pages`` are about the files, as in the lists)."""

    base_commit = fields.String(required=True)
    head_commit = fields.String(required=True)
    totals = fields.Nested(ComparedTotalsSchema, required=True)
    files = fields.List(
        fields.Nested(ComparedFileSchema), required=True, metadata={"description": "One page of the files, by path."}
    )
    untracked = fields.List(fields.String(), required=True, metadata={"description": "Always empty."})


class CoverageTrendQuerySchema(PaginationQuerySchema):
    """Query arguments of ``repos_coverage_list``."""

    interval = fields.String(
        required=True,
        validate=validate.OneOf(["1d", "7d", "30d"]),
        metadata={"description": "The width of each bin: 1d (days), 7d (weeks from Monday) or 30d."},
    )
    branch = fields.String(
        validate=[validate.Length(min=1, max=255), name_rule],
        metadata={"description": "The branch whose commits are measured. Defaults to the default branch."},
    )
    start_date = QueryDateTime(
        metadata={"description": "Only commits from this time (UTC unless a zone is given; inclusive)."}
    )
    end_date = QueryDateTime(
        metadata={"description": "Only commits up to this time (UTC unless a zone is given; inclusive)."}
    )

    @validates_schema
    def _in_order(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "start_date" in data and "end_date" in data and data["start_date"] > data["end_date"]:
            raise ValidationError("start_date must not be after end_date.", "start_date")


class MeasurementSchema(Schema):
    """The coverage of a branch's commits in one interval."""

    timestamp = UtcDateTime(required=True, metadata={"description": "Where the interval starts."})
    min = fields.Float(required=True, metadata={"description": "The lowest coverage of its commits."})
    max = fields.Float(required=True, metadata={"description": "The highest coverage of its commits."})
    avg = fields.Float(required=True, metadata={"description": "The mean coverage of its commits."})


class PaginatedMeasurementListSchema(PaginatedSchema):
    """A page of the coverage trend of a branch, oldest interval first."""

    results = fields.List(fields.Nested(MeasurementSchema), required=True)


class ComponentListQuerySchema(PaginationQuerySchema, CommitQuerySchema):
    """Query arguments of ``repos_components_list``: a page, and the commit whose coverage is shown."""

    class Meta:
        unknown = EXCLUDE


class ComponentSchema(Schema):
    """A component of the repository's ``codecov.yml`` and its coverage in the commit."""

    component_id = fields.String(required=True, metadata={"description": "The component's `component_id`."})
    name = fields.String(required=True, metadata={"description": "Its `name`, else its `component_id`."})
    coverage = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "The coverage of its files, rounded down to 2 decimals (null: no lines)."},
    )


class PaginatedComponentListSchema(PaginatedSchema):
    """A page of the components of a repository."""

    results = fields.List(fields.Nested(ComponentSchema), required=True)


class _ComparedReportTotalsSchema(Schema):
    """Totals in the base and the head and of the patch, with Codecov's names for them."""

    base_report_totals = PlainNested(
        CoverageTotalsSchema, required=True, allow_none=True, metadata={"description": "Null: not in the base."}
    )
    head_report_totals = PlainNested(CoverageTotalsSchema, required=True)
    diff_totals = PlainNested(
        CoverageTotalsSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The lines the diff adds (null without a diff)."},
    )


class FlagComparisonSchema(_ComparedReportTotalsSchema):
    """A flag of the head compared with the base."""

    name = fields.String(required=True, metadata={"description": "The flag."})


class PaginatedFlagComparisonListSchema(PaginatedSchema):
    """A page of the flags of a head commit compared with the base."""

    results = fields.List(fields.Nested(FlagComparisonSchema), required=True)


class ComponentComparisonSchema(_ComparedReportTotalsSchema):
    """A component of the head's ``codecov.yml`` compared with the base."""

    component_id = fields.String(required=True)
    name = fields.String(required=True)


class PaginatedComponentComparisonListSchema(PaginatedSchema):
    """A page of the components of a head commit compared with the base."""

    results = fields.List(fields.Nested(ComponentComparisonSchema), required=True)


class ImpactedFileSchema(Schema):
    """A file whose coverage a change touched."""

    file_name = fields.String(required=True, metadata={"description": "Its path (the head's, else the base's)."})
    base_name = fields.String(
        required=True, allow_none=True, metadata={"description": "Null: no coverage in the base."}
    )
    head_name = fields.String(
        required=True, allow_none=True, metadata={"description": "Null: no coverage in the head."}
    )
    is_new_file = fields.Boolean(required=True)
    is_renamed_file = fields.Boolean(required=True, metadata={"description": "Always false: renames are not followed."})
    is_deleted_file = fields.Boolean(required=True)
    base_coverage = PlainNested(CoverageTotalsSchema, required=True, allow_none=True)
    head_coverage = PlainNested(CoverageTotalsSchema, required=True, allow_none=True)
    patch_coverage = PlainNested(
        CoverageTotalsSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The lines the diff adds to it (null: none, or no diff)."},
    )
    change_coverage = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "Head coverage less base coverage, in points (null: not in both)."},
    )
    misses_count = fields.Integer(required=True, metadata={"description": "Its lines missed or partial in the head."})


class ImpactedFilesComparisonSchema(PageEnvelopeSchema):
    """The files a change touched: the totals, and a page of the files (``count``, ``next``, ``previous``
    and ``total_pages`` are about the files)."""

    base_commit = fields.String(required=True)
    head_commit = fields.String(required=True)
    totals = fields.Nested(ComparedTotalsSchema, required=True)
    files = fields.List(fields.Nested(ImpactedFileSchema), required=True, metadata={"description": "By path."})
    untracked = fields.List(fields.String(), required=True, metadata={"description": "Always empty."})
    state = fields.String(required=True, metadata={"description": "Always `processed`: computed when asked."})


class ComparedSidesSchema(Schema):
    """A value in the base and in the head (null where the line is not there, or not tracked)."""

    base = fields.Integer(required=True, allow_none=True)
    head = fields.Integer(required=True, allow_none=True)


class ComparedLineSchema(Schema):
    """A line of a file in the base and the head."""

    value = fields.String(required=True, allow_none=True, metadata={"description": "Always null: no source."})
    number = fields.Nested(ComparedSidesSchema, required=True, metadata={"description": "Its numbers."})
    coverage = fields.Nested(
        ComparedSidesSchema, required=True, metadata={"description": "Its states: 0 hit, 1 miss, 2 partial."}
    )
    is_diff = fields.Boolean(required=True)
    added = fields.Boolean(required=True)
    removed = fields.Boolean(required=True)
    sessions = fields.Integer(required=True, allow_none=True, metadata={"description": "Its hits in the head."})


class FileComparisonSchema(ComparedFileSchema):
    """One file compared line by line."""

    lines = fields.List(fields.Nested(ComparedLineSchema), required=True)


class SegmentLineSchema(Schema):
    """A line of a segment."""

    base_number = fields.Integer(required=True, allow_none=True)
    head_number = fields.Integer(required=True, allow_none=True)
    base_coverage = fields.Integer(required=True, allow_none=True)
    head_coverage = fields.Integer(required=True, allow_none=True)
    content = fields.String(required=True, metadata={"description": "`+`, `-` or a space: the source is not read."})


class SegmentSchema(Schema):
    """A run of changed lines with their context."""

    header = fields.String(required=True, metadata={"description": "`-start,count +start,count`."})
    has_unintended_changes = fields.Boolean(required=True)
    lines = fields.List(fields.Nested(SegmentLineSchema), required=True)


class FileSegmentsSchema(Schema):
    """The segments of a file that a change touched."""

    segments = fields.List(fields.Nested(SegmentSchema), required=True)
