"""The service's web pages: ``{COVERAGE_WEB_URL_PREFIX}/...`` at Codecov's web paths (docs/web.md).

- ``/``: the entry page, the repositories the visitor may see by owner (a host app's own ``/`` wins).
- ``/{prov}/{owner}``: the owner's repositories the visitor may see.
- ``/{prov}/{owner}/{repo}``: the tip of the default branch: its coverage and change against the
  parent, the trend, the file explorer at the top folder, the graphs with their legend, and the
  repository's branches, pull requests and recent commits.
- ``.../branch/{name}``, ``.../pull/{id}``, ``.../commit/{sha}``: the same for that target, with
  the commits of the branch or pull request.
- ``.../tree/{ref}/{folder}`` (``ref`` a branch or a sha), ``.../pull/{id}/tree/{folder}``: the file
  explorer at a folder (:mod:`flask_coverage.queries.tree`).
- ``.../blob/{path}`` below each of them: the file view, every line of the file with its state and
  hits, and its source when the ``source_loader`` hook finds it (:mod:`flask_coverage.sources`).
  Codecov's file links, ``/{prov}/{owner}/{repo}/blob/{ref}/{path}``, redirect to the branch's or the
  commit's file view.

Pages are server-rendered HTML that works without JavaScript (the file view's keyboard keys are a
small script file); templates ``coverage/*.html`` extend ``coverage/base.html``, which the host
overrides. Visibility is the APIs': public repositories for everyone, private ones for activated
members (the ``current_user_loader`` hook); anything else is the one 404 page, so a private
repository's existence does not leak. The graph token opens a private repository's images only (the
graphs the pages show carry it), never its pages or source, as on Codecov.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from flask import Blueprint, Response, make_response, redirect, render_template, request, url_for
from markupsafe import Markup

from ..auth import can_read_private, is_admin, reader_id
from ..codecov_yml.settings import Settings, commit_settings
from ..csrf import CSRF_FAILED, CSRF_FIELD, csrf_token, csrf_valid
from ..errors import CoverageError, Forbidden, InvalidInput, NotFound
from ..feedback.base import find_pull_with_base
from ..feedback.outbox import report_of
from ..feedback.patch import find_diff, patch_coverage
from ..feedback.statuses import ratio
from ..http_errors import handle_errors
from ..identifiers import normalize_sha, pull_number
from ..lines import HIT, MISS, PARTIAL, Totals
from ..models import SERVICE_BY_SHORT, Commit, Owner, Repository
from ..operations import rotate_token, set_repo
from ..outage import plain_text_response
from ..queries.compare import changed_files
from ..queries.files import file_lines, flags_query
from ..queries.lists import branch_tips, owner_repositories, pull_tips, readable_repositories, recent_commits
from ..queries.repositories import find_readable_repository, get_owner
from ..queries.targets import find_flag, leading_branch, resolve_commit
from ..queries.tree import SORT_KEYS, Entry, entry_count, folder_entries, folder_totals
from ..queries.trend import trend_points
from ..request_args import color_range, etag, requested_flag, trend_period
from ..sources import load_source
from ..state import call_hook, execute
from ..svg import GRAPH_DEFAULTS, GRAPH_KINDS
from ..svg.color import NO_DATA_COLOR, coverage_color, coverage_steps
from ..svg.trend import TREND_PERIODS
from ..svg.writer import format_percent
from ..urls import absolute_url

bp = Blueprint("coverage_web", __name__, template_folder="../templates")

_PROV = "<any({}):prov>".format(", ".join(SERVICE_BY_SHORT))
_REPO = f"/{_PROV}/<owner>/<repo>"

#: Entries (folders and files) per page of a folder of the file explorer.
ENTRIES_PER_PAGE = 100
#: Repositories listed on the entry page at most (the owners' pages list all of theirs).
ENTRY_REPOSITORIES = 500
#: Commits listed on a page.
RECENT_COMMITS = 10
#: Missed ranges linked at the top of a file view; more are reached with "next miss".
LISTED_MISS_RANGES = 50
#: A pull request's page names the changed files of a head of at most this many files (ranked from
#: the totals of both commits); past it the page links to the v2 API's compare, a page at a time.
SORTED_FILES = 10_000
STATE_NAMES = {HIT: "hit", MISS: "miss", PARTIAL: "partial"}

#: Every 404 says the same, so a private repository's page is indistinguishable from a missing one.
NOT_FOUND_MESSAGE = "There is no coverage here. Private repositories are shown to their members when signed in."
#: Headers of every page: the graphs are <object>s, the file view's keys a script file.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'self'; frame-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "Referrer-Policy": "same-origin",
    # Pages differ per signed-in user (the host's layout) and may hold graph tokens.
    "Cache-Control": "private, no-cache",
}


class Target(NamedTuple):
    """The commit a page names: the default branch's tip, a branch's, a pull request's or a commit."""

    branch: Optional[str] = None
    pullid: Optional[int] = None
    sha: Optional[str] = None

    @property
    def args(self) -> dict[str, Any]:
        return {key: value for key, value in self._asdict().items() if value is not None}


