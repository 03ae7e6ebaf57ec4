"""The source of a file at a commit, for the file view: the ``source_loader`` hook and the built-in loaders.

:func:`load_source` is what the file view calls. It runs the ``source_loader`` hook
(``f(repository, sha, path) -> str | bytes | None``) in a worker thread with a deadline, so a loader
that hangs costs the page ``COVERAGE_SOURCE_TIMEOUT`` seconds and no more; it refuses binary files
and files over ``COVERAGE_SOURCE_MAX_BYTES``, reads bytes as UTF-8 (undecodable bytes shown as
U+FFFD), and keeps what it found in the extension's cache per (repository, sha, path): a sha's
files never change. A loader says why it has no source by raising :class:`SourceUnavailable`; the
page shows the reason. Anything else it raises is logged and shown as "the loader failed".

The default hook, :func:`default_source_loader`, reads a bare git mirror under
``COVERAGE_SOURCE_GIT_ROOT`` (``{root}/{service}/{owner}/{repo}.git``, through
:mod:`flask_coverage.git_mirror`), else asks the provider
configured in ``COVERAGE_PROVIDERS`` (``providers.provider_for(repository).read_file``: GitHub's,
GitLab's and Bitbucket's contents APIs). See docs/web.md.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import logging
import time
from typing import Any, NamedTuple, Optional, Union

from flask import Flask, current_app
from markupsafe import Markup, escape

from . import git_mirror
from .models import Repository
from .providers import ProviderError, provider_for
from .providers.http import budget
from .state import cache_errors, get_cache, get_state

log = logging.getLogger(__name__)

#: Bytes looked at for a NUL byte to tell a binary file (as git does).
BINARY_SNIFF_BYTES = 8000
#: How long a found (or missing) source stays in the cache: a sha's files never change.
CACHE_SECONDS = 86400
#: A loader that failed or ran out of time is asked again after this long.
FAILURE_CACHE_SECONDS = 60
#: Bigger files are shown without highlighting: Pygments lexes about 1 ms per KiB, and the first
#: view of a file must stay fast (docs/web.md).
HIGHLIGHT_MAX_BYTES = 64 * 1024
#: The CPU time (of the request's thread) Pygments may spend on one file. Some lexers are quadratic on
#: some input (C, C++ and Java on runs of blank lines: 20 KiB took 25 s); past the budget the file is
#: shown plain, and that is cached as the highlighted file would be. Lexing is checked between tokens,
#: so the bound is this plus one token's time: 1.17 s in all for the worst of 384 adversarial 64 KiB
#: files (benchmarks/bench_highlight.py, docs/benchmarks.md).
HIGHLIGHT_CPU_SECONDS = 1.0

# Few threads: a loader that hangs holds one until it returns (the built-in ones return by their
# deadline, however slowly a provider answers); the queue behind them times out.
_executor = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="coverage-source")


class SourceUnavailable(Exception):
    """Raised by a source loader to say why a file's source cannot be shown (the file view shows it)."""


class Source(NamedTuple):
    """What the file view shows: the source lines as escaped (maybe highlighted) HTML, or the reason
    there are none."""

    lines: Optional[tuple[Markup, ...]]
    reason: Optional[str] = None
    #: When a failure was found (``time.time()``): it is cached for :data:`FAILURE_CACHE_SECONDS`.
    failed_at: Optional[float] = None

    def retry_in(self) -> int:
        """Seconds until a cached failure is asked again (what the file view tells its reader)."""
        return max(0, round((self.failed_at or 0.0) + FAILURE_CACHE_SECONDS - time.time()))


def load_source(repository: Repository, sha: str, path: str) -> Source:
    """The source of ``path`` at ``sha`` from the ``source_loader`` hook, cached; never raises."""
    owner = repository.owner
    material = "\0".join((owner.service.value, owner.username, repository.name, sha, path))
    key = "coverage-source:" + hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()
    cache, cached = get_cache(), None
    with cache_errors("file view"):
        cached = cache.get(key)
    if isinstance(cached, Source):
        return cached
    source, seconds = _run_loader(repository, sha, path)
    if source.lines is None and seconds == FAILURE_CACHE_SECONDS:
        source = source._replace(failed_at=time.time())
    with cache_errors("file view"):
        cache.set(key, source, timeout=seconds)
    return source


def _run_loader(repository: Repository, sha: str, path: str) -> tuple[Source, int]:
    config = current_app.config
    if ".." in path.split("/") or path.startswith("/") or "\0" in path:
        return Source(None, "The path leaves the repository."), CACHE_SECONDS
    deadline = time.monotonic() + config["COVERAGE_SOURCE_TIMEOUT"]
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    hook = get_state().service.source_loader_callback
    future = _executor.submit(_call_in_app, app, hook, repository, sha, path)
    try:
        found = future.result(timeout=config["COVERAGE_SOURCE_TIMEOUT"] + 1)
    except concurrent.futures.TimeoutError:
        log.warning("the source loader did not answer in time for %s", path)
        return Source(None, "The source loader did not answer in time."), FAILURE_CACHE_SECONDS
    except SourceUnavailable as reason:
        return Source(None, str(reason)), FAILURE_CACHE_SECONDS
    except Exception:
        log.exception("the source loader failed for %s", path)
        return Source(None, "The source loader failed."), FAILURE_CACHE_SECONDS
    if found is None:
        return Source(None, "The source of this file was not found at this commit."), CACHE_SECONDS
    source = _decoded(found, config["COVERAGE_SOURCE_MAX_BYTES"], path, deadline)
    # Past the deadline the read may have left highlighting no time: kept briefly, highlighted later. A
    # file cut by Pygments' own CPU budget is kept as long as any (it would be cut again).
    return source, FAILURE_CACHE_SECONDS if time.monotonic() > deadline else CACHE_SECONDS


