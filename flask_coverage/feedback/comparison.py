"""A head commit compared with its base, computed once for the pull's page, the v2 API's compare and
the commit's statuses and comment (docs/pull-requests.md, "One comparison").

:class:`Comparison` holds the two commits and computes, each at most once and only when asked, the
diff (:mod:`.patch`), the patch coverage, the files with added lines not covered in their one order,
and the indirect changes under their one rule (:func:`.statuses.is_indirect_change`, Codecov's). The
pull's page, the API and the notifier read them from here, so the page and the comment cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Optional

from ..lines import LineCoverage
from ..models import Commit, Pull, Repository
from ..queries.compare import files_data, missed_counts
from .diff import Diff
from .patch import FilePatch, Patch, find_diff, patch_of
from .statuses import is_indirect_change, missed


@dataclass
class Comparison:
    """``head`` compared with ``base_sha`` (``None``: no base known), whose commit with coverage is
    ``base`` (``None`` while it has none). Each property is computed on first use, then kept."""

    repository: Repository
    head: Commit
    base_sha: Optional[str]
    base: Optional[Commit]

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
