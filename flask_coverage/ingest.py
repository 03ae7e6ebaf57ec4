"""Getting coverage in: parse reports, merge them into a commit, move the branch and pull tips.

An upload happens in two phases. First every report is parsed and merged per path in memory, with
no database access, so a bad report is refused before anything is touched. Then one transaction
merges the files into the commit's stored files (hits add up, see
:meth:`~flask_coverage.lines.LineCoverage.merge`), recomputes the commit's totals, bumps its
``version``, recomputes the coverage trend's row of the commit's branch and day (``coverage_day``;
that row is locked first, so concurrent uploads of one day each see the others' commits) and moves
the tips.

Concurrent uploads for one commit are serialised by the database, without touching the host's
engine configuration:

- PostgreSQL: the commit row is created with ``INSERT ... ON CONFLICT DO NOTHING`` and then locked
  with ``SELECT ... FOR UPDATE``, so uploads of one commit queue behind each other while uploads of
  other commits proceed.
- SQLite: the transaction's first statement is that same ``INSERT``, a write, so SQLite takes the
  database's write lock before anything is read; the next writer waits for it (the driver's busy
  timeout). A transaction that could not get the lock is rolled back and retried as a whole, as is
  a PostgreSQL serialization failure or deadlock.

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
explorer's folders are rebuilt (``coverage_tree``, :func:`~flask_coverage.queries.tree.refresh_tree`). Its file list
(``network``) places report paths (:func:`~flask_coverage.parsers.place_by_network`), and its
``fixes`` take lines that are not code out of a file's coverage. The ``codecov.yml`` in force at the
commit (:func:`~flask_coverage.feedback.settings.upload_settings`, read before the transaction and kept
with the commit) rewrites paths by its ``fixes`` before they are placed, and its ``ignore`` (and the
``ignore`` and ``paths`` of the upload's flags) leaves files out (docs/pull-requests.md).
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import logging
import posixpath
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable, NamedTuple, Optional, Union, cast

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.exc import OperationalError

from .errors import AlreadyExists, NotFound, ReportError
from .feedback import outbox, sender
from .feedback.codecov_yml import PathRules
from .feedback.settings import store_commit_yaml, upload_settings
from .git_mirror import CommitAbout, commit_about, mirror_files
from .identifiers import check_flags, check_name, check_sha, normalize_branch, normalize_pullid
from .lines import LineCoverage
from .models import (
    Branch,
    Commit,
    CommitFlag,
    CommitYaml,
    FileCoverage,
    FlagFileCoverage,
    Pull,
    Repository,
    TreeEntry,
    Upload,
    UploadFlag,
    utcnow,
)
from .parsers import ParsedFile, Skips, parse_report, place_by_network
from .parsers.upload import FileFix
from .queries.files import known_paths
from .queries.repositories import repository_by_slug
from .queries.tree import refresh_tree
from .queries.trend import refresh_days
from .state import dialect_insert, execute, get_session

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

#: A report: its bytes, or a binary file object that is read once, in chunks.
ReportSource = Union[bytes, bytearray, memoryview, BinaryIO]
#: Called with the number of report bytes read since the previous call.
ProgressCallback = Callable[[int], None]


#: The fields of :class:`UploadMeta` besides ``flags`` and ``external_id``, as stored on the upload.
META_FIELDS = ("name", "build", "job", "build_url", "provider")
#: The reason counted in an upload's skips for the files its codecov.yml ignores.
IGNORED_BY_YAML = "files the codecov.yml ignores, skipped"
#: Attempts of a transaction that lost a lock race before the error is given up on.
MAX_ATTEMPTS = 12

_MAX_PATH_LENGTH: int = FileCoverage.__table__.c.path.type.length  # type: ignore[attr-defined]
_BATCH = 1000
log = logging.getLogger(__name__)
_COMMITS = cast(sa.Table, Commit.__table__)
_FILES = cast(sa.Table, FileCoverage.__table__)
_UPLOADS = cast(sa.Table, Upload.__table__)
_FLAGS = cast(sa.Table, UploadFlag.__table__)
_COMMIT_FLAGS = cast(sa.Table, CommitFlag.__table__)
_FLAG_FILES = cast(sa.Table, FlagFileCoverage.__table__)
_TREE = cast(sa.Table, TreeEntry.__table__)
_YAML = cast(sa.Table, CommitYaml.__table__)
_TIPS = {"branch": cast(sa.Table, Branch.__table__), "pull": cast(sa.Table, Pull.__table__)}
# SQLSTATE serialization_failure and deadlock_detected; SQLite's SQLITE_BUSY and SQLITE_LOCKED.
_RETRY_SQLSTATES = frozenset({"40001", "40P01"})
_RETRY_SQLITE_CODES = frozenset({5, 6})


class UploadConflict(AlreadyExists):
    """An upload id (a signed upload URL) that already carried a different upload."""


@dataclass(frozen=True)
class UploadMeta:
    """What an uploader says about an upload beyond its reports; stored with the upload record.

    Build it with :meth:`create`, which checks each value.
    """

    flags: tuple[str, ...] = ()
    name: Optional[str] = None
    build: Optional[str] = None
    job: Optional[str] = None
    build_url: Optional[str] = None
    provider: Optional[str] = None
    external_id: Optional[str] = field(default=None, compare=False)

    @classmethod
    def create(
        cls,
        *,
        flags: Union[str, Iterable[str], None] = None,
        external_id: Optional[str] = None,
        **values: Any,
    ) -> UploadMeta:
        """The meta with ``flags`` checked (:func:`check_flags`) and each other value a clean name.

        ``values`` are ``name``, ``build``, ``job``, ``build_url`` and ``provider``: blank means
        none; longer than its column or holding control characters is an InvalidInput.
        """
        checked: dict[str, Optional[str]] = {}
        for key, value in values.items():
            length: int = Upload.__table__.c[key].type.length  # type: ignore[attr-defined]
            text = "" if value is None else str(value).strip()
            what = {"build_url": "CI URL", "provider": "CI service"}.get(key, key)
            checked[key] = check_name(text, what, max_length=length, single_word=False) if text else None
        return cls(flags=check_flags(flags), external_id=external_id, **checked)


class CommitTarget(NamedTuple):
    """The commit an upload goes to, checked once (:meth:`check`): full sha, branch and pull request
    it moves (``None``: none), parent sha."""

    sha: str
    branch: Optional[str] = None
    pullid: Optional[int] = None
    parent: Optional[str] = None

    @classmethod
    def check(cls, commit: str, branch: Optional[str] = None, pullid: Any = None, parent: Any = None) -> CommitTarget:
        """The target of these arguments as uploaders send them; InvalidInput naming a bad one."""
        sha = check_sha(commit)
        parent_sha = check_sha(parent, "parent") if parent else None
        return cls(sha, normalize_branch(branch), normalize_pullid(pullid), parent_sha)


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
    read to the end (at most ``COVERAGE_MAX_UPLOAD_BYTES`` each) before the database is touched.
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
    max_bytes = current_app.config["COVERAGE_MAX_UPLOAD_BYTES"]
    digests: list[str] = []
    skips = Skips() if skips is None else skips
    parsed = _parse_all(
        reports, root=root, format=format, max_bytes=max_bytes, progress=progress, digests=digests, skips=skips
    )
    meta = meta or UploadMeta()
    rules, yaml_row = _path_rules(repository, sha, meta.flags)
    # The codecov.yml's fixes, then placement, before the merge: two uploaders' spellings of a file end up as one path.
    known = network or mirror_files(repository, sha) or known_paths(repository, sha)
    files = _placed(_rewritten(_packed_by_path(parsed), rules), known)
    files = _kept(_fixed(files, fixes or {}), rules, skips)
    shaped = [sorted(network), sorted((path, sorted(lines), eof) for path, (lines, eof) in (fixes or {}).items())]
    about = [run_id, branch, pull, root, format, digests, list(meta.flags), meta.name, meta.build, meta.job]
    key = hashlib.sha256(json.dumps([*about, meta.build_url, meta.provider, shaped]).encode()).hexdigest()
    described = _unknown_about(repository, sha)
    feedback = outbox.wanted(repository)
    commit_id = _with_retries(
        lambda: _store(
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
        )
    )
    if feedback:
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        sender.wake(app, after=app.config["COVERAGE_FEEDBACK_DELAY"])  # when the commit falls due
    return execute(sa.select(Commit).where(Commit.id == commit_id)).scalar_one()


class _Packed(NamedTuple):
    """A file's coverage as it is stored: its totals' columns and its encoded lines (``data``).

    An upload holds every file of its reports until its transaction: packed, a file costs its encoding
    (a few bytes per line, compressed) instead of a :class:`LineCoverage`'s 9 bytes per line and
    its arrays, which kept a 50 MB SimpleCov report of 141,000 files over 300 MB.
    """

    lines: int
    hits: int
    misses: int
    partials: int
    data: bytes

    @classmethod
    def of(cls, coverage: LineCoverage) -> _Packed:
        totals = coverage.totals()
        return cls(totals.lines, totals.hits, totals.misses, totals.partials, coverage.encode())

    def coverage(self) -> LineCoverage:
        return LineCoverage.decode(self.data)

    def merge(self, other: LineCoverage) -> _Packed:
        return _Packed.of(self.coverage().merge(other))


def _packed_by_path(files: Iterable[ParsedFile]) -> dict[str, _Packed]:
    """The parsed files packed, merged per path (as :func:`~flask_coverage.parsers.merge_by_path`); a
    path repeated right after itself (Java's inner classes, one ``<class>`` each) is merged unpacked."""
    packed: dict[str, _Packed] = {}
    path, lines = "", None
    for parsed in files:
        if lines is not None and parsed.path == path:
            lines = lines.merge(parsed.lines)
            continue
        if lines is not None:
            packed[path] = _Packed.of(lines) if path not in packed else packed[path].merge(lines)
        path, lines = parsed
    if lines is not None:
        packed[path] = _Packed.of(lines) if path not in packed else packed[path].merge(lines)
    return packed


def _placed(files: dict[str, _Packed], known: Iterable[str]) -> dict[str, _Packed]:
    """``files`` with each path moved to the repository's file it names (:func:`place_by_network`)."""
    for old, new in place_by_network(files, known).items():
        _check_storable(new)
        moved = files.pop(old)
        files[new] = moved if new not in files else files[new].merge(moved.coverage())
    return files


def _path_rules(repository: Repository, sha: str, flags: tuple[str, ...]) -> tuple[PathRules, Optional[dict[str, Any]]]:
    """The ``ignore`` and ``fixes`` of the codecov.yml in force at the commit, for an upload with these
    ``flags``, and the commit's YAML to store with the upload (:func:`~.feedback.settings.upload_settings`).
    No rules when it cannot be read: an upload never fails because of its YAML."""
    try:
        settings, row = upload_settings(repository, sha)
    except Exception:
        log.exception("the codecov.yml of %s could not be read for its upload", sha[:12])
        get_session().rollback()
        return PathRules(), None
    return PathRules.of(settings.value, flags), row


def _rewritten(files: dict[str, _Packed], rules: PathRules) -> dict[str, _Packed]:
    """``files`` under the paths the codecov.yml's ``fixes`` give them; a path a fix would make empty
    or climbing out of the repository keeps its name."""
    if not rules.fixes:
        return files
    out: dict[str, _Packed] = {}
    for path, packed in files.items():
        fixed = posixpath.normpath(rules.fix(path))
        if fixed in ("", ".", "..") or fixed.startswith(("../", "/")):
            fixed = path
        _check_storable(fixed)
        out[fixed] = out[fixed].merge(packed.coverage()) if fixed in out else packed
    return out


def _kept(files: dict[str, _Packed], rules: PathRules, skips: Skips) -> dict[str, _Packed]:
    """``files`` without those the codecov.yml ignores (counted in ``skips``)."""
    if not rules.keep:
        return files
    kept = {path: lines for path, lines in files.items() if rules.kept(path)}
    if len(kept) < len(files):
        skips.add(IGNORED_BY_YAML, len(files) - len(kept))
    return kept


def _fixed(files: dict[str, _Packed], fixes: Mapping[str, FileFix]) -> dict[str, _Packed]:
    """``files`` without the lines the uploader says are not code; a file the fixes leave with no line
    is dropped. A ReportError if no file is left."""
    for path, (not_code, eof) in fixes.items():
        if path in files:
            kept = [e for e in files[path].coverage() if e[0] not in not_code and (eof is None or e[0] <= eof)]
            files[path] = _Packed.of(LineCoverage(kept))
            if not kept:
                del files[path]
    if not files:
        raise ReportError("the upload has no files with coverage")
    return files


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
    given.update(_about_values(_unknown_about(repository, sha)))
    insert = dialect_insert
    this = sa.and_(_COMMITS.c.repository_id == repository.id, _COMMITS.c.sha == sha)

    def store() -> int:
        row = {"repository_id": repository.id, "sha": sha, "timestamp": utcnow()}
        execute(insert(_COMMITS).values(**row).on_conflict_do_nothing(index_elements=["repository_id", "sha"]))
        read = sa.select(_COMMITS.c.id, _COMMITS.c.branch, _COMMITS.c.timestamp).where(this).with_for_update()
        commit_id, old_branch, timestamp = execute(read).one()
        if given:
            execute(sa.update(_COMMITS).where(this).values(**given))
        if given.get("branch", old_branch) != old_branch:
            refresh_days(repository.id, {old_branch, target.branch}, timestamp)
        return int(commit_id)

    commit_id = _with_retries(store)
    return execute(sa.select(Commit).where(Commit.id == commit_id)).scalar_one()


class _HashingReader:
    """A binary file object over ``source`` that hashes what is read and reports its size to ``progress``."""

    def __init__(self, source: ReportSource, digest: Any, progress: Optional[ProgressCallback]) -> None:
        self._file = io.BytesIO(source) if isinstance(source, (bytes, bytearray, memoryview)) else source
        self._digest = digest
        self._progress = progress

    def read(self, size: int = -1) -> bytes:
        chunk = self._file.read(size)
        if chunk:
            self._digest.update(chunk)
            if self._progress is not None:
                self._progress(len(chunk))
        return chunk


def _parse_all(
    reports: Iterable[tuple[str, ReportSource]],
    *,
    root: Optional[str],
    format: str,
    max_bytes: Optional[int],
    progress: Optional[ProgressCallback],
    digests: list[str],
    skips: Skips,
) -> Iterator[ParsedFile]:
    for name, source in reports:  # each report's SHA-256 goes to digests once it was read
        digest = hashlib.sha256()
        if progress is None and isinstance(source, (bytes, bytearray, memoryview)):
            digest.update(source)
        else:
            source = _HashingReader(source, digest, progress)  # type: ignore[assignment]
        try:
            for parsed in parse_report(source, format=format, root=root, max_bytes=max_bytes, skips=skips, name=name):
                _check_storable(parsed.path)
                yield parsed
            digests.append(digest.hexdigest())
        except ReportError as error:
            # Name the report inside a multi-report upload; same class, so a 413 stays a 413.
            if not name:
                raise
            raise type(error)(f"report {name!r}: {error}") from None


def _check_storable(path: str) -> None:
    # What the path column can hold (the parsers already applied the name rule, flask_coverage.identifiers).
    if len(path) > _MAX_PATH_LENGTH:
        raise ReportError(f"path {path[:80]!r}... is longer than {_MAX_PATH_LENGTH} characters")


def _with_retries(work: Callable[[], int]) -> int:
    """``work()`` in a transaction, committed; run again while it loses a lock race."""
    session = get_session()
    for attempt in itertools.count(1):
        try:
            result = work()
            session.commit()
            return result
        except OperationalError as error:
            session.rollback()
            if attempt >= MAX_ATTEMPTS or not _lost_lock_race(error):
                raise
        except BaseException:
            session.rollback()
            raise
        # The lock holder is busy writing; wait a little longer each time (at most 1 s).
        time.sleep(min(1.0, 0.01 * 2**attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def _lost_lock_race(error: OperationalError) -> bool:
    orig: Any = error.orig
    if getattr(orig, "sqlstate", None) in _RETRY_SQLSTATES:
        return True
    code = getattr(orig, "sqlite_errorcode", None)  # Python 3.11+; the message before that
    if code is not None:
        return (code & 0xFF) in _RETRY_SQLITE_CODES
    return "database is locked" in str(orig) or "database table is locked" in str(orig)


def _store(
    repository_id: int,
    sha: str,
    branch: Optional[str],
    pullid: Optional[int],
    files: dict[str, _Packed],
    upload_key: str,
    meta: UploadMeta,
    parent_sha: Optional[str],
    skips: Skips,
    described: Optional[CommitAbout] = None,
    *,
    feedback: bool = False,
    yaml_row: Optional[dict[str, Any]] = None,
) -> int:
    """The upload's transaction, in its steps: lock the commit, record the upload (or stop at a repeat),
    keep the commit's codecov.yml as read for the upload, merge the files into the commit and each flag,
    move the tips, owe the commit its feedback."""
    commit_id, version, old_branch, timestamp = _lock_commit(repository_id, sha)
    if not _record_upload(commit_id, version, upload_key, meta, skips):
        return commit_id  # a repeat of an upload already merged: nothing changes
    if yaml_row is not None:
        store_commit_yaml(commit_id, yaml_row)
    _merge_commit(commit_id, files, branch, pullid, parent_sha, described)
    refresh_days(repository_id, {old_branch, branch}, timestamp)
    if meta.flags:
        _merge_flags(commit_id, files, meta.flags, upload_key)
    _move_tips(repository_id, commit_id, branch, pullid)
    if feedback:
        outbox.enqueue_safely(commit_id)  # committed with the coverage; never fails the upload
    return commit_id


def _lock_commit(repository_id: int, sha: str) -> tuple[int, int, Optional[str], Any]:
    """The commit's row, created if new and locked: its id, version, branch and timestamp."""
    # First statement, and a write: on SQLite it takes the write lock before anything is read.
    execute(
        dialect_insert(_COMMITS)
        .values(repository_id=repository_id, sha=sha)
        .on_conflict_do_nothing(index_elements=["repository_id", "sha"])
    )
    this = sa.and_(_COMMITS.c.repository_id == repository_id, _COMMITS.c.sha == sha)
    read = sa.select(_COMMITS.c.id, _COMMITS.c.version, _COMMITS.c.branch, _COMMITS.c.timestamp).where(this)
    commit_id, version, branch, timestamp = execute(read.with_for_update()).one()
    return int(commit_id), version, branch, timestamp


def _record_upload(commit_id: int, version: int, upload_key: str, meta: UploadMeta, skips: Skips) -> bool:
    """Record the upload with its flags and what was skipped; False for a repeat (its key is there)."""
    uploads = _UPLOADS
    # Under the commit's lock: a concurrent repeat waits for it, then finds its key and stops.
    repeat = sa.select(uploads.c.id).where(uploads.c.commit_id == commit_id, uploads.c.key == upload_key)
    if version == 0:  # created just now, maybe with a deleted commit's id, whose uploads SQLite kept
        kept = sa.select(uploads.c.id).where(uploads.c.commit_id == commit_id).scalar_subquery()
        execute(sa.delete(_FLAGS).where(_FLAGS.c.upload_id.in_(kept)))
        execute(sa.delete(uploads).where(uploads.c.commit_id == commit_id))
        for table in (_FLAG_FILES, _COMMIT_FLAGS, _TREE, _YAML):
            execute(sa.delete(table).where(table.c.commit_id == commit_id))
    elif execute(repeat).first():
        return False
    if meta.external_id is not None:
        used = sa.select(uploads.c.id).where(
            uploads.c.commit_id == commit_id, uploads.c.external_id == meta.external_id
        )
        if execute(used).first():
            raise UploadConflict("this upload URL was already used for a different upload")
    about = {key: getattr(meta, key) for key in ("external_id", *META_FIELDS)}
    about.update(skipped=skips.total, skip_reasons=skips.counts or None)
    row = sa.insert(uploads).values(commit_id=commit_id, key=upload_key, created_at=utcnow(), **about)
    upload_id = cast(Any, execute(row)).inserted_primary_key[0]
    if meta.flags:
        execute(sa.insert(_FLAGS), [{"upload_id": upload_id, "flag": flag} for flag in meta.flags])
    return True


def _merge_commit(
    commit_id: int,
    files: dict[str, _Packed],
    branch: Optional[str],
    pullid: Optional[int],
    parent_sha: Optional[str],
    described: Optional[CommitAbout],
) -> None:
    """Merge ``files`` into the commit's, with its new totals, version, branch, pull, parent, message and
    author (where it has none yet), and rebuild its file explorer's rows."""
    values: dict[str, Any] = {"version": _COMMITS.c.version + 1, **_merge_into(_FILES, {"commit_id": commit_id}, files)}
    if branch is not None:
        values["branch"] = branch
    if pullid is not None:
        values["pullid"] = pullid
    if parent_sha is not None:
        values["parent_sha"] = parent_sha
    values.update(_about_values(described))
    execute(sa.update(_COMMITS).where(_COMMITS.c.id == commit_id).values(**values))
    refresh_tree(commit_id)


def _move_tips(repository_id: int, commit_id: int, branch: Optional[str], pullid: Optional[int]) -> None:
    """Move the branch's and the pull request's tips to the commit."""
    now = utcnow()
    tips: list[tuple[Any, dict[str, Any], dict[str, Any]]] = []
    if pullid is not None:
        # Read before the branch tip moves: the pull's base is the parent this commit names unless
        # that is one of the pull's own commits (a second push names the first), else the default
        # branch's tip as it was before this upload (kept from the pull's first upload). The real base
        # is found later, from the provider or the git mirror (flask_coverage.feedback.base).
        parent = execute(sa.select(_COMMITS.c.parent_sha).where(_COMMITS.c.id == commit_id)).scalar()
        if parent is not None:
            own = sa.select(_COMMITS.c.id).where(
                _COMMITS.c.repository_id == repository_id, _COMMITS.c.sha == parent, _COMMITS.c.pullid == pullid
            )
            parent = None if execute(own).first() else parent
        base = parent or execute(_default_tip_sha(repository_id)).scalar()
        pull_update = {"base_sha": parent} if parent else {}
    if branch is not None:
        tips.append((_TIPS["branch"], {"name": branch}, {}))
    if pullid is not None:
        tips.append((_TIPS["pull"], {"pullid": pullid, "base_sha": base}, pull_update))
    for table, tip, changes in tips:
        # Branch before pull, in every upload: concurrent uploads take these row locks in one order.
        unique = [name for name in tip if name != "base_sha"]
        statement = dialect_insert(table).values(
            repository_id=repository_id, head_commit_id=commit_id, updatestamp=now, **tip
        )
        execute(
            statement.on_conflict_do_update(
                index_elements=["repository_id", *unique],
                set_={"head_commit_id": commit_id, "updatestamp": now, **changes},
            )
        )


def _unknown_about(repository: Repository, sha: str) -> Optional[CommitAbout]:
    """The message and author of a commit not stored with them yet, from the git mirror (if any),
    read before the upload's transaction: once per commit, never per page view."""
    known = sa.select(_COMMITS.c.message).where(
        _COMMITS.c.repository_id == repository.id, _COMMITS.c.sha == sha, _COMMITS.c.message.is_not(None)
    )
    return None if execute(known).first() else commit_about(repository, sha)


def _about_values(about: Optional[CommitAbout]) -> dict[str, Any]:
    """The columns ``about`` fills, where they are still empty."""
    if about is None:
        return {}
    return {
        "message": sa.func.coalesce(_COMMITS.c.message, about.message),
        "author_name": sa.func.coalesce(_COMMITS.c.author_name, about.author_name),
    }


def _default_tip_sha(repository_id: int) -> sa.Select:
    repositories, branches = cast(sa.Table, Repository.__table__), _TIPS["branch"]
    return (
        sa.select(_COMMITS.c.sha)
        .join(branches, branches.c.head_commit_id == _COMMITS.c.id)
        .join(repositories, repositories.c.id == branches.c.repository_id)
        .where(repositories.c.id == repository_id, branches.c.name == repositories.c.branch)
    )


def _merge_flags(commit_id: int, files: dict[str, _Packed], flags: Iterable[str], upload_key: str) -> None:
    """Merge the upload's ``files`` into the coverage of each of its ``flags``, under the commit's lock.

    Flags carried by the same uploads of a commit have the same files, kept once: the flags of this upload
    that shared files before (or are new) move together to a new key of the files, made of the old one and
    this upload. The old rows are renamed to it when no other flag of the commit uses them, else copied;
    then the upload's files are merged into them once for all those flags. So an upload costs one merge
    per distinct history among its flags (one for flags that always come together), never one per flag.
    """
    flag_rows = _COMMIT_FLAGS
    execute(
        dialect_insert(flag_rows)
        .values([{"commit_id": commit_id, "flag": flag} for flag in flags])
        .on_conflict_do_nothing(index_elements=["commit_id", "flag"])
    )
    of_commit = flag_rows.c.commit_id == commit_id
    read = sa.select(flag_rows.c.flag, flag_rows.c.files_key, flag_rows.c.version).where(
        of_commit, flag_rows.c.flag.in_(list(flags))
    )
    groups: dict[Optional[str], list[str]] = {}
    for flag, files_key, version in execute(read):
        groups.setdefault(None if version == 0 else files_key or flag, []).append(flag)
    for old_key, members in groups.items():
        new_key = "~" + hashlib.sha256(f"{old_key}\0{upload_key}".encode()).hexdigest()[:40]
        if old_key is not None:
            rows = sa.and_(_FLAG_FILES.c.commit_id == commit_id, _FLAG_FILES.c.flag == old_key)
            shared = sa.func.coalesce(flag_rows.c.files_key, flag_rows.c.flag) == old_key
            others = sa.select(flag_rows.c.id).where(of_commit, shared, flag_rows.c.flag.not_in(members)).limit(1)
            if execute(others).first() is None:
                execute(sa.update(_FLAG_FILES).where(rows).values(flag=new_key))
            else:
                columns = ("path", "lines", "hits", "misses", "partials", "data")
                copy = sa.select(
                    _FLAG_FILES.c.commit_id, sa.literal(new_key), *(_FLAG_FILES.c[name] for name in columns)
                )
                execute(sa.insert(_FLAG_FILES).from_select(["commit_id", "flag", *columns], copy.where(rows)))
        totals = _merge_into(_FLAG_FILES, {"commit_id": commit_id, "flag": new_key}, files)
        these = sa.and_(of_commit, flag_rows.c.flag.in_(members))
        execute(sa.update(flag_rows).where(these).values(version=flag_rows.c.version + 1, files_key=new_key, **totals))


def _merge_into(stored: sa.Table, key: dict[str, Any], files: dict[str, _Packed]) -> dict[str, Any]:
    """Merge ``files`` into the rows of ``stored`` (commit files or a flag's files) whose columns
    equal ``key``; returns their new totals: ``files``, ``lines``, ``hits``, ``misses``, ``partials``."""
    owned = sa.and_(*(stored.c[name] == value for name, value in key.items()))
    existing = dict(execute(sa.select(stored.c.path, stored.c.id).where(owned)).all())
    merged = dict(files)  # a copy: a retried transaction starts again from the parsed files
    overlap = [existing[path] for path in merged if path in existing]
    path_of = {file_id: path for path, file_id in existing.items()}
    for ids in _batched(overlap, _BATCH):
        for file_id, data in execute(sa.select(stored.c.id, stored.c.data).where(stored.c.id.in_(ids))):
            path = path_of[file_id]
            merged[path] = merged[path].merge(LineCoverage.decode(data))

    new_rows = ({**key, "path": path, **packed._asdict()} for path, packed in merged.items() if path not in existing)
    for rows in _batched(new_rows, _BATCH):
        execute(sa.insert(stored), rows)
    changed = ({"file_id": existing[path], **merged[path]._asdict()} for path in merged if path in existing)
    update = sa.update(stored).where(stored.c.id == sa.bindparam("file_id"))
    for rows in _batched(changed, _BATCH):
        execute(update, rows)

    count, lines, hits, misses, partials = execute(
        sa.select(
            sa.func.count(stored.c.id),
            *(
                sa.func.coalesce(sa.func.sum(column), 0)
                for column in (stored.c.lines, stored.c.hits, stored.c.misses, stored.c.partials)
            ),
        ).where(owned)
    ).one()
    return {"files": count, "lines": lines, "hits": hits, "misses": misses, "partials": partials}


def _batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch
