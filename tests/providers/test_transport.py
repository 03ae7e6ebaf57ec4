"""What every provider request gets (providers/http.py), against misbehaving servers on loopback:
retries with backoff on 5xx and 429 honouring Retry-After and GitHub's rate-limit headers, redirects
to another host refused, a total deadline however slowly the answer drips, bounded bodies, garbage,
and no token in any message or log line."""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fakes import FakeHost, Request, fake_host, later_wall_clock

from flask_coverage.models import Owner, Repository, ServiceEnum
from flask_coverage.providers import ProviderError
from flask_coverage.providers.github import GitHub
from flask_coverage.providers.http import Transport, budget

TOKEN = "ghp_secret-that-must-not-leak"  # noqa: S105 - the fake's
REPO = Repository(name="widgets", owner=Owner(service=ServiceEnum.github, username="acme"))


@pytest.fixture
def host() -> Iterator[FakeHost]:
    with fake_host() as fake:
        yield fake


def flaky(host: FakeHost, *answers: tuple[int, Any, dict[str, str]]) -> None:
    """``GET /thing`` answers ``answers`` in turn, then 200 ``{"ok": true}``."""
    queue = list(answers)

    @host.route("GET", r"/thing")
    def thing(request: Request, match: re.Match[str]) -> Any:
        return queue.pop(0) if queue else (200, {"ok": True}, {})


def test_5xx_is_retried_with_backoff_then_succeeds(host: FakeHost) -> None:
    flaky(host, (502, b"bad gateway", {}), (503, b"", {}))
    started = time.monotonic()
    assert Transport("github", host.url).request("GET", "/thing").json() == {"ok": True}
    assert len(host.requests) == 3
    assert time.monotonic() - started >= 0.5 + 1.0  # backoff 0.5 s, then 1 s


def test_retries_are_bounded_and_the_error_says_when_to_try_again(host: FakeHost) -> None:
    flaky(host, *[(500, {"message": "boom"}, {})] * 5)
    with pytest.raises(ProviderError) as raised:
        Transport("github", host.url, retries=1).request("GET", "/thing")
    assert len(host.requests) == 2
    assert raised.value.status == 500
    assert raised.value.retryable
    assert str(raised.value) == "github answered 500 to GET /thing (boom)"


def test_429_honours_retry_after(host: FakeHost) -> None:
    flaky(host, (429, b"", {"Retry-After": "1"}))
    started = time.monotonic()
    Transport("gitlab", host.url).request("GET", "/thing")
    assert time.monotonic() - started >= 1
    assert len(host.requests) == 2


