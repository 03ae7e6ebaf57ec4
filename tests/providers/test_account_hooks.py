"""Webhooks keep the sync from the host current without a sign-in (docs/sign-in.md): GitHub App events,
GitLab system and group member hooks, Bitbucket Cloud's repository events, over HTTP (WebTest). Each
test: who reads what before (through the v2 API, with each user's access token), the event, who reads
what after; and the refusals, which change nothing."""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from collections.abc import Iterator
from typing import Any, Callable, Optional

import github_events as gh
import pytest
import sqlalchemy as sa
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.models import HostAccount, Membership, Owner, Repository, ServiceEnum, utcnow
from flask_coverage.providers.accounts import HostOwner, HostRepository, HostView
from flask_coverage.queries.repositories import find_repository, get_owner
from flask_coverage.state import get_session
from flask_coverage.sync import apply_host_view

APP_SECRET = "the-app-s-secret"  # noqa: S105 - the tests'
SYSTEM_SECRET = "the-system-hook-s-secret"  # noqa: S105
SHARED_SECRET = "the-shared-secret"  # noqa: S105
LCOV = b"SF:a.py\nDA:1,1\nDA:2,0\nend_of_record\n"
SHA = "a" * 40
USERS = {"alice": 1, "bob": 2, "carol": 3}
# Bitbucket names its accounts and repositories by UUID.
IDS = {
    "github": lambda n: n,
    "gitlab": lambda n: n,
    "bitbucket": lambda n: f"{{00000000-0000-0000-0000-{n:012d}}}",
}


def world(service: str) -> None:
    """What the sign-ins of alice, bob and carol wrote: acme (alice an admin, bob a member), its private
    widgets (alice and bob read it) and gadgets (alice), its public site; beside them, what the operator
    made: acme/manual (private, read by acme's members) and the organization ops (alice a member)."""
    ident = IDS[service]
    acme = HostOwner("acme", str(ident(10)), True)

    def repo(name: str, number: int, private: bool = True) -> HostRepository:
        return HostRepository(acme, name, str(ident(number)), private, "main")

    widgets, gadgets, site = repo("widgets", 100), repo("gadgets", 101), repo("site", 102, private=False)
    views = {
        "alice": (((acme, True),), (widgets, gadgets, site)),
        "bob": (((acme, False),), (widgets, site)),
        "carol": ((), ()),
    }
    for name, (orgs, repos) in views.items():
        user = HostOwner(name, str(ident(USERS[name])), False)
        apply_host_view(ServiceEnum(service), HostView(user, orgs, repos))
    operations.add_repo(service, "acme", "manual", private=True)
    operations.add_org(service, "ops")
    operations.add_repo(service, "ops", "tools", private=True)
    operations.add_member(service, "ops", "alice")
    upload_report(find_repository(service, "acme", "widgets"), LCOV, commit=SHA, branch="main")


@pytest.fixture
def web(make_app: Callable[..., Flask], make_database_url: Callable[[], str]) -> Iterator[webtest.TestApp]:
    closed = "http://127.0.0.1:9"
    providers = {
        # A GitHub App: its secret signs every event.
        "github": {"url": closed, "app_id": 1, "private_key": "k", "webhook_secret": APP_SECRET},
        # A GitLab instance's system hook: its secret signs account events only.
        "gitlab": {"url": closed, "token": "t", "system_hook_secret": SYSTEM_SECRET},
        # Bitbucket Cloud: a workspace's hook with the shared secret (opted in).
        "bitbucket": {"url": closed, "token": "t", "webhook_secret": SHARED_SECRET},
    }
    app = make_app(make_database_url(), COVERAGE_WEBHOOK_SHARED_SECRET=True)
    with app.app_context():
        for service in ("github", "gitlab", "bitbucket"):
            world(service)
    app.config["COVERAGE_PROVIDERS"] = providers  # after the uploads: no provider asked for a codecov.yml
    yield webtest.TestApp(app)


def token(web: webtest.TestApp, service: str, user: str) -> str:
    """``user``'s access token, made once per app."""
    tokens = web.app.config.setdefault("TEST_TOKENS", {})
    if (service, user) not in tokens:
        with web.app.app_context():
            tokens[service, user] = operations.create_token(service, user, name="api")[1]
    return str(tokens[service, user])


def reads(web: webtest.TestApp, service: str, user: Optional[str], owner: str = "acme") -> set[str]:
    """The repositories of ``owner`` (not deleted) that ``user`` (``None``: a visitor) reads through the v2
    API, each asked by its URL; the owner's list shows the same ones."""
    headers = {"Authorization": f"Bearer {token(web, service, user)}"} if user else {}
    with web.app.app_context():
        found = get_owner(service, owner)
        query = sa.select(Repository.name).where(Repository.owner_id == found.id, Repository.deleted.is_(False))
        names = list(get_session().execute(query).scalars()) if found is not None else []
    api = f"/api/v2/{service}/{owner}/repos"
    read = {name for name in names if web.get(f"{api}/{name}/", headers=headers, status=(200, 404)).status_int == 200}
    listed = web.get(f"{api}/", params={"page_size": 100}, headers=headers, status=(200, 404))
    assert {repo["name"] for repo in listed.json["results"]} == read if listed.status_int == 200 else not read
    return read


