"""The access-token page: ``/account/access`` (create, list, revoke; CSRF; security headers)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any, Optional

import pytest
from flask import Flask, redirect, request
from webtest import TestApp

from flask_coverage.auth import hash_token
from flask_coverage.operations import add_org, add_repo, add_user, create_token
from flask_coverage.queries.repositories import get_owner, list_tokens

PAGE = "/account/access"
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\b")


@pytest.fixture
def signed_in(app: Flask) -> None:
    """The current user is the one named in the ``X-User`` header (a stand-in for a host's sign-in)."""
    add_user("github", "alice")
    add_user("github", "bob")
    add_org("github", "acme")
    service = app.extensions["coverage"].service

    @service.current_user_loader
    def load_user() -> Any:
        username = request.headers.get("X-User")
        return get_owner("github", username) if username else None


def as_user(testapp: TestApp, username: str) -> TestApp:
    testapp.extra_environ = {"HTTP_X_USER": username}
    return testapp


def create(testapp: TestApp, name: str, status: int = 201) -> Any:
    page = testapp.get(PAGE)
    form = page.forms["coverage-create-token"]
    form["name"] = name
    return form.submit(status=status)


def new_token(response: Any) -> str:
    return response.html.find(id="coverage-new-token")["value"]


def token_names(response: Any) -> list[str]:
    return [cell.get_text() for cell in response.html.select("#coverage-tokens .coverage-token-name")]


def error_text(response: Any) -> str:
    return response.html.find(id="coverage-error").get_text()


def settings(testapp: TestApp, token: str, status: int) -> Any:
    return testapp.get("/api/pub/gh/alice/site/settings", headers={"Authorization": token}, status=status)


class ScriptAudit(HTMLParser):
    """Collects what a strict Content-Security-Policy would block: inline scripts and handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.scripts: list[Optional[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        names = dict(attrs)
        if tag == "script":
            self.scripts.append(names.get("src"))
            if not names.get("src"):
                self.problems.append("inline <script>")
        if tag == "style":
            self.problems.append("inline <style>")
        self.problems += [f"{tag}[{name}]" for name in names if name.startswith("on") or name == "style"]
        if any((value or "").strip().lower().startswith("javascript:") for value in names.values()):
            self.problems.append(f"javascript: URL in <{tag}>")


def test_a_visitor_who_is_not_signed_in_gets_the_auth_error(testapp: TestApp, signed_in: None) -> None:
    response = testapp.get(PAGE, status=401)
    assert response.text == "Sign-in required.\n"
    testapp.post(PAGE, {"name": "x"}, status=401)
    testapp.post(PAGE + "/revoke", {"name": "x"}, status=401)


def test_the_host_can_redirect_to_its_sign_in(app: Flask, testapp: TestApp, signed_in: None) -> None:
    @app.extensions["coverage"].service.auth_error_handler
    def to_sign_in(status: int) -> Any:
        return redirect("/sign-in?next=" + request.path)

    response = testapp.get(PAGE, status=302)
    assert response.headers["Location"].endswith("/sign-in?next=/account/access")


def test_organizations_cannot_have_tokens(testapp: TestApp, signed_in: None) -> None:
    as_user(testapp, "acme").get(PAGE, status=403)


def test_the_page_is_served_with_strict_security_headers(testapp: TestApp, signed_in: None) -> None:
    response = as_user(testapp, "alice").get(PAGE)
    assert response.content_type == "text/html"
    csp = response.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.html.find(id="coverage-no-tokens") is not None
    assert "alice" in response.html.find("main").get_text()


def test_the_page_has_no_inline_script_and_its_script_is_served(testapp: TestApp, signed_in: None) -> None:
    as_user(testapp, "alice")
    created = create(testapp, "ci")
    audit = ScriptAudit()
    audit.feed(created.text)
    assert audit.problems == []
    assert audit.scripts == ["/account/coverage-static/copy-token.js"]
    button = created.html.find("button", attrs={"data-copy": "coverage-new-token"})
    assert button is not None
    script = testapp.get(audit.scripts[0])
    assert script.content_type in {"text/javascript", "application/javascript"}
    assert "navigator.clipboard" in script.text
    assert testapp.get("/account/coverage-static/coverage.css").content_type == "text/css"


def test_create_shows_the_token_once_and_it_works(testapp: TestApp, signed_in: None, db: Any) -> None:
    add_repo("github", "alice", "site")
    as_user(testapp, "alice")
    created = create(testapp, "ci")
    assert created.headers["Cache-Control"] == "no-store"
    token = new_token(created)
    assert UUID.fullmatch(token)
    assert "ci" in created.html.find(id="coverage-new-token-title").get_text()
    assert token_names(created) == ["ci"]
    settings(testapp, token, 200)

    again = testapp.get(PAGE)
    assert token not in again.text and again.html.find(id="coverage-new-token") is None
    assert not UUID.search(again.text)
    assert hash_token(token) not in again.text and hash_token(token) not in created.text
    cells = again.html.select("#coverage-tokens tbody tr")[0].find_all("td")
    assert cells[0].get_text() == "ci"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", cells[1].get_text())
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", cells[2].get_text())  # used by the settings call


def test_tokens_are_listed_newest_first_with_never_used(testapp: TestApp, signed_in: None) -> None:
    as_user(testapp, "alice")
    create(testapp, "first")
    page = create(testapp, "second")
    assert token_names(page) == ["second", "first"]
    assert [row.find_all("td")[2].get_text() for row in page.html.select("#coverage-tokens tbody tr")] == [
        "never",
        "never",
    ]


@pytest.mark.parametrize("name", ["", "   ", "\t"])
def test_an_empty_name_is_refused(testapp: TestApp, signed_in: None, name: str) -> None:
    as_user(testapp, "alice")
    response = create(testapp, name, status=400)
    assert "must not be empty" in error_text(response)
    assert response.html.find(id="coverage-new-token") is None
    assert list_tokens(get_owner("github", "alice")) == []


def test_a_duplicate_name_is_refused(testapp: TestApp, signed_in: None) -> None:
    as_user(testapp, "alice")
    first = new_token(create(testapp, "ci"))
    response = create(testapp, "ci", status=409)
    assert "already has a token named 'ci'" in error_text(response)
    assert response.html.find(id="coverage-new-token") is None
    assert token_names(response) == ["ci"]
    settings_owner = get_owner("github", "alice")
    assert [row.token_hash for row in list_tokens(settings_owner)] == [hash_token(first)]


def test_the_same_name_for_two_users_is_fine(testapp: TestApp, signed_in: None) -> None:
    create(as_user(testapp, "alice"), "ci")
    assert token_names(create(as_user(testapp, "bob"), "ci")) == ["ci"]


def test_a_10000_character_name_is_refused(testapp: TestApp, signed_in: None) -> None:
    as_user(testapp, "alice")
    response = create(testapp, "n" * 10_000, status=400)
    assert "longer than 100 characters" in error_text(response)
    assert list_tokens(get_owner("github", "alice")) == []


def test_control_characters_in_a_name_are_refused(testapp: TestApp, signed_in: None) -> None:
    as_user(testapp, "alice")
    assert "control" in error_text(create(testapp, "a\x00b", status=400))


def test_html_in_a_name_is_escaped(testapp: TestApp, signed_in: None) -> None:
    name = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    as_user(testapp, "alice")
    for response in (create(testapp, name), testapp.get(PAGE), create(testapp, name, status=409)):
        assert "<script>alert" not in response.text and "<img src=x" not in response.text
        assert "&lt;script&gt;" in response.text
        audit = ScriptAudit()
        audit.feed(response.text)
        assert audit.problems == []
    assert token_names(testapp.get(PAGE)) == [name]


def test_revoke_removes_the_token_and_it_stops_working(testapp: TestApp, signed_in: None) -> None:
    add_repo("github", "alice", "site")
    as_user(testapp, "alice")
    create(testapp, "keep")
    token = new_token(create(testapp, "ci"))
    settings(testapp, token, 200)
    page = testapp.get(PAGE)
    revoke = next(form for form in page.forms.values() if form.get("name").value == "ci")
    redirected = revoke.submit(status=303)
    assert redirected.headers["Location"].endswith(PAGE)
    after = redirected.follow()
    assert token_names(after) == ["keep"]
    assert "Token 'ci' revoked." in after.html.find(class_="coverage-notice").get_text()
    assert after.html.find(class_="coverage-notice") is not None
    assert testapp.get(PAGE).html.find(class_="coverage-notice") is None  # flashed once
    settings(testapp, token, 401)


def test_revoking_an_unknown_or_already_revoked_token_is_404(testapp: TestApp, signed_in: None) -> None:
    as_user(testapp, "alice")
    create(testapp, "ci")
    page = testapp.get(PAGE)
    form = page.forms[1]
    form.submit(status=303)
    response = form.submit(status=404)
    assert error_text(response) == "You have no token named 'ci'."


@pytest.mark.parametrize("encoded_name", ["", "a%00b", "n" * 10_000, "%FF%FE", "%ED%A0%80"])
def test_revoking_an_impossible_name_is_404(testapp: TestApp, signed_in: None, encoded_name: str) -> None:
    as_user(testapp, "alice")
    create_token("github", "alice", name="keep")
    csrf = testapp.get(PAGE).forms["coverage-create-token"]["csrf_token"].value
    body = f"csrf_token={csrf}&name={encoded_name}"
    response = testapp.post(PAGE + "/revoke", body, content_type="application/x-www-form-urlencoded", status=404)
    assert "You have no token named" in error_text(response)
    assert len(error_text(response)) < 200
    assert [row.name for row in list_tokens(get_owner("github", "alice"))] == ["keep"]


def test_a_user_cannot_revoke_another_users_token(testapp: TestApp, signed_in: None) -> None:
    bobs = new_token(create(as_user(testapp, "bob"), "ci"))
    as_user(testapp, "alice")
    page = testapp.get(PAGE)
    csrf = page.forms["coverage-create-token"]["csrf_token"].value
    testapp.post(PAGE + "/revoke", {"csrf_token": csrf, "name": "ci"}, status=404)
    assert [row.token_hash for row in list_tokens(get_owner("github", "bob"))] == [hash_token(bobs)]


@pytest.mark.parametrize("csrf", [None, "", "forged", "é"])
def test_forms_without_the_right_csrf_token_are_refused(testapp: TestApp, signed_in: None, csrf: Optional[str]) -> None:
    as_user(testapp, "alice")
    create_token("github", "alice", name="keep")
    testapp.get(PAGE)  # the session has a CSRF token
    fields = {"name": "new"} if csrf is None else {"name": "new", "csrf_token": csrf}
    response = testapp.post(PAGE, fields, status=400)
    assert "security token" in error_text(response)
    assert response.html.find(id="coverage-new-token") is None
    revoke_fields = {"name": "keep"} if csrf is None else {"name": "keep", "csrf_token": csrf}
    testapp.post(PAGE + "/revoke", revoke_fields, status=400)
    assert [row.name for row in list_tokens(get_owner("github", "alice"))] == ["keep"]


def test_a_csrf_token_from_another_session_is_refused(app: Flask, signed_in: None) -> None:
    attacker, victim = TestApp(app), TestApp(app)
    stolen = as_user(attacker, "alice").get(PAGE).forms["coverage-create-token"]["csrf_token"].value
    as_user(victim, "alice").get(PAGE)
    victim.post(PAGE, {"name": "evil", "csrf_token": stolen}, status=400)
    # Without a session at all there is nothing to match.
    fresh = as_user(TestApp(app), "alice")
    fresh.post(PAGE, {"name": "evil", "csrf_token": stolen}, status=400)
    assert list_tokens(get_owner("github", "alice")) == []


def test_the_csrf_token_is_stable_within_a_session(testapp: TestApp, signed_in: None) -> None:
    as_user(testapp, "alice")
    first = testapp.get(PAGE).forms["coverage-create-token"]["csrf_token"].value
    assert len(first) >= 40
    created = create(testapp, "ci")
    assert created.forms["coverage-create-token"]["csrf_token"].value == first
    assert all(form["csrf_token"].value == first for form in created.forms.values())


def test_the_host_can_override_the_layout(tmp_path: Any, make_app: Any, make_database_url: Any) -> None:
    (tmp_path / "templates" / "coverage").mkdir(parents=True)
    (tmp_path / "templates" / "coverage" / "base.html").write_text(
        "<!doctype html><title>Host</title><header>Host navigation</header>{% block content %}{% endblock %}"
    )
    app = make_app(make_database_url())
    app.template_folder = str(tmp_path / "templates")
    with app.app_context():
        add_user("github", "alice")
    app.extensions["coverage"].service.current_user_loader(lambda: get_owner("github", "alice"))
    response = TestApp(app).get(PAGE)
    assert "Host navigation" in response.text
    assert response.html.find(id="coverage-create-token") is not None


def test_a_host_without_a_secret_key_gets_a_clear_error(app: Flask, signed_in: None) -> None:
    app.secret_key = None
    app.testing = True
    with pytest.raises(RuntimeError, match="SECRET_KEY"):
        as_user(TestApp(app), "alice").get(PAGE)
