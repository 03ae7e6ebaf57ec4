"""A small host application with the coverage service mounted (run: ``flask --app example_app run``).

It has what a real host app has: its own database (one model, :class:`~example_app.models.SignIn`,
next to the coverage tables), its own sign-in (pick a demo user, see :mod:`example_app.auth`),
its own pages and layout, and ``CoverageService`` mounted with hooks that tell it who is signed in.
The service's own pages (repositories, branches, pulls, commits, file views, access tokens) render
in this app's layout through ``templates/coverage/base.html``.
``flask --app example_app coverage demo`` loads the demo data.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from typing import Any, Optional

from flask import Flask

from flask_coverage.operations import init_db

from . import auth, views
from .extensions import coverage, db

__all__ = ["create_app"]


def instance_secret_key(app: Flask) -> str:
    """The key in the instance folder's ``secret_key`` file, made (random, owner-only) on first use.

    The file is written aside and linked into place, so a process starting at the same time never
    reads a half-written key: whichever links first wins, and both use its key.
    """
    path = os.path.join(app.instance_path, "secret_key")
    if not os.path.exists(path):
        os.makedirs(app.instance_path, exist_ok=True)
        descriptor, draft = tempfile.mkstemp(dir=app.instance_path, prefix=".secret_key-")  # mode 0600
        try:
            with os.fdopen(descriptor, "w", encoding="ascii") as file:
                file.write(secrets.token_hex(32) + "\n")
            with contextlib.suppress(FileExistsError):
                os.link(draft, path)
        finally:
            os.unlink(draft)
    with open(path, encoding="ascii") as file:
        key = file.read().strip()
    if not key:
        raise RuntimeError(f"{path} is empty: delete it and a new key is made")
    return key


def create_app(config: Optional[dict[str, Any]] = None) -> Flask:
    """The example host app, with its tables created.

    ``config`` wins over the environment: ``EXAMPLE_DATABASE_URL`` (default SQLite
    ``instance/example.db``) and ``EXAMPLE_SECRET_KEY`` (default a random key kept in
    ``instance/secret_key``). ``COVERAGE_SOURCE_GIT_ROOT`` defaults to ``instance/git-mirrors``,
    where ``flask coverage demo`` writes the demo's source.
    """
    app = Flask(__name__)
    app.config.update(
        SQLALCHEMY_DATABASE_URI=os.environ.get("EXAMPLE_DATABASE_URL", "sqlite:///example.db"),
        SESSION_COOKIE_SAMESITE="Lax",
    )
    if os.environ.get("EXAMPLE_SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ["EXAMPLE_SECRET_KEY"]
    app.config.update(config or {})
    # `flask coverage demo` writes git mirrors of the demo repositories here; the file views read them.
    app.config.setdefault("COVERAGE_SOURCE_GIT_ROOT", os.path.join(app.instance_path, "git-mirrors"))
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = instance_secret_key(app)

    db.init_app(app)
    coverage.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(views.bp)
    with app.app_context():
        # From an empty clone, `flask run` and `flask coverage demo` both find their tables.
        init_db()
        db.create_all()
    return app
