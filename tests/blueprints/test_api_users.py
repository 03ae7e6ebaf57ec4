"""``GET {COVERAGE_API_URL_PREFIX}/{service}/{owner_username}/users/``, over WebTest (docs/api.md)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
import sqlalchemy as sa

from flask_coverage.auth import generate_token, hash_token
from flask_coverage.models import AccessToken, Membership, Owner, ServiceEnum
from flask_coverage.operations import add_org, revoke_token
from flask_coverage.queries.repositories import get_owner
from flask_coverage.state import get_engine, get_session

URL = "/api/v2/github/acme/users/"
USER_FIELDS = {"service", "username", "name", "activated", "is_admin", "email"}
# (username, name, email, activated, admin): names that sort differently by case, code point and collation.
MEMBERS = [
    ("alice", "Alice Liddell", "alice@wonder.example", True, True),
    ("Bob", "Bob Builder", "bob@build.example", True, False),
    ("carol_x", "Carol 100%", None, False, False),
    ("cy-young", None, "CY@example.org", True, False),
    ("dave", "Dave Grohl", "dave@foo.example", False, True),
    ("Zoë", "Zoë Ω", "zoe@example.org", True, False),
]


@pytest.fixture
def acme(app) -> dict[str, str]:
    """Organization ``acme`` with the MEMBERS, and a token per member (plus an outsider, ``mallory``).

    Written in one commit: one commit per row would make every test wait for the disk.
    """
    session = get_session()
    org = Owner(service=ServiceEnum.github, username="acme", name="Acme Inc", is_org=True)
    tokens = {}
    for username, name, email, activated, admin in [*MEMBERS, ("mallory", "Alice Mallory", None, None, None)]:
        user = Owner(service=ServiceEnum.github, username=username, name=name, email=email)
        if activated is not None:
            session.add(Membership(org=org, user=user, activated=activated, is_admin=admin))
        tokens[username] = generate_token()
        session.add(AccessToken(owner=user, name="ci", token_hash=hash_token(tokens[username])))
    session.commit()
    return tokens


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def get_users(testapp, token: str, url: str = URL, status: int = 200, **params):
    return testapp.get(url, params=params, headers=bearer(token), status=status)


def usernames(response) -> list[str]:
    return [user["username"] for user in response.json["results"]]


def assert_error(response, status: int, detail: str) -> None:
    assert response.status_int == status
    assert response.content_type == "application/json"
    assert response.json["detail"] == detail


# --- 200: the body -------------------------------------------------------------------------------


def test_a_member_lists_every_member_with_the_user_fields_and_types(testapp, acme) -> None:
    response = get_users(testapp, acme["alice"])
    assert response.content_type == "application/json"
    body = response.json
    assert set(body) == {"count", "next", "previous", "results", "total_pages"}
    assert body["count"] == len(MEMBERS)
    assert body["next"] is None and body["previous"] is None and body["total_pages"] == 1
    by_name = {user["username"]: user for user in body["results"]}
    assert set(by_name) == {member[0] for member in MEMBERS}
    for username, name, email, activated, admin in MEMBERS:
        user = by_name[username]
        assert set(user) == USER_FIELDS
        assert user == {
            "service": "github",
            "username": username,
            "name": name,
            "activated": activated,
            "is_admin": admin,
            "email": email,
        }
        assert isinstance(user["activated"], bool) and isinstance(user["is_admin"], bool)


def test_order_is_the_username_case_insensitive(testapp, acme) -> None:
    assert usernames(get_users(testapp, acme["alice"])) == ["alice", "Bob", "carol_x", "cy-young", "dave", "Zoë"]


def test_pages_are_stable_and_cover_the_list_once(testapp, acme) -> None:
    everyone = usernames(get_users(testapp, acme["alice"]))
    seen = []
    for page in (1, 2, 3):
        seen += usernames(get_users(testapp, acme["alice"], page=page, page_size=2))
    assert seen == everyone
    again = usernames(get_users(testapp, acme["Bob"], page=2, page_size=2))
    assert again == everyone[2:4]


def test_next_and_previous_are_absolute_and_keep_the_other_arguments(testapp, acme) -> None:
    first = get_users(testapp, acme["alice"], url=URL + "?page_size=2&activated=true&x=%C3%A9").json
    assert first["count"] == 4 and first["total_pages"] == 2 and first["previous"] is None
    link = urlsplit(first["next"])
    assert f"{link.scheme}://{link.netloc}{link.path}" == "http://localhost" + URL
    assert parse_qsl(link.query) == [("page_size", "2"), ("activated", "true"), ("x", "é"), ("page", "2")]

    second = testapp.get(first["next"], headers=bearer(acme["alice"])).json
    assert second["next"] is None
    assert parse_qsl(urlsplit(second["previous"]).query) == [
        ("page_size", "2"),
        ("activated", "true"),
        ("x", "é"),
        ("page", "1"),
    ]
    both = [user["username"] for user in first["results"] + second["results"]]
    assert both == ["alice", "Bob", "cy-young", "Zoë"]


def test_links_are_ascii_uris_that_lead_back_to_an_unusual_owner_name(testapp, acme) -> None:
    session = get_session()
    org = Owner(service=ServiceEnum.github, username="Acmé%20Co", is_org=True)
    session.add_all(Membership(org=org, user=get_owner("github", name), activated=True) for name in ("alice", "bob"))
    session.commit()
    url = "/api/v2/github/acm%C3%A9%2520co/users/"
    first = get_users(testapp, acme["alice"], url=url + "?page_size=1&q=%E2%9C%93").json
    assert first["count"] == 2
    assert first["next"] == "http://localhost" + url + "?page_size=1&q=%E2%9C%93&page=2"
    second = testapp.get(first["next"], headers=bearer(acme["alice"])).json
    assert second["previous"] == "http://localhost" + url + "?page_size=1&q=%E2%9C%93&page=1"
    assert usernames_of(first) + usernames_of(second) == ["alice", "Bob"]


def test_a_middle_page_links_both_ways(testapp, acme) -> None:
    body = get_users(testapp, acme["alice"], page=2, page_size=2).json
    assert dict(parse_qsl(urlsplit(body["previous"]).query)) == {"page": "1", "page_size": "2"}
    assert dict(parse_qsl(urlsplit(body["next"]).query)) == {"page": "3", "page_size": "2"}


def test_page_size_defaults_to_the_config_and_is_clamped_to_the_maximum(app, testapp, acme) -> None:
    app.config.update(COVERAGE_PAGE_SIZE=4, COVERAGE_MAX_PAGE_SIZE=5)
    default = get_users(testapp, acme["alice"]).json
    assert len(default["results"]) == 4 and default["total_pages"] == 2
    clamped = get_users(testapp, acme["alice"], page_size=1000).json
    assert len(clamped["results"]) == 5 and clamped["total_pages"] == 2
    # The link keeps the argument as the client sent it; the next page is clamped the same way.
    assert dict(parse_qsl(urlsplit(clamped["next"]).query)) == {"page": "2", "page_size": "1000"}
    assert usernames(testapp.get(clamped["next"], headers=bearer(acme["alice"]))) == ["Zoë"]


def test_owner_names_are_case_insensitive(testapp, acme) -> None:
    assert get_users(testapp, acme["alice"], url="/api/v2/github/ACME/users/").json["count"] == len(MEMBERS)


def test_unknown_query_arguments_are_ignored(testapp, acme) -> None:
    assert get_users(testapp, acme["alice"], ordering="-name", foo="").json["count"] == len(MEMBERS)


def test_head_answers_like_get_without_a_body(testapp, acme) -> None:
    response = testapp.head(URL, headers=bearer(acme["alice"]), status=200)
    assert response.content_type == "application/json" and response.body == b""


# --- filters and search --------------------------------------------------------------------------


FILTER_CASES = [
    ({"activated": "true"}, ["alice", "Bob", "cy-young", "Zoë"]),
    ({"activated": "FALSE"}, ["carol_x", "dave"]),
    ({"activated": "1"}, ["alice", "Bob", "cy-young", "Zoë"]),
    ({"is_admin": "True"}, ["alice", "dave"]),
    ({"is_admin": "0"}, ["Bob", "carol_x", "cy-young", "Zoë"]),
    ({"activated": "true", "is_admin": "false"}, ["Bob", "cy-young", "Zoë"]),
    ({"activated": "false", "is_admin": "true"}, ["dave"]),
]


def test_activated_and_is_admin_filter_on_the_membership_flags(testapp, acme) -> None:
    for params, expected in FILTER_CASES:
        body = get_users(testapp, acme["alice"], **params).json
        assert (usernames_of(body), body["count"]) == (expected, len(expected)), params


def usernames_of(body) -> list[str]:
    return [user["username"] for user in body["results"]]


SEARCH_CASES = [
    ("BOB", ["Bob"]),  # username, any case
    ("liddell", ["alice"]),  # name
    ("@example.org", ["cy-young", "Zoë"]),  # email
    ("cy@", ["cy-young"]),  # email stored in upper case
    ("ZOë", ["Zoë"]),  # non-ASCII username (SQLite folds the case of ASCII letters only)
    ("alice wonder", ["alice"]),  # every term must match ...
    ("carol 100", ["carol_x"]),  # ... each in any field
    ("alice bob", []),
    ("%", ["carol_x"]),  # % is literal: only "Carol 100%" contains it
    ("_", ["carol_x"]),  # _ is literal: only "carol_x" contains it
    ("carol_", ["carol_x"]),
    ("o/b", []),  # the LIKE escape character is literal too
    ("  \t ", ["alice", "Bob", "carol_x", "cy-young", "dave", "Zoë"]),  # blank: no filter
    ("", ["alice", "Bob", "carol_x", "cy-young", "dave", "Zoë"]),
]


def test_search_matches_every_term_in_username_name_or_email(testapp, acme) -> None:
    for search, expected in SEARCH_CASES:
        body = get_users(testapp, acme["alice"], search=search).json
        assert (usernames_of(body), body["count"]) == (expected, len(expected)), search


def test_search_filters_and_pages_combine(testapp, acme) -> None:
    body = get_users(testapp, acme["alice"], search="example.org", activated="true", page=2, page_size=1).json
    assert body["count"] == 2 and usernames_of(body) == ["Zoë"] and body["next"] is None
    assert dict(parse_qsl(urlsplit(body["previous"]).query)) == {
        "search": "example.org",
        "activated": "true",
        "page": "1",
        "page_size": "1",
    }


def test_outsiders_are_never_listed_even_when_the_search_matches_them(testapp, acme) -> None:
    assert usernames(get_users(testapp, acme["alice"], search="alice")) == ["alice"]


def test_only_members_on_the_organizations_service_are_listed_and_counted(testapp, acme) -> None:
    session = get_session()
    stray = Owner(service=ServiceEnum.gitlab, username="aaron")
    session.add(Membership(org=get_owner("github", "acme"), user=stray, activated=True))
    session.commit()
    body = get_users(testapp, acme["alice"]).json
    assert body["count"] == len(MEMBERS) and "aaron" not in usernames_of(body)


# --- who may list --------------------------------------------------------------------------------


def test_every_activated_member_may_list_whatever_their_admin_flag(testapp, acme) -> None:
    for username in ("alice", "Bob"):  # admin, plain member
        assert get_users(testapp, acme[username]).json["count"] == len(MEMBERS)


def test_a_deactivated_member_gets_the_outsiders_404(testapp, acme) -> None:
    outsider = get_users(testapp, acme["mallory"], status=404)
    for username in ("carol_x", "dave"):  # not activated: plain, admin
        deactivated = get_users(testapp, acme[username], status=404)
        assert deactivated.json == outsider.json == {"detail": "Not found."}
        assert deactivated.body == outsider.body and deactivated.headers == outsider.headers


def test_outsiders_get_the_same_404_as_for_an_unknown_owner(testapp, acme) -> None:
    outsider = get_users(testapp, acme["mallory"], status=404)
    unknown = get_users(testapp, acme["mallory"], url="/api/v2/github/no-such-org/users/", status=404)
    assert outsider.json == unknown.json == {"detail": "Not found."}
    assert outsider.headers["Content-Length"] == unknown.headers["Content-Length"]


def test_an_org_of_the_same_name_on_another_service_is_another_owner(testapp, acme) -> None:
    add_org("gitlab", "acme")
    assert_error(get_users(testapp, acme["alice"], url="/api/v2/gitlab/acme/users/", status=404), 404, "Not found.")


def test_the_orgs_own_account_may_list_its_members(app, testapp, acme) -> None:
    # Organizations have no access tokens, so a host app signs the org in through its own hook.
    @app.extensions["coverage"].service.verify_token
    def verify(token):
        return get_owner("github", "acme") if token == "org-session" else None

    assert get_users(testapp, "org-session").json["count"] == len(MEMBERS)


def test_a_user_owner_lists_no_members_and_others_cannot_see_it(testapp, acme) -> None:
    own = get_users(testapp, acme["alice"], url="/api/v2/github/alice/users/").json
    assert own == {"count": 0, "next": None, "previous": None, "results": [], "total_pages": 1}
    assert_error(get_users(testapp, acme["Bob"], url="/api/v2/github/alice/users/", status=404), 404, "Not found.")


def test_a_service_outside_the_enum_is_a_404(testapp, acme) -> None:
    for service in ("gh", "GitHub", "svn", "github%00", "%F0%9F%98%80"):
        response = get_users(testapp, acme["alice"], url=f"/api/v2/{service}/acme/users/", status=404)
        assert_error(response, 404, "Not found.")


# --- 401 -----------------------------------------------------------------------------------------


BAD_CREDENTIALS = [
    (None, "Authentication credentials were not provided."),
    ("Basic YWxpY2U6c2VjcmV0", "Invalid token header. Expected 'Authorization: Bearer <token>'."),
    ("Bearer", "Invalid token header. Expected 'Authorization: Bearer <token>'."),
    ("Bearer two words", "Invalid token header. Expected 'Authorization: Bearer <token>'."),
    ("Token {token}", "Invalid token header. Expected 'Authorization: Bearer <token>'."),
    ("{token}", "Invalid token header. Expected 'Authorization: Bearer <token>'."),
    ("Bearer 00000000-0000-4000-8000-000000000000", "Invalid token."),
    ("Bearer " + "x" * 5000, "Invalid token."),
]


def test_missing_malformed_or_unknown_credentials_are_a_401(testapp, acme) -> None:
    for header, detail in BAD_CREDENTIALS:
        headers = {} if header is None else {"Authorization": header.format(token=acme["alice"])}
        response = testapp.get(URL, headers=headers, status=401)
        assert_error(response, 401, detail)
        assert response.headers["WWW-Authenticate"] == "Bearer"


def test_the_scheme_word_is_case_insensitive(testapp, acme) -> None:
    for scheme in ("bearer", "BEARER", "bEaReR"):
        response = testapp.get(URL, headers={"Authorization": f"{scheme} {acme['alice']}"}, status=200)
        assert response.json["count"] == len(MEMBERS)


def test_a_revoked_token_is_a_401_at_once(testapp, acme) -> None:
    get_users(testapp, acme["alice"])
    revoke_token("github", "alice", name="ci")
    response = get_users(testapp, acme["alice"], status=401)
    assert_error(response, 401, "Invalid token.")
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_401_comes_before_anything_about_the_owner(testapp, acme) -> None:
    for url in (URL, "/api/v2/github/no-such-org/users/", "/api/v2/svn/acme/users/?page=0"):
        assert testapp.get(url, status=401).json == {"detail": "Authentication credentials were not provided."}


def test_the_default_hook_records_when_a_token_was_used(testapp, acme) -> None:
    def last_used():
        get_session().expire_all()
        query = sa.select(AccessToken.last_used).join(Owner).where(Owner.username == "alice")
        return get_session().execute(query).scalar_one()

    assert last_used() is None
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(seconds=1)
    get_users(testapp, acme["alice"])
    assert last_used() >= before


def test_a_host_app_swaps_in_its_own_token_check_with_one_decorator(app, testapp, acme) -> None:
    service_tokens = {"s3cr3t-for-bob": ("github", "Bob")}

    @app.extensions["coverage"].service.verify_token
    def verify(token):
        found = service_tokens.get(token)
        return get_owner(*found) if found else None

    assert get_users(testapp, "s3cr3t-for-bob").json["count"] == len(MEMBERS)
    # The database tokens are no longer consulted: the hook alone decides.
    assert_error(get_users(testapp, acme["alice"], status=401), 401, "Invalid token.")
    assert_error(get_users(testapp, "s3cr3t-for-eve", status=401), 401, "Invalid token.")


# --- 400 -----------------------------------------------------------------------------------------


NAME_RULE = (
    "A name must not contain control, format (bidirectional, zero-width) or line-separator characters (it holds U+%s)."
)
BAD_ARGUMENTS = [
    ({"activated": "yes"}, {"activated": ["Not a valid boolean."]}),
    ({"activated": ""}, {"activated": ["Not a valid boolean."]}),
    ({"is_admin": "2"}, {"is_admin": ["Not a valid boolean."]}),
    ({"is_admin": "t"}, {"is_admin": ["Not a valid boolean."]}),
    ({"page": "abc"}, {"page": ["Not a valid integer."]}),
    ({"page": "1.0"}, {"page": ["Not a valid integer."]}),
    ({"page": ""}, {"page": ["Not a valid integer."]}),
    ({"page": "0"}, {"page": ["Must be greater than or equal to 1."]}),
    ({"page": "-3"}, {"page": ["Must be greater than or equal to 1."]}),
    ({"page_size": "0"}, {"page_size": ["Must be greater than or equal to 1."]}),
    ({"page_size": "ten"}, {"page_size": ["Not a valid integer."]}),
    ({"search": "a\x00b"}, {"search": [NAME_RULE % "0000"]}),
    ({"search": "a \u202eb"}, {"search": [NAME_RULE % "202E"]}),
    ({"search": "x" * 201}, {"search": ["Longer than maximum length 200."]}),
]


def test_bad_arguments_are_one_400_naming_the_field(testapp, acme) -> None:
    for params, errors in BAD_ARGUMENTS:
        response = get_users(testapp, acme["alice"], status=400, **params)
        assert response.content_type == "application/json"
        assert response.json == {"detail": "Invalid query parameters.", "errors": errors}


def test_every_bad_argument_is_named_in_the_same_400(testapp, acme) -> None:
    body = get_users(
        testapp, acme["alice"], status=400, activated="maybe", is_admin="no", page="x", page_size="-1"
    ).json
    assert set(body["errors"]) == {"activated", "is_admin", "page", "page_size"}


# --- 404 for pages, 405 --------------------------------------------------------------------------


def test_a_page_past_the_last_is_a_404_invalid_page(testapp, acme) -> None:
    for page in ("3", "4", str(2**63), "9" * 400, "9" * 10000):
        assert_error(get_users(testapp, acme["alice"], page=page, page_size=3, status=404), 404, "Invalid page.")


def test_page_one_of_an_empty_list_is_a_200_with_count_0(testapp, acme) -> None:
    body = get_users(testapp, acme["alice"], search="nobody-matches-this").json
    assert body == {"count": 0, "next": None, "previous": None, "results": [], "total_pages": 1}
    assert_error(get_users(testapp, acme["alice"], search="nobody", page=2, status=404), 404, "Invalid page.")


def test_other_methods_are_a_json_405_with_allow(testapp, acme) -> None:
    for method in ("post", "put", "patch", "delete"):
        response = getattr(testapp, method)(URL, headers=bearer(acme["alice"]), status=405)
        assert_error(response, 405, f'Method "{method.upper()}" not allowed.')
        assert response.headers["Allow"] == "GET, HEAD, OPTIONS"


def test_options_lists_the_allowed_methods(testapp) -> None:
    response = testapp.options(URL, status=200)
    assert response.headers["Allow"] == "GET, HEAD, OPTIONS"


# --- never a 500 ---------------------------------------------------------------------------------


HOSTILE_URLS = [
    ("/api/v2/github/ac%00me/users/", 404),
    ("/api/v2/github/" + "a" * 5000 + "/users/", 404),
    ("/api/v2/github/%20acme/users/", 404),
    ("/api/v2/github/acme%09/users/", 404),
    ("/api/v2/github/%E2%80%AEacme/users/", 404),
    ("/api/v2/github/a%2Fb/users/", 404),
    ("/api/v2/github/%FF%FE/users/", 404),
    ("/api/v2/github/acme/users/?search=%FF%FE", 200),
    ("/api/v2/github/acme/users/?search=%F0%9F%98%80+%E2%80%AE", 400),  # U+202E: the name rule
    ("/api/v2/github/acme/users/?search=%F0%9F%98%80", 200),
    ("/api/v2/github/acme/users/?search=" + "%25" * 200, 200),
    ("/api/v2/github/acme/users/?search=" + "a+" * 100, 200),
    ("/api/v2/github/acme/users/?page=%00", 400),
    ("/api/v2/github/acme/users/?page=%D9%A1", 400),  # ARABIC-INDIC DIGIT ONE
    ("/api/v2/github/acme/users/?page=1&page=x", 200),
    ("/api/v2/github/acme/users/?page_size=" + "9" * 50, 200),
    ("/api/v2/github/acme/users/?activated=%EF%BC%B4RUE", 400),  # FULLWIDTH LATIN CAPITAL LETTER T
    ("/api/v2/github/acme/users/?activated=%E2%84%AArue", 400),  # KELVIN SIGN lower-cases to "k"
]


def test_hostile_input_never_gets_a_500(testapp, acme) -> None:
    for url, status in HOSTILE_URLS:
        response = testapp.get(url, headers=bearer(acme["alice"]), status=status)
        assert response.content_type == "application/json", url


# --- queries -------------------------------------------------------------------------------------


def count_queries(testapp, token: str, **params) -> list[str]:
    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement)

    engine = get_engine()
    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        get_users(testapp, token, **params)
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    return statements


@pytest.mark.parametrize("params", [{}, {"search": "user", "activated": "true", "page": "2", "page_size": "2"}])
def test_the_number_of_queries_does_not_grow_with_the_members(testapp, acme, params) -> None:
    org = get_owner("github", "acme")
    session = get_session()

    def add_members(count: int) -> None:
        start = session.execute(sa.select(sa.func.count()).select_from(Owner)).scalar_one()
        users = [Owner(service=ServiceEnum.github, username=f"user{start + i}") for i in range(count)]
        session.add_all(users)
        session.flush()
        session.add_all(Membership(org_id=org.id, user_id=u.id, activated=True) for u in users)
        session.commit()

    add_members(5)
    count_queries(testapp, acme["alice"], **params)  # the token's first use writes last_used
    few = count_queries(testapp, acme["alice"], **params)
    add_members(45)
    many = count_queries(testapp, acme["alice"], **params)
    assert len(few) == len(many)
    # The members are counted in SQL, and only one page of them is fetched.
    assert sum("count(" in statement.lower() for statement in many) == 1
    assert sum("LIMIT" in statement and "coverage_membership" in statement for statement in many) == 1


def test_every_page_costs_the_same_queries(testapp, acme) -> None:
    get_users(testapp, acme["alice"])  # the token's first use writes last_used
    pages = [count_queries(testapp, acme["alice"], page=page, page_size=2) for page in (1, 2, 3)]
    searched = [count_queries(testapp, acme["alice"], search="e", page=page, page_size=1) for page in (1, 2, 3)]
    assert len({len(statements) for statements in pages + searched}) == 1


def test_the_count_and_the_page_read_the_membership_index_alone(app, testapp, acme) -> None:
    # The shape of the ideal SQL: the count and the page of keys never touch coverage_owner; only the
    # page (a subquery with LIMIT) is joined to the owners.
    statements = count_queries(testapp, acme["alice"], activated="true", page=2, page_size=2)
    count, page = [s for s in statements if "coverage_membership" in s and ("count(" in s or "LIMIT" in s)]
    assert "coverage_owner" not in count
    keys = page[page.index("(SELECT") : page.index("LIMIT")]
    assert "coverage_owner" not in keys and "sort_key" in keys


# --- the order stays true when usernames change -------------------------------------------------


def all_usernames(testapp, token: str, page_size: int = 2) -> list[str]:
    """Every member, read page by page (so that a wrong key would also misplace a page boundary)."""
    seen, page = [], 1
    while True:
        body = get_users(testapp, token, page=page, page_size=page_size).json
        seen += usernames_of(body)
        if body["next"] is None:
            return seen
        page += 1


def test_renaming_a_user_keeps_the_order_right(testapp, acme) -> None:
    session = get_session()
    get_owner("github", "alice").username = "Yolanda"
    get_owner("github", "Zoë").username = "aaron"
    session.commit()
    expected = ["aaron", "Bob", "carol_x", "cy-young", "dave", "Yolanda"]
    assert all_usernames(testapp, acme["Bob"]) == expected
    assert usernames(get_users(testapp, acme["Bob"], search="y")) == ["cy-young", "Yolanda"]
    # Only the case changes: the key is the same, the name shown is the new one.
    get_owner("github", "BOB").username = "BOB"
    session.commit()
    assert all_usernames(testapp, acme["Bob"], page_size=4) == ["aaron", "BOB", *expected[2:]]


def test_renaming_the_organization_keeps_its_members_in_order(testapp, acme) -> None:
    get_owner("github", "acme").username = "Zeta-Corp"
    get_session().commit()
    url = "/api/v2/github/zeta-corp/users/"
    assert usernames(get_users(testapp, acme["alice"], url=url)) == [member[0] for member in MEMBERS]


def test_moving_a_user_to_another_service_drops_them_from_the_list_and_back(testapp, acme) -> None:
    session = get_session()
    dave = get_owner("github", "dave")
    dave.service = ServiceEnum.gitlab
    session.commit()
    body = get_users(testapp, acme["alice"]).json
    assert body["count"] == len(MEMBERS) - 1 and "dave" not in usernames_of(body)
    assert get_users(testapp, acme["alice"], search="dave").json["count"] == 0
    dave.service = ServiceEnum.github
    session.commit()
    assert usernames(get_users(testapp, acme["alice"])) == [member[0] for member in MEMBERS]


def test_a_membership_moved_to_another_user_takes_that_users_place(testapp, acme) -> None:
    session = get_session()
    newcomer = Owner(service=ServiceEnum.github, username="Aardvark")
    session.add(newcomer)
    session.flush()
    membership = session.execute(
        sa.select(Membership).where(Membership.user_id == get_owner("github", "Zoë").id)
    ).scalar_one()
    membership.user_id = newcomer.id
    session.commit()
    assert usernames(get_users(testapp, acme["alice"])) == ["Aardvark", "alice", "Bob", "carol_x", "cy-young", "dave"]


def test_the_migration_of_changes_md_fills_the_keys_of_an_existing_database(app, testapp, acme) -> None:
    changes = (Path(__file__).parents[2] / "CHANGES.md").read_text(encoding="utf-8")
    migration = changes.split("**Migrating an existing database**")[1].split("```sql")[1].split("```")[0]
    statements = [statement.strip() for statement in migration.split(";") if statement.strip()]
    assert [s.split()[0] for s in statements] == ["ALTER", "UPDATE", "CREATE"]
    with get_engine().begin() as connection:
        # The database as it was before: no sort key, no index.
        connection.execute(sa.text("DROP INDEX ix_coverage_membership_org_sort_key"))
        connection.execute(sa.text("ALTER TABLE coverage_membership DROP COLUMN sort_key"))
        before = connection.execute(sa.text("SELECT * FROM coverage_membership ORDER BY id")).all()
        for statement in statements:
            connection.execute(sa.text(statement))
        after = connection.execute(sa.text("SELECT * FROM coverage_membership ORDER BY id")).all()
    assert [row[:-1] for row in after] == before  # every other column as it was
    assert all_usernames(testapp, acme["alice"]) == [member[0] for member in MEMBERS]


def test_a_search_on_postgresql_plans_around_the_index_it_cannot_use(app, acme, monkeypatch) -> None:
    # The planner trick of queries.lists (unindexed): a search of a trigram-sized term sorts what it
    # found instead of walking the list's index, and a shorter term gets a statement of its own.
    from sqlalchemy.dialects import postgresql

    from flask_coverage.queries import lists

    class Engine:
        dialect = postgresql.dialect()

    with app.app_context():
        org = get_owner("github", "acme")
        monkeypatch.setattr(lists, "get_engine", lambda: Engine)

        def sql(search: str) -> str:
            statement = lists.members_query(org, search=search)
            return str(statement.compile(dialect=postgresql.dialect()))

        long, short = sql("ali"), sql("al")
    assert "ORDER BY coverage_membership.sort_key || %(sort_key_1)s" in long
    assert "ORDER BY coverage_membership.sort_key, " in short
    assert re.search(r"coverage_owner\.username \|\| %\(username_\d+\)s", short)
    assert not re.search(r"coverage_owner\.username \|\| ", long)
