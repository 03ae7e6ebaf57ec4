"""Line coverage of one file: a compact, mergeable record of which lines ran.

A :class:`LineCoverage` keeps, for every tracked line of a file, its hit count and its state
(:data:`HIT`, :data:`MISS` or :data:`PARTIAL`). It is stored as two ``array('I')`` and a
``bytearray`` sorted by line number (9 bytes per line), because a report of millions of lines must
fit in memory next to everything else an upload does; a dict of tuples would cost ~20 times more.
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from operator import add, eq, lt, mul, sub, truth
from typing import Any, Iterable, Iterator, Sequence, Tuple

__all__ = [
    "HIT",
    "MISS",
    "PARTIAL",
    "MAX_HITS",
    "LineCoverage",
    "LineCoverageBuilder",
    "LineColumns",
    "Totals",
    "percent",
]

#: A line that ran (and, if it has branches, took all of them). The ``type`` code of the report API.
HIT = 0
#: A tracked line that never ran.
MISS = 1
#: A line that ran but left at least one of its branches untaken.
PARTIAL = 2

#: Hit counts saturate here: they are stored as unsigned 32-bit integers.
MAX_HITS = 2**32 - 1
#: The largest line number the structure can hold (parsers apply a much stricter limit).
MAX_LINE = 2**32 - 1

# array's "I" is 4 bytes on every mainstream platform, but the C standard only promises 2.
_U32 = "I" if array("I").itemsize == 4 else "L"
# Merge priority of a state: HIT wins over PARTIAL, which wins over MISS.
_RANK = (0, 2, 1)
_BY_RANK = (HIT, PARTIAL, MISS)
# The merged state of states a and b, at index 3 * a + b.
_MERGED = bytes(_BY_RANK[min(_RANK[a], _RANK[b])] for a in range(3) for b in range(3))
# A state table that makes PARTIAL a HIT (bytes.translate).
_PARTIAL_AS_HIT = bytes((HIT, MISS, HIT)) + bytes(range(3, 256))

_CODEC_VERSION = 1
_COUNT = struct.Struct("<I")
# zlib never expands data by more than ~1032:1; a claim beyond this is corrupt, not compressed.
_MAX_ZLIB_RATIO = 1100

Entry = Tuple[int, int, int]


@dataclass(frozen=True)
class Totals:
    """Counts of tracked lines; ``lines`` is always ``hits + misses + partials``.

    Totals add up (``a + b``, and ``sum(totals_list, Totals())``) to give the totals of several files.
    """

    lines: int = 0
    hits: int = 0
    misses: int = 0
    partials: int = 0

    def __post_init__(self) -> None:
        if min(self.hits, self.misses, self.partials) < 0:
            raise ValueError("totals cannot be negative")
        if self.lines != self.hits + self.misses + self.partials:
            raise ValueError("lines must equal hits + misses + partials")

    @classmethod
    def from_counts(cls, hits: int, misses: int, partials: int) -> Totals:
        """Totals of ``hits`` hit, ``misses`` missed and ``partials`` partial lines."""
        return cls(hits + misses + partials, hits, misses, partials)

    @classmethod
    def of(cls, counted: Any) -> Totals:
        """The totals of anything that holds them as ``lines``, ``hits``, ``misses`` and ``partials``:
        a commit, a flag's coverage, a file, or a row of their columns."""
        return cls(counted.lines, counted.hits, counted.misses, counted.partials)

    def __add__(self, other: Totals) -> Totals:
        if not isinstance(other, Totals):
            return NotImplemented
        return Totals(
            self.lines + other.lines,
            self.hits + other.hits,
            self.misses + other.misses,
            self.partials + other.partials,
        )

    def __radd__(self, other: object) -> Totals:
        # Lets the built-in sum() start from its default 0.
        if other == 0:
            return self
        return NotImplemented

    @property
    def coverage(self) -> float:
        """``hits / lines * 100`` rounded down to 2 decimals (``66.66`` for 2 of 3); 0 without lines."""
        return percent(self.hits, self.lines)