def members(web: webtest.TestApp, service: str, org: str = "acme") -> dict[str, bool]:
    """``{user: admin}`` of an organization's memberships."""
    with web.app.app_context():
        query = (
            sa.select(Owner.username, Membership.is_admin)
            .join(Membership, Membership.user_id == Owner.id)
            .where(Membership.org_id == get_owner(service, org).id)
        )
        return dict(get_session().execute(query).all())


def stored(web: webtest.TestApp, service: str, owner: str, name: str) -> Optional[dict[str, Any]]:
    with web.app.app_context():
        found = find_repository(service, owner, name, deleted=True)
        if found is None:
            return None
        fields = ("id", "service_id", "upload_token", "private", "branch", "deleted", "using_integration")
        return {field: getattr(found, field) for field in fields}


# -- sending events ----------------------------------------------------------------------------------------

_DELIVERY = iter(range(1, 1_000_000))


def post_github(
    web: webtest.TestApp, event: str, payload: dict[str, Any], status: int = 200, secret: str = APP_SECRET
) -> webtest.TestResponse:
    body = json.dumps(payload).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": f"delivery-{next(_DELIVERY)}",
        "X-Hub-Signature-256": "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest(),
    }
    return web.post("/webhooks/github", body, headers=headers, content_type="application/json", status=status)


def post_gitlab(
    web: webtest.TestApp,
    payload: dict[str, Any],
    status: int = 200,
    secret: str = SYSTEM_SECRET,
    hook: str = "System Hook",
) -> webtest.TestResponse:
    headers = {"X-Gitlab-Event": hook, "X-Gitlab-Token": secret, "X-Gitlab-Event-UUID": f"u-{next(_DELIVERY)}"}
    return web.post_json("/webhooks/gitlab", payload, headers=headers, status=status)


def post_bitbucket(
    web: webtest.TestApp, event: str, payload: dict[str, Any], status: int = 200, secret: str = SHARED_SECRET
) -> webtest.TestResponse:
    body = json.dumps(payload).encode()
    headers = {
        "X-Event-Key": event,
        "X-Request-UUID": f"r-{next(_DELIVERY)}",
        "X-Hub-Signature": "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest(),
    }
    return web.post("/webhooks/bitbucket", body, headers=headers, content_type="application/json", status=status)


# GitHub's accounts of the world, as its payloads name them.
ACME = gh.user("acme", 10, "Organization")
ACME_ORG = gh.organization("acme", 10)
BETA = gh.user("beta", 20, "Organization")
ALICE, BOB, CAROL = (gh.user(name, number) for name, number in USERS.items())
STRANGER = gh.user("stranger", 99)


def gh_repository(name: str = "widgets", repo_id: int = 100, *, private: bool = True, **kwargs: Any) -> dict[str, Any]:
    return gh.repository(kwargs.pop("owner", ACME), name, repo_id, private=private, **kwargs)


#: Every GitHub payload the tests send, by the name of its schema in GitHub's description.
GITHUB_PAYLOADS: dict[str, Callable[[], dict[str, Any]]] = {
    "organization-member-removed": lambda: gh.event(
        "member_removed", membership=gh.membership(ACME_ORG, BOB), organization=ACME_ORG
    ),
    "organization-member-added": lambda: gh.event(
        "member_added", membership=gh.membership(ACME_ORG, CAROL, role="admin"), organization=ACME_ORG
    ),
    "organization-renamed": lambda: gh.event(
        "renamed", organization=gh.organization("acme-inc", 10), changes={"login": {"from": "acme"}}
    ),
    "member-added": lambda: gh.event(
        "added", member=CAROL, repository=gh_repository(), changes={"permission": {"to": "read"}}
    ),
    "member-edited": lambda: gh.event(
        "edited",
        member=CAROL,
        repository=gh_repository(),
        changes={"old_permission": {"from": "read"}, "permission": {"from": "read", "to": "write"}},
    ),
    "member-removed": lambda: gh.event("removed", member=ALICE, repository=gh_repository()),
    "membership-added": lambda: gh.event(
        "added", scope="team", member=CAROL, team=gh.team(ACME_ORG), organization=ACME_ORG
    ),
    "membership-removed": lambda: gh.event(
        "removed", scope="team", member=ALICE, team=gh.team(ACME_ORG), organization=ACME_ORG
    ),
    "repository-renamed": lambda: gh.event(
        "renamed", repository=gh_repository("engine"), changes={"repository": {"name": {"from": "widgets"}}}
    ),
    "repository-transferred": lambda: gh.event(
        "transferred", repository=gh_repository(owner=BETA), changes={"owner": {"from": {"organization": ACME_ORG}}}
    ),
    "repository-privatized": lambda: gh.event("privatized", repository=gh_repository("site", 102, private=True)),
    "repository-publicized": lambda: gh.event("publicized", repository=gh_repository("gadgets", 101, private=False)),
    "repository-edited": lambda: gh.event(
        "edited", repository=gh_repository(branch="trunk"), changes={"default_branch": {"from": "main"}}
    ),
    "repository-deleted": lambda: gh.event("deleted", repository=gh_repository()),
    "repository-created": lambda: gh.event("created", repository=gh_repository("fresh", 103)),
    "installation-created": lambda: gh.event(
        "created",
        installation=gh.installation(gh.user("newco", 30, "Organization")),
        repositories=[gh.listed(gh.repository(gh.user("newco", 30, "Organization"), "app", 300, private=True))],
        requester=ALICE,
    ),
    "installation-target-renamed": lambda: {
        **gh.event("renamed", account=gh.user("alice-b", 1), changes={"login": {"from": "alice"}}),
        "target_type": "User",
    },
    "installation-deleted": lambda: gh.event("deleted", installation=gh.installation(ACME)),
    "installation-suspend": lambda: gh.event("suspend", installation=gh.installation(ACME)),
    "installation-unsuspend": lambda: gh.event("unsuspend", installation=gh.installation(ACME, selection="all")),
    "installation-repositories-added": lambda: gh.event(
        "added",
        installation=gh.installation(ACME),
        repository_selection="selected",
        repositories_added=[gh.listed(gh_repository("fresh", 103)), gh.listed(gh_repository("gadgets", 101))],
        repositories_removed=[],
        requester=ALICE,
    ),
    "installation-repositories-removed": lambda: gh.event(
        "removed",
        installation=gh.installation(ACME),
        repository_selection="selected",
        repositories_added=[],
        repositories_removed=[gh.listed(gh_repository("gadgets", 101))],
        requester=ALICE,
    ),
}


