"""The upload endpoint of the Codecov v2 protocol: ``POST /upload/v2`` (docs/upload.md).

``POST {COVERAGE_UPLOAD_URL_PREFIX}/upload/v2?token=<upload token>&commit=<sha>[&branch=..][&pr=..]``
with the report as the body, as the Codecov uploaders send it (see docs/upload.md):

- the body may be gzip-compressed (``Content-Encoding: gzip``, or just gzip bytes); both the body
  and its decompressed form are bounded by ``COVERAGE_MAX_UPLOAD_BYTES`` (413 above it);
- the body may be the uploaders' envelope: an env block ended by ``<<<<<< ENV``, a file list ended
  by ``<<<<<< network``, then reports, each starting with ``# path=<name>``, separated by
  ``<<<<<< EOF`` lines, read by :func:`flask_coverage.ingest.envelope.read_envelope`. Every report
  in it is merged, all in one transaction.

``POST /upload/v4`` takes v2's query and answers with the commit's URL and a signed URL to ``PUT``
the body to (:mod:`flask_coverage.upload_urls`); that ``PUT`` and the codecov-cli protocol are in
:mod:`.cli`, on this same blueprint. Every answer here is ``text/plain``; anything else under
``/upload/`` is a short text 404, never the host app's error page.
"""

from __future__ import annotations

import hmac
import json
import logging
import uuid
from typing import Any, NoReturn, Optional
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, request
from werkzeug.exceptions import MethodNotAllowed

from ...auth import is_plausible_token
from ...errors import AlreadyExists, CoverageError, InvalidInput, NotFound
from ...http_errors import detail_json, handle_errors
from ...identifiers import refused_character
from ...inflate import GZIP_MAGIC, check_size, gunzip
from ...ingest import META_FIELDS, CommitTarget, UploadMeta, upload_reports
from ...ingest.envelope import read_envelope
from ...lines import Totals
from ...models import Commit, Repository
from ...parsers import Skips
from ...providers.actions_oidc import InvalidActionsToken, enterprise_web_url, looks_like_jwt, verify_actions_token
from ...queries.repositories import find_repository, find_repository_by_upload_token
from ...upload_urls import sign_upload
from ...urls import commit_url, external_url

bp = Blueprint("coverage_upload", __name__)
log = logging.getLogger(__name__)

_READ_SIZE = 64 * 1024
MAX_ROOT_LENGTH = 1024
# Not part of an upload's run_id: the token (a secret, which may change between two attempts) and
# the arguments that are passed to the upload on their own.
_NOT_RUN_ARGS = frozenset({"token", "commit", "branch", "pr", "pull_request", "parent", "root"})
_SERVICE_ERRORS = (InvalidInput, NotFound, AlreadyExists)


def _text(status: int, body: str) -> Response:
    return Response(body, status=status, mimetype="text/plain")


#: Views whose errors are JSON (``{"detail": message}``): the codecov-cli protocol's.
JSON_ENDPOINTS: set[str] = set()


def _render_error(error: CoverageError) -> Response:
    if isinstance(error, _SERVICE_ERRORS):
        # The service's own words (the kinds of CoverageError: 413, 409, 404, 400, ...) as the refusal;
        # a refusal made here (:func:`fail`) is already worded.
        error = CoverageError(f"Upload refused: {error}.", status=error.status)
    if request.endpoint in JSON_ENDPOINTS:
        return detail_json(error)
    # The npm uploader splits v4's answer on "\n" and PUTs to the second part if there are two:
    # an error there has no line break.
    message = str(error)
    return _text(error.status, message if request.endpoint == "coverage_upload.upload_v4" else message + "\n")


handle_errors(bp, _render_error, describe=lambda error: f"{error.name}: {error.description}")


def fail(status: int, message: str) -> NoReturn:
    """Refuse the request with ``status`` and a one-line ``message`` for the uploader to print."""
    raise CoverageError(message, status=status)


@bp.route("/upload/v2", methods=["POST"])
def upload_v2() -> Response:
    """Merge the reports of the request body into a commit; answer with the commit's URL."""
    limit = check_length()
    repository = repository_for_token(upload_token())
    target, meta = _v2_arguments()
    arguments = {"commit": target, "run_id": _run_id(), "meta": meta, "root": upload_root()}
    return v2_answer(repository, *merge_v2_body(repository, limit, **arguments))


@bp.route("/upload/v4", methods=["POST"])
def upload_v4() -> Response:
    """Check the upload as v2 does; answer with the commit's URL and a signed URL to ``PUT`` the body to.

    Every refusal is a 400: the only 4xx on which the legacy uploaders stop instead of retrying.
    """
    try:
        repository = repository_for_token(upload_token())
        target, meta = _v2_arguments()
        root = upload_root()
    except CoverageError as error:
        error.status = 400
        raise
    claims = {
        "kind": "v2",
        "id": str(uuid.uuid4()),
        **target_claims(target),
        "run": _run_id(),
        "meta": meta_claims(meta),
        "root": root,
    }
    return _text(200, f"{commit_url(repository, target.sha)}\n{put_url(repository, claims)}")


