"""The host app's sign-in: pick a demo user (no passwords: it is a demo); the session cookie holds them.

The coverage service learns who is signed in through the ``current_user_loader`` hook, and sends
visitors of its pages who are not signed in here through the ``auth_error_handler`` hook.
"""

from __future__ import annotations

from typing import Any, Optional
from urllib.parse import urlsplit

import sqlalchemy as sa
from flask import Blueprint, g, redirect, render_template, request, session, url_for

from flask_coverage.blueprints.account import csrf_valid
from flask_coverage.demo import DEMO_SERVICE
from flask_coverage.demo.data import FEATURED_USERS
from flask_coverage.identifiers import is_storable
from flask_coverage.models import Owner
from flask_coverage.queries.repositories import get_owner
from flask_coverage.state import get_session

from .extensions import coverage, db
from .models import SignIn

bp = Blueprint("example_auth", __name__)

#: The session key of the signed-in user's owner id.
USER_KEY = "example_user_id"
RECENT_SIGN_INS = 5


@coverage.current_user_loader
def current_user() -> Optional[Owner]:
    """The signed-in user (a user owner, never an organization), or ``None``; looked up once per request."""
    if "example_user" not in g:
        user_id = session.get(USER_KEY)
        user = get_session().get(Owner, user_id) if isinstance(user_id, int) else None
        g.example_user = user if user is not None and not user.is_org else None
    return g.example_user


@coverage.auth_error_handler
def sign_in_first(status: int) -> Any:
    """The coverage pages' auth errors: visitors go to the sign-in page and come back afterwards."""
    if status == 401:
        return redirect(url_for("example_auth.sign_in", next=request.full_path.rstrip("?")))
    return render_template("error.html", title="Not allowed", message="Your account may not use this page."), 403


def safe_next(value: Optional[str]) -> Optional[str]:
    """``value`` if it is a path on this site (``/...``), else ``None``: no open redirects."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return None
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in value):
        return None
    parts = urlsplit(value)
    return value if not parts.scheme and not parts.netloc else None


def _page(error: Optional[str] = None, status: int = 200) -> Any:
    featured = [(person, get_owner(DEMO_SERVICE, person.username)) for person in FEATURED_USERS]
    recent = db.session.execute(
        sa.select(SignIn).order_by(SignIn.signed_in_at.desc(), SignIn.id.desc()).limit(RECENT_SIGN_INS)
    ).scalars()
    body = render_template(
        "sign_in.html",
        featured=[(person, owner) for person, owner in featured if owner is not None],
        recent=list(recent),
        next=safe_next(request.args.get("next")),
        error=error,
    )
    return body, status


@bp.get("/sign-in")
def sign_in() -> Any:
    """The sign-in page: the demo users, one button each, and a field for any other user."""
    return _page()


@bp.post("/sign-in")
def sign_in_post() -> Any:
    """Sign in as the user named in the form (a new session), then go back where the visitor came from."""
    if not csrf_valid():
        return _page("The form was out of date. Please try again.", 400)
    username = request.form.get("username", "").strip()
    user = get_owner(DEMO_SERVICE, username) if is_storable(username) else None
    if user is None or user.is_org:
        return _page(f"There is no user {username!r} on {DEMO_SERVICE.value}.", 400)
    target = safe_next(request.args.get("next")) or url_for("example.home")
    # A new session on every sign-in: nothing from before (CSRF token included) carries over.
    session.clear()
    session[USER_KEY] = user.id
    db.session.add(SignIn(username=user.username))
    db.session.commit()
    return redirect(target, code=303)


@bp.post("/sign-out")
def sign_out() -> Any:
    """Sign out (a form post with the CSRF token, so no other site can sign a visitor out)."""
    if csrf_valid():
        session.clear()
    return redirect(url_for("example.home"), code=303)
