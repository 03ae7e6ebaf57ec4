"""``GET {COVERAGE_API_URL_PREFIX}/{service}/``: the owners the caller has access to (docs/api.md)."""

from __future__ import annotations

import random

import pytest

from flask_coverage.auth import generate_token, hash_token
from flask_coverage.models import AccessToken, Membership, Owner, ServiceEnum
from flask_coverage.state import get_session

ORGS = ["acme", "Beta", "zeta-corp", "Delta", "omega"]


@pytest.fixture
def owners(app) -> dict:
    """``pat`` on GitHub, a member of some ORGS (activated or not), one org pat is not in, an org of the same
    name on GitLab that pat belongs to there too; a token for pat and one for ``solo`` (no organization)."""
    rng = random.Random(38)
    session = get_session()
    pat = Owner(service=ServiceEnum.github, username="pat", name="Pat")
    solo = Owner(service=ServiceEnum.github, username="solo", name=None)
    member_of = []
    for name in ORGS:
        org = Owner(service=ServiceEnum.github, username=name, name=name.title(), is_org=True)
        if name != "omega":
            session.add(Membership(org=org, user=pat, activated=rng.random() < 0.5, is_admin=False))
            member_of.append(name)
        session.add(org)
    elsewhere = Owner(service=ServiceEnum.gitlab, username="acme", name="GitLab Acme", is_org=True)
    session.add(Membership(org=elsewhere, user=pat, activated=True))
    tokens = {}
    for user in (pat, solo):
        tokens[user.username] = generate_token()
        session.add(AccessToken(owner=user, name="ci", token_hash=hash_token(tokens[user.username])))
    session.commit()
    return {"tokens": tokens, "member_of": member_of}


def get(testapp, token, url="/api/v2/github/", status=200, **params):
    return testapp.get(url, params=params, headers={"Authorization": f"Bearer {token}"}, status=status)


def test_the_caller_and_its_organizations_on_the_service_by_username(testapp, owners) -> None:
    body = get(testapp, owners["tokens"]["pat"]).json
    expected = sorted(["pat", *owners["member_of"]], key=str.lower)
    assert set(body) == {"count", "next", "previous", "results", "total_pages"}
    assert body["count"] == len(expected) and body["total_pages"] == 1
    assert [owner["username"] for owner in body["results"]] == expected
    assert body["results"][0] == {"service": "github", "username": "acme", "name": "Acme"}
    assert {"service": "github", "username": "pat", "name": "Pat"} in body["results"]
    # The GitLab organization is listed on GitLab only.
    gitlab = get(testapp, owners["tokens"]["pat"], "/api/v2/gitlab/").json["results"]
    assert gitlab == [{"service": "gitlab", "username": "acme", "name": "GitLab Acme"}]
    assert get(testapp, owners["tokens"]["solo"]).json["results"] == [
        {"service": "github", "username": "solo", "name": None}
    ]


def test_pages_cover_the_list_once(testapp, owners) -> None:
    token = owners["tokens"]["pat"]
    whole = [owner["username"] for owner in get(testapp, token).json["results"]]
    seen, page = [], get(testapp, token, page_size=2).json
    while True:
        seen += [owner["username"] for owner in page["results"]]
        if page["next"] is None:
            break
        page = testapp.get(page["next"], headers={"Authorization": f"Bearer {token}"}).json
    assert seen == whole and page["total_pages"] == (len(whole) + 1) // 2
    assert get(testapp, token, status=404, page=99).json == {"detail": "Invalid page."}


def test_a_token_is_required_and_an_unknown_service_is_the_404(testapp, owners) -> None:
    assert testapp.get("/api/v2/github/", status=401).headers["WWW-Authenticate"] == "Bearer"
    assert get(testapp, "not-a-token", status=401).json["detail"]
    assert get(testapp, owners["tokens"]["pat"], "/api/v2/gh/", status=404).json == {"detail": "Not found."}


def test_in_the_openapi_document(testapp) -> None:
    operation = testapp.get("/api/v2/openapi.json").json["paths"]["/api/v2/{service}/"]["get"]
    assert operation["operationId"] == "owners_list"
    assert set(operation["responses"]) == {"200", "400", "401", "404"}
