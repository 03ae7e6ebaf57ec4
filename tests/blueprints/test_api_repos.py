"""The v2 API of owners, repositories, commits, branches and pulls (docs/api.md), over WebTest."""

from __future__ import annotations

import json
import sqlite3

import pytest
import schemathesis
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from test_api_openapi import CHECKS
from v2_history import API, C0, C1, C2, C3, REPO, assert_not_found, bearer

from flask_coverage.models import Commit, Owner, ServiceEnum
from flask_coverage.queries.files import file_rows
from flask_coverage.queries.repositories import get_owner
from flask_coverage.state import get_connection, get_engine, get_session, reads_without_transaction

TOTALS_KEYS = {"files", "lines", "hits", "misses", "partials", "coverage", "branches", "methods"}


def report(testapp, sha: str, **headers) -> dict:
    """The commit's report from the report API: the reference the new endpoints must agree with."""
    return testapp.get(f"{REPO}/report/", params={"sha": sha}, headers=headers).json


def test_owner_detail(testapp, history) -> None:
    assert testapp.get(f"{API}/").json == {"service": "github", "username": "acme", "name": "Acme Corp"}
    assert testapp.get("/api/v2/github/ACME/", headers=bearer(history.tokens["mallory"])).json["username"] == "acme"
    for url in ["/api/v2/github/nobody/", "/api/v2/gh/acme/", "/api/v2/github/ac%00me/"]:
        assert_not_found(testapp.get(url, status=404))
    assert testapp.get(f"{API}/", headers=bearer("nope"), status=401).headers["WWW-Authenticate"] == "Bearer"


def test_repositories_list_shows_private_ones_to_activated_members_only(testapp, history) -> None:
    names = lambda body: [repo["name"] for repo in body["results"]]  # noqa: E731
    anonymous = testapp.get(f"{API}/repos/").json
    assert names(anonymous) == ["dormant", "widgets"] and anonymous["count"] == 2
    for who in ("mallory", "nina"):
        assert names(testapp.get(f"{API}/repos/", headers=bearer(history.tokens[who])).json) == ["dormant", "widgets"]
    member = testapp.get(f"{API}/repos/", headers=bearer(history.tokens["alice"])).json
    assert names(member) == ["dormant", "secret", "widgets"]

    widgets = member["results"][2]
    assert set(widgets) == {
        "name", "private", "updatestamp", "author", "language", "branch", "active", "activated", "totals"
    }  # fmt: skip
    assert widgets["author"] == {"service": "github", "username": "acme", "name": "Acme Corp"}
    assert (widgets["language"], widgets["branch"], widgets["private"], widgets["active"]) == (
        "python",
        "main",
        False,
        True,
    )
    assert widgets["totals"] == report(testapp, C1)["totals"]  # the tip of main
    assert member["results"][0]["totals"] is None  # no upload yet


def test_repositories_list_filters_and_pages(testapp, history) -> None:
    token = bearer(history.tokens["alice"])
    get = lambda **params: testapp.get(f"{API}/repos/", params=params, headers=token).json  # noqa: E731
    assert [r["name"] for r in get(active="false")["results"]] == ["dormant"]
    assert [r["name"] for r in get(active="1")["results"]] == ["secret", "widgets"]
    assert [r["name"] for r in get(search="ID")["results"]] == ["widgets"]
    assert get(search="%")["count"] == 0  # literal
    by_names = testapp.get(f"{API}/repos/?names=WIDGETS&names=secret&names=none", headers=token).json
    assert [r["name"] for r in by_names["results"]] == ["secret", "widgets"]
    first = get(page_size=2)
    assert (first["count"], first["total_pages"], len(first["results"])) == (3, 2, 2)
    assert first["next"] == f"http://localhost{API}/repos/?page_size=2&page=2" and first["previous"] is None
    assert [r["name"] for r in get(page_size=2, page=2)["results"]] == ["widgets"]
    assert get(page_size=10**6)["results"][-1]["name"] == "widgets"  # clamped
    assert testapp.get(f"{API}/repos/?page=3&page_size=2", headers=token, status=404).json == {
        "detail": "Invalid page."
    }