def percent(hits: int, lines: int) -> float:
    """``hits / lines * 100`` rounded down to 2 decimals (``66.66`` for 2 of 3); 0 without lines."""
    if not lines:
        return 0.0
    # Integer floor first, so 2/3 gives 66.66 and never 66.67 or 66.65999...
    return (hits * 10000 // lines) / 100


class LineCoverage:
    """Immutable coverage of one file: tracked lines in increasing order, each with hits and state.

    ``LineCoverage(entries)`` accepts ``(line, hits, state)`` triples in any order; a line given more
    than once is combined with the :meth:`merge` rules. Iterating yields the triples in line order.
    """

    __slots__ = ("_lines", "_hits", "_states")

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        builder = LineCoverageBuilder()
        for line, hits, state in entries:
            builder.add(line, hits, state)
        built = builder.build()
        self._lines: array[int] = built._lines
        self._hits: array[int] = built._hits
        self._states: bytearray = built._states

    @classmethod
    def _trusted(cls, lines: array[int], hits: array[int], states: bytearray) -> LineCoverage:
        # Wraps arrays already sorted, unique and valid, without copying them.
        self = cls.__new__(cls)
        self._lines, self._hits, self._states = lines, hits, states
        return self

    @classmethod
    def from_bytes(cls, lines: bytes, hits: bytes, states: bytes) -> LineCoverage:
        """The cheapest way a compiled reader's output becomes a LineCoverage (about 1 µs a file).

        ``lines`` and ``hits`` are native unsigned 32-bit integers (``array(lines._U32).tobytes()``
        layout), ``states`` one byte per line. Only the lengths are checked here (a ValueError);
        the reader's C code vouches for the rest, which is TRUSTED: lines strictly increasing from 1,
        hits at most :data:`MAX_HITS`, every state HIT (0), MISS (1) or PARTIAL (2).
        """
        line_array, hit_array = array(_U32), array(_U32)
        line_array.frombytes(lines)
        hit_array.frombytes(hits)
        if not len(line_array) == len(hit_array) == len(states):
            raise ValueError("columns of different lengths")
        return cls._trusted(line_array, hit_array, bytearray(states))

    @classmethod
    def from_columns(cls, lines: Iterable[int], hits: Iterable[int], states: bytes) -> LineCoverage:
        """The coverage of columns a parser built in bulk with C-level builtins (``parsers/`` fast
        paths): ``lines`` strictly increasing from 1, as many ``hits`` (at most :data:`MAX_HITS`) and
        ``states``. The caller vouches for the order; the rest is checked in C (``array`` refuses a
        value out of range, an OverflowError; anything else is a ValueError)."""
        line_array, hit_array, state_array = array(_U32, lines), array(_U32, hits), bytearray(states)
        if not len(line_array) == len(hit_array) == len(state_array) or state_array.translate(None, b"\x00\x01\x02"):
            raise ValueError("columns of different lengths, or an unknown line state")
        if line_array and line_array[0] < 1:
            raise ValueError("line number out of range: 0")
        return cls._trusted(line_array, hit_array, state_array)

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self) -> Iterator[Entry]:
        return zip(self._lines, self._hits, self._states)

    def line_states(self) -> Iterator[Tuple[int, int]]:
        """``(line, state)`` for every tracked line, in line order (the report API's pairs)."""
        return zip(self._lines, self._states)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LineCoverage):
            return NotImplemented
        return self._lines == other._lines and self._hits == other._hits and self._states == other._states

    __hash__ = None  # type: ignore[assignment]  # equal by value, like a list

    def __repr__(self) -> str:
        t = self.totals()
        return f"<LineCoverage lines={t.lines} hits={t.hits} misses={t.misses} partials={t.partials}>"

    def totals(self) -> Totals:
        """Counts of hit, missed and partial lines of this file."""
        states = self._states
        return Totals.from_counts(states.count(HIT), states.count(MISS), states.count(PARTIAL))

    def merge(self, other: LineCoverage) -> LineCoverage:
        """Coverage of both: hits add up (saturating at :data:`MAX_HITS`), lines of either are kept.

        A line's state is HIT if it is HIT on either side, else PARTIAL if PARTIAL on either side,
        else MISS: a partial line stays partial unless some run hit it fully.
        """
        if not other._lines:
            return self
        if not self._lines:
            return other
        if self._lines == other._lines:
            # Two uploads of one test suite track the same lines: combine them with C-level maps.
            hits = array(_U32, map(min, map(add, self._hits, other._hits), repeat(MAX_HITS)))
            codes = map(add, map(mul, self._states, repeat(3)), other._states)
            return LineCoverage._trusted(self._lines, hits, bytearray(map(_MERGED.__getitem__, codes)))
        lines, hits, states = array(_U32), array(_U32), bytearray()
        a_lines, a_hits, a_states = self._lines, self._hits, self._states
        b_lines, b_hits, b_states = other._lines, other._hits, other._states
        i = j = 0
        na, nb = len(a_lines), len(b_lines)
        while i < na and j < nb:
            la, lb = a_lines[i], b_lines[j]
            if la == lb:
                lines.append(la)
                hits.append(min(a_hits[i] + b_hits[j], MAX_HITS))
                states.append(_BY_RANK[min(_RANK[a_states[i]], _RANK[b_states[j]])])
                i += 1
                j += 1
            elif la < lb:
                lines.append(la)
                hits.append(a_hits[i])
                states.append(a_states[i])
                i += 1
            else:
                lines.append(lb)
                hits.append(b_hits[j])
                states.append(b_states[j])
                j += 1
        # At most one side has a tail left; slices of arrays copy in C.
        lines.extend(a_lines[i:])
        hits.extend(a_hits[i:])
        states.extend(a_states[i:])
        lines.extend(b_lines[j:])
        hits.extend(b_hits[j:])
        states.extend(b_states[j:])
        return LineCoverage._trusted(lines, hits, states)

    def partials_as_hits(self) -> LineCoverage:
        """These lines with every PARTIAL line a HIT, its hits kept (Codecov's ``partials_as_hits``)."""
        if PARTIAL not in self._states:
            return self
        return LineCoverage._trusted(self._lines, self._hits, self._states.translate(_PARTIAL_AS_HIT))

    def with_branch_states(self, lines: Sequence[int], branches: Sequence[int], taken: Sequence[int]) -> LineCoverage:
        """These lines where each of ``lines`` (increasing) takes its state from its ``branches``, of
        which ``taken`` were taken: all HIT, none MISS, else PARTIAL (LCOV's ``BRDA`` records). A line
        not tracked here is added, its hits the branches taken."""
        # HIT 0, MISS 1, PARTIAL 2: (taken < branches) * (1 + (taken > 0)), computed in C.
        branch_states = bytes(map(mul, map(lt, taken, branches), map(add, repeat(1), map(truth, taken))))
        mine = self._lines
        at = list(map(bisect_left, repeat(mine), lines))
        padded = mine + array(_U32, [0])
        if all(map(eq, map(padded.__getitem__, at), lines)):
            states = bytearray(self._states)
            for k, state in zip(at, branch_states):
                states[k] = state
            return LineCoverage._trusted(mine, self._hits, states)
        tracked = set(mine)
        states = bytearray(self._states)
        added = []
        for k, line, count, state in zip(at, lines, taken, branch_states):
            if line in tracked:
                states[k] = state
            else:
                added.append((line, count, state))
        return LineCoverage._trusted(mine, self._hits, states).merge(LineCoverage(added))

    def encode(self) -> bytes:
        """A compact binary form for one database column; :meth:`decode` reads it back."""
        lines = self._lines
        # Line numbers as gaps from the previous one: small, repetitive, compress well.
        deltas = array(_U32, lines[:1])
        deltas.extend(map(sub, lines[1:], lines))
        hits = self._hits
        if sys.byteorder == "big":
            deltas.byteswap()
            hits = array(_U32, hits)
            hits.byteswap()
        body = _COUNT.pack(len(deltas)) + deltas.tobytes() + hits.tobytes() + bytes(self._states)
        return bytes((_CODEC_VERSION,)) + zlib.compress(body)

    @classmethod
    def decode(cls, data: bytes) -> LineCoverage:
        """Read what :meth:`encode` wrote; anything else raises :class:`ValueError`."""
        if not data or data[0] != _CODEC_VERSION:
            raise ValueError("not an encoded LineCoverage (unknown version byte)")
        # One bounded call (zlib expands at most ~1032:1, so a longer output is corrupt, not compressed).
        inflater = zlib.decompressobj()
        try:
            body = inflater.decompress(data[1:], len(data) * _MAX_ZLIB_RATIO)
        except zlib.error as exc:
            raise ValueError(f"encoded LineCoverage is corrupt: {exc}") from None
        if len(body) < _COUNT.size:
            raise ValueError("encoded LineCoverage is truncated")
        (count,) = _COUNT.unpack_from(body)
        if len(body) != _COUNT.size + 9 * count or not inflater.eof or inflater.unused_data:
            raise ValueError("encoded LineCoverage has the wrong length")
        hits_at = _COUNT.size + 4 * count
        states_at = hits_at + 4 * count
        deltas, hits = array(_U32, body[_COUNT.size : hits_at]), array(_U32, body[hits_at:states_at])
        if sys.byteorder == "big":
            deltas.byteswap()
            hits.byteswap()
        states = bytearray(body[states_at:])
        if 0 in deltas:
            raise ValueError("encoded LineCoverage has unordered or zero line numbers")
        if states.translate(None, b"\x00\x01\x02"):
            raise ValueError("encoded LineCoverage has an unknown line state")
        try:
            lines = array(_U32, accumulate(deltas))
        except OverflowError:
            raise ValueError("encoded LineCoverage has a line number out of range") from None
        return cls._trusted(lines, hits, states)


