"""The pages of owners, repositories and their targets (a branch, a pull request, a commit), the
flags page and the file explorer at a folder (docs/web.md)."""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from flask import render_template, request

from ...auth import reader_id
from ...codecov_yml.settings import commit_settings
from ...errors import InvalidInput, NotFound
from ...feedback.base import find_pull_with_base
from ...feedback.outbox import report_of
from ...lines import Totals
from ...models import SERVICE_BY_SHORT, Commit, Owner, Repository
from ...queries.components import commit_components, component_totals
from ...queries.files import carried_origins, flags_query
from ...queries.lists import branch_tips, owner_repositories, pull_tips, readable_repositories, recent_commits
from ...queries.repositories import get_owner
from ...queries.targets import leading_branch, resolve_commit
from ...queries.tree import SORT_KEYS, Entry, entry_count, folder_entries, folder_totals
from ...queries.trend import trend_points
from ...request_args import requested_flag, trend_period
from ...state import execute
from ...svg import GRAPH_DEFAULTS, GRAPH_KINDS
from ...svg.trend import TREND_PERIODS
from ...svg.writer import format_percent
from . import (
    NOT_FOUND_MESSAGE,
    PROV,
    REPO,
    Target,
    View,
    bp,
    coverage_text,
    current_user,
    legend_of,
    page_target,
    page_view,
    totals_of,
)
from .pulls import pull_comparison

#: Entries (folders and files) per page of a folder of the file explorer.
ENTRIES_PER_PAGE = 100
#: Repositories listed on the entry page at most (the owners' pages list all of theirs).
ENTRY_REPOSITORIES = 500
#: Commits listed on a page.
RECENT_COMMITS = 10


class Explorer(NamedTuple):
    """One page of a folder of the file explorer."""

    folder: str
    #: ``(name, folder path)`` of each folder from the top down to this one.
    crumbs: list[tuple[str, str]]
    totals: Entry
    entries: list[Entry]
    #: The folder's entries on every page.
    size: int
    sort: str
    order: str
    page: int
    pages: int

    def path(self, entry: Entry) -> str:
        return f"{self.folder}/{entry.name}" if self.folder else entry.name


