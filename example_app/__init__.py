"""A small host application with the coverage service mounted (run: ``flask --app example_app run``)."""

from __future__ import annotations

import os
from typing import Any, Optional

from flask import Flask
from flask_sqlalchemy import SQLAlchemy

from flask_coverage import CoverageService

db = SQLAlchemy()
coverage = CoverageService()


def create_app(config: Optional[dict[str, Any]] = None) -> Flask:
    """The example host app; ``EXAMPLE_DATABASE_URL`` overrides its SQLite database."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=os.environ.get("EXAMPLE_SECRET_KEY", "change-me-in-production"),
        SQLALCHEMY_DATABASE_URI=os.environ.get("EXAMPLE_DATABASE_URL", "sqlite:///example.db"),
    )
    app.config.update(config or {})
    db.init_app(app)
    coverage.init_app(app)

    @app.get("/")
    def home() -> str:
        return "<!doctype html><title>flask-coverage example</title><h1>flask-coverage example app</h1>"

    return app
