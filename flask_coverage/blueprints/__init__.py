"""The blueprints of the service, one module per URL family, and what their pages share: the
navigation of the default layout (``coverage_navigation()`` in templates) and the ``nosniff`` header
of every answer."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, request, url_for
from werkzeug.routing import BaseConverter

from ..state import call_hook

#: The names of the service's blueprints (what :func:`no_sniffing` answers for).
BLUEPRINT_NAMES = frozenset(
    f"coverage_{name}"
    for name in ("api", "legacy", "upload", "webhooks", "account", "signin", "graphs", "web", "health")
)


class RootConverter(BaseConverter):
    """Matches the empty string: the entry page's rule ``{COVERAGE_WEB_URL_PREFIX}/<coverage_root:root>``.

    Werkzeug tries a URL's static rules before its dynamic ones, so a host app's own ``/`` answers
    ``/`` whatever the order the two were registered in; a bare host app's ``/`` is the entry page.
    """

    regex = ""

    def to_url(self, value: Any) -> str:
        return ""


def no_sniffing(response: Response) -> Response:
    """Every answer of every blueprint of the service says ``X-Content-Type-Options: nosniff``.

    Bodies hold text that uploaders chose (branch names, paths); no browser may read them as anything
    but their declared type. The one place the header is set: an ``after_request`` of the app, so error
    answers, outages and static files have it too.
    """
    if request.blueprint in BLUEPRINT_NAMES:
        response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def register_blueprints(app: Flask) -> None:
    """Mount every blueprint of the service at the URL prefixes configured on ``app``."""
    from . import account, api, graphs, health, legacy, signin, upload, web, webhooks

    app.after_request(no_sniffing)
    config = app.config
    app.url_map.converters["coverage_root"] = RootConverter
    app.add_template_global(navigation, "coverage_navigation")
    app.register_blueprint(api.bp, url_prefix=config["COVERAGE_API_URL_PREFIX"] or None)
    app.register_blueprint(legacy.bp, url_prefix=config["COVERAGE_LEGACY_URL_PREFIX"] or None)
    app.register_blueprint(upload.bp, url_prefix=config["COVERAGE_UPLOAD_URL_PREFIX"] or None)
    # The git hosts call the webhooks at the address the uploaders use (docs/pull-requests.md#webhooks).
    app.register_blueprint(webhooks.bp, url_prefix=config["COVERAGE_UPLOAD_URL_PREFIX"] or None)
    app.register_blueprint(account.bp, url_prefix=config["COVERAGE_ACCOUNT_URL_PREFIX"] or None)
    signin.register_clients(app)
    app.register_blueprint(signin.bp, url_prefix=config["COVERAGE_ACCOUNT_URL_PREFIX"] or None)
    app.register_blueprint(graphs.bp, url_prefix=config["COVERAGE_GRAPH_URL_PREFIX"] or None)
    if config["COVERAGE_WEB_URL_PREFIX"] is not None:
        app.register_blueprint(web.bp, url_prefix=config["COVERAGE_WEB_URL_PREFIX"] or None)
    if config["COVERAGE_HEALTH_URL_PREFIX"] is not None:
        app.register_blueprint(health.bp, url_prefix=config["COVERAGE_HEALTH_URL_PREFIX"] or None)


def navigation() -> dict[str, Any]:
    """What the default layout's navigation shows: the entry page's URL (``None`` without the web
    pages), who is signed in (the ``current_user_loader`` hook, or sign-in with the git host) and, for a
    user, the token page's URL; the sign-in links of the hosts configured for it (``sign_in``: name and
    URL) and, for a user signed in with one, the sign-out form's URL and CSRF token."""
    from ..csrf import csrf_token
    from .signin import signed_in_user

    user = call_hook("current_user")
    entry = url_for("coverage_web.entry_page", root="") if "coverage_web" in current_app.blueprints else None
    tokens = url_for("coverage_account.access_tokens") if user is not None and not user.is_org else None
    clients = current_app.extensions["coverage_sign_in"] if user is None else {}
    here = request.full_path.rstrip("?") if request.method == "GET" else None
    sign_in = [(name, url_for("coverage_signin.sign_in_start", service=name, next=here)) for name in sorted(clients)]
    signed_in = user is not None and user is signed_in_user()
    sign_out = url_for("coverage_signin.sign_out_view") if signed_in else None
    return {
        "entry_url": entry,
        "user": user,
        "tokens_url": tokens,
        "sign_in": sign_in,
        "sign_out_url": sign_out,
        "csrf_token": csrf_token() if sign_out else None,
    }