def send(web: webtest.TestApp, schema: str, status: int = 200, **changes: Any) -> webtest.TestResponse:
    """The GitHub payload of ``schema`` (with ``changes``), as its event."""
    event = schema.split("-")[0]
    for two_words in ("installation-repositories", "installation-target"):
        event = two_words.replace("-", "_") if schema.startswith(two_words) else event
    return post_github(web, event, {**GITHUB_PAYLOADS[schema](), **changes}, status)


# -- GitHub: organizations and their members ---------------------------------------------------------


def test_a_member_removed_from_the_organization_loses_it_and_its_private_repositories_at_once(
    web: webtest.TestApp,
) -> None:
    assert reads(web, "github", "bob") == {"widgets", "site", "manual"}
    assert members(web, "github") == {"alice": True, "bob": False}
    answer = send(web, "organization-member-removed")
    assert answer.text == "Synced: bob is no longer a member of acme.\n"
    assert reads(web, "github", "bob") == {"site"}  # the public one only
    assert members(web, "github") == {"alice": True}
    assert reads(web, "github", "alice") == {"widgets", "gadgets", "site", "manual"}  # the others keep theirs


def test_a_member_added_to_the_organization_is_a_member_who_reads_no_more_private_code(web: webtest.TestApp) -> None:
    assert reads(web, "github", "carol") == {"site"}
    send(web, "organization-member-added")
    assert members(web, "github") == {"alice": True, "bob": False, "carol": True}
    # Membership opens what the host does not know (the operator's repository), not the host's private ones.
    assert reads(web, "github", "carol") == {"site", "manual"}
    # Members list: carol is an admin of acme now.
    users = web.get("/api/v2/github/acme/users/", headers={"Authorization": f"Bearer {token(web, 'github', 'carol')}"})
    assert {item["username"] for item in users.json["results"]} == {"alice", "bob", "carol"}


def test_an_organization_renamed_keeps_its_repositories_tokens_and_history(web: webtest.TestApp) -> None:
    before = stored(web, "github", "acme", "widgets")
    send(web, "organization-renamed")
    assert stored(web, "github", "acme", "widgets") is None
    assert stored(web, "github", "acme-inc", "widgets") == before
    assert reads(web, "github", "alice", "acme-inc") == {"widgets", "gadgets", "site", "manual"}
    commits = web.get(
        "/api/v2/github/acme-inc/repos/widgets/commits/",
        headers={"Authorization": f"Bearer {token(web, 'github', 'alice')}"},
    )
    assert [item["commitid"] for item in commits.json["results"]] == [SHA]


def test_a_user_renamed_keeps_their_reading(web: webtest.TestApp) -> None:
    alice = token(web, "github", "alice")  # an access token survives the rename
    send(web, "installation-target-renamed")
    with web.app.app_context():
        assert get_owner("github", "alice") is None and get_owner("github", "alice-b") is not None
    headers = {"Authorization": f"Bearer {alice}"}
    assert web.get("/api/v2/github/acme/repos/gadgets/", headers=headers).json["name"] == "gadgets"


# -- GitHub: collaborators and teams --------------------------------------------------------------------


def test_a_collaborator_added_edited_and_removed(web: webtest.TestApp) -> None:
    assert "widgets" not in reads(web, "github", "carol")
    send(web, "member-added")
    assert reads(web, "github", "carol") == {"widgets", "site"}
    send(web, "member-edited")
    assert reads(web, "github", "carol") == {"widgets", "site"}
    post_github(web, "member", gh.event("removed", member=CAROL, repository=gh_repository()))
    assert reads(web, "github", "carol") == {"site"}
    send(web, "member-removed")  # alice loses widgets, keeps gadgets
    assert reads(web, "github", "alice") == {"gadgets", "site", "manual"}


def signed_in_at(web: webtest.TestApp, user: str) -> Any:
    with web.app.app_context():
        account = get_session().get(HostAccount, get_owner("github", user).id)
        return account.synced_at if account is not None else "never"