def _explorer(commit: Commit, folder: str) -> Explorer:
    """The page of ``folder`` that the request's ``sort``, ``order`` and ``page`` ask for: folders
    first, then files, 100 a page, read from the explorer's rows (never every file)."""
    sort = request.args.get("sort", "name")
    order = request.args.get("order", "asc")
    if sort not in SORT_KEYS or order not in ("asc", "desc"):
        raise InvalidInput(f"sort must be one of {', '.join(SORT_KEYS)}, and order asc or desc.")
    totals = folder_totals(commit, folder)
    if totals is None:
        raise NotFound(NOT_FOUND_MESSAGE)
    count = entry_count(commit, folder)
    pages = max(1, -(-count // ENTRIES_PER_PAGE))
    number = _page_number(pages)
    offset = (number - 1) * ENTRIES_PER_PAGE
    entries = folder_entries(
        commit, folder, sort=sort, descending=order == "desc", limit=ENTRIES_PER_PAGE, offset=offset
    )
    parts = folder.split("/") if folder else []
    crumbs = [(part, "/".join(parts[: index + 1])) for index, part in enumerate(parts)]
    return Explorer(folder, crumbs, totals, entries, count, sort, order, number, pages)


def _page_number(pages: int) -> int:
    value = request.args.get("page", "1")
    if not (value.isascii() and value.isdigit() and 1 <= int(value) <= pages):
        raise NotFound(NOT_FOUND_MESSAGE)
    return int(value)


@bp.get("/<coverage_root:root>")
def entry_page(root: str) -> Any:
    """The repositories the visitor may see, by owner, with the coverage of their default branch."""
    user = current_user()
    rows = readable_repositories(user, limit=ENTRY_REPOSITORIES + 1)
    owners: dict[int, tuple[Owner, list[tuple[Repository, Optional[Commit]]]]] = {}
    for repository, tip in rows[:ENTRY_REPOSITORIES]:
        owners.setdefault(repository.owner_id, (repository.owner, []))[1].append((repository, tip))
    return render_template(
        "coverage/index.html",
        owners=list(owners.values()),
        more=len(rows) > ENTRY_REPOSITORIES,
        user=user,
        totals_of=totals_of,
        coverage_text=coverage_text,
    )


@bp.get(f"/{PROV}/<owner>")
def owner_page(prov: str, owner: str) -> Any:
    """The repositories of an owner that the visitor may see, with the coverage of their default branch."""
    owner_row = get_owner(SERVICE_BY_SHORT[prov], owner)
    if owner_row is None:
        raise NotFound(NOT_FOUND_MESSAGE)
    rows = owner_repositories(owner_row.id, reader_id=reader_id(current_user()))
    return render_template(
        "coverage/owner.html", owner=owner_row, rows=rows, totals_of=totals_of, coverage_text=coverage_text
    )


def _commit_flags(repository: Repository, commit: Optional[Commit]) -> list[tuple[str, Totals, Optional[str]]]:
    """The flags the commit's uploads carried, by name, each with its totals and, for a flag carried
    forward, the sha of the commit it was uploaded to (at most 100)."""
    if commit is None:
        return []
    rows = execute(flags_query(repository, commit).limit(100))
    origins = carried_origins(commit)
    return [(row.flag_name, Totals.of(row), origins.get(row.flag_name)) for row in rows if row.lines is not None]


def _parent_change(view: View) -> Optional[float]:
    """The change of the commit's coverage against its parent's, in points (``None`` without a parent
    with coverage)."""
    commit = view.commit
    if commit is None or not commit.parent_sha or not commit.lines:
        return None
    parent = resolve_commit(view.repository, sha=commit.parent_sha)
    if parent is None or not parent.lines:
        return None
    return Totals.of(commit).coverage - Totals.of(parent).coverage


def _target_page(view: View, folder: Optional[str] = None) -> Any:
    """The page of a target (``folder`` ``None``), or of a folder of its file explorer (``""`` the top):
    the same heading and totals, then the folder alone."""
    repository, target, commit = view.repository, view.target, view.commit
    flag = requested_flag()
    flags = _commit_flags(repository, commit)
    if flag is not None and flag not in {name for name, _, _ in flags}:
        raise NotFound(NOT_FOUND_MESSAGE)
    explorer = _explorer(commit, folder or "") if commit is not None else None
    lists = folder is None  # a folder's page is its explorer; the lists stay on the target's own page
    is_default = target == Target() and lists
    trend = lists and flag is None and commit is not None and target.pullid is None and target.sha is None
    period = trend_period() if trend else "all"
    # The codecov.yml of a commit's or a pull's page (its error shown; the pull's patch rounded by it).
    settings = (
        commit_settings(repository, commit)
        if commit is not None and lists and (target.sha is not None or target.pullid is not None)
        else None
    )
    pull = find_pull_with_base(repository, target.pullid) if target.pullid is not None and commit is not None else None
    return render_template(
        "coverage/repository.html",
        trend_url=view.graph_url("commits", period=None if period == "all" else period) if trend else None,
        trend_points=trend_points(repository, target.branch or repository.branch, period) if trend else [],
        period=period,
        periods=TREND_PERIODS,
        comparison=pull_comparison(view, pull, settings) if settings is not None and pull is not None else None,
        pull=pull[0] if pull is not None else None,
        view=view,
        repository=repository,
        commit=commit,
        totals=totals_of(commit),
        change=_parent_change(view) if lists and target.pullid is None else None,
        coverage_text=coverage_text,
        totals_of=totals_of,
        graphs=[(kind, view.graph_url(kind, flag=flag), GRAPH_DEFAULTS[kind]) for kind in GRAPH_KINDS] if lists else [],
        flags=flags,
        flag=flag,
        legend=legend_of(repository),
        explorer=explorer,
        branches=branch_tips(repository) if is_default else [],
        pulls=pull_tips(repository) if is_default else [],
        commits=recent_commits(repository, branch=target.branch, pullid=target.pullid, limit=RECENT_COMMITS)
        if lists and target.sha is None
        else [],
        settings=settings,
        feedback=report_of(commit.id) if settings is not None and commit is not None else None,
        Target=Target,
        format_percent=format_percent,
    )


@bp.get(REPO)
@bp.get(REPO + "/branch/<path:branch>")
@bp.get(REPO + "/pull/<pullid>")
@bp.get(REPO + "/commit/<sha>")
def repository_page(
    prov: str,
    owner: str,
    repo: str,
    branch: Optional[str] = None,
    pullid: Optional[str] = None,
    sha: Optional[str] = None,
) -> Any:
    """A repository at the tip of its default branch, a branch, a pull request or a commit."""
    view = page_view(prov, owner, repo, page_target(branch, pullid, sha))
    if view.commit is None and view.target != Target():
        raise NotFound(NOT_FOUND_MESSAGE)
    return _target_page(view)


@bp.get(REPO + "/flags")
def flags_page(prov: str, owner: str, repo: str) -> Any:
    """The flags of the default branch's tip: each one's coverage, its trend and its graphs."""
    view = page_view(prov, owner, repo, Target())
    flags = _commit_flags(view.repository, view.commit)
    return render_template(
        "coverage/flags.html",
        view=view,
        repository=view.repository,
        commit=view.commit,
        flags=flags,
        kinds=GRAPH_KINDS,
        coverage_text=coverage_text,
        Target=Target,
    )


@bp.get(REPO + "/components")
def components_page(prov: str, owner: str, repo: str) -> Any:
    """The components of the default branch's tip (``component_management``): each one's coverage."""
    view = page_view(prov, owner, repo, Target())
    rows = []
    if view.commit is not None:
        settings = commit_settings(view.repository, view.commit).value
        for component in commit_components(settings, view.commit):
            totals, files = component_totals(view.commit, component)
            rows.append((component, totals if totals.lines else None, files))
    return render_template(
        "coverage/components.html",
        view=view,
        repository=view.repository,
        commit=view.commit,
        rows=rows,
        coverage_text=coverage_text,
        Target=Target,
    )


@bp.get(REPO + "/tree/<path:rest>")
@bp.get(REPO + "/pull/<pullid>/tree")
@bp.get(REPO + "/pull/<pullid>/tree/<path:rest>")
def tree_page(prov: str, owner: str, repo: str, rest: str = "", pullid: Optional[str] = None) -> Any:
    """The file explorer at a folder: ``.../tree/{ref}/{folder}`` (``ref`` the longest leading run of
    segments that is a branch, else a sha) or ``.../pull/{id}/tree/{folder}``."""
    segments = rest.split("/") if rest else []
    if pullid is not None:
        target, folder = page_target(None, pullid, None), segments
    else:
        branch = leading_branch(SERVICE_BY_SHORT[prov], owner, repo, segments)
        taken = branch.count("/") + 1 if branch is not None else 1
        target = Target(branch=branch) if branch is not None else Target(sha=segments[0])
        folder = segments[taken:]
    view = page_view(prov, owner, repo, target)
    if view.commit is None or "" in folder:
        raise NotFound(NOT_FOUND_MESSAGE)
    return _target_page(view, "/".join(folder))
