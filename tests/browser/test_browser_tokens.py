"""A real Chromium creates, uses and revokes an access token on the access-token page."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any, Callable

import pytest
from flask import Flask, redirect, request, session, url_for

from flask_coverage import CoverageService
from flask_coverage.operations import add_repo, add_user, init_db
from flask_coverage.queries.repositories import get_owner

pytestmark = pytest.mark.browser


@pytest.fixture
def host_app(make_database_url: Callable[[], str]) -> Iterator[Flask]:
    """A host app with a sign-in of its own; the coverage service finds the user through the hook."""
    app = Flask("browser_host_app")
    app.config.update(SECRET_KEY="browser-test", SQLALCHEMY_DATABASE_URI=make_database_url())
    coverage = CoverageService(app)

    @coverage.current_user_loader
    def current_user() -> Any:
        username = session.get("username")
        return get_owner("github", username) if username else None

    @coverage.auth_error_handler
    def sign_in_first(status: int) -> Any:
        return redirect(url_for("sign_in", next=request.path))

    @app.route("/sign-in", methods=["GET", "POST"])
    def sign_in() -> Any:
        if request.method == "POST":
            session["username"] = request.form["username"]
            return redirect(request.args.get("next") or "/")
        return '<form method="post"><input name="username"><button>Sign in</button></form>'

    with app.app_context():
        init_db()
        add_user("github", "alice")
        add_repo("github", "alice", "site")
    yield app
    with app.app_context():
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()


def settings_status(base: str, token: str) -> int:
    url = f"{base}/api/pub/gh/alice/site/settings"
    request_ = urllib.request.Request(url, headers={"Authorization": token})  # noqa: S310 - the test server
    try:
        with urllib.request.urlopen(request_, timeout=10) as response:  # noqa: S310 - the test server
            assert json.load(response)["repo"]["name"] == "site"
            return response.status
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


def test_create_use_and_revoke_a_token_in_chromium(
    host_app: Flask, live_server: Callable[[Any], str], browser_page: Any, page_errors: list[str]
) -> None:
    base = live_server(host_app)
    page = browser_page

    # Not signed in: the host's auth error handler sends the browser to its sign-in page and back.
    page.goto(f"{base}/account/access")
    assert page.url.startswith(f"{base}/sign-in")
    page.fill("input[name=username]", "alice")
    page.click("text=Sign in")
    page.wait_for_url(f"{base}/account/access")
    assert page.is_visible("#coverage-no-tokens")

    page.fill("#coverage-token-name", "laptop")
    page.click("text=Generate token")
    page.wait_for_selector("#coverage-new-token")
    token = page.input_value("#coverage-new-token")
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", token)

    # The copy button comes from the script file (the CSP forbids inline scripts) and really copies.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    copy = page.locator("button[data-copy=coverage-new-token]")
    copy.click()
    # A selector, not wait_for_function: Playwright evaluates that with eval, which the page's CSP forbids.
    page.wait_for_selector("button[data-copy]:text-is('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == token
    assert page.locator("#coverage-tokens .coverage-token-name").all_text_contents() == ["laptop"]

    assert settings_status(base, token) == 200

    page.click("button[aria-label='Revoke laptop']")
    page.wait_for_selector(".coverage-notice")
    assert "revoked" in page.text_content(".coverage-notice")
    assert page.is_visible("#coverage-no-tokens")
    assert token not in page.content()

    assert settings_status(base, token) == 401
    assert page_errors == []
