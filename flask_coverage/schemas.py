"""Marshmallow schemas of the JSON APIs: query arguments in, response bodies out.

The same schemas generate the OpenAPI document (:mod:`flask_coverage.openapi`), so what the API
accepts and answers and what it documents cannot drift apart. They run on marshmallow 3.13+ and
4.x alike: options through ``load_default=`` and ``metadata={...}`` only.

Other endpoints add their schemas at the end of this module.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Optional

from flask import current_app
from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema

from .commits import MAX_PULLID, parse_service
from .errors import InvalidInput
from .ingest import FLAG_PATTERN
from .lines import Totals
from .models import SERVICE_BY_SHORT, ServiceEnum
from .names import refusal, refused_character

#: Integers in query strings saturate here; a page this far is past the end anyway.
MAX_QUERY_INTEGER = 2**63 - 1
#: The longest ``search`` accepted: enough for any name or email, short enough for a cheap query.
MAX_SEARCH_LENGTH = 200

_DECIMAL = re.compile(r"-?[0-9]+")


def _name_rule(value: str) -> None:
    # No stored name holds such a character, so it cannot be part of a match (PostgreSQL refuses NUL).
    char = refused_character(value)
    if char is not None:
        raise ValidationError(refusal("A name", char) + ".")


def _search_terms(value: str) -> None:
    # Whitespace (tabs and newlines included) separates the terms; the terms follow the name rule.
    _name_rule("".join(value.split()))


class ServiceField(fields.Field):
    """A :class:`~flask_coverage.models.ServiceEnum`: dumped as its value, loaded from one.

    The OpenAPI document shows it as a reference to the ``ServiceEnum`` component.
    """

    def _serialize(self, value: Any, attr: Optional[str], obj: Any, **kwargs: Any) -> Optional[str]:
        return None if value is None else ServiceEnum(value).value

    def _deserialize(self, value: Any, attr: Optional[str], data: Any, **kwargs: Any) -> ServiceEnum:
        if not isinstance(value, (str, ServiceEnum)):
            raise ValidationError("Not a valid service.")
        try:
            return parse_service(value)
        except InvalidInput as error:
            raise ValidationError(str(error)) from None


def utc_iso(value: dt.datetime) -> str:
    """A time the database holds in UTC without a zone, in ISO 8601 with its zone (``+00:00``)."""
    return (value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value).isoformat()


class UtcDateTime(fields.DateTime):
    """A time the database holds in UTC without a zone, dumped by :func:`utc_iso`."""

    def _serialize(self, value: Any, attr: Optional[str], obj: Any, **kwargs: Any) -> Any:
        return None if value is None else utc_iso(value)


class QueryBoolean(fields.Boolean):
    """A boolean query argument: ``true``/``false``/``1``/``0`` in any case, nothing else."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(truthy={"true", "1"}, falsy={"false", "0"}, **kwargs)

    def _deserialize(self, value: Any, attr: Optional[str], data: Any, **kwargs: Any) -> bool:
        # ASCII only: some non-ASCII letters lower-case to ASCII ones (the Kelvin sign to "k").
        if isinstance(value, str) and value.isascii():
            value = value.lower()
        return super()._deserialize(value, attr, data, **kwargs)


class QueryInteger(fields.Integer):
    """An integer query argument in plain decimal digits (``"1_0"``, ``" 7"`` or ``"1.0"`` are not).

    Values beyond 64 bits saturate at :data:`MAX_QUERY_INTEGER` instead of failing, so that a huge
    ``page`` is "past the last page" and a huge ``page_size`` is clamped like any other.
    """

    def _deserialize(self, value: Any, attr: Optional[str], data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str):
            return super()._deserialize(value, attr, data, **kwargs)
        if not _DECIMAL.fullmatch(value):
            raise self.make_error("invalid")
        digits = value.lstrip("-")
        number = int(digits) if len(digits) <= 19 else MAX_QUERY_INTEGER
        number = min(number, MAX_QUERY_INTEGER)
        return -number if value.startswith("-") else number


def _default_page_size() -> int:
    return int(current_app.config["COVERAGE_PAGE_SIZE"])


