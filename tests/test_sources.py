"""The file view's source: the git mirror loader against a real bare repository, the HTTP loader
against a fake provider on loopback (GitHub and GitLab shapes), the hook, and every bad input."""

from __future__ import annotations

import contextlib
import html
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional
from urllib.parse import unquote

import pytest
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.models import Repository
from flask_coverage.queries.repositories import find_repository
from flask_coverage.sources import SourceUnavailable, load_source

SHA = "5" * 40  # the sha the made-up repositories' coverage is uploaded for (replaced by the real one)
SOURCE = "import os\n\ndef f(x):\n    if x:\n        return 1\n    return 2\n"
# Line 1 hit, 3 hit, 4 partial, 5 miss, 6 hit; 2 is blank (not tracked).
LINES = {"pkg/mod.py": {1: 1, 3: 1, 4: 1, 5: 0, 6: 2}}
OTHER_FILES = ("link.py", "binary.py", "latin1.py", "big.py", "long.py", "missing.py")
TOKEN = "provider-secret-token"  # noqa: S105 - the fake provider's


def git(*args: str, cwd: Optional[str] = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    command = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"]
    done = subprocess.run([*command, *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)  # noqa: S603
    return done.stdout


@pytest.fixture(scope="module")
def bare_repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A real bare repository (``path``, ``sha`` of its commit) with a source file, a symbolic link to a
    file outside it, a binary, a Latin-1 and a big file."""
    work = str(tmp_path_factory.mktemp("work"))
    git("init", "-q", work)
    os.makedirs(os.path.join(work, "pkg"))
    with open(os.path.join(work, "pkg", "mod.py"), "w") as file:
        file.write(SOURCE)
    os.symlink("/etc/hostname", os.path.join(work, "link.py"))
    with open(os.path.join(work, "binary.py"), "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n\0\0\0")
    with open(os.path.join(work, "latin1.py"), "wb") as file:
        file.write("name = 'Jos\xe9'\n".encode("latin-1"))
    with open(os.path.join(work, "big.py"), "w") as file:
        file.write("x = 1\n" * 2000)
    with open(os.path.join(work, "long.py"), "w") as file:
        file.write("".join(f"line_{n} = {n}\n" for n in range(1, 5001)))
    git("add", "-A", cwd=work)
    git("commit", "-qm", "files", cwd=work)
    sha = git("rev-parse", "HEAD", cwd=work).strip()
    bare = str(tmp_path_factory.mktemp("bare") / "widgets.git")
    git("clone", "-q", "--bare", work, bare)
    return bare, sha


def make_repository(app: Flask, service: str, sha: str) -> None:
    """github/acme/widgets (or gitlab's) with coverage of :data:`LINES` and one line of each other file."""
    report = "".join(
        f"SF:{path}\n" + "".join(f"DA:{line},{hits}\n" for line, hits in lines.items()) + "end_of_record\n"
        for path, lines in {**LINES, **{path: {1: 1} for path in OTHER_FILES}}.items()
    )
    report = report.replace("DA:4,1\n", "DA:4,1\nBRDA:4,0,0,1\nBRDA:4,0,1,-\n")  # line 4 partial
    with app.app_context():
        operations.add_org(service, "acme")
        upload_report(operations.add_repo(service, "acme", "widgets"), report.encode(), commit=sha, branch="main")


@pytest.fixture
def mirror_app(
    make_app: Callable[..., Flask],
    make_database_url: Callable[[], str],
    bare_repository: tuple[str, str],
    tmp_path: Any,
) -> tuple[Flask, str]:
    """An app whose mirror root holds the bare repository as github/acme/widgets.git; ``(app, root)``."""
    bare, sha = bare_repository
    root = tmp_path / "mirrors"
    (root / "github" / "acme").mkdir(parents=True)
    shutil.copytree(bare, root / "github" / "acme" / "widgets.git")
    app = make_app(make_database_url(), COVERAGE_SOURCE_GIT_ROOT=str(root), COVERAGE_SOURCE_MAX_BYTES=10_000)
    make_repository(app, "github", sha)
    return app, str(root)


ROW = re.compile(
    r'<tr(?: class="([^"]*)")? id="L\d+"><td><a href="#L\d+">\d+</a></td><td>([^<]*)</td><td>(.*?)</td></tr>'
)


def lines_of(page: Any) -> list[tuple[str, str, str]]:
    """``(state class, hits, code)`` of every row of the file view's source table (read from the HTML
    text: BeautifulSoup's parser drops the leading spaces of a cell)."""
    return [(css, hits, html.unescape(re.sub("<[^>]*>", "", code))) for css, hits, code in ROW.findall(page.text)]


def no_source_reason(page: Any) -> str:
    return page.html.select_one("#coverage-no-source").text


def test_the_git_mirror_shows_the_source_with_each_line_colored(
    mirror_app: tuple[Flask, str], bare_repository: tuple[str, str]
) -> None:
    app, _ = mirror_app
    sha = bare_repository[1]
    page = webtest.TestApp(app).get(f"/gh/acme/widgets/commit/{sha}/blob/pkg/mod.py")
    assert lines_of(page) == [
        ("coverage-hit", "1", "import os"),
        ("", "", ""),
        ("coverage-hit", "1", "def f(x):"),
        ("coverage-partial", "1", "    if x:"),
        ("coverage-miss", "0", "        return 1"),
        ("coverage-hit", "2", "    return 2"),
    ]
    # Highlighted by Pygments (the "highlight" extra): keywords get their class.
    assert page.html.select_one("#L3 td:nth-child(3) .k").text == "def"
    assert [link["href"] for link in page.html.select(".coverage-misses a")] == ["#L5", "#L5"]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("link.py", "not a regular file"),
        ("binary.py", "binary"),
        ("big.py", "larger than 10,000 bytes"),
        ("missing.py", "not found at this commit"),
    ],
)
def test_what_the_mirror_cannot_show(
    mirror_app: tuple[Flask, str], bare_repository: tuple[str, str], path: str, reason: str
) -> None:
    page = webtest.TestApp(mirror_app[0]).get(f"/gh/acme/widgets/commit/{bare_repository[1]}/blob/{path}")
    assert reason in no_source_reason(page)
    # The compact line table is still there.
    assert [row["id"] for row in page.html.select("#coverage-lines tbody tr")] == ["L1"]
    with open("/etc/hostname") as file:
        assert file.read().strip() not in page.html.select_one("#coverage-lines").text


def test_source_that_is_not_utf8_shows_with_replacement_characters(
    mirror_app: tuple[Flask, str], bare_repository: tuple[str, str]
) -> None:
    page = webtest.TestApp(mirror_app[0]).get(f"/gh/acme/widgets/commit/{bare_repository[1]}/blob/latin1.py")
    assert "Jos\ufffd" in lines_of(page)[0][2]


def test_a_mirror_without_the_commit(mirror_app: tuple[Flask, str], make_lcov: Callable[..., bytes]) -> None:
    app, _ = mirror_app
    with app.app_context():
        repository = find_repository("github", "acme", "widgets")
        upload_report(repository, make_lcov(LINES), commit="6" * 40, branch="feature")
    page = webtest.TestApp(app).get("/gh/acme/widgets/branch/feature/blob/pkg/mod.py")
    assert "does not have commit 666666666666" in no_source_reason(page)


def test_a_mirror_linked_from_outside_the_root_is_not_read(
    mirror_app: tuple[Flask, str], bare_repository: tuple[str, str]
) -> None:
    """A symbolic link in the mirror root that leads out of it: no file outside the root is read."""
    app, root = mirror_app
    target = os.path.join(root, "github", "acme", "widgets.git")
    outside = os.path.join(os.path.dirname(root), "outside.git")
    os.rename(target, outside)
    os.symlink(outside, target)
    page = webtest.TestApp(app).get(f"/gh/acme/widgets/commit/{bare_repository[1]}/blob/pkg/mod.py")
    assert no_source_reason(page).endswith(
        "There is no git mirror of this repository: it would be a bare clone at"
        " COVERAGE_SOURCE_GIT_ROOT/github/acme/widgets.git."
    )


def test_paths_that_leave_the_repository(mirror_app: tuple[Flask, str], bare_repository: tuple[str, str]) -> None:
    app, _ = mirror_app
    sha = bare_repository[1]
    web = webtest.TestApp(app)
    for url in (
        f"/gh/acme/widgets/commit/{sha}/blob/../../../etc/passwd",
        f"/gh/acme/widgets/commit/{sha}/blob/%2e%2e/%2e%2e/etc/passwd",
        f"/gh/acme/widgets/commit/{sha}/blob/pkg%2Fmod.py%00",
        f"/gh/acme/widgets/commit/{sha}/blob/pkg/{'a' * 5000}.py",
        f"/gh/acme/widgets/commit/{sha}/blob//etc/passwd",
    ):
        response = web.get(url, expect_errors=True)
        assert response.status_int in (308, 404), (url, response.status)
    # Encoded slashes are slashes: the same file.
    assert lines_of(web.get(f"/gh/acme/widgets/commit/{sha}/blob/pkg%2Fmod.py"))[0][2] == "import os"
    with app.test_request_context():
        repository = find_repository("github", "acme", "widgets")
        for path in ("../etc/passwd", "pkg/../../x", "/etc/passwd"):
            assert load_source(repository, sha, path).reason == "The path leaves the repository."


def test_the_hook_raising_hanging_or_answering(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str]
) -> None:
    app = make_app(make_database_url(), COVERAGE_SOURCE_TIMEOUT=0.2)
    make_repository(app, "github", SHA)
    calls: list[str] = []
    answers: dict[str, Any] = {
        "pkg/mod.py": SOURCE,
        "link.py": SourceUnavailable("Our vault is closed."),
        "binary.py": RuntimeError("boom"),
        "latin1.py": None,
        "big.py": b"x = 1\n",
    }

    # long.py hangs until the test releases it: the view must answer before that, whatever the machine's speed.
    release, finished = threading.Event(), threading.Event()

    @app.extensions["coverage"].service.source_loader
    def loader(repository: Repository, sha: str, path: str) -> Any:
        calls.append(path)
        if path == "long.py":
            release.wait(timeout=60)
            finished.set()
            return "late = 1\n"
        answer = answers[path]
        if isinstance(answer, Exception):
            raise answer
        return answer

    web = webtest.TestApp(app)

    def view(path: str) -> Any:
        return web.get(f"/gh/acme/widgets/blob/{path}")

    assert lines_of(view("pkg/mod.py"))[3] == ("coverage-partial", "1", "    if x:")
    assert lines_of(view("big.py")) == [("coverage-hit", "1", "x = 1")]
    assert no_source_reason(view("link.py")) == "No source shown: Our vault is closed."
    assert no_source_reason(view("binary.py")) == "No source shown: The source loader failed."
    assert "not found at this commit" in no_source_reason(view("latin1.py"))
    try:
        assert "did not answer in time" in no_source_reason(view("long.py"))
        # The view gave up at its deadline: the loader was still hanging, it has not returned.
        assert calls.count("long.py") == 1 and not finished.is_set()
    finally:
        release.set()
    assert finished.wait(timeout=60)
    # Found sources are cached per (repository, sha, path): the loader is asked once.
    view("pkg/mod.py")
    assert calls.count("pkg/mod.py") == 1


