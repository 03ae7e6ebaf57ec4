"""The host app's pages: the repositories with their graphs, and how to call the APIs.

Graph and file-view URLs come from the coverage service's own routes (``url_for`` on the
``coverage_graphs`` endpoints); a private repository's URLs carry its graph token, and private
repositories are shown only to members of the owning organization.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import sqlalchemy as sa
from flask import Blueprint, abort, render_template, request, url_for
from werkzeug.wrappers import Response

from flask_coverage.auth import can_read_repository
from flask_coverage.blueprints.account import CSRF_FIELD, csrf_token
from flask_coverage.commits import file_totals, find_repository, resolve_commit
from flask_coverage.demo import DEMO_SERVICE, DEMO_TOKEN_USER, active_demo_token
from flask_coverage.lines import Totals
from flask_coverage.models import SERVICE_BY_SHORT, Branch, Commit, Owner, Pull, Repository
from flask_coverage.state import get_session
from flask_coverage.svg import GRAPH_DEFAULTS, GRAPH_KINDS

from .auth import current_user

bp = Blueprint("example", __name__)

#: Sizes of the small graphs on the home page (the repository page uses the defaults).
THUMBNAIL_SIZES = {"tree": (220, 220), "icicle": (420, 90), "sunburst": (200, 200)}
#: Files listed on a repository page, least covered first; the tree graph shows them all.
LISTED_FILES = 25
#: The organization and repository the API examples use.
EXAMPLE_ORG = "acme"
EXAMPLE_REPO = "marshmallow"

SECURITY_HEADERS = {
    # <object> shows the interactive graphs; nothing else is embedded, no script runs.
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; object-src 'self'; frame-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    # Pages differ per signed-in user and may hold graph tokens or the demo token: no cache keeps them.
    "Cache-Control": "no-store",
}


@bp.app_context_processor
def _template_globals() -> dict[str, Any]:
    # Not "csrf_token": the coverage service's pages pass a variable of that name to their templates.
    return {"current_user": current_user(), "form_token": csrf_token, "csrf_field": CSRF_FIELD}


@bp.after_app_request
def _security_headers(response: Response) -> Response:
    # Only this app's HTML pages (and its 404 page for unknown URLs): the coverage service sets the
    # headers of its own responses.
    if request.blueprint in ("example", "example_auth") or request.url_rule is None:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
    return response


@dataclass(frozen=True)
class Target:
    """The commit a page shows: the default branch's tip, or a branch's, a pull request's, a commit's."""

    branch: Optional[str] = None
    pullid: Optional[int] = None
    sha: Optional[str] = None

    @property
    def label(self) -> str:
        if self.branch is not None:
            return f"branch {self.branch}"
        if self.pullid is not None:
            return f"pull request #{self.pullid}"
        if self.sha is not None:
            return f"commit {self.sha[:7]}"
        return "default branch"

    def graph_url(self, repository: Repository, kind: str, **args: Any) -> str:
        """The URL of this target's ``kind`` graph (with the graph token of a private repository)."""
        if repository.private:
            args["token"] = repository.image_token
        target = {"branch": self.branch, "pullid": self.pullid, "sha": self.sha}
        return url_for("coverage_graphs.graph", kind=kind, **_url_names(repository), **target, **args)

    def page_url(self, repository: Repository, **args: Any) -> str:
        """This app's page of the target."""
        names = _url_names(repository)
        if self.branch is not None:
            return url_for("example.repository_branch", branch=self.branch, **names, **args)
        if self.pullid is not None:
            return url_for("example.repository_pull", pullid=self.pullid, **names, **args)
        if self.sha is not None:
            return url_for("example.repository_commit", sha=self.sha, **names, **args)
        return url_for("example.repository_page", **names, **args)


def _url_names(repository: Repository) -> dict[str, Any]:
    owner: Owner = repository.owner
    return {"prov": owner.service.short, "owner": owner.username, "repo": repository.name}


def file_url(repository: Repository, commit: Commit, path: str) -> str:
    """The coverage service's view of one file of a commit (with the graph token of a private repository)."""
    token = repository.image_token if repository.private else None
    return url_for("coverage_graphs.file_view", sha=commit.sha, path=path, token=token, **_url_names(repository))


def totals_of(commit: Optional[Commit]) -> Optional[Totals]:
    """A commit's stored totals, or ``None`` for no commit."""
    return None if commit is None else Totals(commit.lines, commit.hits, commit.misses, commit.partials)


def visible_repositories() -> list[Repository]:
    """Every repository the visitor may read, by owner and name: private ones only for members."""
    query = (
        sa.select(Repository)
        .join(Owner, Owner.id == Repository.owner_id)
        .where(Repository.deleted.is_(False))
        .order_by(sa.func.lower(Owner.username), sa.func.lower(Repository.name))
    )
    user = current_user()
    return [repo for repo in get_session().execute(query).scalars() if can_read_repository(user, repo)]


