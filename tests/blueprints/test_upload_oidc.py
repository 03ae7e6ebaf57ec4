"""Uploads with a GitHub Actions OIDC token instead of an upload token, over WebTest.

The issuer's keys (JWKS) are served on loopback: as a GitHub Enterprise Server's
(``{url}/_services/token/.well-known/jwks``), and as github.com's with its JWKS URL pointed there.
The real codecov-cli uploads with such a token in tests/test_real_uploaders.py.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from typing import Any
from urllib.parse import urlencode

import jwt
import pytest
import webtest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from flask_coverage import operations
from flask_coverage.providers import actions_oidc
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit

PUBLIC_URL = "https://coverage.example.com"
SHA = "a" * 40
REPORT = b"SF:a.py\nDA:1,1\nDA:2,0\nend_of_record\n"


def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Issuer:
    """A JWKS server on loopback with the keys it publishes, counting the times it is asked."""

    def __init__(self) -> None:
        self.keys = {"key-1": rsa_key()}
        self.requests = 0
        self.url = ""

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        self.requests += 1
        if environ["PATH_INFO"] not in ("/_services/token/.well-known/jwks", "/github/jwks"):
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found"]
        keys = [self.jwk(kid, key) for kid, key in self.keys.items()]
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps({"keys": keys}).encode()]

    @staticmethod
    def jwk(kid: str, key: rsa.RSAPrivateKey) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
        return {**found, "kid": kid, "use": "sig", "alg": "RS256"}

    @property
    def issuer(self) -> str:
        return self.url + "/_services/token"

    def claims(self, **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": PUBLIC_URL,
            "iat": now,
            "nbf": now,
            "exp": now + 300,
            "repository": "acme/widgets",
            "repository_owner": "acme",
            "ref": "refs/heads/main",
            "sub": "repo:acme/widgets:ref:refs/heads/main",
        }
        claims.update(changes)
        return {key: value for key, value in claims.items() if value is not None}

    def token(self, kid: str = "key-1", key: Any = None, **changes: Any) -> str:
        signer = key or self.keys[kid]
        return jwt.encode(self.claims(**changes), signer, algorithm="RS256", headers={"kid": kid})


def unsigned(header: dict[str, Any], claims: dict[str, Any], sign: Any = None) -> str:
    """A token built by hand, as an attacker would: ``sign`` makes its signature from the signed part."""

    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    signed = f"{part(header)}.{part(claims)}"
    signature = base64.urlsafe_b64encode(sign(signed.encode())).rstrip(b"=").decode() if sign else ""
    return f"{signed}.{signature}"


@pytest.fixture(autouse=True)
def fresh_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(actions_oidc, "_keys", actions_oidc._KeyCache())


@pytest.fixture
def issuer(live_server: Any) -> Issuer:
    found = Issuer()
    found.url = live_server(found)
    return found


@pytest.fixture
def service(make_app: Any, make_database_url: Any, issuer: Issuer) -> Any:
    """The service with a GitHub Enterprise Server at the issuer's URL; repositories acme/widgets and
    acme/secret (private) on it, and acme/widgets on github.com."""
    providers = {"github_enterprise": {"url": issuer.url + "/api/v3", "token": "ghe-token"}}
    app = make_app(make_database_url(), COVERAGE_PUBLIC_URL=PUBLIC_URL, COVERAGE_PROVIDERS=providers)
    with app.app_context():
        for service in ("github_enterprise", "github"):
            operations.add_org(service, "acme")
            operations.add_repo(service, "acme", "widgets")
        operations.add_repo("github_enterprise", "acme", "secret", private=True)
        yield webtest.TestApp(app)


def v2(testapp: webtest.TestApp, token: str, status: int = 200) -> webtest.TestResponse:
    query = urlencode({"commit": SHA, "branch": "main"})
    return testapp.post(f"/upload/v2?{query}", REPORT, headers={"Authorization": f"token {token}"}, status=status)


def stored(service: str, name: str) -> Any:
    repository = find_repository(service, "acme", name)
    return resolve_commit(repository, sha=SHA)


def test_a_valid_token_uploads_to_its_repository_only(service, issuer) -> None:
    answer = v2(service, issuer.token())
    assert answer.text.split("\n")[1] == f"{PUBLIC_URL}/ghe/acme/widgets/commit/{SHA}"
    with service.app.app_context():
        assert stored("github_enterprise", "widgets").lines == 2
        assert stored("github", "widgets") is None and stored("github_enterprise", "secret") is None


def test_a_token_for_a_private_repository_opens_it(service, issuer) -> None:
    v2(service, issuer.token(repository="acme/secret"))
    with service.app.app_context():
        assert stored("github_enterprise", "secret").lines == 2


def test_the_audience_may_end_with_a_slash_and_the_keys_are_fetched_once(service, issuer) -> None:
    for audience in (PUBLIC_URL, PUBLIC_URL + "/", PUBLIC_URL):
        v2(service, issuer.token(aud=audience))
    assert issuer.requests == 1


def test_github_com_tokens_are_checked_against_github_com_keys(service, issuer, monkeypatch) -> None:
    monkeypatch.setattr(actions_oidc, "GITHUB_JWKS_URL", issuer.url + "/github/jwks")
    v2(service, issuer.token(iss=actions_oidc.GITHUB_ISSUER))
    with service.app.app_context():
        assert stored("github", "widgets").lines == 2 and stored("github_enterprise", "widgets") is None


def test_codecov_cli_calls_with_a_token_open_only_the_repository_it_names(service, issuer) -> None:
    token = issuer.token()
    headers = {"Authorization": f"token {token}"}
    body = {"commitid": SHA, "branch": "main"}
    service.post_json("/upload/github_enterprise/acme::::widgets/commits", body, headers=headers, status=201)
    refusals = [
        service.post_json(f"/upload/github_enterprise/acme::::{name}/commits", body, headers=headers, status=401)
        for name in ("secret", "nothing")
    ]
    details = [answer.json["detail"].replace(name, "X") for answer, name in zip(refusals, ("secret", "nothing"))]
    assert details[0] == details[1] == "Upload refused: the upload token is not the token of github_enterprise/acme/X."


PRIVATE = rsa_key()


def bad_tokens(issuer: Issuer) -> dict[str, tuple[str, int, str]]:
    """Each bad token, the status it gets, and the words of its refusal."""
    public_pem = (
        issuer.keys["key-1"]
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    now = int(time.time())
    return {
        "alg none": (unsigned({"alg": "none", "typ": "JWT"}, issuer.claims()), 401, "not signed with RS256"),
        "HS256 with the public key": (
            unsigned(
                {"alg": "HS256", "typ": "JWT", "kid": "key-1"},
                issuer.claims(),
                lambda data: hmac.new(public_pem, data, hashlib.sha256).digest(),
            ),
            401,
            "not signed with RS256",
        ),
        "wrong aud": (issuer.token(aud="https://elsewhere.example.com"), 401, "its audience is not"),
        "expired": (issuer.token(exp=now - 3600, iat=now - 7200, nbf=now - 7200), 401, "it has expired"),
        "not yet valid": (issuer.token(nbf=now + 3600), 401, "it is not valid yet"),
        "issued in the future": (issuer.token(iat=now + 3600), 401, "it is not valid yet"),
        "unknown kid": (issuer.token(kid="key-2", key=PRIVATE), 401, "its signing key (kid) is not one"),
        "another key, same kid": (issuer.token(key=PRIVATE), 401, "its signature is not valid"),
        "another issuer": (issuer.token(iss="https://evil.example.com/_services/token"), 401, "its issuer is not"),
        "no repository claim": (issuer.token(repository=None), 401, "a required claim is missing"),
        "claims disagree": (issuer.token(repository_owner="other"), 401, "its repository claims disagree"),
        "no such repository": (issuer.token(repository="acme/nothing"), 401, "it opens no repository here"),
        "not a JWT": ("eyJhbGciOi.eyJzdWIi.x", 401, "it is not a JWT"),
    }


BAD_CASES = [
    "alg none",
    "HS256 with the public key",
    "wrong aud",
    "expired",
    "not yet valid",
    "issued in the future",
    "unknown kid",
    "another key, same kid",
    "another issuer",
    "no repository claim",
    "claims disagree",
    "no such repository",
    "not a JWT",
]


@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_tokens_are_refused_logged_without_the_token_and_change_nothing(service, issuer, caplog, case) -> None:
    token, status, words = bad_tokens(issuer)[case]
    caplog.set_level(logging.INFO)
    before = _rows(service)
    answer = v2(service, token, status=status)
    assert answer.text.startswith("Upload refused: the GitHub Actions OIDC token is not valid: ")
    assert words in answer.text
    assert _rows(service) == before
    assert any("OIDC token refused" in record.getMessage() for record in caplog.records)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert token not in logged and token.split(".")[1] not in logged


def _rows(testapp: webtest.TestApp) -> Any:
    with testapp.app.app_context():
        commits = [stored(*named) for named in [("github", "widgets"), ("github_enterprise", "widgets")]]
        return [(commit.sha, commit.lines) if commit else None for commit in commits]


def test_unknown_kids_ask_the_issuer_at_most_once_a_minute(service, issuer, monkeypatch) -> None:
    v2(service, issuer.token())
    for _ in range(5):
        v2(service, issuer.token(kid="key-2", key=PRIVATE), status=401)
    assert issuer.requests == 1
    # A key the issuer starts to publish is found once the minute has passed.
    issuer.keys["key-2"] = PRIVATE
    monkeypatch.setattr(actions_oidc, "JWKS_REFETCH_SECONDS", 0)
    v2(service, issuer.token(kid="key-2"))
    assert issuer.requests == 2


def test_an_issuer_that_is_down_is_a_503_and_changes_nothing(service, issuer, monkeypatch) -> None:
    monkeypatch.setattr(actions_oidc, "GITHUB_JWKS_URL", "http://127.0.0.1:9/jwks")  # discard: nothing listens
    answer = v2(service, issuer.token(iss=actions_oidc.GITHUB_ISSUER), status=503)
    checked = "Upload refused: the GitHub Actions OIDC token could not be checked: the issuer's signing keys"
    assert answer.text == checked + " could not be read; try again later.\n"
    with service.app.app_context():
        assert stored("github", "widgets") is None


def test_garbage_keys_are_a_503(service, issuer, monkeypatch) -> None:
    monkeypatch.setattr(actions_oidc, "GITHUB_JWKS_URL", issuer.url + "/nothing-here")
    v2(service, issuer.token(iss=actions_oidc.GITHUB_ISSUER), status=503)


def test_without_a_public_url_no_token_is_taken(make_app, make_database_url, issuer) -> None:
    providers = {"github_enterprise": {"url": issuer.url + "/api/v3", "token": "ghe-token"}}
    app = make_app(make_database_url(), COVERAGE_PROVIDERS=providers)
    with app.app_context():
        operations.add_org("github_enterprise", "acme")
        operations.add_repo("github_enterprise", "acme", "widgets")
    answer = v2(webtest.TestApp(app), issuer.token(), status=401)
    assert "its public URL is not set" in answer.text and issuer.requests == 0
