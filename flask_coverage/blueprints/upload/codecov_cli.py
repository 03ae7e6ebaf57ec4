"""codecov-cli's HTTP protocol, and the ``PUT`` to a signed upload URL (docs/upload.md).

Views on the upload blueprint (:mod:`.upload`), under ``{COVERAGE_UPLOAD_URL_PREFIX}/upload/``, as
codecov-cli 11 (what the Codecov GitHub Action runs) calls them:

- ``POST {service}/{slug}/commits``: the commit, with its branch, pull request and parent (201);
- ``POST {service}/{slug}/commits/{sha}/reports``: a report (Codecov's unit of uploads) (201);
- ``POST {service}/{slug}/commits/{sha}/reports/{code}/uploads`` and ``POST {service}/{slug}/upload-coverage``:
  an upload, answered with ``raw_upload_location``, a signed URL to ``PUT`` the files to (201);
- ``POST {service}/{slug}/commits/{sha}/empty-upload`` and ``.../upload-complete`` (200);
- ``PUT put?signature=...``: the body of a v4 upload (a v2 body) or of a codecov-cli one (JSON).

``service`` is a :class:`~flask_coverage.models.ServiceEnum` value or ``github-actions``; ``slug`` is
``owner::::repo`` (GitLab subgroups ``group:::sub::::repo``). The upload token comes as
``Authorization: token <upload token>`` and must be the token of the repository the path names.
Every answer is JSON; every refusal ``{"detail": message}`` with its 4xx.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any, Optional

from flask import Response, current_app, jsonify, request

from ...feedback.base import set_user_base
from ...feedback.outbox import trigger
from ...feedback.sender import wake
from ...identifiers import check_name, check_sha, is_fork_branch, normalize_pullid, normalize_sha, parse_service
from ...ingest import CommitTarget, UploadMeta, record_commit, upload_reports
from ...ingest.envelope import read_cli_payload
from ...models import Commit, Repository, ServiceEnum, utcnow
from ...parsers import Skips
from ...queries.files import upload_count
from ...queries.repositories import find_repository
from ...queries.targets import resolve_commit
from ...upload_urls import InvalidUploadUrl, load_upload
from ...urls import commit_url
from . import (
    JSON_ENDPOINTS,
    bp,
    check_length,
    claimed_target,
    fail,
    merge_v2_body,
    meta_claims,
    put_url,
    read_body,
    repository_for_token,
    sent_token,
    target_claims,
    upload_summary,
    upload_token,
    v2_answer,
)

#: The JSON of a codecov-cli call (not the upload itself) is small: arguments and CI environment.
MAX_CALL_BYTES = 1024 * 1024
_SLUG = re.compile(r"([^:\s]+(?::::[^:\s]+)*)::::([^:\s]+)")
_BASE = "/upload/<service>/<slug>"
_BODY_KEY = "flask_coverage.cli_body"


def _cli_route(rule: str, **options: Any) -> Any:
    def register(view: Any) -> Any:
        JSON_ENDPOINTS.add(f"{bp.name}.{view.__name__}")
        return bp.route(_BASE + rule, methods=["POST"], **options)(view)

    return register


def _json(status: int, body: dict[str, Any]) -> Response:
    response = jsonify(body)
    response.status_code = status
    return response


def _repository(service: str, slug: str) -> Repository:
    """The repository the path names, if the request's upload token is its token, or if it may be
    uploaded to without one (:func:`_tokenless_repository`); else a 4xx."""
    wanted = parse_service("github" if service == "github-actions" else service)
    match = _SLUG.fullmatch(slug)
    if match is None:
        fail(400, f"Upload refused: the slug {slug[:80]!r} is not 'owner::::repo' (or 'group:::subgroup::::repo').")
    owner, name = match.group(1).replace(":::", "/"), match.group(2)
    if sent_token() is None:
        return _tokenless_repository(wanted, owner, name)
    repository = repository_for_token(upload_token())
    named = (repository.owner.service, repository.owner.username.lower(), repository.name.lower())
    if named != (wanted, owner.lower(), name.lower()):
        fail(401, f"Upload refused: the upload token is not the token of {service}/{owner}/{name}.")
    if repository.deleted:
        fail(404, "Upload refused: the repository was deleted.")
    return repository


def _tokenless_repository(service: ServiceEnum, owner: str, name: str) -> Repository:
    """The public repository ``owner/name`` for a call without a token from a fork's pull request, as
    Codecov takes them (docs/upload.md, "Uploads from forks without a token"); else one 401 that does
    not say whether the repository exists.

    The call's branch is the ``branch`` its body carries (``create-commit``, ``upload-coverage``), or
    the branch stored on the commit its path names; a branch stored on the body's commit counts too, so
    a fork cannot move a protected branch's commit. Each must be a fork's ``user:branch``.
    ``COVERAGE_TOKENLESS_UPLOADS`` false turns them off: the token is then missing.
    """
    if not current_app.config["COVERAGE_TOKENLESS_UPLOADS"]:
        upload_token()
    refused = (
        "Upload refused: the upload token is missing; without one, uploads are taken only from a fork's "
        "pull request (branch 'user:branch') to a public repository."
    )
    sha = (request.view_args or {}).get("sha")
    branches = []
    if sha is None:
        body = _call_body()
        sha = _text_field(body, "commitid")
        branches.append(_text_field(body, "branch"))
    repository = find_repository(service, owner, name)
    if repository is None or repository.private or request.endpoint == f"{bp.name}.cli_pr_base_picking":
        fail(401, refused)
    full_sha = normalize_sha(sha or "")
    commit = resolve_commit(repository, sha=full_sha) if full_sha else None
    if commit is not None:
        branches.append(commit.branch)
    if not branches or not all(is_fork_branch(branch) for branch in branches):
        fail(401, refused)
    return repository


def _call_body() -> dict[str, Any]:
    """The JSON object a codecov-cli call sends (may be empty); a 400 for anything else. Read once."""
    if _BODY_KEY not in request.environ:  # the request's own, as its stream is
        raw = read_body(MAX_CALL_BYTES)
        request.environ[_BODY_KEY] = _json_object(raw) if raw.strip() else {}
    body: dict[str, Any] = request.environ[_BODY_KEY]
    return body


def _json_object(raw: bytes) -> dict[str, Any]:
    """The JSON object ``raw`` holds; a 400 for anything else, however deeply it is nested."""
    try:
        body = json.loads(raw)
    except RecursionError:  # the decoder's depth is Python's recursion limit (about 1,000)
        fail(400, "Upload refused: the body is not JSON (nested too deeply).")
    except ValueError:
        fail(400, "Upload refused: the body is not JSON.")
    if not isinstance(body, dict):
        fail(400, "Upload refused: the body must be a JSON object.")
    return body


def _text_field(body: dict[str, Any], key: str) -> Optional[str]:
    value = body.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        fail(400, f"Upload refused: {key} must be text, not {type(value).__name__}.")
    return str(value)


def _record(repository: Repository, body: dict[str, Any]) -> Commit:
    """The commit a call's body names (``commitid``), recorded with its branch, pull request and parent."""
    fields = [_text_field(body, key) for key in ("branch", "pullid", "parent_commit_id")]
    return record_commit(repository, CommitTarget.check(_text_field(body, "commitid") or "", *fields))


