"""The :class:`CoverageService` Flask extension."""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Optional, TypeVar

from flask import Flask, current_app
from flask_caching import Cache
from flask_sqlalchemy import SQLAlchemy

from . import auth
from .blueprints.signin import signed_in_user
from .feedback import sender
from .logging import install_log_filter
from .providers import check_providers
from .providers.accounts import signs_in
from .providers.addresses import AllowedNetworks
from .sources import default_source_loader
from .state import CoverageState
from .svg.params import DEFAULT_COLOR_RANGE
from .sync import check_sign_in_key

F = TypeVar("F", bound=Callable[..., Any])

#: Every config key the extension reads, with its default: the one place defaults are stated (a new key
#: goes here, in docs/configuration.md's table and in :meth:`CoverageService.init_app`'s docstring;
#: tests/test_extension.py checks both against this).
DEFAULT_CONFIG: dict[str, Any] = {
    "COVERAGE_API_URL_PREFIX": "/api/v2",
    "COVERAGE_LEGACY_URL_PREFIX": "/api/pub",
    "COVERAGE_GRAPH_URL_PREFIX": "",
    "COVERAGE_WEB_URL_PREFIX": "",
    "COVERAGE_UPLOAD_URL_PREFIX": "",
    "COVERAGE_ACCOUNT_URL_PREFIX": "/account",
    "COVERAGE_HEALTH_URL_PREFIX": "/_coverage",
    "COVERAGE_PUBLIC_URL": None,
    "COVERAGE_PAGE_SIZE": 20,
    "COVERAGE_MAX_PAGE_SIZE": 100,
    "COVERAGE_COLOR_RANGE": DEFAULT_COLOR_RANGE,
    "COVERAGE_BADGE_LABEL": "coverage",
    "COVERAGE_MAX_UPLOAD_BYTES": 50 * 1024 * 1024,
    "COVERAGE_MAX_REPORT_FILES": 500_000,
    "COVERAGE_GCOV_UNEXECUTED_BLOCKS": True,
    "COVERAGE_UPLOAD_URL_MAX_AGE": 3600,
    "COVERAGE_TOKENLESS_UPLOADS": True,
    "COVERAGE_BIND_KEY": None,
    "COVERAGE_SOURCE_GIT_ROOT": None,
    "COVERAGE_PROVIDERS": {},
    "COVERAGE_WEBHOOK_KEY": None,
    "COVERAGE_WEBHOOK_SHARED_SECRET": False,
    "COVERAGE_FEEDBACK_DELAY": 2,
    "COVERAGE_FEEDBACK_SENDER": True,
    "COVERAGE_FEEDBACK_LEASE": 120,
    "COVERAGE_FEEDBACK_BACKOFF": (5, 3600),
    "COVERAGE_FEEDBACK_BUDGET": 300,
    "COVERAGE_NOTIFY_ALLOWED_NETWORKS": [],
    "COVERAGE_SOURCE_TIMEOUT": 5,
    "COVERAGE_SOURCE_MAX_BYTES": 1024 * 1024,
    # Rendered graphs are keyed by the commit's coverage version, so entries never go stale; the
    # threshold and timeout only bound the memory of the in-process default.
    "COVERAGE_CACHE_CONFIG": {"CACHE_TYPE": "SimpleCache", "CACHE_THRESHOLD": 200, "CACHE_DEFAULT_TIMEOUT": 86400},
    "COVERAGE_GRAPH_CACHE_MAX_BYTES": 256 * 1024 * 1024,
    "COVERAGE_SIGN_IN_KEY": None,
    "COVERAGE_SYNC_MAX_AGE": 900,
    "COVERAGE_SYNC_TIMEOUT": 10,
}