class PaginationQuerySchema(Schema):
    """``page`` and ``page_size`` of a paginated list; unknown arguments are ignored."""

    class Meta:
        unknown = EXCLUDE

    page = QueryInteger(
        load_default=1,
        validate=validate.Range(min=1),
        metadata={"description": "The page number (1 is the first page)."},
    )
    page_size = QueryInteger(
        load_default=_default_page_size,
        validate=validate.Range(min=1),
        metadata={
            "description": "Results per page. Defaults to the app's COVERAGE_PAGE_SIZE; larger values than "
            "its COVERAGE_MAX_PAGE_SIZE are clamped to it."
        },
    )


class UserListQuerySchema(PaginationQuerySchema):
    """Query arguments of ``users_list``."""

    activated = QueryBoolean(metadata={"description": "Only members whose membership is (not) activated."})
    is_admin = QueryBoolean(metadata={"description": "Only members who are (not) admins of the organization."})
    search = fields.String(
        validate=[validate.Length(max=MAX_SEARCH_LENGTH), _search_terms],
        metadata={
            "description": "Whitespace-separated terms; a member matches when every term is a "
            "case-insensitive substring of its username, name or email (% and _ match literally). "
            "Terms hold no control, format or line-separator characters.",
        },
    )


class OwnerPathSchema(Schema):
    """The ``{service}/{owner_username}`` path arguments of the v2 API."""

    service = ServiceField(required=True, metadata={"description": "The git hosting service."})
    owner_username = fields.String(
        required=True, metadata={"description": "The username of the owner (user or organization)."}
    )


class UserSchema(Schema):
    """A member of an organization, with the flags of the membership."""

    service = ServiceField(required=True)
    username = fields.String(required=True)
    name = fields.String(required=True, allow_none=True)
    activated = fields.Boolean(required=True)
    is_admin = fields.Boolean(required=True)
    email = fields.String(required=True, allow_none=True)


class PaginatedSchema(Schema):
    """The envelope of a page of a list; subclasses add ``results``."""

    count = fields.Integer(required=True, metadata={"description": "The number of results on all pages."})
    next = fields.String(
        required=True,
        allow_none=True,
        metadata={"format": "uri", "description": "The absolute URL of the next page (null on the last)."},
    )
    previous = fields.String(
        required=True,
        allow_none=True,
        metadata={"format": "uri", "description": "The absolute URL of the previous page (null on the first)."},
    )
    total_pages = fields.Integer(required=True, metadata={"description": "The number of pages (at least 1)."})


class PaginatedUserListSchema(PaginatedSchema):
    """A page of the members of an organization."""

    results = fields.List(fields.Nested(UserSchema), required=True)


class ErrorSchema(Schema):
    """Every error of the v2 API: a message, and the messages per field of a rejected argument."""

    detail = fields.String(required=True)
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))


# The coverage report of a commit: GET /{service}/{owner_username}/repos/{repo}/report/ (docs/upload.md).


class RepositoryPathSchema(OwnerPathSchema):
    """The ``{service}/{owner_username}/repos/{repo}`` path arguments of the v2 API."""

    repo = fields.String(required=True, metadata={"description": "The name of the repository."})


_SHA_RULE = validate.Regexp(r"\A[0-9a-fA-F]{7,64}\Z", error="Not a commit sha (7 to 64 hex digits).")
_SHA_PATTERN = "^[0-9a-fA-F]{7,64}$"


class CommitQuerySchema(Schema):
    """Which commit: ``sha``, else the tip of ``branch``, else the tip of the default branch."""

    class Meta:
        unknown = EXCLUDE

    sha = fields.String(
        validate=_SHA_RULE,
        metadata={
            "pattern": _SHA_PATTERN,
            "description": "A commit: its full sha or a unique prefix of at least 7 hex digits. Wins over branch.",
        },
    )
    branch = fields.String(
        validate=[validate.Length(min=1, max=255), _name_rule],
        metadata={
            "description": "The tip of this branch. Without sha and branch: the tip of the default branch. "
            "No control, format or line-separator characters.",
        },
    )