def test_githubs_rate_limit_waits_until_the_reset(host: FakeHost) -> None:
    reset = str(int(time.time()) + 1)
    flaky(
        host, (403, {"message": "API rate limit exceeded"}, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
    )
    Transport("github", host.url).request("GET", "/thing")
    assert time.time() >= int(reset)
    assert len(host.requests) == 2


def test_a_long_wait_is_left_to_the_caller(host: FakeHost) -> None:
    """A Retry-After past the in-call limit is not slept: the error carries it (the outbox retries later)."""
    flaky(host, (429, b"", {"Retry-After": "3600"}))
    started = time.monotonic()
    with pytest.raises(ProviderError) as raised:
        Transport("github", host.url).request("GET", "/thing")
    assert time.monotonic() - started < 1
    assert raised.value.retry_after == 3600
    assert len(host.requests) == 1


@pytest.mark.parametrize(
    ("status", "message", "retryable"),
    [
        (401, "github answered 401 to GET /thing: check the token in COVERAGE_PROVIDERS (Bad credentials)", False),
        (403, "github answered 403 to GET /thing: the token may not do this (Bad credentials)", False),
        (404, "github answered 404 to GET /thing (Bad credentials)", False),
        (422, "github answered 422 to GET /thing (Bad credentials)", False),
    ],
)
def test_refusals_are_clear_and_not_retried(host: FakeHost, status: int, message: str, retryable: bool) -> None:
    flaky(host, (status, {"message": "Bad credentials"}, {}))
    with pytest.raises(ProviderError) as raised:
        Transport("github", host.url).request("GET", "/thing")
    assert (str(raised.value), raised.value.status, raised.value.retryable) == (message, status, retryable)
    assert len(host.requests) == 1


def test_a_redirect_to_another_host_is_not_followed(host: FakeHost) -> None:
    with fake_host() as elsewhere:
        flaky(host, (302, b"", {"Location": elsewhere.url + "/steal"}))
        with pytest.raises(
            ProviderError, match=r"redirected GET /thing to another host \(127\.0\.0\.1\): not followed"
        ):
            GitHub({"url": host.url, "token": TOKEN}).http.request("GET", "/thing", headers={"Authorization": TOKEN})
        assert elsewhere.requests == []
        # Another port is another host; the same host and port is followed.

        @host.route("GET", r"/moved")
        def moved(request: Request, match: re.Match[str]) -> Any:
            return 301, b"", {"Location": "/thing"}

        assert Transport("github", host.url).request("GET", "/moved").json() == {"ok": True}
        assert [r.path for r in host.requests][-2:] == ["/moved", "/thing"]


def test_garbage_is_a_clear_error(host: FakeHost) -> None:
    @host.route("GET", r"/repos/acme/widgets/pulls/1")
    def garbage(request: Request, match: re.Match[str]) -> Any:
        return 200, b"<html>proxy error</html>", {}

    @host.route("GET", r"/repos/acme/widgets/pulls/2")
    def wrong_shape(request: Request, match: re.Match[str]) -> Any:
        return 200, {"number": 2, "state": "open"}, {}

    client = GitHub({"url": host.url, "token": TOKEN})
    with pytest.raises(ProviderError, match="answered 200 with a body that is not JSON"):
        client.pull(REPO, 1)
    with pytest.raises(ProviderError, match="github answered a pull request with something unexpected"):
        client.pull(REPO, 2)


def test_a_body_past_the_bound_is_refused(host: FakeHost) -> None:
    flaky(host, (200, b"x" * 100_000, {}))
    with budget(10, max_bytes=50_000), pytest.raises(ProviderError, match="answer is larger than 50,000 bytes"):
        Transport("github", host.url).request("GET", "/thing")


@contextlib.contextmanager
def dripping_server(headers_too: bool) -> Iterator[str]:
    """Answers one byte every 0.05 s (the headers too, if ``headers_too``): 5 s in all."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                connection, _ = listener.accept()
                threading.Thread(target=drip, args=(connection,), daemon=True).start()

    def drip(connection: socket.socket) -> None:
        with connection, contextlib.suppress(OSError):
            connection.recv(65536)
            head = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
            if not headers_too:
                connection.sendall(head)
            for byte in (head if headers_too else b"") + b"x" * 100:
                if stop.is_set():
                    return
                connection.sendall(bytes([byte]))
                time.sleep(0.05)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


@pytest.mark.parametrize("headers_too", [False, True])
def test_the_deadline_is_the_whole_exchanges(headers_too: bool) -> None:
    """F7: bytes arriving every 0.05 s never trip a socket timeout; the deadline cuts them all the same."""
    with dripping_server(headers_too) as url:
        transport = Transport("github", url, timeout=0.5)
        started = time.monotonic()
        with pytest.raises(ProviderError, match=r"github did not answer in time \(GET /slow\)") as raised:
            transport.request("GET", "/slow")
        assert time.monotonic() - started < 2.5  # half the 5 s the drip takes
        assert raised.value.retryable
        # A budget tightens the deadline of the calls inside it: long enough for the request to be sent
        # on a loaded machine (a budget spent before asking is another message: tests/feedback/test_delivery.py),
        # short beside the drip.
        started = time.monotonic()
        with budget(1.0), pytest.raises(ProviderError, match="did not answer in time"):
            Transport("github", url, timeout=30).request("GET", "/slow")
        assert time.monotonic() - started < 2.5


def test_nothing_listening_is_retried_then_reported() -> None:
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    with pytest.raises(ProviderError, match=r"github could not be reached for GET /thing \(.*\)") as raised:
        Transport("github", f"http://127.0.0.1:{port}", retries=1).request("GET", "/thing")
    assert raised.value.retryable


def test_no_token_in_errors_or_logs(host: FakeHost, caplog: pytest.LogCaptureFixture) -> None:
    """A provider echoing the token back in its errors still gets it redacted; retries are logged without it."""

    @host.route("GET", r"/repos/acme/widgets/pulls/(\d+)")
    def echo(request: Request, match: re.Match[str]) -> Any:
        return (503 if match[1] == "1" else 401), {"message": f"bad {request.headers['Authorization']}"}, {}

    client = GitHub({"url": host.url, "token": TOKEN})
    caplog.set_level(logging.DEBUG)
    for number in (1, 2):
        with pytest.raises(ProviderError) as raised:
            client.pull(REPO, number)
        assert TOKEN not in str(raised.value)
        assert "[redacted]" in str(raised.value)
    assert "retrying" in caplog.text
    assert TOKEN not in caplog.text


def test_a_post_that_may_have_arrived_is_not_sent_twice() -> None:
    """The server reads the request and hangs up without answering: a GET is tried again, a POST (a
    comment) is not, lest it be posted twice; the error says to try later."""
    listener = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = listener.accept()
                with connection:
                    received.append(connection.recv(65536).split(b" ")[0])

    threading.Thread(target=serve, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        with pytest.raises(ProviderError, match="could not be reached for POST /c") as raised:
            Transport("github", url, retries=2).request("POST", "/c", body={"body": "hi"})
        assert raised.value.retryable
        assert received == [b"POST"]
        with pytest.raises(ProviderError, match="could not be reached for GET /c"):
            Transport("github", url, retries=1).request("GET", "/c")
        assert received == [b"POST", b"GET", b"GET"]
    finally:
        listener.close()


def test_a_connection_left_mid_answer_is_not_reused(host: FakeHost) -> None:
    @host.route("GET", r"/big")
    def big(request: Request, match: re.Match[str]) -> Any:
        return 200, b"x" * 200_000, {}

    flaky(host)
    transport = Transport("github", host.url)
    with budget(10, max_bytes=100_000), pytest.raises(ProviderError, match="larger than"):
        transport.request("GET", "/big")
    assert transport.request("GET", "/thing").json() == {"ok": True}  # not the rest of /big's body


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (ProviderError("github answered 403 (rate limit)", status=403, retry_after=60), "retryable"),
        (ProviderError("github answered 502", status=502), "retryable"),
        (ProviderError("github could not be reached"), "retryable"),
        (ProviderError("github answered a pull request with something unexpected"), "retryable"),
        (ProviderError("github answered 401", status=401), "broken"),
        (ProviderError("github answered 403: the token may not do this", status=403), "broken"),
        (ProviderError("github answered 404", status=404), "terminal"),
        (ProviderError("github answered 422", status=422), "terminal"),
    ],
)
def test_one_classification_decides_what_a_caller_does(error: ProviderError, kind: str) -> None:
    """The error carries the decision (the outbox retries exactly the ``retryable`` ones)."""
    assert (error.kind, error.retryable) == (kind, kind == "retryable")


def test_a_rate_limit_is_kept_per_credential_until_its_reset(host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    """A credential's rate limit stops its requests without asking the host; another credential's go;
    when the reset passes, the limited one is asked again."""
    host.state["limited"] = True

    @host.route("GET", "/thing")
    def thing(request: Request, match: re.Match[str]) -> Any:
        if host.state["limited"] and request.headers["Authorization"] == "Bearer limited":
            reset = str(int(time.time()) + 3600)
            return (
                403,
                {"message": "API rate limit exceeded"},
                {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
            )
        return 200, {"ok": True}, {}

    transport = Transport("github", host.url)
    limited, other = {"Authorization": "Bearer limited"}, {"Authorization": "Bearer other"}
    for _ in range(3):
        with pytest.raises(ProviderError) as raised:
            transport.request("GET", "/thing", headers=limited)
        assert raised.value.retryable and raised.value.retry_after is not None and raised.value.retry_after > 3500
    assert str(raised.value).startswith("github rate limits this credential for 3")
    assert transport.request("GET", "/thing", headers=other).json() == {"ok": True}
    assert [request.headers["Authorization"] for request in host.requests] == ["Bearer limited", "Bearer other"]
    host.state["limited"] = False  # the host answers normally again, and the reset passed
    later_wall_clock(monkeypatch, 3660)
    assert transport.request("GET", "/thing", headers=limited).json() == {"ok": True}


def test_githubs_secondary_rate_limit_is_a_rate_limit_not_a_refusal(host: FakeHost) -> None:
    """A 403 saying "secondary rate limit" without any header: waited for a minute, not taken as a refusal."""
    flaky(host, *[(403, {"message": "You have exceeded a secondary rate limit."}, {})] * 3)
    with pytest.raises(ProviderError) as raised:
        Transport("github", host.url).request("GET", "/thing")
    assert (raised.value.kind, raised.value.retry_after) == ("retryable", 60.0)
    assert len(host.requests) == 1


ECHOED = [
    "ghp_" + "A1b2C3d4" * 4 + "E5f6",
    "gho_" + "Z9y8X7w6" * 4 + "V5u4",
    "ghs_" + "k3J4h5G6" * 4 + "f7D8",
    "github_pat_11ABCDEFG0" + "a1B2c3D4e5" * 7,
    "glpat-" + "Xy1_Zw2-Vu3T" + "a9B8c7D6",
    "ATBB" + "q7R8s9T0" * 4,
    "Authorization: Bearer " + "s3cr3tV4lue" * 3,
    "Authorization: token 0b6e4c1e9b7a1f2e3d4c",
    "2a4f1d3c-0b6e-4c1e-9b7a-1f2e3d4c5b6a",  # the service's upload tokens are UUIDs
]


@pytest.mark.parametrize("echoed", ECHOED)
@pytest.mark.parametrize("at", [180, 190, 192])
def test_a_token_echoed_near_the_cut_leaves_nothing_of_it(host: FakeHost, echoed: str, at: int) -> None:
    """A provider's error text is redacted before it is cut to 200 characters: a token echoed across the
    cut (not the client's own: found by its shape) leaves no prefix in the message (7 characters and
    more: "github" is the message's own word)."""
    flaky(host, (422, {"message": "x" * at + " " + echoed + " was refused"}, {}))
    with pytest.raises(ProviderError) as raised:
        Transport("github", host.url).request("GET", "/thing")
    secret = echoed.split()[-1]
    assert not any(secret[:length] in str(raised.value) for length in range(7, len(secret) + 1))


def test_the_clients_own_secret_is_redacted_before_the_cut(host: FakeHost) -> None:
    """A secret of no known shape (a Bitbucket Server token) is redacted whole before the cut too."""
    own = "NjQ1MTM0NzE2OTQ6Hf5pWq0TnRk2y3u4"
    flaky(host, (400, {"message": "y" * 192 + " " + own}, {}))
    transport = Transport("bitbucket_server", host.url)
    transport.secrets.append(own)
    with pytest.raises(ProviderError) as raised:
        transport.request("GET", "/thing")
    assert own[:4] not in str(raised.value) and str(raised.value).endswith(" [redact)")  # redacted, then cut