def sign_in(web: webtest.TestApp, user: str) -> None:
    with web.app.app_context():
        get_session().add(HostAccount(owner_id=get_owner("github", user).id, token="-", synced_at=utcnow()))
        get_session().commit()


def test_a_team_change_widens_nothing_and_a_team_removal_narrows_until_the_next_sync(web: webtest.TestApp) -> None:
    sign_in(web, "alice")
    sign_in(web, "carol")
    # Added to a team: which repositories it reads is not in the event; carol is synced at her next request.
    send(web, "membership-added")
    assert reads(web, "github", "carol") == {"site"}
    assert signed_in_at(web, "carol") is None
    # Removed from a team: alice reads none of acme's host-known private repositories until her sync.
    assert signed_in_at(web, "alice") is not None
    send(web, "membership-removed")
    assert reads(web, "github", "alice") == {"site", "manual"}
    assert members(web, "github")["alice"] is True  # still a member of acme
    assert signed_in_at(web, "alice") is None


# -- GitHub: repositories -------------------------------------------------------------------------------


def test_a_renamed_repository_keeps_its_id_tokens_history_and_readers(web: webtest.TestApp) -> None:
    before = stored(web, "github", "acme", "widgets")
    send(web, "repository-renamed")
    assert stored(web, "github", "acme", "widgets") is None
    assert stored(web, "github", "acme", "engine") == before
    assert reads(web, "github", "bob") == {"engine", "site", "manual"}
    # Uploads with the same token land in the renamed repository.
    upload = f"/upload/v2?commit={'b' * 40}&branch=main&token={before['upload_token']}"  # type: ignore[index]
    assert "/gh/acme/engine/" in web.post(upload, LCOV, headers={"Content-Type": "text/plain"}).text


def test_a_transferred_repository_moves_with_its_tokens_and_loses_its_readers(web: webtest.TestApp) -> None:
    before = stored(web, "github", "acme", "widgets")
    send(web, "repository-transferred")
    assert stored(web, "github", "beta", "widgets") == before
    # Who reads it under beta is the host's word at each reader's next sync: nobody yet.
    assert reads(web, "github", "alice", "beta") == set()
    assert reads(web, "github", "bob") == {"site", "manual"}


def test_privatized_and_publicized(web: webtest.TestApp) -> None:
    assert "site" in reads(web, "github", None) and "gadgets" not in reads(web, "github", None)
    send(web, "repository-privatized")
    send(web, "repository-publicized")
    assert reads(web, "github", None) == {"gadgets"}
    # The newly private site: read by nobody but through each reader's next sync.
    assert reads(web, "github", "alice") == {"widgets", "gadgets", "manual"}


def test_a_new_default_branch(web: webtest.TestApp) -> None:
    send(web, "repository-edited")
    assert stored(web, "github", "acme", "widgets")["branch"] == "trunk"  # type: ignore[index]


def test_a_deleted_repository_is_marked_deleted_with_its_history_kept(web: webtest.TestApp) -> None:
    before = stored(web, "github", "acme", "widgets")
    send(web, "repository-deleted")
    assert stored(web, "github", "acme", "widgets") == {**before, "deleted": True}  # type: ignore[dict-item]
    assert reads(web, "github", "alice") == {"gadgets", "site", "manual"}
    upload = f"/upload/v2?commit={'b' * 40}&branch=main&token={before['upload_token']}"  # type: ignore[index]
    web.post(upload, LCOV, headers={"Content-Type": "text/plain"}, status=404)
    web.get(
        "/api/v2/github/acme/repos/widgets/",
        headers={"Authorization": f"Bearer {token(web, 'github', 'alice')}"},
        status=404,
    )
    # Created again with the same id (restored on the host): there again.
    post_github(web, "repository", gh.event("created", repository=gh_repository()))
    assert stored(web, "github", "acme", "widgets") == before


def test_a_new_repository_with_a_deleted_one_s_name_starts_anew(web: webtest.TestApp) -> None:
    before = stored(web, "github", "acme", "widgets")
    send(web, "repository-deleted")
    post_github(web, "repository", gh.event("created", repository=gh_repository(repo_id=200)))
    # The deleted one keeps its history and tokens under another name; the new one has its own.
    assert stored(web, "github", "acme", "widgets~100") == {**before, "deleted": True}  # type: ignore[dict-item]
    fresh = stored(web, "github", "acme", "widgets")
    assert fresh is not None and fresh["service_id"] == "200" and fresh["upload_token"] != before["upload_token"]  # type: ignore[index]
    # Who read the deleted one reads nothing of the new one.
    assert reads(web, "github", "bob") == {"site", "manual"}


def test_a_created_repository_has_its_tokens_and_an_operators_one_is_taken_over(web: webtest.TestApp) -> None:
    send(web, "repository-created")
    fresh = stored(web, "github", "acme", "fresh")
    assert fresh is not None and fresh["service_id"] == "103" and len(fresh["upload_token"]) == 36
    manual = stored(web, "github", "acme", "manual")
    post_github(web, "repository", gh.event("created", repository=gh_repository("manual", 104)))
    # The host wins for what both know: the same row, now read per repository (nobody yet).
    assert stored(web, "github", "acme", "manual") == {**manual, "service_id": "104"}  # type: ignore[dict-item]
    assert reads(web, "github", "bob") == {"widgets", "site"}


