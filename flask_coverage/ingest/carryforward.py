"""Carryforward flags (docs/upload.md, "Carryforward flags"): a commit whose first upload lacks a flag
marked ``carryforward`` takes that flag's coverage from the nearest ancestor that has it, along the parent
chain and at most :data:`MAX_GENERATIONS` commits back; a real upload of the flag drops it again.

A carried flag is stored as carried, not as uploaded: a ``coverage_carried_flag`` row naming the commit it
was uploaded to, an upload of kind "carriedforward" standing for it, and its files copied once per group
of flags that shared them in the ancestor. While a commit carries flags its own uploads' coverage is also
kept apart (the flag files under :data:`OWN`), so that dropping a carried flag rebuilds the commit's files
as its uploads and the flags still carried, without the dropped one. Called under the commit's lock, in
the upload's transaction (:mod:`.store`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterable
from typing import Any, Optional, cast

import sqlalchemy as sa

from ..models import CarriedFlag, Commit, CommitFlag, FlagFileCoverage, Upload, UploadFlag, utcnow
from ..state import execute
from .reports import Packed

#: How many commits back along the parent chain a flag is looked for (Codecov's bound). A longer chain
#: still carries: each commit carries from its parent what its parent carried.
MAX_GENERATIONS = 10

#: The ``flag`` column of the flag files that keep a commit's own uploads' coverage while it carries
#: flags (no flag name starts with ``~``).
OWN = "~own"

_COMMITS = cast(sa.Table, Commit.__table__)
_COMMIT_FLAGS = cast(sa.Table, CommitFlag.__table__)
_FLAG_FILES = cast(sa.Table, FlagFileCoverage.__table__)
_UPLOADS = cast(sa.Table, Upload.__table__)
_UPLOAD_FLAGS = cast(sa.Table, UploadFlag.__table__)
_CARRIED = cast(sa.Table, CarriedFlag.__table__)
_TOTALS = ("files", "lines", "hits", "misses", "partials")
_FILE_COLUMNS = ("path", "lines", "hits", "misses", "partials", "data")


def carried_flags(commit_id: int) -> dict[str, int]:
    """The flags ``commit_id`` carries, each with the id of the upload standing for it."""
    read = sa.select(_CARRIED.c.flag, _CARRIED.c.upload_id).where(_CARRIED.c.commit_id == commit_id)
    return {flag: upload_id for flag, upload_id in execute(read)}


def carry_forward(
    repository_id: int,
    commit_id: int,
    parent_sha: Optional[str],
    uploaded: Collection[str],
    carries: Callable[[str], bool],
) -> dict[str, int]:
    """Carry into ``commit_id`` (its first upload, with flags ``uploaded``) every flag ``carries`` says is
    carried forward that an ancestor within :data:`MAX_GENERATIONS` has; returns them as
    :func:`carried_flags` does. The commit's own files are not touched (see :func:`carried_files`)."""
    ancestors = _ancestors(repository_id, parent_sha)
    if not ancestors:
        return {}
    order = {ancestor_id: index for index, (ancestor_id, _) in enumerate(ancestors)}
    sha_of = dict(ancestors)
    read = sa.select(_COMMIT_FLAGS).where(_COMMIT_FLAGS.c.commit_id.in_(order), _COMMIT_FLAGS.c.version > 0)
    nearest: dict[str, Any] = {}
    for row in execute(read):
        if row.flag in uploaded or not carries(row.flag):
            continue
        if row.flag not in nearest or order[row.commit_id] < order[nearest[row.flag].commit_id]:
            nearest[row.flag] = row
    if not nearest:
        return {}
    origins = sa.select(_CARRIED.c.commit_id, _CARRIED.c.flag, _CARRIED.c.origin_sha).where(
        _CARRIED.c.commit_id.in_({row.commit_id for row in nearest.values()})
    )
    carried_origin = {(ancestor_id, flag): origin for ancestor_id, flag, origin in execute(origins)}
    copies: dict[tuple[int, str], str] = {}
    out = {}
    for flag, row in sorted(nearest.items()):
        files_flag = row.files_key or row.flag
        key = copies.get((row.commit_id, files_flag))
        if key is None:  # flags that shared their files in the ancestor share one copy here
            key = "~" + hashlib.sha256(f"carried\0{row.commit_id}\0{files_flag}".encode()).hexdigest()[:40]
            copies[row.commit_id, files_flag] = key
            _copy_files(row.commit_id, files_flag, commit_id, key)
        totals = {name: row._mapping[name] for name in _TOTALS}
        execute(sa.insert(_COMMIT_FLAGS).values(commit_id=commit_id, flag=flag, files_key=key, version=1, **totals))
        upload_key = hashlib.sha256(f"carriedforward\0{flag}".encode()).hexdigest()
        insert = sa.insert(_UPLOADS).values(commit_id=commit_id, key=upload_key, created_at=utcnow())
        upload_id = cast(Any, execute(insert)).inserted_primary_key[0]
        execute(sa.insert(_UPLOAD_FLAGS).values(upload_id=upload_id, flag=flag))
        origin = carried_origin.get((row.commit_id, flag), sha_of[row.commit_id])
        execute(sa.insert(_CARRIED).values(commit_id=commit_id, flag=flag, upload_id=upload_id, origin_sha=origin))
        out[flag] = upload_id
    return out


