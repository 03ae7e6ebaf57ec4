"""Recording fakes of the git hosts' APIs on loopback: a real HTTP server whose routes a test writes as
functions, and which keeps every request it was sent (method, path with query, headers, JSON body)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional, Union
from urllib.parse import parse_qs, urlencode, urlsplit

#: What a route answers: a status, a body (bytes, or JSON-able), and headers.
Answer = tuple[int, Union[bytes, Any], dict[str, str]]


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    peer: tuple[str, int] = ("", 0)  # the client's address and port

    @property
    def route(self) -> str:
        return self.path.split("?")[0]


@dataclass
class FakeHost:
    """A server on 127.0.0.1; ``routes`` are ``(METHOD, regex) -> f(request, match) -> Answer``, the
    regex matching the end of the path (the query aside), whatever API prefix comes before it."""

    url: str = ""
    requests: list[Request] = field(default_factory=list)
    routes: list[tuple[str, re.Pattern[str], Callable[[Request, re.Match[str]], Answer]]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    def route(self, method: str, pattern: str) -> Callable[[Callable[[Request, re.Match[str]], Answer]], Any]:
        def add(f: Callable[[Request, re.Match[str]], Answer]) -> Any:
            self.routes.append((method, re.compile(pattern + r"(\?.*)?$"), f))
            return f

        return add

    def answer(self, request: Request) -> Answer:
        for method, pattern, f in self.routes:
            match = pattern.search(request.path)
            if method == request.method and match:
                return f(request, match)
        return 404, {"message": "Not Found"}, {}

    def sent(self, method: Optional[str] = None) -> list[Request]:
        return [r for r in self.requests if method is None or r.method == method]


@contextlib.contextmanager
def fake_host(port: int = 0) -> Iterator[FakeHost]:
    """A :class:`FakeHost` serving on ``port`` (0: a free one) while the block runs."""
    host = FakeHost()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go in two writes: without this, each answer waits for a delayed ACK.
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def handle_one(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = raw
            request = Request(self.command, self.path, dict(self.headers), body, self.client_address[:2])
            host.requests.append(request)
            status, payload, headers = host.answer(request)
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_one  # noqa: N815 - the http.server names

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield host
    finally:
        server.shutdown()
        server.server_close()


def github_app_routes(host: FakeHost, installation: int = 42) -> None:
    """A GitHub App's installation (any repository) and its access tokens (``host.state["tokens"]``)."""
    tokens: list[str] = host.state.setdefault("tokens", [])

    @host.route("GET", r"/repos/[^/]+/[^/]+/installation")
    def find(request: Request, match: re.Match[str]) -> Answer:
        return 200, {"id": installation}, {}

    @host.route("POST", rf"/app/installations/{installation}/access_tokens")
    def token(request: Request, match: re.Match[str]) -> Answer:
        tokens.append(f"ghs_installation{len(tokens)}")
        return 201, {"token": tokens[-1], "expires_at": "2099-01-01T00:00:00Z"}, {}


def github_check_run_routes(host: FakeHost) -> None:
    """GitHub's check runs as GitHub keeps them (``host.state["runs"]``: id → run): created, updated
    in place, annotations added to those the run has (50 a request at most, as GitHub takes them),
    listed per commit (newest first, by ``check_name``, ``filter=latest``: each name's latest).
    ``host.state["refuse_checks"]`` set: 403, as to an App without *Checks: write*."""
    runs: dict[int, dict[str, Any]] = host.state.setdefault("runs", {})

    def apply(run: dict[str, Any], body: dict[str, Any]) -> Optional[Answer]:
        output = dict(body.get("output") or {})
        notes = output.pop("annotations", [])
        if len(notes) > 50:
            return 422, {"message": "Only 50 annotations may be sent at a time"}, {}
        run["annotations"].extend(notes)
        run.update({k: v for k, v in body.items() if k not in ("output", "name", "head_sha")}, output=output)
        return None

    def refused() -> Optional[Answer]:
        if host.state.get("refuse_checks"):
            return 403, {"message": "Resource not accessible by integration"}, {}
        return None

    @host.route("POST", r"/repos/[^/]+/[^/]+/check-runs")
    def create(request: Request, match: re.Match[str]) -> Answer:
        run_id = max(runs, default=1000) + 1
        run = {"id": run_id, "name": request.body["name"], "head_sha": request.body["head_sha"], "annotations": []}
        failed = refused() or apply(run, request.body)
        if failed:
            return failed
        runs[run_id] = run
        return 201, run, {}

    @host.route("GET", r"/repos/[^/]+/[^/]+/commits/([0-9a-f]{40})/check-runs")
    def listed(request: Request, match: re.Match[str]) -> Answer:
        query = parse_qs(urlsplit(request.path).query)
        name = query.get("check_name", [None])[0]
        found = [run for _, run in sorted(runs.items(), reverse=True) if run["head_sha"] == match[1]]
        found = [run for run in found if name is None or run["name"] == name]
        if query.get("filter", ["latest"])[0] == "latest":  # the latest run of each name
            found = [run for n, run in enumerate(found) if run["name"] not in {r["name"] for r in found[:n]}]
        return refused() or (200, {"total_count": len(found), "check_runs": found}, {})

    @host.route("PATCH", r"/repos/[^/]+/[^/]+/check-runs/(\d+)")
    def update(request: Request, match: re.Match[str]) -> Answer:
        run = runs.get(int(match[1]))
        if run is None:
            return 404, {"message": "Not Found"}, {}
        failed = refused() or apply(run, request.body)
        return failed or (200, run, {})


