"""The real codecov-cli (pinned, as in tests/test_real_uploaders.py) uploading without a secret.

- **GitHub Actions OIDC**: a fake Actions token endpoint on loopback stands for the runner's
  (``ACTIONS_ID_TOKEN_REQUEST_URL`` / ``ACTIONS_ID_TOKEN_REQUEST_TOKEN``); it answers ``{"value": <jwt>}``
  with a JWT signed by a test key, whose JWKS a second loopback server publishes as a GitHub Enterprise
  Server's issuer (``{url}/_services/token/.well-known/jwks``). codecov-cli 11.3.1 has no OIDC code of
  its own: Codecov's Action asks for the token (``core.getIDToken(url)`` when ``use_oidc: true``) and
  passes it as codecov-cli's token, which :func:`actions_id_token` does here the same way.
- **Tokenless**: codecov-cli without a token, from a fork's branch ``contributor:fix``.

The service runs on a threaded werkzeug server in this process: its public URL (the tokens' audience,
and the start of the upload URLs codecov-cli PUTs to) is known before the app is made. Marked ``clients``.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from test_real_uploaders import DATA, REPORTS, get, install_clients, report_totals, run, sha_for
from werkzeug.serving import make_server

from flask_coverage import operations

pytestmark = pytest.mark.clients

REQUEST_TOKEN = "runner-request-token"
REPORT = REPORTS[2]  # the LCOV one
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


class LateApp:
    """A WSGI app set after its server is bound (the app needs the server's URL)."""

    app: Any = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        return self.app(environ, start_response)


class Loopback:
    """Threaded werkzeug servers on free 127.0.0.1 ports, stopped together."""

    def __init__(self) -> None:
        self.servers: list[Any] = []

    def serve(self, app: Any) -> str:
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.servers.append(server)
        return f"http://127.0.0.1:{server.port}"

    def stop(self) -> None:
        for server in self.servers:
            server.shutdown()
            server.server_close()


def json_app(answer: Any) -> Any:
    """A WSGI app answering what ``answer(environ)`` returns: ``(status, JSON data)``."""

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        status, data = answer(environ)
        start_response(status, [("Content-Type", "application/json")])
        return [json.dumps(data).encode()]

    return app


class ActionsTokens:
    """The fake Actions token endpoint: a JWT for ``repository`` with the audience asked for, signed as
    ``mode`` says (``valid``, ``expired`` or ``none``: ``alg: none``)."""

    def __init__(self, issuer: str) -> None:
        self.issuer, self.repository, self.mode = issuer, "acme/widgets", "valid"

    def __call__(self, environ: dict[str, Any]) -> tuple[str, Any]:
        if environ.get("HTTP_AUTHORIZATION") != f"bearer {REQUEST_TOKEN}":
            return "401 Unauthorized", {"message": "bad request token"}
        audience = parse_qs(environ["QUERY_STRING"])["audience"][0]
        now = int(time.time())
        issued = now - 7200 if self.mode == "expired" else now
        claims = {"iss": self.issuer, "aud": audience, "iat": issued, "nbf": issued, "exp": issued + 300}
        claims.update(repository=self.repository, repository_owner=self.repository.split("/")[0])
        if self.mode == "none":
            token = jwt.encode(claims, None, algorithm="none")
        else:
            token = jwt.encode(claims, KEY, algorithm="RS256", headers={"kid": "test-key"})
        return "200 OK", {"value": token}


def jwks(environ: dict[str, Any]) -> tuple[str, Any]:
    if environ["PATH_INFO"] != "/_services/token/.well-known/jwks":
        return "404 Not Found", {}
    key = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(KEY.public_key()))
    return "200 OK", {"keys": [{**key, "kid": "test-key", "use": "sig", "alg": "RS256"}]}


@pytest.fixture(scope="module")
def clients() -> dict[str, str]:
    return install_clients()


@pytest.fixture
def service(make_app: Any, make_database_url: Any) -> Iterator[dict[str, Any]]:
    """The service on GitHub Enterprise whose issuer is the loopback JWKS server, with the public
    repositories ghe/acme/widgets and gadgets and the private ghe/acme/secret; the fake Actions token endpoint."""
    loopback = Loopback()
    late = LateApp()
    url = loopback.serve(late)
    enterprise = loopback.serve(json_app(jwks))
    tokens = ActionsTokens(enterprise + "/_services/token")
    providers = {"github_enterprise": {"url": enterprise + "/api/v3", "token": "ghe-token"}}
    app = make_app(make_database_url(), COVERAGE_PUBLIC_URL=url, COVERAGE_PROVIDERS=providers)
    with app.app_context():
        operations.add_org("github_enterprise", "acme")
        operations.add_repo("github_enterprise", "acme", "widgets")
        operations.add_repo("github_enterprise", "acme", "gadgets")
        operations.add_repo("github_enterprise", "acme", "secret", private=True)
    late.app = app
    runner = {
        "ACTIONS_ID_TOKEN_REQUEST_URL": loopback.serve(json_app(tokens)) + "/token?api-version=2.0",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": REQUEST_TOKEN,
    }
    try:
        yield {"url": url, "tokens": tokens, "runner": runner}
    finally:
        loopback.stop()


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / REPORT).write_bytes((DATA / REPORT).read_bytes())
    git = ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci"]
    run([*git, "init", "-q", "-b", "main", "."], tmp_path, check=True)
    run([*git, "add", "-A"], tmp_path, check=True)
    run([*git, "commit", "-q", "-m", "reports"], tmp_path, check=True)
    return tmp_path


