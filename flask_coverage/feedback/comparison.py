"""A head commit compared with its base, computed once for the pull's page, the v2 API's compare and
the commit's statuses and comment (docs/pull-requests.md, "One comparison").

:class:`Comparison` holds the two commits and computes, each at most once and only when asked, the
diff (:mod:`.patch`), the patch coverage, the files with added lines not covered in their one order,
and the indirect changes under their one rule (:func:`.statuses.is_indirect_change`, Codecov's). The
pull's page, the API and the notifier read them from here, so the page and the comment cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Optional

from ..codecov_yml.patterns import matches
from ..lines import LineCoverage, Totals
from ..models import Commit, Pull, Repository
from ..queries.compare import changed_files, dropped_files, file_totals_of, files_data, missed_counts
from ..queries.components import Component, commit_components, component_totals
from ..queries.files import carried_origins, file_lines, flag_totals, lines_by_path
from .comment import FlagRow
from .diff import Diff, paired_lines
from .patch import FilePatch, Patch, find_diff, patch_of
from .statuses import Side, is_indirect_change, missed


@dataclass(frozen=True)
class ImpactedFile:
    """A file whose coverage the change touched: its totals in the base and the head (``None`` where it
    has no coverage) and of the lines the diff adds in it (``None``: none, or no diff)."""

    path: str
    base: Optional[Totals]
    head: Optional[Totals]
    patch: Optional[Totals]


@dataclass(frozen=True)
class ComparedLine:
    """A line of a file in the base and the head: its numbers (``None`` on the side that lacks it), its
    states (``None``: not tracked there), its hits in the head, and whether the diff adds or removes it."""

    base: Optional[int]
    head: Optional[int]
    base_state: Optional[int]
    head_state: Optional[int]
    hits: Optional[int]
    added: bool
    removed: bool

    @property
    def changed(self) -> bool:
        """A line the diff leaves alone whose state changed: an unintended change."""
        return not (self.added or self.removed) and self.base_state != self.head_state


@dataclass(frozen=True)
class FileLines:
    """One file in the base and the head (``None``: no coverage there) and its lines that are tracked on a
    side or that the diff adds or removes, in order (:func:`.diff.paired_lines`)."""

    path: str
    base: Optional[LineCoverage]
    head: Optional[LineCoverage]
    lines: list[ComparedLine]


@dataclass(frozen=True)
class ComponentRow:
    """A component of the head's ``codecov.yml``: its totals in the head and the base (``None``: no base)
    and of the patch (``None``: no diff)."""

    component: Component
    head: Totals
    base: Optional[Totals]
    patch: Optional[Totals]
    #: The number of files of each.
    files: tuple[int, Optional[int], int]


@dataclass
class Comparison:
    """``head`` compared with ``base_sha`` (``None``: no base known), whose commit with coverage is
    ``base`` (``None`` while it has none). Each property is computed on first use, then kept."""

    repository: Repository
    head: Commit
    base_sha: Optional[str]
    base: Optional[Commit]
    _sides: dict[tuple[str, ...], tuple[Side, Optional[Side]]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of_pull(cls, repository: Repository, pull: Pull, head: Commit, base: Optional[Commit]) -> Comparison:
        """A pull's tip compared with its base (``find_pull_with_base``'s row)."""
        return cls(repository, head, pull.base_sha, base)

    @cached_property
    def diff(self) -> Optional[Diff]:
        """What ``base_sha...head`` changes, or ``None`` when no git mirror or provider can tell."""
        return find_diff(self.repository, self.base_sha, self.head.sha) if self.base_sha else None

    @cached_property
    def patch(self) -> Optional[Patch]:
        """The coverage of the lines the diff adds, in all and per file (``None`` without a diff)."""
        return None if self.diff is None else patch_of(self.head, self.diff.added)

    def sides(self, flags: tuple[str, ...] = ()) -> tuple[Side, Optional[Side]]:
        """Every file's lines in the head and the base (``None`` without a base): of all uploads, or of
        those carrying one of ``flags``. Read once per ``flags``."""
        if flags not in self._sides:
            base = lines_by_path(self.base, flags) if self.base is not None else None
            self._sides[flags] = (lines_by_path(self.head, flags), base)
        return self._sides[flags]

    @cached_property
    def flags(self) -> list[FlagRow]:
        """Each flag of the head's uploads, by name: its totals in the head and the base, those of the
        lines the diff adds in the flag's files (``None`` without a diff), and the commit its coverage was
        carried forward from (docs/upload.md)."""
        head, before = flag_totals(self.head), flag_totals(self.base) if self.base is not None else {}
        carried = carried_origins(self.head)
        rows = []
        for name, (totals, files) in head.items():
            patch, patch_files = None, 0
            if self.diff is not None:
                patch, patch_files = _added_totals(self.sides((name,))[0], self.diff.added, None)
            base, base_files = before.get(name, (None, None))
            rows.append(FlagRow(name, totals, base, patch, (files, base_files, patch_files), carried.get(name)))
        return rows

    def components(self, settings: dict[str, Any]) -> list[ComponentRow]:
        """Each component of ``settings`` (the head's ``codecov.yml``), over the flags of the head's and the
        base's uploads: its totals in both (:func:`~flask_coverage.queries.components.component_totals`)
        and of the lines the diff adds in its files."""
        commits = (self.head, self.base) if self.base is not None else (self.head,)
        rows = []
        for component in commit_components(settings, *commits):
            patch, patch_files = None, 0
            if self.diff is not None:
                patch, patch_files = _added_totals(self.sides(component.flags)[0], self.diff.added, component.paths)
            base, base_files = component_totals(self.base, component) if self.base is not None else (None, None)
            head, files = component_totals(self.head, component)
            rows.append(ComponentRow(component, head, base, patch, (files, base_files, patch_files)))
        return rows

    @cached_property
    def impacted(self) -> list[ImpactedFile]:
        """The files whose coverage changed (new and dropped files included) or that the diff adds
        lines to, by path; from the totals columns and the patch (``[]`` without a base)."""
        if self.base is None:
            return []
        patched = self.patch.files if self.patch is not None else {}
        found = {
            file.path: ImpactedFile(file.path, file.base, file.head, None)
            for file in changed_files(self.base, self.head)
        }
        found.update(
            (path, ImpactedFile(path, totals, None, None)) for path, totals in dropped_files(self.base, self.head)
        )
        # A file the diff touches whose totals did not change: the same in both.
        unchanged = [path for path in patched if path not in found]
        for path, totals in file_totals_of(self.head, unchanged):
            found[path] = ImpactedFile(path, totals, totals, None)
        return [
            ImpactedFile(path, file.base, file.head, patched[path].totals if path in patched else None)
            for path, file in sorted(found.items())
        ]

    def file(self, path: str) -> Optional[FileLines]:
        """``path`` in both commits, line by line; ``None`` when neither has coverage of it."""
        before = file_lines(self.base, path) if self.base is not None else None
        after = file_lines(self.head, path)
        if before is None and after is None:
            return None
        added = self.diff.added.get(path, []) if self.diff is not None else []
        removed = self.diff.removed.get(path, []) if self.diff is not None else []
        old = {line: state for line, _, state in before or ()}
        new = {line: (hits, state) for line, hits, state in after or ()}
        last = max([0, *old, *new, *added, *removed])
        added_set, removed_set = set(added), set(removed)
        lines = []
        for number_before, number in paired_lines(added, removed, last):
            state_before = old.get(number_before) if number_before is not None else None
            hits, state = new.get(number, (None, None)) if number is not None else (None, None)
            is_added, is_removed = number in added_set, number_before in removed_set and number is None
            if state_before is not None or state is not None or is_added or is_removed:
                lines.append(ComparedLine(number_before, number, state_before, state, hits, is_added, is_removed))
        return FileLines(path, before, after, lines)

    @cached_property
    def missed_files(self) -> list[FilePatch]:
        """The patch's files with added lines missed or partial, as Codecov orders them: the most
        such lines first, then by path."""
        files = self.patch.files.values() if self.patch is not None else ()
        return sorted(
            (file for file in files if file.missed),
            key=lambda file: (-(file.totals.misses + file.totals.partials), file.path),
        )

    @cached_property
    def indirect(self) -> list[str]:
        """The files with indirect changes, by path: Codecov's rule (:func:`.statuses.is_indirect_change`,
        the changes status's and the comment's), none without a base. Read from the totals columns
        and the patch; a base's line data only for a file where the diff removes lines and whether
        they were missed decides."""
        if self.base is None:
            return []
        removed = self.diff.removed if self.diff is not None else {}
        patched = self.patch.files if self.patch is not None else {}
        found, undecided = [], {}
        for path, head, base in missed_counts(self.base, self.head):
            added = missed(patched[path].totals) if path in patched else 0
            # A file counts least with none of its removed lines missed, most with all of them: its
            # base's lines are read only when the two disagree.
            if is_indirect_change(head, added, base, 0):
                found.append(path)
            elif path in removed and is_indirect_change(head, added, base, min(len(removed[path]), base)):
                undecided[path] = (head, added, base)
        for path, data in files_data(self.base, undecided):
            numbers = set(removed[path])
            lines = LineCoverage(entry for entry in LineCoverage.decode(data) if entry[0] in numbers)
            head, added, base = undecided[path]
            if is_indirect_change(head, added, base, missed(lines.totals())):
                found.append(path)
        return sorted(found)


def _added_totals(side: Side, added: dict[str, list[int]], paths: Optional[tuple[str, ...]]) -> tuple[Totals, int]:
    """The totals of the ``added`` lines of the files of ``side`` that ``paths`` match (all: ``None``), and
    the number of those files with added lines."""
    counted, files = Totals(), 0
    for path, numbers in added.items():
        lines = side.get(path)
        if lines is None or not numbers or not matches(paths, path):
            continue
        wanted = set(numbers)
        counted += LineCoverage(entry for entry in lines if entry[0] in wanted).totals()
        files += 1
    return counted, files


#: The lines of context around a segment's changes.
SEGMENT_CONTEXT = 3


def segments(lines: list[ComparedLine]) -> list[list[ComparedLine]]:
    """The runs of ``lines`` (a :class:`FileLines`' lines) that hold a change (a line the diff adds or
    removes, or whose state changed outside the diff), each with up to :data:`SEGMENT_CONTEXT` lines
    around; runs that meet are one."""
    found: list[list[ComparedLine]] = []
    end = -1
    for index, line in enumerate(lines):
        if not (line.added or line.removed or line.changed):
            continue
        start = max(index - SEGMENT_CONTEXT, end + 1 if found else 0)
        stop = min(index + SEGMENT_CONTEXT, len(lines) - 1)
        if found and start <= end + 1:
            found[-1].extend(lines[end + 1 : stop + 1])
        else:
            found.append(lines[start : stop + 1])
        end = max(end, stop)
    return found
