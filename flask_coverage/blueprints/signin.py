"""Sign-in with the git host: ``{COVERAGE_ACCOUNT_URL_PREFIX}/sign-in/{service}`` (docs/sign-in.md).

OAuth 2's authorization code flow through Authlib's Flask client: the ``state`` (and the PKCE
verifier where the host checks one) kept in Flask's signed session and used once; the token exchange
bounded by ``COVERAGE_SYNC_TIMEOUT``. The callback reads the host's view of the user and writes it
(:func:`flask_coverage.sync.sign_in`), then keeps the user's id in Flask's session. Any refusal (a
forged or replayed ``state``, a code the host refuses, a host that fails or answers garbage) is the
error page, with nothing written. ``POST /sign-out`` (with the session's CSRF token) forgets the user.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    g,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from ..csrf import CSRF_FAILED, csrf_valid
from ..errors import CoverageError, InvalidInput, NotFound
from ..http_errors import handle_errors
from ..models import HostAccount, Owner, ServiceEnum, utcnow
from ..providers.accounts import sign_in_endpoints, signs_in
from ..state import get_session
from ..sync import SyncFailed, sign_in, sync_due, sync_user

log = logging.getLogger(__name__)

#: The key of Flask's session that holds the signed-in user's owner id.
SESSION_KEY = "_coverage_user"

bp = Blueprint("coverage_signin", __name__, template_folder="../templates")


class SignInRefused(CoverageError):
    """The host refused or failed the sign-in: 400 for a request that is not a sign-in in progress,
    502 when the host's answer was the trouble."""

    status = 400


def _render_error(error: CoverageError) -> Response:
    return make_response(render_template("coverage/error.html", title="Sign-in failed", message=str(error)))


handle_errors(bp, _render_error)

#: Headers of every answer of the blueprint: the callback's URL holds the host's code, which no other
#: site may read in a ``Referer`` and no cache may keep.
SIGN_IN_HEADERS = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


@bp.after_request
def _security_headers(response: Response) -> Response:
    for name, value in SIGN_IN_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def register_clients(app: Flask) -> dict[str, Any]:
    """An Authlib client per ``COVERAGE_PROVIDERS`` entry with a ``client_id``, by service, kept on the
    app (``app.extensions["coverage_sign_in"]``). Authlib (the ``signin`` extra) is imported only
    when one is configured."""
    clients: dict[str, Any] = {}
    configured = {name: settings for name, settings in app.config["COVERAGE_PROVIDERS"].items() if signs_in(settings)}
    if configured:
        from authlib.integrations.flask_client import OAuth

        # OAuth(app) takes Authlib's key in app.extensions: a host app's own registry keeps it.
        key = "authlib.integrations.flask_client"
        own = app.extensions.get(key)
        oauth = OAuth(app)
        if own is not None:
            app.extensions[key] = own
    for service, settings in configured.items():
        endpoints = sign_in_endpoints(service, settings)
        client_kwargs: dict[str, Any] = {
            "default_timeout": float(app.config["COVERAGE_SYNC_TIMEOUT"]),
            "token_endpoint_auth_method": "client_secret_post",
        }
        if endpoints.scope:
            client_kwargs["scope"] = endpoints.scope
        if endpoints.pkce:
            client_kwargs["code_challenge_method"] = "S256"
        clients[service] = oauth.register(
            service,
            client_id=settings["client_id"],
            client_secret=settings["client_secret"],
            authorize_url=endpoints.authorize_url,
            access_token_url=endpoints.token_url,
            client_kwargs=client_kwargs,
        )
    app.extensions["coverage_sign_in"] = clients
    return clients


def _client(service: str) -> Any:
    client = current_app.extensions["coverage_sign_in"].get(service)
    if client is None:
        raise NotFound(f"Sign-in with {service} is not configured.")
    return client


def _local(target: Any) -> str:
    """Where to go after signing in: a path of this site only (never another site's address)."""
    # Browsers read a backslash as "/" and drop tabs and newlines: "/\\evil.example" and
    # "/\t/evil.example" lead to another site.
    if (
        isinstance(target, str)
        and target.startswith("/")
        and "\\" not in target
        and not any(ord(char) < 32 for char in target)
        and not target.startswith("//")
    ):
        return target
    return url_for("coverage_web.entry_page", root="") if "coverage_web" in current_app.blueprints else "/"


@bp.get("/sign-in/<service>")
def sign_in_start(service: str) -> Any:
    """Send the visitor to the host's authorize page, with a fresh ``state`` (and PKCE challenge)."""
    client = _client(service)
    session["_coverage_next"] = _local(request.args.get("next"))
    return client.authorize_redirect(url_for(".sign_in_callback", service=service, _external=True))


@bp.get("/sign-in/<service>/callback")
def sign_in_callback(service: str) -> Any:
    """The host sends the visitor back here with a code: exchanged for a token, the user synced."""
    client = _client(service)
    if "error" in request.args:
        raise SignInRefused(f"{service} did not sign you in ({request.args.get('error', '')[:100]}).")
    import requests
    from authlib.common.errors import AuthlibBaseError

    try:
        token = client.authorize_access_token()
    except AuthlibBaseError as error:
        # Authlib's errors name the OAuth error (mismatching_state, invalid_grant); never a secret.
        log.warning("sign-in with %s refused: %s", service, error.error)
        status = 400 if error.error == "mismatching_state" else 502
        raise SignInRefused(f"{service} did not sign you in ({error.error}).", status=status) from None
    except (requests.RequestException, ValueError) as error:
        log.warning("sign-in with %s failed: the token exchange raised %s", service, type(error).__name__)
        raise SignInRefused(
            f"{service} did not answer the sign-in in time or in a form it should.", status=502
        ) from None
    access = token.get("access_token") if isinstance(token, dict) else None
    if not isinstance(access, str) or not access:
        raise SignInRefused(f"{service} answered the sign-in without a token.", status=502)
    try:
        user = sign_in(ServiceEnum(service), access)
    except SyncFailed as error:
        log.warning("sign-in with %s failed: %s", service, error)
        raise
    session[SESSION_KEY] = user.id
    return redirect(session.pop("_coverage_next", None) or _local(None), code=303)


@bp.post("/sign-out")
def sign_out_view() -> Any:
    """Forget the signed-in user (the form carries the session's CSRF token)."""
    if not csrf_valid():
        raise InvalidInput(CSRF_FAILED)
    session.pop(SESSION_KEY, None)
    g.pop("coverage_signed_in", None)
    return redirect(_local(None), code=303)


def signed_in_user() -> Optional[Owner]:
    """The user signed in with their git host in Flask's session, or ``None``; synced first when the
    view is older than ``COVERAGE_SYNC_MAX_AGE`` (bounded by ``COVERAGE_SYNC_TIMEOUT``; a failure
    keeps the previous permissions and is logged). Read once per request."""
    if "coverage_signed_in" in g:
        user: Optional[Owner] = g.coverage_signed_in
        return user
    g.coverage_signed_in = None
    owner_id = session.get(SESSION_KEY)
    if not isinstance(owner_id, int):
        return None
    account = get_session().get(HostAccount, owner_id)
    if account is None:
        return None
    user = get_session().get(Owner, owner_id)
    if user is not None and sync_due(account, utcnow()):
        try:
            sync_user(user)
        except SyncFailed as error:
            log.warning("the sync of %s/%s failed, its permissions stay: %s", user.service.value, user.username, error)
    g.coverage_signed_in = user
    return user
