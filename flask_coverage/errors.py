"""Exceptions raised by the Python API. Each message is meant for the user who caused it."""

from __future__ import annotations


class CoverageError(Exception):
    """Base class of every error the service raises on purpose."""


class InvalidInput(CoverageError, ValueError):
    """An argument the caller gave is not acceptable (empty name, unknown service, ...)."""


class NotFound(CoverageError, LookupError):
    """A user, organization, repository or commit that does not exist."""


class AlreadyExists(CoverageError):
    """Creating something whose name is already taken."""


class ReportError(InvalidInput):
    """A coverage report that cannot be read: empty, truncated, unknown format or hostile."""


class ReportTooLarge(ReportError):
    """A report (or its decompressed form) over the configured size limit."""
