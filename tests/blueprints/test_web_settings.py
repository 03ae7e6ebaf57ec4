"""A repository's settings page: snippets for its readers, token and settings forms for its admins, with CSRF."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask, request
from webtest import TestApp

from flask_coverage import operations
from flask_coverage.queries.repositories import find_repository, get_owner

PAGE = "/gh/acme/widgets/settings"


@pytest.fixture
def site(app: Flask) -> None:
    """acme/widgets (public), acme/secret (private); ada an admin of acme, bob a member, eve nobody.
    The signed-in user is the ``X-User`` header's."""
    for name in ("ada", "bob", "eve"):
        operations.add_user("github", name)
    operations.add_org("github", "acme")
    operations.add_member("github", "acme", "ada", activated=True, admin=True)
    operations.add_member("github", "acme", "bob", activated=True)
    operations.add_repo("github", "acme", "widgets")
    operations.add_repo("github", "acme", "secret", private=True)

    @app.extensions["coverage"].service.current_user_loader
    def load_user() -> Any:
        name = request.headers.get("X-User")
        return get_owner("github", name) if name else None


def test_readers_get_the_snippets(testapp: TestApp, site: None) -> None:
    page = testapp.get(PAGE)
    badge = "http://localhost/gh/acme/widgets/graphs/badge.svg"
    assert (
        page.html.select_one("#coverage-badge-markdown").text
        == f"[![coverage]({badge})](http://localhost/gh/acme/widgets)"
    )
    assert page.html.select_one("#coverage-badge-html").text == (
        f'<a href="http://localhost/gh/acme/widgets"><img src="{badge}" alt="coverage"></a>'
    )
    assert (
        page.html.select_one("#coverage-badge-rst").text
        == f".. image:: {badge}\n   :target: http://localhost/gh/acme/widgets"
    )
    assert (
        page.html.select_one("#coverage-graph-tree").text
        == "![coverage](http://localhost/gh/acme/widgets/graphs/tree.svg)"
    )
    assert page.html.select_one("#coverage-admin") is None and "upload" not in page.text.lower().replace("uploaded", "")
    assert page.headers["Cache-Control"] == "no-store"
    # Nobody but its admins may change anything; the form is refused before its token is looked at.
    assert testapp.post(PAGE, {"action": "rotate-upload-token"}, headers={"X-User": "bob"}, status=403)


def test_readers_see_the_stored_codecov_yml(testapp: TestApp, site: None) -> None:
    assert "None stored" in testapp.get(PAGE).html.select_one("#coverage-yaml").text
    text = "coverage:\n  range: 60..80\n# <b>not markup</b>\n"
    operations.set_repository_yaml("github", "acme", "widgets", text)
    page = testapp.get(PAGE)
    assert page.html.select_one("pre#coverage-yaml").text == text
    assert "<b>not markup</b>" not in page.text  # escaped
    for headers in ({}, {"X-User": "eve"}):  # a private repository's YAML: its readers only
        operations.set_repository_yaml("github", "acme", "secret", text)
        testapp.get("/gh/acme/secret/settings", headers=headers, status=404)
    assert testapp.get("/gh/acme/secret/settings", headers={"X-User": "bob"}).html.select_one("pre#coverage-yaml")
    assert testapp.get(PAGE).html.select_one("#coverage-owner-yaml") is None
    operations.set_owner_yaml("github", "acme", "ignore: [docs/]\n")
    page = testapp.get(PAGE)
    assert page.html.select_one("pre#coverage-owner-yaml").text == "ignore: [docs/]\n"
    assert "set-yaml gh/acme" in page.text


def test_a_private_repository_s_snippets_carry_its_graph_token(app: Flask, testapp: TestApp, site: None) -> None:
    token = find_repository("github", "acme", "secret").image_token
    page = testapp.get("/gh/acme/secret/settings", headers={"X-User": "bob"})
    assert f"graphs/badge.svg?token={token}" in page.html.select_one("#coverage-badge-markdown").text
    for headers in ({}, {"X-User": "eve"}):
        missing = testapp.get("/gh/acme/nothing/settings", headers=headers, status=404).body
        assert testapp.get("/gh/acme/secret/settings", headers=headers, status=404).body == missing


