"""Exceptions raised by the Python API. Each message is meant for the user who caused it.

Each class carries the HTTP ``status`` a blueprint answers it with, so a view lets a service
error through and the blueprint's one error handler (:func:`flask_coverage.http_errors.handle_errors`)
renders it in the blueprint's format.
"""

from __future__ import annotations

from typing import Any, Optional


class CoverageError(Exception):
    """Base class of every error the service raises on purpose.

    ``status`` (the class's, or one given) is its HTTP status; ``headers`` are added to the answer;
    ``errors`` are the messages per field of a refused argument.
    """

    status = 400

    def __init__(
        self,
        message: str = "",
        *,
        status: Optional[int] = None,
        headers: Optional[dict[str, str]] = None,
        errors: Optional[dict[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        self.headers = headers or {}
        self.errors = errors


class InvalidInput(CoverageError, ValueError):
    """An argument the caller gave is not acceptable (empty name, unknown service, ...)."""


class Unauthorized(CoverageError):
    """Missing, malformed or refused credentials."""

    status = 401


class Forbidden(CoverageError):
    """Credentials that are good but not enough for what was asked."""

    status = 403


class NotFound(CoverageError, LookupError):
    """A user, organization, repository or commit that does not exist."""

    status = 404


class AlreadyExists(CoverageError):
    """Creating something whose name is already taken."""

    status = 409


class ReportError(InvalidInput):
    """A coverage report that cannot be read: empty, truncated, unknown format or hostile."""


class ReportTooLarge(ReportError):
    """A report (or its decompressed form) over the configured size limit."""

    status = 413
