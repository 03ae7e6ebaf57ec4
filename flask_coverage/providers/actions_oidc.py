"""GitHub Actions OIDC tokens: which repository a workflow's token opens uploads to (docs/upload.md).

A workflow with ``permissions: id-token: write`` can ask GitHub for a short-lived JWT naming its
repository; Codecov's Action does when ``use_oidc: true`` and passes it to codecov-cli as its token.
Its issuer decides the host: ``https://token.actions.githubusercontent.com`` is github.com (service
``github``), ``{url}/_services/token`` the GitHub Enterprise Server at ``url`` (service
``github_enterprise``), with their keys (JWKS) at :data:`GITHUB_JWKS_URL` and
``{url}/_services/token/.well-known/jwks``. Any other issuer is refused.

The token is checked with PyJWT: RS256 only (``alg: none`` and HMAC tokens are refused before any key
is looked at), signed by a key of the issuer's JWKS (fetched over the providers' transport, kept
:data:`JWKS_MAX_AGE` seconds, fetched again for an unknown ``kid`` at most every
:data:`JWKS_REFETCH_SECONDS`), ``aud`` the service's public URL, ``exp``, ``nbf`` and ``iat`` within
:data:`LEEWAY_SECONDS`. No token is ever logged or put in a message.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import jwt

from . import ProviderError
from .http import Transport, budget

log = logging.getLogger(__name__)

GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
GITHUB_JWKS_URL = GITHUB_ISSUER + "/.well-known/jwks"
#: The path of a GitHub Enterprise Server's issuer, under its web URL.
ENTERPRISE_ISSUER_PATH = "/_services/token"
#: The only signing algorithm taken (GitHub's).
ALGORITHM = "RS256"
#: Clock skew allowed on ``exp``, ``nbf`` and ``iat`` (seconds).
LEEWAY_SECONDS = 60
#: How long an issuer's keys are used before they are fetched again (seconds).
JWKS_MAX_AGE = 3600
#: The shortest time between two fetches of one issuer's keys: a token naming unknown ``kid``s at
#: every upload makes at most one request to the issuer in this many seconds.
JWKS_REFETCH_SECONDS = 60
#: The largest JWKS read, and the time one fetch may take.
MAX_JWKS_BYTES = 256 * 1024
JWKS_TIMEOUT_SECONDS = 5.0
#: The longest token looked at (GitHub's are about 1,500 characters).
MAX_TOKEN_LENGTH = 8192
#: The claims every token must carry.
REQUIRED_CLAIMS = ["iss", "aud", "exp", "iat", "repository", "repository_owner"]


class InvalidActionsToken(Exception):
    """The token opens nothing; the message says why in a few words, without the token.
    ``unavailable`` is set when the issuer's keys could not be read (asking again later may help)."""

    def __init__(self, reason: str, *, unavailable: bool = False) -> None:
        super().__init__(reason)
        self.unavailable = unavailable


@dataclass(frozen=True)
class ActionsRepository:
    """The repository a verified token names: ``service`` (``github`` or ``github_enterprise``), owner, name."""

    service: str
    owner: str
    name: str


def looks_like_jwt(token: str) -> bool:
    """Whether ``token`` has a JWT's shape (the service's own tokens are UUIDs): worth verifying."""
    return token.startswith("eyJ") and token.count(".") == 2 and len(token) <= MAX_TOKEN_LENGTH


def enterprise_web_url(settings: Any) -> Optional[str]:
    """The web URL of the GitHub Enterprise Server of a ``github_enterprise`` provider entry (its API
    URL without ``/api/v3``), or ``None`` without one."""
    url = settings.get("url") if isinstance(settings, dict) else None
    if not url:
        return None
    url = url.rstrip("/")
    return url[: -len("/api/v3")] if url.endswith("/api/v3") else url


