from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from flask_coverage.lines import Totals
from flask_coverage.models import (
    AccessToken,
    Branch,
    Commit,
    CommitFlag,
    FileCoverage,
    Membership,
    Owner,
    Pull,
    Repository,
    ServiceEnum,
)
from flask_coverage.operations import add_member, add_org, add_repo, add_user, create_token
from flask_coverage.queries.repositories import find_repository


def test_service_enum_has_exactly_the_public_values() -> None:
    assert [member.value for member in ServiceEnum] == [
        "github",
        "gitlab",
        "bitbucket",
        "github_enterprise",
        "gitlab_enterprise",
        "bitbucket_server",
    ]
    assert [member.short for member in ServiceEnum] == ["gh", "gl", "bb", "ghe", "gle", "bbs"]


def test_a_commit_and_a_flag_give_their_stored_totals() -> None:
    for report in (Commit(lines=6, hits=3, misses=2, partials=1), CommitFlag(lines=6, hits=3, misses=2, partials=1)):
        assert Totals.of(report) == Totals(6, 3, 2, 1)


def _insert_fails(db, row) -> None:
    db.session.add(row)
    with pytest.raises(IntegrityError):
        db.session.commit()
    db.session.rollback()


def test_owner_username_is_unique_per_service_ignoring_case(db) -> None:
    add_user("github", "Alice")
    _insert_fails(db, Owner(service=ServiceEnum.github, username="aLICE"))
    db.session.add(Owner(service=ServiceEnum.gitlab, username="alice"))
    db.session.commit()
    assert db.session.execute(sa.select(sa.func.count()).select_from(Owner)).scalar() == 2


def test_membership_repository_commit_and_file_are_unique(db) -> None:
    add_org("github", "acme")
    add_user("github", "alice")
    add_member("github", "acme", "alice")
    org = db.session.execute(sa.select(Owner).filter_by(username="acme")).scalar_one()
    user = db.session.execute(sa.select(Owner).filter_by(username="alice")).scalar_one()
    _insert_fails(db, Membership(org_id=org.id, user_id=user.id))

    repo = add_repo("github", "acme", "Web")
    _insert_fails(db, Repository(owner_id=org.id, name="WEB", upload_token="x" * 36, image_token="y" * 10))

    commit = Commit(repository_id=repo.id, sha="a" * 40)
    db.session.add(commit)
    db.session.commit()
    _insert_fails(db, Commit(repository_id=repo.id, sha="a" * 40))

    db.session.add(FileCoverage(commit_id=commit.id, path="src/app.py", data=b""))
    db.session.commit()
    _insert_fails(db, FileCoverage(commit_id=commit.id, path="src/app.py", data=b""))

    db.session.add(Branch(repository_id=repo.id, name="main", head_commit_id=commit.id))
    db.session.add(Pull(repository_id=repo.id, pullid=7, head_commit_id=commit.id))
    db.session.commit()
    _insert_fails(db, Branch(repository_id=repo.id, name="main", head_commit_id=commit.id))
    _insert_fails(db, Pull(repository_id=repo.id, pullid=7, head_commit_id=commit.id))


def test_access_tokens_are_stored_only_as_a_hash(db) -> None:
    add_user("github", "alice")
    row, token = create_token("github", "alice", name="ci")
    stored = db.session.execute(sa.select(AccessToken)).scalar_one()
    assert token not in {stored.token_hash, stored.name}
    assert len(stored.token_hash) == 64
    assert not any(token in str(value) for value in vars(stored).values())


def test_new_repository_gets_tokens_of_the_documented_form(app) -> None:
    add_user("github", "alice")
    repo = add_repo("github", "alice", "tool")
    other = add_repo("github", "alice", "other")
    assert len(repo.image_token) == 10 and repo.image_token.isalnum()
    assert len(repo.upload_token) == 36 and repo.upload_token.count("-") == 4
    assert repo.upload_token != other.upload_token and repo.image_token != other.image_token


def test_names_that_cannot_be_stored_are_simply_not_found(app) -> None:
    from flask_coverage.errors import NotFound
    from flask_coverage.operations import revoke_token
    from flask_coverage.queries.repositories import get_owner

    owner = add_user("github", "alice")
    assert get_owner("github", "ali\x00ce") is None
    assert get_owner("github", "a" * 300) is None
    assert find_repository("github", owner.username, "re\x00po") is None
    with pytest.raises(NotFound):
        revoke_token("github", "alice", name="c\x00i")
