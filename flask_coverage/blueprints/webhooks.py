"""``POST {COVERAGE_UPLOAD_URL_PREFIX}/webhooks/<service>``: the git hosts' pull-request webhooks
(flask_coverage.providers.webhooks), a blueprint of their own at the upload prefix, where they always were.

Answers are one line of text: 200 when a pull was updated, 202 when the event was understood and
there was nothing to update (another event, an unknown repository, a pull without uploads), 401 with
no signature, 403 with a wrong one, 404 for a service without a configured secret, 400 for a body
that is not a pull event's JSON, 413 past :data:`MAX_WEBHOOK_BYTES`. Nothing is stored before the
signature is checked; a refused signature is logged (without the header's value).
"""

from __future__ import annotations

import json
import logging
from typing import NoReturn

from flask import Blueprint, Response, current_app, request

from ..errors import CoverageError, InvalidInput
from ..http_errors import handle_errors
from ..identifiers import parse_service
from ..inflate import check_size
from ..providers.webhooks import pull_event, update_pull, verify, webhook_secret

log = logging.getLogger(__name__)

bp = Blueprint("coverage_webhooks", __name__)

#: The largest webhook body read (GitHub caps its payloads at 25 MB; a pull's event is a few KiB).
MAX_WEBHOOK_BYTES = 5 * 1024 * 1024


def _text(status: int, body: str) -> Response:
    return Response(body, status=status, mimetype="text/plain")


def _render_error(error: CoverageError) -> Response:
    # The service's own words (a body past the bound) as the refusal; a refusal made here is worded.
    message = f"Webhook refused: {error}." if isinstance(error, InvalidInput) else str(error)
    return _text(error.status, message + "\n")


handle_errors(bp, _render_error, describe=lambda error: f"{error.name}: {error.description}")


def fail(status: int, message: str) -> NoReturn:
    """Refuse the request with ``status`` and a one-line ``message``."""
    raise CoverageError(message, status=status)


@bp.route("/webhooks/<service>", methods=["POST"])
def webhook(service: str) -> Response:
    """Keep a pull's state, title, base and head as the provider says."""
    try:
        provider = parse_service(service)
    except ValueError:
        fail(404, f"Unknown service {service!r}.")
    secret = webhook_secret(provider, current_app.config)
    if secret is None:
        fail(404, f"No webhook is configured for {provider.value}.")
    check_size(request.content_length or 0, MAX_WEBHOOK_BYTES, "the webhook")
    body = request.stream.read(MAX_WEBHOOK_BYTES + 1)
    check_size(len(body), MAX_WEBHOOK_BYTES, "the webhook")
    try:
        verify(provider, request.headers, body, secret)
    except CoverageError as error:
        log.warning("a %s webhook was refused (%d): %s", provider.value, error.status, error)
        raise
    try:
        event = pull_event(provider, request.headers, json.loads(body))
    except ValueError as error:
        fail(400, f"Webhook refused: {error}." if "pull request" in str(error) else "Webhook refused: not JSON.")
    if event is None:
        return _text(202, "Ignored: not a pull request event.\n")
    slug, info = event
    if update_pull(provider, slug, info) is None:
        return _text(202, f"Ignored: no upload for pull {info.number} of {slug} yet.\n")
    return _text(200, f"Pull {info.number} of {slug}: {info.state}.\n")
