"""GitHub and GitHub Enterprise: REST API v3 with a token, or as a GitHub App.

Setting it up: docs/pull-requests.md#github-and-github-enterprise.

Settings: ``{"url": "https://api.github.com", "token": "..."}`` (a personal or fine-grained token),
or ``{"url": ..., "app_id": 123, "private_key": "<PEM>"}``: the service signs a JWT (RS256, ten minutes)
with the App's key, finds the repository's installation, and uses that installation's token until a
minute before it expires. GitHub Enterprise: ``"url": "https://ghe.example.com/api/v3"``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, Optional
from urllib.parse import parse_qs, quote, urlsplit

from ..models import Repository
from . import (
    COMMENT_PAGES,
    Annotation,
    CheckRun,
    ChecksRefused,
    CiState,
    ProviderError,
    PullInfo,
    StatusState,
    combined_ci,
    file_diff,
)
from .http import Transport, comment_id_of, listed, marked

#: GitHub's compare API lists at most this many files (and no patch for a large file): a comparison
#: that reaches it is completed from the two trees, file by file.
COMPARE_FILE_CAP = 300
#: GitHub refuses a commit status description longer than this.
DESCRIPTION_MAX = 140
#: A completed check suite's conclusions that count as passed (the others, ``failure``, ``timed_out``,
#: ``cancelled``, ``action_required``, ``startup_failure``, ``stale``, as failed).
_PASSED_RUN = frozenset({"success", "neutral", "skipped"})
#: The API version every request names.
API_VERSION = "2022-11-28"
#: GitHub takes at most this many annotations in one request of a check run.
ANNOTATIONS_PER_REQUEST = 50
#: The longest check run summary GitHub takes (characters).
CHECK_SUMMARY_MAX = 65535
#: How long a repository whose App refused check runs (403) gets commit statuses without asking again.
CHECKS_REFUSED_SECONDS = 3600.0


class GitHub:
    """A :class:`~flask_coverage.providers.Provider` for GitHub with a token (``service`` names it in
    messages); :class:`GitHubApp` for a GitHub App. :func:`github_client` picks one for the settings."""

    def __init__(self, settings: Mapping[str, Any], service: str = "github") -> None:
        url = settings.get("url") or "https://api.github.com"
        self.http = Transport(service, url, timeout=float(settings.get("timeout", 10)))
        self._credentials(settings, service)

    #: The service's own GitHub App (its check suite is not the commit's CI); none with a token.
    _own_app: Optional[int] = None

    def _credentials(self, settings: Mapping[str, Any], service: str) -> None:
        self.token: str = settings.get("token") or ""
        if not self.token:
            raise ValueError(f"COVERAGE_PROVIDERS[{service!r}] needs a 'token', or an 'app_id' and a 'private_key'")
        self.http.secrets.append(self.token)

    def _bearer(self, repository: Optional[Repository]) -> str:
        return self.token

    def _headers(self, repository: Optional[Repository], accept: str = "application/vnd.github+json") -> dict[str, str]:
        return {
            "Accept": accept,
            "X-GitHub-Api-Version": API_VERSION,
            "Authorization": f"Bearer {self._bearer(repository)}",
        }

    # -- the Provider methods ------------------------------------------------------------------

    def pull(self, repository: Repository, number: int) -> Optional[PullInfo]:
        answer = self.http.request(
            "GET", f"{_repo(repository)}/pulls/{number}", headers=self._headers(repository), allow=(404,)
        )
        if answer.status == 404:
            return None
        found = answer.json()
        try:
            state = "merged" if found.get("merged_at") else ("open" if found["state"] == "open" else "closed")
            return PullInfo(
                number=int(found["number"]),
                state=state,  # type: ignore[arg-type]
                title=str(found["title"]),
                base_branch=str(found["base"]["ref"]),
                base_sha=str(found["base"]["sha"]),
                head_branch=str(found["head"]["ref"]),
                head_sha=str(found["head"]["sha"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ProviderError("github answered a pull request with something unexpected") from None

    def diff(self, repository: Repository, base_sha: str, head_sha: str) -> str:
        headers = self._headers(repository)
        compared = self.http.request(
            "GET", f"{_repo(repository)}/compare/{base_sha}...{head_sha}", headers=headers, params={"per_page": 1}
        ).json()
        files = compared.get("files") if isinstance(compared, dict) else None
        if not isinstance(files, list):
            raise ProviderError("github answered a comparison with something unexpected")
        merge_base = (compared.get("merge_base_commit") or {}).get("sha") or base_sha
        if len(files) >= COMPARE_FILE_CAP:
            return self._tree_diff(repository, merge_base, head_sha)
        parts = []
        for entry in files:
            new, old = entry.get("filename"), entry.get("previous_filename") or entry.get("filename")
            status = entry.get("status")
            if "patch" in entry:
                parts.append(_patch(old, new, status, entry["patch"]))
            elif status != "removed":  # no patch: binary, or too large for the API; read both sides
                before = None if status == "added" else self.read_file(repository, merge_base, old)
                parts.append(file_diff(old, new, before, self.read_file(repository, head_sha, new)))
        return "".join(parts)

    def _tree_diff(self, repository: Repository, base_sha: str, head_sha: str) -> str:
        """The diff of every file whose blob differs between the two commits' trees (no file cap)."""
        base, head = self._tree(repository, base_sha), self._tree(repository, head_sha)
        parts = []
        for path in sorted(set(base) | set(head)):
            if base.get(path) != head.get(path) and path in head:
                before = self._blob(repository, base[path]) if path in base else None
                parts.append(file_diff(path, path, before, self._blob(repository, head[path])))
        return "".join(parts)

    def _tree(self, repository: Repository, sha: str) -> dict[str, str]:
        found = self.http.request(
            "GET", f"{_repo(repository)}/git/trees/{sha}", params={"recursive": 1}, headers=self._headers(repository)
        ).json()
        if found.get("truncated"):
            raise ProviderError(f"github truncated the tree of {sha[:12]}: the diff needs a git mirror")
        return {item["path"]: item["sha"] for item in found.get("tree", []) if item.get("type") == "blob"}

    def _blob(self, repository: Repository, blob_sha: str) -> bytes:
        headers = self._headers(repository, accept="application/vnd.github.raw+json")
        return self.http.request("GET", f"{_repo(repository)}/git/blobs/{blob_sha}", headers=headers).body

    def read_file(self, repository: Repository, sha: str, path: str) -> Optional[bytes]:
        headers = self._headers(repository, accept="application/vnd.github.raw+json")
        answer = self.http.request(
            "GET", f"{_repo(repository)}/contents/{quote(path)}", params={"ref": sha}, headers=headers, allow=(404,)
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
        body: dict[str, Any] = {"state": state, "context": context, "description": description[:DESCRIPTION_MAX]}
        if target_url:
            body["target_url"] = target_url
        self.http.request("POST", f"{_repo(repository)}/statuses/{sha}", body=body, headers=self._headers(repository))

    def ci_state(self, repository: Repository, sha: str) -> CiState:
        """The :class:`~flask_coverage.providers.CiStatus` capability: the commit's combined status and
        its check suites (one page of 100 each). A suite with no run (GitHub makes one for every App
        that may check, and it stays queued) and the service's own App's suite are not counted."""
        headers, params = self._headers(repository), {"per_page": 100}
        path = f"{_repo(repository)}/commits/{sha}"
        combined = self.http.request("GET", f"{path}/status", params=params, headers=headers, allow=(404,))
        suites = self.http.request("GET", f"{path}/check-suites", params=params, headers=headers, allow=(404,))
        results: list[tuple[str, Optional[bool]]] = []
        for status in listed(combined, "statuses"):
            state = status.get("state")
            results.append((str(status.get("context", "")), None if state == "pending" else state == "success"))
        for suite in listed(suites, "check_suites"):
            app: dict[str, Any] = suite["app"] if isinstance(suite.get("app"), dict) else {}
            if not suite.get("latest_check_runs_count") or str(app.get("id")) == str(self._own_app):
                continue
            ended = suite.get("status") == "completed"
            passed = suite.get("conclusion") in _PASSED_RUN if ended else None
            results.append((str(app.get("slug", "")), passed))
        return combined_ci(results)

    def upsert_comment(self, repository: Repository, number: int, body: str, comment_id: Optional[str]) -> str:
        headers = self._headers(repository)
        if comment_id is None:
            path, method = f"{_repo(repository)}/issues/{number}/comments", "POST"
        else:
            path, method = f"{_repo(repository)}/issues/comments/{int(comment_id)}", "PATCH"
        answer = self.http.request(method, path, body={"body": body}, headers=headers, allow=(404,))
        return comment_id_of(answer, "github", number, comment_id, ("comment", "pull request"))

    def delete_comment(self, repository: Repository, number: int, comment_id: str) -> None:
        self.http.request(
            "DELETE",
            f"{_repo(repository)}/issues/comments/{int(comment_id)}",
            headers=self._headers(repository),
            allow=(404,),
        )

    def find_comment(self, repository: Repository, number: int, marker: str) -> Optional[str]:
        # GitHub lists an issue's comments oldest first, with no other order: the first page's Link
        # names the last, and the pages are read from there back (page 1, already here, last).
        comments, headers = f"{_repo(repository)}/issues/{number}/comments", self._headers(repository)
        first = self.http.request("GET", comments, params={"per_page": 100}, headers=headers, allow=(404,))
        if first.status == 404:
            return None
        last = _last_page(first.headers.get("Link") or "")
        for page in range(last, max(1, last - COMMENT_PAGES + 1), -1):
            params = {"per_page": 100, "page": page}
            found = marked(
                self.http.request("GET", comments, params=params, headers=headers).json(),
                marker,
                "body",
                oldest_first=True,
            )
            if found is not None:
                return found
        return marked(first.json(), marker, "body", oldest_first=True)


class GitHubApp(GitHub):
    """GitHub as a GitHub App: the service signs a JWT with the App's key, finds the repository's
    installation and uses its token until a minute before it expires. An App also shows statuses as
    check runs (:class:`~flask_coverage.providers.CheckRuns`), where it has *Checks: write*."""

    def _credentials(self, settings: Mapping[str, Any], service: str) -> None:
        self.app_id = self._own_app = settings["app_id"]
        self._key = _load_key(settings.get("private_key") or "")
        self._lock = threading.Lock()
        self._installations: dict[tuple[str, str], int] = {}
        self._tokens: dict[int, tuple[str, float]] = {}  # installation -> (token, monotonic expiry)
        self._refused: dict[tuple[str, str], float] = {}  # repository -> monotonic end of "no check runs"

    def _bearer(self, repository: Optional[Repository]) -> str:
        return self._installation_token(repository)

    def app_jwt(self) -> str:
        """A JWT naming the App, signed with its private key (RS256), valid ten minutes."""
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        now = int(time.time())
        header = _b64(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
        payload = _b64(json.dumps({"iat": now - 60, "exp": now + 540, "iss": str(self.app_id)}).encode())
        signing_input = f"{header}.{payload}".encode()
        signature = self._key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        return f"{header}.{payload}.{_b64(signature)}"

    def _installation_token(self, repository: Optional[Repository]) -> str:
        if repository is None:
            raise ProviderError("a GitHub App needs a repository to find its installation")
        names = _names(repository)
        with self._lock:
            installation = self._installations.get(names)
            cached = self._tokens.get(installation) if installation is not None else None
            if cached is not None and cached[1] > time.monotonic():
                return cached[0]
        app = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION}
        jwt = self.app_jwt()
        self.http.secrets.append(jwt)
        try:
            app["Authorization"] = f"Bearer {jwt}"
            if installation is None:
                found = self.http.request("GET", f"{_repo(repository)}/installation", headers=app).json()
                installation = int(found["id"])
            answer = self.http.request("POST", f"/app/installations/{installation}/access_tokens", headers=app).json()
            token, expires = str(answer["token"]), answer.get("expires_at")
        except (KeyError, TypeError, ValueError):
            raise ProviderError("github answered an installation token request with something unexpected") from None
        finally:
            self.http.secrets.remove(jwt)
        lifetime = 3600.0
        if isinstance(expires, str):
            with contextlib.suppress(ValueError):
                lifetime = datetime.fromisoformat(expires.replace("Z", "+00:00")).timestamp() - time.time()
        with self._lock:
            if token not in self.http.secrets:
                self.http.secrets.append(token)
            self._installations[names] = installation
            self._tokens[installation] = (token, time.monotonic() + lifetime - 60)
        return token

    def find_check_run(self, repository: Repository, sha: str, name: str) -> Optional[str]:
        """The id of this App's latest check run named ``name`` on ``sha``, or ``None``."""
        params = {"check_name": name, "filter": "latest", "app_id": self.app_id, "per_page": 1}
        with self._checks(repository):
            path = f"{_repo(repository)}/commits/{sha}/check-runs"
            found = self.http.request("GET", path, params=params, headers=self._headers(repository)).json()
            try:
                runs = found["check_runs"]
                return str(int(runs[0]["id"])) if runs else None
            except (KeyError, TypeError, ValueError, IndexError):
                raise ProviderError("github answered a list of check runs with something unexpected") from None

    def upsert_check_run(self, repository: Repository, sha: str, run: CheckRun, run_id: Optional[str]) -> str:
        """Create the run (with its first :data:`ANNOTATIONS_PER_REQUEST` annotations) or update it in
        place; further annotations go in further updates (GitHub adds them to the run's)."""
        runs, headers = f"{_repo(repository)}/check-runs", self._headers(repository)
        per = ANNOTATIONS_PER_REQUEST
        first, *more = [run.annotations[at : at + per] for at in range(0, len(run.annotations), per)] or [()]
        with self._checks(repository):
            answer = None
            if run_id is not None:
                path = f"{runs}/{int(run_id)}"
                answer = self.http.request(
                    "PATCH", path, body=_check_run_body(run, first), headers=headers, allow=(404,)
                )
            if answer is None or answer.status == 404:  # a new run, or the stored one is gone
                body = {"name": run.name, "head_sha": sha, **_check_run_body(run, first)}
                answer = self.http.request("POST", runs, body=body, headers=headers)
            try:
                run_id = str(int(answer.json()["id"]))
            except (KeyError, TypeError, ValueError):
                raise ProviderError("github answered a check run with something unexpected") from None
            for batch in more:
                self.http.request("PATCH", f"{runs}/{run_id}", body=_check_run_body(run, batch), headers=headers)
        return run_id

    @contextlib.contextmanager
    def _checks(self, repository: Repository) -> Iterator[None]:
        """Requests about check runs: a 403 (the App lacks *Checks: write*) is :class:`ChecksRefused`,
        remembered for :data:`CHECKS_REFUSED_SECONDS` per repository (refused without asking)."""
        names = _names(repository)
        with self._lock:
            refused = self._refused.get(names, 0.0) > time.monotonic()
        if refused:
            raise ChecksRefused("github refused check runs for this repository a moment ago", status=403)
        try:
            yield
        except ProviderError as error:
            if error.status == 403 and error.kind == "broken":
                with self._lock:
                    self._refused[names] = time.monotonic() + CHECKS_REFUSED_SECONDS
                raise ChecksRefused(str(error), status=403) from None
            raise


def _names(repository: Repository) -> tuple[str, str]:
    return repository.owner.username, repository.name


def _check_run_body(run: CheckRun, annotations: tuple[Annotation, ...]) -> dict[str, Any]:
    """A check run's state and output, with these of its annotations."""
    output: dict[str, Any] = {"title": run.title, "summary": run.summary[:CHECK_SUMMARY_MAX]}
    if annotations:
        output["annotations"] = [
            {
                "path": note.path,
                "start_line": note.start_line,
                "end_line": note.end_line,
                "annotation_level": "warning",
                "message": note.message,
            }
            for note in annotations
        ]
    body: dict[str, Any] = {"output": output}
    if run.conclusion is None:
        body["status"] = "in_progress"
    else:
        body.update(status="completed", conclusion=run.conclusion)
    if run.details_url:
        body["details_url"] = run.details_url
    return body


def github_client(settings: Mapping[str, Any], service: str = "github") -> GitHub:
    """The client the settings ask for: :class:`GitHubApp` with an ``app_id``, else :class:`GitHub`."""
    return GitHubApp(settings, service) if settings.get("app_id") is not None else GitHub(settings, service)


def _repo(repository: Repository) -> str:
    return f"/repos/{quote(repository.owner.username, safe='')}/{quote(repository.name, safe='')}"


def _last_page(link: str) -> int:
    """The number of the last page a ``Link`` header names (1 without one)."""
    match = re.search(r'<([^>]*)>\s*;\s*rel="last"', link)
    pages = parse_qs(urlsplit(match[1]).query).get("page") if match else None
    try:
        return max(1, int(pages[0])) if pages else 1
    except ValueError:
        return 1


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _patch(old: str, new: str, status: Optional[str], patch: str) -> str:
    before = "/dev/null" if status == "added" else f"a/{old}"
    after = "/dev/null" if status == "removed" else f"b/{new}"
    text = f"diff --git a/{old} b/{new}\n--- {before}\n+++ {after}\n{patch}"
    return text if text.endswith("\n") else text + "\n"


def _load_key(pem: str) -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
        from cryptography.hazmat.primitives.serialization import load_pem_private_key
    except ImportError:
        message = "a GitHub App needs the 'cryptography' package: pip install flask-coverage[github-app]"
        raise ValueError(message) from None
    try:
        key = load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError):
        raise ValueError("COVERAGE_PROVIDERS: the GitHub App's 'private_key' is not a PEM private key") from None
    if not isinstance(key, RSAPrivateKey):
        raise ValueError("COVERAGE_PROVIDERS: the GitHub App's 'private_key' is not an RSA key")
    return key
