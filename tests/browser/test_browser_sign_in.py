"""A real Chromium signs in with a (fake) GitHub on loopback, sees what the host says it may read, and
loses a private repository once the host takes the permission away and the sync age passes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any, Callable

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet
from flask import Flask

from flask_coverage import CoverageService
from flask_coverage.models import HostAccount
from flask_coverage.operations import init_db
from flask_coverage.state import get_session
from tests.providers.fakes import FakeHost, fake_host, github_account_routes, github_repository, oauth_routes

pytestmark = pytest.mark.browser


@pytest.fixture
def github() -> Iterator[FakeHost]:
    with fake_host() as host:
        oauth_routes(host, client_id="browser-client", client_secret="browser-secret")
        github_account_routes(host)
        host.state.update(
            user={"login": "alice", "id": 1},
            orgs=[("acme", 10, "member")],
            repos=[
                github_repository("acme", 10, "widgets", 100, private=True),
                github_repository("acme", 10, "vault", 101, private=True),
                github_repository("acme", 10, "site", 102, private=False),
            ],
        )
        yield host


@pytest.fixture
def app(github: FakeHost, make_database_url: Callable[[], str]) -> Iterator[Flask]:
    app = Flask("browser_sign_in")
    settings = {
        "url": github.url,
        "web_url": github.url,
        "client_id": "browser-client",
        "client_secret": "browser-secret",
    }
    app.config.update(
        SECRET_KEY="browser-test",
        SQLALCHEMY_DATABASE_URI=make_database_url(),
        COVERAGE_PROVIDERS={"github": settings},
        COVERAGE_SIGN_IN_KEY=Fernet.generate_key().decode(),
        COVERAGE_FEEDBACK_SENDER=False,
    )
    CoverageService(app)
    with app.app_context():
        init_db()
    yield app
    with app.app_context():
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()


def listed(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("main a").all_text_contents()]


def test_sign_in_with_the_host_and_lose_a_repository_it_takes_away(
    app: Flask, github: FakeHost, live_server: Callable[[Any], str], browser_page: Any, page_errors: list[str]
) -> None:
    base = live_server(app)
    page = browser_page
    page.goto(f"{base}/")
    assert "Not signed in" in page.text_content("header")
    assert not any("widgets" in name for name in listed(page))

    page.click("text=Sign in with github")
    page.wait_for_url(f"{base}/")
    assert "Signed in as alice" in " ".join(page.text_content("header").split())
    before = listed(page)
    assert any("widgets" in name for name in before) and any("vault" in name for name in before)
    assert any("site" in name for name in before)
    # The authorize page was asked with a state and a PKCE challenge.
    authorize = next(r for r in github.requests if r.route.endswith("/authorize"))
    assert "state=" in authorize.path and "code_challenge=" in authorize.path

    github.state["repos"] = [r for r in github.state["repos"] if r["name"] != "vault"]
    page.reload()
    assert any("vault" in name for name in listed(page))  # within the sync age: as it was
    with app.app_context():
        for account in get_session().execute(sa.select(HostAccount)).scalars():
            account.synced_at -= dt.timedelta(seconds=app.config["COVERAGE_SYNC_MAX_AGE"])
        get_session().commit()
    page.reload()
    after = listed(page)
    assert any("widgets" in name for name in after) and not any("vault" in name for name in after)
    assert page.goto(f"{base}/gh/acme/vault").status == 404
    page_errors.remove(f"404 {base}/gh/acme/vault")

    page.goto(f"{base}/")
    page.click("text=Sign out")
    page.wait_for_url(f"{base}/")
    assert "Not signed in" in page.text_content("header")
    assert not any("widgets" in name for name in listed(page))
    assert page_errors == []
