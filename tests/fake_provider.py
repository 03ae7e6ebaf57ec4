"""A recording fake of a git host (the :class:`flask_coverage.providers.Provider` protocol), plugged
into ``COVERAGE_PROVIDERS``: it answers from what the test gave it and records every call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from flask_coverage.models import Repository
from flask_coverage.providers import CommentGone, ProviderError, PullInfo


@dataclass
class RecordingProvider:
    """``pulls`` by number, ``files`` by ``(sha, path)``, ``diffs`` by ``(base, head)``; ``failure``
    (a :class:`ProviderError`) is raised by every call while set. ``calls`` lists ``(method, args)``."""

    pulls: dict[int, PullInfo] = field(default_factory=dict)
    files: dict[tuple[str, str], bytes] = field(default_factory=dict)
    diffs: dict[tuple[str, str], str] = field(default_factory=dict)
    failure: Optional[ProviderError] = None
    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    statuses: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    comments: dict[str, tuple[int, str]] = field(default_factory=dict)

    def _call(self, name: str, *args: Any) -> None:
        self.calls.append((name, args))
        if self.failure is not None:
            raise self.failure

    def called(self, name: str) -> list[tuple[Any, ...]]:
        return [args for method, args in self.calls if method == name]

    def pull(self, repository: Repository, number: int) -> Optional[PullInfo]:
        self._call("pull", number)
        return self.pulls.get(number)

    def diff(self, repository: Repository, base_sha: str, head_sha: str) -> str:
        self._call("diff", base_sha, head_sha)
        if (base_sha, head_sha) not in self.diffs:
            raise ProviderError("no such comparison", status=404)  # as a provider answers unknown commits
        return self.diffs[(base_sha, head_sha)]

    def read_file(self, repository: Repository, sha: str, path: str) -> Optional[bytes]:
        self._call("read_file", sha, path)
        return self.files.get((sha, path))

    def set_status(
        self,
        repository: Repository,
        sha: str,
        *,
        context: str,
        state: Any,
        description: str,
        target_url: Optional[str],
    ) -> None:
        self._call("set_status", sha, context, state, description, target_url)
        self.statuses[(sha, context)] = {"state": state, "description": description, "target_url": target_url}

    def upsert_comment(self, repository: Repository, number: int, body: str, comment_id: Optional[str]) -> str:
        self._call("upsert_comment", number, body, comment_id)
        if comment_id is not None and comment_id not in self.comments:
            raise CommentGone("the comment was deleted", status=404)
        comment_id = comment_id or str(max(map(int, self.comments), default=0) + 1)
        self.comments[comment_id] = (number, body)
        return comment_id

    def delete_comment(self, repository: Repository, number: int, comment_id: str) -> None:
        self._call("delete_comment", number, comment_id)
        self.comments.pop(comment_id, None)

    def find_comment(self, repository: Repository, number: int, marker: str) -> Optional[str]:
        self._call("find_comment", number, marker)
        found = [key for key, (pull, body) in self.comments.items() if pull == number and marker in body]
        return max(found, key=int, default=None)