# -- GitHub: the App's installations --------------------------------------------------------------------


def test_an_installation_created_brings_its_account_and_repositories(web: webtest.TestApp) -> None:
    answer = send(web, "installation-created")
    assert answer.text == "Synced: 1 repositories synced.\n"
    app = stored(web, "github", "newco", "app")
    assert app is not None and app["private"] and app["using_integration"] and app["service_id"] == "300"
    assert reads(web, "github", "alice", "newco") == set()  # private: read through the sync


def test_installation_repositories_added_removed_deleted_and_back(web: webtest.TestApp) -> None:
    send(web, "installation-repositories-added")
    assert stored(web, "github", "acme", "fresh")["using_integration"]  # type: ignore[index]
    assert stored(web, "github", "acme", "gadgets")["using_integration"]  # type: ignore[index]
    send(web, "installation-repositories-removed")
    assert not stored(web, "github", "acme", "gadgets")["using_integration"]  # type: ignore[index]
    send(web, "installation-unsuspend")  # every repository of acme
    assert all(stored(web, "github", "acme", name)["using_integration"] for name in ("widgets", "site", "gadgets"))  # type: ignore[index]
    send(web, "installation-suspend")
    assert not stored(web, "github", "acme", "widgets")["using_integration"]  # type: ignore[index]
    send(web, "installation-deleted")
    # The repositories and who reads them stay: the App only stopped covering them.
    assert reads(web, "github", "alice") == {"widgets", "gadgets", "site", "manual", "fresh"} - {"fresh"}


# -- refusals ----------------------------------------------------------------------------------------------

IGNORED = "Ignored: nothing known here changes.\n"


def snapshot(web: webtest.TestApp) -> tuple[Any, ...]:
    """Everything an account event may change."""
    with web.app.app_context():
        session = get_session()
        return (
            sorted(session.execute(sa.select(Owner.service, Owner.username, Owner.service_id, Owner.is_org)).all()),
            sorted(
                session.execute(
                    sa.select(
                        Repository.owner_id,
                        Repository.name,
                        Repository.service_id,
                        Repository.private,
                        Repository.deleted,
                        Repository.using_integration,
                        Repository.branch,
                    )
                ).all()
            ),
            sorted(session.execute(sa.text("SELECT * FROM coverage_membership")).all()),
            sorted(session.execute(sa.text("SELECT * FROM coverage_repository_reader")).all()),
        )


@pytest.mark.parametrize(
    ("schema", "changes"),
    [
        ("repository-renamed", {"repository": gh_repository("engine", 999)}),  # an unknown repository
        ("repository-deleted", {"repository": gh_repository("x", 999)}),
        ("member-added", {"member": STRANGER}),  # an unknown user
        ("organization-member-removed", {"organization": gh.organization("other", 98)}),  # an unknown organization
        ("organization-renamed", {"organization": gh.organization("x", 98)}),
        ("installation-deleted", {"installation": gh.installation(gh.user("other", 98, "Organization"))}),
        ("installation-repositories-removed", {"repositories_removed": [{"id": 999, "name": "x"}]}),
        ("membership-removed", {"member": STRANGER}),
    ],
)
def test_an_event_about_what_is_not_known_here_changes_nothing(
    web: webtest.TestApp, schema: str, changes: dict[str, Any]
) -> None:
    before = snapshot(web)
    assert send(web, schema, 202, **changes).text == IGNORED
    assert snapshot(web) == before


def test_a_repository_of_another_service_is_not_known_here(web: webtest.TestApp) -> None:
    # GitLab's acme/widgets has GitHub's 555 as its id here: a GitHub event about 555 never reaches it.
    with web.app.app_context():
        gitlab = find_repository("gitlab", "acme", "widgets")
        gitlab.service_id = "555"
        get_session().commit()
        before = snapshot(web)
    send(web, "repository-deleted", 202, repository=gh_repository(repo_id=555))
    assert snapshot(web) == before


def test_account_events_need_the_service_s_secret(web: webtest.TestApp) -> None:
    before = snapshot(web)
    payload = GITHUB_PAYLOADS["organization-member-removed"]()
    # A repository's own secret signs its pulls, never accounts.
    with web.app.app_context():
        own = operations.webhook_secret("github", "acme", "widgets")
    repository_signed = {**payload, "repository": gh_repository()}
    answer = post_github(web, "organization", repository_signed, 202, secret=own)
    assert "only when signed with the service's secret" in answer.text
    post_github(web, "organization", payload, 403, secret="wrong")
    body = json.dumps(payload).encode()
    web.post("/webhooks/github", body, headers={"X-GitHub-Event": "organization"}, status=401)
    assert snapshot(web) == before


def test_a_replayed_delivery_acts_once(web: webtest.TestApp) -> None:
    payload = GITHUB_PAYLOADS["member-added"]()
    body = json.dumps(payload).encode()
    headers = {
        "X-GitHub-Event": "member",
        "X-GitHub-Delivery": "same",
        "X-Hub-Signature-256": "sha256=" + hmac.new(APP_SECRET.encode(), body, hashlib.sha256).hexdigest(),
    }
    web.post("/webhooks/github", body, headers=headers, content_type="application/json", status=200)
    post_github(web, "member", {**payload, "action": "removed"})  # carol removed since
    answer = web.post("/webhooks/github", body, headers=headers, content_type="application/json", status=202)
    assert answer.text == "Ignored: this delivery was received before.\n"
    assert reads(web, "github", "carol") == {"site"}


