"""The settings of a repository: ``GET .../{provider}/{owner}/{repo}/settings`` (docs/legacy-api.md)."""

from __future__ import annotations

from marshmallow import Schema, fields

from .fields import ProviderField, ServiceField, UtcDateTime


class SettingsOwnerSchema(Schema):
    """The owner of a repository, as the settings show it."""

    username = fields.String()
    name = fields.String(allow_none=True)
    service = ServiceField()
    service_id = fields.String(allow_none=True)
    avatar_url = fields.String(allow_none=True)
    updatestamp = UtcDateTime(allow_none=True)
    yaml = fields.String(allow_none=True)


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
    yaml = fields.String(allow_none=True)


class SettingsSchema(Schema):
    """The settings of a repository (``repo``) and of its ``owner``."""

    owner = fields.Nested(SettingsOwnerSchema)
    repo = fields.Nested(SettingsRepositorySchema)


class SettingsPathSchema(Schema):
    """The ``{provider}/{owner}/{repo}`` path arguments of the settings endpoint."""

    provider = ProviderField(required=True)
    owner = fields.String(required=True)
    repo = fields.String(required=True)
