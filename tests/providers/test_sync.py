"""The sync from the git host (docs/sign-in.md): what each host's API says of a user, read page after
page from recording fakes on loopback, and how writing it changes who reads what."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
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
)
from flask import Flask

from flask_coverage.auth import can_read_repository, reader_id
from flask_coverage.cli import coverage_cli
from flask_coverage.models import HostAccount, Membership, Owner, Repository, RepositoryReader, ServiceEnum, utcnow
from flask_coverage.operations import add_member, add_org, add_repo, add_user
from flask_coverage.providers import ProviderError
from flask_coverage.providers.accounts import HostOwner, HostRepository, HostView, read_host_view
from flask_coverage.queries.lists import owner_repositories
from flask_coverage.queries.repositories import find_repository, get_owner
from flask_coverage.state import get_session
from flask_coverage.sync import SyncFailed, apply_host_view, encrypt_token, sync_user

TOKEN = "gho_signed_in_token"  # noqa: S105 - the fakes'
GH = ServiceEnum.github
ALICE = HostOwner("alice", "1", False)
ACME, BETA = HostOwner("acme", "10", True), HostOwner("beta", "20", True)


def repo(owner: HostOwner, name: str, repo_id: int, *, private: bool = True) -> HostRepository:
    return HostRepository(owner, name, str(repo_id), private, "main")


def view(orgs: list[tuple[HostOwner, bool]], repos: list[HostRepository], user: HostOwner = ALICE) -> HostView:
    return HostView(user, tuple(orgs), tuple(repos))


@pytest.fixture
def github() -> Iterator[FakeHost]:
    with fake_host() as host:
        github_account_routes(host)
        host.state.update(access_token=TOKEN, user={"login": "alice", "id": 1})
        yield host


def readable(user: Owner) -> set[str]:
    return {
        f"{r.owner.username}/{r.name}"
        for r in get_session().execute(sa.select(Repository)).scalars()
        if can_read_repository(user, r)
    }


def memberships(user: Owner) -> dict[str, tuple[bool, bool]]:
    query = (
        sa.select(Owner.username, Membership.activated, Membership.is_admin)
        .join(Membership, Membership.org_id == Owner.id)
        .where(Membership.user_id == user.id)
    )
    return {name: (activated, admin) for name, activated, admin in get_session().execute(query)}


# -- reading the hosts ---------------------------------------------------------------------------


def test_github_is_read_page_after_page_past_100_items(github: FakeHost) -> None:
    github.state["orgs"] = [(f"org{n}", 100 + n, "admin" if n == 0 else "member") for n in range(120)]
    repos = [github_repository("org0", 100, f"repo{n}", 1000 + n, private=n % 2 == 0) for n in range(250)]
    github.state["repos"] = repos
    found = read_host_view("github", {"url": github.url}, TOKEN)
    assert found.user == HostOwner("alice", "1", False)
    assert len(found.organizations) == 120 and found.organizations[0] == (HostOwner("org0", "100", True), True)
    assert not any(admin for _, admin in found.organizations[1:])
    assert [r.name for r in found.repositories] == [f"repo{n}" for n in range(250)]
    assert sum(r.private for r in found.repositories) == 125
    # The floor: one call for the user, two pages of organizations, three of repositories.
    assert [r.route for r in github.requests].count("/user/memberships/orgs") == 2
    assert [r.route for r in github.requests].count("/user/repos") == 3
    assert len(github.requests) == 6
    assert all(r.headers["Authorization"] == f"Bearer {TOKEN}" for r in github.requests)


def test_a_spent_rate_limit_stops_the_reading_with_the_wait(github: FakeHost) -> None:
    github.state["repos"] = [github_repository("acme", 10, f"r{n}", n, private=True) for n in range(150)]
    github.state["rate_remaining"] = 0
    with pytest.raises(ProviderError) as raised:
        read_host_view("github", {"url": github.url}, TOKEN)
    assert raised.value.retry_after is not None and raised.value.retry_after > 0
    assert [r.route for r in github.requests].count("/user/repos") == 1  # no page asked past the limit


def test_a_repository_the_user_cannot_pull_is_left_out(github: FakeHost) -> None:
    hidden = github_repository("acme", 10, "hidden", 7, private=True)
    hidden["permissions"] = {"admin": False, "push": False, "pull": False}
    github.state["repos"] = [hidden, github_repository("acme", 10, "shown", 8, private=True)]
    assert [r.name for r in read_host_view("github", {"url": github.url}, TOKEN).repositories] == ["shown"]


@pytest.mark.parametrize(
    "answer", [(401, {"message": "Bad credentials"}, {}), (404, {}, {}), (200, b"<html>", {}), (200, {"login": 5}, {})]
)
def test_a_host_that_refuses_or_answers_garbage_is_an_error(github: FakeHost, answer: Any) -> None:
    github.routes.insert(0, ("GET", re.compile(r"/user(\?.*)?$"), lambda request, match: answer))
    with pytest.raises(ProviderError):
        read_host_view("github", {"url": github.url}, TOKEN)


def test_gitlab_groups_roles_and_projects() -> None:
    with fake_host() as host:
        gitlab_account_routes(host)
        host.state.update(
            access_token=TOKEN,
            user={"username": "alice", "id": 1, "name": "Alice"},
            groups=[("acme", 10, 50), ("beta", 20, 30), ("gamma", 30, 40)],
            projects=[gitlab_project("acme", 10, f"p{n}", n, private=n % 3 == 0) for n in range(130)],
        )
        found = read_host_view("gitlab", {"url": host.url + "/api/v4"}, TOKEN)
        routes = [r.route for r in host.requests]
    assert found.user.username == "alice"
    assert [(org.username, admin) for org, admin in found.organizations] == [
        ("acme", True),
        ("beta", False),
        ("gamma", True),
    ]
    assert len(found.repositories) == 130 and sum(r.private for r in found.repositories) == 44
    assert found.repositories[0].owner == HostOwner("acme", "10", True, "acme")
    assert routes.count("/api/v4/projects") == 2


def test_gitlab_personal_projects_are_owned_by_their_user_s_id() -> None:
    def personal(path: str, project_id: int, owner: Any) -> dict[str, Any]:
        namespace = {"id": 57, "full_path": "bob", "kind": "user", "name": "Bob"}
        return {"id": project_id, "path": path, "namespace": namespace, "visibility": "private", **owner}

    with fake_host() as host:
        gitlab_account_routes(host)
        projects = [personal("notes", 1, {"owner": {"id": 2, "name": "Bob"}}), personal("old", 2, {})]
        host.state.update(access_token=TOKEN, user={"username": "alice", "id": 1}, projects=projects)
        found = read_host_view("gitlab", {"url": host.url + "/api/v4"}, TOKEN)
    # bob's user id, not his namespace's 57 (another user's id, maybe); a project that names no owner is left out.
    assert [(r.name, r.owner) for r in found.repositories] == [("notes", HostOwner("bob", "2", False, "Bob"))]


def test_bitbucket_workspaces_roles_and_repositories() -> None:
    with fake_host() as host:
        bitbucket_account_routes(host)
        host.state.update(
            access_token=TOKEN,
            user={"username": "alice", "uuid": "{a}", "display_name": "Alice"},
            workspaces=[("alice", "{a}", "owner"), ("acme", "{acme}", "owner"), ("beta", "{beta}", "member")],
            repositories=[bitbucket_repository("acme", f"r{n}", f"{{r{n}}}", private=n < 5) for n in range(105)]
            + [bitbucket_repository("alice", "mine", "{mine}", private=True)],
        )
        found = read_host_view("bitbucket", {"url": host.url + "/2.0"}, TOKEN)
        routes = [r.route for r in host.requests]
    assert [(org.username, admin) for org, admin in found.organizations] == [("acme", True), ("beta", False)]
    assert len(found.repositories) == 106 and sum(r.private for r in found.repositories) == 6
    assert found.repositories[-1].owner == found.user
    assert routes.count("/2.0/repositories") == 2


# -- writing what the host says ------------------------------------------------------------------


def test_roles_private_access_per_repository_and_removal(app: Flask) -> None:
    with app.app_context():
        first = view(
            [(ACME, True), (BETA, False)],
            [repo(ACME, "widgets", 100), repo(ACME, "public", 101, private=False), repo(BETA, "secret", 200)],
        )
        alice = apply_host_view(GH, first)
        assert memberships(alice) == {"acme": (True, True), "beta": (True, False)}
        assert readable(alice) == {"acme/widgets", "acme/public", "beta/secret"}
        # Carol is a member of acme too, but the host lets her read none of its private repositories.
        carol = apply_host_view(GH, view([(ACME, False)], [], HostOwner("carol", "3", False)))
        assert readable(carol) == {"acme/public"}
        acme = get_owner(GH, "acme")
        assert acme is not None
        listed = [r.name for r, _ in owner_repositories(acme.id, reader_id=reader_id(carol))]
        assert listed == ["public"]
        # Dave, an outside collaborator (no membership), is let read widgets: it is in his list of acme's.
        dave = apply_host_view(GH, view([], [repo(ACME, "widgets", 100)], HostOwner("dave", "4", False)))
        assert memberships(dave) == {} and readable(dave) == {"acme/widgets", "acme/public"}
        assert [r.name for r, _ in owner_repositories(acme.id, reader_id=reader_id(dave))] == ["public", "widgets"]
        assert [r.name for r, _ in owner_repositories(acme.id)] == ["public"]  # anonymous

        # The host takes beta and acme's admin role away, and widgets with them.
        apply_host_view(GH, view([(ACME, False)], [repo(ACME, "public", 101, private=False)]))
        assert memberships(alice) == {"acme": (True, False)}
        assert readable(alice) == {"acme/public"}
        # What the host stopped granting is gone; the repositories stay, with their tokens.
        assert find_repository(GH, "acme", "widgets") is not None and find_repository(GH, "beta", "secret") is not None


def test_renames_keep_the_repository_and_its_tokens(app: Flask) -> None:
    with app.app_context():
        apply_host_view(GH, view([(ACME, True)], [repo(ACME, "widgets", 100)]))
        before = find_repository(GH, "acme", "widgets")
        assert before is not None
        ident, token = before.id, before.upload_token
        renamed = HostOwner("acme-inc", "10", True)
        apply_host_view(GH, view([(renamed, True)], [repo(renamed, "gadgets", 100)]))
        after = find_repository(GH, "acme-inc", "gadgets")
        assert after is not None and (after.id, after.upload_token) == (ident, token)
        assert get_owner(GH, "acme") is None and find_repository(GH, "acme", "widgets") is None


def test_a_new_repository_with_an_old_one_s_name_starts_anew(app: Flask) -> None:
    with app.app_context():
        alice = apply_host_view(GH, view([(ACME, True)], [repo(ACME, "widgets", 100)]))
        old = find_repository(GH, "acme", "widgets")
        assert old is not None
        ident, token = old.id, old.upload_token
        # Deleted on the host and created again: another id.
        apply_host_view(GH, view([(ACME, True)], [repo(ACME, "widgets", 200)]))
        kept = find_repository(GH, "acme", "widgets~100")
        assert kept is not None and (kept.id, kept.upload_token) == (ident, token)
        new = find_repository(GH, "acme", "widgets")
        assert new is not None and new.id != ident and new.upload_token != token
        assert readable(alice) == {"acme/widgets"}


@pytest.mark.parametrize("renamed_first", [True, False])
def test_a_rename_and_a_new_repository_in_its_place_in_one_sync(app: Flask, renamed_first: bool) -> None:
    with app.app_context():
        apply_host_view(GH, view([(ACME, True)], [repo(ACME, "widgets", 100)]))
        ident = find_repository(GH, "acme", "widgets").id  # type: ignore[union-attr]
        listed = [repo(ACME, "gadgets", 100), repo(ACME, "widgets", 300)]
        apply_host_view(GH, view([(ACME, True)], listed if renamed_first else listed[::-1]))
        assert find_repository(GH, "acme", "gadgets").id == ident  # type: ignore[union-attr]
        assert find_repository(GH, "acme", "widgets").service_id == "300"  # type: ignore[union-attr]
        assert find_repository(GH, "acme", "widgets~100") is None


def test_a_gitlab_user_and_a_group_of_the_same_id_are_two_owners(app: Flask) -> None:
    # GitLab numbers its users and its groups apart: user 10 is not group 10.
    gitlab = ServiceEnum.gitlab
    group = HostOwner("acme", "10", True)
    with app.app_context():
        alice = apply_host_view(gitlab, view([(group, False)], [repo(group, "widgets", 100)]))
        dave = apply_host_view(gitlab, view([], [], user=HostOwner("dave", "10", False)))
        acme = get_owner(gitlab, "acme")
        assert acme is not None and acme.is_org and acme.id != dave.id
        assert readable(alice) == {"acme/widgets"} and readable(dave) == set()


def test_what_the_operator_created_stays_and_the_host_wins_where_both_know(app: Flask) -> None:
    with app.app_context():
        add_org(GH, "ops")
        add_org(GH, "acme")
        add_user(GH, "alice")
        add_user(GH, "bob")
        add_member(GH, "ops", "alice", activated=True)
        add_member(GH, "acme", "bob", activated=True)
        add_repo(GH, "ops", "tool", private=True)
        add_repo(GH, "acme", "widgets", private=True)
        bob = get_owner(GH, "bob")
        assert bob is not None and readable(bob) == {"acme/widgets"}

        alice = apply_host_view(GH, view([(ACME, False)], [repo(ACME, "widgets", 100)]))
        # ops is the operator's alone: alice's membership and what it opens stay.
        assert memberships(alice) == {"acme": (True, False), "ops": (True, False)}
        assert readable(alice) == {"acme/widgets", "ops/tool"}
        # acme/widgets is the host's now: bob's operator-made membership no longer opens it.
        assert readable(bob) == set()


def test_a_sync_that_fails_half_way_keeps_the_previous_permissions(app: Flask, github: FakeHost) -> None:
    app.config.update(
        COVERAGE_PROVIDERS={"github": {"url": github.url, "client_id": "c", "client_secret": "s"}},
        COVERAGE_SIGN_IN_KEY=Fernet.generate_key().decode(),
    )
    github.state["orgs"] = [("acme", 10, "member")]
    github.state["repos"] = [github_repository("acme", 10, f"r{n}", n, private=True) for n in range(150)]
    with app.app_context():
        alice = apply_host_view(GH, read_host_view("github", {"url": github.url}, TOKEN))
        get_session().add(HostAccount(owner_id=alice.id, token=encrypt_token(TOKEN), synced_at=utcnow()))
        get_session().commit()
        before = readable(alice)
        assert len(before) == 150

        # The host now grants less, but fails on the second page of repositories.
        github.state["repos"] = github.state["repos"][:120]
        github.state["orgs"] = []
        original = github.answer

        def second_page_fails(request: Any) -> Any:
            return (502, b"", {}) if "page=2" in request.path else original(request)

        github.answer = second_page_fails  # type: ignore[method-assign]
        with pytest.raises(SyncFailed):
            sync_user(alice)
        get_session().rollback()
        assert readable(alice) == before and memberships(alice) == {"acme": (True, False)}
        github.answer = original  # type: ignore[method-assign]
        sync_user(alice)
        assert len(readable(alice)) == 120 and memberships(alice) == {}
        rows = get_session().execute(sa.select(RepositoryReader).where(RepositoryReader.user_id == alice.id)).all()
        assert len(rows) == 120


def test_the_cli_syncs_a_member_with_their_stored_token(app: Flask, github: FakeHost) -> None:
    app.config.update(
        COVERAGE_PROVIDERS={"github": {"url": github.url, "client_id": "c", "client_secret": "s"}},
        COVERAGE_SIGN_IN_KEY=Fernet.generate_key().decode(),
    )
    github.state["orgs"] = [("acme", 10, "admin")]
    github.state["repos"] = [github_repository("acme", 10, "widgets", 100, private=True)]
    with app.app_context():
        alice = apply_host_view(GH, view([(ACME, False)], []))
        get_session().add(HostAccount(owner_id=alice.id, token=encrypt_token(TOKEN)))
        get_session().commit()
    runner = app.test_cli_runner()
    result = runner.invoke(coverage_cli, ["sync", "gh/acme", "--user", "alice"])
    assert result.exit_code == 0, result.output
    assert "Synced alice." in result.output and TOKEN not in result.output
    with app.app_context():
        alice = get_owner(GH, "alice")
        assert alice is not None and readable(alice) == {"acme/widgets"}
        assert memberships(alice) == {"acme": (True, True)}
    github.state["access_token"] = "a-token-alice-never-had"  # the stored one is refused now: 401
    result = runner.invoke(coverage_cli, ["sync", "gh/acme"])
    assert result.exit_code == 1 and "Not synced alice" in result.output and TOKEN not in result.output
    with app.app_context():
        alice = get_owner(GH, "alice")
        assert alice is not None and readable(alice) == {"acme/widgets"}