class View(NamedTuple):
    """What every page of a repository knows: who may see it, and how its links are spelled."""

    repository: Repository
    target: Target
    commit: Optional[Commit]

    def url(self, endpoint: str, target: Optional[Target] = None, **args: Any) -> str:
        owner = self.repository.owner
        names: dict[str, Any] = {"prov": owner.service.short, "owner": owner.username, "repo": self.repository.name}
        return url_for(endpoint, **names, **(target or self.target).args, **args)

    def tree_url(self, folder: str, **args: Any) -> str:
        """The file explorer at ``folder`` of this page's target: ``.../tree/{ref}/{folder}`` (the
        branch, or the sha; the default branch's name on the repository's page), or
        ``.../pull/{id}/tree/{folder}``."""
        target = self.target
        if target.pullid is not None and not folder:
            return self.url("coverage_web.tree_page", **args)
        if target.pullid is not None:
            return self.url("coverage_web.tree_page", rest=folder, **args)
        ref = target.branch or target.sha or self.repository.branch
        return self.url("coverage_web.tree_page", target=Target(), rest=f"{ref}/{folder}".rstrip("/"), **args)

    def graph_url(self, kind: str, **args: Any) -> str:
        """The graph of this page's target; a private repository's carries its graph token."""
        token = self.repository.image_token if self.repository.private else None
        owner = self.repository.owner
        names: dict[str, Any] = {"prov": owner.service.short, "owner": owner.username, "repo": self.repository.name}
        return url_for("coverage_graphs.graph", kind=kind, **names, **self.target.args, token=token, **args)


@bp.after_request
def _headers(response: Response) -> Response:
    for name, value in PAGE_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def _error_page(error: CoverageError) -> Response:
    """The pages' one error answer: the error page in the host's layout (plain text while the database
    is away: a host's layout may read it)."""
    if error.status == 503:
        return plain_text_response(str(error))
    title = {400: "Bad request", 403: "Forbidden", 404: "Not found"}.get(error.status, "Error")
    return make_response(render_template("coverage/error.html", title=title, message=str(error)))


handle_errors(bp, _error_page)


def _current_user() -> Optional[Owner]:
    return call_hook("current_user")


def _view(prov: str, owner: str, repo: str, target: Target) -> View:
    """The page's repository and commit, or the one 404.

    The repository is found with the visitor's right to read it in one statement
    (``find_readable_repository``), so a private repository and a missing one cost the same statements in
    the same order, for anyone; only a readable one goes on to its commit."""
    repository = find_readable_repository(_current_user(), SERVICE_BY_SHORT[prov], owner, repo)
    if repository is None:
        raise NotFound(NOT_FOUND_MESSAGE)
    commit = resolve_commit(repository, **target._asdict())
    # A repository without coverage on its default branch still has its page.
    if commit is None and target != Target():
        raise NotFound(NOT_FOUND_MESSAGE)
    return View(repository, target, commit)


def _target(branch: Optional[str], pullid: Optional[str], sha: Optional[str]) -> Target:
    if pullid is not None:
        number = pull_number(pullid)
        if number is None:
            raise NotFound(NOT_FOUND_MESSAGE)
        return Target(pullid=number)
    return Target(branch=branch, sha=sha)


