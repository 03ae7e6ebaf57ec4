"""The host app's own pages: the repositories with their graphs, and how to call the APIs.

Everything else is the coverage service's: its repository, branch, pull, commit and file pages
(``coverage_web``) render in this app's layout (``templates/coverage/base.html``). Graph and page
URLs come from the service's routes (``url_for``); a private repository's graph URLs carry its graph
token, and private repositories are shown only to members of the owning organization.
"""

from __future__ import annotations

from typing import Any, Optional

import sqlalchemy as sa
from flask import Blueprint, render_template, request, url_for
from werkzeug.wrappers import Response

from flask_coverage.auth import can_read_repository
from flask_coverage.blueprints.account import CSRF_FIELD, csrf_token
from flask_coverage.blueprints.web import legend_of
from flask_coverage.demo import DEMO_SERVICE, DEMO_TOKEN_USER, active_demo_token
from flask_coverage.lines import Totals
from flask_coverage.models import Commit, Owner, Repository
from flask_coverage.queries.targets import resolve_commit
from flask_coverage.state import get_session

from .auth import current_user

bp = Blueprint("example", __name__)

#: Sizes of the small graphs on the home page (the repository page uses the defaults).
THUMBNAIL_SIZES = {"tree": (220, 220), "icicle": (420, 90), "sunburst": (200, 200)}
#: The organization and repository the API examples use.
EXAMPLE_ORG = "acme"
EXAMPLE_REPO = "marshmallow"

SECURITY_HEADERS = {
    # Graphs are <img>s; nothing else is embedded, no script runs.
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; "
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


def graph_url(repository: Repository, kind: str, **args: Any) -> str:
    """The URL of a ``kind`` graph of the default branch (with the graph token of a private repository)."""
    if repository.private:
        args["token"] = repository.image_token
    return url_for("coverage_graphs.graph", kind=kind, **_url_names(repository), **args)


def page_url(repository: Repository) -> str:
    """The coverage service's page of a repository."""
    return url_for("coverage_web.repository_page", **_url_names(repository))


def _url_names(repository: Repository) -> dict[str, Any]:
    owner: Owner = repository.owner
    return {"prov": owner.service.short, "owner": owner.username, "repo": repository.name}


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
            (kind, graph_url(repository, kind, width=size[0], height=size[1]), size)
            for kind, size in THUMBNAIL_SIZES.items()
        ]
        cards.append(
            {
                "repository": repository,
                "commit": commit,
                "totals": totals_of(commit),
                "graphs": graphs,
                "legend": legend_of(repository),
            }
        )
    return render_template("home.html", cards=cards, page_url=page_url)


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
