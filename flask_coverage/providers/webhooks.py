"""Pull-request webhooks: who sent them, what they say, and the pull they keep current.

A git host calls ``POST {COVERAGE_UPLOAD_URL_PREFIX}/webhooks/<service>`` (blueprints/webhooks.py) when
a pull request opens, changes, closes or merges (docs/pull-requests.md#webhooks):

- GitHub (and Enterprise): event ``pull_request``, signed with HMAC-SHA256 of the body in
  ``X-Hub-Signature-256: sha256=<hex>``;
- GitLab (and self-managed): ``Merge Request Hook``, the secret itself in ``X-Gitlab-Token``;
- Bitbucket Cloud: ``pullrequest:*`` events, signed like GitHub's in ``X-Hub-Signature``.

A repository's hook is signed with that repository's own secret (:func:`repository_secret`), derived
from a key of the service and a stored nonce, so one tenant's secret opens no other repository. The one
secret that signs every repository's events is a GitHub App's (``COVERAGE_PROVIDERS[service]
["webhook_secret"]`` beside an ``app_id``), or a provider's ``webhook_secret`` when the operator opts in
with ``COVERAGE_WEBHOOK_SHARED_SECRET`` (:func:`service_secret`). Every comparison is constant-time. A
delivery acted on is remembered by its delivery id and its body's digest for :data:`DELIVERY_WINDOW`, so
its replay changes nothing (:func:`first_delivery`). A pull the service has no upload for is not
created: its first upload creates it, and the next webhook (or the feedback's own look at the provider)
fills it in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from typing import Any, Optional

import sqlalchemy as sa
from flask import current_app

from ..errors import Forbidden, InvalidInput, Unauthorized
from ..identifiers import check_branch, normalize_sha, refused_character, without_refused
from ..models import Commit, Pull, Repository, ServiceEnum, WebhookDelivery, WebhookSecret, utcnow
from ..state import dialect_insert, execute, get_session
from . import PullInfo

_GITHUB = (ServiceEnum.github, ServiceEnum.github_enterprise)
_GITLAB = (ServiceEnum.gitlab, ServiceEnum.gitlab_enterprise)
_GITLAB_STATES = {"opened": "open", "reopened": "open", "locked": "open", "merged": "merged", "closed": "closed"}
_BITBUCKET_STATES = {"OPEN": "open", "MERGED": "merged", "DECLINED": "closed", "SUPERSEDED": "closed"}
#: The header naming a delivery, by service (Bitbucket Server sends no webhooks here).
_DELIVERY_HEADERS = {
    **dict.fromkeys(_GITHUB, "X-GitHub-Delivery"),
    **dict.fromkeys(_GITLAB, "X-Gitlab-Event-UUID"),
    ServiceEnum.bitbucket: "X-Request-UUID",
}

#: How long a delivery acted on is remembered (GitHub lets a delivery be redelivered for three days).
DELIVERY_WINDOW = dt.timedelta(days=7)
_SECRET_SALT = b"flask-coverage webhook secret\x00"


def _settings(service: ServiceEnum, config: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    settings = (config.get("COVERAGE_PROVIDERS") or {}).get(service.value)
    return settings if isinstance(settings, Mapping) and service in _DELIVERY_HEADERS else None


def takes_webhooks(service: ServiceEnum, config: Mapping[str, Any]) -> bool:
    """Whether the service's webhooks are served: it is configured in ``COVERAGE_PROVIDERS`` and sends some."""
    return _settings(service, config) is not None


def service_secret(service: ServiceEnum, config: Mapping[str, Any]) -> Optional[str]:
    """The one secret that signs every repository's events, or ``None``: a GitHub App's ``webhook_secret``
    (the App's, which only the operator knows), or any provider's when ``COVERAGE_WEBHOOK_SHARED_SECRET``
    is set (unsafe with several tenants: whoever has it signs events for every repository)."""
    settings = _settings(service, config) or {}
    secret = settings.get("webhook_secret")
    if not secret or not (settings.get("app_id") is not None or config.get("COVERAGE_WEBHOOK_SHARED_SECRET")):
        return None
    return str(secret)


def system_hook_secret(service: ServiceEnum, config: Mapping[str, Any]) -> Optional[str]:
    """GitLab's ``system_hook_secret``: the secret token of the instance's system hook (and of group
    hooks the operator sets up), which signs account events only (docs/sign-in.md), never a pull's."""
    secret = (_settings(service, config) or {}).get("system_hook_secret") if service in _GITLAB else None
    return str(secret) if secret else None


def _webhook_key(config: Mapping[str, Any]) -> Optional[bytes]:
    key = config.get("COVERAGE_WEBHOOK_KEY") or config.get("SECRET_KEY")
    return (key if isinstance(key, bytes) else str(key).encode()) if key else None


