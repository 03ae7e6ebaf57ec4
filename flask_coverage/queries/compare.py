"""Comparing the coverage of two commits: totals, and per file what changed (docs/api.md, compare).

Without a diff of the sources, a comparison says what the reports say: each file of the head commit
with its totals before and after, and how many of the lines tracked in both changed state. A file
whose stored coverage is byte for byte the same in both commits is not decoded at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Optional

import sqlalchemy as sa

from ..lines import HIT, MISS, PARTIAL, LineCoverage, Totals
from ..models import Commit, FileCoverage
from ..state import execute

#: Codecov's names of the line states in a change summary.
STATE_NAMES = {HIT: "hits", MISS: "misses", PARTIAL: "partials"}


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


def _files(commit: Commit) -> sa.Select:
    columns = (FileCoverage.path, FileCoverage.lines, FileCoverage.hits, FileCoverage.misses, FileCoverage.partials)
    return sa.select(*columns, FileCoverage.data).where(FileCoverage.commit_id == commit.id).order_by(FileCoverage.path)


def compare_files(base: Commit, head: Commit) -> Iterator[FileComparison]:
    """Every file of ``head``, by path, compared with the same path in ``base``."""
    before = {
        path: (Totals(lines, hits, misses, partials), data)
        for path, lines, hits, misses, partials, data in execute(_files(base))
    }
    rows = execute(_files(head).execution_options(yield_per=500))
    for path, lines, hits, misses, partials, data in rows:
        totals = Totals(lines, hits, misses, partials)
        old = before.get(path)
        if old is None:
            yield FileComparison(path, None, totals)
            continue
        old_totals, old_data = old
        summary = {} if old_data == data else change_summary(LineCoverage.decode(old_data), LineCoverage.decode(data))
        yield FileComparison(path, old_totals, totals, summary)
