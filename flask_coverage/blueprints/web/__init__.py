"""The service's web pages: ``{COVERAGE_WEB_URL_PREFIX}/...`` at Codecov's web paths (docs/web.md).

One blueprint, ``coverage_web``, with its views by page family:

- :mod:`.repositories`: ``/`` (the entry page: the repositories the visitor may see, by owner; a host
  app's own ``/`` wins), ``/{prov}/{owner}``, and ``/{prov}/{owner}/{repo}`` with ``.../branch/{name}``,
  ``.../pull/{id}``, ``.../commit/{sha}``: a target's coverage and change against the parent, the
  trend, the file explorer at the top folder, the graphs with their legend, and the repository's
  branches, pull requests and recent commits; ``.../flags``; the file explorer at a folder
  (``.../tree/{ref}/{folder}``, ``.../pull/{id}/tree/{folder}``, :mod:`flask_coverage.queries.tree`).
- :mod:`.pulls`: what a pull request's page shows of its comparison with its base.
- :mod:`.files`: ``.../blob/{path}`` below each target, the file view: every line of the file with its
  state and hits, and its source when the ``source_loader`` hook finds it
  (:mod:`flask_coverage.sources`). Codecov's file links, ``/{prov}/{owner}/{repo}/blob/{ref}/{path}``,
  redirect to the branch's or the commit's file view.
- :mod:`.settings`: ``.../settings``, the badge and graph snippets and an admin's forms.

This module holds what they share: the blueprint, its headers and error page, the target a URL names
(:class:`Target`), the page's repository and commit (:class:`View`, :func:`page_view`), the graphs'
legend.

Pages are server-rendered HTML that works without JavaScript (the file view's keyboard keys are a
small script file); templates ``coverage/*.html`` extend ``coverage/base.html``, which the host
overrides. Visibility is the APIs': public repositories for everyone, private ones for activated
members (the ``current_user_loader`` hook); anything else is the one 404 page, so a private
repository's existence does not leak. The graph token opens a private repository's images only (the
graphs the pages show carry it), never its pages or source, as on Codecov.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

from flask import Blueprint, Response, make_response, render_template, url_for

from ...codecov_yml.schema import components
from ...codecov_yml.settings import stored_settings
from ...errors import CoverageError, NotFound
from ...http_errors import handle_errors
from ...identifiers import pull_number
from ...lines import Totals
from ...models import SERVICE_BY_SHORT, Commit, Owner, Repository
from ...outage import plain_text_response
from ...queries.repositories import find_readable_repository
from ...queries.targets import resolve_commit
from ...request_args import color_range
from ...state import call_hook
from ...svg.color import NO_DATA_COLOR, coverage_color, coverage_steps
from ...svg.writer import format_percent
from ...urls import external_url, repository_names

bp = Blueprint("coverage_web", __name__, template_folder="../../templates")

PROV = "<any({}):prov>".format(", ".join(SERVICE_BY_SHORT))
REPO = f"/{PROV}/<owner>/<repo>"


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

    def has_components(self) -> bool:
        """Whether the ``codecov.yml`` of the page's commit, as stored here, declares components (the
        Components tab is shown then)."""
        return bool(components(stored_settings(self.repository, self.commit).value))

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

    def graph_url(self, kind: str, external: bool = False, **args: Any) -> str:
        """The graph of this page's target (an absolute URL if ``external``); a private repository's
        carries its graph token."""
        token = self.repository.image_token if self.repository.private else None
        values = {"kind": kind, **repository_names(self.repository), **self.target.args, "token": token, **args}
        return (external_url if external else url_for)("coverage_graphs.graph", **values)


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


def current_user() -> Optional[Owner]:
    return call_hook("current_user")


def page_view(prov: str, owner: str, repo: str, target: Target) -> View:
    """The page's repository and commit, or the one 404.

    The repository is found with the visitor's right to read it in one statement
    (``find_readable_repository``), so a private repository and a missing one cost the same statements in
    the same order, for anyone; only a readable one goes on to its commit."""
    repository = find_readable_repository(current_user(), SERVICE_BY_SHORT[prov], owner, repo)
    if repository is None:
        raise NotFound(NOT_FOUND_MESSAGE)
    commit = resolve_commit(repository, **target._asdict())
    # A repository without coverage on its default branch still has its page.
    if commit is None and target != Target():
        raise NotFound(NOT_FOUND_MESSAGE)
    return View(repository, target, commit)


def page_target(branch: Optional[str], pullid: Optional[str], sha: Optional[str]) -> Target:
    if pullid is not None:
        number = pull_number(pullid)
        if number is None:
            raise NotFound(NOT_FOUND_MESSAGE)
        return Target(pullid=number)
    return Target(branch=branch, sha=sha)


def totals_of(commit: Optional[Commit]) -> Optional[Totals]:
    """A commit's stored totals, or ``None``."""
    return None if commit is None else Totals.of(commit)


def coverage_text(totals: Optional[Totals]) -> str:
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


# The views join ``bp`` as their modules are read (the router orders the rules itself, not by
# registration: ``.../branch/{name}`` and ``.../branch/{name}/blob/{path}`` match as before).
from . import files, pulls, repositories, settings  # noqa: E402, F401
