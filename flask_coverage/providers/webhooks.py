"""Pull-request webhooks: who sent them, what they say, and the pull they keep current.

A git host calls ``POST {COVERAGE_UPLOAD_URL_PREFIX}/webhooks/<service>`` (blueprints/upload) when a
pull request opens, changes, closes or merges; the secret is ``COVERAGE_PROVIDERS[service]
["webhook_secret"]`` (docs/pull-requests.md#webhooks):

- GitHub (and Enterprise): event ``pull_request``, signed with HMAC-SHA256 of the body in
  ``X-Hub-Signature-256: sha256=<hex>``;
- GitLab (and self-managed): ``Merge Request Hook``, the secret itself in ``X-Gitlab-Token``;
- Bitbucket Cloud: ``pullrequest:*`` events, signed like GitHub's in ``X-Hub-Signature``.

Every comparison is constant-time. A pull the service has no upload for is not created: its first
upload creates it, and the next webhook (or the feedback's own look at the provider) fills it in.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any, Optional

import sqlalchemy as sa

from ..errors import Forbidden, Unauthorized
from ..models import Commit, Pull, Repository, ServiceEnum
from ..queries.repositories import find_repository
from ..state import get_session
from . import PullInfo

_GITHUB = (ServiceEnum.github, ServiceEnum.github_enterprise)
_GITLAB = (ServiceEnum.gitlab, ServiceEnum.gitlab_enterprise)
_GITLAB_STATES = {"opened": "open", "reopened": "open", "locked": "open", "merged": "merged", "closed": "closed"}
_BITBUCKET_STATES = {"OPEN": "open", "MERGED": "merged", "DECLINED": "closed", "SUPERSEDED": "closed"}


def webhook_secret(service: ServiceEnum, config: Mapping[str, Any]) -> Optional[str]:
    """The service's webhook secret, or ``None`` when none is configured."""
    settings = (config.get("COVERAGE_PROVIDERS") or {}).get(service.value)
    secret = settings.get("webhook_secret") if isinstance(settings, Mapping) else None
    return str(secret) if secret and service != ServiceEnum.bitbucket_server else None


def verify(service: ServiceEnum, headers: Any, body: bytes, secret: str) -> None:
    """:class:`Unauthorized` when the request carries no signature (or token), :class:`Forbidden`
    when it is wrong."""
    if service in _GITLAB:
        given = headers.get("X-Gitlab-Token")
        if not given:
            raise Unauthorized("the webhook carries no X-Gitlab-Token")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            raise Forbidden("the webhook's X-Gitlab-Token is wrong")
        return
    name = "X-Hub-Signature-256" if service in _GITHUB else "X-Hub-Signature"
    given = headers.get(name)
    if not given:
        raise Unauthorized(f"the webhook carries no {name}")
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise Forbidden(f"the webhook's {name} does not match its body")


def pull_event(service: ServiceEnum, headers: Any, payload: Any) -> Optional[tuple[str, PullInfo]]:
    """``("owner/name", the pull as the event says)``, or ``None`` for an event about something else;
    ``ValueError`` for a pull event missing what it must say."""
    try:
        if service in _GITHUB:
            if headers.get("X-GitHub-Event") != "pull_request":
                return None
            pull = payload["pull_request"]
            state = "merged" if pull.get("merged") or pull.get("merged_at") else pull["state"]
            info = PullInfo(
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
            info = PullInfo(
                int(attributes["iid"]),
                _GITLAB_STATES.get(attributes["state"], "closed"),  # type: ignore[arg-type]
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
        info = PullInfo(
            int(pull["id"]),
            _BITBUCKET_STATES.get(pull["state"], "closed"),  # type: ignore[arg-type]
            str(pull["title"]),
            str(pull["destination"]["branch"]["name"]),
            str(pull["destination"]["commit"]["hash"]),
            str(pull["source"]["branch"]["name"]),
            str(pull["source"]["commit"]["hash"]),
        )
        return str(payload["repository"]["full_name"]), info
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ValueError("the webhook's pull request is missing a field it must have") from None


def update_pull(service: ServiceEnum, slug: str, info: PullInfo) -> Optional[Pull]:
    """Store the provider's word on the pull (state, title, target branch and sha; the head when its
    commit has coverage here); ``None`` if the service has no upload for that pull of that repository."""
    owner, _, name = slug.rpartition("/")
    repository: Optional[Repository] = find_repository(service, owner, name) if owner else None
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