def totals_of(commit: Optional[Commit]) -> Optional[Totals]:
    """A commit's stored totals, or ``None``."""
    return None if commit is None else Totals.of(commit)


def _coverage_text(totals: Optional[Totals]) -> str:
    return "no coverage" if totals is None else format_percent(totals.hits, totals.lines)


class Legend(NamedTuple):
    """The color scale of a repository's graphs: ``(color, from %, to %)`` steps."""

    steps: list[tuple[str, float, float]]
    low: float
    high: float
    no_data: str = NO_DATA_COLOR

    def color(self, totals: Any) -> str:
        """The color of a file's or folder's coverage bar (gray without tracked lines)."""
        if not totals.lines:
            return self.no_data
        return coverage_color(100 * totals.hits / totals.lines, self.low, self.high)


def legend_of(repository: Repository) -> Legend:
    """The legend of a repository's graphs (its coverage range and the colors between)."""
    low, high = color_range(repository)
    bounds, colors = coverage_steps(low, high)
    edges = [0.0, *(bound / 100 for bound in bounds), 100.0]
    steps = [(color, edges[i], edges[i + 1]) for i, color in enumerate(colors)]
    return Legend(steps, low, high)


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
    user = _current_user()
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
        coverage_text=_coverage_text,
    )


@bp.get(f"/{_PROV}/<owner>")
def owner_page(prov: str, owner: str) -> Any:
    """The repositories of an owner that the visitor may see, with the coverage of their default branch."""
    owner_row = get_owner(SERVICE_BY_SHORT[prov], owner)
    if owner_row is None:
        raise NotFound(NOT_FOUND_MESSAGE)
    user = _current_user()
    rows = owner_repositories(owner_row.id, private=can_read_private(user, owner_row), reader_id=reader_id(user))
    return render_template(
        "coverage/owner.html", owner=owner_row, rows=rows, totals_of=totals_of, coverage_text=_coverage_text
    )


def _commit_flags(repository: Repository, commit: Optional[Commit]) -> list[tuple[str, Totals]]:
    """The flags the commit's uploads carried, by name, each with its totals (at most 100)."""
    if commit is None:
        return []
    rows = execute(flags_query(repository, commit).limit(100))
    return [(row.flag_name, Totals.of(row)) for row in rows if row.lines is not None]


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
    if flag is not None and flag not in dict(flags):
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
        comparison=_pull_comparison(view, pull, settings) if settings is not None and pull is not None else None,
        pull=pull[0] if pull is not None else None,
        view=view,
        repository=repository,
        commit=commit,
        totals=totals_of(commit),
        change=_parent_change(view) if lists and target.pullid is None else None,
        coverage_text=_coverage_text,
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


#: The files a pull request's page lists: those whose coverage changed most, and those whose added
#: lines are missed most.
CHANGED_FILES_SHOWN = 10
#: ... and with ``?changes=all``: every changed file, up to this many (the API's compare pages the rest).
CHANGED_FILES_ALL = 500