def _time(value: Any) -> str:
    return value.isoformat() + "Z"


@_cli_route("/commits")
def cli_create_commit(service: str, slug: str) -> Response:
    """``create-commit``: store the commit's branch, pull request and parent for its uploads."""
    repository = _repository(service, slug)
    body = _call_body()
    return _json(201, _commit_body(repository, _record(repository, body)))


def _commit_body(repository: Repository, commit: Commit) -> dict[str, Any]:
    return {
        "commitid": commit.sha,
        "parent_commit_id": commit.parent_sha,
        "pullid": commit.pullid,
        "branch": commit.branch,
        "timestamp": _time(commit.timestamp),
        "repository": {
            "service": repository.owner.service.value,
            "owner": repository.owner.username,
            "name": repository.name,
        },
    }


@_cli_route("/commits/<sha>/reports")
def cli_create_report(service: str, slug: str, sha: str) -> Response:
    """``create-report``: every upload of a commit goes to its one report here, whatever its code."""
    repository = _repository(service, slug)
    sha = check_sha(sha)
    code = _code(_text_field(_call_body(), "code"))
    external_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{repository.id}/{sha}/{code}")
    return _json(201, {"code": code, "external_id": str(external_id), "created_at": _time(utcnow())})


def _code(value: Optional[str]) -> str:
    return check_name(value or "default", "report code", max_length=100)


@_cli_route("/commits/<sha>/reports/<code>/uploads")
def cli_create_upload(service: str, slug: str, sha: str, code: str) -> Response:
    """``do-upload``: an upload of the commit, with the branch and pull request ``create-commit`` stored."""
    repository = _repository(service, slug)
    sha, body = check_sha(sha), _call_body()
    _code(code)
    commit = resolve_commit(repository, sha=sha)
    return _upload_answer(
        repository, CommitTarget(sha, commit.branch, commit.pullid) if commit else CommitTarget(sha), body
    )