def _call_in_app(app: Flask, hook: Any, repository: Repository, sha: str, path: str) -> Any:
    with app.app_context():
        return app.ensure_sync(hook)(repository, sha, path)


def _decoded(found: Union[str, bytes], max_bytes: int, path: str, deadline: float) -> Source:
    data = found.encode("utf-8", "surrogatepass") if isinstance(found, str) else bytes(found)
    if len(data) > max_bytes:
        return Source(None, f"The file is larger than {max_bytes:,} bytes.")
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return Source(None, "The file is binary.")
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline at the end of the last line starts no line
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if len(data) > HIGHLIGHT_MAX_BYTES:
        return Source(tuple(escape(line) for line in lines))
    return Source(highlight_lines(lines, path, deadline))


def highlight_lines(lines: list[str], path: str, deadline: float = float("inf")) -> tuple[Markup, ...]:
    """Each line as HTML: escaped, and highlighted by Pygments when it is installed and knows the
    file's language (classes of Pygments' short token names, e.g. ``<span class="k">``).

    Pygments gets :data:`HIGHLIGHT_CPU_SECONDS` of the thread's CPU time, and no time past ``deadline``
    (``time.monotonic()``, the source's deadline); past either, the lines are escaped plain text."""
    try:
        from pygments.lexers import get_lexer_for_filename
        from pygments.token import STANDARD_TYPES
        from pygments.util import ClassNotFound
    except ImportError:
        return tuple(escape(line) for line in lines)
    try:
        lexer = get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return tuple(escape(line) for line in lines)
    out: list[list[tuple[str, str]]] = [[]]
    classes: dict[Any, str] = {}
    cpu_limit = time.thread_time() + HIGHLIGHT_CPU_SECONDS
    for token, value in lexer.get_tokens("\n".join(lines)):
        # Every token: one of a quadratic lexer may take 20 ms (and the check 0.2 µs).
        if time.thread_time() > cpu_limit or time.monotonic() > deadline:
            log.info("%s is shown plain: highlighting it took too long", path)
            return tuple(escape(line) for line in lines)
        css = classes.get(token)
        if css is None:
            standard = token
            while STANDARD_TYPES.get(standard) is None:  # a type of the lexer's own: its standard parent
                standard = standard.parent
            css = classes[token] = _styled(STANDARD_TYPES[standard])
        for number, piece in enumerate(value.split("\n")):
            if number:
                out.append([])
            if not piece:
                continue
            line = out[-1]
            if line and line[-1][0] == css:  # one element for neighbours of one class
                line[-1] = (css, line[-1][1] + piece)
            else:
                line.append((css, piece))
    # A lexer may drop or add a last empty line; the numbers must stay the file's.
    out = (out + [[] for _ in lines])[: len(lines)]
    # Every piece is escaped; the class names are Pygments' own.
    return tuple(
        Markup("".join(f'<span class="{css}">{escape(text)}</span>' if css else escape(text) for css, text in parts))  # noqa: S704
        for parts in out
    )


def _styled(css: str) -> str:
    """``css`` if coverage.css styles it, else ``""``: names, operators and punctuation stay plain text,
    which saves most of the elements of a highlighted file."""
    return css if css[:1] in ("k", "s", "c", "m") or css in ("nf", "nc", "fm", "nb", "bp", "nd", "ow") else ""


def default_source_loader(repository: Repository, sha: str, path: str) -> Optional[bytes]:
    """The default ``source_loader`` hook: the git mirror if ``COVERAGE_SOURCE_GIT_ROOT`` has one of
    the repository, else the provider's contents API if ``COVERAGE_PROVIDERS`` names the service:
    the whole answer within ``COVERAGE_SOURCE_TIMEOUT`` seconds (however slowly it comes) and at most
    ``COVERAGE_SOURCE_MAX_BYTES``."""
    config = current_app.config
    git_dir = git_mirror.mirror(repository)
    if git_dir is not None:
        try:
            return git_mirror.file_at(git_dir, sha, path)
        except git_mirror.Unreadable as reason:
            raise SourceUnavailable(str(reason)) from None
    provider = provider_for(repository)
    if provider is not None:
        max_bytes = config["COVERAGE_SOURCE_MAX_BYTES"]
        try:
            with budget(config["COVERAGE_SOURCE_TIMEOUT"], max_bytes):
                return provider.read_file(repository, sha, path)
        except ProviderError as error:
            log.warning("the provider could not send %s: %s", path, error)
            raise SourceUnavailable(f"The provider could not send the file: {error}.") from None
    if config["COVERAGE_SOURCE_GIT_ROOT"]:
        owner = repository.owner
        where = f"COVERAGE_SOURCE_GIT_ROOT/{owner.service.value}/{owner.username}/{repository.name}.git"
        raise SourceUnavailable(f"There is no git mirror of this repository: it would be a bare clone at {where}.")
    raise SourceUnavailable("No source loader is configured.")
