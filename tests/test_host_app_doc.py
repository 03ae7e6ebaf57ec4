"""docs/host-app.md's app, run as the page shows it: Flask-Login users provisioned into the coverage
tables at sign-in, the hooks, the pages under a prefix of their own and the app's own / kept."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
import webtest

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.models import Membership
from flask_coverage.queries.repositories import get_owner

pytest.importorskip("flask_login", reason="the doc's example needs Flask-Login (the test extra)")

DOC = Path(__file__).resolve().parent.parent / "docs" / "host-app.md"


def doc_sample() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    [sample] = [block for block in blocks if block.startswith("# host_app.py\n")]
    return sample


@pytest.fixture
def host(tmp_path: Path, make_database_url: Callable[[], str]) -> Any:
    """The doc's module, imported from a file of its own, and an app made by its create_app."""
    path = tmp_path / "host_app.py"
    path.write_text(doc_sample(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("host_app", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["host_app"] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        app = module.create_app({"SQLALCHEMY_DATABASE_URI": make_database_url(), "SECRET_KEY": "test"})
        with app.app_context():
            module.db.session.add_all(
                [
                    module.User(email="octo@example.com", github_login="octocat", team="acme", team_admin=True),
                    module.User(email="solo@example.com", github_login="solo"),
                ]
            )
            module.db.session.commit()
            operations.add_org("github", "acme")
            vault = operations.add_repo("github", "acme", "vault", private=True)
            operations.add_repo("github", "acme", "widgets")
            upload_report(vault, b"SF:a.py\nDA:1,1\nDA:2,0\nend_of_record\n", commit="a" * 40, branch="main")
        yield module, app
        with app.app_context():
            for engine in app.extensions["sqlalchemy"].engines.values():
                engine.dispose()
    finally:
        sys.modules.pop("host_app", None)


def sign_in(client: webtest.TestApp, email: str, next_url: str = "") -> webtest.TestResponse:
    return client.post(f"/sign-in{next_url}", {"email": email}, status=302)


def listed(client: webtest.TestApp) -> list[str]:
    return [a.text for a in client.get("/coverage/").html.select(".coverage-owner tbody td:first-child a")]


def test_the_apps_users_sign_in_and_see_what_their_membership_opens(host: Any) -> None:
    module, app = host
    client = webtest.TestApp(app)
    assert client.get("/").html.select_one("a")["href"] == "/coverage/"  # the app's own / is kept
    assert listed(client) == ["widgets"]
    # The token page sends a visitor who is not signed in to the app's sign-in, and back.
    sent = client.get("/account/access", status=302).location
    assert sent.endswith("/sign-in?next=/account/access")
    assert sign_in(client, "octo@example.com", "?next=/account/access").location.endswith("/account/access")
    with app.app_context():
        octocat = get_owner("github", "octocat")
        membership = module.db.session.execute(module.db.select(Membership)).scalar_one()
        assert (membership.user_id, membership.activated, membership.is_admin) == (octocat.id, True, True)
    assert listed(client) == ["vault", "widgets"]
    page = client.get("/coverage/")
    assert " ".join(page.html.select_one(".coverage-user").text.split()) == "Signed in as octocat · Access tokens"
    form = client.get("/account/access").forms["coverage-create-token"]
    form["name"] = "laptop"
    assert "laptop" in form.submit(status=201).text
    client.get("/coverage/gh/acme/vault/blob/a.py", status=200)
    # Signing in again changes nothing twice (the membership exists: it is updated).
    sign_in(client, "octo@example.com")
    client.post("/sign-out", status=302)
    assert listed(client) == ["widgets"]
    client.get("/coverage/gh/acme/vault", status=404)


def test_a_user_of_no_team_gets_an_account_and_no_private_repository(host: Any) -> None:
    _, app = host
    client = webtest.TestApp(app)
    assert sign_in(client, "solo@example.com", "?next=//evil.example/").location.endswith("/")
    assert "evil" not in sign_in(client, "solo@example.com", "?next=https://evil.example/").location
    with app.app_context():
        assert get_owner("github", "solo") is not None
    assert listed(client) == ["widgets"]
    client.get("/coverage/gh/acme/vault", status=404)
    client.post("/sign-in", {"email": "nobody@example.com"}, status=401)
