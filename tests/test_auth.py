from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from flask_coverage.auth import default_verify_token, hash_token, is_plausible_token
from flask_coverage.models import AccessToken, utcnow
from flask_coverage.operations import add_user, create_token


def _last_used(db) -> dt.datetime:
    db.session.expire_all()
    return db.session.execute(sa.select(AccessToken.last_used)).scalar_one()


def test_last_used_is_kept_to_the_minute(db) -> None:
    add_user("github", "alice")
    _, token = create_token("github", "alice", name="ci")
    assert default_verify_token(token).username == "alice"
    first = _last_used(db)
    assert abs(utcnow() - first) < dt.timedelta(minutes=1)
    default_verify_token(token)
    assert _last_used(db) == first  # used again within the minute: no write

    long_ago = first - dt.timedelta(minutes=5)
    db.session.execute(sa.update(AccessToken).values(last_used=long_ago))
    db.session.commit()
    default_verify_token(token)
    assert _last_used(db) > long_ago


def test_unknown_empty_and_oversized_tokens_are_denied(db) -> None:
    add_user("github", "alice")
    _, token = create_token("github", "alice", name="ci")
    assert default_verify_token("") is None
    assert default_verify_token(token + "x") is None
    assert default_verify_token(hash_token(token)) is None  # the stored hash is not a token
    assert default_verify_token("x" * 10_000) is None


@pytest.mark.parametrize(
    ("token", "plausible"),
    [
        ("0123456789", True),
        ("6f1c3b2a-0d4e-4f5a-9b8c-7d6e5f4a3b2c", True),
        ("x" * 200, True),
        ("x" * 201, False),
        ("", False),
        (None, False),
        ("ab\x00cd", False),
        ("ab\u202ecd", False),
    ],
)
def test_one_rule_says_which_tokens_are_worth_looking_up(token, plausible) -> None:
    assert is_plausible_token(token) is plausible
