"""An upload's transaction, in its steps: lock the commit, record the upload (or stop at a repeat),
keep the commit's codecov.yml as read for the upload, merge the files into the commit and into each of
its flags, rebuild the file explorer's rows and the trend's day, move the tips, owe the commit its
feedback (the outbox row); and the transaction run again while it loses a lock race.

Concurrent uploads for one commit are serialised by the database, without touching the host's
engine configuration:

- PostgreSQL: the commit row is created with ``INSERT ... ON CONFLICT DO NOTHING`` and then locked
  with ``SELECT ... FOR UPDATE``, so uploads of one commit queue behind each other while uploads of
  other commits proceed.
- SQLite: the transaction's first statement is that same ``INSERT``, a write, so SQLite takes the
  database's write lock before anything is read; the next writer waits for it (the driver's busy
  timeout). A transaction that could not get the lock is rolled back and retried as a whole, as is
  a PostgreSQL serialization failure or deadlock.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Iterable, Iterator
from typing import Any, Callable, Optional, cast

import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

from ..codecov_yml.settings import store_commit_yaml
from ..errors import AlreadyExists
from ..feedback import outbox
from ..git_mirror import CommitAbout
from ..lines import LineCoverage
from ..models import (
    Branch,
    CarriedFlag,
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
from ..parsers import Skips
from ..queries.tree import refresh_tree
from ..queries.trend import refresh_days
from ..state import dialect_insert, execute, get_session
from .carryforward import OWN, carried_files, carried_flags, carry_forward, combined, drop_carried, stored_files
from .reports import Packed
from .target import META_FIELDS, UploadMeta

#: Attempts of a transaction that lost a lock race before the error is given up on.
MAX_ATTEMPTS = 12

_BATCH = 1000
_COMMITS = cast(sa.Table, Commit.__table__)
_FILES = cast(sa.Table, FileCoverage.__table__)
_UPLOADS = cast(sa.Table, Upload.__table__)
_FLAGS = cast(sa.Table, UploadFlag.__table__)
_COMMIT_FLAGS = cast(sa.Table, CommitFlag.__table__)
_CARRIED = cast(sa.Table, CarriedFlag.__table__)
_FLAG_FILES = cast(sa.Table, FlagFileCoverage.__table__)
_TREE = cast(sa.Table, TreeEntry.__table__)
_YAML = cast(sa.Table, CommitYaml.__table__)
_TIPS = {"branch": cast(sa.Table, Branch.__table__), "pull": cast(sa.Table, Pull.__table__)}
# SQLSTATE serialization_failure and deadlock_detected; SQLite's SQLITE_BUSY and SQLITE_LOCKED.
_RETRY_SQLSTATES = frozenset({"40001", "40P01"})
_RETRY_SQLITE_CODES = frozenset({5, 6})


class UploadConflict(AlreadyExists):
    """An upload id (a signed upload URL) that already carried a different upload."""


def with_retries(work: Callable[[], int]) -> int:
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


def store_upload(
    repository_id: int,
    sha: str,
    branch: Optional[str],
    pullid: Optional[int],
    files: dict[str, Packed],
    upload_key: str,
    meta: UploadMeta,
    parent_sha: Optional[str],
    skips: Skips,
    described: Optional[CommitAbout] = None,
    *,
    feedback: bool = False,
    yaml_row: Optional[dict[str, Any]] = None,
    carries: Callable[[str], bool] = lambda flag: False,
) -> int:
    """The upload's transaction, in its steps: lock the commit, record the upload (or stop at a repeat),
    keep the commit's codecov.yml as read for the upload, merge the files into the commit and each flag,
    move the tips, owe the commit its feedback. ``carries`` says which flags are carried forward
    (:mod:`.carryforward`)."""
    commit_id, version, old_branch, timestamp = _lock_commit(repository_id, sha)
    if not _record_upload(commit_id, version, upload_key, meta, skips):
        return commit_id  # a repeat of an upload already merged: nothing changes
    if yaml_row is not None:
        store_commit_yaml(commit_id, yaml_row)
    commit_files = _carry(repository_id, commit_id, version, files, meta.flags, parent_sha, carries)
    _merge_commit(commit_id, commit_files, branch, pullid, parent_sha, described)
    refresh_days(repository_id, {old_branch, branch}, timestamp)
    if meta.flags:
        _merge_flags(commit_id, files, meta.flags, upload_key)
    _move_tips(repository_id, commit_id, branch, pullid)
    if feedback:
        outbox.enqueue_safely(commit_id)  # committed with the coverage; never fails the upload
    return commit_id


def _carry(
    repository_id: int,
    commit_id: int,
    version: int,
    files: dict[str, Packed],
    flags: tuple[str, ...],
    parent_sha: Optional[str],
    carries: Callable[[str], bool],
) -> dict[str, Packed]:
    """Carry flags into the commit at its first upload, or drop those this upload brings; returns what to
    merge into the commit's files (which, when a flag is dropped, were rebuilt without it)."""
    if version == 0:
        parent = parent_sha or execute(sa.select(_COMMITS.c.parent_sha).where(_COMMITS.c.id == commit_id)).scalar()
        carried = carry_forward(repository_id, commit_id, parent, flags, carries)
        if carried:
            _merge_into(_FLAG_FILES, {"commit_id": commit_id, "flag": OWN}, files)
        return combined(carried_files(commit_id, carried), files) if carried else files
    carried = carried_flags(commit_id)
    if not carried:
        return files
    own = {"commit_id": commit_id, "flag": OWN}
    _merge_into(_FLAG_FILES, own, files)
    dropped = [flag for flag in flags if flag in carried]
    if not dropped:
        return files
    drop_carried(commit_id, dropped, carried)
    remaining = [flag for flag in carried if flag not in dropped]
    rebuilt = combined(stored_files(commit_id, OWN), carried_files(commit_id, remaining))
    execute(sa.delete(_FILES).where(_FILES.c.commit_id == commit_id))
    if not remaining:
        execute(sa.delete(_FLAG_FILES).where(*(_FLAG_FILES.c[name] == value for name, value in own.items())))
    return rebuilt


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
        execute(sa.delete(_CARRIED).where(_CARRIED.c.commit_id == commit_id))
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
    files: dict[str, Packed],
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
    values.update(about_values(described))
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


def store_commit(repository_id: int, sha: str, values: dict[str, Any]) -> int:
    """codecov-cli's ``create-commit`` in its transaction: the commit's row, created if new and locked,
    with ``values`` stored on it, and the trend's days of its old and new branch when it moves."""
    commit_id, _, old_branch, timestamp = _lock_commit(repository_id, sha)
    if values:
        execute(sa.update(_COMMITS).where(_COMMITS.c.id == commit_id).values(**values))
    if values.get("branch", old_branch) != old_branch:
        refresh_days(repository_id, {old_branch, values["branch"]}, timestamp)
    return commit_id


def about_values(about: Optional[CommitAbout]) -> dict[str, Any]:
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


def _merge_flags(commit_id: int, files: dict[str, Packed], flags: Iterable[str], upload_key: str) -> None:
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


def _merge_into(stored: sa.Table, key: dict[str, Any], files: dict[str, Packed]) -> dict[str, Any]:
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
