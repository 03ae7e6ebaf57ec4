"""One error model for the extension's blueprints: each registers :func:`handle_errors` once.

A view raises a :class:`~flask_coverage.errors.CoverageError` (or lets one from the service layer
through); it carries its status. :func:`handle_errors` answers it, Werkzeug's own HTTP errors and
database outages (a 503 with ``Retry-After``, :mod:`flask_coverage.outage`) with the one ``render``
function the blueprint gives, so every answer of a blueprint has the same format and no view
translates exceptions by hand.
"""

from __future__ import annotations

from typing import Any, Callable

from flask import Blueprint, Response, jsonify
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from .errors import CoverageError
from .outage import handle_database_outage

#: Builds a blueprint's error answer for ``error``; ``error.status`` (unless the answer has a status of its
#: own: a host hook's redirect) and ``error.headers`` are set after it.
Render = Callable[[CoverageError], Response]


def detail_json(error: CoverageError) -> Response:
    """``{"detail": message}``, plus ``errors`` per field when the error names them (the v2 API's format)."""
    body: dict[str, Any] = {"detail": str(error)}
    if error.errors:
        body["errors"] = error.errors
    return jsonify(body)


def http_exception_message(error: HTTPException) -> str:
    """The message of a Werkzeug HTTP error: its description (its name without one)."""
    return error.description or error.name


def handle_errors(
    bp: Blueprint, render: Render, *, describe: Callable[[HTTPException], str] = http_exception_message
) -> None:
    """Answer every error of ``bp``'s views with ``render``: service errors, HTTP errors and outages.

    A :class:`CoverageError` is answered with its ``status`` and ``headers``; a Werkzeug
    :class:`~werkzeug.exceptions.HTTPException` as a ``CoverageError`` with its code and the message
    ``describe(error)`` (a 405 keeps its ``Allow``); a database outage as a 503 (see
    :func:`flask_coverage.outage.handle_database_outage`).
    """

    def answer(error: CoverageError) -> Response:
        response = render(error)
        if response.status_code == 200:
            response.status_code = error.status
        response.headers.update(error.headers)
        return response

    def http_error(error: HTTPException) -> Response:
        headers = {}
        if isinstance(error, MethodNotAllowed) and error.valid_methods:
            headers["Allow"] = ", ".join(error.valid_methods)
        return answer(CoverageError(describe(error), status=error.code or 500, headers=headers))

    bp.register_error_handler(CoverageError, answer)
    bp.register_error_handler(HTTPException, http_error)
    handle_database_outage(bp, lambda message: answer(CoverageError(message, status=503)))