@_cli_route("/upload-coverage")
def cli_upload_coverage(service: str, slug: str) -> Response:
    """``upload-coverage``: ``create-commit``, ``create-report`` and ``do-upload`` in one call."""
    repository = _repository(service, slug)
    body = _call_body()
    _code(_text_field(body, "code"))
    commit = _record(repository, body)
    return _upload_answer(repository, CommitTarget(commit.sha, commit.branch, commit.pullid), body)


def _upload_answer(repository: Repository, target: CommitTarget, body: dict[str, Any]) -> Response:
    cli_args: dict[str, Any] = body["cli_args"] if isinstance(body.get("cli_args"), dict) else {}
    flags = body.get("flags")
    if flags is not None and not (isinstance(flags, list) and all(isinstance(flag, str) for flag in flags)):
        fail(400, "Upload refused: flags must be a list of names.")
    meta = UploadMeta.create(
        flags=flags,
        name=_text_field(body, "name"),
        build=_text_field(cli_args, "build_code"),  # the upload call itself does not carry it
        job=_text_field(body, "job_code"),
        build_url=_text_field(body, "ci_url"),
        provider=_text_field(body, "ci_service"),
    )
    external_id = str(uuid.uuid4())
    claims = {"kind": "json", "id": external_id, **target_claims(target), "meta": meta_claims(meta)}
    location = put_url(repository, claims)
    url = commit_url(repository, target.sha)
    answer = {"external_id": external_id, "created_at": _time(utcnow()), "raw_upload_location": location, "url": url}
    return _json(201, answer)


@_cli_route("/commits/<sha>/empty-upload")
def cli_empty_upload(service: str, slug: str, sha: str) -> Response:
    """``empty-upload``: nothing to merge; the commit keeps what it has."""
    _repository(service, slug)
    check_sha(sha)
    _call_body()
    result = "Nothing uploaded: this server keeps the commit's coverage as it is and sends no notifications."
    return _json(200, {"result": result, "non_ignored_files": []})


@_cli_route("/commits/<sha>/upload-complete")
def cli_upload_complete(service: str, slug: str, sha: str) -> Response:
    """``send-notifications``: every upload is merged when its ``PUT`` is answered, so all are done;
    the commit's feedback is sent now (what ``codecov.notify.manual_trigger`` waits for)."""
    repository = _repository(service, slug)
    sha = check_sha(sha)
    _call_body()
    commit = resolve_commit(repository, sha=sha)
    count = 0
    notified = False
    if commit is not None:
        count = upload_count(commit)
        notified = trigger(commit.id)
        if notified:
            wake(current_app._get_current_object())  # type: ignore[attr-defined]
    result = f"{count} upload(s) of this commit merged; " + (
        "its statuses and comment are being sent." if notified else "no feedback is owed (no provider, or sent)."
    )
    body = {"result": result, "uploads_total": count, "uploads_success": count, "uploads_processing": 0}
    return _json(200, {**body, "uploads_error": 0})


@bp.route("/api/v1/<service>/<slug>/pulls/<pullid>", methods=["PUT"])
def cli_pr_base_picking(service: str, slug: str, pullid: str) -> Response:
    """``pr-base-picking``: the base the CI chose for a pull, which wins over every other
    (docs/pull-requests.md, "The pull's base")."""
    repository = _repository(service, slug)
    number = normalize_pullid(pullid)
    body = _call_body()
    if number is None:
        fail(400, f"Upload refused: {pullid[:20]!r} is not a pull request number.")
    base = check_sha(_text_field(body, "user_provided_base_sha") or "", "user_provided_base_sha")
    if not set_user_base(repository, number, base):
        fail(404, f"Upload refused: pull request #{number} has no coverage yet; upload its coverage first.")
    return _json(200, {"pullid": number, "user_provided_base_sha": base})


JSON_ENDPOINTS.add(f"{bp.name}.cli_pr_base_picking")


@bp.route("/upload/put", methods=["PUT"])
def upload_put() -> Response:
    """``PUT`` to a signed upload URL: merge the body as the URL's claims say, once."""
    try:
        repository, claims = load_upload(request.args.get("signature", ""))
    except InvalidUploadUrl as error:
        fail(403, f"Upload refused: {error}.")
    limit = check_length()
    meta = UploadMeta.create(**claims["meta"], external_id=claims["id"])
    arguments: dict[str, Any] = {"commit": claimed_target(claims), "meta": meta, "root": claims.get("root")}
    if claims["kind"] == "v2":
        return v2_answer(repository, *merge_v2_body(repository, limit, run_id=claims["run"], **arguments))
    parts = read_cli_payload(read_body(limit), limit)
    skips = Skips()
    commit = upload_reports(
        repository, parts.reports, network=parts.network, fixes=parts.fixes, skips=skips, **arguments
    )
    return _json(200, upload_summary(repository, commit, skips))