class LineCoverageBuilder:
    """Collects ``(line, hits, state)`` one at a time and builds a :class:`LineCoverage`.

    Entries may come in any order and repeat; :meth:`build` sorts them and combines repeats with the
    :meth:`LineCoverage.merge` rules. Entries already in increasing order (the usual case) cost no sort.
    """

    __slots__ = ("_lines", "_hits", "_states", "_last", "_ordered")

    def __init__(self) -> None:
        self._lines: array[int] = array(_U32)
        self._hits: array[int] = array(_U32)
        self._states = bytearray()
        self._last = 0
        self._ordered = True

    def __len__(self) -> int:
        return len(self._lines)

    def add(self, line: int, hits: int, state: int) -> None:
        """Record one line; hits above :data:`MAX_HITS` saturate, bad values raise ValueError."""
        if not 1 <= line <= MAX_LINE:
            raise ValueError(f"line number out of range: {line}")
        if hits < 0:
            raise ValueError(f"negative hit count: {hits}")
        if state != HIT and state != MISS and state != PARTIAL:
            raise ValueError(f"unknown line state: {state}")
        if line <= self._last:
            self._ordered = False
        self._last = line
        self._lines.append(line)
        self._hits.append(hits if hits <= MAX_HITS else MAX_HITS)
        self._states.append(state)

    def extend(self, lines: Sequence[int], hits: Sequence[int], states: bytes | bytearray) -> None:
        """Record many lines at once (``lines``, ``hits`` and ``states`` of one length, checked by the
        caller: lines from 1, hits at most :data:`MAX_HITS`, known states), in C."""
        if lines:
            if lines[0] <= self._last or not all(map(lt, lines, lines[1:])):
                self._ordered = False
            self._last = lines[-1]
            self._lines.extend(lines)
            self._hits.extend(hits)
            self._states.extend(states)

    def build(self, partial_lines: Iterable[int] = ()) -> LineCoverage:
        """The collected lines as a :class:`LineCoverage`; the builder starts empty again.

        ``partial_lines``: lines known to have an untaken branch (LCOV ``BRDA`` records); those that
        were hit become PARTIAL.
        """
        lines, hits, states, ordered = self._lines, self._hits, self._states, self._ordered
        # The arrays are handed over without a copy, so the builder must never touch them again.
        self._lines, self._hits, self._states = array(_U32), array(_U32), bytearray()
        self._last, self._ordered = 0, True
        if not ordered:
            lines, hits, states = _sorted_unique(lines, hits, states)
        wanted = set(partial_lines)
        if wanted:
            for k, line in enumerate(lines):
                if line in wanted and hits[k] and states[k] == HIT:
                    states[k] = PARTIAL
        return LineCoverage._trusted(lines, hits, states)


