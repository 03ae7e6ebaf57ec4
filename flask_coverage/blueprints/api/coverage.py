"""The v2 API's coverage of a repository: the report, flags, uploads, totals, one file's report, the
comparison of two commits and the coverage trend, in Codecov's shapes (docs/api.md).

Its views join :data:`flask_coverage.blueprints.api.bp`; the comparison is computed by
:mod:`flask_coverage.queries.compare`. Visibility as for the report: public repositories without a token,
private ones for the owner and its activated members, the same 404 otherwise.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Optional

import sqlalchemy as sa
from flask import Response, current_app, stream_with_context

from ...endpoints import page_of
from ...errors import NotFound
from ...feedback.base import find_pull_with_base
from ...feedback.comparison import Comparison
from ...feedback.patch import Patch
from ...lines import Totals
from ...models import Commit, Repository
from ...pagination import Listing
from ...queries.compare import compare_page, head_files
from ...queries.files import Coverage, file_lines, files_listing, flags_query, summed_totals, uploads_query
from ...queries.lookups import (
    NOT_FOUND,
    queried_commit,
    readable_commit,
    readable_file,
    readable_flag,
    readable_repository,
)
from ...queries.targets import find_flag, resolve_commit
from ...queries.trend import coverage_trend, flag_trend, trend_day_start
from ...schemas.common import CommitPathSchema, CommitQuerySchema, PaginationQuerySchema, RepositoryPathSchema
from ...schemas.coverage import (
    CommitFileReportSchema,
    CommitTotalsReportSchema,
    CompareQuerySchema,
    ComparisonSchema,
    CoverageTrendQuerySchema,
    FileReportPathSchema,
    FlagListQuerySchema,
    FlagPathSchema,
    PaginatedFlagListSchema,
    PaginatedMeasurementListSchema,
    PaginatedUploadListSchema,
    TotalsQuerySchema,
)
from ...schemas.report import CommitReportSchema, ReportQuerySchema, report_json, totals_body
from ...urls import commit_url
from . import REPO_RULE, api_get, document, repo_get

# The coverage report of a commit (docs/upload.md, the report API).

document.tags["Coverage"] = "The coverage stored for the commits of a repository."


@api_get(
    f"{REPO_RULE}/report/",
    tag="Coverage",
    description="The totals, and every file with the state of each tracked line, of one commit: `sha`, else "
    "the tip of `branch`, else the tip of the default branch; `path` keeps only the files under it. Public "
    "repositories can be read without a token; private ones by the users the git host lets read them (for a "
    "repository the host does not know, by the owner and its activated members), and their answers are "
    "`Cache-Control: private, no-store`. Anything unknown or not visible to the caller gets the same 404.",
    auth="optional",
    path=RepositoryPathSchema,
    lookup=readable_repository,
    query=ReportQuerySchema,
    response=CommitReportSchema,
)
def repos_report_retrieve(repository: Repository, args: dict[str, Any]) -> Response:
    """The coverage report of a commit."""
    commit = queried_commit(repository, args)
    flag = args.get("flag")
    coverage = commit if not flag else find_flag(commit, flag)
    url = commit_url(repository, commit.sha)
    # Streamed: the body is made while the rows are read, so memory does not grow with the files. The
    # rows' statement runs in the stream, not here: Flask ends the view's session before the body is sent.
    end = (', "commit_file_url": ', current_app.json.dumps(url), "}")
    text = itertools.chain("{", report_json(coverage, args.get("path")), end)
    return Response(stream_with_context(text), mimetype="application/json")


document.tags["Flags"] = "The flags uploads carried, and the coverage of each."


@api_get(
    f"{REPO_RULE}/flags/",
    tag="Flags",
    description="Every flag that uploads to the repository carried, by name, with its coverage in one commit: "
    "`sha`, else the tip of `branch`, else the tip of the default branch (`null` for a flag that commit has no "
    "upload with, and for every flag when the default branch has no coverage yet). Same access as the report.",
    auth="optional",
    path=RepositoryPathSchema,
    lookup=readable_repository,
    query=FlagListQuerySchema,
    response=PaginatedFlagListSchema,
)
def repos_flags_list(repository: Repository, args: dict[str, Any]) -> sa.Select:
    """List the flags of a repository."""
    commit = resolve_commit(repository, sha=args.get("sha"), branch=args.get("branch"))
    if commit is None and ("sha" in args or "branch" in args):
        raise NotFound(NOT_FOUND)
    return flags_query(repository, commit)


@api_get(
    f"{REPO_RULE}/commits/<sha>/uploads/",
    tag="Coverage",
    description="The uploads merged into a commit, oldest first, with their flags, name, CI build, job and URL. "
    "Read as the report is: public repositories without a token, private ones by their members; anything "
    "unknown or not visible to the caller gets the same 404.",
    auth="optional",
    path=CommitPathSchema,
    lookup=readable_commit,
    query=PaginationQuerySchema,
    response=PaginatedUploadListSchema,
)
def repos_commits_uploads_list(commit: Commit, args: dict[str, Any]) -> sa.Select:
    """List the uploads of a commit."""
    return uploads_query(commit)


def _totals(totals: Optional[Totals], files: int = 1) -> Optional[dict[str, Any]]:
    return None if totals is None else totals_body(totals, files)


@repo_get(
    "/totals/",
    tag="Coverage",
    description="The totals of one commit (`sha`, else the tip of `branch`, else the tip of the default branch) "
    "and of each of its files; `path` keeps the files under it, `flag` the coverage of the uploads with that "
    "flag (a 404 when none had it).",
    query=TotalsQuerySchema,
    response=CommitTotalsReportSchema,
)
def repos_totals_retrieve(repository: Repository, args: dict[str, Any]) -> dict[str, Any]:
    """The totals of a commit."""
    commit = queried_commit(repository, args)
    coverage: Optional[Coverage] = commit if args.get("flag") is None else find_flag(commit, args["flag"])
    if coverage is None:
        raise NotFound(NOT_FOUND)
    totals, count = summed_totals(coverage, args.get("path"))
    files, envelope = page_of(files_listing(coverage, args.get("path")), args)
    return {
        **envelope,
        "totals": totals_body(totals, count),
        "files": [{"name": file.path, "totals": totals_body(Totals.of(file), 1)} for file in files],
        "commit_file_url": commit_url(repository, commit.sha),
    }


@repo_get(
    "/file_report/<coverage_name:path>",
    tag="Coverage",
    description="One file of one commit (`sha`, else the tip of `branch`, else the tip of the default branch): "
    "its totals and the state of each tracked line.",
    path=FileReportPathSchema,
    lookup=readable_file,
    query=CommitQuerySchema,
    response=CommitFileReportSchema,
)
def repos_file_report_retrieve(found: tuple[Repository, str], args: dict[str, Any]) -> dict[str, Any]:
    """The coverage of one file."""
    repository, path = found
    commit = queried_commit(repository, args)
    lines = file_lines(commit, path)
    if lines is None:
        raise NotFound(NOT_FOUND)
    return {
        "name": path,
        "totals": totals_body(lines.totals(), 1),
        "line_coverage": [(line, state) for line, _, state in lines],
        "commit_sha": commit.sha,
        "commit_file_url": commit_url(repository, commit.sha),
    }


def compared(repository: Repository, args: dict[str, Any]) -> tuple[Commit, Commit]:
    """The base and head commits ``args`` name: ``base`` and ``head``, or a pull request's."""
    if "pullid" in args:
        row = find_pull_with_base(repository, args["pullid"])
        if row is None:
            raise NotFound(NOT_FOUND)
        _, head, base = row
        if base is None:
            raise NotFound("The pull request's base commit has no coverage.")
        return base, head
    base = resolve_commit(repository, sha=args["base"])
    head = resolve_commit(repository, sha=args["head"])
    if base is None or head is None:
        raise NotFound(NOT_FOUND)
    return base, head


