"""Every operator command, through ``flask coverage ...`` (Flask's CliRunner)."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa
import webtest

from flask_coverage.cli import coverage_cli
from flask_coverage.feedback.notify import send_due
from flask_coverage.models import AccessToken, Commit, Membership, Owner, Repository, RepositoryReader, metadata
from flask_coverage.operations import add_member, add_org, add_user, create_token, set_repository_yaml
from flask_coverage.queries.repositories import get_owner
from tests.fake_provider import RecordingProvider

URL = "/api/v2/github/acme/users/"


def snapshot(db) -> dict[str, list[tuple]]:
    """Every row of every table, to prove a failed command changed nothing."""
    db.session.remove()
    with db.engine.connect() as connection:
        return {
            table.name: sorted(map(tuple, connection.execute(sa.select(table))), key=repr)
            for table in metadata.sorted_tables
        }


def run_ok(runner, *args: str):
    result = runner.invoke(args=["coverage", *args])
    assert result.exit_code == 0, result.output
    return result


def run_error(runner, db, *args: str) -> str:
    """Run a failing command; check it printed one line on stderr and changed nothing."""
    before = snapshot(db)
    result = runner.invoke(args=["coverage", *args])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert snapshot(db) == before
    return lines[0]


@pytest.fixture
def acme(runner):
    run_ok(runner, "add-org", "github", "acme", "--name", "Acme Inc")
    run_ok(runner, "add-user", "github", "alice", "--name", "Alice", "--email", "alice@example.com")


def test_init_db_is_idempotent(runner, db) -> None:
    run_ok(runner, "add-user", "github", "alice")
    assert "ready" in run_ok(runner, "init-db").output
    run_ok(runner, "init-db")
    assert get_owner("github", "alice") is not None


def test_init_db_creates_the_tables(make_app, make_database_url) -> None:
    app = make_app(make_database_url())
    with app.app_context():
        metadata.drop_all(bind=app.extensions["sqlalchemy"].engine)
    result = app.test_cli_runner().invoke(args=["coverage", "init-db"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        names = sa.inspect(app.extensions["sqlalchemy"].engine).get_table_names()
    assert {table.name for table in metadata.sorted_tables} <= set(names)


def test_add_user_and_org(runner, db, acme) -> None:
    alice = get_owner("github", "ALICE")
    assert (alice.name, alice.email, alice.is_org) == ("Alice", "alice@example.com", False)
    acme_row = get_owner("github", "acme")
    assert (acme_row.name, acme_row.is_org) == ("Acme Inc", True)


@pytest.mark.parametrize("command", ["add-user", "add-org"])
def test_add_owner_errors(runner, db, acme, command) -> None:
    assert "unknown service 'githab'" in run_error(runner, db, command, "githab", "zed")
    assert "already exists" in run_error(runner, db, command, "github", "Alice")
    assert "already exists" in run_error(runner, db, command, "github", "ACME")
    assert "must not be empty" in run_error(runner, db, command, "github", "  ")
    assert "expected SERVICE/" in run_error(runner, db, command, "github", "a/b")
    assert "longer than 255" in run_error(runner, db, command, "github", "x" * 256)


def test_add_member(runner, db, acme) -> None:
    run_ok(runner, "add-user", "github", "bob")
    run_ok(runner, "add-member", "github", "acme", "alice", "--activated", "--admin")
    run_ok(runner, "add-member", "github", "ACME", "Bob", "--deactivated")
    rows = db.session.execute(
        sa.select(Owner.username, Membership.activated, Membership.is_admin)
        .join(Membership, Membership.user_id == Owner.id)
        .order_by(Owner.username)
    ).all()
    assert [tuple(row) for row in rows] == [("alice", True, True), ("bob", False, False)]


def test_a_member_added_deactivated_is_told_how_to_activate(runner, db, acme, client) -> None:
    token = create_token("github", "alice", name="ci")[1]
    added = run_ok(runner, "add-member", "gh/acme", "alice", "--deactivated").output.splitlines()
    assert added[0] == (
        "Added alice to acme, deactivated: alice sees nothing of acme (its private repositories, its members: "
        "404) until activated with"
    )
    assert client.get(URL, headers={"Authorization": f"Bearer {token}"}).status_code == 404
    # The printed command, as printed, opens the users list.
    command = added[1].split()
    assert command[:2] == ["flask", "coverage"]
    run_ok(runner, *command[2:])
    assert client.get(URL, headers={"Authorization": f"Bearer {token}"}).status_code == 200
    run_ok(runner, "add-user", "gh/bob")
    assert run_ok(runner, "add-member", "gh/acme", "bob", "--activated").output == "Added bob to acme.\n"


def test_a_member_added_without_options_is_activated_and_sees_private_data(runner, db, acme, client) -> None:
    token = create_token("github", "alice", name="ci")[1]
    assert run_ok(runner, "add-member", "gh/acme", "alice").output == "Added alice to acme.\n"
    assert client.get(URL, headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_add_member_errors(runner, db, acme) -> None:
    run_ok(runner, "add-member", "github", "acme", "alice")
    assert "already a member" in run_error(runner, db, "add-member", "github", "acme", "alice")
    assert "no organization 'nope'" in run_error(runner, db, "add-member", "github", "nope", "alice")
    assert "no user 'ghost'" in run_error(runner, db, "add-member", "github", "acme", "ghost")
    assert "no organization 'alice'" in run_error(runner, db, "add-member", "github", "alice", "alice")
    assert "no user 'acme'" in run_error(runner, db, "add-member", "github", "acme", "acme")
    assert "no organization 'acme' on gitlab" in run_error(runner, db, "add-member", "gitlab", "acme", "alice")
    assert "unknown service" in run_error(runner, db, "add-member", "svn", "acme", "alice")
    assert "no organization ''" in run_error(runner, db, "add-member", "github", "", "alice")


def test_add_repo_prints_both_tokens(runner, db, acme) -> None:
    result = run_ok(runner, "add-repo", "github", "acme", "web", "--private", "--branch", "develop")
    lines = result.output.strip().splitlines()
    repo = db.session.execute(sa.select(Repository)).scalar_one()
    assert lines == [f"upload_token={repo.upload_token}", f"graph_token={repo.image_token}"]
    assert (repo.private, repo.branch, repo.owner.username) == (True, "develop", "acme")


def test_add_repo_errors(runner, db, acme) -> None:
    run_ok(runner, "add-repo", "github", "alice", "tool")
    assert "already exists" in run_error(runner, db, "add-repo", "github", "alice", "TOOL")
    assert "no owner 'ghost'" in run_error(runner, db, "add-repo", "github", "ghost", "tool")
    assert "must not be empty" in run_error(runner, db, "add-repo", "github", "alice", "")
    assert "unknown service" in run_error(runner, db, "add-repo", "cvs", "alice", "x")
    assert "branch" in run_error(runner, db, "add-repo", "github", "alice", "x", "--branch", " ")


def test_create_token_prints_it_alone_on_the_last_line_and_stores_a_hash(runner, db, acme) -> None:
    result = run_ok(runner, "create-token", "github", "alice", "--name", "ci token")
    token = result.output.strip().splitlines()[-1]
    assert len(token) == 36
    row = db.session.execute(sa.select(AccessToken)).scalar_one()
    assert row.name == "ci token" and token not in row.token_hash


def test_token_errors(runner, db, acme) -> None:
    run_ok(runner, "create-token", "github", "alice", "--name", "ci")
    assert "already has a token named 'ci'" in run_error(runner, db, "create-token", "github", "alice", "--name", "ci")
    assert "must not be empty" in run_error(runner, db, "create-token", "github", "alice", "--name", " ")
    assert "longer than 100" in run_error(runner, db, "create-token", "github", "alice", "--name", "n" * 101)
    assert "organizations cannot" in run_error(runner, db, "create-token", "github", "acme", "--name", "x")
    assert "no owner 'ghost'" in run_error(runner, db, "create-token", "github", "ghost", "--name", "x")
    assert "unknown service" in run_error(runner, db, "create-token", "hg", "alice", "--name", "x")
    assert "has no token named 'other'" in run_error(runner, db, "revoke-token", "github", "alice", "--name", "other")
    assert "no owner 'ghost'" in run_error(runner, db, "revoke-token", "github", "ghost", "--name", "ci")


def test_revoke_token_stops_it_from_working(runner, db, acme) -> None:
    from flask_coverage.auth import default_verify_token

    token = run_ok(runner, "create-token", "github", "alice", "--name", "ci").output.strip().splitlines()[-1]
    assert default_verify_token(token).username == "alice"
    run_ok(runner, "revoke-token", "github", "alice", "--name", "ci")
    assert default_verify_token(token) is None
    assert db.session.execute(sa.select(sa.func.count()).select_from(AccessToken)).scalar() == 0


def test_commands_before_init_db_say_what_to_do(make_app, make_database_url, make_runner) -> None:
    app = make_app(make_database_url())
    with app.app_context():
        metadata.drop_all(bind=app.extensions["sqlalchemy"].engine)
    result = make_runner(app).invoke(args=["coverage", "add-user", "github", "alice"])
    assert result.exit_code == 1
    assert "init-db" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ("add-org", "github", "ac\u202eme"),
        ("add-user", "github", "bob", "--name", "B\u2066ob"),
        ("add-repo", "github", "acme", "w\u200bx"),
        ("add-repo", "github", "acme", "wx", "--branch", "a\x85b"),
        ("create-token", "github", "alice", "--name", "ci\u2028token"),
    ],
)
def test_names_that_cannot_be_shown_are_refused(runner, db, args: tuple[str, ...]) -> None:
    run_ok(runner, "add-org", "github", "acme")
    run_ok(runner, "add-user", "github", "alice")
    assert "must not contain control, format" in run_error(runner, db, *args)


# --- the operator lifecycle: remove-member, rotate-token, delete-repo, list-tokens -----------------

SHA = "c0ffee" + "0" * 34


def upload(testapp, token: str, status: int = 200, **params: str) -> Any:
    query = urlencode({"token": token, "commit": SHA, "branch": "main", **params})
    body = b"SF:a.py\nDA:1,1\nDA:2,0\nend_of_record\n"
    return testapp.post(f"/upload/v2?{query}", body, headers={"Content-Type": "text/plain"}, status=status)


def repo_row(db, owner: str = "acme", name: str = "vault") -> Repository:
    db.session.expire_all()
    return db.session.execute(sa.select(Repository).where(Repository.name == name)).scalar_one()


def test_remove_member_closes_private_repositories_at_once(app, runner, db, acme) -> None:
    testapp = webtest.TestApp(app)
    run_ok(runner, "add-repo", "github", "acme", "vault", "--private")
    run_ok(runner, "add-member", "github", "acme", "alice", "--activated")
    token = run_ok(runner, "create-token", "github", "alice", "--name", "t").output.strip().splitlines()[-1]
    upload(testapp, repo_row(db).upload_token)
    report = "/api/v2/github/acme/repos/vault/report/"
    testapp.get(report, headers={"Authorization": f"Bearer {token}"}, status=200)
    assert run_ok(runner, "remove-member", "github", "acme", "ALICE").output == "Removed ALICE from acme.\n"
    testapp.get(report, headers={"Authorization": f"Bearer {token}"}, status=404)
    assert db.session.execute(sa.select(sa.func.count()).select_from(Membership)).scalar() == 0
    assert get_owner("github", "alice") is not None  # the user stays


def test_remove_member_errors(runner, db, acme) -> None:
    assert "'alice' is not a member of 'acme'" in run_error(runner, db, "remove-member", "github", "acme", "alice")
    assert "no organization 'alice'" in run_error(runner, db, "remove-member", "github", "alice", "acme")
    assert "no user 'ghost'" in run_error(runner, db, "remove-member", "github", "acme", "ghost")
    assert "unknown service" in run_error(runner, db, "remove-member", "svn", "acme", "alice")


def test_rotate_token_stops_the_old_one_on_every_worker(app, runner, db, acme, make_app) -> None:
    """Two apps on one database stand for two workers: neither keeps the old token anywhere."""
    workers = [webtest.TestApp(app), webtest.TestApp(make_app(app.config["SQLALCHEMY_DATABASE_URI"]))]
    run_ok(runner, "add-repo", "github", "acme", "vault", "--private")
    old = repo_row(db)
    old_upload, old_graph = old.upload_token, old.image_token
    graph = "/gh/acme/vault/graphs/tree.svg?token="
    for worker in workers:
        upload(worker, old_upload)
        worker.get(graph + old_graph, status=200)  # drawn and cached with the old token
    new_upload = run_ok(runner, "rotate-token", "github", "acme", "vault", "--upload").output.strip()
    assert new_upload == f"upload_token={repo_row(db).upload_token}" and old_upload not in new_upload
    new_graph = run_ok(runner, "rotate-token", "github", "acme", "Vault", "--graph").output.strip()
    assert new_graph == f"graph_token={repo_row(db).image_token}" and repo_row(db).image_token != old_graph
    for worker in workers:
        assert "upload token is not valid" in upload(worker, old_upload, status=401).text
        upload(worker, repo_row(db).upload_token)
        worker.get(graph + old_graph, status=404)
        worker.get(graph + repo_row(db).image_token, status=200)


def test_rotate_token_errors(runner, db, acme) -> None:
    run_ok(runner, "add-repo", "github", "acme", "vault")
    for flags in ((), ("--upload", "--graph")):
        assert "--upload or --graph" in run_error(runner, db, "rotate-token", "github", "acme", "vault", *flags)
    assert "no repository acme/nope on github" in run_error(
        runner, db, "rotate-token", "github", "acme", "nope", "--upload"
    )
    assert "no owner 'ghost'" in run_error(runner, db, "rotate-token", "github", "ghost", "vault", "--graph")


def test_delete_repo_removes_its_coverage_and_frees_the_name(app, runner, db, acme) -> None:
    testapp = webtest.TestApp(app)
    run_ok(runner, "add-repo", "github", "acme", "vault")
    run_ok(runner, "add-repo", "github", "acme", "kept")
    old_token = repo_row(db).upload_token
    upload(testapp, old_token, pr="4", flags="unit")
    upload(testapp, repo_row(db, name="kept").upload_token, pr="4", flags="unit")
    for name in ("vault", "kept"):  # the pull's page reads the commit's codecov.yml (coverage_commit_yaml)
        testapp.get(f"/gh/acme/{name}/pull/4")
        run_ok(runner, "webhook-secret", "github", "acme", name)  # coverage_webhook_secret
        # A child commit that carries the flag unit forward (coverage_carried_flag).
        set_repository_yaml("github", "acme", name, "flags:\n  unit:\n    carryforward: true\n")
        upload(testapp, repo_row(db, name=name).upload_token, commit="c" * 40, parent=SHA, flags="child")
    # Feedback sent (coverage_feedback) and owed again (coverage_outbox) for both.
    app.config.update(COVERAGE_PROVIDERS={"github": RecordingProvider()}, COVERAGE_FEEDBACK_DELAY=0)
    for name in ("vault", "kept"):
        upload(testapp, repo_row(db, name=name).upload_token, pr="4", flags="sent")
    send_due()
    for name in ("vault", "kept"):
        upload(testapp, repo_row(db, name=name).upload_token, pr="4", flags="other")
    # A user the git host lets read each (coverage_repository_reader, docs/sign-in.md).
    for name in ("vault", "kept"):
        db.session.add(RepositoryReader(repository_id=repo_row(db, name=name).id, user_id=repo_row(db).owner_id))
    db.session.commit()
    kept = snapshot(db)
    assert run_ok(runner, "delete-repo", "gh/acme/vault", "--yes").output == "Deleted acme/vault and its coverage.\n"
    # Both repositories had the same uploads: every table of repository data lost exactly half its rows.
    after = snapshot(db)
    for table, rows in kept.items():
        # Deliveries are the providers' (ids and digests, forgotten after a week), not a repository's.
        if table in (
            "coverage_owner",
            "coverage_membership",
            "coverage_access_token",
            "coverage_webhook_delivery",
            "coverage_host_account",
        ):
            assert after[table] == rows
        else:
            assert rows and len(after[table]) == len(rows) / 2, table
    testapp.get("/api/v2/github/acme/repos/vault/report/", status=404)
    testapp.get("/api/v2/github/acme/repos/kept/report/", status=200)
    assert "upload token is not valid" in upload(testapp, old_token, status=401).text
    # The name is free: a new, empty repository with new tokens.
    run_ok(runner, "add-repo", "github", "acme", "VAULT")
    assert repo_row(db, name="VAULT").upload_token != old_token
    testapp.get("/api/v2/github/acme/repos/vault/report/", status=404)
    assert "no repository acme/nope on github" in run_error(runner, db, "delete-repo", "github", "acme", "nope")
    assert "unknown service" in run_error(runner, db, "delete-repo", "cvs", "acme", "kept")


def test_list_tokens_shows_names_and_times_never_the_secret(runner, db, acme) -> None:
    assert run_ok(runner, "list-tokens", "github", "alice").output == "alice has no access tokens.\n"
    secrets = [run_ok(runner, "create-token", "github", "alice", "--name", name).output.split()[-1] for name in "ab"]
    from flask_coverage.auth import default_verify_token

    default_verify_token(secrets[0])
    lines = run_ok(runner, "list-tokens", "github", "ALICE").output.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["b", "a"]  # newest first
    assert all(re.fullmatch(r"[ab]\tcreated \d{4}-\d\d-\d\d \d\d:\d\d UTC\tlast used .+", line) for line in lines)
    assert lines[0].endswith("last used never") and lines[1].endswith(" UTC")
    hashes = db.session.execute(sa.select(AccessToken.token_hash)).scalars().all()
    for secret in [*secrets, *hashes]:
        assert secret not in "\n".join(lines)
    assert "no owner 'ghost'" in run_error(runner, db, "list-tokens", "github", "ghost")


def test_every_command_lists_the_services_in_its_help(runner) -> None:
    services = (
        "SERVICE is one of github, gitlab, bitbucket, github_enterprise, gitlab_enterprise, bitbucket_server,"
        " or its prefix in the web URLs (gh, gl, bb, ghe, gle, bbs)"
    )
    assert services in " ".join(runner.invoke(args=["coverage", "--help"]).output.split())
    naming = set(coverage_cli.commands) - {"init-db", "demo", "upload", "notify"}
    assert {"add-repo", "show-repo", "set-member", "list-owners", "list-repos", "delete-org"} <= naming
    for command in naming:
        assert services in " ".join(runner.invoke(args=["coverage", command, "--help"]).output.split()), command


def test_add_repo_sets_the_language(runner, db, acme) -> None:
    run_ok(runner, "add-repo", "github", "acme", "web", "--language", "python")
    assert repo_row(db, name="web").language == "python"
    assert "language is longer than 50" in run_error(
        runner, db, "add-repo", "github", "acme", "x", "--language", "p" * 51
    )
    assert "language must not contain" in run_error(
        runner, db, "add-repo", "github", "acme", "x", "--language", "a\u202e"
    )


@pytest.mark.postgresql
def test_init_db_makes_the_trigram_index_of_the_search(runner, db) -> None:
    result = run_ok(runner, "init-db")
    assert result.output == "Coverage tables are ready.\n"
    indexes = {index["name"] for index in sa.inspect(db.engine).get_indexes("coverage_owner")}
    assert "ix_coverage_owner_search" in indexes


@pytest.mark.postgresql
def test_init_db_without_the_right_to_create_pg_trgm_says_so_and_search_still_works(
    make_app, make_database_url, make_runner
) -> None:
    url = make_database_url()
    role = f"coverage_limited_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with admin.connect() as connection:
        # May create tables, but not extensions (CREATE on the database is what pg_trgm needs).
        connection.execute(sa.text(f"CREATE ROLE {role} LOGIN"))
        connection.execute(sa.text(f"GRANT CREATE ON SCHEMA public TO {role}"))
    app = None
    try:
        app = make_app(sa.make_url(url).set(username=role).render_as_string(hide_password=False))
        result = make_runner(app).invoke(args=["coverage", "init-db"])
        assert result.exit_code == 0, result.output
        assert "No trigram index" in result.output and "pg_trgm" in result.output
        with app.app_context():
            add_org("github", "acme")
            add_user("github", "alice", name="Alice Liddell")
            add_member("github", "acme", "alice", activated=True)  # a deactivated membership reads nothing
            token = create_token("github", "alice", name="ci")[1]
            engine = app.extensions["sqlalchemy"].engine
            assert "ix_coverage_owner_search" not in {
                i["name"] for i in sa.inspect(engine).get_indexes("coverage_owner")
            }
        body = app.test_client().get(URL + "?search=LIDD", headers={"Authorization": f"Bearer {token}"}).json
        assert [user["username"] for user in body["results"]] == ["alice"]
    finally:
        if app is not None:  # its connections go before its role
            with app.app_context():
                app.extensions["sqlalchemy"].engine.dispose()
        with admin.connect() as connection:
            connection.execute(sa.text(f"DROP OWNED BY {role}"))
            connection.execute(sa.text(f"DROP ROLE {role}"))
        admin.dispose()


# --- one way to name things; list, show, set and delete (issue 27) -------------------------------


def count(db, model) -> int:
    db.session.expire_all()
    return db.session.execute(sa.select(sa.func.count()).select_from(model)).scalar()


def test_the_web_path_and_the_separate_words_name_the_same_things(runner, db) -> None:
    run_ok(runner, "add-org", "gh/acme")
    run_ok(runner, "add-user", "github", "alice")  # the separate words still work
    run_ok(runner, "add-user", "gl/alice")
    run_ok(runner, "add-member", "gh/acme", "alice", "--activated")
    # The same membership, written as one path.
    assert "'alice' is already a member of 'acme'" in run_error(runner, db, "add-member", "gh/acme/ALICE")
    run_ok(runner, "add-repo", "gh/acme/widgets")
    run_ok(runner, "add-repo", "github", "acme", "tools")
    run_ok(runner, "add-repo", "/gh/acme/site/")  # copied from a browser's address bar
    owners = {(row.service.value, row.username) for row in db.session.execute(sa.select(Owner)).scalars()}
    assert owners == {("github", "acme"), ("github", "alice"), ("gitlab", "alice")}
    assert sorted(r.name for r in db.session.execute(sa.select(Repository)).scalars()) == ["site", "tools", "widgets"]
    assert "expected SERVICE/OWNER/REPO (e.g. gh/acme/widgets), not 'gh/acme'" in run_error(
        runner, db, "add-repo", "gh/acme"
    )
    assert "expected SERVICE/ORG USERNAME" in run_error(runner, db, "set-member", "gh/acme", "--admin")
    assert "unknown service 'hub'" in run_error(runner, db, "add-repo", "hub/acme/x")
    assert "(or gh, gl, bb, ghe, gle, bbs)" in run_error(runner, db, "add-repo", "hub/acme/x")


@pytest.fixture
def estate(runner, acme) -> None:
    """acme (alice an activated admin, bob a member) with a public and a private repository; bob owns one."""
    run_ok(runner, "add-user", "gh/bob", "--name", "Bob")
    run_ok(runner, "add-member", "gh/acme", "alice", "--activated", "--admin")
    run_ok(runner, "add-member", "gh/acme", "bob", "--deactivated")
    run_ok(runner, "add-repo", "gh/acme/widgets", "--language", "python")
    run_ok(runner, "add-repo", "gh/acme/vault", "--private", "--branch", "trunk")
    run_ok(runner, "add-repo", "gh/bob/dotfiles")
    run_ok(runner, "create-token", "gh/bob", "--name", "ci")


def test_list_owners(runner, db, estate) -> None:
    lines = run_ok(runner, "list-owners").output.splitlines()
    assert lines[0].split() == ["service", "username", "kind", "name", "email", "repositories", "memberships"]
    assert [line.split()[:3] for line in lines[1:]] == [
        ["github", "acme", "organization"],
        ["github", "alice", "user"],
        ["github", "bob", "user"],
    ]
    rows = json.loads(run_ok(runner, "list-owners", "gh", "--json").output)
    assert rows[0] == {
        "service": "github",
        "username": "acme",
        "kind": "organization",
        "name": "Acme Inc",
        "email": None,
        "repositories": 2,
        "memberships": 2,
    }
    assert [(row["username"], row["repositories"], row["memberships"]) for row in rows[1:]] == [
        ("alice", 0, 1),
        ("bob", 1, 1),
    ]
    assert run_ok(runner, "list-owners", "gitlab").output == "No users or organizations.\n"
    assert json.loads(run_ok(runner, "list-owners", "gl", "--json").output) == []
    assert "unknown service 'svn'" in run_error(runner, db, "list-owners", "svn")


def test_list_members(runner, db, estate) -> None:
    lines = run_ok(runner, "list-members", "gh/acme").output.splitlines()
    assert [line.split() for line in lines] == [
        ["username", "name", "email", "activated", "admin"],
        ["alice", "Alice", "alice@example.com", "yes", "yes"],
        ["bob", "Bob", "-", "no", "no"],
    ]
    rows = json.loads(run_ok(runner, "list-members", "github", "ACME", "--json").output)
    assert rows[1] == {"username": "bob", "name": "Bob", "email": None, "activated": False, "admin": False}
    run_ok(runner, "add-org", "gh/empty")
    assert run_ok(runner, "list-members", "gh/empty").output == "empty has no members.\n"
    assert "no organization 'alice'" in run_error(runner, db, "list-members", "gh/alice")
    assert "no organization 'nope'" in run_error(runner, db, "list-members", "gh/nope")


def test_list_repos(app, runner, db, estate) -> None:
    upload(webtest.TestApp(app), repo_row(db, name="widgets").upload_token)
    lines = run_ok(runner, "list-repos").output.splitlines()
    assert lines[0].split() == [
        "service", "owner", "name", "private", "active", "deleted", "branch", "language", "coverage"
    ]  # fmt: skip
    assert [line.split() for line in lines[1:]] == [
        ["github", "acme", "vault", "yes", "yes", "no", "trunk", "-", "-"],
        ["github", "acme", "widgets", "no", "yes", "no", "main", "python", "50.0"],
        ["github", "bob", "dotfiles", "no", "yes", "no", "main", "-", "-"],
    ]
    rows = json.loads(run_ok(runner, "list-repos", "gh/acme", "--json").output)
    assert [(row["name"], row["private"], row["coverage"]) for row in rows] == [
        ("vault", True, None),
        ("widgets", False, 50.0),
    ]
    assert [row["name"] for row in json.loads(run_ok(runner, "list-repos", "github", "--json").output)] == [
        "vault", "widgets", "dotfiles"
    ]  # fmt: skip
    assert run_ok(runner, "list-repos", "gitlab").output == "No repositories.\n"
    run_ok(runner, "delete-repo", "gh/bob/dotfiles", "--yes")
    assert "dotfiles" not in run_ok(runner, "list-repos", "gh/bob").output
    assert "No repositories." in run_ok(runner, "list-repos", "gh/bob").output
    assert "no owner 'ghost'" in run_error(runner, db, "list-repos", "gh/ghost")
    assert "expected SERVICE[/OWNER] (e.g. gh/acme), not 'gh/acme/widgets'" in run_error(
        runner, db, "list-repos", "gh/acme/widgets"
    )


def test_show_repo_prints_the_tokens_again_without_rotating_them(app, runner, db, estate) -> None:
    vault = repo_row(db, name="vault")
    tokens = (vault.upload_token, vault.image_token)
    upload(webtest.TestApp(app), vault.upload_token, branch="trunk")
    output = run_ok(runner, "show-repo", "gh/acme/vault").output
    assert f"upload_token: {tokens[0]}\n" in output and f"graph_token: {tokens[1]}\n" in output
    assert "path: gh/acme/vault\n" in output and "private: yes\n" in output and "branch: trunk\n" in output
    assert f"tip: {SHA} (50.0% of 1 files)\n" in output
    shown = json.loads(run_ok(runner, "show-repo", "github", "acme", "VAULT", "--json").output)
    assert (
        (shown["upload_token"], shown["graph_token"])
        == tokens
        == (repo_row(db, name="vault").upload_token, repo_row(db, name="vault").image_token)
    )
    assert (shown["commits"], shown["branches"], shown["pulls"], shown["language"]) == (1, 1, 0, None)
    assert shown["tip"] == {"sha": SHA, "coverage": 50.0, "files": 1}
    assert "tip: -\n" in run_ok(runner, "show-repo", "gh/acme/widgets").output
    assert "no repository acme/nope on github" in run_error(runner, db, "show-repo", "gh/acme/nope")
    assert "no owner 'ghost'" in run_error(runner, db, "show-repo", "gh/ghost/x")


def test_set_member_activates_and_makes_admin(app, runner, db, estate) -> None:
    testapp = webtest.TestApp(app)
    token = run_ok(runner, "create-token", "gh/bob", "--name", "reader").output.splitlines()[-1]
    report = "/api/v2/github/acme/repos/vault/report/"
    upload(testapp, repo_row(db).upload_token, branch="trunk")
    testapp.get(report, headers={"Authorization": f"Bearer {token}"}, status=404)
    output = run_ok(runner, "set-member", "gh/acme", "bob", "--activated").output
    assert output == "bob in acme: activated, not admin.\n"
    testapp.get(report, headers={"Authorization": f"Bearer {token}"}, status=200)
    run_ok(runner, "set-member", "github", "acme", "BOB", "--admin")
    run_ok(runner, "set-member", "gh/acme", "alice", "--deactivated", "--no-admin")
    db.session.expire_all()
    memberships = {
        (m.user.username, m.activated, m.is_admin) for m in db.session.execute(sa.select(Membership)).scalars()
    }
    assert memberships == {("bob", True, True), ("alice", False, False)}
    assert "say what to change" in run_error(runner, db, "set-member", "gh/acme", "bob")
    run_ok(runner, "add-user", "gh/carol")
    assert "'carol' is not a member of 'acme'" in run_error(runner, db, "set-member", "gh/acme", "carol", "--admin")
    assert "no organization 'bob'" in run_error(runner, db, "set-member", "gh/bob", "acme", "--admin")


def test_set_repo_changes_visibility_branch_language_and_active(app, runner, db, estate) -> None:
    testapp = webtest.TestApp(app)
    upload(testapp, repo_row(db, name="widgets").upload_token)
    testapp.get("/api/v2/github/acme/repos/widgets/report/", status=200)
    output = run_ok(runner, "set-repo", "gh/acme/widgets", "--private", "--branch", "develop", "--inactive").output
    assert output == "gh/acme/widgets: private, inactive, default branch develop, language python.\n"
    testapp.get("/api/v2/github/acme/repos/widgets/report/", status=404)  # closed at once
    widgets = repo_row(db, name="widgets")
    assert (widgets.private, widgets.branch, widgets.active, widgets.language) == (True, "develop", False, "python")
    run_ok(runner, "set-repo", "gh/acme/widgets", "--public", "--active", "--language", "")
    widgets = repo_row(db, name="widgets")
    assert (widgets.private, widgets.branch, widgets.active, widgets.language) == (False, "develop", True, None)
    testapp.get("/api/v2/github/acme/repos/widgets/report/?branch=main", status=200)
    assert "say what to change" in run_error(runner, db, "set-repo", "gh/acme/widgets")
    assert "branch must not be empty" in run_error(runner, db, "set-repo", "gh/acme/widgets", "--branch", " ")
    assert "language is longer than 50" in run_error(
        runner, db, "set-repo", "gh/acme/widgets", "--private", "--language", "p" * 51
    )
    assert "no repository acme/nope on github" in run_error(runner, db, "set-repo", "gh/acme/nope", "--private")


def refused(runner, db, *args: str, answer: str = "") -> str:
    """Run a destructive command and answer its question with ``answer``: nothing may change."""
    before = snapshot(db)
    result = runner.invoke(args=["coverage", *args], input=answer)
    assert result.exit_code == 1 and "Aborted!" in result.stderr
    assert snapshot(db) == before
    return result.stderr


def test_destructive_commands_ask_first(runner, db, estate) -> None:
    question = refused(runner, db, "delete-repo", "gh/acme/vault", answer="n\n")
    assert "Delete gh/acme/vault and all its coverage? [y/N]" in question
    question = refused(runner, db, "delete-org", "gh/acme")
    assert "Delete organization gh/acme with its 2 repositories (and their coverage), 2 memberships and 0" in question
    question = refused(runner, db, "delete-user", "gh/bob", answer="no\n")
    assert "Delete user gh/bob with its 1 repository (and their coverage), 1 membership and 1 access token?" in question
    result = runner.invoke(args=["coverage", "delete-repo", "gh/acme/vault"], input="y\n")
    assert result.exit_code == 0 and result.output.endswith("Deleted acme/vault and its coverage.\n")


def test_delete_user_and_org_take_what_they_own(app, runner, db, estate) -> None:
    testapp = webtest.TestApp(app)
    for name in ("widgets", "vault", "dotfiles"):
        upload(testapp, repo_row(db, name=name).upload_token)
    run_ok(runner, "add-org", "gh/other")
    run_ok(runner, "add-member", "gh/other", "alice")
    bob_token = run_ok(runner, "create-token", "gh/bob", "--name", "reader").output.splitlines()[-1]
    assert run_ok(runner, "delete-user", "gh/bob", "--yes").output == "Deleted user gh/bob.\n"
    testapp.get("/api/v2/github/acme/users/", headers={"Authorization": f"Bearer {bob_token}"}, status=401)
    assert get_owner("github", "bob") is None
    assert (count(db, Repository), count(db, Membership), count(db, AccessToken)) == (2, 2, 0)
    assert count(db, Commit) == 2
    assert run_ok(runner, "delete-org", "github", "acme", "--yes").output == "Deleted organization gh/acme.\n"
    assert get_owner("github", "acme") is None and get_owner("github", "alice") is not None
    # Nothing of acme is left in any table; alice's membership of the other organization stays.
    assert (count(db, Repository), count(db, Commit), count(db, Membership)) == (0, 0, 1)
    for table in metadata.sorted_tables:
        if table.name not in ("coverage_owner", "coverage_membership"):
            assert count(db, table) == 0, table.name
    run_ok(runner, "add-org", "gh/acme")  # the name is free again
    assert "no user 'acme'" in run_error(runner, db, "delete-user", "gh/acme", "--yes")
    assert "no organization 'alice'" in run_error(runner, db, "delete-org", "gh/alice", "--yes")
    assert "no user 'ghost'" in run_error(runner, db, "delete-user", "gh/ghost", "--yes")