def _pull_comparison(view: View, row: Any, settings: Settings) -> Optional[dict[str, Any]]:
    """A pull request compared with its base (``None`` while it has no base): the base commit (``None``
    while it has no coverage here), the change of coverage, the files whose coverage changed most
    (from the totals columns; none named when the head has more than :data:`SORTED_FILES` files: the
    page links to the API's compare instead), the patch coverage (``None`` without a diff) and its
    files with missed lines, the files whose coverage changed outside the diff (indirect changes), the
    trees. ``row`` is :func:`~flask_coverage.feedback.base.find_pull_with_base`'s; the patch's
    percentages are shown with the commit's ``coverage.precision`` and ``coverage.round``."""
    if row[0].base_sha is None:
        return None
    pull, head, base = row
    every = request.args.get("changes")
    if every not in (None, "all"):
        raise InvalidInput("changes must be all, or left out.")
    numbers = settings.numbers()

    def shown(totals: Totals) -> str:
        value = ratio(totals)
        return "no coverable lines" if value is None else f"{numbers.show(value)}%"

    patch = patch_coverage(view.repository, pull.base_sha, head)
    missed = (
        sorted((file for file in patch.files.values() if file.missed), key=lambda file: (-len(file.missed), file.path))
        if patch
        else []
    )
    found = {
        "base_sha": pull.base_sha,
        "base": base,
        "patch": patch,
        "patch_text": shown(patch.totals) if patch else None,
    }
    found["missed_files"] = [(file, shown(file.totals)) for file in missed[:CHANGED_FILES_SHOWN]]
    found["missed_count"] = len(missed)
    if base is None:
        return found
    changed = changed_files(base, head) if head.files <= SORTED_FILES else None
    patched = patch.files if patch is not None else {}
    # Files whose totals changed though the diff does not touch them.
    indirect = [
        file.path
        for file in changed or []
        if file.base is not None and patch is not None and file.path not in patch.changed
    ]
    return {
        **found,
        "change": totals_of(head).coverage - totals_of(base).coverage,  # type: ignore[union-attr]
        "files": (changed or [])[: CHANGED_FILES_ALL if every else CHANGED_FILES_SHOWN],
        "file_patch": {path: shown(file.totals) for path, file in patched.items()},
        "changed": None if changed is None else len(changed),
        "indirect": indirect,
        "all_url": view.url("coverage_web.repository_page", changes="all") + "#coverage-comparison-title",
        "compare_url": url_for(
            "coverage_api.repos_compare_retrieve",
            service=view.repository.owner.service.value,
            owner_username=view.repository.owner.username,
            repo=view.repository.name,
            pullid=view.target.pullid,
        ),
        "base_graph": view._replace(target=Target(sha=base.sha)).graph_url("tree"),
        "head_graph": view.graph_url("tree"),
    }


@bp.get(_REPO)
@bp.get(_REPO + "/branch/<path:branch>")
@bp.get(_REPO + "/pull/<pullid>")
@bp.get(_REPO + "/commit/<sha>")
def repository_page(
    prov: str,
    owner: str,
    repo: str,
    branch: Optional[str] = None,
    pullid: Optional[str] = None,
    sha: Optional[str] = None,
) -> Any:
    """A repository at the tip of its default branch, a branch, a pull request or a commit."""
    view = _view(prov, owner, repo, _target(branch, pullid, sha))
    if view.commit is None and view.target != Target():
        raise NotFound(NOT_FOUND_MESSAGE)
    return _target_page(view)


@bp.get(_REPO + "/flags")
def flags_page(prov: str, owner: str, repo: str) -> Any:
    """The flags of the default branch's tip: each one's coverage, its trend and its graphs."""
    view = _view(prov, owner, repo, Target())
    flags = _commit_flags(view.repository, view.commit)
    return render_template(
        "coverage/flags.html",
        view=view,
        repository=view.repository,
        commit=view.commit,
        flags=flags,
        kinds=GRAPH_KINDS,
        coverage_text=_coverage_text,
        Target=Target,
    )


#: What an admin's settings form may ask (the ``action`` field).
SETTINGS_ACTIONS = ("show-upload-token", "rotate-upload-token", "rotate-graph-token", "visibility", "branch")


