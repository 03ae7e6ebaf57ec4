"""The CSRF token of the service's forms (the access-token page's, a repository's settings): one per
session, kept in Flask's session (so the app needs a ``SECRET_KEY``), compared in constant time."""

from __future__ import annotations

import hmac
import secrets

from flask import current_app, request, session

CSRF_SESSION_KEY = "_coverage_csrf"
CSRF_FIELD = "csrf_token"
CSRF_FAILED = "The form was not accepted: its security token is missing or out of date. Please try again."


def csrf_token() -> str:
    """This session's CSRF token, created on first use."""
    if not current_app.secret_key:
        raise RuntimeError("The service's forms keep their CSRF token in Flask's session: set the app's SECRET_KEY.")
    token = session.get(CSRF_SESSION_KEY)
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(32)
        session[CSRF_SESSION_KEY] = token
    return token


def csrf_valid() -> bool:
    """Whether the submitted form carries this session's CSRF token (constant-time comparison)."""
    expected = session.get(CSRF_SESSION_KEY)
    sent = request.form.get(CSRF_FIELD, "")
    if not isinstance(expected, str) or not expected or not sent:
        return False
    return hmac.compare_digest(expected.encode(), sent.encode("utf-8", "surrogatepass"))