class CoverageService:
    """Mounts the coverage service (APIs, graphs, upload endpoint, CLI) into a Flask app.

    :param app: initialise this app now (else call :meth:`init_app` later).
    :param db: the host app's :class:`~flask_sqlalchemy.SQLAlchemy` instance. If omitted, the one in
        ``app.extensions["sqlalchemy"]`` is used, and if the app has none the extension sets one up.
    :param options: defaults for the ``COVERAGE_*`` config keys, by lower-case name without the
        prefix (``CoverageService(app, page_size=50)``); ``app.config`` wins over them.
    """

    def __init__(self, app: Optional[Flask] = None, *, db: Optional[SQLAlchemy] = None, **options: Any) -> None:
        self._options = {f"COVERAGE_{key.upper()}": value for key, value in options.items()}
        unknown = sorted(set(self._options) - set(DEFAULT_CONFIG))
        if unknown:
            raise TypeError(f"unknown CoverageService options: {', '.join(unknown)}")
        self._db = db
        self._own_db: Optional[SQLAlchemy] = None
        # Safe defaults: tokens are checked against the database, the signed-in user is the one signed in
        # with the git host (nobody without sign-in configured).
        self.verify_token_callback: Callable[[str], Any] = auth.default_verify_token
        self.verify_access_token_callback: Callable[[str], Any] = auth.default_verify_token
        self.verify_graph_token_callback: Callable[[Any, Optional[str]], Any] = auth.default_verify_graph_token
        self.current_user_callback: Callable[[], Any] = signed_in_user
        self.auth_error_callback: Callable[[int], Any] = auth.default_auth_error
        # None: graph blocks link to the service's own file view (urls.file_links).
        self.file_url_callback: Optional[Callable[[Any, Any], Optional[str]]] = None
        self.source_loader_callback: Callable[[Any, str, str], Any] = default_source_loader
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask) -> None:
        """Register the extension on ``app``.

        Sets a default (from :data:`DEFAULT_CONFIG`, the one place the defaults live, or from this
        object's options) for, and reads, ``COVERAGE_API_URL_PREFIX``, ``COVERAGE_LEGACY_URL_PREFIX``,
        ``COVERAGE_GRAPH_URL_PREFIX``, ``COVERAGE_WEB_URL_PREFIX``, ``COVERAGE_UPLOAD_URL_PREFIX``,
        ``COVERAGE_ACCOUNT_URL_PREFIX`` and ``COVERAGE_HEALTH_URL_PREFIX`` (where each part is mounted;
        ``None`` leaves the web pages or the health check out), ``COVERAGE_PUBLIC_URL`` (the service's
        root URL as its users reach it, e.g. ``https://coverage.example.com``: absolute URLs in answers
        start with it instead of the request's host; ``None``: the request's host), ``COVERAGE_PAGE_SIZE`` and
        ``COVERAGE_MAX_PAGE_SIZE`` (paginated lists),
        ``COVERAGE_COLOR_RANGE`` (graph colors), ``COVERAGE_BADGE_LABEL`` (the left part of the badges),
        ``COVERAGE_MAX_UPLOAD_BYTES`` (largest report), ``COVERAGE_MAX_REPORT_FILES`` (the most files an
        upload's reports may hold), ``COVERAGE_GCOV_UNEXECUTED_BLOCKS`` (gcov's ``1*`` lines read as their
        count; ``False`` drops them, as Codecov does), ``COVERAGE_UPLOAD_URL_MAX_AGE`` (how long a
        signed upload URL of ``/upload/v4`` stays valid), ``COVERAGE_TOKENLESS_UPLOADS`` (whether a
        public repository takes codecov-cli uploads without a token from a fork's pull request),
        ``COVERAGE_BIND_KEY`` (a key of ``SQLALCHEMY_BINDS`` for the tables), ``COVERAGE_SOURCE_GIT_ROOT``,
        ``COVERAGE_SOURCE_TIMEOUT`` and ``COVERAGE_SOURCE_MAX_BYTES`` (where and how the file view reads
        source, docs/web.md), ``COVERAGE_PROVIDERS`` (the git hosts' APIs and credentials by service,
        docs/pull-requests.md; it replaces the old source API key, which is refused),
        ``COVERAGE_WEBHOOK_KEY`` (the key each repository's webhook secret is derived with; ``SECRET_KEY``
        when unset) and ``COVERAGE_WEBHOOK_SHARED_SECRET`` (a provider's ``webhook_secret`` signs every
        repository's hooks; unsafe with several tenants),
        ``COVERAGE_FEEDBACK_DELAY`` (seconds after a commit's last upload its statuses and comment are
        sent) and ``COVERAGE_FEEDBACK_SENDER`` (whether each worker process sends them in a thread of its
        own; else ``flask coverage notify``), ``COVERAGE_FEEDBACK_LEASE`` (seconds a sender holds a
        commit's feedback before another may take it over; renewed while the sending runs) and
        ``COVERAGE_FEEDBACK_BACKOFF`` (the first and the longest wait, in seconds, before a failed
        sending is tried again), ``COVERAGE_FEEDBACK_BUDGET`` (seconds one commit's sending may take),
        ``COVERAGE_SIGN_IN_KEY`` (the Fernet key, or keys, encrypting the git hosts' OAuth tokens of
        users who sign in with them), ``COVERAGE_SYNC_MAX_AGE`` (seconds after which a signed-in
        user's organizations, repositories and permissions are read from the host again, on their next
        request) and ``COVERAGE_SYNC_TIMEOUT`` (the bound of each sign-in and sync, docs/sign-in.md),
        ``COVERAGE_NOTIFY_ALLOWED_NETWORKS`` (host names and networks a Slack or webhook notifier may
        reach beside the public internet; none by default),
        ``COVERAGE_CACHE_CONFIG`` (the Flask-Caching config of the cache of rendered graphs and sources)
        and ``COVERAGE_GRAPH_CACHE_MAX_BYTES`` (the bytes of graphs stored per cache timeout,
        docs/graphs.md); docs/configuration.md's table says what each means.
        When the extension sets up Flask-SQLAlchemy itself, ``SQLALCHEMY_DATABASE_URI`` defaults to
        ``sqlite:///coverage.db`` (in the instance folder) and its engines default to
        ``pool_pre_ping=True`` (``SQLALCHEMY_ENGINE_OPTIONS`` wins over that).
        """
        if "coverage" in app.extensions:
            raise RuntimeError(
                "A 'CoverageService' instance has already been registered on this Flask app."
                " Import and use that instance instead."
            )
        if app.config.get("COVERAGE_SOURCE_API"):
            raise ValueError(
                "COVERAGE_SOURCE_API is replaced by COVERAGE_PROVIDERS (same shape: {service: {'url': ..., "
                "'token': ...}}, docs/pull-requests.md): rename the key"
            )
        for key, value in DEFAULT_CONFIG.items():
            app.config.setdefault(key, self._options.get(key, value))
        check_providers(app.config["COVERAGE_PROVIDERS"])
        if any(signs_in(settings) for settings in app.config["COVERAGE_PROVIDERS"].values()):
            self._secure_session(app)
        AllowedNetworks.parse(app.config["COVERAGE_NOTIFY_ALLOWED_NETWORKS"])  # a ValueError naming a bad entry
        public = app.config["COVERAGE_PUBLIC_URL"]
        if public is not None and not re.fullmatch(r"https?://[^/?#\s]+(/[^?#\s]*)?", public):
            raise ValueError(f"COVERAGE_PUBLIC_URL must be an http(s) URL without query or fragment, not {public!r}")
        # One cache per app: the extension object may serve several apps.
        cache = Cache(with_jinja2_ext=False)
        cache.init_app(app, config=dict(app.config["COVERAGE_CACHE_CONFIG"]))
        app.extensions["coverage"] = CoverageState(service=self, db=self._find_db(app), cache=cache)
        self._register_blueprints(app)
        # Tokens travel in query strings; the servers' request logs must not keep them.
        install_log_filter()
        # A new worker process (one replacing a killed one, say) takes over the feedback left behind.
        app.before_request(functools.partial(sender.first_request, app))

    @staticmethod
    def _secure_session(app: Flask) -> None:
        """Sign-in keeps the user in Flask's session: its key must be there, its cookie ``SameSite=Lax``
        (the host's redirect back is a top-level GET) and ``Secure`` behind an https public URL."""
        check_sign_in_key(app.config["COVERAGE_SIGN_IN_KEY"])
        if app.config.get("SESSION_COOKIE_SAMESITE") is None:
            app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
        if (app.config["COVERAGE_PUBLIC_URL"] or "").startswith("https://"):
            app.config["SESSION_COOKIE_SECURE"] = True

    def _find_db(self, app: Flask) -> SQLAlchemy:
        if self._db is not None:
            if "sqlalchemy" not in app.extensions:
                self._db.init_app(app)
            return self._db
        if "sqlalchemy" in app.extensions:
            return app.extensions["sqlalchemy"]
        if self._own_db is None:
            # Pooled connections are checked before use, so a restarted database server costs no
            # failed request once it is back. A default only: SQLALCHEMY_ENGINE_OPTIONS wins.
            self._own_db = SQLAlchemy(engine_options={"pool_pre_ping": True})
        app.config.setdefault("SQLALCHEMY_DATABASE_URI", "sqlite:///coverage.db")
        self._own_db.init_app(app)
        return self._own_db

    def _register_blueprints(self, app: Flask) -> None:
        from .blueprints import register_blueprints
        from .cli import coverage_cli

        register_blueprints(app)
        app.cli.add_command(coverage_cli)

    # Hooks: each decorator stores the function and returns it, Flask style.

    def verify_token(self, f: F) -> F:
        """Register how a v2 bearer token is verified: ``f(token) -> Owner | None`` (``None`` denies)."""
        self.verify_token_callback = f
        return f

    def verify_access_token(self, f: F) -> F:
        """Register how a legacy access token is verified: ``f(token) -> Owner | None``."""
        self.verify_access_token_callback = f
        return f

    def verify_graph_token(self, f: F) -> F:
        """Register how a graph token is checked: ``f(repository, token) -> bool`` (falsy denies)."""
        self.verify_graph_token_callback = f
        return f

    def current_user_loader(self, f: F) -> F:
        """Register how the signed-in web user is found: ``f() -> Owner | None``. Sign-in with the git
        host works beside it: when ``f`` answers ``None``, the user signed in with the host is the one."""
        self.current_user_callback = functools.partial(_loaded_or_signed_in, f)
        return f

    def auth_error_handler(self, f: F) -> F:
        """Register how an auth error on a web page is answered: ``f(status) -> response``."""
        self.auth_error_callback = f
        return f

    def file_url(self, f: F) -> F:
        """Register where graph blocks link: ``f(repository, commit) -> str | None``.

        The returned URL prefix is followed by the file's percent-encoded path; ``None`` draws the
        graphs without links. The default is the service's own file coverage view.
        """
        self.file_url_callback = f
        return f

    def source_loader(self, f: F) -> F:
        """Register where the file view finds source: ``f(repository, sha, path) -> str | bytes | None``.

        ``None`` means the file is not there; raising
        :class:`~flask_coverage.sources.SourceUnavailable` says why (the page shows it). The default
        reads ``COVERAGE_SOURCE_GIT_ROOT`` or the provider in ``COVERAGE_PROVIDERS`` (docs/web.md).
        """
        self.source_loader_callback = f
        return f


def _loaded_or_signed_in(loader: Callable[[], Any]) -> Any:
    """The host app's user (``loader``, sync or async), else the user signed in with the git host."""
    user = current_app.ensure_sync(loader)()
    return user if user is not None else signed_in_user()
