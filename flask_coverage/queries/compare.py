"""Comparing the coverage of two commits: totals, and per file what changed (docs/api.md, compare).

Without a diff of the sources, a comparison says what the reports say: each file of the head commit
with its totals before and after, and how many of the lines tracked in both changed state. A file
whose stored coverage is byte for byte the same in both commits is not decoded at all.

A pull's comparison (its diff, patch and indirect changes) is built on these reads by
:mod:`flask_coverage.feedback.comparison`.

A comparison costs the page it answers, not the commit: :func:`head_files` is a list query in path
order for :func:`flask_coverage.pagination.paginate` (its count is the commit's ``files`` column), and
:func:`compare_page` reads the base's files for the paths of one page only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import sqlalchemy as sa
from sqlalchemy.orm import aliased

from ..lines import HIT, MISS, PARTIAL, LineCoverage, Totals
from ..models import Commit, FileCoverage
from ..state import execute

#: Codecov's names of the line states in a change summary.
STATE_NAMES = {HIT: "hits", MISS: "misses", PARTIAL: "partials"}
#: Paths looked up in one statement (a diff may touch thousands of files).
PATHS_PER_QUERY = 500


@dataclass(frozen=True)
class FileComparison:
    """One file of the head commit: its totals in the base (``None`` if it had none) and in the head,
    and the change summary of the lines tracked in both."""

    path: str
    base: Optional[Totals]
    head: Totals
    change_summary: dict[str, int] = field(default_factory=dict)


def change_summary(base: LineCoverage, head: LineCoverage) -> dict[str, int]:
    """For the lines tracked in both whose state differs: -1 for the base state, +1 for the head's.

    Only the states that changed appear (Codecov's ``change_summary``).
    """
    before = {line: state for line, _, state in base}
    summary: Counter[str] = Counter()
    for line, _, state in head:
        old = before.get(line)
        if old is not None and old != state:
            summary[STATE_NAMES[old]] -= 1
            summary[STATE_NAMES[state]] += 1
    return {name: count for name, count in summary.items() if count}


_COLUMNS = (FileCoverage.path, FileCoverage.lines, FileCoverage.hits, FileCoverage.misses, FileCoverage.partials)


def head_files(head: Commit) -> tuple[sa.Select, sa.Select]:
    """The files of ``head`` in path order, with their line data (a list query for ``paginate``), and
    the count query of that list: the commit's ``files`` column, so no file is counted."""
    query = sa.select(*_COLUMNS, FileCoverage.data).where(FileCoverage.commit_id == head.id)
    return query.order_by(FileCoverage.path), sa.select(Commit.files).where(Commit.id == head.id)


def compare_page(base: Commit, rows: Sequence[Any]) -> list[FileComparison]:
    """The rows of a page of :func:`head_files` compared with the same paths in ``base`` (read for those
    paths alone)."""
    paths = [row[0] for row in rows]
    before = {
        path: (Totals(lines, hits, misses, partials), data)
        for path, lines, hits, misses, partials, data in execute(
            sa.select(*_COLUMNS, FileCoverage.data).where(
                FileCoverage.commit_id == base.id, FileCoverage.path.in_(paths)
            )
        )
    }
    compared = []
    for path, lines, hits, misses, partials, data in rows:
        totals = Totals(lines, hits, misses, partials)
        old = before.get(path)
        if old is None:
            compared.append(FileComparison(path, None, totals))
            continue
        old_totals, old_data = old
        summary = {} if old_data == data else change_summary(LineCoverage.decode(old_data), LineCoverage.decode(data))
        compared.append(FileComparison(path, old_totals, totals, summary))
    return compared


def changed_files(base: Commit, head: Commit) -> list[FileComparison]:
    """The files of ``head`` whose totals differ from ``base``'s (new files included), from the totals
    columns alone (no line data read), the largest change of coverage first; no change summaries."""
    before = aliased(FileCoverage)
    on = sa.and_(before.commit_id == base.id, before.path == FileCoverage.path)
    differs = sa.or_(
        before.id.is_(None),
        before.hits != FileCoverage.hits,
        before.misses != FileCoverage.misses,
        before.partials != FileCoverage.partials,
    )
    old_columns = (before.id, before.lines, before.hits, before.misses, before.partials)
    query = sa.select(*_COLUMNS, *old_columns).outerjoin(before, on).where(FileCoverage.commit_id == head.id, differs)
    changed = [
        FileComparison(path, None if old_id is None else Totals(*old), Totals(lines, hits, misses, partials))
        for path, lines, hits, misses, partials, old_id, *old in execute(query)
    ]
    changed.sort(key=lambda file: (-abs(file.head.coverage - (file.base.coverage if file.base else 0)), file.path))
    return changed


def dropped_files(base: Commit, head: Commit) -> list[tuple[str, Totals]]:
    """The files of ``base`` that ``head`` has no coverage of, by path, with their totals in ``base``
    (from the totals columns)."""
    after = aliased(FileCoverage)
    on = sa.and_(after.commit_id == head.id, after.path == FileCoverage.path)
    query = (
        sa.select(*_COLUMNS)
        .outerjoin(after, on)
        .where(FileCoverage.commit_id == base.id, after.id.is_(None))
        .order_by(FileCoverage.path)
    )
    return [(path, Totals(lines, hits, misses, partials)) for path, lines, hits, misses, partials in execute(query)]


def file_totals_of(commit: Commit, paths: Collection[str]) -> Iterator[tuple[str, Totals]]:
    """``(path, totals)`` of each of ``paths`` that ``commit`` has, a few hundred paths a statement."""
    ordered = sorted(paths)
    for start in range(0, len(ordered), PATHS_PER_QUERY):
        query = sa.select(*_COLUMNS).where(
            FileCoverage.commit_id == commit.id, FileCoverage.path.in_(ordered[start : start + PATHS_PER_QUERY])
        )
        for path, lines, hits, misses, partials in execute(query):
            yield path, Totals(lines, hits, misses, partials)


def files_data(commit: Commit, paths: Collection[str]) -> Iterator[tuple[str, bytes]]:
    """``(path, line data)`` of each of ``paths`` that ``commit`` has, a few hundred paths a statement."""
    ordered = sorted(paths)
    for start in range(0, len(ordered), PATHS_PER_QUERY):
        chunk = ordered[start : start + PATHS_PER_QUERY]
        query = sa.select(FileCoverage.path, FileCoverage.data).where(
            FileCoverage.commit_id == commit.id, FileCoverage.path.in_(chunk)
        )
        yield from execute(query)


def missed_counts(base: Commit, head: Commit) -> Iterator[tuple[str, int, int]]:
    """``(path, lines missed or partial in head, in base)`` of each file both commits have, from the
    totals columns alone (what the indirect changes are decided from)."""
    before = aliased(FileCoverage)
    on = sa.and_(before.commit_id == base.id, before.path == FileCoverage.path)
    columns = (FileCoverage.path, FileCoverage.misses + FileCoverage.partials, before.misses + before.partials)
    yield from execute(sa.select(*columns).join(before, on).where(FileCoverage.commit_id == head.id))
