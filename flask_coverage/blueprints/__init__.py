"""The blueprints of the service, one module per URL family."""

from __future__ import annotations

from flask import Flask


def register_blueprints(app: Flask) -> None:
    """Mount every blueprint of the service at the URL prefixes configured on ``app``."""
    from . import account, api, graphs, health, legacy, upload, web

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
