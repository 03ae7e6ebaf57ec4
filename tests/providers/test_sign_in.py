"""Sign-in with the git host (docs/sign-in.md): the OAuth flow against a fake authorization server and
a fake GitHub on loopback, and every way it can be refused with nothing written."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import pytest
import requests
import sqlalchemy as sa
from authlib.integrations.flask_client import OAuth
from cryptography.fernet import Fernet
from fakes import (
    FakeHost,
    bitbucket_account_routes,
    bitbucket_repository,
    fake_host,
    github_account_routes,
    github_repository,
    gitlab_account_routes,
    gitlab_project,
    oauth_routes,
)
from flask import Flask

from flask_coverage import CoverageService
from flask_coverage.logging import redact_tokens
from flask_coverage.models import HostAccount, Membership, Owner, Repository, RepositoryReader, metadata
from flask_coverage.providers.accounts import sign_in_endpoints
from flask_coverage.state import get_session

CLIENT_ID, CLIENT_SECRET = "client-1", "client-secret-never-shown"


@pytest.fixture
def github() -> Iterator[FakeHost]:
    """A fake github.com: its OAuth endpoints and its API, where alice is an admin of acme and a member
    of beta, and reads acme/widgets (private), acme/public and beta/secret (private)."""
    with fake_host() as host:
        oauth_routes(host, client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
        github_account_routes(host)
        host.state.update(
            user={"login": "alice", "id": 1, "name": "Alice"},
            orgs=[("acme", 10, "admin"), ("beta", 20, "member")],
            repos=[
                github_repository("acme", 10, "widgets", 100, private=True),
                github_repository("acme", 10, "public", 101, private=False),
                github_repository("beta", 20, "secret", 200, private=True),
            ],
        )
        yield host


def sign_in_app(make_app: Callable[..., Flask], tmp_path: Path, host: FakeHost, **config: Any) -> Flask:
    settings = {"url": host.url, "web_url": host.url, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}
    config.setdefault("COVERAGE_SYNC_TIMEOUT", 2)
    config.setdefault("COVERAGE_SIGN_IN_KEY", Fernet.generate_key().decode())
    return make_app(f"sqlite:///{tmp_path}/coverage.sqlite", COVERAGE_PROVIDERS={"github": settings}, **config)


@pytest.fixture
def app(make_app: Callable[..., Flask], tmp_path: Path, github: FakeHost) -> Flask:
    return sign_in_app(make_app, tmp_path, github)


def tables(app: Flask) -> dict[str, list[tuple[Any, ...]]]:
    with app.app_context():
        get_session().remove()
        engine = app.extensions["sqlalchemy"].engine
        with engine.connect() as connection:
            return {
                table.name: sorted(map(tuple, connection.execute(sa.select(table))), key=repr)
                for table in metadata.sorted_tables
            }


def authorize(client: Any) -> str:
    """Start signing in and go through the fake's authorize page: the callback URL it sends back to."""
    start = client.get("/account/sign-in/github?next=/gh/acme")
    assert start.status_code == 302
    answer = requests.get(start.headers["Location"], allow_redirects=False, timeout=5)
    assert answer.status_code == 302
    return str(answer.headers["Location"])