@bp.route("/upload/<path:rest>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
def upload_unknown(rest: str) -> Any:
    """Anything else under ``/upload/``: a short text 405 or 404, never the host app's error page."""
    adapter = current_app.url_map.bind_to_environ(request.environ)
    for method in ("POST", "PUT"):  # every upload endpoint takes one of them
        endpoint, _ = adapter.match(method=method)
        if method != request.method and endpoint != request.endpoint:
            raise MethodNotAllowed(valid_methods=[method])
    fail(404, "Not found: no upload endpoint here (see POST /upload/v2, /upload/v4 and the codecov-cli protocol).")


def put_url(repository: Repository, claims: dict[str, Any]) -> str:
    """The absolute signed URL to ``PUT`` an upload to ``repository`` as ``claims`` say.

    ``claims`` hold ``kind`` (``"v2"``: a v2 body, ``"json"``: codecov-cli's), ``id`` (the upload's
    external id), the :class:`CommitTarget` (:func:`target_claims`), ``meta`` (:func:`meta_claims`)
    and, for v2, ``run``.
    """
    signature = sign_upload(repository, claims)
    return external_url("coverage_upload.upload_put", signature=signature)


def target_claims(target: CommitTarget) -> dict[str, Any]:
    """``target`` as JSON data for :func:`put_url`'s claims (``commit``, ``branch``, ``pullid``, ``parent``)."""
    return {"commit": target.sha, "branch": target.branch, "pullid": target.pullid, "parent": target.parent}


def claimed_target(claims: dict[str, Any]) -> CommitTarget:
    """The :class:`CommitTarget` of signed claims, checked when they were signed (URLs signed before
    ``parent`` was a claim have none)."""
    return CommitTarget(claims["commit"], claims["branch"], claims["pullid"], claims.get("parent"))


def meta_claims(meta: UploadMeta) -> dict[str, Any]:
    """``meta`` as JSON data for :func:`put_url`'s claims."""
    return {"flags": list(meta.flags), **{key: getattr(meta, key) for key in META_FIELDS}}


def merge_v2_body(repository: Repository, limit: Optional[int], **arguments: Any) -> tuple[Commit, Skips]:
    """Merge the reports of a v2 request body (plain or gzip, maybe the uploaders' envelope); the
    commit, and what the parsers skipped or clamped."""
    body = _decompressed(read_body(limit), limit)
    skips = Skips()
    parts = read_envelope(body)
    commit = upload_reports(
        repository, parts.reports, network=parts.network, fixes=parts.fixes, skips=skips, **arguments
    )
    return commit, skips


def check_length() -> Optional[int]:
    """``COVERAGE_MAX_UPLOAD_BYTES``; a 413 at once for a ``Content-Length`` over it."""
    limit: Optional[int] = current_app.config["COVERAGE_MAX_UPLOAD_BYTES"]
    check_size(request.content_length or 0, limit, "the body")
    return limit


def _v2_arguments() -> tuple[CommitTarget, UploadMeta]:
    """The :class:`CommitTarget` and :class:`UploadMeta` of a v2 query, checked once; a 400 for a bad one."""
    args = request.args
    if not args.get("commit"):
        fail(400, "Upload refused: the commit sha is missing (?commit=<sha>).")
    pr = args.get("pr") or args.get("pull_request")
    return CommitTarget.check(args["commit"], args.get("branch"), pr, args.get("parent")), upload_meta(args)


def v2_answer(repository: Repository, commit: Commit, skips: Skips) -> Response:
    summary = upload_summary(repository, commit, skips)
    # Line 1 empty and line 2 the URL: every Codecov bash uploader then reports success and prints
    # the URL; the last ones also look for '"uploaded": true', which line 3 carries. What was
    # skipped, if anything, is said for people on a last line.
    said = f"{skips.summary()}\n" if skips else ""
    return _text(200, f"\n{summary['url']}\n{json.dumps(summary)}\n{said}")


def upload_summary(repository: Repository, commit: Commit, skips: Skips) -> dict[str, Any]:
    """What an upload answers about the commit it went into: its URL, version, files and totals,
    and how many lines (or files) of its reports were skipped or clamped, per reason."""
    return {
        "uploaded": True,
        "url": commit_url(repository, commit.sha),
        "commit": commit.sha,
        "version": commit.version,
        "files": commit.files,
        "lines": commit.lines,
        "coverage": Totals.of(commit).coverage,
        "skipped": skips.total,
        "skip_reasons": skips.counts,
    }


def upload_root() -> Optional[str]:
    """``?root=``: the checkout directory the reports were written in, stripped from their paths (a
    relative ``<source>`` or a src layout placed right without a file list); a 400 if unusable."""
    root = request.args.get("root", "").strip() or None
    if root is not None and (len(root) > MAX_ROOT_LENGTH or refused_character(root)):
        fail(400, f"Upload refused: root must be a directory of at most {MAX_ROOT_LENGTH} printable characters.")
    return root


def upload_meta(args: Any) -> UploadMeta:
    """The :class:`UploadMeta` of the uploaders' query arguments (``flags``, ``name``, ``build``, ...)."""
    return UploadMeta.create(
        flags=args.get("flags"),
        name=args.get("name"),
        build=args.get("build"),
        job=args.get("job"),
        build_url=args.get("build_url"),
        provider=args.get("service"),
    )


def _run_id() -> str:
    """What the uploader says about its run (``build``, ``job``, ``name``, ``flags``, ``service``, ...).

    Every query argument but the token and those passed on their own, in a canonical order: a
    retry sends the same ones, two CI jobs differ in them. Part of the upload's key (see
    :func:`~flask_coverage.ingest.upload_reports`), so a retried upload is merged once.
    """
    return urlencode(sorted(item for item in request.args.items(multi=True) if item[0] not in _NOT_RUN_ARGS))


def sent_token() -> Optional[str]:
    """The token the request carries (``?token=``, ``Authorization: token ...`` or ``X-Upload-Token``), if any."""
    token = request.args.get("token")
    if not token:
        scheme, _, credentials = request.headers.get("Authorization", "").strip().partition(" ")
        if scheme.lower() == "token":
            token = credentials.strip()
    if not token:
        token = request.headers.get("X-Upload-Token", "").strip()
    return token or None


def upload_token() -> str:
    """:func:`sent_token`; a 401 without one."""
    token = sent_token()
    if not token:
        fail(401, "Upload refused: the upload token is missing (?token=<upload token>).")
    return token


def repository_for_token(token: str) -> Repository:
    """The repository whose upload token is ``token`` (compared in constant time), or the one a
    GitHub Actions OIDC token names (:func:`repository_for_actions_token`); else a 401."""
    if looks_like_jwt(token):
        return repository_for_actions_token(token)
    invalid = "Upload refused: the upload token is not valid."
    # No control character reaches the database (PostgreSQL refuses NUL bytes in text).
    if not is_plausible_token(token):
        fail(401, invalid)
    repository = find_repository_by_upload_token(token)
    if repository is None or not hmac.compare_digest(repository.upload_token.encode(), token.encode()):
        fail(401, invalid)
    return repository


def repository_for_actions_token(token: str) -> Repository:
    """The repository a GitHub Actions OIDC token names, verified (docs/upload.md, "Uploads from GitHub
    Actions without a secret"); a 401 saying why it is refused, the same whether or not the repository
    exists here, or a 503 when the issuer's keys cannot be read. The token is never logged."""
    config = current_app.config
    audience = config["COVERAGE_PUBLIC_URL"]
    if not audience:
        log.warning("GitHub Actions OIDC token refused: COVERAGE_PUBLIC_URL, its audience, is not set")
        fail(401, "Upload refused: this service takes no GitHub Actions OIDC tokens (its public URL is not set).")
    enterprise = enterprise_web_url((config["COVERAGE_PROVIDERS"] or {}).get("github_enterprise"))
    try:
        named = verify_actions_token(token, audience=audience, enterprise_url=enterprise)
    except InvalidActionsToken as error:
        log.warning("GitHub Actions OIDC token refused: %s", error)
        if error.unavailable:
            fail(503, f"Upload refused: the GitHub Actions OIDC token could not be checked: {error}; try again later.")
        fail(401, f"Upload refused: the GitHub Actions OIDC token is not valid: {error}.")
    repository = find_repository(named.service, named.owner, named.name)
    if repository is None:
        log.warning("GitHub Actions OIDC token refused: it names %s/%s, not here", named.owner, named.name)
        fail(401, "Upload refused: the GitHub Actions OIDC token is not valid: it opens no repository here.")
    return repository


def read_body(limit: Optional[int]) -> bytes:
    """The request body, read in chunks; a 413 as soon as it passes ``limit`` bytes."""
    body = bytearray()
    stream = request.stream
    while True:
        chunk = stream.read(_READ_SIZE)
        if not chunk:
            return bytes(body)
        body += chunk
        check_size(len(body), limit, "the body")


def _decompressed(body: bytes, limit: Optional[int]) -> bytes | bytearray:
    """``body`` decompressed if it is gzip (by header or by its magic bytes), never past ``limit``."""
    encoding = (request.headers.get("Content-Encoding") or request.headers.get("X-Content-Encoding") or "").strip()
    if encoding.lower() not in ("", "identity", "gzip", "x-gzip"):
        fail(415, f"Upload refused: unsupported Content-Encoding {encoding[:40]!r} (send gzip or nothing).")
    if "gzip" not in encoding.lower() and not body.startswith(GZIP_MAGIC):
        return body
    return gunzip(body, limit)


# The codecov-cli protocol's views and the YAML validator join bp.
from . import codecov_cli, validate  # noqa: E402, F401