def _derive(key: bytes, repository: Repository, nonce: str) -> str:
    return hmac.new(key, _SECRET_SALT + f"{repository.id}\x00{nonce}".encode(), hashlib.sha256).hexdigest()[:40]


def repository_secret(repository: Repository) -> Optional[str]:
    """The secret of ``repository``'s own webhooks: HMAC-SHA256 of its id and nonce under
    ``COVERAGE_WEBHOOK_KEY`` (else ``SECRET_KEY``); ``None`` before its first nonce (:func:`new_nonce`)
    or without a key. Nothing stored reveals it: the nonce alone opens nothing."""
    key = _webhook_key(current_app.config)
    query = sa.select(WebhookSecret.nonce).where(WebhookSecret.repository_id == repository.id)
    nonce = execute(query).scalar_one_or_none()
    return _derive(key, repository, nonce) if key is not None and nonce is not None else None


def new_nonce(repository: Repository) -> str:
    """Give ``repository`` a new nonce (not committed) and return its new webhook secret; the old one
    stops working. :class:`InvalidInput` when the app has no key to derive secrets with."""
    key = _webhook_key(current_app.config)
    if key is None:
        raise InvalidInput("webhook secrets need COVERAGE_WEBHOOK_KEY or SECRET_KEY in the app's config")
    session = get_session()
    row = session.get(WebhookSecret, repository.id)
    nonce = secrets.token_hex(16)
    if row is None:
        session.add(WebhookSecret(repository_id=repository.id, nonce=nonce))
    else:
        row.nonce, row.created_at = nonce, utcnow()
    return _derive(key, repository, nonce)


def event_repository_name(service: ServiceEnum, payload: Any) -> Optional[tuple[str, str]]:
    """The ``(owner, name)`` of the repository an event's body names (a ping's too), or ``None``."""
    try:
        holder = payload["project"] if service in _GITLAB else payload["repository"]
        slug = holder["path_with_namespace" if service in _GITLAB else "full_name"]
    except (KeyError, TypeError):
        return None
    owner, _, name = slug.rpartition("/") if isinstance(slug, str) else ("", "", "")
    return (owner, name) if owner else None


