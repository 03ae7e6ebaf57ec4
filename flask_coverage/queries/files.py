"""What a commit holds: its files (totals, lines), its flags and its uploads.

Files are read from their totals columns where that is enough (:func:`file_totals`: no line data
decoded, cheap for 100,000 files) and streamed where every line is needed (:func:`file_rows`).
The coverage read is a commit's (all its uploads) or a flag's in it (the uploads with that flag).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple, Optional, Union

import sqlalchemy as sa
from sqlalchemy.orm import aliased

from ..identifiers import refused_character
from ..lines import LineCoverage, Totals
from ..models import (
    Branch,
    CarriedFlag,
    Commit,
    CommitFlag,
    FileCoverage,
    FlagFileCoverage,
    Repository,
    Upload,
    UploadFlag,
)
from ..pagination import Listing
from ..state import execute, get_connection, get_engine

#: What coverage is read from: a commit (all its uploads) or one of its flags (the uploads with it).
Coverage = Union[Commit, CommitFlag]


class FileTotals(NamedTuple):
    """One file of a commit with its totals, read from columns (no line data decoded)."""

    path: str
    lines: int
    hits: int
    misses: int
    partials: int

    @property
    def totals(self) -> Totals:
        """The same counts as a :class:`~flask_coverage.lines.Totals`."""
        return Totals.of(self)


def flags_query(repository: Repository, commit: Optional[Commit]) -> sa.Select:
    """Every flag that uploads to ``repository`` carried, in name order, as rows of ``flag_name``
    and the flag's ``lines``, ``hits``, ``misses`` and ``partials`` in ``commit`` (``NULL`` when
    ``commit`` is ``None`` or has no upload with that flag)."""
    names = (
        sa.select(CommitFlag.flag)
        .join(Commit, Commit.id == CommitFlag.commit_id)
        .where(Commit.repository_id == repository.id)
        .distinct()
        .subquery()
    )
    here = aliased(CommitFlag)
    on = sa.and_(here.flag == names.c.flag, here.commit_id == (commit.id if commit is not None else None))
    columns = (here.lines, here.hits, here.misses, here.partials)
    return sa.select(names.c.flag.label("flag_name"), *columns).outerjoin(here, on).order_by(names.c.flag)


def has_flag(repository: Repository, flag: str) -> bool:
    """Whether an upload to ``repository`` carried ``flag`` (it is among :func:`flags_query`'s flags)."""
    query = sa.select(CommitFlag.id).join(Commit, Commit.id == CommitFlag.commit_id)
    return (
        execute(query.where(Commit.repository_id == repository.id, CommitFlag.flag == flag).limit(1)).first()
        is not None
    )


def carried_origins(commit: Commit) -> dict[str, str]:
    """The flags ``commit`` carries forward (docs/upload.md), each with the sha of the commit it was
    uploaded to."""
    read = sa.select(CarriedFlag.flag, CarriedFlag.origin_sha).where(CarriedFlag.commit_id == commit.id)
    return {flag: origin for flag, origin in execute(read)}


def _file_model(coverage: Coverage) -> tuple[Any, sa.ColumnElement[bool]]:
    """The model that holds the files of ``coverage`` and the condition that selects them."""
    if isinstance(coverage, CommitFlag):
        files = FlagFileCoverage
        return files, sa.and_(files.commit_id == coverage.commit_id, files.flag == coverage.files_flag)
    return FileCoverage, FileCoverage.commit_id == coverage.id


def _files_query(coverage: Coverage, path_prefix: Optional[str]) -> Optional[sa.Select]:
    files, owned = _file_model(coverage)
    query = sa.select(files.path, files.lines, files.hits, files.misses, files.partials).where(owned)
    if path_prefix:
        if refused_character(path_prefix) is not None:
            return None  # no stored path holds such characters
        # substr, not LIKE: exact and case-sensitive on every database, no wildcards to escape.
        query = query.where(sa.func.substr(files.path, 1, len(path_prefix)) == path_prefix)
    return query.order_by(files.path)


def file_totals(commit: Coverage, path_prefix: Optional[str] = None) -> list[FileTotals]:
    """The files of ``commit`` or of a flag of it (only those whose path starts with ``path_prefix``),
    ordered by path.

    Reads the totals columns only, never the line data, so it stays cheap for 100,000 files.
    """
    query = _files_query(commit, path_prefix)
    if query is None:
        return []
    return [FileTotals(*row) for row in execute(query)]


def files_listing(coverage: Coverage, path_prefix: Optional[str] = None) -> Listing:
    """The files of :func:`file_totals` as a list for :func:`~flask_coverage.pagination.paginate`: a page
    of them costs the page, and without ``path_prefix`` they are counted from the ``files`` column."""
    query = _files_query(coverage, path_prefix)
    if query is None:
        return Listing([])
    if path_prefix:
        return Listing(query)
    model = type(coverage)
    return Listing(query, count_query=sa.select(model.files).where(model.id == coverage.id))


def summed_totals(coverage: Coverage, path_prefix: Optional[str] = None) -> tuple[Totals, int]:
    """The totals and the number of the files of ``coverage`` under ``path_prefix``: the stored totals
    without a prefix (nothing summed), else summed by the database."""
    if not path_prefix:
        return Totals.of(coverage), coverage.files
    query = _files_query(coverage, path_prefix)
    if query is None:
        return Totals(), 0
    files = query.order_by(None).subquery()
    sums = [sa.func.coalesce(sa.func.sum(column), 0) for column in (files.c.hits, files.c.misses, files.c.partials)]
    count, hits, misses, partials = execute(sa.select(sa.func.count(), *sums)).one()
    return Totals.from_counts(int(hits), int(misses), int(partials)), int(count)


def file_rows(commit: Coverage, path_prefix: Optional[str] = None) -> Iterator[tuple[str, int, int, int, int, bytes]]:
    """The rows of :func:`iter_file_coverage` as they are stored: ``(path, lines, hits, misses,
    partials, data)``, ``data`` the encoded :class:`~flask_coverage.lines.LineCoverage`.

    Streamed: plain rows of the session's connection (no ORM layer: the report API reads millions of
    them), fetched 1,000 at a time (a server-side cursor on PostgreSQL).
    """
    query = _files_query(commit, path_prefix)
    if query is None:
        return iter(())
    query = query.add_columns(_file_model(commit)[0].data).execution_options(yield_per=1000)
    return iter(get_connection().execute(query))


def iter_file_coverage(
    commit: Coverage, path_prefix: Optional[str] = None
) -> Iterator[tuple[FileTotals, LineCoverage]]:
    """Like :func:`file_totals`, with each file's lines; rows are streamed, not loaded at once."""
    for path, lines, hits, misses, partials, data in file_rows(commit, path_prefix):
        yield FileTotals(path, lines, hits, misses, partials), LineCoverage.decode(data)


def file_lines(commit: Coverage, path: str) -> Optional[LineCoverage]:
    """The line coverage of the file ``path`` of ``commit`` (or of a flag of it), or ``None`` if it
    has no such file."""
    if not path or refused_character(path) is not None:
        return None
    files, owned = _file_model(commit)
    query = sa.select(files.data).where(owned, files.path == path)
    data = execute(query).scalar_one_or_none()
    return None if data is None else LineCoverage.decode(data)


def uploads_query(commit: Commit) -> sa.Select:
    """The uploads of ``commit``, oldest first, as rows of :class:`~flask_coverage.models.Upload`'s
    columns plus ``flags``: the upload's flags joined by ``","`` (``None`` for none), and
    ``carriedforward_from``: for an upload standing for a carried flag, the commit it was uploaded to
    (``None`` for a real upload), in one query."""
    flag = UploadFlag.flag
    joined = (
        sa.func.string_agg(flag, ",") if get_engine().dialect.name == "postgresql" else sa.func.group_concat(flag, ",")
    )
    flags = sa.select(joined).where(UploadFlag.upload_id == Upload.id).scalar_subquery()
    return (
        sa.select(*Upload.__table__.columns, flags.label("flags"), CarriedFlag.origin_sha.label("carriedforward_from"))
        .outerjoin(CarriedFlag, CarriedFlag.upload_id == Upload.id)
        .where(Upload.commit_id == commit.id)
        .order_by(Upload.created_at, Upload.id)
    )


def upload_count(commit: Commit) -> int:
    """How many uploads were merged into ``commit`` (those standing for carried flags not counted)."""
    carried = sa.select(CarriedFlag.upload_id).where(CarriedFlag.commit_id == commit.id)
    counted = sa.select(sa.func.count(Upload.id)).where(Upload.commit_id == commit.id, Upload.id.not_in(carried))
    return int(execute(counted).scalar_one())


def known_paths(repository: Repository, sha: str) -> list[str]:
    """The paths a repository already knows for the commit ``sha``: its own files and those of the
    default branch's tip (what an upload without a file list is placed on, see ingest/paths.py)."""
    own = sa.select(Commit.id).where(Commit.repository_id == repository.id, Commit.sha == sha)
    tip = sa.select(Branch.head_commit_id).where(
        Branch.repository_id == repository.id, Branch.name == repository.branch
    )
    query = sa.select(FileCoverage.path).where(FileCoverage.commit_id.in_(own.union(tip))).distinct()
    return list(execute(query).scalars())


def lines_by_path(commit: Commit, flags: tuple[str, ...] = ()) -> dict[str, LineCoverage]:
    """Every file of ``commit`` with its lines decoded, path → lines: of all its uploads, or with
    ``flags`` of the uploads carrying one of them (a path in several flags' files merged)."""
    if flags:
        # The flags' files are kept under their files key (flags of the same uploads share one copy).
        keys = (
            sa.select(sa.func.coalesce(CommitFlag.files_key, CommitFlag.flag))
            .where(CommitFlag.commit_id == commit.id, CommitFlag.flag.in_(flags))
            .distinct()
        )
        query = sa.select(FlagFileCoverage.path, FlagFileCoverage.data).where(
            FlagFileCoverage.commit_id == commit.id, FlagFileCoverage.flag.in_(keys.scalar_subquery())
        )
    else:
        query = sa.select(FileCoverage.path, FileCoverage.data).where(FileCoverage.commit_id == commit.id)
    found: dict[str, LineCoverage] = {}
    for path, data in execute(query):
        lines = LineCoverage.decode(data)
        found[path] = found[path].merge(lines) if path in found else lines
    return found


def flag_names(*commits: Commit) -> tuple[str, ...]:
    """The flags any of ``commits``' uploads carried, by name."""
    ids = [commit.id for commit in commits]
    query = sa.select(CommitFlag.flag).where(CommitFlag.commit_id.in_(ids)).distinct().order_by(CommitFlag.flag)
    return tuple(execute(query).scalars())


def flag_totals(commit: Commit) -> dict[str, tuple[Totals, int]]:
    """Each flag of ``commit``'s uploads with its totals and number of files, by name."""
    query = sa.select(CommitFlag).where(CommitFlag.commit_id == commit.id).order_by(CommitFlag.flag)
    return {row.flag: (Totals.of(row), row.files) for row in execute(query).scalars()}
