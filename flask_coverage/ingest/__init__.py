"""Getting coverage in: parse reports, merge them into a commit, move the branch and pull tips.

An upload happens in two phases. First every report is parsed and merged per path in memory, with
no database access, so a bad report is refused before anything is touched. Then one transaction
merges the files into the commit's stored files (hits add up, see
:meth:`~flask_coverage.lines.LineCoverage.merge`), recomputes the commit's totals, bumps its
``version``, recomputes the coverage trend's row of the commit's branch and day (``coverage_day``;
that row is locked first, so concurrent uploads of one day each see the others' commits) and moves
the tips.

An upload is merged once, so a client's retry (after a timeout, a broken connection, a 503) does
not double its hits: its key, the SHA-256 of its reports and of what came with them (see
:func:`upload_reports`), is recorded in ``coverage_upload`` right after the commit is locked, and
an upload whose key the commit already has changes nothing. An upload that comes with an
``external_id`` (the id in a signed upload URL) may be retried, but that id cannot carry a second,
different upload: that is an :class:`UploadConflict`.

What the uploader says about an upload (:class:`UploadMeta`: flags, name, build, job, CI URL) is
stored with its ``coverage_upload`` row, its flags as ``coverage_upload_flag`` rows. Its files
are merged, besides the commit's, into the coverage of each of its flags (``coverage_commit_flag``
and ``coverage_flag_file``, kept as the commit's own), in the same transaction, and the file
explorer's folders are rebuilt (``coverage_tree``, :func:`~flask_coverage.queries.tree.refresh_tree`).

The steps, a module each, in the order of an upload:

- :mod:`.target`: which commit (:class:`CommitTarget`), what the uploader says (:class:`UploadMeta`),
  the commit's message and author from the git mirror;
- :mod:`.envelope`: an upload's bytes to its reports, file list and fixes (the legacy envelope,
  codecov-cli's JSON), for the blueprints;
- :mod:`.reports`: the reports parsed, hashed and packed per path;
- :mod:`.paths`: the paths made the repository's (the codecov.yml's ``fixes`` and ``ignore``, the file
  list, the uploader's fixes);
- :mod:`.store`: the transaction (lock, record, merge, flags, tips, the outbox row) and its retries.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, Union

import sqlalchemy as sa
from flask import current_app

from ..codecov_yml.schema import carries_forward
from ..errors import NotFound
from ..feedback import outbox, sender
from ..git_mirror import mirror_files
from ..models import Commit, Repository
from ..parsers import ReportSource, Skips
from ..queries.files import known_paths
from ..queries.repositories import repository_by_slug
from ..state import execute
from .envelope import FileFix
from .paths import path_rules, prepared
from .reports import ProgressCallback, read_reports
from .store import UploadConflict, about_values, store_commit, store_upload, with_retries
from .target import META_FIELDS, CommitTarget, UploadMeta, unknown_about

__all__ = [
    "META_FIELDS",
    "CommitTarget",
    "FileFix",
    "ReportSource",
    "UploadConflict",
    "UploadMeta",
    "record_commit",
    "upload_report",
    "upload_reports",
]


def upload_report(
    repository: Union[Repository, str],
    report: ReportSource,
    *,
    commit: str,
    branch: Optional[str] = None,
    pullid: Union[int, str, None] = None,
    root: Optional[str] = None,
    format: str = "auto",
    progress: Optional[ProgressCallback] = None,
    run_id: Optional[str] = None,
    meta: Optional[UploadMeta] = None,
    parent: Optional[str] = None,
    skips: Optional[Skips] = None,
) -> Commit:
    """Merge one coverage report into a commit of ``repository``; see :func:`upload_reports`."""
    return upload_reports(
        repository,
        [("", report)],
        commit=commit,
        branch=branch,
        pullid=pullid,
        root=root,
        format=format,
        progress=progress,
        run_id=run_id,
        meta=meta,
        parent=parent,
        skips=skips,
    )


@sender.uploading()  # this process's feedback sender lets the upload go first
def upload_reports(
    repository: Union[Repository, str],
    reports: Iterable[tuple[str, ReportSource]],
    *,
    commit: Union[str, CommitTarget],
    branch: Optional[str] = None,
    pullid: Union[int, str, None] = None,
    root: Optional[str] = None,
    format: str = "auto",
    progress: Optional[ProgressCallback] = None,
    run_id: Optional[str] = None,
    meta: Optional[UploadMeta] = None,
    network: Sequence[str] = (),
    fixes: Optional[Mapping[str, FileFix]] = None,
    parent: Optional[str] = None,
    skips: Optional[Skips] = None,
) -> Commit:
    """Merge coverage reports into the commit ``commit`` of ``repository``, in one transaction.

    ``repository`` is a :class:`Repository` or its ``"SERVICE/OWNER/REPO"`` name. ``reports`` are
    ``(name, report)`` pairs; the name (may be empty) only prefixes error messages. Every report is
    read to the end (at most ``COVERAGE_MAX_UPLOAD_BYTES`` each, ``COVERAGE_MAX_REPORT_FILES`` files
    in all) before the database is touched.
    The files are merged with what the commit already has, the commit's totals are recomputed, its
    ``version`` goes up by one, and with ``branch`` / ``pullid`` that branch's / pull request's tip
    moves to the commit. ``progress`` is called with the number of bytes read as reports are read.

    An upload is merged once per commit: the same reports (byte for byte) with the same ``branch``,
    ``pullid``, ``root``, ``format`` and ``run_id`` are a repeat (a client's retry) that changes
    nothing, not even ``version``. ``run_id`` names what produced the reports (the CI build and
    job, say): two runs with identical reports both count only if their ``run_id`` differ.

    ``meta`` (flags, name, build, job, CI URL) is stored with the upload record and is part of its
    key too. ``network`` is the uploader's list of the repository's files, which places report
    paths (:func:`~flask_coverage.parsers.place_by_network`); without one, on the files of the
    commit's tree in the git mirror (``COVERAGE_SOURCE_GIT_ROOT``), else on the files the repository
    already knows (the commit's, its default branch's tip's). ``fixes``
    maps a path to the lines that are not code in it and its last line (:data:`FileFix`): those lines, and any past the
    last one, leave that file's coverage. With ``meta.external_id``, a different upload under an
    id already used raises :class:`UploadConflict` (and changes nothing). ``parent``, the sha of the
    commit's parent (as uploaders send it), is stored on the commit: a pull request's base is the
    parent its uploads name (docs/api.md, pulls and compare).

    ``commit`` may be a :class:`CommitTarget` already checked, which holds the branch, pull request
    and parent (then they are not given again). What the parsers skipped or clamped (docs/parsing.md)
    is counted in ``skips``, when given, and stored with the upload record.

    Returns the commit, committed. Raises :class:`~flask_coverage.errors.InvalidInput` for a bad
    sha, parent sha, branch or pull request number, :class:`~flask_coverage.errors.ReportError` (or its
    ``ReportTooLarge``) for a report that cannot be used, :class:`~flask_coverage.errors.NotFound`
    for an unknown repository, :class:`UploadConflict` for a second upload under one
    ``meta.external_id``; then nothing was changed.
    """
    if isinstance(repository, str):
        repository = repository_by_slug(repository)
    if repository.deleted:
        raise NotFound(f"repository {repository.owner.username}/{repository.name} was deleted")
    target = commit if isinstance(commit, CommitTarget) else CommitTarget.check(commit, branch, pullid, parent)
    sha, branch, pull, parent_sha = target
    repository_id = repository.id
    config = current_app.config
    max_bytes, max_files = config["COVERAGE_MAX_UPLOAD_BYTES"], config["COVERAGE_MAX_REPORT_FILES"]
    digests: list[str] = []
    skips = Skips() if skips is None else skips
    meta = meta or UploadMeta()
    settings, rules, parser_settings, yaml_row = path_rules(repository, sha, meta.flags)
    known = network or mirror_files(repository, sha) or known_paths(repository, sha)
    packed = read_reports(
        reports,
        root=root,
        format=format,
        max_bytes=max_bytes,
        max_files=max_files,
        progress=progress,
        digests=digests,
        skips=skips,
        known=frozenset(known),
        settings=parser_settings,
    )
    files = prepared(packed, rules, known, fixes or {}, skips)
    shaped = [sorted(network), sorted((path, sorted(lines), eof) for path, (lines, eof) in (fixes or {}).items())]
    about = [run_id, branch, pull, root, format, digests, list(meta.flags), meta.name, meta.build, meta.job]
    key = hashlib.sha256(json.dumps([*about, meta.build_url, meta.provider, shaped]).encode()).hexdigest()
    feedback = outbox.wanted(repository)
    described = unknown_about(repository, sha)
    commit_id = with_retries(
        lambda: store_upload(
            repository_id,
            sha,
            branch,
            pull,
            files,
            key,
            meta,
            parent_sha,
            skips,
            described,
            feedback=feedback,
            yaml_row=yaml_row,
            carries=lambda flag: carries_forward(settings, flag),
        )
    )
    if feedback:
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        sender.wake(app, after=app.config["COVERAGE_FEEDBACK_DELAY"])  # when the commit falls due
    return execute(sa.select(Commit).where(Commit.id == commit_id)).scalar_one()


def record_commit(
    repository: Repository,
    commit: Union[str, CommitTarget],
    *,
    branch: Optional[str] = None,
    pullid: Union[int, str, None] = None,
    parent: Optional[str] = None,
) -> Commit:
    """The commit ``commit`` of ``repository``, created if new, with the branch, pull request and
    parent sha given stored on it (what codecov-cli's ``create-commit`` says before it uploads).

    Nothing else changes: the coverage, the version and the tips move with uploads. ``commit`` may
    be a :class:`CommitTarget` already checked. Raises InvalidInput for a bad sha, branch, pull
    request number or parent sha.
    """
    target = commit if isinstance(commit, CommitTarget) else CommitTarget.check(commit, branch, pullid, parent)
    sha = target.sha
    values: dict[str, Any] = {"branch": target.branch, "pullid": target.pullid, "parent_sha": target.parent}
    given = {key: value for key, value in values.items() if value is not None}
    given.update(about_values(unknown_about(repository, sha)))
    commit_id = with_retries(lambda: store_commit(repository.id, sha, given))
    return execute(sa.select(Commit).where(Commit.id == commit_id)).scalar_one()