@repo_get(
    "/compare/",
    tag="Coverage",
    description="The coverage of a head commit compared with a base commit (`base` and `head`, full shas or "
    "unique prefixes; or `pullid`: the pull request's base and tip): both totals, and each file of the head "
    "with its totals before and after and how many of the lines tracked in both changed state. `patch`: the "
    "totals of the lines `base...head` adds (from the git mirror or the provider; null when neither has the "
    "diff), in all and per file; `has_diff`: the diff changes the file. `stats` and `untracked` are not given.",
    query=CompareQuerySchema,
    response=ComparisonSchema,
)
def repos_compare_retrieve(repository: Repository, args: dict[str, Any]) -> dict[str, Any]:
    """Compare the coverage of two commits."""
    base, head = compared(repository, args)
    query, count = head_files(head)
    rows, envelope = page_of(Listing(query, count_query=count), args)
    patch = Comparison(repository, head, base.sha, base).patch
    changed = patch.changed if patch is not None else frozenset()
    patched = patch.files if patch is not None else {}
    files = [
        {
            "name": {"base": None if file.base is None else file.path, "head": file.path},
            "totals": {
                "base": _totals(file.base),
                "head": _totals(file.head),
                "patch": _totals(patched[file.path].totals) if file.path in patched else None,
            },
            "has_diff": file.path in changed,
            "stats": None,
            "change_summary": file.change_summary,
        }
        for file in compare_page(base, rows)
    ]
    return {
        **envelope,
        "base_commit": base.sha,
        "head_commit": head.sha,
        "totals": compared_totals(base, head, patch),
        "files": files,
        "untracked": [],
    }