class FakeProvider(BaseHTTPRequestHandler):
    """GitHub's contents API and GitLab's repository files API, as far as the loader uses them."""

    requests: list[tuple[str, dict[str, str]]] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        FakeProvider.requests.append((self.path, dict(self.headers)))
        github = self.path.startswith("/api/v3/repos/acme/widgets/contents/")
        gitlab = self.path.startswith("/api/v4/projects/acme%2Fwidgets/repository/files/")
        authorized = (
            self.headers.get("Authorization") == f"Bearer {TOKEN}" or self.headers.get("PRIVATE-TOKEN") == TOKEN
        )
        route = self.path.split("?")[0]
        if github:
            name = unquote(route.split("/contents/", 1)[1])
        else:
            name = unquote(route.split("/files/", 1)[-1].rsplit("/raw", 1)[0])
        if not (github or gitlab) or not self.path.endswith(f"?ref={SHA}"):
            self.answer(400, b"bad request")
        elif not authorized:
            self.answer(401, b'{"message": "Bad credentials"}')
        elif github and self.headers.get("Accept") != "application/vnd.github.raw+json":
            self.answer(415, b"raw only in this fake")
        elif name == "pkg/mod.py":
            self.answer(200, SOURCE.encode())
        elif name == "long.py":
            time.sleep(2)
            self.answer(200, b"late\n")
        elif name == "big.py":
            self.answer(200, b"x = 1\n" * 5000)
        elif name.startswith("drip"):  # a byte every 0.1 s: 10 s for the whole file
            body = b"x = 1\n" * 17
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):
                for byte in body:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.1)
        else:
            self.answer(404, b'{"message": "Not Found"}')

    def answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the loader may have given up waiting
            self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def provider() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeProvider)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeProvider.requests = []
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(("service", "prov", "api"), [("github", "gh", "/api/v3"), ("gitlab", "gl", "/api/v4")])
def test_the_provider_api(
    make_app: Callable[..., Flask],
    make_database_url: Callable[[], str],
    provider: str,
    service: str,
    prov: str,
    api: str,
) -> None:
    config = {service: {"url": provider + api, "token": TOKEN}}
    app = make_app(
        make_database_url(), COVERAGE_PROVIDERS=config, COVERAGE_SOURCE_TIMEOUT=0.5, COVERAGE_SOURCE_MAX_BYTES=10_000
    )
    make_repository(app, service, SHA)
    web = webtest.TestApp(app)

    def view(path: str) -> Any:
        return web.get(f"/{prov}/acme/widgets/commit/{SHA}/blob/{path}")

    page = view("pkg/mod.py")
    assert [code for _, _, code in lines_of(page)] == SOURCE.splitlines()
    assert TOKEN not in page.text
    assert "not found at this commit" in no_source_reason(view("missing.py"))
    assert "larger than 10,000 bytes" in no_source_reason(view("big.py"))
    assert "did not answer in time" in no_source_reason(view("long.py"))
    # The upload asked for the commit's codecov.yml first; then the file view for its source.
    path, headers = next(request for request in FakeProvider.requests if "mod.py" in request[0])
    if service == "github":
        assert path == f"/api/v3/repos/acme/widgets/contents/pkg/mod.py?ref={SHA}"
    else:
        assert path == f"/api/v4/projects/acme%2Fwidgets/repository/files/pkg%2Fmod.py/raw?ref={SHA}"
    # A wrong token: the page says the provider refused, and shows no token.
    config[service]["token"] = "wrong"
    page = view("link.py")
    assert f"{service} answered 401" in no_source_reason(page)
    assert "check the token" in no_source_reason(page)
    assert "wrong" not in page.html.select_one("#coverage-no-source").text