@pytest.mark.parametrize(
    ("schema", "changes"),
    [
        ("member-added", {"member": {"login": "carol"}}),  # no id
        ("member-added", {"member": {"login": "carol", "id": {"nested": 3}}}),  # an id of the wrong type
        ("member-added", {"member": {"login": "carol", "id": "9" * 101}}),  # an id past 100 characters
        ("member-added", {"member": {"login": "carol", "id": "3\x00"}}),  # a character no database keeps
        ("repository-renamed", {"repository": {**gh_repository("engine"), "private": "yes"}}),
        ("repository-renamed", {"repository": "acme/widgets"}),
        ("organization-member-added", {"membership": None}),
        # The second repository is broken: the first is not created either (one transaction).
        (
            "installation-repositories-added",
            {"repositories_added": [gh.listed(gh_repository("fresh", 103)), {"id": 104, "name": None}]},
        ),
    ],
)
def test_a_payload_missing_what_it_must_have_is_a_400_and_changes_nothing(
    web: webtest.TestApp, schema: str, changes: dict[str, Any]
) -> None:
    before = snapshot(web)
    answer = send(web, schema, 400, **changes)
    assert "is missing a field it must have, or has one of the wrong type" in answer.text
    assert snapshot(web) == before


def test_an_event_listing_more_repositories_than_a_sync_reads_is_a_400(web: webtest.TestApp) -> None:
    before = snapshot(web)
    listed = [
        {"id": n, "node_id": "R", "name": f"r{n}", "full_name": f"acme/r{n}", "private": True} for n in range(20_001)
    ]
    answer = send(web, "installation-repositories-added", 400, repositories_added=listed)
    assert answer.text == "Webhook refused: the event lists more than 20000 repositories.\n"
    assert snapshot(web) == before


@pytest.mark.parametrize("name", ["n" * 300, "a/b", "bad\x00name"])
def test_a_name_the_service_cannot_store_is_ignored(web: webtest.TestApp, name: str) -> None:
    before = snapshot(web)
    answer = send(web, "repository-renamed", 202, repository=gh_repository(name))
    assert answer.text == "Ignored: a name this service cannot store.\n"
    answer = send(web, "organization-renamed", 202, organization=gh.organization(name, 10))
    assert snapshot(web) == before


def test_a_rename_onto_a_stored_name_is_a_409_and_changes_nothing(web: webtest.TestApp) -> None:
    with web.app.app_context():
        operations.add_repo("github", "acme", "taken")
    before = snapshot(web)
    answer = send(web, "repository-renamed", 409, repository=gh_repository("taken"))
    assert "collide with names stored here" in answer.text
    assert snapshot(web) == before


# -- GitLab ----------------------------------------------------------------------------------------------


def gitlab_project_event(name: str, path: str = "acme/widgets", project_id: int = 100, **extra: Any) -> dict[str, Any]:
    """A project event of a system hook (GitLab's documented fields)."""
    return {
        "created_at": "2026-11-28T12:00:00Z",
        "updated_at": "2026-11-28T12:00:00Z",
        "event_name": name,
        "name": path.rpartition("/")[2].title(),
        "owner_email": "owner@example.com",
        "owner_name": "Owner",
        "owners": [{"name": "Owner", "email": "owner@example.com"}],
        "path": path.rpartition("/")[2],
        "path_with_namespace": path,
        "project_id": project_id,
        "project_namespace_id": 900 + project_id,
        "project_visibility": "private",
        **extra,
    }


def gitlab_member_event(name: str, user: str, *, group: bool, level: str = "Developer") -> dict[str, Any]:
    who = {"user_username": user, "user_name": user.title(), "user_email": f"{user}@example.com"}
    who["user_id"] = USERS[user]  # type: ignore[assignment]
    if group:
        where = {"group_id": 10, "group_name": "Acme", "group_path": "acme", "group_access": level}
    else:
        where = {
            "project_id": 100,
            "project_name": "Widgets",
            "project_path": "widgets",
            "project_path_with_namespace": "acme/widgets",
            "project_visibility": "private",
            "access_level": level,
        }
    return {
        "created_at": "2026-11-28T12:00:00Z",
        "updated_at": "2026-11-28T12:00:00Z",
        "event_name": name,
        **who,
        **where,
    }


def test_gitlab_group_members_added_changed_and_removed(web: webtest.TestApp) -> None:
    assert reads(web, "gitlab", "carol") == {"site"}
    # A group's Reporter and up reads every project of the group.
    post_gitlab(web, gitlab_member_event("user_add_to_group", "carol", group=True, level="Reporter"))
    assert members(web, "gitlab") == {"alice": True, "bob": False, "carol": False}
    assert reads(web, "gitlab", "carol") == {"widgets", "gadgets", "site", "manual"}
    post_gitlab(web, gitlab_member_event("user_update_for_group", "carol", group=True, level="Guest"))
    assert reads(web, "gitlab", "carol") == {"site", "manual"}  # a Guest reads no code
    post_gitlab(web, gitlab_member_event("user_update_for_group", "carol", group=True, level="Owner"))
    assert members(web, "gitlab")["carol"] is True
    # A group hook's member events, the same fields.
    answer = post_gitlab(web, gitlab_member_event("user_remove_from_group", "bob", group=True), hook="Member Hook")
    assert answer.text == "Synced: bob is no longer a member of acme.\n"
    assert reads(web, "gitlab", "bob") == {"site"}
    assert "bob" not in members(web, "gitlab")


