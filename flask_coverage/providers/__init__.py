"""The one place that talks to git hosts: what the service asks of a provider, and which provider a
repository has.

A provider is configured per service in ``COVERAGE_PROVIDERS`` (docs/pull-requests.md)::

    COVERAGE_PROVIDERS = {"github": {"url": "https://api.github.com", "token": "..."}}

A value that is already a :class:`Provider` (any object with its methods) is used as it is: a host
app or a test can plug in its own client. Everything the service needs from a git host goes through
the methods below; nothing else in the package speaks HTTP to a provider.
"""

from __future__ import annotations

import difflib
import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Optional, Protocol, runtime_checkable

from ..models import Repository

#: How many pages of a pull's comments (100 a page, the newest first where the API can) a provider
#: looks through for the service's comment (:meth:`Provider.find_comment`).
COMMENT_PAGES = 5

#: A commit status's state, in GitHub's words; each provider maps them to its own.
StatusState = Literal["success", "failure", "pending", "error"]


@dataclass(frozen=True)
class PullInfo:
    """A pull (merge) request as the provider knows it."""

    number: int
    state: Literal["open", "closed", "merged"]
    title: str
    base_branch: str
    base_sha: str
    head_branch: str
    head_sha: str


#: What a caller does about a :class:`ProviderError` (:attr:`ProviderError.kind`).
ErrorKind = Literal["retryable", "broken", "terminal"]


