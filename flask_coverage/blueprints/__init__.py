"""The blueprints of the service, one module per URL family."""

from __future__ import annotations

from flask import Flask, Response, request

#: The names of the service's blueprints (what :func:`no_sniffing` answers for).
BLUEPRINT_NAMES = frozenset(
    f"coverage_{name}" for name in ("api", "legacy", "upload", "account", "graphs", "web", "health")
)


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
    from . import account, api, graphs, health, legacy, upload, web

    app.after_request(no_sniffing)
    config = app.config
    app.register_blueprint(api.bp, url_prefix=config["COVERAGE_API_URL_PREFIX"] or None)
    app.register_blueprint(legacy.bp, url_prefix=config["COVERAGE_LEGACY_URL_PREFIX"] or None)
    app.register_blueprint(upload.bp, url_prefix=config["COVERAGE_UPLOAD_URL_PREFIX"] or None)
    app.register_blueprint(account.bp, url_prefix=config["COVERAGE_ACCOUNT_URL_PREFIX"] or None)
    app.register_blueprint(graphs.bp, url_prefix=config["COVERAGE_GRAPH_URL_PREFIX"] or None)
    if config["COVERAGE_WEB_URL_PREFIX"] is not None:
        app.register_blueprint(web.bp, url_prefix=config["COVERAGE_WEB_URL_PREFIX"] or None)
    if config["COVERAGE_HEALTH_URL_PREFIX"] is not None:
        app.register_blueprint(health.bp, url_prefix=config["COVERAGE_HEALTH_URL_PREFIX"] or None)