def compared_totals(base: Commit, head: Commit, patch: Optional[Patch]) -> dict[str, Any]:
    """The ``ComparedTotalsSchema`` of a comparison: both commits' totals and the patch's."""
    return {
        "base": totals_body(Totals.of(base), base.files),
        "head": totals_body(Totals.of(head), head.files),
        "patch": None if patch is None else totals_body(patch.totals, len(patch.files)),
    }


@repo_get(
    "/coverage/",
    tag="Coverage",
    description="The coverage of a branch's commits (the default branch's without `branch`), in bins of "
    "`interval` (1d, 7d or 30d), oldest first: each bin's start and the lowest, highest and mean coverage of its "
    "commits. `start_date` and `end_date` bound the commits' times.",
    query=CoverageTrendQuerySchema,
    response=PaginatedMeasurementListSchema,
    item=lambda row: measurement(*row),
)
def repos_coverage_list(repository: Repository, args: dict[str, Any]) -> Any:
    """The coverage trend of a branch."""
    return coverage_trend(
        repository,
        branch=args.get("branch", repository.branch),
        interval=args["interval"],
        start=args.get("start_date"),
        end=args.get("end_date"),
    )


@repo_get(
    "/flags/<coverage_name:flag>/coverage/",
    tag="Flags",
    description="The coverage of one flag in a branch's commits that have it (the default branch's without "
    "`branch`), in bins of `interval` (1d, 7d or 30d), oldest first, as the repository's coverage trend; "
    "`start_date` and `end_date` bound the commits' times. A flag no upload carried gets the 404.",
    path=FlagPathSchema,
    lookup=readable_flag,
    query=CoverageTrendQuerySchema,
    response=PaginatedMeasurementListSchema,
    item=lambda row: measurement(*row),
)
def repos_flags_coverage_list(found: tuple[Repository, str], args: dict[str, Any]) -> Any:
    """The coverage trend of a flag."""
    repository, flag = found
    return flag_trend(
        repository,
        flag,
        branch=args.get("branch", repository.branch),
        interval=args["interval"],
        start=args.get("start_date"),
        end=args.get("end_date"),
    )


def measurement(start: int, low: float, high: float, mean: float) -> dict[str, Any]:
    """A ``MeasurementSchema`` of a trend row, each coverage rounded down to 2 decimals as in totals."""
    return {"timestamp": trend_day_start(start), "min": _floor2(low), "max": _floor2(high), "avg": _floor2(mean)}


def _floor2(value: float) -> float:
    # The epsilon keeps an exact ratio computed in floating point (28.999999...) at its value.
    return math.floor(value * 100 + 1e-9) / 100
