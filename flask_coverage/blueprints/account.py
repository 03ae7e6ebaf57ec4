"""Web pages of the signed-in user: ``{COVERAGE_ACCOUNT_URL_PREFIX}/...`` (access tokens).

``/access`` lists the user's access tokens, creates a named one (shown once) and revokes one. The
user comes from the ``current_user_loader`` hook; a visitor without one gets the
``auth_error_handler`` hook's response. Forms carry a per-session CSRF token kept in Flask's
session, so the host app needs a ``SECRET_KEY``. The pages run no inline script and send a strict
``Content-Security-Policy``; the copy button is served as a script file from the blueprint.
"""

from __future__ import annotations

from typing import Any, Optional

from flask import (
    Blueprint,
    Response,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from ..csrf import CSRF_FAILED, CSRF_FIELD, csrf_token, csrf_valid
from ..errors import CoverageError, Forbidden, InvalidInput, NotFound, Unauthorized
from ..http_errors import handle_errors
from ..models import AccessToken, Owner
from ..operations import MAX_TOKEN_NAME_LENGTH, create_token, revoke_token
from ..outage import plain_text_response
from ..queries.repositories import list_tokens
from ..state import call_hook

bp = Blueprint(
    "coverage_account",
    __name__,
    template_folder="../templates",
    static_folder="../static",
    # Not "/static": with an empty COVERAGE_ACCOUNT_URL_PREFIX it would shadow the host's static files.
    static_url_path="/coverage-static",
)

FLASH_CATEGORY = "coverage"

#: Headers of every page of the blueprint; a host's own ``after_request`` may replace them.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    # The pages hold a CSRF token, the token list, and once a new token: no cache may keep them.
    "Cache-Control": "no-store",
}


def _render_error(error: CoverageError) -> Response:
    """The pages' one error answer: the ``auth_error`` hook's for a visitor who is not signed in or may
    not use them (the host decides: a redirect to its sign-in, say), the page with the error above its
    forms for a refused form, plain text while the database is away or without a user to show."""
    if error.status in (401, 403):
        return make_response(call_hook("auth_error", error.status))
    user = call_hook("current_user") if error.status != 503 else None
    if user is None or user.is_org:
        return plain_text_response(str(error))
    # A refused new token keeps its name in the form.
    name = request.form.get("name", "") if request.endpoint == f"{bp.name}.create_access_token" else ""
    return make_response(_page(user, error=str(error), name=name))


handle_errors(bp, _render_error)


@bp.after_request
def _security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def signed_in_user() -> Owner:
    """The signed-in user from the ``current_user_loader`` hook; ``Unauthorized`` otherwise.

    Organizations cannot hold access tokens, so an organization account gets a 403.
    """
    user = call_hook("current_user")
    if user is None:
        raise Unauthorized("Sign in to manage your access tokens.")
    if user.is_org:
        raise Forbidden("Organizations cannot hold access tokens.")
    return user


def _page(
    user: Owner, *, error: Optional[str] = None, name: str = "", created: Optional[tuple[AccessToken, str]] = None
) -> str:
    return render_template(
        "coverage/access_tokens.html",
        user=user,
        tokens=list_tokens(user),
        error=error,
        name=name,
        created=created,
        csrf_token=csrf_token(),
        csrf_field=CSRF_FIELD,
        max_name_length=MAX_TOKEN_NAME_LENGTH,
    )


@bp.get("/access")
def access_tokens() -> Any:
    """The access-token page: the user's tokens (name, created, last used) and the forms."""
    return _page(signed_in_user())


@bp.post("/access")
def create_access_token() -> Any:
    """Create a named token and show it, this once, on the page."""
    user = signed_in_user()
    if not csrf_valid():
        raise InvalidInput(CSRF_FAILED)
    created = create_token(user.service, user.username, name=request.form.get("name", ""))
    return _page(user, created=created), 201


@bp.post("/access/revoke")
def revoke_access_token() -> Any:
    """Revoke one of the user's tokens by name, then show the page again (post/redirect/get)."""
    user = signed_in_user()
    if not csrf_valid():
        raise InvalidInput(CSRF_FAILED)
    name = request.form.get("name", "")
    if all(token.name != name for token in list_tokens(user)):
        raise NotFound(f"You have no token named {name[:MAX_TOKEN_NAME_LENGTH]!r}.")
    revoke_token(user.service, user.username, name=name)
    flash(f"Token {name!r} revoked.", FLASH_CATEGORY)
    return redirect(url_for(".access_tokens"), code=303)