def test_sign_in_syncs_the_host_and_keeps_the_user_in_the_session(app: Flask, github: FakeHost) -> None:
    client = app.test_client()
    start = client.get("/account/sign-in/github")
    asked = requests.utils.urlparse(start.headers["Location"]).query
    # The state and a PKCE challenge (S256) travel to the host, with the least-privilege scopes.
    assert "state=" in asked and "code_challenge_method=S256" in asked and "scope=read%3Aorg+repo" in asked

    back = client.get(authorize(client))
    assert back.status_code == 303 and back.headers["Location"] == "/gh/acme"
    cookie = back.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie

    page = client.get("/")
    assert "Signed in as <strong>alice</strong>" in page.text
    assert all(name in page.text for name in ("widgets", "public", "secret"))
    with app.app_context():
        alice = get_session().execute(sa.select(Owner).where(Owner.username == "alice")).scalar_one()
        roles = {
            org: admin
            for org, admin in get_session().execute(
                sa.select(Owner.username, Membership.is_admin)
                .join(Membership, Membership.org_id == Owner.id)
                .where(Membership.user_id == alice.id, Membership.activated.is_(True))
            )
        }
        assert roles == {"acme": True, "beta": False}
        readable = set(
            get_session()
            .execute(
                sa.select(Repository.name)
                .join(RepositoryReader, RepositoryReader.repository_id == Repository.id)
                .where(RepositoryReader.user_id == alice.id)
            )
            .scalars()
        )
        assert readable == {"widgets", "secret"}
        tokens = get_session().execute(sa.select(Repository.upload_token)).scalars().all()
        assert len(set(tokens)) == 3 and all(len(token) == 36 for token in tokens)
        # The host's token is stored, encrypted: neither it nor any part of it is in the row.
        stored = get_session().get(HostAccount, alice.id)
        assert stored is not None and github.state["access_token"] not in stored.token
        key = app.config["COVERAGE_SIGN_IN_KEY"]
        assert Fernet(key).decrypt(stored.token.encode()).decode() == github.state["access_token"]


def test_sign_out_forgets_the_user(app: Flask) -> None:
    client = app.test_client()
    client.get(authorize(client))
    page = client.get("/").text
    assert "Sign out" in page
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    assert client.post("/account/sign-out").status_code == 400  # without the form's token
    assert client.post("/account/sign-out", data={"csrf_token": token}).status_code == 303
    page = client.get("/").text
    assert "Not signed in" in page and "Sign in with github" in page and "secret" not in page


def test_a_forged_state_is_refused_and_changes_nothing(app: Flask) -> None:
    client = app.test_client()
    callback = authorize(client)
    before = tables(app)
    forged = callback.replace("state=", "state=forged")
    answer = client.get(forged)
    assert answer.status_code == 400 and "mismatching_state" in answer.text
    assert tables(app) == before
    assert "Not signed in" in client.get("/").text


def test_a_replayed_state_is_refused(app: Flask) -> None:
    client = app.test_client()
    callback = authorize(client)
    assert client.get(callback).status_code == 303
    client.post("/account/sign-out")  # whatever the sign-out, the state was used once
    before = tables(app)
    assert client.get(callback).status_code == 400
    assert tables(app) == before


def test_a_wrong_pkce_verifier_is_refused(app: Flask) -> None:
    client = app.test_client()
    callback = authorize(client)
    with client.session_transaction() as session:
        for key, value in session.items():
            if key.startswith("_state_github_"):
                value["data"]["code_verifier"] = "a-verifier-the-host-never-saw-" + "x" * 20
                session[key] = value
    before = tables(app)
    answer = client.get(callback)
    assert answer.status_code == 502 and "invalid_grant" in answer.text
    assert tables(app) == before


def test_a_code_issued_to_another_client_is_refused(app: Flask, github: FakeHost) -> None:
    client = app.test_client()
    start = client.get("/account/sign-in/github")
    other = start.headers["Location"].replace(f"client_id={CLIENT_ID}", "client_id=another-client")
    callback = requests.get(other, allow_redirects=False, timeout=5).headers["Location"]
    before = tables(app)
    assert client.get(callback).status_code == 502
    assert tables(app) == before


@pytest.mark.parametrize(
    "answer",
    [
        (401, {"error": "invalid_client"}, {}),
        (403, {"message": "forbidden"}, {}),
        (500, b"<html>oops</html>", {}),
        (200, b"not json at all", {}),
        (200, {"token_type": "bearer"}, {}),
    ],
    ids=["401", "403", "5xx", "garbage", "no-token"],
)
def test_a_failing_token_exchange_is_refused_and_changes_nothing(app: Flask, github: FakeHost, answer: Any) -> None:
    client = app.test_client()
    callback = authorize(client)
    github.state["token_answer"] = answer
    before = tables(app)
    refused = client.get(callback)
    assert refused.status_code == 502
    assert CLIENT_SECRET not in refused.text
    assert tables(app) == before