@bp.route(_REPO + "/settings", methods=["GET", "POST"])
def settings_page(prov: str, owner: str, repo: str) -> Any:
    """A repository's settings for those who may read it: its badge and graph snippets (with the graph
    token of a private repository); for its admins, forms (with the session's CSRF token) that show or
    rotate its upload token, rotate its graph token, and set its visibility and default branch."""
    view = _view(prov, owner, repo, Target())
    repository = view.repository
    admin = is_admin(_current_user(), repository.owner)
    shown, done = None, None
    if request.method == "POST":
        if not admin:
            raise Forbidden("Only the repository's admins may change its settings.")
        if not csrf_valid():
            raise InvalidInput(CSRF_FAILED)
        action = request.form.get("action")
        if action not in SETTINGS_ACTIONS:
            raise InvalidInput(f"action must be one of {', '.join(SETTINGS_ACTIONS)}.")
        names = (repository.owner.service, repository.owner.username, repository.name)
        if action == "show-upload-token":
            shown = repository.upload_token
        elif action == "rotate-upload-token":
            shown, done = (
                rotate_token(*names, kind="upload"),
                "A new upload token was made; the old one no longer works.",
            )
        elif action == "rotate-graph-token":
            rotate_token(*names, kind="graph")
            done = "A new graph token was made: the README snippets below changed, and the old token no longer works."
        elif action == "visibility":
            set_repo(*names, private=request.form.get("private") == "yes")
            done = "The repository is now " + ("private." if repository.private else "public.")
        else:
            set_repo(*names, branch=request.form.get("branch", ""))
            done = f"The default branch is now {repository.branch}."
    page = url_for("coverage_web.repository_page", prov=prov, owner=repository.owner.username, repo=repository.name)
    response = make_response(
        render_template(
            "coverage/settings.html",
            view=view,
            repository=repository,
            admin=admin,
            shown=shown,
            done=done,
            page_url=absolute_url(page),
            badge_url=absolute_url(view.graph_url("badge")),
            graphs=[(kind, absolute_url(view.graph_url(kind))) for kind in GRAPH_KINDS],
            csrf_token=csrf_token() if admin else None,
            csrf_field=CSRF_FIELD,
            Target=Target,
        )
    )
    response.headers["Cache-Control"] = "no-store"  # it may hold a token
    return response


@bp.get(_REPO + "/tree/<path:rest>")
@bp.get(_REPO + "/pull/<pullid>/tree")
@bp.get(_REPO + "/pull/<pullid>/tree/<path:rest>")
def tree_page(prov: str, owner: str, repo: str, rest: str = "", pullid: Optional[str] = None) -> Any:
    """The file explorer at a folder: ``.../tree/{ref}/{folder}`` (``ref`` the longest leading run of
    segments that is a branch, else a sha) or ``.../pull/{id}/tree/{folder}``."""
    segments = rest.split("/") if rest else []
    if pullid is not None:
        target, folder = _target(None, pullid, None), segments
    else:
        branch = leading_branch(SERVICE_BY_SHORT[prov], owner, repo, segments)
        taken = branch.count("/") + 1 if branch is not None else 1
        target = Target(branch=branch) if branch is not None else Target(sha=segments[0])
        folder = segments[taken:]
    view = _view(prov, owner, repo, target)
    if view.commit is None or "" in folder:
        raise NotFound(NOT_FOUND_MESSAGE)
    return _target_page(view, "/".join(folder))


