"""Bitbucket Server and Data Center: REST API 1.0 (docs/pull-requests.md#bitbucket-server-and-data-center).

Settings: ``{"url": "https://bitbucket.example.com", "token": "..."}`` (an HTTP access token of the
repository, the project or a user, with *Repository write* to set build statuses and comment), or
``{"username": ..., "password": ...}``. The URL is the server's root (a context path included):
every path below starts with ``/rest/``. A repository's owner is its project key (``~user`` for a
personal repository), its name the repository's slug.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Optional
from urllib.parse import quote

from ..models import Repository
from . import COMMENT_PAGES, CommentGone, ProviderError, PullInfo, StatusState, file_diff
from .http import Response, Transport, comment_id_of, marked

_STATES = {"OPEN": "open", "MERGED": "merged", "DECLINED": "closed"}
_STATUS = {"success": "SUCCESSFUL", "failure": "FAILED", "error": "FAILED", "pending": "INPROGRESS"}
_MARKS = {"ADDED": "+", "REMOVED": "-", "CONTEXT": " "}


class BitbucketServer:
    """A :class:`~flask_coverage.providers.Provider` for Bitbucket Server and Data Center."""

    def __init__(self, settings: Mapping[str, Any], service: str = "bitbucket_server") -> None:
        url = settings.get("url")
        if not url:
            raise ValueError(f"COVERAGE_PROVIDERS[{service!r}] needs the server's 'url'")
        self.http = Transport(service, str(url), timeout=float(settings.get("timeout", 10)))
        token, user, password = settings.get("token"), settings.get("username"), settings.get("password")
        if token:
            self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
            self.http.secrets.append(token)
        elif user and password:
            basic = base64.b64encode(f"{user}:{password}".encode()).decode()
            self.headers = {"Authorization": f"Basic {basic}", "Accept": "application/json"}
            self.http.secrets.extend((password, basic))
        else:
            raise ValueError(f"COVERAGE_PROVIDERS[{service!r}] needs a 'token', or a 'username' and a 'password'")

    def pull(self, repository: Repository, number: int) -> Optional[PullInfo]:
        answer = self.http.request(
            "GET", f"{_repo(repository)}/pull-requests/{number}", headers=self.headers, allow=(404,)
        )
        if answer.status == 404:
            return None
        found = answer.json()
        try:
            return PullInfo(
                number=int(found["id"]),
                state=_STATES.get(found["state"], "closed"),  # type: ignore[arg-type]
                title=str(found["title"]),
                base_branch=str(found["toRef"]["displayId"]),
                base_sha=str(found["toRef"]["latestCommit"]),
                head_branch=str(found["fromRef"]["displayId"]),
                head_sha=str(found["fromRef"]["latestCommit"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ProviderError("bitbucket_server answered a pull request with something unexpected") from None

    def diff(self, repository: Repository, base_sha: str, head_sha: str) -> str:
        # What head has that base has not (against their merge base), as Bitbucket's JSON hunks; a
        # file past the server's diff limits comes back truncated and is diffed from its two versions.
        compared = self.http.request(
            "GET",
            f"{_repo(repository)}/compare/diff",
            params={"from": head_sha, "to": base_sha, "contextLines": 0},
            headers=self.headers,
        ).json()
        diffs = compared.get("diffs") if isinstance(compared, dict) else None
        if not isinstance(diffs, list) or compared.get("truncated"):
            raise ProviderError("bitbucket_server answered a comparison with something unexpected, or cut it short")
        try:
            return "".join(self._file(repository, entry, base_sha, head_sha) for entry in diffs)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ProviderError("bitbucket_server answered a comparison with something unexpected") from None

    def _file(self, repository: Repository, entry: dict[str, Any], base_sha: str, head_sha: str) -> str:
        old = (entry.get("source") or {}).get("toString")
        new = (entry.get("destination") or {}).get("toString")
        if new is None:  # deleted: adds nothing
            return ""
        if entry.get("truncated") or entry.get("binary"):
            before = None if old is None else self.read_file(repository, base_sha, old)
            return file_diff(old or new, new, before, self.read_file(repository, head_sha, new))
        parts = [f"diff --git a/{old or new} b/{new}\n--- {'/dev/null' if old is None else 'a/' + old}\n+++ b/{new}\n"]
        for hunk in entry.get("hunks") or []:
            parts.append(
                f"@@ -{int(hunk['sourceLine'])},{int(hunk['sourceSpan'])} "
                f"+{int(hunk['destinationLine'])},{int(hunk['destinationSpan'])} @@\n"
            )
            for segment in hunk.get("segments") or []:
                mark = _MARKS[segment["type"]]
                parts.extend(f"{mark}{line['line']}\n" for line in segment.get("lines") or [])
        return "".join(parts)

    def read_file(self, repository: Repository, sha: str, path: str) -> Optional[bytes]:
        answer = self.http.request(
            "GET", f"{_repo(repository)}/raw/{quote(path)}", params={"at": sha}, headers=self.headers, allow=(404,)
        )
        return None if answer.status == 404 else answer.body

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
        # Build statuses are per commit, not per repository; one key per context replaces its last.
        body = {"state": _STATUS[state], "key": context, "name": context, "description": description}
        if target_url:
            body["url"] = target_url
        self.http.request("POST", f"/rest/build-status/1.0/commits/{sha}", body=body, headers=self.headers)

    def upsert_comment(self, repository: Repository, number: int, body: str, comment_id: Optional[str]) -> str:
        comments = f"{_repo(repository)}/pull-requests/{number}/comments"
        if comment_id is None:
            answer = self.http.request("POST", comments, body={"text": body}, headers=self.headers, allow=(404,))
        else:
            path = f"{comments}/{int(comment_id)}"
            version = self._version(self.http.request("GET", path, headers=self.headers, allow=(404,)), comment_id)
            content = {"text": body, "version": version}
            answer = self.http.request("PUT", path, body=content, headers=self.headers, allow=(404,))
        return comment_id_of(answer, "bitbucket_server", number, comment_id, ("comment", "pull request"))

    def delete_comment(self, repository: Repository, number: int, comment_id: str) -> None:
        path = f"{_repo(repository)}/pull-requests/{number}/comments/{int(comment_id)}"
        try:
            version = self._version(self.http.request("GET", path, headers=self.headers, allow=(404,)), comment_id)
        except CommentGone:
            return
        self.http.request("DELETE", path, params={"version": version}, headers=self.headers, allow=(404,))

    def find_comment(self, repository: Repository, number: int, marker: str) -> Optional[str]:
        # A pull request's comments are listed among its activities, newest first.
        activities = f"{_repo(repository)}/pull-requests/{number}/activities"
        start = 0
        for _ in range(COMMENT_PAGES):
            params = {"limit": 100, "start": start}
            answer = self.http.request("GET", activities, params=params, headers=self.headers, allow=(404,))
            if answer.status == 404:
                return None
            found = answer.json()
            if not isinstance(found, dict):
                raise ProviderError("bitbucket_server answered a list of activities with something unexpected")
            values = found.get("values") or []
            comments = [
                item.get("comment") for item in values if isinstance(item, dict) and item.get("action") == "COMMENTED"
            ]
            hit = marked(comments, marker, "text")
            if hit is not None or found.get("isLastPage", True) or not isinstance(found.get("nextPageStart"), int):
                return hit
            start = found["nextPageStart"]
        return None

    @staticmethod
    def _version(answer: Response, comment_id: str) -> int:
        """The comment's version, which an edit or a deletion must name (Bitbucket refuses a stale one)."""
        if answer.status == 404:
            raise CommentGone(f"bitbucket_server has no comment {comment_id} any more", status=404)
        try:
            return int(answer.json()["version"])
        except (KeyError, TypeError, ValueError):
            raise ProviderError("bitbucket_server answered a comment with something unexpected") from None


def _repo(repository: Repository) -> str:
    project, slug = quote(repository.owner.username, safe="~"), quote(repository.name, safe="")
    return f"/rest/api/1.0/projects/{project}/repos/{slug}"
