"""What a graph is drawn from: the ``(path, lines, hits)`` records of a commit, read once per coverage version.

Not a blueprint: the graph views (:mod:`flask_coverage.blueprints.graphs`), the benchmarks and the
tests read records through here. :func:`graph_records` keeps the records of the commits drawn last in
this process, keyed by the commit's coverage version, within a byte budget
(:data:`RECORDS_CACHE_BYTES`): a graph of a new size, border or kind of a commit already drawn costs
its layout only, never another database read. An upload bumps the version, so a record set is never
stale; the oldest sets go first when the budget is spent. See docs/graphs.md ("Limits").
"""

from __future__ import annotations

import contextlib
import functools
import gc
import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Sequence
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.compiler import SQLCompiler

from ..models import CommitFlag, FileCoverage, FlagFileCoverage
from ..state import get_connection
from .files import Coverage

__all__ = ["RECORDS_CACHE_BYTES", "gc_paused", "graph_records", "read_graph_records"]

#: The bytes of records one process keeps (about 4 MB per 20,000 files).
RECORDS_CACHE_BYTES = 64 * 1024 * 1024
# Per record beyond its path: the tuple, two small ints, the list slot.
_RECORD_OVERHEAD = 120


@functools.lru_cache(maxsize=8)
def _records_query(dialect: Dialect, flagged: bool) -> SQLCompiler:
    files = (FlagFileCoverage if flagged else FileCoverage).__table__.c
    query = sa.select(files.path, files.lines, files.hits).where(files.commit_id == sa.bindparam("commit_id"))
    if flagged:
        query = query.where(files.flag == sa.bindparam("flag"))
    return cast(SQLCompiler, query.compile(dialect=dialect))


def read_graph_records(commit: Coverage) -> Sequence[Any]:
    """``(path, lines, hits)`` of every file of ``commit`` (or of a flag of a commit): three columns,
    no line data, no sort (the layouts order the files themselves), in the session's transaction."""
    connection = get_connection()
    if isinstance(commit, CommitFlag):
        compiled = _records_query(connection.dialect, True)
        values = {"commit_id": commit.commit_id, "flag": commit.files_flag}
    else:
        compiled = _records_query(connection.dialect, False)
        values = {"commit_id": commit.id}
    params: Any = tuple(values[name] for name in compiled.positiontup or ()) if compiled.positional else values
    # Executed by SQLAlchemy, so that a lost connection is invalidated and its error is one the
    # outage handler knows (a 503, docs/deployment.md); fetched from the driver's own cursor, whose
    # plain tuples cost a quarter less than result rows, a few milliseconds per 20,000 files.
    with connection.exec_driver_sql(compiled.string, params) as result:
        return result.cursor.fetchall()


_gc_lock = threading.Lock()
_gc_pausers = 0
_gc_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block, then restore it as it was.

    Reading and laying out a big commit creates tens of thousands of acyclic objects (row tuples,
    tree nodes); each few hundred of them start a collection, and every tenth of those scans the
    whole heap of the app. Pausing saves a quarter of a cold graph's CPU time (docs/graphs.md).

    The collector is the whole process's: while any thread is in such a block, no thread of the
    process collects cycles (the requests other threads serve included); their cycles wait until
    the last block ends. Safe with threads: the first block to enter pauses, the last to leave restores.
    """
    global _gc_pausers, _gc_was_enabled
    with _gc_lock:
        if _gc_pausers == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pausers += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pausers -= 1
            if _gc_pausers == 0 and _gc_was_enabled:
                gc.enable()


class _RecordsCache:
    """An LRU of record sets with a byte budget, shared by the threads of a process."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self._sets: OrderedDict[Hashable, tuple[Sequence[Any], int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Sequence[Any] | None:
        with self._lock:
            found = self._sets.get(key)
            if found is None:
                return None
            self._sets.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, records: Sequence[Any]) -> None:
        size = sum(sys.getsizeof(record[0]) for record in records) + _RECORD_OVERHEAD * len(records)
        if size > self.budget:
            return  # a set bigger than the whole budget is read again next time
        with self._lock:
            if key in self._sets:
                return
            self._sets[key] = (records, size)
            self.used += size
            while self.used > self.budget:
                _, (_, dropped) = self._sets.popitem(last=False)
                self.used -= dropped

    def clear(self) -> None:
        with self._lock:
            self._sets.clear()
            self.used = 0


records_cache = _RecordsCache(RECORDS_CACHE_BYTES)


def graph_records(commit: Coverage, version: Hashable) -> Sequence[Any]:
    """The records of ``commit`` (or of a flag of a commit): from this process's cache when ``version``
    (what identifies its coverage: ids, timestamp, version number) was read before, else read and kept."""
    records = records_cache.get(version)
    if records is None:
        records = read_graph_records(commit)
        records_cache.put(version, records)
    return records
