"""The v2 API's views of a comparison beyond the files' (``compare/``, in :mod:`.coverage`): its flags, its
components, its impacted files, one file line by line and its changed segments, in Codecov's shapes
(docs/api.md). Each reads the one comparison of two commits,
:class:`flask_coverage.feedback.comparison.Comparison`, as the pull's page and the comment do."""

from __future__ import annotations

from typing import Any, Optional, cast

from ...codecov_yml.settings import commit_settings
from ...endpoints import page_of
from ...errors import NotFound
from ...feedback.comparison import SEGMENT_CONTEXT, ComparedLine, Comparison, FileLines, ImpactedFile, segments
from ...lines import Totals
from ...models import Commit, Repository
from ...pagination import Listing
from ...queries.compare import change_summary
from ...queries.lookups import NOT_FOUND, readable_file
from ...schemas.coverage import (
    CompareQuerySchema,
    FileComparisonSchema,
    FileReportPathSchema,
    FileSegmentsSchema,
    ImpactedFilesComparisonSchema,
    PaginatedComponentComparisonListSchema,
    PaginatedFlagComparisonListSchema,
)
from ...schemas.report import totals_body
from . import repo_get
from .coverage import compared, compared_totals

_WHICH = (
    "The comparison of `base` and `head` (full shas or unique prefixes), or of a pull request's base and tip "
    "(`pullid`), as `compare/` makes it"
)


def comparison_of(repository: Repository, args: dict[str, Any]) -> Comparison:
    """The comparison the query names (``base`` and ``head``, or ``pullid``), else the 404."""
    base, head = compared(repository, args)
    return Comparison(repository, head, base.sha, base)


def report_totals(
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
        {"name": row.name, **report_totals(row.head, row.base, row.patch, row.files)}
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
            **report_totals(row.head, row.base, row.patch, row.files),
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
        "totals": compared_totals(base, head, patch),
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


def _file_of(found: tuple[Repository, str], args: dict[str, Any]) -> tuple[Comparison, FileLines]:
    """The comparison the query names and the file the path names in it, else the 404."""
    repository, path = found
    comparison = comparison_of(repository, args)
    file = comparison.file(path)
    if file is None:
        raise NotFound(NOT_FOUND)
    return comparison, file


@repo_get(
    "/compare/file/<coverage_name:path>",
    tag="Coverage",
    description=f"{_WHICH}: one file (a path either commit has coverage of), as `compare/` shows it, with its "
    "lines tracked on either side or changed by the diff: their numbers and states in the base and the head. "
    "The source is not read (`value` is null). `page` and `page_size` are ignored.",
    path=FileReportPathSchema,
    lookup=readable_file,
    query=CompareQuerySchema,
    response=FileComparisonSchema,
)
def repos_compare_file_retrieve(found: tuple[Repository, str], args: dict[str, Any]) -> dict[str, Any]:
    """Compare one file of two commits."""
    comparison, file = _file_of(found, args)
    patch = comparison.patch
    patched = patch.files.get(file.path) if patch is not None else None
    base_totals = None if file.base is None else file.base.totals()
    head_totals = None if file.head is None else file.head.totals()
    return {
        "name": {"base": None if file.base is None else file.path, "head": None if file.head is None else file.path},
        "totals": {
            "base": None if base_totals is None else totals_body(base_totals, 1),
            "head": None if head_totals is None else totals_body(head_totals, 1),
            "patch": None if patched is None else totals_body(patched.totals, 1),
        },
        "has_diff": patch is not None and file.path in patch.changed,
        "stats": None,
        "change_summary": change_summary(file.base, file.head) if file.base and file.head else {},
        "lines": [
            {
                "value": None,
                "number": {"base": line.base, "head": line.head},
                "coverage": {"base": line.base_state, "head": line.head_state},
                "is_diff": line.added or line.removed,
                "added": line.added,
                "removed": line.removed,
                "sessions": line.hits,
            }
            for line in file.lines
        ],
    }


@repo_get(
    "/compare/segments/<coverage_name:path>",
    tag="Coverage",
    description=f"{_WHICH}: the runs of one file's lines (as `compare/file/` lists them) that the diff adds or "
    f"removes or whose state changed outside the diff (`has_unintended_changes`), each with up to "
    f"{SEGMENT_CONTEXT} lines around. The source is not read: `content` is `+`, `-` or a space.",
    path=FileReportPathSchema,
    lookup=readable_file,
    query=CompareQuerySchema,
    response=FileSegmentsSchema,
)
def repos_compare_segments_retrieve(found: tuple[Repository, str], args: dict[str, Any]) -> dict[str, Any]:
    """The changed segments of one file of two commits."""
    _, file = _file_of(found, args)
    return {"segments": [_segment(run) for run in segments(file.lines)]}


def _segment(run: list[ComparedLine]) -> dict[str, Any]:
    before = [line.base for line in run if line.base is not None]
    after = [line.head for line in run if line.head is not None]
    base = f"{before[0]},{before[-1] - before[0] + 1}" if before else "0,0"
    head = f"{after[0]},{after[-1] - after[0] + 1}" if after else "0,0"
    return {
        "header": f"-{base} +{head}",
        "has_unintended_changes": any(line.changed for line in run),
        "lines": [
            {
                "base_number": line.base,
                "head_number": line.head,
                "base_coverage": line.base_state,
                "head_coverage": line.head_state,
                "content": "+" if line.added else "-" if line.removed else " ",
            }
            for line in run
        ],
    }