def test_gitlab_project_members(web: webtest.TestApp) -> None:
    post_gitlab(web, gitlab_member_event("user_add_to_team", "carol", group=False, level="Developer"))
    assert reads(web, "gitlab", "carol") == {"widgets", "site"}
    post_gitlab(web, gitlab_member_event("user_update_for_team", "carol", group=False, level="Guest"))
    assert reads(web, "gitlab", "carol") == {"site"}
    post_gitlab(web, gitlab_member_event("user_remove_from_team", "alice", group=False))
    assert reads(web, "gitlab", "alice") == {"gadgets", "site", "manual"}


def test_gitlab_projects_created_renamed_transferred_updated_and_destroyed(web: webtest.TestApp) -> None:
    post_gitlab(web, gitlab_project_event("project_create", "acme/fresh", 103))
    assert stored(web, "gitlab", "acme", "fresh")["private"]  # type: ignore[index]
    before = stored(web, "gitlab", "acme", "widgets")
    post_gitlab(web, gitlab_project_event("project_rename", "acme/engine", old_path_with_namespace="acme/widgets"))
    assert stored(web, "gitlab", "acme", "engine") == before
    assert reads(web, "gitlab", "bob") == {"engine", "site", "manual"}
    post_gitlab(web, gitlab_project_event("project_update", "acme/engine", project_visibility="public"))
    assert "engine" in reads(web, "gitlab", None)
    post_gitlab(web, gitlab_project_event("project_update", "acme/engine", project_visibility="internal"))
    assert reads(web, "gitlab", "bob") == {"site", "manual"}  # private again: read through the next sync
    moved = gitlab_project_event("project_transfer", "ops/engine", old_path_with_namespace="acme/engine")
    assert post_gitlab(web, moved, 202).text == IGNORED
    assert stored(web, "gitlab", "ops", "engine") is None  # ops is the operator's: not the host's to name
    with web.app.app_context():
        get_owner("gitlab", "ops").service_id = "11"
        get_session().commit()
    post_gitlab(web, gitlab_project_event("project_transfer", "ops/engine", old_path_with_namespace="acme/engine"))
    assert stored(web, "gitlab", "ops", "engine")["upload_token"] == before["upload_token"]  # type: ignore[index]
    post_gitlab(web, gitlab_project_event("project_destroy", "ops/engine"))
    assert stored(web, "gitlab", "ops", "engine")["deleted"]  # type: ignore[index]


def test_gitlab_group_renamed(web: webtest.TestApp) -> None:
    payload = {
        "event_name": "group_rename",
        "created_at": "2026-11-28T12:00:00Z",
        "updated_at": "2026-11-28T12:00:00Z",
        "name": "Acme Inc",
        "path": "acme-inc",
        "full_path": "acme-inc",
        "group_id": 10,
        "owner_name": None,
        "owner_email": None,
        "old_path": "acme",
        "old_full_path": "acme",
    }
    post_gitlab(web, payload)
    assert reads(web, "gitlab", "alice", "acme-inc") == {"widgets", "gadgets", "site", "manual"}
    # A subgroup's path is not a name here: nothing changes.
    assert post_gitlab(web, {**payload, "full_path": "parent/acme"}, 202).text.startswith("Ignored")


def test_gitlab_user_renamed(web: webtest.TestApp) -> None:
    payload = {"event_name": "user_rename", "created_at": "2026-11-28T12:00:00Z", "updated_at": "2026-11-28T12:00:00Z"}
    payload.update(name="Bob", email="bob@example.com", user_id=2, username="robert", old_username="bob")
    assert post_gitlab(web, payload).text == "Synced: robert synced.\n"
    assert members(web, "gitlab") == {"alice": True, "robert": False}


def test_gitlab_refusals(web: webtest.TestApp) -> None:
    before = snapshot(web)
    # An unknown namespace, a subgroup, an unknown project, an unknown user.
    assert post_gitlab(web, gitlab_project_event("project_create", "nobody/x", 200), 202).text == IGNORED
    assert post_gitlab(web, gitlab_project_event("project_create", "acme/sub/x", 201), 202).text == IGNORED
    assert post_gitlab(web, gitlab_project_event("project_destroy", "acme/x", 999), 202).text == IGNORED
    stranger = {**gitlab_member_event("user_add_to_group", "carol", group=True), "user_id": 99}
    assert post_gitlab(web, stranger, 202).text == IGNORED
    # Wrong secrets, a project's own secret, bad fields.
    post_gitlab(web, gitlab_project_event("project_destroy"), 403, secret="wrong")
    with web.app.app_context():
        own = operations.webhook_secret("gitlab", "acme", "widgets")
    signed_by_project = {**gitlab_project_event("project_destroy"), "project": {"path_with_namespace": "acme/widgets"}}
    assert "service's secret" in post_gitlab(web, signed_by_project, 202, secret=own).text
    post_gitlab(web, {**gitlab_member_event("user_add_to_team", "carol", group=False), "access_level": "Boss"}, 400)
    post_gitlab(web, {**gitlab_project_event("project_rename"), "project_id": [1]}, 400)
    assert snapshot(web) == before


