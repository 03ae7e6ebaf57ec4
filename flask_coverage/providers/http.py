"""HTTP to a git host: one client per configured provider, over urllib3.

What every request gets (docs/pull-requests.md#providers):

- a **total deadline**: the whole exchange (connect, send, headers, body) ends by the deadline, however
  slowly the server drips its bytes. Socket timeouts only bound the wait for *each* byte (a server
  sending one byte a second never trips them), so a watchdog shuts the socket down when the deadline
  passes, and the read in progress returns at once. The deadline is the client's ``timeout``, or less
  inside :func:`budget` (the file view gives its own ``COVERAGE_SOURCE_TIMEOUT``);
- a **size bound** on the answer (:data:`MAX_BODY_BYTES`, or the budget's);
- **bounded retries** with backoff on connection errors (for a ``POST``, only those before anything
  was sent), 5xx and 429, honouring ``Retry-After`` and
  GitHub's ``X-RateLimit-Remaining: 0`` with ``X-RateLimit-Reset``; a wait that would pass the deadline
  or :data:`MAX_WAIT_SECONDS` is not slept: the :class:`ProviderError` carries it (``retry_after``)
  for the caller to try later;
- **rate limits per credential**: a rate limit not slept is remembered for the credential that met it
  (a token, a GitHub App's installation token: each has its own limit, and each client its host), until
  its reset: requests with that credential fail at once, without asking the host, while the others go;
- **redirects** followed only to the same scheme and host (a few), never elsewhere: the credentials
  would go with them;
- **no secret in a message or a log line**: they travel in headers only, and every message is passed
  through :func:`redact` (the client's own secrets, and anything shaped like a credential, before
  any cut: a cut token leaves no prefix).
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import heapq
import itertools
import json
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import urlencode, urljoin, urlsplit

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from . import CommentGone, ProviderError

log = logging.getLogger(__name__)

#: The largest answer read from a provider (a big pull's diff fits; a hostile server's stream does not).
MAX_BODY_BYTES = 64 * 1024 * 1024
#: The longest wait slept before a retry inside one call; longer ones are left to the caller.
MAX_WAIT_SECONDS = 10.0
#: Same-host redirects followed in one call.
MAX_REDIRECTS = 3
#: The wait before retrying a provider that answered 5xx without ``Retry-After``: doubles each retry.
BACKOFF_SECONDS = 0.5
#: What a caller is told to wait after a failure with nothing better to go by.
DEFAULT_RETRY_AFTER = 60.0
#: The longest part of a provider's own error text kept in a message.
MAX_DETAIL = 200
#: What stands for a secret in a message.
REDACTED = "[redacted]"
#: Credentials by their shape, whoever's they are (a provider may echo another's): an Authorization
#: header's value (or a Bearer/Basic one), GitHub's tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_),
#: GitLab's (glpat-, gldt-, glrt-, ...), Bitbucket's and Atlassian's (ATBB, ATCTT3x, ATATT3x), a JWT
#: (a GitHub App's), and the service's own upload and access tokens (UUIDs).
_CREDENTIAL = re.compile(
    r"(?P<keep>\b(?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?)[^\s\"',;]+"
    r"|(?P<scheme>\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/-]{16,}=*"
    r"|\bgh[opusr]_[A-Za-z0-9]{16,}|\bgithub_pat_\w{16,}"
    r"|\bgl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat|ffct|agent)-[\w-]{16,}"
    r"|\bAT(?:BB|CTT3x|ATT3x)[\w=.-]{16,}"
    r"|\beyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*"
    r"|\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
    re.IGNORECASE,
)
#: The wait after GitHub's secondary rate limit when it says no time ("at least one minute").
SECONDARY_LIMIT_SECONDS = 60.0

_local = threading.local()


@dataclass(frozen=True)
class _Budget:
    deadline: float
    max_bytes: int


@contextlib.contextmanager
def budget(seconds: float, max_bytes: Optional[int] = None) -> Iterator[None]:
    """Every provider request made in this thread inside the block ends within ``seconds`` from now
    (retries included) and reads at most ``max_bytes``; nested blocks only tighten."""
    outer: Optional[_Budget] = getattr(_local, "budget", None)
    deadline = time.monotonic() + seconds
    limit = MAX_BODY_BYTES if max_bytes is None else max_bytes
    if outer is not None:
        deadline, limit = min(deadline, outer.deadline), min(limit, outer.max_bytes)
    _local.budget = _Budget(deadline, limit)
    try:
        yield
    finally:
        _local.budget = outer


class _Watchdog:
    """Shuts down the socket of one request in progress if its deadline passes first."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.fired = self.cancelled = False
        self.sock: Optional[socket.socket] = None
        self._lock = threading.Lock()

    def watch(self, sock: Optional[socket.socket]) -> None:
        with self._lock:
            self.sock = sock
            if self.fired:
                self._shutdown()

    def fire(self) -> None:
        with self._lock:
            if not self.cancelled:
                self.fired = True
                self._shutdown()

    def _shutdown(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True


class _Kennel:
    """One thread for every watchdog of the process: it fires each at its deadline (a thread per
    request cost more than the rest of a loopback request)."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._heap: list[tuple[float, int, _Watchdog]] = []
        self._order = itertools.count()
        self._thread: Optional[threading.Thread] = None

    def watchdog(self, seconds: float) -> _Watchdog:
        dog = _Watchdog(time.monotonic() + max(0.0, seconds))
        with self._wake:
            heapq.heappush(self._heap, (dog.deadline, next(self._order), dog))
            if self._thread is None or not self._thread.is_alive():  # none yet, or a forked worker
                self._thread = threading.Thread(target=self._run, name="coverage-provider-deadlines", daemon=True)
                self._thread.start()
            self._wake.notify()
        return dog

    def _run(self) -> None:
        with self._wake:
            while True:
                now = time.monotonic()
                while self._heap and (self._heap[0][2].cancelled or self._heap[0][0] <= now):
                    heapq.heappop(self._heap)[2].fire()
                self._wake.wait(self._heap[0][0] - now if self._heap else None)


_kennel = _Kennel()


class _Watched:
    # Every request on a connection, new or reused, hands its socket to the thread's watchdog before
    # waiting for the answer; the socket is the same for the body that follows.
    def getresponse(self, *args: Any, **kwargs: Any) -> Any:
        watchdog: Optional[_Watchdog] = getattr(_local, "watchdog", None)
        if watchdog is not None:
            watchdog.watch(self.sock)  # type: ignore[attr-defined]
        return super().getresponse(*args, **kwargs)  # type: ignore[misc]


class _Connection(_Watched, HTTPConnection):
    pass


class _TLSConnection(_Watched, HTTPSConnection):
    pass


class _Pool(HTTPConnectionPool):
    ConnectionCls = _Connection


class _TLSPool(HTTPSConnectionPool):
    ConnectionCls = _TLSConnection


#: What a guarded transport connects to for ``(host, port)``: a checked address (or it raises).
Guard = Callable[[str, int], str]


def _guarded(pool: type[HTTPConnectionPool], guard: Guard) -> type[HTTPConnectionPool]:
    """``pool`` whose connections go to the address ``guard`` checked, not to a new lookup of the name
    (TLS still checks the name: the connection's ``host`` stays the name)."""
    base: Any = pool.ConnectionCls

    class Connection(base):
        def _new_conn(self) -> socket.socket:
            self._dns_host = guard(self.host, self.port)
            return super()._new_conn()

    return type(pool.__name__, (pool,), {"ConnectionCls": Connection})


@dataclass(frozen=True)
class Response:
    """A provider's answer, read whole."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            raise ProviderError(f"answered {self.status} with a body that is not JSON", status=self.status) from None


class Transport:
    """Requests to one provider's API at ``base_url``: ``name`` is what messages call it, ``secrets``
    the strings never to show (tokens), ``timeout`` the deadline of one call, ``retries`` how many
    times a failed call is tried again; ``guard``, where set, gives the address each connection is
    made to (:mod:`.addresses`: a URL a user gave)."""

    def __init__(
        self, name: str, base_url: str, *, timeout: float = 10.0, retries: int = 2, guard: Optional[Guard] = None
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"COVERAGE_PROVIDERS: the {name} URL must be an http(s) URL, not {base_url!r}")
        self.name, self.base_url = name, base_url.rstrip("/")
        self.origin = (parts.scheme, parts.netloc.lower())
        self.timeout, self.retries = timeout, retries
        self.secrets: list[str] = []
        self._limited: dict[str, float] = {}  # a credential's digest -> time.time() its rate limit resets
        self._limited_lock = threading.Lock()
        self._pool = urllib3.PoolManager(num_pools=4, maxsize=8, retries=False)
        pools: dict[str, type[HTTPConnectionPool]] = {"http": _Pool, "https": _TLSPool}
        if guard is not None:
            pools = {scheme: _guarded(pool, guard) for scheme, pool in pools.items()}
        self._pool.pool_classes_by_scheme = pools

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        allow: tuple[int, ...] = (),
    ) -> Response:
        """``method path`` (relative to the base URL, or a same-host absolute URL from a ``next`` link),
        retried and bounded as the module says; an answer outside 2xx and ``allow`` raises a
        :class:`ProviderError` naming the provider, the request and the status."""
        outer: Optional[_Budget] = getattr(_local, "budget", None)
        deadline = time.monotonic() + self.timeout
        limits = _Budget(min(deadline, outer.deadline), outer.max_bytes) if outer else _Budget(deadline, MAX_BODY_BYTES)
        url = path if path.startswith(("http://", "https://")) else self.base_url + path
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params)
        self._check_origin(url, method, path)
        data = None
        all_headers = {"User-Agent": "flask-coverage", "Accept-Encoding": "identity", **(headers or {})}
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        label = f"{method} {urlsplit(url).path}"
        credential = _credential(all_headers)
        self._check_limit(credential, label)
        if outer is not None and outer.deadline <= time.monotonic():
            # The work this request is a step of (a commit's sending, say) has used up its time.
            raise ProviderError(
                f"{self.name} was not asked {label}: the time budget ran out", retry_after=DEFAULT_RETRY_AFTER
            )
        redirects = attempt = 0
        while True:
            try:
                answer = self._once(method, url, data, all_headers, limits)
            except _TimedOut:
                raise ProviderError(
                    f"{self.name} did not answer in time ({label})", retry_after=DEFAULT_RETRY_AFTER
                ) from None
            except ProviderError:
                raise
            except (urllib3.exceptions.HTTPError, OSError) as error:
                wait = BACKOFF_SECONDS * 2**attempt
                message = f"{self.name} could not be reached for {label} ({type(error).__name__})"
                # A POST that may have arrived is not sent again here: a second comment would be noise.
                unsent = isinstance(error, (urllib3.exceptions.NewConnectionError, ConnectionRefusedError))
                if (method != "POST" or unsent) and self._may_retry(attempt, wait, limits):
                    log.warning("%s: retrying in %.1fs", message, wait)
                    time.sleep(wait)
                    attempt += 1
                    continue
                raise ProviderError(message, retry_after=max(wait, DEFAULT_RETRY_AFTER)) from None
            status = answer.status
            if 300 <= status < 400 and answer.headers.get("Location"):
                target = urljoin(url, answer.headers["Location"])
                self._check_origin(target, method, path, redirect=True)
                redirects += 1
                if redirects > MAX_REDIRECTS:
                    raise ProviderError(f"{self.name} redirected {label} too many times", status=status)
                url = target
                continue
            if 200 <= status < 300 or status in allow:
                return answer
            wait = self._wait(answer, attempt)
            message = self._refusal(answer, label)
            if wait is not None and self._may_retry(attempt, wait, limits):
                log.warning("%s: retrying in %.1fs", message, wait)
                time.sleep(wait)
                attempt += 1
                continue
            if wait is not None and _rate_limited(answer):
                with self._limited_lock:
                    self._limited[credential] = time.time() + wait
            raise ProviderError(message, status=status, retry_after=wait)

    def _check_limit(self, credential: str, label: str) -> None:
        """A :class:`ProviderError` (retryable, with the wait left) if the credential is rate limited."""
        with self._limited_lock:
            reset = self._limited.get(credential)
            left = None if reset is None else reset - time.time()
            if left is not None and left <= 0:
                del self._limited[credential]  # the reset passed: asked again
        if left is not None and left > 0:
            message = f"{self.name} rate limits this credential for {left:.0f} s more: {label} not sent"
            raise ProviderError(message, status=429, retry_after=left)

    def _check_origin(self, url: str, method: str, path: str, *, redirect: bool = False) -> None:
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc.lower()) != self.origin:
            what = "redirected" if redirect else "was asked to send"
            raise ProviderError(
                f"{self.name} {what} {method} {urlsplit(path).path} to another host ({parts.hostname}): not followed",
                status=None,
            )

    def _may_retry(self, attempt: int, wait: float, limits: _Budget) -> bool:
        return attempt < self.retries and wait <= MAX_WAIT_SECONDS and time.monotonic() + wait < limits.deadline

    def _wait(self, answer: Response, attempt: int) -> Optional[float]:
        """Seconds to wait before asking again, or ``None`` if asking again cannot help."""
        headers, status = answer.headers, answer.status
        if status < 500 and not _rate_limited(answer):
            return None
        after = _retry_after(headers.get("Retry-After"))
        if after is None and headers.get("X-RateLimit-Remaining") == "0":
            with contextlib.suppress(TypeError, ValueError):
                after = max(0.0, float(headers.get("X-RateLimit-Reset", "")) - time.time()) + 1
        if after is None and status == 403:  # GitHub's secondary limit: "wait at least one minute"
            after = SECONDARY_LIMIT_SECONDS
        return after if after is not None else BACKOFF_SECONDS * 2**attempt

    def _refusal(self, answer: Response, label: str) -> str:
        status = answer.status
        detail = ""
        with contextlib.suppress(ValueError, AttributeError, TypeError, LookupError):
            found = json.loads(answer.body)
            errors = found.get("errors")  # Bitbucket Server lists them
            found = found.get("message") or found.get("error") or (errors[0] if errors else "")
            detail = found if isinstance(found, str) else found.get("message", "")  # Bitbucket nests it
        detail = self.redact(" ".join(str(detail).split()))[:MAX_DETAIL]  # redacted, then cut
        hint = {401: ": check the token in COVERAGE_PROVIDERS", 403: ": the token may not do this"}.get(status, "")
        if _rate_limited(answer):
            hint = ": rate limited"
        text = f"{self.name} answered {status} to {label}{hint}" + (f" ({detail})" if detail else "")
        return self.redact(text)

    def _once(self, method: str, url: str, data: Optional[bytes], headers: dict[str, str], limits: _Budget) -> Response:
        remaining = limits.deadline - time.monotonic()
        if remaining <= 0:
            raise _TimedOut
        watchdog = _local.watchdog = _kennel.watchdog(remaining)
        try:
            response = self._pool.request(
                method,
                url,
                body=data,
                headers=headers,
                timeout=urllib3.Timeout(connect=min(remaining, 5.0), read=remaining),
                redirect=False,
                retries=False,
                preload_content=False,
                decode_content=False,
            )
            complete = False
            try:
                chunks, size = [], 0
                while True:
                    chunk = response.read(65536, decode_content=False)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > limits.max_bytes:
                        raise ProviderError(
                            f"{self.name}'s answer is larger than {limits.max_bytes:,} bytes", status=response.status
                        )
                    chunks.append(chunk)
                if watchdog.fired:
                    raise _TimedOut
                complete = True
                return Response(response.status, response.headers, b"".join(chunks), url)
            finally:
                # Only a connection whose answer was read whole goes back to the pool.
                if complete:
                    response.release_conn()
                else:
                    response.close()
        except (urllib3.exceptions.HTTPError, OSError):
            if watchdog.fired or time.monotonic() >= limits.deadline:
                raise _TimedOut from None
            raise
        finally:
            watchdog.cancel()
            _local.watchdog = None


class _TimedOut(Exception):
    pass


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with each of ``secrets`` and everything shaped like a credential replaced by
    :data:`REDACTED` (a header's name and scheme are kept: ``Authorization: Bearer [redacted]``).
    Redact before cutting a text short: a cut secret is no longer found whole."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return _CREDENTIAL.sub(lambda match: (match["keep"] or match["scheme"] or "") + REDACTED, text)


def _rate_limited(answer: Response) -> bool:
    """Whether the answer is a rate limit: a 429, or a 403 saying so (GitHub's ``X-RateLimit-Remaining:
    0``, a ``Retry-After``, or its secondary limit's message, which may come without either)."""
    if answer.status == 429:
        return True
    if answer.status != 403:
        return False
    headers = answer.headers
    return headers.get("X-RateLimit-Remaining") == "0" or "Retry-After" in headers or b"rate limit" in answer.body


def _credential(headers: Mapping[str, str]) -> str:
    """What a request's rate limit is counted against, as a digest (the token is not kept)."""
    secret = headers.get("Authorization") or headers.get("PRIVATE-TOKEN") or ""  # GitLab's header
    return hashlib.sha256(secret.encode()).hexdigest()


def _retry_after(value: Optional[str]) -> Optional[float]:
    """``Retry-After`` in seconds (a number or an HTTP date), or ``None``."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    with contextlib.suppress(TypeError, ValueError):
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    return None


def comment_id_of(answer: Response, name: str, number: int, comment_id: Optional[str], nouns: tuple[str, str]) -> str:
    """The id of the comment a provider answered a post (``comment_id`` ``None``) or an edit with.
    A 404 is :class:`CommentGone` for an edit and a :class:`ProviderError` for a post; ``nouns`` are
    the provider's words for a comment and a pull request (``("note", "merge request")``)."""
    comment, pull = nouns
    if answer.status == 404:
        if comment_id is not None:
            raise CommentGone(f"{name} has no {comment} {comment_id} any more", status=404)
        raise ProviderError(f"{name} has no {pull} {number} to comment on", status=404)
    try:
        return str(int(answer.json()["id"]))
    except (KeyError, TypeError, ValueError):
        raise ProviderError(f"{name} answered a {comment} with something unexpected") from None


def listed(answer: Response, key: Optional[str] = None) -> list[dict[str, Any]]:
    """The objects of a JSON answer's list (at ``key``, or the answer itself): none for a 404 or a
    shape not expected."""
    found = None if answer.status == 404 else answer.json()
    if key is not None:
        found = found.get(key) if isinstance(found, dict) else None
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def marked(items: Any, marker: str, *text: str, oldest_first: bool = False) -> Optional[str]:
    """The id of the newest of a page of comments (``items``, newest first unless ``oldest_first``)
    whose text (at the keys ``text`` lead to: ``"body"``, or ``"content", "raw"``) contains
    ``marker``, or ``None``."""
    listed = items if isinstance(items, list) else []
    for item in reversed(listed) if oldest_first else listed:
        found: Any = item
        for key in text:
            found = found.get(key) if isinstance(found, dict) else None
        if isinstance(found, str) and marker in found:
            with contextlib.suppress(KeyError, TypeError, ValueError):
                return str(int(item["id"]))
    return None
