"""Owners, repositories, commits, branches and pulls in Codecov's shapes (docs/api.md)."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from marshmallow import Schema, fields, validate
from sqlalchemy import Row

from ..identifiers import (
    MAX_PULLID,
)
from ..lines import Totals
from ..queries.lists import REPOSITORY_FIELDS, TOTALS_FIELDS
from .common import PaginatedSchema, PaginationQuerySchema, RepositoryPathSchema, name_rule
from .fields import MAX_SEARCH_LENGTH, PlainNested, QueryBoolean, QueryInteger, ServiceField, UtcDateTime, utc_iso
from .report import CoverageTotalsSchema, FileReportSchema, totals_body


class OwnerSchema(Schema):
    """An owner (user or organization)."""

    service = ServiceField(required=True)
    username = fields.String(required=True)
    name = fields.String(required=True, allow_none=True)


class PaginatedOwnerListSchema(PaginatedSchema):
    """A page of the owners the caller has access to."""

    results = fields.List(fields.Nested(OwnerSchema), required=True)


class RepositoryListQuerySchema(PaginationQuerySchema):
    """Query arguments of ``repos_list``."""

    active = QueryBoolean(metadata={"description": "Only repositories that are (not) active."})
    names = fields.List(
        fields.String(validate=[validate.Length(min=1, max=255), name_rule]),
        validate=validate.Length(max=100),
        metadata={"description": "Only the repositories of these names (case-insensitive); repeat it for more."},
    )
    search = fields.String(
        validate=[validate.Length(max=MAX_SEARCH_LENGTH), name_rule],
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


def repository_body(row: Row) -> dict[str, Any]:
    """The :class:`RepositorySchema` body of a row of :func:`~flask_coverage.queries.lists.repository_rows`, as
    JSON values. Written by hand, not dumped: a list's items are written as they are (``PlainNested``), and
    dumping them field by field made the bodies 1.8x slower."""
    body = {name: getattr(row, name) for name in REPOSITORY_FIELDS}
    body["updatestamp"] = utc_iso(row.updatestamp)
    body["author"] = {"service": row.service, "username": row.username, "name": row.owner_name}
    body["totals"] = None if row.files is None else totals_body(Totals.of(row), row.files)
    return body


class PaginatedRepositoryListSchema(PaginatedSchema):
    """A page of the repositories of an owner."""

    results = fields.List(PlainNested(RepositorySchema), required=True)


class CommitListQuerySchema(PaginationQuerySchema):
    """Query arguments of ``commits_list``."""

    branch = fields.String(
        validate=[validate.Length(min=1, max=255), name_rule],
        metadata={"description": "Only the commits uploaded for this branch."},
    )


class CommitAuthorSchema(Schema):
    """A commit's author as its git history names it (no account of the service is known for it)."""

    username = fields.String(required=True, allow_none=True, metadata={"description": "Always null."})
    name = fields.String(required=True, metadata={"description": "The author's name in the commit."})


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
    message = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The commit's message, from the git mirror when there is one (else null)."},
    )
    author = PlainNested(
        CommitAuthorSchema,
        required=True,
        allow_none=True,
        metadata={"description": "Who wrote the commit, from the git mirror (else null)."},
    )

    def get_attribute(self, obj: Any, attr: str, default: Any) -> Any:
        """A stored commit (or a row of :func:`~flask_coverage.queries.lists.commit_rows`) by the body's names."""
        if attr == "commitid":
            return obj.sha
        if attr == "totals":
            return totals_body(Totals.of(obj), obj.files)
        if attr == "state":
            return "complete" if obj.version else "pending"
        if attr == "parent":
            return obj.parent_sha
        if attr == "author":
            return None if obj.author_name is None else {"username": None, "name": obj.author_name}
        return getattr(obj, attr)


class CommitReportBodySchema(Schema):
    """The coverage report of a commit inside a commit: totals and files."""

    totals = PlainNested(CoverageTotalsSchema, required=True)
    files = fields.List(fields.Nested(FileReportSchema), required=True, metadata={"description": "By path."})


class CommitDetailSchema(CommitSchema):
    """A commit with its totals and its report."""

    report = fields.Nested(CommitReportBodySchema, required=True)


class CommitYamlSchema(Schema):
    """The ``codecov.yml`` that applies to a commit (docs/pull-requests.md)."""

    source = fields.String(
        required=True,
        metadata={"description": "A path at the commit, `repository` (its stored YAML) or `defaults`."},
    )
    error = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Why the commit's own codecov.yml is ignored (invalid, unreadable), else null."},
    )
    yaml = fields.Dict(required=True, metadata={"description": "The settings, merged over the defaults."})


class FeedbackPendingSchema(Schema):
    """Feedback still owed for a commit."""

    due_at = UtcDateTime(required=True, allow_none=True, metadata={"description": "Null: waits for upload-complete."})
    attempts = fields.Integer(required=True)
    last_error = fields.String(required=True, allow_none=True)


class FeedbackSentSchema(Schema):
    """What was sent for one context (a status, or ``comment``)."""

    context = fields.String(required=True)
    state = fields.String(required=True, allow_none=True)
    description = fields.String(required=True, allow_none=True)
    check_run_id = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The GitHub check run showing the status; null for a commit status or the comment."},
    )
    sent_at = UtcDateTime(required=True, allow_none=True)
    error = fields.String(required=True, allow_none=True, metadata={"description": "The last error, if any."})
    error_at = UtcDateTime(required=True, allow_none=True)


class CommitFeedbackSchema(Schema):
    """A commit's statuses and comment as sent to the provider (docs/pull-requests.md)."""

    pending = fields.Nested(FeedbackPendingSchema, required=True, allow_none=True)
    sent = fields.List(fields.Nested(FeedbackSentSchema), required=True)


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
        validate=validate.OneOf(["open", "closed", "merged"]),
        metadata={"description": "As the provider's webhooks last said (docs/pull-requests.md); open until then."},
    )
    title = fields.String(
        required=True, allow_none=True, metadata={"description": "The provider's title; null until a webhook said."}
    )

    def get_attribute(self, obj: Any, attr: str, default: Any) -> Any:
        """A row of :func:`~flask_coverage.queries.lists.pull_rows` by the body's names."""
        columns = _PULL_TOTALS.get(attr)
        if columns is None:
            return getattr(obj, attr)
        files, *counts = columns(obj._mapping)
        return None if files is None else totals_body(Totals(*counts), files)


#: The columns of a row of ``pull_rows`` that ``base_totals`` and ``head_totals`` are made of.
_PULL_TOTALS = {
    f"{side}_totals": itemgetter(*(f"{side}_{name}" for name in TOTALS_FIELDS)) for side in ("base", "head")
}


class PaginatedPullListSchema(PaginatedSchema):
    """A page of the pull requests of a repository."""

    results = fields.List(fields.Nested(PullSchema), required=True)