class ReportQuerySchema(CommitQuerySchema):
    """Query arguments of ``repos_report_retrieve``: which commit, which of its files, which flag."""

    path = fields.String(
        validate=[validate.Length(max=1024), _name_rule],
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


class FlagListQuerySchema(PaginationQuerySchema, CommitQuerySchema):
    """Query arguments of ``repos_flags_list``: a page, and the commit whose coverage is shown."""

    class Meta:
        unknown = EXCLUDE


class FlagSchema(Schema):
    """A flag of a repository and its coverage in the commit."""

    flag_name = fields.String(required=True, metadata={"description": "The flag, as uploads carry it."})
    coverage = fields.Function(
        lambda row: None if row.lines is None else Totals(row.lines, row.hits, row.misses, row.partials).coverage,
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


class PlainNested(fields.Nested):
    """A nested object its view gives as plain JSON values already: written as is, documented as nested.

    For totals, which ``totals_body`` (``blueprints/api.py``) alone makes, and a repository's author
    (``repository_body``): numbers, strings, booleans and the service (a ``str`` enum). Dumping them
    again field by field was most of the time of dumping a list.
    """

    # Field and Nested name the first argument differently (value, nested_obj): no signature fits both.
    def _serialize(self, nested_obj: Any, attr: Any, obj: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return nested_obj


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


# The uploads of a commit: GET /{service}/{owner_username}/repos/{repo}/commits/{sha}/uploads/.


class CommitPathSchema(RepositoryPathSchema):
    """The ``.../repos/{repo}/commits/{sha}`` path arguments of the v2 API."""

    sha = fields.String(required=True, metadata={"description": "The commit's sha, or a unique prefix of 7+."})


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

    def _flags(self, row: Any) -> list[str]:
        return sorted(row.flags.split(",")) if row.flags else []


class PaginatedUploadListSchema(PaginatedSchema):
    """A page of the uploads of a commit."""

    results = fields.List(fields.Nested(UploadSchema), required=True)


# Owners, repositories, commits, branches and pulls in Codecov's shapes (docs/api.md).


class OwnerSchema(Schema):
    """An owner (user or organization)."""

    service = ServiceField(required=True)
    username = fields.String(required=True)
    name = fields.String(required=True, allow_none=True)


class RepositoryListQuerySchema(PaginationQuerySchema):
    """Query arguments of ``repos_list``."""

    active = QueryBoolean(metadata={"description": "Only repositories that are (not) active."})
    names = fields.List(
        fields.String(validate=[validate.Length(min=1, max=255), _name_rule]),
        validate=validate.Length(max=100),
        metadata={"description": "Only the repositories of these names (case-insensitive); repeat it for more."},
    )
    search = fields.String(
        validate=[validate.Length(max=MAX_SEARCH_LENGTH), _name_rule],
        metadata={"description": "Only repositories whose name holds this text (case-insensitive)."},
    )


class RepositorySchema(Schema):
    """A repository, with the totals of the tip of its default branch (null before any upload)."""

    name = fields.String(required=True)
    private = fields.Boolean(required=True)
    updatestamp = UtcDateTime(required=True, metadata={"description": "Last changed (UTC)."})
    author = PlainNested(OwnerSchema, required=True, metadata={"description": "The owner."})
    language = fields.String(required=True, allow_none=True)
    branch = fields.String(required=True, metadata={"description": "The default branch."})
    active = fields.Boolean(required=True)
    activated = fields.Boolean(required=True)
    totals = PlainNested(CoverageTotalsSchema, required=True, allow_none=True)


class PaginatedRepositoryListSchema(PaginatedSchema):
    """A page of the repositories of an owner."""

    results = fields.List(PlainNested(RepositorySchema), required=True)


class CommitListQuerySchema(PaginationQuerySchema):
    """Query arguments of ``commits_list``."""

    branch = fields.String(
        validate=[validate.Length(min=1, max=255), _name_rule],
        metadata={"description": "Only the commits uploaded for this branch."},
    )


class CommitSchema(Schema):
    """A commit with the totals of its coverage."""

    commitid = fields.String(required=True, metadata={"description": "The commit's sha."})
    timestamp = UtcDateTime(required=True, metadata={"description": "When the commit was first seen (UTC)."})
    branch = fields.String(required=True, allow_none=True, metadata={"description": "The branch its uploads named."})
    totals = PlainNested(CoverageTotalsSchema, required=True)
    state = fields.String(
        required=True,
        validate=validate.OneOf(["complete", "pending"]),
        metadata={"description": "complete once coverage was uploaded, pending before."},
    )
    parent = fields.String(
        required=True, allow_none=True, metadata={"description": "The parent sha its uploader named, if any."}
    )


class CommitReportBodySchema(Schema):
    """The coverage report of a commit inside a commit: totals and files."""

    totals = PlainNested(CoverageTotalsSchema, required=True)
    files = fields.List(fields.Nested(FileReportSchema), required=True, metadata={"description": "By path."})


class CommitDetailSchema(CommitSchema):
    """A commit with its totals and its report."""

    report = fields.Nested(CommitReportBodySchema, required=True)


class PaginatedCommitListSchema(PaginatedSchema):
    """A page of the commits of a repository."""

    results = fields.List(fields.Nested(CommitSchema), required=True)


class BranchPathSchema(RepositoryPathSchema):
    """The path arguments of one branch."""

    name = fields.String(required=True, metadata={"description": "The branch name (may contain /)."})


class BranchSchema(Schema):
    """A branch of a repository."""

    name = fields.String(required=True)
    updatestamp = UtcDateTime(required=True, metadata={"description": "When its tip last moved (UTC)."})


class BranchDetailSchema(BranchSchema):
    """A branch with its tip commit."""

    head_commit = fields.Nested(CommitDetailSchema, required=True)


class PaginatedBranchListSchema(PaginatedSchema):
    """A page of the branches of a repository."""

    results = fields.List(fields.Nested(BranchSchema), required=True)


class PullPathSchema(RepositoryPathSchema):
    """The path arguments of one pull request."""

    pullid = QueryInteger(
        required=True,
        validate=validate.Range(min=1, max=MAX_PULLID),
        metadata={"description": "The pull request number."},
    )


class PullSchema(Schema):
    """A pull request with the totals of its base and head commits."""

    pullid = fields.Integer(required=True)
    base_totals = PlainNested(
        CoverageTotalsSchema, required=True, allow_none=True, metadata={"description": "Null without a base upload."}
    )
    head_totals = PlainNested(CoverageTotalsSchema, required=True)
    updatestamp = UtcDateTime(required=True, metadata={"description": "When its tip last moved (UTC)."})
    state = fields.String(
        required=True,
        validate=validate.OneOf(["open"]),
        metadata={"description": "Always open: the service does not learn when a pull is merged or closed."},
    )


class PaginatedPullListSchema(PaginatedSchema):
    """A page of the pull requests of a repository."""

    results = fields.List(fields.Nested(PullSchema), required=True)


# Totals, one file's report and the comparison of two commits (docs/api.md).


class TotalsQuerySchema(ReportQuerySchema):
    """Query arguments of ``repos_totals_retrieve``: which commit, which of its files, which flag."""

    flag = fields.String(
        validate=validate.Regexp(r"\A[A-Za-z0-9_.\-]{1,45}\Z", error="Not a flag (1 to 45 letters, digits, _ . -)."),
        metadata={
            "pattern": r"^[A-Za-z0-9_.\-]{1,45}$",
            "description": "Only the coverage of the uploads with this flag.",
        },
    )


class FileTotalsSchema(Schema):
    """One file of a commit with its totals."""

    name = fields.String(required=True, metadata={"description": "The path from the repository root."})
    totals = PlainNested(CoverageTotalsSchema, required=True)


class CommitTotalsReportSchema(Schema):
    """The totals of a commit (or of the files under ``path``), and each file's."""

    totals = PlainNested(CoverageTotalsSchema, required=True)
    files = fields.List(fields.Nested(FileTotalsSchema), required=True, metadata={"description": "By path."})
    commit_file_url = fields.String(required=True, metadata={"format": "uri"})


class FileReportPathSchema(RepositoryPathSchema):
    """The path arguments of one file's report."""

    path = fields.String(required=True, metadata={"description": "The file's path from the repository root."})


class CommitFileReportSchema(FileReportSchema):
    """One file of a commit with its totals and the state of each tracked line."""

    commit_sha = fields.String(required=True, metadata={"description": "The commit the coverage is of."})
    commit_file_url = fields.String(required=True, metadata={"format": "uri"})


class CompareQuerySchema(Schema):
    """Query arguments of ``repos_compare_retrieve``: two commits, or a pull request."""

    class Meta:
        unknown = EXCLUDE

    base = fields.String(validate=_SHA_RULE, metadata={"pattern": _SHA_PATTERN, "description": "The base commit."})
    head = fields.String(validate=_SHA_RULE, metadata={"pattern": _SHA_PATTERN, "description": "The head commit."})
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
    """Totals before and after; ``patch`` (the changed lines' totals) needs a diff: always null here."""

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
    has_diff = fields.Boolean(required=True, metadata={"description": "Always false: no diff is known."})
    stats = fields.Raw(required=True, allow_none=True, metadata={"description": "Always null: no diff is known."})
    change_summary = fields.Nested(ChangeSummarySchema, required=True)


class ComparisonSchema(Schema):
    """The coverage of a head commit compared with a base commit."""

    base_commit = fields.String(required=True)
    head_commit = fields.String(required=True)
    totals = fields.Nested(ComparedTotalsSchema, required=True)
    files = fields.List(fields.Nested(ComparedFileSchema), required=True, metadata={"description": "By path."})
    untracked = fields.List(
        fields.String(), required=True, metadata={"description": "Always empty: changed files need a diff."}
    )


# The settings of a repository: GET .../{provider}/{owner}/{repo}/settings (docs/legacy-api.md).


class SettingsOwnerSchema(Schema):
    """The owner of a repository, as the settings show it."""

    username = fields.String()
    name = fields.String(allow_none=True)
    service = ServiceField()
    service_id = fields.String(allow_none=True)
    avatar_url = fields.String(allow_none=True)
    updatestamp = UtcDateTime(allow_none=True)


class SettingsRepositorySchema(Schema):
    """A repository's settings, its upload and graph tokens included."""

    name = fields.String()
    private = fields.Boolean()
    active = fields.Boolean()
    activated = fields.Boolean()
    deleted = fields.Boolean()
    language = fields.String(allow_none=True)
    branch = fields.String(allow_none=True)
    upload_token = fields.String()
    image_token = fields.String()
    using_integration = fields.Boolean()
    bot_username = fields.String(allow_none=True)
    service_id = fields.String(allow_none=True)
    updatestamp = UtcDateTime(allow_none=True)


class SettingsSchema(Schema):
    """The settings of a repository (``repo``) and of its ``owner``."""

    owner = fields.Nested(SettingsOwnerSchema)
    repo = fields.Nested(SettingsRepositorySchema)


class ProviderField(fields.Field):
    """A service by its short name in the older API's URLs (``gh``, ``gl``, ``bb``, ``ghe``, ...)."""

    def _deserialize(self, value: Any, attr: Optional[str], data: Any, **kwargs: Any) -> ServiceEnum:
        service = SERVICE_BY_SHORT.get(value) if isinstance(value, str) else None
        if service is None:
            raise ValidationError(f"Unknown provider. Expected one of: {', '.join(SERVICE_BY_SHORT)}.")
        return service


class SettingsPathSchema(Schema):
    """The ``{provider}/{owner}/{repo}`` path arguments of the settings endpoint."""

    provider = ProviderField(required=True)
    owner = fields.String(required=True)
    repo = fields.String(required=True)


# The coverage trend of a branch: GET .../repos/{repo}/coverage/ (docs/api.md).


class QueryDateTime(fields.DateTime):
    """A date (``2026-01-31``) or an ISO 8601 time (a zone, ``Z`` included, is converted to UTC)."""

    def _deserialize(self, value: Any, attr: Optional[str], data: Any, **kwargs: Any) -> dt.datetime:
        if not isinstance(value, str) or not value.isascii() or len(value) > 40:
            raise self.make_error("invalid", input=value, obj_type="datetime")
        text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
        try:
            moment = (
                dt.datetime.fromisoformat(text)
                if len(text) > 10
                else dt.datetime.combine(dt.date.fromisoformat(text), dt.time())
            )
        except ValueError:
            raise self.make_error("invalid", input=value, obj_type="datetime") from None
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return moment


class CoverageTrendQuerySchema(PaginationQuerySchema):
    """Query arguments of ``repos_coverage_list``."""

    interval = fields.String(
        required=True,
        validate=validate.OneOf(["1d", "7d", "30d"]),
        metadata={"description": "The width of each bin: 1d (days), 7d (weeks from Monday) or 30d."},
    )
    branch = fields.String(
        validate=[validate.Length(min=1, max=255), _name_rule],
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
