"""The field types the schemas share: query integers and booleans that parse as the API documents them,
UTC times, the service, and nested bodies written as they are.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Optional

from marshmallow import ValidationError, fields

from ..errors import InvalidInput
from ..identifiers import (
    parse_service,
)
from ..models import SERVICE_BY_SHORT, ServiceEnum, utc_iso

#: Integers in query strings saturate here; a page this far is past the end anyway.
MAX_QUERY_INTEGER = 2**63 - 1


#: The longest ``search`` accepted: enough for any name or email, short enough for a cheap query.
MAX_SEARCH_LENGTH = 200


_DECIMAL = re.compile(r"-?[0-9]+")


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


class JsonBoolean(fields.Boolean):
    """A boolean of a JSON body: ``true`` or ``false`` only (not ``1``, ``"yes"``)."""

    def _deserialize(self, value: Any, attr: Optional[str], data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


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


class PlainNested(fields.Nested):
    """A nested object its view gives as plain JSON values already: written as is, documented as nested.

    For totals, which :func:`~flask_coverage.schemas.report.totals_body` alone makes, and a repository and
    its author (:func:`~flask_coverage.schemas.repos.repository_body`): numbers, strings, booleans and the
    service (a ``str`` enum). Dumping them again field by field was most of the time of dumping a list.
    """

    # Field and Nested name the first argument differently (value, nested_obj): no signature fits both.
    def _serialize(self, nested_obj: Any, attr: Any, obj: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return nested_obj


class ProviderField(fields.Field):
    """A service by its short name in the older API's URLs (``gh``, ``gl``, ``bb``, ``ghe``, ...)."""

    def _deserialize(self, value: Any, attr: Optional[str], data: Any, **kwargs: Any) -> ServiceEnum:
        service = SERVICE_BY_SHORT.get(value) if isinstance(value, str) else None
        if service is None:
            raise ValidationError(f"Unknown provider. Expected one of: {', '.join(SERVICE_BY_SHORT)}.")
        return service
