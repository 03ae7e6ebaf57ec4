from __future__ import annotations

import ast
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa
import webtest
from flask import Flask
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.orm import Mapped, mapped_column

from flask_coverage import CoverageService
from flask_coverage.extension import DEFAULT_CONFIG
from flask_coverage.models import Owner
from flask_coverage.operations import add_org, add_repo, add_user, init_db
from flask_coverage.queries.repositories import get_owner
from flask_coverage.state import get_state


def dispose_engines(app: Flask) -> None:
    with app.app_context():
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()


def test_config_defaults_are_set_and_host_values_win() -> None:
    app = Flask(__name__)
    app.config.update(SQLALCHEMY_DATABASE_URI="sqlite://", COVERAGE_PAGE_SIZE=5)
    CoverageService(app, max_page_size=50, page_size=7)
    assert app.config["COVERAGE_PAGE_SIZE"] == 5
    assert app.config["COVERAGE_MAX_PAGE_SIZE"] == 50
    assert app.config["COVERAGE_API_URL_PREFIX"] == "/api/v2"
    assert app.config["COVERAGE_LEGACY_URL_PREFIX"] == "/api/pub"
    assert app.config["COVERAGE_COLOR_RANGE"] == (70, 100)
    assert set(DEFAULT_CONFIG) <= set(app.config)
    dispose_engines(app)


def test_unknown_option_is_refused() -> None:
    with pytest.raises(TypeError, match="COVERAGE_PAGE_SIZ"):
        CoverageService(page_siz=5)


def test_second_registration_on_one_app_is_refused() -> None:
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = "sqlite://"
    coverage = CoverageService(app)
    with pytest.raises(RuntimeError, match="already been registered"):
        coverage.init_app(app)
    with pytest.raises(RuntimeError, match="already been registered"):
        CoverageService(app)
    dispose_engines(app)


def test_state_of_an_uninitialised_app_says_what_to_do() -> None:
    with Flask(__name__).app_context(), pytest.raises(RuntimeError, match="init_app"):
        get_state()


def test_extension_object_does_not_keep_the_app() -> None:
    coverage = CoverageService()
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = "sqlite://"
    coverage.init_app(app)
    assert app.extensions["coverage"].service is coverage
    assert all(value is not app for value in vars(coverage).values())
    dispose_engines(app)


def test_two_apps_with_two_databases_never_see_each_others_data(make_database_url) -> None:
    coverage = CoverageService()
    apps = []
    for _ in range(2):
        app = Flask(__name__)
        app.config["SQLALCHEMY_DATABASE_URI"] = make_database_url()
        coverage.init_app(app)
        with app.app_context():
            init_db()
        apps.append(app)
    first, second = apps
    with first.app_context():
        add_user("github", "alice")
    with second.app_context():
        assert get_owner("github", "alice") is None
        add_user("github", "bob")
    with first.app_context():
        assert get_owner("github", "bob") is None
        assert get_owner("github", "alice") is not None
    for app in apps:
        dispose_engines(app)


def test_host_app_with_its_own_sqlalchemy_keeps_tables_in_its_database(make_database_url) -> None:
    host_db = SQLAlchemy()

    class Note(host_db.Model):  # type: ignore[name-defined,misc]
        id: Mapped[int] = mapped_column(primary_key=True)
        text: Mapped[str] = mapped_column(sa.String(50))

    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = make_database_url()
    host_db.init_app(app)
    CoverageService(app)
    with app.app_context():
        assert get_state().db is host_db
        host_db.create_all()
        init_db()
        host_db.session.add(Note(text="hello"))
        add_user("gitlab", "carol")
        tables = set(sa.inspect(host_db.engine).get_table_names())
        assert {"note", "coverage_owner", "coverage_repository"} <= tables
        assert host_db.session.execute(sa.select(Owner.username)).scalar_one() == "carol"
        assert host_db.session.execute(sa.select(Note.text)).scalar_one() == "hello"
    dispose_engines(app)


def test_db_can_be_passed_before_the_host_initialises_it(make_database_url) -> None:
    host_db = SQLAlchemy()
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = make_database_url()
    CoverageService(app, db=host_db)
    with app.app_context():
        assert app.extensions["sqlalchemy"] is host_db
        init_db()
        add_user("github", "dave")
        assert get_owner("GitHub".lower(), "DAVE") is not None
    dispose_engines(app)


