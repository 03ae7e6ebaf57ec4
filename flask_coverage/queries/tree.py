"""The file explorer: a commit's folders, each read on its own, with the totals of what is below it.

``coverage_tree`` (:class:`~flask_coverage.models.TreeEntry`) holds one row per file and per folder of a
commit: its parent folder, its name and its totals (a folder's the sum of its files'). A folder's page
reads its entries alone (:func:`folder_entries`, one indexed query, sorted and paged in SQL), so it
costs the same in a repository of 100 files and in one of 100,000. The rows are rebuilt from the
commit's files with every upload (:func:`refresh_tree`, in the upload's transaction), and for the
commits that have none by ``init-db`` (:func:`fill_trees`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import NamedTuple, Optional, cast

import sqlalchemy as sa

from ..identifiers import refused_character
from ..lines import Totals
from ..models import Commit, FileCoverage, TreeEntry
from ..state import execute, get_session

_TREE = cast(sa.Table, TreeEntry.__table__)
_FILES = cast(sa.Table, FileCoverage.__table__)
_BATCH = 1000

#: The explorer's sort keys: a column each, the name for ties.
SORT_KEYS = ("name", "lines", "hits", "partials", "misses", "coverage")
#: Coverage in hundredths of a percent (integer arithmetic: the same order on every database);
#: an entry without tracked lines sorts first.
_COVERAGE = sa.case((_TREE.c.lines == 0, -1), else_=_TREE.c.hits * 10000 / _TREE.c.lines)


class Entry(NamedTuple):
    """A file or a folder of a folder, with its totals."""

    name: str
    folder: bool
    files: int
    lines: int
    hits: int
    misses: int
    partials: int

    @property
    def totals(self) -> Totals:
        return Totals.of(self)


def tree_rows(commit_id: int, files: Iterable[tuple[str, int, int, int, int]]) -> Iterator[dict[str, object]]:
    """The rows of ``coverage_tree`` for the files ``(path, lines, hits, misses, partials)`` of a commit:
    each file as it comes, then each folder above one with the sums of its files (only the folders are
    held: a commit of 100,000 files is not a list of 100,000 rows)."""
    folders: dict[tuple[str, str], list[int]] = {}
    for path, lines, hits, misses, partials in files:
        parts = path.split("/")
        for depth in range(len(parts) - 1):
            key = ("/".join(parts[:depth]), parts[depth])
            sums = folders.setdefault(key, [0, 0, 0, 0, 0])
            for index, value in enumerate((1, lines, hits, misses, partials)):
                sums[index] += value
        yield (
            {
                "commit_id": commit_id,
                "parent": "/".join(parts[:-1]),
                "name": parts[-1],
                "folder": False,
                "files": 1,
                "lines": lines,
                "hits": hits,
                "misses": misses,
                "partials": partials,
            }
        )
    for (parent, name), (count, lines, hits, misses, partials) in folders.items():
        yield (
            {
                "commit_id": commit_id,
                "parent": parent,
                "name": name,
                "folder": True,
                "files": count,
                "lines": lines,
                "hits": hits,
                "misses": misses,
                "partials": partials,
            }
        )


def refresh_tree(commit_id: int) -> None:
    """Rebuild the explorer's rows of a commit from its files (in the caller's transaction).

    The files are read and their rows written :data:`_BATCH` at a time, so only the folders' sums are
    held: 1.3 million files cost what their folders do (docs/deployment.md, "Limits and abuse")."""
    execute(sa.delete(_TREE).where(_TREE.c.commit_id == commit_id))
    rows = tree_rows(commit_id, _files_in_batches(commit_id))
    while batch := list(itertools.islice(rows, _BATCH)):
        execute(sa.insert(_TREE), batch)


def _files_in_batches(commit_id: int) -> Iterator[tuple[str, int, int, int, int]]:
    """``(path, lines, hits, misses, partials)`` of each file of the commit, by path, read a batch at a
    time after the last path read (the ``(commit_id, path)`` index; each batch read whole, so the
    inserts between them may use the same connection)."""
    columns = (_FILES.c.path, _FILES.c.lines, _FILES.c.hits, _FILES.c.misses, _FILES.c.partials)
    query = sa.select(*columns).where(_FILES.c.commit_id == commit_id).order_by(_FILES.c.path).limit(_BATCH)
    batch = execute(query).all()
    while batch:
        yield from batch
        if len(batch) < _BATCH:
            return
        batch = execute(query.where(_FILES.c.path > batch[-1][0])).all()


def fill_trees() -> None:
    """Build the explorer's rows of every commit that has files and none (a database older than the
    table), and commit; ``init-db`` runs it."""
    has_rows = sa.select(_TREE.c.id).where(_TREE.c.commit_id == Commit.id).exists()
    for commit_id in execute(sa.select(Commit.id).where(Commit.files > 0, ~has_rows)).scalars().all():
        refresh_tree(commit_id)
    get_session().commit()


def split_folder(folder: str) -> tuple[str, str]:
    """``(parent, name)`` of a folder path: ``"src/app"`` is ``("src", "app")``, ``"src"`` ``("", "src")``."""
    parent, _, name = folder.rpartition("/")
    return parent, name


def folder_totals(commit: Commit, folder: str) -> Optional[Entry]:
    """The folder ``folder`` of ``commit`` (``""``: the top, the commit's own totals), or ``None``
    (a name no stored path holds included)."""
    if not folder:
        return Entry("", True, commit.files, commit.lines, commit.hits, commit.misses, commit.partials)
    if refused_character(folder) is not None:
        return None
    parent, name = split_folder(folder)
    query = sa.select(*_entry_columns()).where(
        _TREE.c.commit_id == commit.id, _TREE.c.parent == parent, _TREE.c.folder.is_(True), _TREE.c.name == name
    )
    row = execute(query).first()
    return None if row is None else Entry(*row)


def _entry_columns() -> tuple[sa.ColumnElement[object], ...]:
    c = _TREE.c
    return (c.name, c.folder, c.files, c.lines, c.hits, c.misses, c.partials)


def folder_entries(
    commit: Commit, folder: str, *, sort: str = "name", descending: bool = False, limit: int, offset: int = 0
) -> list[Entry]:
    """The entries of ``folder`` in ``commit``: folders first, then files, each group by ``sort``
    (:data:`SORT_KEYS`) then name, from ``offset``, at most ``limit``."""
    key = _COVERAGE if sort == "coverage" else _TREE.c[sort]
    keys = [key, _TREE.c.name] if sort != "name" else [key]
    ordered = [column.desc() if descending else column.asc() for column in keys]
    query = (
        sa.select(*_entry_columns())
        .where(_TREE.c.commit_id == commit.id, _TREE.c.parent == folder)
        .order_by(_TREE.c.folder.desc(), *ordered)
        .limit(limit)
        .offset(offset)
    )
    return [Entry(*row) for row in execute(query)]


def entry_count(commit: Commit, folder: str) -> int:
    """How many entries (files and folders) ``folder`` of ``commit`` holds."""
    count = (
        sa.select(sa.func.count()).select_from(_TREE).where(_TREE.c.commit_id == commit.id, _TREE.c.parent == folder)
    )
    return int(execute(count).scalar_one())
