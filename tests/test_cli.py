"""Every operator command, through ``flask coverage ...`` (Flask's CliRunner)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from flask_coverage.models import AccessToken, Membership, Owner, Repository, metadata
from flask_coverage.operations import get_owner


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
    assert "must not contain" in run_error(runner, db, command, "github", "a/b")
    assert "longer than 255" in run_error(runner, db, command, "github", "x" * 256)


def test_add_member(runner, db, acme) -> None:
    run_ok(runner, "add-user", "github", "bob")
    run_ok(runner, "add-member", "github", "acme", "alice", "--activated", "--admin")
    run_ok(runner, "add-member", "github", "ACME", "Bob")
    rows = db.session.execute(
        sa.select(Owner.username, Membership.activated, Membership.is_admin)
        .join(Membership, Membership.user_id == Owner.id)
        .order_by(Owner.username)
    ).all()
    assert [tuple(row) for row in rows] == [("alice", True, True), ("bob", False, False)]


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