def test_a_provider_dripping_bytes_is_cut_at_the_deadline(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], provider: str
) -> None:
    """F7: the deadline is the whole read's, not the wait for each byte. Four views (one per loader
    thread) of files the provider drips a byte every 0.1 s (10 s each) all end at the 0.5 s deadline;
    the threads are free again at once, and the next view reads its file (before, all four stayed
    pinned for the drip and that view timed out)."""
    config = {"github": {"url": provider + "/api/v3", "token": TOKEN}}
    app = make_app(make_database_url(), COVERAGE_PROVIDERS=config, COVERAGE_SOURCE_TIMEOUT=0.5)
    with app.app_context():
        operations.add_org("github", "acme")
        report = "".join(
            f"SF:{name}\nDA:1,1\nend_of_record\n" for name in [*(f"drip{n}.py" for n in range(4)), "pkg/mod.py"]
        )
        upload_report(operations.add_repo("github", "acme", "widgets"), report.encode(), commit=SHA, branch="main")
    web = webtest.TestApp(app)
    reasons: list[str] = []

    def view(n: int) -> None:
        reasons.append(no_source_reason(web.get(f"/gh/acme/widgets/commit/{SHA}/blob/drip{n}.py")))

    started = time.monotonic()
    threads = [threading.Thread(target=view, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(reasons) == 4
    assert all("The provider could not send the file: github did not answer in time" in reason for reason in reasons)
    # Each cut at 0.5 s: far from the 10 s the drip would take.
    assert time.monotonic() - started < 5
    page = web.get(f"/gh/acme/widgets/commit/{SHA}/blob/pkg/mod.py")
    assert [code for _, _, code in lines_of(page)] == SOURCE.splitlines()


def test_a_file_that_cannot_be_highlighted_in_time_is_shown_plain_and_that_is_cached(
    make_app: Callable[..., Flask], make_database_url: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("pygments", reason="the highlight extra (Pygments) is not installed")
    from flask_coverage import sources

    app = make_app(make_database_url())
    with app.app_context():
        operations.add_org("github", "acme")
        repository = operations.add_repo("github", "acme", "widgets")
        report = b"SF:slow.c\nDA:1,1\nend_of_record\nSF:fast.c\nDA:1,1\nend_of_record\n"
        upload_report(repository, report, commit=SHA, branch="main")
    # The C lexer is quadratic on runs of blank lines (issue 26, F1): 20 KiB of them took 25 s of CPU, 10 KiB
    # about 3 s here, 15 times the budget below.
    answers = {"slow.c": "int x;\n" + "\n" * 10_000 + "int y;\n", "fast.c": "int x;\n"}
    calls: list[str] = []

    @app.extensions["coverage"].service.source_loader
    def loader(repository: Repository, sha: str, path: str) -> str:
        calls.append(path)
        return answers[path]

    monkeypatch.setattr(sources, "HIGHLIGHT_CPU_SECONDS", 0.2)
    web = webtest.TestApp(app)
    fast = web.get("/gh/acme/widgets/blob/fast.c")
    assert fast.html.select_one("#L1 td:nth-child(3) .kt").text == "int"  # highlighted
    slow = web.get("/gh/acme/widgets/blob/slow.c")
    assert lines_of(slow)[0] == ("coverage-hit", "1", "int x;") and len(lines_of(slow)) == 10_002
    assert slow.html.select_one("#L1 td:nth-child(3) span") is None  # plain, escaped text
    # The outcome is cached with the source: a second view neither reads nor lexes the file again.
    monkeypatch.setattr(sources, "highlight_lines", None)
    assert web.get("/gh/acme/widgets/blob/slow.c").text == slow.text
    assert calls == ["fast.c", "slow.c"]


def test_a_commit_s_message_and_author_come_once_from_the_mirror(
    mirror_app: tuple[Flask, str], bare_repository: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = mirror_app
    _, sha = bare_repository
    web = webtest.TestApp(app)
    # Read at upload; from now on git is never asked again, neither by the pages nor by later uploads
    # (which list the commit's tree only, to place paths without the uploader's file list).
    from flask_coverage import git_mirror

    listing = git_mirror._git

    def no_git(*args: Any, **kwargs: Any) -> Any:
        if args[1] == "ls-tree" and "-r" in args:
            return listing(*args, **kwargs)
        raise AssertionError("git ran")

    monkeypatch.setattr(git_mirror, "_git", no_git)
    with app.app_context():
        upload_report(
            find_repository("github", "acme", "widgets"), b"SF:pkg/mod.py\nDA:1,1\nend_of_record\n", commit=sha
        )
    page = web.get("/gh/acme/widgets")
    assert page.html.select_one("#coverage-commit-message").text == "files"
    assert "by Test" in page.html.select_one("#coverage-commit").text
    row = page.html.select_one("#coverage-commits tbody tr")
    assert row.select_one(".coverage-message").text == "files" and row.select("td")[1].text == "Test"
    commits = web.get("/api/v2/github/acme/repos/widgets/commits/").json["results"]
    assert (commits[0]["message"], commits[0]["author"]) == ("files", {"username": None, "name": "Test"})


def test_a_missing_mirror_is_said_to_be_cached_until_it_is_looked_for_again(
    mirror_app: tuple[Flask, str], bare_repository: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from flask_coverage import sources
    from flask_coverage.state import get_cache

    app, root = mirror_app
    url = f"/gh/acme/widgets/commit/{bare_repository[1]}/blob/pkg/mod.py"
    target = os.path.join(root, "github", "acme", "widgets.git")
    os.rename(target, target + ".away")
    web = webtest.TestApp(app)

    def retry_in(page: Any) -> int:
        said = page.html.select_one("#coverage-source-retry").text
        return int(re.search(r"looked for again in (\d+) s", said).group(1))

    page = web.get(url)
    assert "There is no git mirror" in no_source_reason(page)
    assert sources.FAILURE_CACHE_SECONDS - 1 <= retry_in(page) <= sources.FAILURE_CACHE_SECONDS
    # The mirror appears 45 s later: the page still answers from the cache, and says for how long.
    os.rename(target + ".away", target)
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + 45)
    page = web.get(url)
    assert "There is no git mirror" in no_source_reason(page)
    assert sources.FAILURE_CACHE_SECONDS - 46 <= retry_in(page) <= sources.FAILURE_CACHE_SECONDS - 45
    # Once the cached answer is gone, the source shows, with nothing said of a retry.
    with app.app_context():
        get_cache().clear()
    page = web.get(url)
    assert lines_of(page)[0][2] == "import os" and page.html.select_one("#coverage-source-retry") is None