def _readable_or_404(prov: str, owner: str, repo: str) -> Repository:
    service = SERVICE_BY_SHORT.get(prov)
    repository = find_repository(service, owner, repo) if service is not None else None
    # A private repository the visitor may not read is as absent as an unknown one.
    if repository is None or not can_read_repository(current_user(), repository):
        abort(404)
    return repository


@bp.app_errorhandler(404)
def _not_found(error: Exception) -> Any:
    return render_template("error.html", title="Not found", message="There is no such page here."), 404


@bp.get("/")
def home() -> Any:
    """The repositories with the graphs of their default branch."""
    cards = []
    for repository in visible_repositories():
        commit = resolve_commit(repository)
        graphs = [
            (kind, Target().graph_url(repository, kind, width=size[0], height=size[1]), size)
            for kind, size in THUMBNAIL_SIZES.items()
        ]
        cards.append({"repository": repository, "commit": commit, "totals": totals_of(commit), "graphs": graphs})
    return render_template("home.html", cards=cards, page_url=lambda repo: Target().page_url(repo))


def _tips(model: Any, repository: Repository, order: Any) -> list[tuple[Any, Commit]]:
    query = (
        sa.select(model, Commit)
        .join(Commit, Commit.id == model.head_commit_id)
        .where(model.repository_id == repository.id)
        .order_by(order)
    )
    return [(row, commit) for row, commit in get_session().execute(query)]


def _repository_page(repository: Repository, target: Target) -> Any:
    commit = resolve_commit(repository, branch=target.branch, pullid=target.pullid, sha=target.sha)
    if commit is None and target != Target():
        abort(404)
    files = file_totals(commit) if commit is not None else []
    least_covered = sorted(files, key=lambda file: (file.totals.coverage, file.path))[:LISTED_FILES]
    root = request.url_root.rstrip("/")
    graphs = []
    for kind in GRAPH_KINDS:
        url = target.graph_url(repository, kind)
        markdown = f"[![{kind}]({root}{url})]({root}{target.page_url(repository)})"
        graphs.append({"kind": kind, "url": url, "markdown": markdown, "html": f'<img src="{root}{url}" alt="{kind}">'})
    recent = get_session().execute(
        sa.select(Commit).where(Commit.repository_id == repository.id).order_by(Commit.timestamp.desc()).limit(10)
    )
    return render_template(
        "repository.html",
        repository=repository,
        target=target,
        commit=commit,
        totals=totals_of(commit),
        graphs=graphs,
        graph_sizes=GRAPH_DEFAULTS,
        branches=_tips(Branch, repository, Branch.name),
        pulls=_tips(Pull, repository, Pull.pullid.desc()),
        commits=list(recent.scalars()),
        files=least_covered,
        file_count=len(files),
        file_url=file_url,
        totals_of=totals_of,
        Target=Target,
    )


@bp.get("/repos/<prov>/<owner>/<repo>/")
def repository_page(prov: str, owner: str, repo: str) -> Any:
    """A repository at the tip of its default branch: interactive graphs, README lines, branches, files."""
    return _repository_page(_readable_or_404(prov, owner, repo), Target())


@bp.get("/repos/<prov>/<owner>/<repo>/branch/<path:branch>")
def repository_branch(prov: str, owner: str, repo: str, branch: str) -> Any:
    """The same page for the tip of a branch (names may contain ``/``)."""
    return _repository_page(_readable_or_404(prov, owner, repo), Target(branch=branch))


@bp.get("/repos/<prov>/<owner>/<repo>/pull/<int:pullid>")
def repository_pull(prov: str, owner: str, repo: str, pullid: int) -> Any:
    """The same page for the tip of a pull request."""
    return _repository_page(_readable_or_404(prov, owner, repo), Target(pullid=pullid))


@bp.get("/repos/<prov>/<owner>/<repo>/commit/<sha>")
def repository_commit(prov: str, owner: str, repo: str, sha: str) -> Any:
    """The same page for one commit."""
    return _repository_page(_readable_or_404(prov, owner, repo), Target(sha=sha))


@bp.get("/api-examples")
def api_examples() -> Any:
    """Ready ``curl`` lines for the users list (API v2) and the repository settings (older API)."""
    user = current_user()
    token = active_demo_token() if user is not None else None
    users_url = url_for(
        "coverage_api.users_list", service=DEMO_SERVICE.value, owner_username=EXAMPLE_ORG, _external=True
    )
    settings_url = url_for(
        "coverage_legacy.repository_settings",
        provider=DEMO_SERVICE.short,
        owner=EXAMPLE_ORG,
        repo=EXAMPLE_REPO,
        _external=True,
    )
    return render_template(
        "api.html",
        token=token or "<ACCESS_TOKEN>",
        has_token=token is not None,
        users_url=users_url,
        settings_url=settings_url,
        token_user=DEMO_TOKEN_USER,
        org=EXAMPLE_ORG,
        repo=EXAMPLE_REPO,
        openapi_url=url_for("coverage_api.openapi_document", _external=True),
    )
