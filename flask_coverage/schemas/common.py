"""What every v2 endpoint's schemas build on: pagination in and out, the error body, and the path and
query arguments that name an owner, a repository and a commit.
"""

from __future__ import annotations

from flask import current_app
from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate

from ..identifiers import (
    SHA_PREFIX_PATTERN,
    refusal,
    refused_character,
)
from .fields import QueryInteger, ServiceField


def name_rule(value: str) -> None:
    """Refuse a name holding a character that the name rule (:mod:`flask_coverage.identifiers`) refuses."""
    # No stored name holds such a character, so it cannot be part of a match (PostgreSQL refuses NUL).
    char = refused_character(value)
    if char is not None:
        raise ValidationError(refusal("A name", char) + ".")


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


class PageEnvelopeSchema(Schema):
    """Where a page is among the pages: of a list (:class:`PaginatedSchema`), or of the files of a
    comparison or of a commit's totals."""

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


class PaginatedSchema(PageEnvelopeSchema):
    """The envelope of a page of a list; subclasses add ``results``."""


class ErrorSchema(Schema):
    """Every error of the v2 API: a message, and the messages per field of a rejected argument."""

    detail = fields.String(required=True)
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))


class ServicePathSchema(Schema):
    """The ``{service}`` path argument of the v2 API."""

    service = ServiceField(required=True, metadata={"description": "The git hosting service."})


class OwnerPathSchema(ServicePathSchema):
    """The ``{service}/{owner_username}`` path arguments of the v2 API."""

    owner_username = fields.String(
        required=True, metadata={"description": "The username of the owner (user or organization)."}
    )


class RepositoryPathSchema(OwnerPathSchema):
    """The ``{service}/{owner_username}/repos/{repo}`` path arguments of the v2 API."""

    repo = fields.String(required=True, metadata={"description": "The name of the repository."})


#: A commit's sha or a prefix of one, as a query argument (the rule of :mod:`flask_coverage.identifiers`).
SHA_RULE = validate.Regexp(rf"\A{SHA_PREFIX_PATTERN}\Z", error="Not a commit sha (7 to 64 hex digits).")
SHA_PATTERN = f"^{SHA_PREFIX_PATTERN}$"


class CommitQuerySchema(Schema):
    """Which commit: ``sha``, else the tip of ``branch``, else the tip of the default branch."""

    class Meta:
        unknown = EXCLUDE

    sha = fields.String(
        validate=SHA_RULE,
        metadata={
            "pattern": SHA_PATTERN,
            "description": "A commit: its full sha or a unique prefix of at least 7 hex digits. Wins over branch.",
        },
    )
    branch = fields.String(
        validate=[validate.Length(min=1, max=255), name_rule],
        metadata={
            "description": "The tip of this branch. Without sha and branch: the tip of the default branch. "
            "No control, format or line-separator characters.",
        },
    )


class CommitPathSchema(RepositoryPathSchema):
    """The ``.../repos/{repo}/commits/{sha}`` path arguments of the v2 API."""

    sha = fields.String(required=True, metadata={"description": "The commit's sha, or a unique prefix of 7+."})
