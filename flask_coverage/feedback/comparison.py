"""A head commit compared with its base, computed once for the pull's page, the v2 API's compare and
the commit's statuses and comment (docs/pull-requests.md, "One comparison").

:class:`Comparison` holds the two commits and computes, each at most once and only when asked, the
diff (:mod:`.patch`), the patch coverage, the files with added lines not covered in their one order,
and the indirect changes under their one rule (:func:`.statuses.indirect_changes`, Codecov's). The
pull's page, the API and the notifier read them from here, so the page and the comment cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Optional

from ..lines import LineCoverage
from ..models import Commit, Pull, Repository
from ..queries.compare import differing_lines
from .diff import Diff
from .patch import FilePatch, Patch, find_diff, patch_of
from .statuses import Side, indirect_changes


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
        """The files with indirect changes, by path: Codecov's rule (:func:`.statuses.indirect_changes`,
        the changes status's): a file of both commits whose lines outside the diff that changed state
        have more lines missed or partial after than before. None without a base. Only the files whose
        stored lines differ, or that the diff touches, are read."""
        if self.base is None:
            return []
        diff = self.diff
        touched = set(diff.added) | set(diff.removed) if diff is not None else set()
        before: Side = {}
        after: Side = {}
        for path, old, new in differing_lines(self.base, self.head, touched):
            before[path], after[path] = LineCoverage.decode(old), LineCoverage.decode(new)
        return sorted(indirect_changes(after, before, diff, None))