def test_an_admin_shows_and_rotates_tokens_and_changes_settings(app: Flask, testapp: TestApp, site: None) -> None:
    admin = {"X-User": "ada"}
    page = testapp.get(PAGE, headers=admin)
    form = page.forms[0]
    old = find_repository("github", "acme", "widgets").upload_token
    assert old not in page.text  # shown on request only
    shown = form.submit("action", value="show-upload-token", headers=admin)
    assert shown.html.select_one("#coverage-upload-token")["value"] == old
    rotated = shown.forms[0].submit("action", value="rotate-upload-token", headers=admin)
    new = rotated.html.select_one("#coverage-upload-token")["value"]
    assert new != old and find_repository("github", "acme", "widgets").upload_token == new
    graph = find_repository("github", "acme", "widgets").image_token
    rotated.forms[0].submit("action", value="rotate-graph-token", headers=admin)
    assert find_repository("github", "acme", "widgets").image_token != graph
    # Visibility and the default branch.
    private = testapp.get(PAGE, headers=admin).forms[1].submit("action", value="visibility", headers=admin)
    assert private.html.select_one("#coverage-settings-done").text == "The repository is now private."
    assert find_repository("github", "acme", "widgets").private is True
    branch_form = private.forms[2]
    branch_form["branch"] = "develop"
    moved = branch_form.submit("action", value="branch", headers=admin)
    assert moved.html.select_one("#coverage-settings-done").text == "The default branch is now develop."
    branch_form = moved.forms[2]
    branch_form["branch"] = "bad..name"
    assert branch_form.submit("action", value="branch", headers=admin, status=400)
    assert find_repository("github", "acme", "widgets").branch == "develop"


def test_every_form_needs_the_session_s_csrf_token(testapp: TestApp, site: None) -> None:
    admin = {"X-User": "ada"}
    for fields in ({"action": "show-upload-token"}, {"action": "show-upload-token", "csrf_token": "forged"}):
        refused = testapp.post(PAGE, fields, headers=admin, status=400)
        assert "security token" in refused.text
    token = testapp.get(PAGE, headers=admin).forms[0]["csrf_token"].value
    testapp.post(PAGE, {"action": "nope", "csrf_token": token}, headers=admin, status=400)


@pytest.mark.parametrize("value", ["maybe", "", "YES", None])
def test_a_visibility_other_than_the_form_s_own_is_refused_and_changes_nothing(
    testapp: TestApp, site: None, value: Any
) -> None:
    admin = {"X-User": "ada"}
    for repo in ("widgets", "secret"):
        token = testapp.get(f"/gh/acme/{repo}/settings", headers=admin).forms[0]["csrf_token"].value
        fields = {"action": "visibility", "csrf_token": token, **({} if value is None else {"private": value})}
        refused = testapp.post(f"/gh/acme/{repo}/settings", fields, headers=admin, status=400)
        assert "private must be yes or no" in refused.text
    assert find_repository("github", "acme", "widgets").private is False
    assert find_repository("github", "acme", "secret").private is True


def test_an_admin_shows_and_rotates_the_webhook_secret(testapp: TestApp, site: None) -> None:
    admin = {"X-User": "ada"}
    page = testapp.get(PAGE, headers=admin)
    assert page.html.select_one("#coverage-webhook-secret") is None  # shown on request only
    shown = page.forms[0].submit("action", value="show-webhook-secret", headers=admin)
    secret = shown.html.select_one("#coverage-webhook-secret")["value"]
    assert (
        secret == operations.webhook_secret("github", "acme", "widgets")
        and shown.headers["Cache-Control"] == "no-store"
    )
    rotated = shown.forms[0].submit("action", value="rotate-webhook-secret", headers=admin)
    new = rotated.html.select_one("#coverage-webhook-secret")["value"]
    assert new != secret and new == operations.webhook_secret("github", "acme", "widgets")
    assert testapp.post(PAGE, {"action": "show-webhook-secret"}, headers={"X-User": "bob"}, status=403)