def drop_carried(commit_id: int, flags: Iterable[str], carried: dict[str, int]) -> None:
    """Forget that ``commit_id`` carries ``flags`` (each in ``carried``): their carried uploads and rows go,
    their files too unless a flag still carried shares them, and each flag's coverage starts empty (version
    0) for the real upload that arrives."""
    flags = list(flags)
    upload_ids = [carried[flag] for flag in flags]
    execute(sa.delete(_CARRIED).where(_CARRIED.c.commit_id == commit_id, _CARRIED.c.flag.in_(flags)))
    execute(sa.delete(_UPLOAD_FLAGS).where(_UPLOAD_FLAGS.c.upload_id.in_(upload_ids)))
    execute(sa.delete(_UPLOADS).where(_UPLOADS.c.id.in_(upload_ids)))
    of_commit = _COMMIT_FLAGS.c.commit_id == commit_id
    these = sa.and_(of_commit, _COMMIT_FLAGS.c.flag.in_(flags))
    keys = {key for (key,) in execute(sa.select(_COMMIT_FLAGS.c.files_key).where(these))}
    emptied = {name: 0 for name in _TOTALS}
    execute(sa.update(_COMMIT_FLAGS).where(these).values(version=0, files_key=None, **emptied))
    still = sa.select(_COMMIT_FLAGS.c.files_key).where(of_commit, _COMMIT_FLAGS.c.files_key.in_(keys))
    unused = keys - {key for (key,) in execute(still)}
    if unused:
        execute(sa.delete(_FLAG_FILES).where(_FLAG_FILES.c.commit_id == commit_id, _FLAG_FILES.c.flag.in_(unused)))


def carried_files(commit_id: int, flags: Iterable[str]) -> dict[str, Packed]:
    """The coverage of the carried ``flags`` of ``commit_id``, merged (files they share read once)."""
    read = (
        sa.select(_COMMIT_FLAGS.c.files_key)
        .where(_COMMIT_FLAGS.c.commit_id == commit_id, _COMMIT_FLAGS.c.flag.in_(list(flags)))
        .distinct()
    )
    merged: dict[str, Packed] = {}
    for (key,) in execute(read).all():
        merged = combined(merged, stored_files(commit_id, key))
    return merged


def stored_files(commit_id: int, key: str) -> dict[str, Packed]:
    """The flag files of ``commit_id`` under ``key`` (a flag's files key, or :data:`OWN`), by path."""
    columns = [_FLAG_FILES.c[name] for name in _FILE_COLUMNS]
    rows = execute(sa.select(*columns).where(_FLAG_FILES.c.commit_id == commit_id, _FLAG_FILES.c.flag == key))
    return {path: Packed(*values) for path, *values in rows}


def combined(first: dict[str, Packed], second: dict[str, Packed]) -> dict[str, Packed]:
    """The files of both, a path in both merged (:meth:`~flask_coverage.lines.LineCoverage.merge`)."""
    out = dict(first)
    for path, packed in second.items():
        out[path] = out[path].merge(packed.coverage()) if path in out else packed
    return out


def _ancestors(repository_id: int, sha: Optional[str]) -> list[tuple[int, str]]:
    """The ids and shas of the commits along the parent chain from ``sha``, nearest first, at most
    :data:`MAX_GENERATIONS` (one indexed read each)."""
    found: list[tuple[int, str]] = []
    seen = set()
    while sha is not None and sha not in seen and len(found) < MAX_GENERATIONS:
        seen.add(sha)
        read = sa.select(_COMMITS.c.id, _COMMITS.c.parent_sha).where(
            _COMMITS.c.repository_id == repository_id, _COMMITS.c.sha == sha
        )
        row = execute(read).first()
        if row is None:
            break
        found.append((int(row.id), sha))
        sha = row.parent_sha
    return found


def _copy_files(from_commit: int, from_key: str, to_commit: int, to_key: str) -> None:
    """Copy a flag's files from one commit to another, in the database."""
    rows = sa.and_(_FLAG_FILES.c.commit_id == from_commit, _FLAG_FILES.c.flag == from_key)
    copy = sa.select(sa.literal(to_commit), sa.literal(to_key), *(_FLAG_FILES.c[name] for name in _FILE_COLUMNS))
    execute(sa.insert(_FLAG_FILES).from_select(["commit_id", "flag", *_FILE_COLUMNS], copy.where(rows)))