def actions_id_token(runner: dict[str, str], audience: str) -> str:
    """What Codecov's Action does with ``use_oidc: true``: ask the runner's token endpoint, named by
    ``runner``'s ``ACTIONS_ID_TOKEN_REQUEST_URL`` and ``ACTIONS_ID_TOKEN_REQUEST_TOKEN``, for a JWT."""
    url = f"{runner['ACTIONS_ID_TOKEN_REQUEST_URL']}&audience={audience}"
    headers = {"Authorization": f"bearer {runner['ACTIONS_ID_TOKEN_REQUEST_TOKEN']}"}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as answer:  # noqa: S310 - http://127.0.0.1
        token: str = json.load(answer)["value"]
    return token


def upload(clients: dict[str, str], service: dict[str, Any], checkout: Path, sha: str, **options: Any) -> Any:
    """``codecovcli upload-process`` of the LCOV report to ghe/acme/``repo`` (``token`` ``None``: none)."""
    argv = [clients["codecovcli"], "--enterprise-url", service["url"], "upload-process", "-C", sha]
    argv += ["-r", f"acme/{options.get('repo', 'widgets')}", "--git-service", "github_enterprise"]
    argv += ["--disable-search", "-Z", "--file", REPORT, "--branch", options.get("branch", "main")]
    if options.get("token") is not None:
        argv += ["-t", options["token"]]
    return run(argv, checkout)


def ghe_totals(service: dict[str, Any], sha: str, repo: str = "widgets") -> Any:
    status, body = get({"url": service["url"]}, f"/api/v2/github_enterprise/acme/repos/{repo}/report/?sha={sha}")
    return json.loads(body) if status == 200 else status


def test_codecovcli_uploads_with_an_actions_oidc_token(clients, service, checkout) -> None:
    service["tokens"].mode, service["tokens"].repository = "valid", "acme/widgets"
    token = actions_id_token(service["runner"], service["url"])
    sha = sha_for("oidc")
    result = upload(clients, service, checkout, sha, token=token)
    assert result.returncode == 0, result.stderr + result.stdout
    files = {file["name"]: file["totals"] for file in ghe_totals(service, sha)["files"]}
    expected = report_totals(REPORT)
    assert {name: (t["lines"], t["hits"], t["misses"], t["partials"]) for name, t in files.items()} == expected
    assert ghe_totals(service, sha, "gadgets") == 404


@pytest.mark.parametrize(
    ("mode", "repo", "message"),
    [
        ("valid", "gadgets", "the upload token is not the token of github_enterprise/acme/gadgets"),
        ("expired", "widgets", "the GitHub Actions OIDC token is not valid: it has expired"),
        ("none", "widgets", "the GitHub Actions OIDC token is not valid: it is not signed with RS256"),
    ],
)
def test_codecovcli_is_refused_with_a_bad_oidc_token(clients, service, checkout, mode, repo, message) -> None:
    service["tokens"].mode, service["tokens"].repository = mode, "acme/widgets"
    token = actions_id_token(service["runner"], service["url"])
    sha = sha_for("oidc-" + mode)
    result = upload(clients, service, checkout, sha, token=token, repo=repo)
    assert result.returncode == 1 and message in result.stderr + result.stdout
    assert ghe_totals(service, sha) == 404 and ghe_totals(service, sha, "gadgets") == 404


def test_codecovcli_without_a_token_from_a_fork(clients, service, checkout) -> None:
    sha = sha_for("fork")
    result = upload(clients, service, checkout, sha, branch="contributor:fix")
    assert result.returncode == 0, result.stderr + result.stdout
    assert len(ghe_totals(service, sha)["files"]) == len(report_totals(REPORT))
    refused = "uploads are taken only from a fork's pull request (branch 'user:branch') to a public repository"
    for repo, branch in [("secret", "contributor:fix"), ("widgets", "main"), ("nothing", "contributor:fix")]:
        other = sha_for(f"fork-{repo}-{branch}")
        result = upload(clients, service, checkout, other, repo=repo, branch=branch)
        assert result.returncode == 1 and refused in result.stderr + result.stdout, (repo, branch)
        assert ghe_totals(service, other, repo) == 404