class LineColumns:
    """A file's lines as a parser's hot loop collects them: ``lines`` and ``hits`` (``array('I')``) and
    ``states`` (a ``bytearray``), whose ``append`` methods the loop binds once, so that a line costs three
    C calls and no Python method call.

    The loop appends checked values only, as for :meth:`LineCoverageBuilder.extend` (lines from 1, hits
    at most :data:`MAX_HITS`, known states); :meth:`add` saturates the hits. The columns are kept (and
    their bound methods valid) from file to file: :meth:`take` builds what they hold and empties them.
    """

    __slots__ = ("lines", "hits", "states")

    def __init__(self) -> None:
        self.lines: array[int] = array(_U32)
        self.hits: array[int] = array(_U32)
        self.states = bytearray()

    def __len__(self) -> int:
        return len(self.lines)

    def add(self, line: int, hits: int, state: int) -> None:
        """Record one line; hits above :data:`MAX_HITS` saturate."""
        self.lines.append(line)
        self.hits.append(hits if hits <= MAX_HITS else MAX_HITS)
        self.states.append(state)

    def take(self) -> LineCoverage:
        """The lines collected since the last call, as :class:`LineCoverageBuilder` builds them (sorted,
        repeats combined); the columns start empty."""
        lines, hits, states = self.lines, self.hits, self.states
        if all(map(lt, lines, lines[1:])):
            # Increasing, as files usually come: copied as they are (the builder's checks cost a
            # file more than its copies).
            taken = LineCoverage._trusted(lines[:], hits[:], states[:])
        else:
            builder = LineCoverageBuilder()
            builder.extend(lines, hits, states)  # copies
            taken = builder.build()
        del lines[:], hits[:], states[:]
        return taken