def test_one_repository(testapp, history) -> None:
    body = testapp.get(f"{REPO}/").json
    assert body["name"] == "widgets" and body["totals"] == report(testapp, C1)["totals"]
    assert testapp.get(f"{API}/repos/WIDGETS/").json == body
    secret = f"{API}/repos/secret/"
    for headers in ({}, bearer(history.tokens["mallory"]), bearer(history.tokens["nina"])):
        assert_not_found(testapp.get(secret, headers=headers, status=404))
    assert testapp.get(secret, headers=bearer(history.tokens["alice"])).json["private"] is True
    assert_not_found(testapp.get(f"{API}/repos/nothing/", status=404))


def test_commits_newest_first_with_totals_branch_and_parent(testapp, history) -> None:
    body = testapp.get(f"{REPO}/commits/").json
    assert body["count"] == 4
    assert [c["commitid"] for c in body["results"]] == [C3, C2, C1, C0]
    by_sha = {c["commitid"]: c for c in body["results"]}
    assert set(by_sha[C3]) == {"commitid", "timestamp", "branch", "totals", "state", "parent", "message", "author"}
    # Without a git mirror nothing says who wrote a commit, nor why.
    assert (by_sha[C3]["message"], by_sha[C3]["author"]) == (None, None)
    assert (by_sha[C3]["branch"], by_sha[C3]["parent"], by_sha[C3]["state"]) == ("fix/typo", C0, "complete")
    assert by_sha[C2]["parent"] is None and by_sha[C2]["branch"] == "feature/faster"
    for sha, commit in by_sha.items():
        assert commit["totals"] == report(testapp, sha)["totals"]
    main = testapp.get(f"{REPO}/commits/", params={"branch": "main"}).json
    assert [c["commitid"] for c in main["results"]] == [C1, C0]
    assert testapp.get(f"{REPO}/commits/", params={"branch": "nope"}).json["count"] == 0
    second = testapp.get(f"{REPO}/commits/", params={"page_size": 3, "page": 2}).json
    assert [c["commitid"] for c in second["results"]] == [C0]


def test_one_commit_with_its_report(testapp, history) -> None:
    body = testapp.get(f"{REPO}/commits/{C1}/").json
    reference = report(testapp, C1)
    assert body["report"] == {"totals": reference["totals"], "files": reference["files"]}
    assert body["totals"] == reference["totals"] and body["commitid"] == C1
    assert testapp.get(f"{REPO}/commits/{C1[:7]}/").json["commitid"] == C1
    assert testapp.get(f"{REPO}/commits/{C2[:8]}/").json["commitid"] == C2
    # An ambiguous prefix, an unknown or malformed sha: the same 404.
    for sha in (C2[:7], "f" * 40, "zz", "c0c0c0"):
        assert_not_found(testapp.get(f"{REPO}/commits/{sha}/", status=404))


def test_branches_and_one_branch_with_its_tip(testapp, history) -> None:
    body = testapp.get(f"{REPO}/branches/").json
    assert [b["name"] for b in body["results"]] == ["feature/faster", "fix/typo", "main"]
    assert set(body["results"][0]) == {"name", "updatestamp"}
    branch = testapp.get(f"{REPO}/branches/feature/faster/").json
    assert branch["name"] == "feature/faster"
    assert branch["head_commit"] == testapp.get(f"{REPO}/commits/{C2}/").json
    for name in ("nope", "Main", "main%00"):
        assert_not_found(testapp.get(f"{REPO}/branches/{name}/", status=404))