def verify(service: ServiceEnum, headers: Any, body: bytes, candidates: list[str]) -> int:
    """The index in ``candidates`` of the secret that made the request's signature (or token);
    :class:`Unauthorized` when the request carries none, :class:`Forbidden` when no secret made it."""
    if service in _GITLAB:
        given = headers.get("X-Gitlab-Token")
        if not given:
            raise Unauthorized("the webhook carries no X-Gitlab-Token")
        expected, refusal = candidates, "the webhook's X-Gitlab-Token is wrong"
    else:
        name = "X-Hub-Signature-256" if service in _GITHUB else "X-Hub-Signature"
        given = headers.get(name)
        if not given:
            raise Unauthorized(f"the webhook carries no {name}")
        expected = ["sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest() for secret in candidates]
        refusal = f"the webhook's {name} does not match its body"
    # Every candidate compared (a list, not a short-circuit), each in constant time.
    matches = [hmac.compare_digest(given.encode(), value.encode()) for value in expected]
    if not any(matches):
        raise Forbidden(refusal)
    return matches.index(True)


def first_delivery(service: ServiceEnum, headers: Any, body: bytes) -> bool:
    """Remember this delivery (not committed: with the pull's update); ``False`` when its delivery id or
    its body was acted on within :data:`DELIVERY_WINDOW`, on any worker. The body's digest catches a
    replay under a new delivery id, which no signature covers."""
    now = utcnow()
    execute(sa.delete(WebhookDelivery).where(WebhookDelivery.received_at < now - DELIVERY_WINDOW))
    delivery: Optional[str] = str(headers.get(_DELIVERY_HEADERS[service]) or "").strip()[:100]
    if not delivery or refused_character(delivery) is not None:  # none, or one no database should keep
        delivery = None
    digest = hashlib.sha256(body).hexdigest()
    seen = WebhookDelivery.digest == digest
    if delivery is not None:
        seen = sa.or_(seen, WebhookDelivery.delivery == delivery)
    if execute(sa.select(WebhookDelivery.id).where(WebhookDelivery.service == service, seen)).first() is not None:
        return False
    row = {"service": service, "delivery": delivery, "digest": digest, "received_at": now}
    # Another worker may have taken it between the two statements: then nothing is inserted.
    return bool(execute(dialect_insert(WebhookDelivery).values(row).on_conflict_do_nothing()).rowcount)


def pull_event(service: ServiceEnum, headers: Any, payload: Any) -> Optional[tuple[str, PullInfo]]:
    """``("owner/name", the pull as the event says)``, or ``None`` for an event about something else;
    :class:`InvalidInput` for a pull event missing what it must say, or whose branches or shas break
    identifiers.py's rules. The title is display text: the characters those rules refuse are dropped
    from it (:func:`~flask_coverage.identifiers.without_refused`), so the rest of the event still counts."""
    try:
        if service in _GITHUB:
            if headers.get("X-GitHub-Event") != "pull_request":
                return None
            pull = payload["pull_request"]
            state = "merged" if pull.get("merged") or pull.get("merged_at") else pull["state"]
            info = _pull_info(
                int(pull["number"]),
                "open" if state == "open" else "merged" if state == "merged" else "closed",
                str(pull["title"]),
                str(pull["base"]["ref"]),
                str(pull["base"]["sha"]),
                str(pull["head"]["ref"]),
                str(pull["head"]["sha"]),
            )
            return str(payload["repository"]["full_name"]), info
        if service in _GITLAB:
            if payload.get("object_kind") != "merge_request":
                return None
            attributes = payload["object_attributes"]
            info = _pull_info(
                int(attributes["iid"]),
                _GITLAB_STATES.get(attributes["state"], "closed"),
                str(attributes["title"]),
                str(attributes["target_branch"]),
                "",  # the event does not name the target's sha
                str(attributes["source_branch"]),
                str((attributes.get("last_commit") or {}).get("id") or ""),
            )
            return str(payload["project"]["path_with_namespace"]), info
        if not str(headers.get("X-Event-Key", "")).startswith("pullrequest:"):
            return None
        pull = payload["pullrequest"]
        info = _pull_info(
            int(pull["id"]),
            _BITBUCKET_STATES.get(pull["state"], "closed"),
            str(pull["title"]),
            str(pull["destination"]["branch"]["name"]),
            str(pull["destination"]["commit"]["hash"]),
            str(pull["source"]["branch"]["name"]),
            str(pull["source"]["commit"]["hash"]),
        )
        return str(payload["repository"]["full_name"]), info
    except InvalidInput:
        raise
    except (KeyError, TypeError, ValueError, AttributeError):
        raise InvalidInput("the webhook's pull request is missing a field it must have") from None


def ci_event(service: ServiceEnum, headers: Any, payload: Any) -> Optional[str]:
    """The sha of the commit whose CI an event says changed (GitHub's ``status`` and completed
    ``check_suite``, GitLab's pipeline events, Bitbucket's ``repo:commit_status_*``), or ``None`` for
    another event; :class:`InvalidInput` for such an event without a commit sha."""
    try:
        if service in _GITHUB:
            event = headers.get("X-GitHub-Event")
            if event == "status":
                sha = payload["sha"]
            elif event == "check_suite" and payload.get("action") == "completed":
                sha = payload["check_suite"]["head_sha"]
            else:
                return None
        elif service in _GITLAB:
            if payload.get("object_kind") != "pipeline":
                return None
            sha = payload["object_attributes"]["sha"]
        elif str(headers.get("X-Event-Key", "")).startswith("repo:commit_status_"):
            sha = payload["commit_status"]["commit"]["hash"]
        else:
            return None
    except (KeyError, TypeError, AttributeError):
        raise InvalidInput("the webhook's CI event names no commit") from None
    found = normalize_sha(str(sha))
    if found is None:
        raise InvalidInput("the webhook's CI event names no commit")
    return found


def _pull_info(number: int, state: Any, title: str, base: str, base_sha: str, head: str, head_sha: str) -> PullInfo:
    """A :class:`PullInfo` by identifiers.py's rules (InvalidInput for a bad branch or sha; a sha may be
    absent, or the 12-digit prefix Bitbucket names its commits by)."""
    shas = [normalize_sha(sha, prefix=True) if sha else "" for sha in (base_sha, head_sha)]
    for given, sha in zip((base_sha, head_sha), shas):
        if sha is None:
            raise InvalidInput(f"the webhook's pull request names {given[:80]!r}, which is not a commit sha")
    base, head = check_branch(base), check_branch(head)
    return PullInfo(number, state, without_refused(title), base, shas[0] or "", head, shas[1] or "")


def update_pull(repository: Optional[Repository], info: PullInfo) -> Optional[Pull]:
    """Store the provider's word on the pull (state, title, target branch and sha; the head when its
    commit has coverage here); ``None`` if the service has no upload for that pull of ``repository``."""
    session = get_session()
    pull = (
        session.scalars(
            sa.select(Pull).where(Pull.repository_id == repository.id, Pull.pullid == info.number).with_for_update()
        ).first()
        if repository is not None
        else None
    )
    if pull is None:
        return None
    pull.state, pull.title, pull.base_branch = info.state, info.title[:255], info.base_branch[:255]
    if info.base_sha:
        pull.base_sha = info.base_sha[:64]
    if info.head_sha:
        head = session.scalars(
            sa.select(Commit.id).where(Commit.repository_id == pull.repository_id, Commit.sha == info.head_sha)
        ).first()
        if head is not None:
            pull.head_commit_id = head
    session.commit()
    return pull