def test_a_slow_token_exchange_is_refused(make_app: Callable[..., Flask], tmp_path: Path, github: FakeHost) -> None:
    app = sign_in_app(make_app, tmp_path, github, COVERAGE_SYNC_TIMEOUT=0.5)
    client = app.test_client()
    callback = authorize(client)
    github.state["token_delay"] = 2
    before = tables(app)
    assert client.get(callback).status_code == 502
    assert tables(app) == before


def test_a_host_that_fails_the_sync_at_sign_in_writes_nothing(app: Flask, github: FakeHost) -> None:
    client = app.test_client()
    callback = authorize(client)

    @github.route("GET", r"/user/repos")
    def broken(request: Any, match: Any) -> Any:
        return 500, {"message": "Server Error"}, {}

    github.routes.insert(0, github.routes.pop())
    before = tables(app)
    answer = client.get(callback)
    assert answer.status_code == 502
    assert tables(app) == before
    assert "Not signed in" in client.get("/").text


def test_the_session_cookie_is_secure_behind_an_https_public_url(
    make_app: Callable[..., Flask], tmp_path: Path, github: FakeHost
) -> None:
    app = sign_in_app(make_app, tmp_path, github, COVERAGE_PUBLIC_URL="https://coverage.example.com")
    assert app.config["SESSION_COOKIE_SECURE"] is True and app.config["SESSION_COOKIE_SAMESITE"] == "Lax"


def test_sign_in_needs_a_valid_key(make_app: Callable[..., Flask], tmp_path: Path, github: FakeHost) -> None:
    with pytest.raises(ValueError, match="COVERAGE_SIGN_IN_KEY"):
        sign_in_app(make_app, tmp_path, github, COVERAGE_SIGN_IN_KEY="not a key")


def test_the_host_apps_own_user_comes_first(app: Flask) -> None:
    service = app.extensions["coverage"].service
    client = app.test_client()
    client.get(authorize(client))
    assert "Signed in as <strong>alice</strong>" in client.get("/").text

    @service.current_user_loader
    def host_user() -> Any:
        return get_session().execute(sa.select(Owner).where(Owner.username == "acme")).scalar_one()

    assert "Signed in as <strong>acme</strong>" in client.get("/").text


def age_the_sync(app: Flask, seconds: float) -> None:
    """Make the signed-in user's last sync ``seconds`` older."""
    with app.app_context():
        for account in get_session().execute(sa.select(HostAccount)).scalars():
            account.synced_at -= dt.timedelta(seconds=seconds)
        get_session().commit()


def test_a_permission_the_host_removes_goes_once_the_sync_age_passes(app: Flask, github: FakeHost) -> None:
    client = app.test_client()
    client.get(authorize(client))
    assert "secret" in client.get("/").text
    github.state["repos"] = [r for r in github.state["repos"] if r["name"] != "secret"]
    github.state["orgs"] = [("acme", 10, "admin")]
    age_the_sync(app, 60)  # younger than COVERAGE_SYNC_MAX_AGE: nothing asked of the host
    asked = len(github.requests)
    assert "secret" in client.get("/").text and len(github.requests) == asked
    assert client.get("/gh/beta/secret").status_code == 200
    age_the_sync(app, app.config["COVERAGE_SYNC_MAX_AGE"])
    page = client.get("/")
    assert "widgets" in page.text and "secret" not in page.text
    assert client.get("/gh/beta/secret").status_code == 404