def test_pulls_with_base_and_head_totals(testapp, history) -> None:
    body = testapp.get(f"{REPO}/pulls/").json
    assert [p["pullid"] for p in body["results"]] == [8, 7]
    pull8, pull7 = body["results"]
    assert set(pull7) == {"pullid", "base_totals", "head_totals", "updatestamp", "state", "title"}
    assert pull7["title"] is None  # until the provider's webhook says (tests/providers/test_webhooks.py)
    # Pull 7 named no parent: its base is main's tip when its first upload came (C1).
    assert pull7["base_totals"] == report(testapp, C1)["totals"]
    assert pull7["head_totals"] == report(testapp, C2)["totals"] and pull7["state"] == "open"
    # Pull 8's commit named its parent (codecov-cli's create-commit): C0.
    assert pull8["base_totals"] == report(testapp, C0)["totals"]
    assert testapp.get(f"{REPO}/pulls/7/").json == pull7
    for pullid in ("9", "0", "-7", "abc", "99999999999", "%EF%BC%97"):
        assert_not_found(testapp.get(f"{REPO}/pulls/{pullid}/", status=404))


@pytest.mark.parametrize("kind", ["commits", "branches", "pulls", ""])
def test_private_repositories_lists_need_an_activated_member(testapp, history, kind) -> None:
    url = f"{API}/repos/secret/{kind + '/' if kind else ''}"
    for headers in ({}, bearer(history.tokens["mallory"]), bearer(history.tokens["nina"])):
        assert_not_found(testapp.get(url, headers=headers, status=404))
    answer = testapp.get(url, headers=bearer(history.tokens["alice"]), status=200)
    assert answer.headers["Cache-Control"] == "private, no-store"


def test_bad_input_is_a_4xx_and_changes_nothing(testapp, history, snapshot) -> None:
    before = snapshot()
    bad = {
        f"{API}/repos/?active=yes": 400,
        f"{API}/repos/?page=0": 400,
        f"{API}/repos/?page_size=x": 400,
        f"{API}/repos/?search=a%00b": 400,
        f"{API}/repos/?names=": 400,
        f"{REPO}/commits/?branch=": 400,
        f"{REPO}/commits/?page=99": 404,
        f"{REPO}/branches/?page=-1": 400,
        f"{REPO}/pulls/?page_size=0": 400,
        f"{REPO}/commits/{'a' * 65}/": 404,
    }
    for url, status in bad.items():
        response = testapp.get(url, status=status)
        assert response.content_type == "application/json" and "detail" in response.json, url
    response = testapp.post(f"{REPO}/commits/", status=405)
    assert response.json["detail"] == 'Method "POST" not allowed.'
    assert snapshot() == before


def test_every_endpoint_is_in_the_openapi_document(testapp) -> None:
    document = testapp.get("/api/v2/openapi.json").json
    ids = {operation["operationId"] for path in document["paths"].values() for operation in path.values()}
    expected = {"owners_retrieve", "repos_list", "repos_retrieve", "commits_list", "commits_retrieve"}
    assert expected | {"branches_list", "branches_retrieve", "pulls_list", "pulls_retrieve"} <= ids
    assert json.dumps(document).count("CoverageTotals") > 1


def test_every_unmatched_path_under_the_prefix_is_a_json_404(testapp) -> None:
    for url in ["/api/v2/", "/api/v2/github/acme/repos/widgets/nothing/", "/api/v2/a/b/c/d/e/f/g/", "/api/v2/%FF"]:
        assert_not_found(testapp.get(url, status=404))
    assert_not_found(testapp.delete("/api/v2/nothing", status=404))
    # A missing trailing slash still redirects to the endpoint.
    assert testapp.get("/api/v2/github/acme/repos", status=308).location.endswith("/api/v2/github/acme/repos/")
    # Outside the prefix, the host app's own 404 page is untouched.
    assert testapp.get("/elsewhere", status=404).content_type == "text/html"


REAL = {
    "service": "github", "owner_username": "acme", "repo": "widgets", "sha": C1, "name": "main", "pullid": 7,
    "path": "src/marshmallow/fields.py", "username": "nina", "flag": "sqla",
}  # fmt: skip


