"""The older public API: ``GET /api/pub/{provider}/{owner}/{repo}/settings`` (docs/legacy-api.md)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Optional

import pytest
import sqlalchemy as sa
from flask import Flask
from webtest import TestApp

from flask_coverage.models import AccessToken, Owner, Repository, utcnow
from flask_coverage.operations import (
    add_member,
    add_org,
    add_repo,
    add_user,
    create_token,
    revoke_token,
    set_owner_yaml,
    set_repository_yaml,
)

URL = "/api/pub/{provider}/{owner}/{repo}/settings"


@dataclass
class World:
    alice: str  # owns alice/site (public) and alice/secret (private)
    bob: str  # admin of org acme
    carol: str  # plain member of acme
    dave: str  # a stranger
    erin: str  # admin of acme whose membership is not activated
    site: Repository
    secret: Repository
    acme_public: Repository
    acme_private: Repository


@pytest.fixture
def world(app: Flask) -> World:
    for name in ("alice", "bob", "carol", "dave", "erin"):
        add_user("github", name, name=name.title())
    add_org("github", "acme", name="Acme Inc.")
    add_member("github", "acme", "bob", activated=True, admin=True)
    add_member("github", "acme", "carol", activated=True)
    add_member("github", "acme", "erin", activated=False, admin=True)
    names = ("alice", "bob", "carol", "dave", "erin")
    tokens = {name: create_token("github", name, name="scripts")[1] for name in names}
    return World(
        alice=tokens["alice"],
        bob=tokens["bob"],
        carol=tokens["carol"],
        dave=tokens["dave"],
        erin=tokens["erin"],
        site=add_repo("github", "alice", "site", language="python"),
        secret=add_repo("github", "alice", "secret", private=True, branch="develop"),
        acme_public=add_repo("github", "acme", "widgets"),
        acme_private=add_repo("github", "acme", "vault", private=True),
    )


def url(owner: str, repo: str, provider: str = "gh") -> str:
    return URL.format(provider=provider, owner=owner, repo=repo)


def get(testapp: TestApp, path: str, token: Optional[str], status: int, **kwargs: Any) -> Any:
    headers = {"Authorization": token} if token is not None else {}
    return testapp.get(path, headers=headers, status=status, **kwargs)


def assert_error(response: Any, status: int) -> None:
    assert response.status_code == status
    assert response.content_type == "application/json"
    body = response.json
    assert set(body) == {"error", "meta"}
    assert body["meta"] == {"status": status}
    assert body["error"]["context"] is None
    assert isinstance(body["error"]["reason"], str) and body["error"]["reason"]


def test_owner_reads_the_settings_of_a_repository(testapp: TestApp, world: World) -> None:
    response = get(testapp, url("alice", "site"), world.alice, 200)
    assert response.content_type == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    body = response.json
    assert set(body) == {"owner", "repo"}
    owner, repo = body["owner"], body["repo"]
    assert set(owner) == {"username", "name", "service", "service_id", "avatar_url", "updatestamp", "yaml"}
    assert (owner["username"], owner["name"], owner["service"]) == ("alice", "Alice", "github")
    assert set(repo) == {
        "name",
        "private",
        "active",
        "activated",
        "deleted",
        "language",
        "branch",
        "upload_token",
        "image_token",
        "using_integration",
        "bot_username",
        "service_id",
        "updatestamp",
        "yaml",
    }
    assert repo["name"] == "site"
    assert repo["yaml"] is None
    set_repository_yaml("github", "alice", "site", "coverage:\n  precision: 1\n")
    assert get(testapp, url("alice", "site"), world.alice, 200).json["repo"]["yaml"] == "coverage:\n  precision: 1\n"
    assert owner["yaml"] is None
    set_owner_yaml("github", "alice", "ignore: [docs/]\n")
    assert get(testapp, url("alice", "site"), world.alice, 200).json["owner"]["yaml"] == "ignore: [docs/]\n"
    assert repo["private"] is False and repo["active"] is True and repo["deleted"] is False
    assert (repo["language"], repo["branch"]) == ("python", "main")
    assert repo["upload_token"] == world.site.upload_token
    assert repo["image_token"] == world.site.image_token
    for stamp in (owner["updatestamp"], repo["updatestamp"]):
        parsed = dt.datetime.fromisoformat(stamp)
        assert parsed.utcoffset() == dt.timedelta(0)
        assert abs(dt.datetime.now(dt.timezone.utc) - parsed) < dt.timedelta(minutes=5)


def test_private_repository_of_the_owner(testapp: TestApp, world: World) -> None:
    repo = get(testapp, url("alice", "secret"), world.alice, 200).json["repo"]
    assert (repo["private"], repo["branch"], repo["upload_token"]) == (True, "develop", world.secret.upload_token)


def test_names_are_case_insensitive(testapp: TestApp, world: World) -> None:
    assert get(testapp, url("ALICE", "Site"), world.alice, 200).json["repo"]["name"] == "site"


@pytest.mark.parametrize(
    "header",
    ["{token}", "token {token}", "Token {token}", "  token   {token}  ", "Bearer {token}"],
    ids=["bare", "token-scheme", "Token-scheme", "blanks", "bearer"],
)
def test_authorization_header_forms(testapp: TestApp, world: World, header: str) -> None:
    assert get(testapp, url("alice", "site"), header.format(token=world.alice), 200).json["repo"]["name"] == "site"


def test_access_token_in_the_query_string(testapp: TestApp, world: World) -> None:
    testapp.get(url("alice", "site"), {"access_token": world.alice}, status=200)


def test_header_wins_over_the_query_string(testapp: TestApp, world: World) -> None:
    get(testapp, url("alice", "site") + "?access_token=wrong", world.alice, 200)
    assert_error(get(testapp, url("alice", "site") + f"?access_token={world.alice}", "wrong", 401), 401)


@pytest.mark.parametrize(
    "header", [None, "", "   ", "token", "token ", "definitely-not-a-token", "token a b", "Basic YWxpY2U6cHc="]
)
def test_missing_or_invalid_token_is_401(testapp: TestApp, world: World, header: Optional[str]) -> None:
    response = get(testapp, url("alice", "site"), header, 401)
    assert_error(response, 401)
    assert response.headers["WWW-Authenticate"] == "token"
    assert world.site.upload_token not in response.text


@pytest.mark.parametrize("query", ["?access_token=", "?access_token=nope", "?token=" + "x" * 36])
def test_invalid_query_token_is_401(testapp: TestApp, world: World, query: str) -> None:
    assert_error(testapp.get(url("alice", "site") + query, status=401), 401)


def test_a_revoked_token_is_401(testapp: TestApp, world: World) -> None:
    get(testapp, url("alice", "site"), world.alice, 200)
    revoke_token("github", "alice", name="scripts")
    assert_error(get(testapp, url("alice", "site"), world.alice, 401), 401)
    assert_error(testapp.get(url("alice", "site"), {"access_token": world.alice}, status=401), 401)


def test_unknown_repository_is_401_without_a_token(testapp: TestApp, world: World) -> None:
    # Without credentials nothing is looked up, so existence does not leak to anonymous callers.
    assert_error(get(testapp, url("nobody", "nothing"), None, 401), 401)


@pytest.mark.parametrize(
    ("owner", "repo"), [("nobody", "site"), ("alice", "nothing"), ("acme", "site"), ("alice", "widgets")]
)
def test_unknown_repository_is_404(testapp: TestApp, world: World, owner: str, repo: str) -> None:
    assert_error(get(testapp, url(owner, repo), world.alice, 404), 404)


@pytest.mark.parametrize("provider", ["xx", "github", "GH", "gh.", "gl"])
def test_unknown_or_other_provider_is_404(testapp: TestApp, world: World, provider: str) -> None:
    assert_error(get(testapp, url("alice", "site", provider), world.alice, 404), 404)


def test_every_provider_prefix_maps_to_its_service(testapp: TestApp, app: Flask) -> None:
    for prefix, service in [("gl", "gitlab"), ("bb", "bitbucket"), ("ghe", "github_enterprise"),
                            ("gle", "gitlab_enterprise"), ("bbs", "bitbucket_server")]:  # fmt: skip
        add_user(service, "erin")
        add_repo(service, "erin", "tool")
        token = create_token(service, "erin", name="t")[1]
        assert get(testapp, url("erin", "tool", prefix), token, 200).json["owner"]["service"] == service
        assert_error(get(testapp, url("erin", "tool", "gh"), token, 404), 404)


def test_a_stranger_gets_403_on_a_public_repository(testapp: TestApp, world: World) -> None:
    response = get(testapp, url("alice", "site"), world.dave, 403)
    assert_error(response, 403)
    assert world.site.upload_token not in response.text


def test_a_stranger_gets_404_on_a_private_repository(testapp: TestApp, world: World) -> None:
    assert_error(get(testapp, url("alice", "secret"), world.dave, 404), 404)
    assert_error(get(testapp, url("acme", "vault"), world.dave, 404), 404)


def test_another_users_token_on_a_users_repository(testapp: TestApp, world: World) -> None:
    assert_error(get(testapp, url("alice", "site"), world.bob, 403), 403)
    assert_error(get(testapp, url("alice", "secret"), world.bob, 404), 404)


def test_an_org_admin_reads_the_orgs_repositories(testapp: TestApp, world: World) -> None:
    public = get(testapp, url("acme", "widgets"), world.bob, 200).json
    assert public["owner"] == {
        "username": "acme",
        "name": "Acme Inc.",
        "service": "github",
        "service_id": None,
        "avatar_url": None,
        "updatestamp": public["owner"]["updatestamp"],
        "yaml": None,
    }
    assert public["repo"]["upload_token"] == world.acme_public.upload_token
    assert get(testapp, url("acme", "vault"), world.bob, 200).json["repo"]["image_token"] == (
        world.acme_private.image_token
    )


def test_a_plain_member_sees_private_repositories_but_may_not_read_settings(testapp: TestApp, world: World) -> None:
    # A member can see the private repository exists (403, not 404) but not its tokens.
    assert_error(get(testapp, url("acme", "vault"), world.carol, 403), 403)
    assert_error(get(testapp, url("acme", "widgets"), world.carol, 403), 403)


def test_an_admin_whose_membership_is_not_activated_is_a_stranger(testapp: TestApp, world: World) -> None:
    # Neither the private repository nor any settings (which hold the upload and graph tokens).
    assert_error(get(testapp, url("acme", "vault"), world.erin, 404), 404)
    assert_error(get(testapp, url("acme", "widgets"), world.erin, 403), 403)


def test_last_used_is_recorded(testapp: TestApp, world: World, db: Any) -> None:
    def last_used() -> dict[str, Optional[dt.datetime]]:
        db.session.expire_all()
        query = sa.select(Owner.username, AccessToken.last_used).join(AccessToken.owner)
        return {username: used for username, used in db.session.execute(query)}

    assert set(last_used().values()) == {None}
    get(testapp, url("alice", "site"), world.alice, 200)
    used = last_used()
    assert used["bob"] is None
    assert used["alice"] is not None and abs(utcnow() - used["alice"]) < dt.timedelta(minutes=5)


def test_the_verify_access_token_hook_decides(app: Flask, testapp: TestApp, world: World) -> None:
    service = app.extensions["coverage"].service
    seen: list[str] = []

    @service.verify_access_token
    def verify(token: str) -> Any:
        from flask_coverage.queries.repositories import get_owner

        seen.append(token)
        return get_owner("github", "alice") if token == "open-sesame" else None

    assert get(testapp, url("alice", "site"), "open-sesame", 200).json["repo"]["name"] == "site"
    assert_error(get(testapp, url("alice", "site"), world.alice, 401), 401)
    assert seen == ["open-sesame", world.alice]


@pytest.mark.parametrize(
    "path",
    [
        url("alice", "si%00te"),
        url("al%00ice", "site"),
        url("alice", "x" * 5000),
        url("alice", "%E2%80%8Bsite"),
        url("alice", "%ED%A0%80"),
        url("alice", "site%0A"),
        url("'; DROP TABLE coverage_owner; --", "site"),
        url("alice", "s%25i%5Fte"),
    ],
)
def test_odd_names_are_404_never_500(testapp: TestApp, world: World, path: str) -> None:
    assert_error(get(testapp, path, world.alice, 404), 404)
    get(testapp, url("alice", "site"), world.alice, 200)


def test_odd_tokens_are_401_never_500(testapp: TestApp, world: World) -> None:
    for token in ["\x00", "a" * 10_000, "é" * 10, "%00"]:
        assert_error(testapp.get(url("alice", "site"), {"access_token": token}, status=401), 401)
    assert_error(get(testapp, url("alice", "site"), "x" * 10_000, 401), 401)
    assert_error(get(testapp, url("alice", "site"), "\xe9\xff", 401), 401)


def test_other_methods_are_not_allowed(testapp: TestApp, world: World) -> None:
    testapp.post(url("alice", "site"), headers={"Authorization": world.alice}, status=405)
    testapp.delete(url("alice", "site"), headers={"Authorization": world.alice}, status=405)


def test_head_answers_like_get_without_a_body(testapp: TestApp, world: World) -> None:
    response = testapp.head(url("alice", "site"), headers={"Authorization": world.alice}, status=200)
    assert response.body == b""


def test_the_token_is_checked_before_the_provider(testapp: TestApp, world: World) -> None:
    assert_error(get(testapp, url("alice", "site", "xx"), None, 401), 401)
    response = get(testapp, url("alice", "site", "xx"), world.alice, 404)
    assert response.json["error"]["reason"] == "Unknown provider. Expected one of: gh, gl, bb, ghe, gle, bbs."