def verify_actions_token(token: str, *, audience: str, enterprise_url: Optional[str]) -> ActionsRepository:
    """The repository ``token`` opens uploads to; :class:`InvalidActionsToken` for anything else.

    ``audience`` is the service's public URL (with or without its trailing ``/``), ``enterprise_url``
    the web URL of the configured GitHub Enterprise Server, if any.
    """
    import jwt  # PyJWT and cryptography: about 10 MB a process, loaded at the first JWT

    issuers = {GITHUB_ISSUER: ("github", GITHUB_JWKS_URL)}
    if enterprise_url:
        enterprise_issuer = enterprise_url + ENTERPRISE_ISSUER_PATH
        issuers[enterprise_issuer] = ("github_enterprise", enterprise_issuer + "/.well-known/jwks")
    try:
        header = jwt.get_unverified_header(token)
        # Only the issuer is read before the signature is checked: it says whose keys to check it with.
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.InvalidTokenError:
        raise InvalidActionsToken("it is not a JWT") from None
    if header.get("alg") != ALGORITHM:
        raise InvalidActionsToken(f"it is not signed with {ALGORITHM}")
    issuer = unverified.get("iss")
    if not isinstance(issuer, str) or issuer not in issuers:
        raise InvalidActionsToken("its issuer is not the configured GitHub's")
    service, jwks_url = issuers[issuer]
    key = _keys.key(jwks_url, header.get("kid"))
    try:
        claims = jwt.decode(
            token,
            key=key,
            algorithms=[ALGORITHM],
            audience=[audience.rstrip("/"), audience.rstrip("/") + "/"],
            issuer=issuer,
            leeway=LEEWAY_SECONDS,
            options={"require": REQUIRED_CLAIMS},
        )
    except jwt.InvalidTokenError as error:
        raise InvalidActionsToken(_reason(error)) from None
    owner, repository = claims["repository_owner"], claims["repository"]
    if not (isinstance(owner, str) and isinstance(repository, str)):
        raise InvalidActionsToken("its repository claims are not text")
    repo_owner, _, name = repository.rpartition("/")
    if not name or repo_owner.lower() != owner.lower():
        raise InvalidActionsToken("its repository claims disagree")
    return ActionsRepository(service, owner, name)


def _reason(error: jwt.InvalidTokenError) -> str:
    """A few fixed words for PyJWT's refusal (its messages are not shown: they are not ours to vouch for)."""
    import jwt  # PyJWT and cryptography: about 10 MB a process, loaded at the first JWT

    reasons = [
        (jwt.ExpiredSignatureError, "it has expired"),
        (jwt.ImmatureSignatureError, "it is not valid yet"),
        (jwt.InvalidAudienceError, "its audience is not this service's public URL"),
        (jwt.InvalidIssuerError, "its issuer is not the configured GitHub's"),
        (jwt.MissingRequiredClaimError, "a required claim is missing"),
        (jwt.InvalidSignatureError, "its signature is not valid"),
    ]
    return next((reason for kind, reason in reasons if isinstance(error, kind)), "it is not a valid token")


class _KeyCache:
    """Each issuer's keys, fetched when missing, older than :data:`JWKS_MAX_AGE`, or lacking a ``kid``
    asked for (at most every :data:`JWKS_REFETCH_SECONDS`). Bounded: its keys are the issuers'
    JWKS URLs, which come from the configuration (at most github.com's and one Enterprise Server's)."""

    def __init__(self) -> None:
        self._sets: dict[str, tuple[float, jwt.PyJWKSet]] = {}
        self._transports: dict[str, Transport] = {}
        self._lock = threading.Lock()

    def key(self, jwks_url: str, kid: Any) -> jwt.PyJWK:
        if not isinstance(kid, str) or not kid:
            raise InvalidActionsToken("it names no signing key (kid)")
        with self._lock:
            fetched, keys = self._sets.get(jwks_url, (0.0, None))
            age = time.monotonic() - fetched
            if keys is None or age > JWKS_MAX_AGE or (_find(keys, kid) is None and age > JWKS_REFETCH_SECONDS):
                keys = self._fetch(jwks_url)
                self._sets[jwks_url] = (time.monotonic(), keys)
        found = _find(keys, kid)
        if found is None:
            raise InvalidActionsToken("its signing key (kid) is not one of the issuer's keys")
        return found

    def _fetch(self, jwks_url: str) -> jwt.PyJWKSet:
        import jwt  # PyJWT and cryptography: about 10 MB a process, loaded at the first JWT

        transport = self._transports.get(jwks_url)
        if transport is None:
            transport = self._transports[jwks_url] = Transport("the OIDC issuer", jwks_url, retries=1)
        try:
            with budget(JWKS_TIMEOUT_SECONDS, MAX_JWKS_BYTES):
                document = transport.request("GET", jwks_url, headers={"Accept": "application/json"}).json()
            return jwt.PyJWKSet.from_dict(document)
        except ProviderError as error:
            log.warning("GitHub Actions OIDC keys could not be read: %s", error)
        except (jwt.PyJWKSetError, jwt.PyJWKError, TypeError, AttributeError):
            log.warning("GitHub Actions OIDC keys at %s are not a JWKS with an RS256 key", jwks_url)
        raise InvalidActionsToken("the issuer's signing keys could not be read", unavailable=True)


def _find(keys: Optional[jwt.PyJWKSet], kid: str) -> Optional[jwt.PyJWK]:
    if keys is None:
        return None
    return next((key for key in keys.keys if key.key_id == kid), None)


_keys = _KeyCache()