def test_generated_requests_to_every_endpoint_never_get_a_500_or_an_undocumented_answer(app, history) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/v2/openapi.json", app)
    headers = bearer(history.tokens["alice"])
    bounded = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    statuses: set[int] = set()
    for result in schema.get_all_operations():
        operation = result.ok()

        # Half of the requests name real things, so that pages and filters answer 200s.
        @bounded
        @given(case=operation.as_strategy(), real=st.booleans())
        def positive(case, real: bool) -> None:
            if real:
                case.path_parameters = {key: REAL[key] for key in case.path_parameters or {}}
            statuses.add(case.call_and_validate(headers=headers, checks=CHECKS).status_code)

        @bounded
        @given(case=operation.as_strategy(generation_mode=GenerationMode.NEGATIVE))
        def negative(case) -> None:
            statuses.add(case.call_and_validate(headers=headers, checks=CHECKS).status_code)

        positive()
        negative()
    assert {200, 400, 404} <= statuses


def _open_transaction(dbapi_connection) -> bool:
    """Whether the driver's connection (sqlite3 or psycopg) is inside a transaction."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        return dbapi_connection.in_transaction
    return dbapi_connection.info.transaction_status != dbapi_connection.info.transaction_status.IDLE


def _autocommit(dbapi_connection) -> bool:
    if isinstance(dbapi_connection, sqlite3.Connection):
        return dbapi_connection.isolation_level is None
    return dbapi_connection.autocommit


def test_a_list_reads_outside_a_transaction_and_gives_its_connection_back_as_it_was(app, testapp, history) -> None:
    """No BEGIN and no ROLLBACK around a list's statements; the host's next transaction is a transaction."""
    engine, session = get_engine(), get_session()
    seen = []

    def after(conn, cursor, statement, parameters, context, executemany) -> None:
        dbapi_connection = conn.connection.dbapi_connection
        seen.append((dbapi_connection, _open_transaction(dbapi_connection), statement))

    token = bearer(history.tokens["alice"])
    testapp.get(f"{API}/", headers=token)  # its use is recorded (a write) once a minute: not in the next request
    for url, headers in [(f"{API}/repos/", {}), (f"{API}/repos/secret/commits/", token)]:
        # The test's app context is the requests' too, and so is its session: end what the test began.
        session.remove()
        sa.event.listen(engine, "after_cursor_execute", after)
        try:
            assert testapp.get(url, headers=headers).json["count"] > 0
        finally:
            sa.event.remove(engine, "after_cursor_execute", after)
        assert not session().in_transaction()
        assert len(seen) >= 3 and not any(open_ for _, open_, _ in seen), seen  # lookups, count, page
        used = {id(dbapi_connection): dbapi_connection for dbapi_connection, _, _ in seen}
        assert len(used) == 1 and not any(_autocommit(c) for c in used.values())
        seen.clear()
    session.add(Owner(service=ServiceEnum.github, username="ghost"))  # the host's write can still be undone
    session.flush()
    session.rollback()
    assert get_owner(ServiceEnum.github, "ghost") is None


def test_a_transaction_the_host_began_is_left_alone_and_one_begun_without_is_ended(history) -> None:
    session = get_session()
    session.remove()
    session.execute(sa.select(Owner.id).limit(1))  # the host's code used the session first
    with reads_without_transaction():
        assert not _autocommit(get_connection().connection.dbapi_connection)
    assert session().in_transaction()
    session.remove()
    with reads_without_transaction():
        get_owner(ServiceEnum.github, "acme")
        connection = get_connection().connection.dbapi_connection
        # SQLite's driver begins no transaction to read: it is left as it is.
        assert _autocommit(connection) != (get_engine().dialect.name == "sqlite")
        assert not _open_transaction(connection)
    assert not session().in_transaction() and not _autocommit(connection)
    # What comes next in the same session gets its transaction: a server-side cursor needs one.
    assert len(list(file_rows(session.get(Commit, 1)))) > 0
