"""The members of an organization: ``GET /{service}/{owner_username}/users/`` and one member,
``GET``/``PATCH .../users/{username}/``."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from .common import OwnerPathSchema, PaginatedSchema, PaginationQuerySchema, name_rule
from .fields import MAX_SEARCH_LENGTH, JsonBoolean, QueryBoolean, ServiceField


def _search_terms(value: str) -> None:
    # Whitespace (tabs and newlines included) separates the terms; the terms follow the name rule.
    name_rule("".join(value.split()))


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


class UserSchema(Schema):
    """A member of an organization, with the flags of the membership."""

    service = ServiceField(required=True)
    username = fields.String(required=True)
    name = fields.String(required=True, allow_none=True)
    activated = fields.Boolean(required=True)
    is_admin = fields.Boolean(required=True)
    email = fields.String(required=True, allow_none=True)


class PaginatedUserListSchema(PaginatedSchema):
    """A page of the members of an organization."""

    results = fields.List(fields.Nested(UserSchema), required=True)


class UserPathSchema(OwnerPathSchema):
    """The ``{service}/{owner_username}/users/{username}`` path arguments of the v2 API."""

    username = fields.String(required=True, metadata={"description": "The username of the member."})


class UserActivationSchema(Schema):
    """What ``users_partial_update`` changes: the member's activation (JSON booleans only)."""

    activated = JsonBoolean(
        required=True,
        metadata={"description": "Activate (true) or deactivate (false) the membership."},
    )