class ProviderError(Exception):
    """A provider refused or failed a request. ``retry_after`` (seconds) is set where a retry can
    help (5xx, 429, rate limits); ``status`` is the HTTP status, ``None`` when nothing answered."""

    def __init__(self, message: str, *, status: Optional[int] = None, retry_after: Optional[float] = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after

    @property
    def kind(self) -> ErrorKind:
        """The one classification of a provider's error: ``retryable`` where asking again later can
        help (a wait is known, nothing answered, or a 5xx), ``broken`` where the configuration must
        change first (401, 403: the token or the App's permissions), ``terminal`` where the same
        request gets the same answer (404, 422, ...). Retried or not, the error is shown."""
        if self.retry_after is not None or self.status is None or self.status >= 500:
            return "retryable"
        return "broken" if self.status in (401, 403) else "terminal"

    @property
    def retryable(self) -> bool:
        return self.kind == "retryable"


class CommentGone(ProviderError):
    """The comment to edit no longer exists (deleted on the provider)."""


class ChecksRefused(ProviderError):
    """The provider refused check runs for the repository (a GitHub App without *Checks: write*):
    send a commit status instead. The client remembers it for a while and refuses without asking."""


#: A check run's conclusion: GitHub's words (``None``: still in progress).
Conclusion = Literal["success", "failure", "neutral"]


@dataclass(frozen=True)
class Annotation:
    """Lines of a file a check run points at (a warning), e.g. added lines no test ran."""

    path: str
    start_line: int
    end_line: int
    message: str


@dataclass(frozen=True)
class CheckRun:
    """What a check run says: its ``name`` (the status context), ``conclusion``, the ``title`` and
    Markdown ``summary`` of its output, the page with the details, and its annotations (all of them:
    the client sends them in as many requests as the provider takes)."""

    name: str
    conclusion: Optional[Conclusion]
    title: str
    summary: str
    details_url: Optional[str] = None
    annotations: tuple[Annotation, ...] = ()


@runtime_checkable
class Provider(Protocol):
    """What the service asks of a git host, for one service; ``repository`` names owner and name."""

    def pull(self, repository: Repository, number: int) -> Optional[PullInfo]:
        """The pull request, or ``None`` if the provider has no such pull."""

    def diff(self, repository: Repository, base_sha: str, head_sha: str) -> str:
        """The unified diff ``base...head`` (all files: paged through, no cap of the provider's one page)."""

    def read_file(self, repository: Repository, sha: str, path: str) -> Optional[bytes]:
        """A file's bytes at a commit, or ``None`` if there is no such file."""

    def set_status(
        self,
        repository: Repository,
        sha: str,
        *,
        context: str,
        state: StatusState,
        description: str,
        target_url: Optional[str],
    ) -> None:
        """Create or replace the commit status ``context`` on ``sha``."""

    def upsert_comment(self, repository: Repository, number: int, body: str, comment_id: Optional[str]) -> str:
        """Post the pull's comment (``comment_id`` ``None``) or edit it in place; the comment's id.
        Raises :class:`CommentGone` if ``comment_id`` names a comment that was deleted."""

    def delete_comment(self, repository: Repository, number: int, comment_id: str) -> None:
        """Delete the pull's comment (gone already is not an error)."""

    def find_comment(self, repository: Repository, number: int, marker: str) -> Optional[str]:
        """The id of the pull's newest comment whose text contains ``marker``, looked for in at most
        :data:`COMMENT_PAGES` pages of its comments, or ``None``: the service's comment when its id
        was never stored (a sender killed after posting it)."""


@runtime_checkable
class CheckRuns(Protocol):
    """A provider that can also show statuses as check runs (GitHub with a GitHub App): an optional
    capability beside :class:`Provider`, which GitLab, Bitbucket and a token on GitHub do not have."""

    def upsert_check_run(self, repository: Repository, sha: str, run: CheckRun, run_id: Optional[str]) -> str:
        """Create the check run on ``sha`` (``run_id`` ``None``) or update it in place; its id. Raises
        :class:`ChecksRefused` if the provider refuses check runs for the repository."""

    def find_check_run(self, repository: Repository, sha: str, name: str) -> Optional[str]:
        """The id of the service's latest check run named ``name`` on ``sha``, or ``None``: the run
        when its id was never stored (a sender killed after creating it). Raises
        :class:`ChecksRefused` as :meth:`upsert_check_run` does."""


#: A commit's CI as the provider reports it (:meth:`CiStatus.ci_state`).
CiState = Literal["passed", "failed", "running"]


@runtime_checkable
class CiStatus(Protocol):
    """A provider that can tell how the commit's CI went: an optional capability beside
    :class:`Provider` (``codecov.require_ci_to_pass`` and ``codecov.notify.wait_for_ci`` act on it)."""

    def ci_state(self, repository: Repository, sha: str) -> CiState:
        """The commit's CI: ``failed`` if any of its statuses, runs or pipelines failed, else
        ``running`` if any has not ended, else ``passed`` (none at all is passed). The service's own
        (named ``codecov...``, as Codecov leaves out) are not counted (:func:`combined_ci`)."""


def combined_ci(results: Iterable[tuple[str, Optional[bool]]]) -> CiState:
    """The CI state of a commit's ``(name, passed)`` results (``passed`` ``None``: not ended): the
    one rule every provider's :meth:`CiStatus.ci_state` applies; the service's own are left out."""
    counted = [passed for name, passed in results if not name.lower().startswith("codecov")]
    if False in counted:
        return "failed"
    return "running" if None in counted else "passed"


def provider_for(repository: Repository) -> Optional[Provider]:
    """The provider configured for the repository's service in ``COVERAGE_PROVIDERS``, or ``None``.

    A settings dict is turned into its client once (per distinct settings, for the process): the
    client keeps its connections and a GitHub App's installation tokens. Invalid settings raise
    ``ValueError`` naming what is wrong.
    """
    from flask import current_app

    service = repository.owner.service.value
    configured = (current_app.config.get("COVERAGE_PROVIDERS") or {}).get(service)
    return None if configured is None or _signs_in_only(configured) else _provider(service, configured)


def check_providers(configured: Mapping[str, Any]) -> None:
    """``ValueError`` naming what is wrong in ``COVERAGE_PROVIDERS`` (the extension asks at start-up)."""
    from .accounts import sign_in_endpoints, signs_in

    if not isinstance(configured, Mapping):
        raise ValueError("COVERAGE_PROVIDERS must be a dict: {service: settings}")
    for service, settings in configured.items():
        if signs_in(settings):
            sign_in_endpoints(service, settings)
        if not _signs_in_only(settings):
            _provider(service, settings)


#: The settings that give a service a client of the host's API (feedback, sources).
_API_CREDENTIALS = ("token", "app_id", "private_key", "username", "app_password")


def _signs_in_only(settings: Any) -> bool:
    """An entry with a ``client_id`` and no API credentials signs users in and has no API client."""
    from .accounts import signs_in

    return signs_in(settings) and not any(settings.get(key) for key in _API_CREDENTIALS)


def _provider(service: str, configured: Any) -> Provider:
    if isinstance(configured, Provider):
        return configured
    if not isinstance(configured, Mapping):
        raise ValueError(f"COVERAGE_PROVIDERS[{service!r}] must be a dict of settings or a Provider")
    key = (service, json.dumps(configured, sort_keys=True, default=str))
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = _client(service, configured)
    return client


def _client(service: str, settings: Mapping[str, Any]) -> Provider:
    from .bitbucket import Bitbucket
    from .bitbucket_server import BitbucketServer
    from .github import github_client
    from .gitlab import GitLab

    kinds: dict[str, Any] = {"github": github_client, "github_enterprise": github_client, "gitlab": GitLab}
    kinds.update(gitlab_enterprise=GitLab, bitbucket=Bitbucket, bitbucket_server=BitbucketServer)
    if service not in kinds:
        raise ValueError(f"COVERAGE_PROVIDERS: {service} is not supported (GitHub, GitLab and Bitbucket are)")
    client: Provider = kinds[service](settings, service)
    return client


_clients: dict[tuple[str, str], Provider] = {}
_clients_lock = threading.Lock()


def file_diff(old_path: str, new_path: str, before: Optional[bytes], after: Optional[bytes]) -> str:
    """A unified diff of one file from its two versions (``None``: the file is not there), in git's
    form; where a provider gives no diff of its own for the file (too large for its API, or past its
    file cap). A binary file gives a header and no lines."""
    old_text = (before or b"").decode("utf-8", "replace")
    new_text = (after or b"").decode("utf-8", "replace")
    head = f"diff --git a/{old_path} b/{new_path}\n"
    if b"\0" in (before or b"")[:8000] or b"\0" in (after or b"")[:8000]:
        return head + "Binary files differ\n"
    lines = difflib.unified_diff(
        old_text.splitlines(keepends=True),
        new_text.splitlines(keepends=True),
        "/dev/null" if before is None else f"a/{old_path}",
        "/dev/null" if after is None else f"b/{new_path}",
        n=0,
    )
    return head + "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