def test_the_system_hook_secret_signs_no_pull_request(web: webtest.TestApp) -> None:
    # GitLab sends a system hook's other triggers too (repository_update, ticked by default): understood,
    # and nothing done; a merge request signed with it changes no pull.
    before = snapshot(web)
    merge_request = {
        "object_kind": "merge_request",
        "project": {"path_with_namespace": "acme/widgets"},
        "object_attributes": {"iid": 1, "state": "opened", "title": "t", "target_branch": "main", "source_branch": "x"},
    }
    for payload in (merge_request, {"event_name": "repository_update", "project_id": 100, "changes": []}):
        answer = post_gitlab(web, payload, 202)
        assert answer.text == "Ignored: the system hook's secret signs events about accounts only.\n"
    assert snapshot(web) == before


def test_gitlab_user_and_group_ids_are_numbered_apart(web: webtest.TestApp) -> None:
    with web.app.app_context():
        apply_host_view(ServiceEnum.gitlab, HostView(HostOwner("dave", "10", False), (), ()))
    # User 10 (dave) joins group 10 (acme): each found as what it is.
    payload = {**gitlab_member_event("user_add_to_group", "carol", group=True), "user_id": 10, "user_username": "dave"}
    assert post_gitlab(web, payload).text == "Synced: dave is a member of acme.\n"
    assert members(web, "gitlab")["dave"] is False


# -- Bitbucket Cloud ---------------------------------------------------------------------------------------


def bitbucket_repository(slug: str = "widgets", number: int = 100, *, private: bool = True) -> dict[str, Any]:
    """A repository as Bitbucket's events describe it (its common entity)."""
    workspace = {"type": "workspace", "slug": "acme", "name": "Acme", "uuid": IDS["bitbucket"](10)}
    return {
        "type": "repository",
        "name": slug.title(),
        "full_name": f"acme/{slug}",
        "uuid": IDS["bitbucket"](number),
        "is_private": private,
        "scm": "git",
        "workspace": workspace,
        "owner": {"type": "team", "display_name": "Acme", "uuid": IDS["bitbucket"](10), "username": "acme"},
        "links": {"html": {"href": f"https://bitbucket.org/acme/{slug}"}},
        "project": {"type": "project", "key": "PROJ", "uuid": "{p}", "name": "Project"},
        "website": "",
    }


def test_bitbucket_repositories_updated_and_deleted(web: webtest.TestApp) -> None:
    before = stored(web, "bitbucket", "acme", "widgets")
    changes = {"name": {"new": "Engine", "old": "Widgets"}, "full_name": {"new": "acme/engine", "old": "acme/widgets"}}
    # The repository as it was, its new names in the changes.
    post_bitbucket(web, "repo:updated", {"actor": {}, "repository": bitbucket_repository(), "changes": changes})
    assert stored(web, "bitbucket", "acme", "engine") == before
    assert reads(web, "bitbucket", "bob") == {"engine", "site", "manual"}
    post_bitbucket(web, "repo:updated", {"repository": bitbucket_repository("site", 102, private=True), "changes": {}})
    assert "site" not in reads(web, "bitbucket", None)
    post_bitbucket(web, "repo:transfer", {"repository": bitbucket_repository("engine"), "previous_owner": {}})
    post_bitbucket(web, "repo:deleted", {"repository": bitbucket_repository("engine")})
    assert stored(web, "bitbucket", "acme", "engine")["deleted"]  # type: ignore[index]
    assert post_bitbucket(web, "repo:deleted", {"repository": bitbucket_repository("x", 999)}, 202).text == IGNORED


def test_bitbucket_events_with_a_repository_s_own_secret_change_nothing(web: webtest.TestApp) -> None:
    before = snapshot(web)
    with web.app.app_context():
        own = operations.webhook_secret("bitbucket", "acme", "widgets")
    answer = post_bitbucket(web, "repo:updated", {"repository": bitbucket_repository(private=False)}, 202, secret=own)
    assert "service's secret" in answer.text
    post_bitbucket(web, "repo:updated", {"repository": {**bitbucket_repository(), "uuid": None}}, 400)
    assert snapshot(web) == before


# -- GitHub's description of its payloads ---------------------------------------------------------------------


@functools.cache
def github_description() -> dict[str, Any]:
    """``@octokit/openapi``'s description of api.github.com (installed with Prism, once)."""
    from test_github_prism import install_prism

    return {"components": json.loads(install_prism()[1].read_text())["components"]}


@pytest.mark.clients
@pytest.mark.parametrize("schema", sorted(GITHUB_PAYLOADS))
def test_the_github_payloads_are_shaped_as_github_describes_them(schema: str) -> None:
    """Each payload the tests send validates against its ``webhook-*`` schema in ``@octokit/openapi``."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator({"$ref": f"#/components/schemas/webhook-{schema}", **github_description()})
    errors = [
        f"{list(error.absolute_path)}: {error.message[:200]}"
        for error in validator.iter_errors(GITHUB_PAYLOADS[schema]())
    ]
    assert errors == []
