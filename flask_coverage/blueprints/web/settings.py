"""A repository's settings page: its badge and graph snippets, and its admins' forms (docs/web.md)."""

from __future__ import annotations

from typing import Any

from flask import make_response, render_template, request

from ...auth import is_admin
from ...csrf import CSRF_FAILED, CSRF_FIELD, csrf_token, csrf_valid
from ...errors import Forbidden, InvalidInput
from ...operations import rotate_token, set_repo, webhook_secret
from ...svg import GRAPH_KINDS
from ...urls import external_url, repository_names
from . import REPO, Target, bp, current_user, page_view

#: What an admin's settings form may ask (the ``action`` field).
SETTINGS_ACTIONS = (
    "show-upload-token",
    "rotate-upload-token",
    "rotate-graph-token",
    "show-webhook-secret",
    "rotate-webhook-secret",
    "visibility",
    "branch",
)


@bp.route(REPO + "/settings", methods=["GET", "POST"])
def settings_page(prov: str, owner: str, repo: str) -> Any:
    """A repository's settings for those who may read it: its badge and graph snippets (with the graph
    token of a private repository); for its admins, forms (with the session's CSRF token) that show or
    rotate its upload token, rotate its graph token, show or rotate its webhook secret, and set its
    visibility and default branch."""
    view = page_view(prov, owner, repo, Target())
    repository = view.repository
    admin = is_admin(current_user(), repository.owner)
    shown, done, webhook = None, None, None
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
        elif action in ("show-webhook-secret", "rotate-webhook-secret"):
            webhook = webhook_secret(*names, rotate=action == "rotate-webhook-secret")
        elif action == "visibility":
            private = request.form.get("private")
            if private not in ("yes", "no"):  # the form's own two values; anything else changes nothing
                raise InvalidInput("private must be yes or no.")
            set_repo(*names, private=private == "yes")
            done = "The repository is now " + ("private." if repository.private else "public.")
        else:
            set_repo(*names, branch=request.form.get("branch", ""))
            done = f"The default branch is now {repository.branch}."
    response = make_response(
        render_template(
            "coverage/settings.html",
            view=view,
            repository=repository,
            admin=admin,
            shown=shown,
            webhook_secret=webhook,
            done=done,
            page_url=external_url("coverage_web.repository_page", **repository_names(repository)),
            badge_url=view.graph_url("badge", external=True),
            graphs=[(kind, view.graph_url(kind, external=True)) for kind in GRAPH_KINDS],
            csrf_token=csrf_token() if admin else None,
            csrf_field=CSRF_FIELD,
            Target=Target,
        )
    )
    response.headers["Cache-Control"] = "no-store"  # it may hold a token
    return response
