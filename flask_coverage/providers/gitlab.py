"""GitLab and GitLab self-managed: REST API v4 with a token.

Setting it up: docs/pull-requests.md#gitlab-and-gitlab-self-managed.

Settings: ``{"url": "https://gitlab.com/api/v4", "token": "..."}`` (a project, group or personal
access token with the ``api`` scope). A project is named by its path (``group/sub/name``, URL-encoded).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional
from urllib.parse import quote

from ..models import Repository
from . import COMMENT_PAGES, CiState, ProviderError, PullInfo, StatusState, combined_ci, file_diff
from .http import Transport, comment_id_of, listed, marked

_STATES = {"opened": "open", "merged": "merged", "closed": "closed", "locked": "open"}
#: GitLab's commit status states for the service's (GitHub's) words.
_STATUS = {"success": "success", "failure": "failed", "error": "failed", "pending": "pending"}

#: The states of a pipeline (or a commit status) that ended, and whether each counts as passed (the
#: others: still running).
_ENDED = {"success": True, "skipped": True, "manual": True, "failed": False, "canceled": False}


class GitLab:
    """A :class:`~flask_coverage.providers.Provider` for GitLab (``service`` names it in messages)."""

    def __init__(self, settings: Mapping[str, Any], service: str = "gitlab") -> None:
        url = settings.get("url") or "https://gitlab.com/api/v4"
        self.http = Transport(service, url, timeout=float(settings.get("timeout", 10)))
        token = settings.get("token")
        if not token:
            raise ValueError(f"COVERAGE_PROVIDERS[{service!r}] needs a 'token'")
        self.http.secrets.append(token)
        self.headers = {"PRIVATE-TOKEN": token}

    def pull(self, repository: Repository, number: int) -> Optional[PullInfo]:
        answer = self.http.request(
            "GET", f"{_project(repository)}/merge_requests/{number}", headers=self.headers, allow=(404,)
        )
        if answer.status == 404:
            return None
        found = answer.json()
        try:
            refs = found.get("diff_refs") or {}
            return PullInfo(
                number=int(found["iid"]),
                state=_STATES.get(found["state"], "closed"),  # type: ignore[arg-type]
                title=str(found["title"]),
                base_branch=str(found["target_branch"]),
                base_sha=str(refs.get("base_sha") or ""),
                head_branch=str(found["source_branch"]),
                head_sha=str(found.get("sha") or refs.get("head_sha") or ""),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ProviderError("gitlab answered a merge request with something unexpected") from None

    def diff(self, repository: Repository, base_sha: str, head_sha: str) -> str:
        # One answer with every file (GitLab's compare has no pages): the instance's diff limits apply
        # (max files and lines per comparison); a file past them comes back "too_large" or "collapsed"
        # without its diff, and is diffed here from its two versions.
        compared = self.http.request(
            "GET",
            f"{_project(repository)}/repository/compare",
            params={"from": base_sha, "to": head_sha, "straight": "false"},
            headers=self.headers,
        ).json()
        diffs = compared.get("diffs") if isinstance(compared, dict) else None
        if not isinstance(diffs, list):
            raise ProviderError("gitlab answered a comparison with something unexpected")
        parts = []
        for entry in diffs:
            old, new = entry.get("old_path"), entry.get("new_path")
            if entry.get("deleted_file"):
                continue
            if entry.get("diff") and not entry.get("too_large") and not entry.get("collapsed"):
                before = "/dev/null" if entry.get("new_file") else f"a/{old}"
                text = f"diff --git a/{old} b/{new}\n--- {before}\n+++ b/{new}\n{entry['diff']}"
                parts.append(text if text.endswith("\n") else text + "\n")
            else:
                previous = None if entry.get("new_file") else self.read_file(repository, base_sha, old)
                parts.append(file_diff(old, new, previous, self.read_file(repository, head_sha, new)))
        return "".join(parts)

    def read_file(self, repository: Repository, sha: str, path: str) -> Optional[bytes]:
        answer = self.http.request(
            "GET",
            f"{_project(repository)}/repository/files/{quote(path, safe='')}/raw",
            params={"ref": sha},
            headers=self.headers,
            allow=(404,),
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
        body: dict[str, Any] = {"state": _STATUS[state], "name": context, "description": description[:255]}
        if target_url:
            body["target_url"] = target_url
        self.http.request("POST", f"{_project(repository)}/statuses/{sha}", body=body, headers=self.headers)

    def ci_state(self, repository: Repository, sha: str) -> CiState:
        """The :class:`~flask_coverage.providers.CiStatus` capability: the commit's pipelines (one page
        of 100: a branch's and a merge request's), and the commit statuses outside any pipeline."""
        path, params = f"{_project(repository)}/pipelines", {"sha": sha, "per_page": 100}
        pipelines = self.http.request("GET", path, params=params, headers=self.headers, allow=(404,))
        results = [(f"pipeline {item.get('id')}", _ENDED.get(str(item.get("status")))) for item in listed(pipelines)]
        path = f"{_project(repository)}/repository/commits/{sha}/statuses"
        statuses = self.http.request("GET", path, params={"per_page": 100}, headers=self.headers, allow=(404,))
        results += [(str(item.get("name", "")), _ENDED.get(str(item.get("status")))) for item in listed(statuses)]
        return combined_ci(results)

    def upsert_comment(self, repository: Repository, number: int, body: str, comment_id: Optional[str]) -> str:
        notes = f"{_project(repository)}/merge_requests/{number}/notes"
        if comment_id is None:
            answer = self.http.request("POST", notes, body={"body": body}, headers=self.headers, allow=(404,))
        else:
            path = f"{notes}/{int(comment_id)}"
            answer = self.http.request("PUT", path, body={"body": body}, headers=self.headers, allow=(404,))
        return comment_id_of(answer, "gitlab", number, comment_id, ("note", "merge request"))

    def delete_comment(self, repository: Repository, number: int, comment_id: str) -> None:
        path = f"{_project(repository)}/merge_requests/{number}/notes/{int(comment_id)}"
        self.http.request("DELETE", path, headers=self.headers, allow=(404,))

    def find_comment(self, repository: Repository, number: int, marker: str) -> Optional[str]:
        notes = f"{_project(repository)}/merge_requests/{number}/notes"
        for page in range(1, COMMENT_PAGES + 1):
            params = {"sort": "desc", "order_by": "created_at", "per_page": 100, "page": page}
            answer = self.http.request("GET", notes, params=params, headers=self.headers, allow=(404,))
            if answer.status == 404:
                return None
            found = answer.json()
            hit = marked(found, marker, "body")
            if hit is not None or not answer.headers.get("X-Next-Page"):
                return hit
        return None


def _project(repository: Repository) -> str:
    return "/projects/" + quote(f"{repository.owner.username}/{repository.name}", safe="")