def later_wall_clock(monkeypatch: Any, seconds: float) -> None:
    """The HTTP client's wall clock (``time.time``: rate limits' resets) ``seconds`` on; its deadlines
    and sleeps keep the real clock."""
    from flask_coverage.providers import http

    real = time.time

    class Later:
        monotonic, sleep = staticmethod(time.monotonic), staticmethod(time.sleep)

        @staticmethod
        def time() -> float:
            return real() + seconds

    monkeypatch.setattr(http, "time", Later)


def paged(host: FakeHost, request: Request, items: list[Any], *, bitbucket: bool = False) -> Answer:
    """One page of ``items`` as the host pages a list: ``page`` and ``per_page`` (``pagelen`` on
    Bitbucket) in the query, the next page's URL in a ``Link`` header (in the body's ``next`` on
    Bitbucket); ``host.state["rate_remaining"]``, when set, is sent as ``X-RateLimit-Remaining`` (with a
    reset a minute away)."""
    query = parse_qs(urlsplit(request.path).query)
    size = int(query.get("pagelen" if bitbucket else "per_page", ["30"])[0])
    page = int(query.get("page", ["1"])[0])
    chunk = items[(page - 1) * size : page * size]
    rest = {key: values[0] for key, values in query.items() if key != "page"}
    following = (
        f"{host.url}{request.route}?{urlencode({**rest, 'page': page + 1})}" if page * size < len(items) else None
    )
    headers: dict[str, str] = {}
    if "rate_remaining" in host.state:
        headers.update({"X-RateLimit-Remaining": str(host.state["rate_remaining"]), "X-RateLimit-Reset": "9999999999"})
    if bitbucket:
        body: dict[str, Any] = {"values": chunk, "pagelen": size, "page": page}
        if following:
            body["next"] = following
        return 200, body, headers
    if following:
        headers["Link"] = f'<{following}>; rel="next"'
    return 200, chunk, headers


def oauth_routes(
    host: FakeHost,
    *,
    client_id: str,
    client_secret: str,
    paths: tuple[str, str] = ("/login/oauth/authorize", "/login/oauth/access_token"),
) -> None:
    """An OAuth 2 authorization server: the authorize endpoint signs the visitor in at once and sends
    them back with a code (bound to the client, the redirect URI and the PKCE challenge); the token
    endpoint exchanges a code once, for the client that asked for it, checking the PKCE verifier
    (S256), and answers ``{"access_token": host.state["access_token"]}``. ``host.state["token_answer"]``
    (an :data:`Answer`) replaces the token endpoint's answer; ``host.state["token_delay"]`` delays it."""
    codes: dict[str, dict[str, Any]] = host.state.setdefault("codes", {})
    host.state.setdefault("access_token", "gho_signed_in_token")

    @host.route("GET", paths[0])
    def authorize(request: Request, match: re.Match[str]) -> Answer:
        query = {key: values[0] for key, values in parse_qs(urlsplit(request.path).query).items()}
        code = f"code{len(codes)}"
        codes[code] = query
        target = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query.get("state", "")})
        return 302, b"", {"Location": target}

    @host.route("POST", paths[1])
    def token(request: Request, match: re.Match[str]) -> Answer:
        if "token_delay" in host.state:
            time.sleep(host.state["token_delay"])
        if "token_answer" in host.state:
            answer: Answer = host.state["token_answer"]
            return answer
        raw = request.body if isinstance(request.body, bytes) else urlencode(request.body or {}).encode()
        form = {key: values[0] for key, values in parse_qs(raw.decode()).items()}
        asked = codes.pop(form.get("code", ""), None)
        refused = (400, {"error": "invalid_grant"}, {})
        if form.get("client_id") != client_id or form.get("client_secret") != client_secret:
            return 401, {"error": "invalid_client"}, {}
        if asked is None or asked.get("client_id") != client_id or asked["redirect_uri"] != form.get("redirect_uri"):
            return refused
        if "code_challenge" in asked:
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if digest != asked["code_challenge"]:
                return refused
        return (
            200,
            {"access_token": host.state["access_token"], "token_type": "bearer", "scope": asked.get("scope")},
            {},
        )