def test_a_failed_lazy_sync_keeps_the_permissions_and_is_not_retried_at_once(app: Flask, github: FakeHost) -> None:
    client = app.test_client()
    client.get(authorize(client))
    github.state["access_token"] = "revoked-on-the-host"  # every API call now answers 401
    age_the_sync(app, app.config["COVERAGE_SYNC_MAX_AGE"])
    asked = len(github.requests)
    page = client.get("/")
    assert page.status_code == 200 and "secret" in page.text and "widgets" in page.text
    assert len(github.requests) == asked + 1  # the user's call was refused; nothing more asked
    client.get("/")
    assert len(github.requests) == asked + 1  # the next request waits for the retry delay


def test_the_callbacks_code_is_kept_out_of_request_logs() -> None:
    line = '"GET /account/sign-in/github/callback?code=abc123&state=xyz HTTP/1.1" 303 -'
    assert "abc123" not in redact_tokens(line) and "state=xyz" in redact_tokens(line)


@pytest.mark.parametrize("target", ["//evil.example/", "/\\evil.example", "/\t/evil.example", "https://evil.example/"])
def test_next_never_leads_to_another_site(app: Flask, target: str) -> None:
    client = app.test_client()
    callback = requests.get(
        client.get("/account/sign-in/github", query_string={"next": target}).headers["Location"],
        allow_redirects=False,
        timeout=5,
    ).headers["Location"]
    assert client.get(callback).headers["Location"] == "/"


def test_a_slow_host_is_cut_at_the_sync_timeout_and_the_page_served_as_before(
    make_app: Callable[..., Flask], tmp_path: Path, github: FakeHost
) -> None:
    app = sign_in_app(make_app, tmp_path, github, COVERAGE_SYNC_TIMEOUT=1)
    client = app.test_client()
    client.get(authorize(client))
    github.state["repos"] = []

    @github.route("GET", r"/user/repos")
    def slow(request: Any, match: Any) -> Any:
        time.sleep(3)
        return 200, [], {}

    github.routes.insert(0, github.routes.pop())
    age_the_sync(app, app.config["COVERAGE_SYNC_MAX_AGE"])
    before = tables(app)
    page = client.get("/")
    assert page.status_code == 200 and "secret" in page.text and "widgets" in page.text
    after = tables(app)
    # Nothing changed but the time of the failed sync.
    assert {name: rows for name, rows in after.items() if name != "coverage_host_account"} == {
        name: rows for name, rows in before.items() if name != "coverage_host_account"
    }


@pytest.mark.parametrize(
    ("service", "settings", "authorize_url", "pkce"),
    [
        ("github", {}, "https://github.com/login/oauth/authorize", True),
        (
            "github_enterprise",
            {"url": "https://ghe.example.com/api/v3"},
            "https://ghe.example.com/login/oauth/authorize",
            True,
        ),
        ("gitlab", {}, "https://gitlab.com/oauth/authorize", True),
        (
            "gitlab_enterprise",
            {"url": "https://git.example.com/api/v4"},
            "https://git.example.com/oauth/authorize",
            True,
        ),
        ("bitbucket", {}, "https://bitbucket.org/site/oauth2/authorize", False),
    ],
)
def test_each_hosts_sign_in_endpoints(service: str, settings: dict[str, str], authorize_url: str, pkce: bool) -> None:
    endpoints = sign_in_endpoints(service, {"client_id": "c", "client_secret": "s", **settings})
    assert (endpoints.authorize_url, endpoints.pkce) == (authorize_url, pkce)


@pytest.mark.parametrize(
    ("service", "settings", "message"),
    [
        ("bitbucket_server", {}, "supported on GitHub, GitLab and Bitbucket Cloud"),
        ("github", {"client_secret": ""}, "no 'client_secret'"),
        ("gitlab_enterprise", {"url": "https://git.example.com/"}, "needs a 'web_url'"),
    ],
)
def test_a_sign_in_setting_that_cannot_work_is_refused_at_start_up(
    make_app: Callable[..., Flask], tmp_path: Path, service: str, settings: dict[str, str], message: str
) -> None:
    entry = {"client_id": "c", "client_secret": "s", **settings}
    with pytest.raises(ValueError, match=message):
        make_app(
            f"sqlite:///{tmp_path}/c.sqlite",
            COVERAGE_PROVIDERS={service: entry},
            COVERAGE_SIGN_IN_KEY=Fernet.generate_key().decode(),
        )