def test_app_without_sqlalchemy_gets_one_set_up() -> None:
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = "sqlite://"
    CoverageService(app)
    assert isinstance(app.extensions["sqlalchemy"], SQLAlchemy)
    assert get_state(app).db is app.extensions["sqlalchemy"]
    dispose_engines(app)


def test_tables_can_live_in_a_bind(make_database_url, make_app, make_lcov) -> None:
    main_url, coverage_url = make_database_url(), make_database_url()
    app = make_app(main_url, SQLALCHEMY_BINDS={"coverage": coverage_url}, COVERAGE_BIND_KEY="coverage")
    plain = make_app(make_database_url())  # another app of the process, without a bind
    with app.app_context():
        add_user("bitbucket", "erin")
        db = get_state().db
        assert "coverage_owner" in sa.inspect(db.engines["coverage"]).get_table_names()
        assert "coverage_owner" not in sa.inspect(db.engines[None]).get_table_names()
        assert get_owner("bitbucket", "erin") is not None
        add_org("github", "acme")
        upload_token = add_repo("github", "acme", "widgets").upload_token
    with plain.app_context():
        assert get_owner("bitbucket", "erin") is None
        assert "coverage_owner" in sa.inspect(get_state().db.engine).get_table_names()
    # Every part of the service reads and writes the bind: the default database has none of its tables.
    testapp = webtest.TestApp(app)
    report = make_lcov({"src/app.py": {1: 1, 2: 0}})
    for sha, branch, pr in (("a" * 40, "main", None), ("b" * 40, "feature", "3")):
        query = {"token": upload_token, "commit": sha, "branch": branch, **({"pr": pr} if pr else {})}
        testapp.post(f"/upload/v2?{urlencode(query)}", report, headers={"Content-Type": "text/plain"})
    repo = "/api/v2/github/acme/repos/widgets"
    for url in (
        "/api/v2/github/acme/",
        "/api/v2/github/acme/repos/",
        f"{repo}/",
        f"{repo}/commits/",
        f"{repo}/commits/{'a' * 40}/",
        f"{repo}/branches/",
        f"{repo}/branches/main/",
        f"{repo}/pulls/",
        f"{repo}/pulls/3/",
        f"{repo}/totals/",
        f"{repo}/report/",
        f"{repo}/file_report/src/app.py",
        f"{repo}/compare/?pullid=3",
        f"{repo}/coverage/?interval=1d",
        "/gh/acme/widgets/graphs/badge.svg",
        "/gh/acme/widgets/graphs/tree.svg",
        "/gh/acme/widgets/graphs/commits.svg",
        "/gh/acme",
        "/gh/acme/widgets",
        "/gh/acme/widgets/pull/3",
        "/gh/acme/widgets/blob/src/app.py",
    ):
        assert testapp.get(url).status_int == 200, url
    assert testapp.get(f"{repo}/coverage/?interval=1d").json["results"][0]["avg"] == 50.0
    with app.app_context():
        assert not [name for name in sa.inspect(get_state().db.engines[None]).get_table_names() if "coverage" in name]


def test_hooks_register_and_return_the_function() -> None:
    coverage = CoverageService()

    def verify(token: str) -> None:
        return None

    assert coverage.verify_token(verify) is verify
    assert coverage.verify_token_callback is verify
    for hook in ("verify_access_token", "verify_graph_token", "current_user_loader", "auth_error_handler"):
        assert getattr(coverage, hook)(verify) is verify


def test_the_config_table_and_init_app_docstring_match_the_defaults() -> None:
    """DEFAULT_CONFIG is the one place defaults live: docs/configuration.md's table says the same keys and
    values."""
    table = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text()
    rows = re.findall(r"^\| `(COVERAGE_[A-Z_]+)` \| `([^`]*)`", table, flags=re.MULTILINE)
    assert [key for key, _ in rows] == list(DEFAULT_CONFIG)
    assert {key: ast.literal_eval(default) for key, default in rows} == DEFAULT_CONFIG
    documented = set(re.findall(r"``(COVERAGE_[A-Z_]+)``", CoverageService.init_app.__doc__ or ""))
    assert documented == set(DEFAULT_CONFIG)
