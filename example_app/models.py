"""The host app's own model, in the database it shares with the coverage service."""

from __future__ import annotations

import datetime as dt

from .extensions import db


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class SignIn(db.Model):  # type: ignore[name-defined]
    """One sign-in to the example app: the host's own table, next to the coverage tables."""

    __tablename__ = "example_sign_in"

    id = db.Column(db.Integer, primary_key=True)
    username = db.Column(db.String(255), nullable=False)
    signed_in_at = db.Column(db.DateTime, nullable=False, default=_utcnow, index=True)