def test_a_page_that_needs_a_user_sends_the_visitor_to_sign_in_with_the_host(app: Flask) -> None:
    client = app.test_client()
    refused = client.get("/account/access")
    assert refused.status_code == 302
    assert refused.headers["Location"] == "/account/sign-in/github?next=/account/access"
    start = client.get(refused.headers["Location"])
    callback = requests.get(start.headers["Location"], allow_redirects=False, timeout=5).headers["Location"]
    assert client.get(callback).headers["Location"] == "/account/access"
    assert "alice" in client.get("/account/access").text


def test_a_host_apps_own_authlib_registry_is_left_alone(github: FakeHost, tmp_path: Path) -> None:
    host_app = Flask("with_its_own_authlib")
    own = OAuth(host_app)
    settings = {"url": github.url, "web_url": github.url, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}
    host_app.config.update(
        SECRET_KEY="test",
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path}/own.sqlite",
        COVERAGE_PROVIDERS={"github": settings},
        COVERAGE_SIGN_IN_KEY=Fernet.generate_key().decode(),
        COVERAGE_FEEDBACK_SENDER=False,
    )
    CoverageService(host_app)
    assert host_app.extensions["authlib.integrations.flask_client"] is own
    assert set(host_app.extensions["coverage_sign_in"]) == {"github"}


@pytest.mark.parametrize("service", ["gitlab", "bitbucket"])
def test_sign_in_with_gitlab_and_bitbucket(make_app: Callable[..., Flask], tmp_path: Path, service: str) -> None:
    with fake_host() as host:
        if service == "gitlab":
            oauth_routes(
                host, client_id=CLIENT_ID, client_secret=CLIENT_SECRET, paths=("/oauth/authorize", "/oauth/token")
            )
            gitlab_account_routes(host)
            host.state.update(
                user={"username": "alice", "id": 1},
                groups=[("acme", 10, 30)],
                projects=[gitlab_project("acme", 10, "widgets", 100, private=True)],
            )
            settings = {"url": host.url + "/api/v4", "web_url": host.url}
        else:
            paths = ("/site/oauth2/authorize", "/site/oauth2/access_token")
            oauth_routes(host, client_id=CLIENT_ID, client_secret=CLIENT_SECRET, paths=paths)
            bitbucket_account_routes(host)
            host.state.update(
                user={"username": "alice", "uuid": "{a}"},
                workspaces=[("acme", "{acme}", "member")],
                repositories=[bitbucket_repository("acme", "widgets", "{w}", private=True)],
            )
            settings = {"url": host.url + "/2.0", "web_url": host.url}
        app = make_app(
            f"sqlite:///{tmp_path}/c.sqlite",
            COVERAGE_PROVIDERS={service: {**settings, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}},
            COVERAGE_SIGN_IN_KEY=Fernet.generate_key().decode(),
        )
        client = app.test_client()
        start = client.get(f"/account/sign-in/{service}")
        # GitLab checks a PKCE verifier; Bitbucket Cloud does not take one.
        assert ("code_challenge=" in start.headers["Location"]) is (service == "gitlab")
        callback = requests.get(start.headers["Location"], allow_redirects=False, timeout=5).headers["Location"]
        assert client.get(callback).status_code == 303
        prefix = {"gitlab": "gl", "bitbucket": "bb"}[service]
        assert client.get(f"/{prefix}/acme/widgets").status_code == 200
        assert app.test_client().get(f"/{prefix}/acme/widgets").status_code == 404
