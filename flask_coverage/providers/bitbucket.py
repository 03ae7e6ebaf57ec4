"""Bitbucket Cloud: REST API 2.0 (docs/pull-requests.md#bitbucket-cloud).

Settings: ``{"url": "https://api.bitbucket.org/2.0", "token": "..."}`` (a repository or workspace
access token), or ``{"username": ..., "app_password": ...}``. Bitbucket Server (Data Center) has
another API: :mod:`.bitbucket_server`.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Optional
from urllib.parse import quote

from ..models import Repository
from . import COMMENT_PAGES, CiState, ProviderError, PullInfo, StatusState, combined_ci
from .http import Transport, comment_id_of, listed, marked

_STATES = {"OPEN": "open", "MERGED": "merged", "DECLINED": "closed", "SUPERSEDED": "closed"}
_STATUS = {"success": "SUCCESSFUL", "failure": "FAILED", "error": "FAILED", "pending": "INPROGRESS"}


class Bitbucket:
    """A :class:`~flask_coverage.providers.Provider` for Bitbucket Cloud."""

    def __init__(self, settings: Mapping[str, Any], service: str = "bitbucket") -> None:
        url = settings.get("url") or "https://api.bitbucket.org/2.0"
        self.http = Transport(service, url, timeout=float(settings.get("timeout", 10)))
        token, user, password = settings.get("token"), settings.get("username"), settings.get("app_password")
        if token:
            self.headers = {"Authorization": f"Bearer {token}"}
            self.http.secrets.append(token)
        elif user and password:
            basic = base64.b64encode(f"{user}:{password}".encode()).decode()
            self.headers = {"Authorization": f"Basic {basic}"}
            self.http.secrets.extend((password, basic))
        else:
            raise ValueError(f"COVERAGE_PROVIDERS[{service!r}] needs a 'token', or a 'username' and an 'app_password'")

    def pull(self, repository: Repository, number: int) -> Optional[PullInfo]:
        path = f"{_repo(repository)}/pullrequests/{number}"
        answer = self.http.request("GET", path, headers=self.headers, allow=(404,))
        if answer.status == 404:
            return None
        found = answer.json()
        try:
            # Bitbucket names the commits by 12-character prefixes here.
            return PullInfo(
                number=int(found["id"]),
                state=_STATES.get(found["state"], "closed"),  # type: ignore[arg-type]
                title=str(found["title"]),
                base_branch=str(found["destination"]["branch"]["name"]),
                base_sha=str(found["destination"]["commit"]["hash"]),
                head_branch=str(found["source"]["branch"]["name"]),
                head_sha=str(found["source"]["commit"]["hash"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ProviderError("bitbucket answered a pull request with something unexpected") from None

    def diff(self, repository: Repository, base_sha: str, head_sha: str) -> str:
        # One raw git diff of every file, head against its merge base with base ("source..destination").
        answer = self.http.request("GET", f"{_repo(repository)}/diff/{head_sha}..{base_sha}", headers=self.headers)
        return answer.body.decode("utf-8", "replace")

    def read_file(self, repository: Repository, sha: str, path: str) -> Optional[bytes]:
        source = f"{_repo(repository)}/src/{sha}/{quote(path)}"
        answer = self.http.request("GET", source, headers=self.headers, allow=(404,))
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
        body = {"key": context[:40], "name": context, "state": _STATUS[state], "description": description}
        if target_url:
            body["url"] = target_url
        path = f"{_repo(repository)}/commit/{sha}/statuses/build"
        self.http.request("POST", path, body=body, headers=self.headers)

    def ci_state(self, repository: Repository, sha: str) -> CiState:
        """The :class:`~flask_coverage.providers.CiStatus` capability: the commit's build statuses
        (one page of 100)."""
        path = f"{_repo(repository)}/commit/{sha}/statuses"
        answer = self.http.request("GET", path, params={"pagelen": 100}, headers=self.headers, allow=(404,))
        ended = {"SUCCESSFUL": True, "FAILED": False, "STOPPED": False}
        return combined_ci(
            (str(item.get("key", "")), ended.get(item.get("state", ""))) for item in listed(answer, "values")
        )

    def upsert_comment(self, repository: Repository, number: int, body: str, comment_id: Optional[str]) -> str:
        comments = f"{_repo(repository)}/pullrequests/{number}/comments"
        content = {"content": {"raw": body}}
        if comment_id is None:
            answer = self.http.request("POST", comments, body=content, headers=self.headers, allow=(404,))
        else:
            path = f"{comments}/{int(comment_id)}"
            answer = self.http.request("PUT", path, body=content, headers=self.headers, allow=(404,))
        return comment_id_of(answer, "bitbucket", number, comment_id, ("comment", "pull request"))

    def delete_comment(self, repository: Repository, number: int, comment_id: str) -> None:
        path = f"{_repo(repository)}/pullrequests/{number}/comments/{int(comment_id)}"
        self.http.request("DELETE", path, headers=self.headers, allow=(404,))

    def find_comment(self, repository: Repository, number: int, marker: str) -> Optional[str]:
        path: Optional[str] = f"{_repo(repository)}/pullrequests/{number}/comments"
        params: Optional[dict[str, Any]] = {"sort": "-created_on", "pagelen": 100}
        for _ in range(COMMENT_PAGES):
            if path is None:
                break
            answer = self.http.request("GET", path, params=params, headers=self.headers, allow=(404,))
            if answer.status == 404:
                return None
            found = answer.json()
            if not isinstance(found, dict):
                raise ProviderError("bitbucket answered a list of comments with something unexpected")
            live = [item for item in found.get("values") or [] if isinstance(item, dict) and not item.get("deleted")]
            hit = marked(live, marker, "content", "raw")
            if hit is not None:
                return hit
            path, params = found.get("next"), None  # the next page's URL carries the query
        return None


def _repo(repository: Repository) -> str:
    return f"/repositories/{quote(repository.owner.username, safe='')}/{quote(repository.name, safe='')}"