def _sorted_unique(lines: array[int], hits: array[int], states: bytearray) -> tuple[array[int], array[int], bytearray]:
    if len(lines) * _DENSE_FACTOR >= max(lines) - min(lines):
        return _dense_unique(lines, hits, states)
    # Sparse (fewer than one entry per 16 line numbers, so fewer than 625,000 entries): sort the indexes.
    order = sorted(range(len(lines)), key=lines.__getitem__)
    out_lines, out_hits, out_states = array(_U32), array(_U32), bytearray()
    for k in order:
        line = lines[k]
        if out_lines and out_lines[-1] == line:
            out_hits[-1] = min(out_hits[-1] + hits[k], MAX_HITS)
            out_states[-1] = _BY_RANK[min(_RANK[out_states[-1]], _RANK[states[k]])]
        else:
            out_lines.append(line)
            out_hits.append(hits[k])
            out_states.append(states[k])
    return out_lines, out_hits, out_states


# An unordered builder with at least one entry per this many line numbers is combined in arrays
# indexed by line number (5 bytes per number) instead of a sorted list of indexes (about 80 bytes per
# entry): memory stays a few bytes per entry whatever the order or the repeats of a hostile report.
_DENSE_FACTOR = 16


def _dense_unique(lines: array[int], hits: array[int], states: bytearray) -> tuple[array[int], array[int], bytearray]:
    low, top = min(lines), max(lines)  # slots from the lowest line number to the highest
    total = array(_U32, bytes(array(_U32).itemsize * (top - low + 1)))
    best = bytearray(top - low + 1)  # 1 + the rank of the merged state; 0: no entry for that line
    for line, count, state in zip(lines, hits, states):
        slot = line - low
        rank = _RANK[state] + 1
        seen = best[slot]
        best[slot] = rank if not seen or rank < seen else seen
        total[slot] = min(total[slot] + count, MAX_HITS)
    slots = array(_U32, compress(range(top - low + 1), best))
    out_hits = array(_U32, (total[slot] for slot in slots))
    out_states = bytearray(_BY_RANK[best[slot] - 1] for slot in slots)
    del total, best
    out_lines = array(_U32, (slot + low for slot in slots))
    return out_lines, out_hits, out_states
