"""The v2 API's views of a comparison beyond the files' (``compare/``, in :mod:`.coverage`): its flags, its
components and its impacted files, in Codecov's shapes (docs/api.md). Each reads the one comparison of two commits,
:class:`flask_coverage.feedback.comparison.Comparison`, as the pull's page and the comment do."""

from __future__ import annotations

from typing import Any, Optional, cast

from ...codecov_yml.settings import commit_settings
from ...endpoints import page_of
from ...feedback.comparison import Comparison, ImpactedFile
from ...lines import Totals
from ...models import Commit, Repository
from ...pagination import Listing
from ...schemas.coverage import (
    CompareQuerySchema,
    ImpactedFilesComparisonSchema,
    PaginatedComponentComparisonListSchema,
    PaginatedFlagComparisonListSchema,
)
from ...schemas.report import totals_body
from . import repo_get
from .coverage import compared

_WHICH = (
    "The comparison of `base` and `head` (full shas or unique prefixes), or of a pull request's base and tip "
    "(`pullid`), as `compare/` makes it"
)


def comparison_of(repository: Repository, args: dict[str, Any]) -> Comparison:
    """The comparison the query names (``base`` and ``head``, or ``pullid``), else the 404."""
    base, head = compared(repository, args)
    return Comparison(repository, head, base.sha, base)


def compared_totals(
    head: Totals, base: Optional[Totals], patch: Optional[Totals], files: tuple[int, Optional[int], int]
) -> dict[str, Any]:
    """The ``base_report_totals``, ``head_report_totals`` and ``diff_totals`` of a flag or a component."""
    head_files, base_files, patch_files = files
    return {
        "base_report_totals": None if base is None else totals_body(base, base_files or 0),
        "head_report_totals": totals_body(head, head_files),
        "diff_totals": None if patch is None else totals_body(patch, patch_files),
    }


@repo_get(
    "/compare/flags/",
    tag="Coverage",
    description=f"{_WHICH}: each flag of the head's uploads, by name, with its totals in the base (null where "
    "no upload of the base had it) and the head, and those of the lines the diff adds in the flag's files "
    "(null without a diff).",
    query=CompareQuerySchema,
    response=PaginatedFlagComparisonListSchema,
)
def repos_compare_flags_list(repository: Repository, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Compare the flags of two commits."""
    return [
        {"name": row.name, **compared_totals(row.head, row.base, row.patch, row.files)}
        for row in comparison_of(repository, args).flags
    ]


@repo_get(
    "/compare/components/",
    tag="Components",
    description=f"{_WHICH}: each component of the head's `codecov.yml`, in its order, with its totals in the "
    "base and the head, and those of the lines the diff adds in its files (null without a diff). A component "
    "whose paths match nothing has zero totals.",
    query=CompareQuerySchema,
    response=PaginatedComponentComparisonListSchema,
)
def repos_compare_components_list(repository: Repository, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Compare the components of two commits."""
    comparison = comparison_of(repository, args)
    settings = commit_settings(repository, comparison.head).value
    return [
        {
            "component_id": row.component.component_id,
            "name": row.component.name,
            **compared_totals(row.head, row.base, row.patch, row.files),
        }
        for row in comparison.components(settings)
    ]


@repo_get(
    "/compare/impacted_files/",
    tag="Coverage",
    description=f"{_WHICH}: the totals, and the files whose coverage changed (new and dropped files included) "
    "or that the diff adds lines to, by path, a page at a time, each with its totals in the base, the head and "
    "the patch, the change of its coverage and its lines missed or partial in the head.",
    query=CompareQuerySchema,
    response=ImpactedFilesComparisonSchema,
)
def repos_compare_impacted_files_retrieve(repository: Repository, args: dict[str, Any]) -> dict[str, Any]:
    """The files a change touched."""
    comparison = comparison_of(repository, args)
    # compared() found the base: a comparison of the API always has one.
    base, head, patch = cast(Commit, comparison.base), comparison.head, comparison.patch
    files, envelope = page_of(Listing(list(comparison.impacted)), args)
    return {
        **envelope,
        "base_commit": base.sha,
        "head_commit": head.sha,
        "totals": {
            "base": totals_body(Totals.of(base), base.files),
            "head": totals_body(Totals.of(head), head.files),
            "patch": None if patch is None else totals_body(patch.totals, len(patch.files)),
        },
        "files": [impacted_body(file) for file in files],
        "untracked": [],
        "state": "processed",
    }


def impacted_body(file: ImpactedFile) -> dict[str, Any]:
    """An ``ImpactedFileSchema`` of ``file``."""
    change = None
    if file.base is not None and file.head is not None:
        change = round(file.head.coverage - file.base.coverage, 2)
    return {
        "file_name": file.path,
        "base_name": None if file.base is None else file.path,
        "head_name": None if file.head is None else file.path,
        "is_new_file": file.base is None,
        "is_renamed_file": False,
        "is_deleted_file": file.head is None,
        "base_coverage": None if file.base is None else totals_body(file.base, 1),
        "head_coverage": None if file.head is None else totals_body(file.head, 1),
        "patch_coverage": None if file.patch is None else totals_body(file.patch, 1),
        "change_coverage": change,
        "misses_count": 0 if file.head is None else file.head.misses + file.head.partials,
    }
