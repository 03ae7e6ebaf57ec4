"""Slack and webhook notifiers: ``coverage.notify.slack`` and ``coverage.notify.webhook`` of the
commit's ``codecov.yml`` (docs/pull-requests.md, "Slack and webhooks").

Each notifier (``{title: {url, threshold, only_pulls, branches, flags, paths}}``) that applies to the
commit gets one ``POST`` of JSON: Codecov's webhook payload, or a Slack message. They are sent by
:mod:`.notify` with the statuses and the comment, from the same durable outbox (each recorded under
the context ``slack/<title>`` or ``webhook/<title>``: an unchanged payload is not sent again, a failed
one retried with the row), through the same bounded transport, to an address checked first
(:mod:`flask_coverage.providers.addresses`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Optional
from urllib.parse import urlsplit

from flask import current_app

from ..codecov_yml.patterns import matches
from ..lines import Totals
from ..models import Commit, Repository, utcnow
from ..providers import ProviderError
from ..providers.addresses import AllowedNetworks, checked_address
from ..providers.http import Guard, Transport
from ..urls import pull_page_url, repository_page_url
from . import outbox
from .statuses import filtered_totals, ratio

#: The deadline of one notifier's request (retries included), in seconds.
TIMEOUT_SECONDS = 10.0
#: The shortest URL path (with its query) kept out of messages as the URL's secret (Slack's is ~60).
MIN_SECRET = 12
#: The git hosts' commit pages, for the payload's ``service_url`` (``None`` for the others).
_SERVICE_URLS = {
    "github": "https://github.com/{owner}/{repo}/commit/{sha}",
    "gitlab": "https://gitlab.com/{owner}/{repo}/-/commit/{sha}",
    "bitbucket": "https://bitbucket.org/{owner}/{repo}/commits/{sha}",
}


@dataclass(frozen=True)
class Notifier:
    """One notifier of the YAML: ``kind`` (``slack`` or ``webhook``), its title and options."""

    kind: str
    title: str
    options: dict[str, Any]

    @property
    def context(self) -> str:
        """What its sending is recorded under."""
        return f"{self.kind}/{self.title}"


def configured(settings: dict[str, Any]) -> Iterator[Notifier]:
    """The Slack and webhook notifiers of the YAML whose URL can be read (not a Codecov secret)."""
    notify = (settings.get("coverage") or {}).get("notify") or {}
    for kind in ("slack", "webhook"):
        for title, options in sorted((notify.get(kind) or {}).items()):
            if isinstance(options, dict) and not str(options.get("url", "")).startswith("secret:"):
                yield Notifier(kind, title, options)


@dataclass(frozen=True)
class Change:
    """What a notifier says: the head's and the base's totals within its flags and paths."""

    head: Totals
    base: Optional[Totals]

    @property
    def difference(self) -> Optional[Decimal]:
        head, base = ratio(self.head), ratio(self.base) if self.base is not None else None
        return None if head is None or base is None else head - base


def applies(notifier: Notifier, commit: Commit, change: Change) -> bool:
    """Codecov's rules: ``only_pulls``, ``branches``, and ``threshold`` (the coverage must have moved
    by at least that much, either way; without a base it always applies)."""
    options = notifier.options
    if options.get("only_pulls") and commit.pullid is None:
        return False
    if options.get("branches") and (commit.branch is None or not matches(options["branches"], commit.branch)):
        return False
    threshold, difference = options.get("threshold"), change.difference
    return threshold is None or difference is None or abs(difference) >= Decimal(str(threshold))


def change_of(notifier: Notifier, settings: dict[str, Any], sides: Any) -> Change:
    """The notifier's :class:`Change`: its ``flags``' coverage, within its ``paths`` (as a status's)."""
    head, base = sides(tuple(notifier.options.get("flags") or ()))
    return Change(
        filtered_totals(head, settings, notifier.options),
        filtered_totals(base, settings, notifier.options) if base is not None else None,
    )


def payload(
    notifier: Notifier,
    repository: Repository,
    commit: Commit,
    base: Optional[Commit],
    change: Change,
    base_url: Optional[str],
) -> dict[str, Any]:
    """The JSON a notifier sends: Codecov's webhook payload, or a Slack message."""
    pull_url = pull_page_url(repository, commit.pullid, commit.sha, base_url)
    difference = change.difference
    word = "no change" if not difference else "increased" if difference > 0 else "decreased"
    notation = "" if not difference else "+" if difference > 0 else "-"
    if notifier.kind == "slack":
        return _slack(repository, commit, change, pull_url, word, notation, difference, base_url)
    owner = repository.owner
    return {
        "repo": {
            "url": repository_page_url(repository, base_url),
            "service_id": None,
            "name": repository.name,
            "private": repository.private,
        },
        "head": _commit(repository, commit, change.head, base_url),
        "base": _commit(repository, base, change.base, base_url) if base is not None and change.base else None,
        "compare": {
            "url": pull_url,
            "message": word,
            "coverage": _number(abs(difference)) if difference is not None else None,
            "notation": notation,
        },
        "owner": {"username": owner.username, "service_id": None, "service": owner.service.value},
        "pull": {"id": commit.pullid} if commit.pullid is not None else None,
    }


def _number(value: Optional[Decimal]) -> Optional[float]:
    return None if value is None else float(round(value, 5))


def _commit(repository: Repository, commit: Commit, totals: Totals, base_url: Optional[str]) -> dict[str, Any]:
    service = repository.owner.service.value
    service_url = _SERVICE_URLS.get(service)
    names = {"owner": repository.owner.username, "repo": repository.name, "sha": commit.sha}
    return {
        "author": {"username": None, "service_id": None, "email": None, "service": service, "name": commit.author_name},
        "url": pull_page_url(repository, None, commit.sha, base_url),
        "timestamp": commit.timestamp.isoformat(),
        "totals": {
            "files": commit.files,
            "lines": totals.lines,
            "hits": totals.hits,
            "misses": totals.misses,
            "partials": totals.partials,
            "coverage": _number(ratio(totals)),
        },
        "commitid": commit.sha,
        "service_url": service_url.format(**names) if service_url else None,
        "branch": commit.branch,
        "message": commit.message,
    }


def _slack(
    repository: Repository,
    commit: Commit,
    change: Change,
    pull_url: Optional[str],
    word: str,
    notation: str,
    difference: Optional[Decimal],
    base_url: Optional[str],
) -> dict[str, Any]:
    # Codecov's default message: "Coverage for <repo> <increased +0.50%> on `main` is `85.71%` via `<sha>`".
    slug = f"{repository.owner.username}/{repository.name}"
    repo = _link(repository_page_url(repository, base_url), slug)
    coverage = _number(ratio(change.head))
    moved = f"*{word}* `{_link(pull_url, f'{notation}{_number(abs(difference)):.2f}%')}` " if difference else ""
    branch = f"on `{commit.branch}` " if commit.branch else ""
    shown = "unknown" if coverage is None else f"{coverage:.2f}%"
    commit_link = _link(pull_page_url(repository, None, commit.sha, base_url), commit.sha[:7])
    text = f"Coverage for {repo} {moved}{branch}is `{shown}` via `{commit_link}`"
    return {"text": text, "author_name": "Codecov", "author_link": pull_url, "attachments": []}


def _link(url: Optional[str], text: str) -> str:
    """A Slack link (``<url|text>``), or the text alone without a URL; ``<``, ``>`` and ``&`` escaped."""
    shown = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"<{url}|{shown}>" if url else shown


def send_each(
    repository: Repository,
    commit: Commit,
    base: Optional[Commit],
    settings: dict[str, Any],
    sides: Any,
    base_url: Optional[str],
    sent: dict[str, Optional[str]],
    done: outbox.Sent,
) -> None:
    """Send each notifier that applies and whose payload changed since it was last sent, appending
    what was sent to ``done``; a failure is recorded under its context and raised (after what was
    sent before it is kept)."""
    for notifier in configured(settings):
        change = change_of(notifier, settings, sides)
        if not applies(notifier, commit, change):
            continue
        body = payload(notifier, repository, commit, base, change, base_url)
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        if sent.get(notifier.context) == digest:
            continue
        try:
            send(notifier, body)
        except ProviderError as error:
            outbox.failed(done, commit.id, notifier.context, error)
            raise
        values = {"digest": digest, "state": "sent", "description": f"{notifier.kind} notified"}
        done.append((commit.id, notifier.context, {**values, "sent_at": utcnow(), "error": None}))


def send(notifier: Notifier, body: dict[str, Any]) -> None:
    """``POST`` the body to the notifier's URL: bounded, retried and redacted as a provider's request,
    no redirect to another host, to an address checked first (``COVERAGE_NOTIFY_ALLOWED_NETWORKS``).
    Raises a :class:`~flask_coverage.providers.ProviderError` (an
    :class:`~flask_coverage.providers.addresses.AddressRefused` for a refused address)."""
    url = str(notifier.options["url"])
    parts = urlsplit(url)
    allowed = AllowedNetworks.parse(current_app.config["COVERAGE_NOTIFY_ALLOWED_NETWORKS"])
    name = f"the {notifier.kind} notifier's host {parts.hostname}"
    # A client a sending (a URL's host is anyone's: no pool kept for it); its path is its secret (Slack's).
    transport = Transport(name, f"{parts.scheme}://{parts.netloc}", timeout=TIMEOUT_SECONDS, guard=_guard(allowed))
    secret = parts.path.strip("/") + (f"?{parts.query}" if parts.query else "")
    if len(secret) >= MIN_SECRET:  # a short path is no secret, and redacting it would garble every message
        transport.secrets.append(secret)
    transport.request("POST", url, body=body)


def _guard(allowed: AllowedNetworks) -> Guard:
    return lambda host, port: checked_address(host, port, allowed)
