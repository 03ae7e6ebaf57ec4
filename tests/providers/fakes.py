"""Recording fakes of the git hosts' APIs on loopback: a real HTTP server whose routes a test writes as
functions, and which keeps every request it was sent (method, path with query, headers, JSON body)."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional, Union
from urllib.parse import parse_qs, urlsplit

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