def _miss_ranges(tracked: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs of consecutive missed lines, as ``(first, last)``."""
    ranges: list[tuple[int, int]] = []
    for number in sorted(tracked):
        if tracked[number][1] != MISS:
            continue
        if ranges and ranges[-1][1] == number - 1:
            ranges[-1] = (ranges[-1][0], number)
        else:
            ranges.append((number, number))
    return ranges


def lines_html(
    tracked: dict[int, tuple[int, int]], source: Optional[tuple[Markup, ...]], added: frozenset[int] = frozenset()
) -> Markup:
    """The rows of the file view's table, built here rather than in a template loop: a 5,000-line
    file is 5,000 rows, and a join of formatted strings is several times faster (docs/web.md).

    With ``source``: every line, ``number | hits | code``; without: the tracked lines, ``number |
    state | hits``. A row's class is its state (``coverage-hit``, ...; none for untracked lines), and
    ``coverage-added`` for the lines of ``added`` (a pull's added lines).
    """
    rows = []
    if source is None:
        for number in sorted(tracked):
            hits, state = tracked[number]
            name = STATE_NAMES[state]
            extra = " coverage-added" if number in added else ""
            rows.append(
                f'<tr class="coverage-{name}{extra}" id="L{number}"><td><a href="#L{number}">{number}</a></td>'
                f"<td>{name}</td><td>{hits}</td></tr>"
            )
    else:
        last = max(len(source), max(tracked, default=0))
        for number in range(1, last + 1):
            code = source[number - 1] if number <= len(source) else ""
            found = tracked.get(number)
            names = ([] if found is None else [f"coverage-{STATE_NAMES[found[1]]}"]) + (
                ["coverage-added"] if number in added else []
            )
            css = f' class="{" ".join(names)}"' if names else ""
            hits_text = "" if found is None else found[0]
            link = f'<a href="#L{number}">{number}</a>'
            rows.append(f'<tr{css} id="L{number}"><td>{link}</td><td>{hits_text}</td><td>{code}</td></tr>')
    # Numbers, state names and already escaped source only.
    return Markup("\n".join(rows))  # noqa: S704


def _added_lines(view: View, path: str) -> tuple[frozenset[int], Optional[str]]:
    """The lines a pull's page's file adds over the pull's base (none for other pages or without a
    diff), and the base's sha."""
    if view.target.pullid is None or view.commit is None:
        return frozenset(), None
    row = find_pull_with_base(view.repository, view.target.pullid)
    base_sha = row[0].base_sha if row is not None else None
    found = find_diff(view.repository, base_sha, view.commit.sha) if base_sha else None
    return frozenset(found.added.get(path, ()) if found else ()), base_sha


def _blob_ref(view: View, path: str) -> Optional[str]:
    """Codecov's file link ``.../blob/{ref}/{path}`` as the file view of that branch (the longest branch
    name that starts the path: names may hold ``/``) or commit (a sha of 7 to 64 hex digits), or ``None``."""
    parts = path.split("/")
    repository = view.repository
    branch = leading_branch(repository.owner.service, repository.owner.username, repository.name, parts[:-1])
    if branch is not None:
        rest = "/".join(parts[branch.count("/") + 1 :])
        return view.url("coverage_web.file_view", target=Target(branch=branch), path=rest, flag=requested_flag())
    sha = normalize_sha(parts[0], prefix=True)
    if sha is not None and len(parts) > 1:
        rest = "/".join(parts[1:])
        return view.url("coverage_web.file_view", target=Target(sha=sha), path=rest, flag=requested_flag())
    return None


@bp.get(_REPO + "/blob/<path:path>")
@bp.get(_REPO + "/branch/<path:branch>/blob/<path:path>")
@bp.get(_REPO + "/pull/<pullid>/blob/<path:path>")
@bp.get(_REPO + "/commit/<sha>/blob/<path:path>")
def file_view(
    prov: str,
    owner: str,
    repo: str,
    path: str,
    branch: Optional[str] = None,
    pullid: Optional[str] = None,
    sha: Optional[str] = None,
) -> Any:
    """One file of the commit the URL's target names (``?flag=``: of that flag of it): each line
    with its state, hits and source."""
    flag = requested_flag()
    view = _view(prov, owner, repo, _target(branch, pullid, sha))
    commit = view.commit
    coverage = commit if flag is None or commit is None else find_flag(commit, flag)
    lines = file_lines(coverage, path) if coverage is not None else None
    if lines is None and view.target == Target():
        codecov_link = _blob_ref(view, path)
        if codecov_link is not None:
            return redirect(codecov_link)
    if commit is None or lines is None:
        raise NotFound(NOT_FOUND_MESSAGE)
    source = load_source(view.repository, commit.sha, path)
    added, base_sha = _added_lines(view, path)
    user = _current_user()
    tag = etag(commit.id, commit.sha, commit.version, path, flag, getattr(user, "id", None), source, base_sha)
    if request.if_none_match.contains(tag):
        response = make_response("", 304)
        response.set_etag(tag)
        return response
    tracked = {number: (hits, state) for number, hits, state in lines}
    totals = lines.totals()
    response = make_response(
        render_template(
            "coverage/file.html",
            view=view,
            repository=view.repository,
            commit=commit,
            path=path,
            flag=flag,
            totals=totals,
            coverage=format_percent(totals.hits, totals.lines),
            rows=lines_html(tracked, source.lines, added),
            added=added,
            added_missed=sorted(number for number in added if number in tracked and tracked[number][1] != HIT),
            source=source,
            miss_ranges=_miss_ranges(tracked),
            listed_miss_ranges=LISTED_MISS_RANGES,
            legend=legend_of(view.repository),
            Target=Target,
        )
    )
    response.set_etag(tag)
    return response
