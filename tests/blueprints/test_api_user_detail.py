"""``GET`` and ``PATCH {COVERAGE_API_URL_PREFIX}/{service}/{owner}/users/{username}/`` (docs/api.md)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from test_api_users import MEMBERS, URL, acme, bearer  # noqa: F401 (acme is a fixture)

from flask_coverage.models import Membership, Owner, ServiceEnum
from flask_coverage.state import get_session

NOT_FOUND = {"detail": "Not found."}


@pytest.fixture
def globex(acme) -> None:  # noqa: F811
    """A second organization, ``globex``, whose member ``gus`` is not in acme."""
    session = get_session()
    org = Owner(service=ServiceEnum.github, username="globex", is_org=True)
    session.add(Membership(org=org, user=Owner(service=ServiceEnum.github, username="gus"), activated=False))
    session.commit()


def memberships(snapshot) -> list:
    return snapshot()["coverage_membership"]


def test_one_member_as_the_list_shows_it(testapp, acme) -> None:  # noqa: F811
    listed = testapp.get(URL, headers=bearer(acme["alice"])).json["results"]
    assert len(listed) == len(MEMBERS)
    for user in listed:
        one = testapp.get(f"{URL}{quote(user['username'])}/", headers=bearer(acme["Bob"])).json
        assert one == user
    # Usernames are case-insensitive.
    assert testapp.get(f"{URL}bOB/", headers=bearer(acme["alice"])).json["username"] == "Bob"


def test_the_same_404_for_an_unknown_user_an_outsider_and_a_member_of_another_org(testapp, acme, globex) -> None:  # noqa: F811
    member = bearer(acme["alice"])
    for url in [f"{URL}nobody/", f"{URL}mallory/", f"{URL}gus/", "/api/v2/github/nowhere/users/alice/"]:
        assert testapp.get(url, headers=member, status=404).json == NOT_FOUND
    # A caller who may not list the members: the same 404, even for a real member.
    for who in ("mallory", "carol_x"):
        assert testapp.get(f"{URL}alice/", headers=bearer(acme[who]), status=404).json == NOT_FOUND
    assert testapp.get(f"{URL}alice/", status=401).headers["WWW-Authenticate"] == "Bearer"


def test_an_admin_activates_and_deactivates_a_member(testapp, acme) -> None:  # noqa: F811
    admin = bearer(acme["alice"])
    answer = testapp.patch_json(f"{URL}carol_x/", {"activated": True}, headers=admin).json
    assert answer == testapp.get(f"{URL}carol_x/", headers=admin).json
    assert answer["activated"] is True and answer["username"] == "carol_x"
    # Now activated, carol reads the members; deactivated again, she does not.
    assert testapp.get(URL, headers=bearer(acme["carol_x"])).json["count"] == len(MEMBERS)
    assert testapp.patch_json(f"{URL}CAROL_X/", {"activated": False}, headers=admin).json["activated"] is False
    testapp.get(URL, headers=bearer(acme["carol_x"]), status=404)


def test_refusals_change_nothing(testapp, acme, globex, snapshot) -> None:  # noqa: F811
    before = memberships(snapshot)
    admin = bearer(acme["alice"])
    # Another organization's user, an unknown one, an outsider caller: the 404.
    for url, headers in [
        (f"{URL}gus/", admin),
        (f"{URL}nobody/", admin),
        (f"{URL}carol_x/", bearer(acme["mallory"])),
        ("/api/v2/github/globex/users/gus/", admin),
    ]:
        assert testapp.patch_json(url, {"activated": True}, headers=headers, status=404).json == NOT_FOUND
    # A member who is not an admin (dave is an admin, but not activated: he may not even list them).
    response = testapp.patch_json(f"{URL}carol_x/", {"activated": True}, headers=bearer(acme["Bob"]), status=403)
    assert response.json == {"detail": "You do not have permission to perform this action."}
    testapp.patch_json(f"{URL}carol_x/", {"activated": True}, headers=bearer(acme["dave"]), status=404)
    testapp.patch_json(f"{URL}carol_x/", {"activated": True}, status=401)
    # Bad bodies: a 400 naming the field.
    for body in [{}, {"activated": "yes"}, {"activated": 1}, {"activated": True, "is_admin": True}]:
        response = testapp.patch_json(f"{URL}carol_x/", body, headers=admin, status=400)
        assert response.json["errors"]
    for raw in [b"[true]", b"not json", b"", b'{"activated": true' + b" " * 70000 + b"}"]:
        response = testapp.patch(
            f"{URL}carol_x/", raw, headers={**admin, "Content-Type": "application/json"}, status=400
        )
        assert response.json["detail"]
    assert memberships(snapshot) == before
    # The other methods stay refused, and OPTIONS says which are allowed.
    assert testapp.delete(f"{URL}carol_x/", headers=admin, status=405).headers["Allow"] == "GET, HEAD, OPTIONS, PATCH"
    assert testapp.options(f"{URL}carol_x/").headers["Allow"] == "GET, HEAD, OPTIONS, PATCH"
    assert testapp.options(URL).headers["Allow"] == "GET, HEAD, OPTIONS"


def test_in_the_openapi_document(testapp) -> None:
    path = testapp.get("/api/v2/openapi.json").json["paths"]["/api/v2/{service}/{owner_username}/users/{username}/"]
    assert (path["get"]["operationId"], path["patch"]["operationId"]) == ("users_retrieve", "users_partial_update")
    assert set(path["patch"]["responses"]) == {"200", "400", "401", "403", "404"}
    assert path["patch"]["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("UserActivation")