def _signed_in(host: FakeHost, request: Request) -> bool:
    return request.headers.get("Authorization") == f"Bearer {host.state['access_token']}"


def github_account_routes(host: FakeHost) -> None:
    """GitHub's view of the signed-in user: ``host.state["user"]`` (``login``, ``id``), ``["orgs"]``
    (``(login, id, role)``), ``["repos"]`` (GitHub's repository objects); only for the token issued."""
    unauthorized = (401, {"message": "Bad credentials"}, {})

    @host.route("GET", r"/user")
    def user(request: Request, match: re.Match[str]) -> Answer:
        return (200, host.state["user"], {}) if _signed_in(host, request) else unauthorized

    @host.route("GET", r"/user/memberships/orgs")
    def orgs(request: Request, match: re.Match[str]) -> Answer:
        items = [
            {"state": "active", "role": role, "organization": {"login": login, "id": org_id}}
            for login, org_id, role in host.state.get("orgs", [])
        ]
        return paged(host, request, items) if _signed_in(host, request) else unauthorized

    @host.route("GET", r"/user/repos")
    def repos(request: Request, match: re.Match[str]) -> Answer:
        return paged(host, request, host.state.get("repos", [])) if _signed_in(host, request) else unauthorized


def github_repository(
    owner: str, owner_id: int, name: str, repo_id: int, *, private: bool, org: bool = True
) -> dict[str, Any]:
    """A repository as GitHub's ``/user/repos`` lists it, readable by the user."""
    kind = "Organization" if org else "User"
    return {
        "id": repo_id,
        "name": name,
        "owner": {"login": owner, "id": owner_id, "type": kind},
        "private": private,
        "default_branch": "main",
        "permissions": {"admin": False, "push": False, "pull": True},
    }


def gitlab_account_routes(host: FakeHost) -> None:
    """GitLab's view of the signed-in user: ``host.state["user"]`` (``username``, ``id``), ``["groups"]``
    (``(full_path, id, access_level)``), ``["projects"]`` (GitLab's project objects); ``min_access_level``
    filters the groups as GitLab does."""

    @host.route("GET", r"/user")
    def user(request: Request, match: re.Match[str]) -> Answer:
        return (
            (200, host.state["user"], {}) if _signed_in(host, request) else (401, {"message": "401 Unauthorized"}, {})
        )

    @host.route("GET", r"/groups")
    def groups(request: Request, match: re.Match[str]) -> Answer:
        least = int(parse_qs(urlsplit(request.path).query).get("min_access_level", ["10"])[0])
        items = [
            {"id": group_id, "full_path": path, "name": path.title()}
            for path, group_id, level in host.state.get("groups", [])
            if level >= least
        ]
        return paged(host, request, items)

    @host.route("GET", r"/projects")
    def projects(request: Request, match: re.Match[str]) -> Answer:
        return paged(host, request, host.state.get("projects", []))


def gitlab_project(namespace: str, namespace_id: int, path: str, project_id: int, *, private: bool) -> dict[str, Any]:
    """A project of a group as GitLab's ``/projects?membership=true`` lists it."""
    return {
        "id": project_id,
        "path": path,
        "namespace": {"id": namespace_id, "full_path": namespace, "kind": "group", "name": namespace},
        "visibility": "private" if private else "public",
        "default_branch": "main",
    }


def bitbucket_account_routes(host: FakeHost) -> None:
    """Bitbucket Cloud's view of the signed-in user: ``host.state["user"]`` (``username``, ``uuid``),
    ``["workspaces"]`` (``(slug, uuid, permission)``), ``["repositories"]`` (Bitbucket's objects)."""

    @host.route("GET", r"/user")
    def user(request: Request, match: re.Match[str]) -> Answer:
        return (200, host.state["user"], {}) if _signed_in(host, request) else (401, {"type": "error"}, {})

    @host.route("GET", r"/user/permissions/workspaces")
    def workspaces(request: Request, match: re.Match[str]) -> Answer:
        items = [
            {"permission": permission, "workspace": {"slug": slug, "uuid": uuid, "name": slug.title()}}
            for slug, uuid, permission in host.state.get("workspaces", [])
        ]
        return paged(host, request, items, bitbucket=True)

    @host.route("GET", r"/repositories")
    def repositories(request: Request, match: re.Match[str]) -> Answer:
        return paged(host, request, host.state.get("repositories", []), bitbucket=True)


def bitbucket_repository(workspace: str, slug: str, uuid: str, *, private: bool) -> dict[str, Any]:
    """A repository as Bitbucket's ``/repositories?role=member`` lists it."""
    return {
        "slug": slug,
        "uuid": uuid,
        "is_private": private,
        "mainbranch": {"name": "main"},
        "workspace": {"slug": workspace, "uuid": "{" + workspace + "}"},
    }
