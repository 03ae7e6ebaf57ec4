"""``POST {COVERAGE_UPLOAD_URL_PREFIX}/webhooks/<service>``: the git hosts' pull-request webhooks
(flask_coverage.providers.webhooks) and their events about accounts (flask_coverage.sync.events),
a blueprint of their own at the upload prefix, where they always were.

Answers are one line of text: 200 when a pull was updated or an account event synced, 202 when the
event was understood and there was nothing to update (another event, an unknown repository, a pull
without uploads, a delivery received before, an account event about nothing known here or signed with
a repository's own secret, another event signed with GitLab's system hook secret), 401 with no
signature, 403 with a wrong one, 404 for a service not configured, 400 for a body that is not JSON (or
too deeply nested) or an event missing what it must say, 409 for an account event whose names collide
with stored ones, 413 past :data:`MAX_WEBHOOK_BYTES`.
The body is parsed to find the repository whose secret may sign it; nothing is stored before the
signature is checked; a refused signature is logged (without the header's value).
"""

from __future__ import annotations

import json
import logging
from typing import Any, NoReturn, Optional

from flask import Blueprint, Response, current_app, request
from sqlalchemy.exc import IntegrityError

from ..errors import CoverageError, InvalidInput
from ..feedback.outbox import recheck
from ..feedback.sender import wake
from ..http_errors import handle_errors
from ..identifiers import parse_service
from ..inflate import check_size
from ..models import Repository, ServiceEnum
from ..providers.webhooks import (
    ci_event,
    event_repository_name,
    first_delivery,
    pull_event,
    repository_secret,
    service_secret,
    system_hook_secret,
    takes_webhooks,
    update_pull,
    verify,
)
from ..queries.repositories import find_repository
from ..state import get_session
from ..sync.events import Ignored, account_event, apply_account_event

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
    """Keep a pull's state, title, base and head as the provider says; on a CI event, re-check the
    commit's feedback that waits for its CI; on an account event, sync what it says."""
    try:
        provider = parse_service(service)
    except ValueError:
        fail(404, f"Unknown service {service!r}.")
    if not takes_webhooks(provider, current_app.config):
        fail(404, f"No webhook is configured for {provider.value}.")
    check_size(request.content_length or 0, MAX_WEBHOOK_BYTES, "the webhook")
    body = request.stream.read(MAX_WEBHOOK_BYTES + 1)
    check_size(len(body), MAX_WEBHOOK_BYTES, "the webhook")
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):  # the decoder's depth is Python's recursion limit
        fail(400, "Webhook refused: not JSON.")
    if not isinstance(payload, dict):  # every host's event is an object (and a deep array may parse on 3.12+)
        fail(400, "Webhook refused: not JSON of an event (an object).")
    account = account_event(provider, request.headers, payload)
    # Who may sign: the service's secret, GitLab's system hook (accounts only), the repository the body names.
    named = event_repository_name(provider, payload)
    repository = find_repository(provider, *named) if named else None
    signers = {
        "service": service_secret(provider, current_app.config),
        "system hook": system_hook_secret(provider, current_app.config),
        "repository": repository and repository_secret(repository),
    }
    secrets = [(signer, secret) for signer, secret in signers.items() if secret]
    try:
        signed_by = secrets[verify(provider, request.headers, body, [secret for _, secret in secrets])][0]
    except CoverageError as error:
        log.warning("a %s webhook was refused (%d): %s", provider.value, error.status, error)
        raise
    if account is not None:
        if signed_by == "repository":
            return _text(202, "Ignored: an event about accounts counts only when signed with the service's secret.\n")
        if not first_delivery(provider, request.headers, body):
            return _text(202, "Ignored: this delivery was received before.\n")
        return _account_changed(provider, account, payload)
    if signed_by == "system hook":
        return _text(202, "Ignored: the system hook's secret signs events about accounts only.\n")
    sha = ci_event(provider, request.headers, payload)
    if sha is not None:
        if not first_delivery(provider, request.headers, body):
            return _text(202, "Ignored: this delivery was received before.\n")
        return _ci_changed(repository, sha)
    event = pull_event(provider, request.headers, payload)
    if event is None:
        return _text(202, "Ignored: not a pull request event.\n")
    slug, info = event
    if not first_delivery(provider, request.headers, body):
        return _text(202, "Ignored: this delivery was received before.\n")
    if update_pull(repository, info) is None:
        return _text(202, f"Ignored: no upload for pull {info.number} of {slug} yet.\n")
    return _text(200, f"Pull {info.number} of {slug}: {info.state}.\n")


def _account_changed(provider: ServiceEnum, event: tuple[str, str], payload: dict[str, Any]) -> Response:
    """An account event, in one transaction with its delivery: all of it, or nothing
    (docs/sign-in.md#webhooks-keep-it-current)."""
    session = get_session()
    try:
        done = apply_account_event(provider, event, payload)
        session.commit()
    except Ignored as ignored:
        session.rollback()
        return _text(202, f"Ignored: {ignored}.\n")
    except IntegrityError:
        session.rollback()
        fail(409, "Webhook refused: the event's names collide with names stored here.")
    except BaseException:
        session.rollback()
        raise
    return _text(200, f"Synced: {done}.\n")


def _ci_changed(repository: Optional[Repository], sha: str) -> Response:
    """A commit's CI changed: its feedback waiting on the CI is re-checked now (docs/pull-requests.md,
    "Delivery")."""
    if repository is None or not recheck(repository, sha):
        return _text(202, f"Ignored: no feedback of {sha[:12]} waits.\n")
    wake(current_app._get_current_object())  # type: ignore[attr-defined]
    return _text(200, f"The CI of {sha[:12]} is checked again.\n")
