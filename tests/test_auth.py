from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from flask_coverage.auth import default_verify_token, hash_token
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
