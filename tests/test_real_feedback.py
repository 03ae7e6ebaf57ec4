"""Pull-request feedback end to end: the pinned ``codecov-cli`` uploading to gunicorn on loopback, a git
mirror with a ``codecov.yml``, and the real GitHub client talking HTTP to a recording fake of GitHub's API.

A base commit on ``main`` and a pull (#7) with two pushes; each push is uploaded with ``--pr 7`` and
``flask coverage notify`` sends what is due. The fake records the statuses per sha and the comment's
requests; the patch coverage is checked against a reference computed here from ``git diff base...head``
of the mirror and the uploaded report's lines. Marked ``clients`` (tests/test_real_uploaders.py installs
the client and runs gunicorn the same way).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
from production_service import Gunicorn
from test_real_uploaders import client_env, codecovcli, get, install_clients, run

from tests.git_history import commit, git, lcov
from tests.providers.fakes import Answer, FakeHost, Request, fake_host

pytestmark = pytest.mark.clients

SECRET_KEY = "real-feedback-test"
PULL = 7
#: The project must reach 60%, the lines a pull adds 80%.
CODECOV_YML = """\
coverage:
  status:
    project:
      default:
        target: 60%
    patch:
      default:
        target: 80%
"""
APP_V1 = "".join(f"x{n} = {n}\n" for n in range(1, 21))
# The first push changes lines 3-6 and adds 21-24 to app.py; the second also adds lib.py (10 lines).
APP_V2 = APP_V1.replace("x3 = 3\n", "x3 = 33\n").replace("x6 = 6\n", "x6 = 66\n") + "".join(
    f"y{n} = {n}\n" for n in range(21, 25)
)
LIB = "".join(f"z{n} = {n}\n" for n in range(1, 11))

#: What each commit's upload says: {path: {line: hits}}.
BASE_REPORT = {"app.py": {n: int(n <= 14) for n in range(1, 21)}}  # 14/20: 70%
FIRST_REPORT = {"app.py": {**{n: int(n <= 10) for n in range(1, 21)}, 21: 1, 22: 0, 23: 0, 24: 0}}  # 11/24
SECOND_REPORT = {
    "app.py": {**{n: int(n <= 14) for n in range(1, 21)}, 21: 1, 22: 1, 23: 1, 24: 0},
    "lib.py": {n: int(n != 5) for n in range(1, 11)},
}


def create_app(settings: Mapping[str, str] = os.environ, public_url: Optional[str] = None) -> Any:
    """The app gunicorn serves (and ``flask coverage notify`` runs in, with ``public_url``): the service
    with a git mirror and GitHub's API at the fake's URL, from ``settings``; the sender thread on with
    ``FEEDBACK_TEST_SENDER=1``, else off (notify sends); a short lease (``FEEDBACK_TEST_LEASE``, seconds)
    and short retry waits (``FEEDBACK_TEST_BACKOFF``, "first,longest") when given. gunicorn's port is
    known once it runs, so its workers answer at the address asked (no public URL)."""
    from flask import Flask

    from flask_coverage import CoverageService

    app = Flask("real_feedback")
    app.config.update(
        SECRET_KEY=SECRET_KEY,
        SQLALCHEMY_DATABASE_URI=settings["FEEDBACK_TEST_DATABASE_URL"],
        COVERAGE_SOURCE_GIT_ROOT=settings["FEEDBACK_TEST_GIT_ROOT"],
        COVERAGE_PROVIDERS={"github": {"url": settings["FEEDBACK_TEST_GITHUB_URL"], "token": "t"}},
        COVERAGE_PUBLIC_URL=public_url,
        COVERAGE_FEEDBACK_SENDER=settings.get("FEEDBACK_TEST_SENDER") == "1",
        COVERAGE_FEEDBACK_DELAY=0,
    )
    if "FEEDBACK_TEST_LEASE" in settings:
        app.config["COVERAGE_FEEDBACK_LEASE"] = float(settings["FEEDBACK_TEST_LEASE"])
    if "FEEDBACK_TEST_BACKOFF" in settings:
        app.config["COVERAGE_FEEDBACK_BACKOFF"] = tuple(map(float, settings["FEEDBACK_TEST_BACKOFF"].split(",")))
    CoverageService(app)
    return app


def github_routes(host: FakeHost) -> None:
    """The pulls (their heads in ``host.state["heads"]``), statuses and comments, as GitHub answers them."""
    comments: dict[int, str] = host.state.setdefault("comments", {})
    pulls_of: dict[int, int] = {}  # comment -> its pull
    repo = "/repos/acme/widgets"

    @host.route("GET", repo + r"/pulls/(\d+)")
    def pull(request: Request, match: re.Match[str]) -> Any:
        if int(match[1]) not in host.state["heads"]:
            return 404, {"message": "Not Found"}, {}
        body = {
            "number": int(match[1]),
            "state": "open",
            "merged_at": None,
            "title": "More lines",
            "base": {"ref": "main", "sha": host.state["base"]},
            "head": {"ref": "feature", "sha": host.state["heads"][int(match[1])]},
        }
        return 200, body, {}

    @host.route("POST", repo + r"/issues/(\d+)/comments")
    def create(request: Request, match: re.Match[str]) -> Any:
        number = 1000 + len(comments)
        comments[number], pulls_of[number] = request.body["body"], int(match[1])
        return 201, {"id": number, "body": request.body["body"]}, {}

    @host.route("GET", repo + r"/issues/(\d+)/comments")
    def listed(request: Request, match: re.Match[str]) -> Any:
        # One page, oldest first (the test's pulls have few comments).
        on_pull = [number for number, pull in sorted(pulls_of.items()) if pull == int(match[1])]
        return 200, [{"id": number, "body": comments[number]} for number in on_pull if number in comments], {}

    @host.route("PATCH", repo + r"/issues/comments/(\d+)")
    def edit(request: Request, match: re.Match[str]) -> Any:
        if int(match[1]) not in comments:
            return 404, {"message": "Not Found"}, {}
        comments[int(match[1])] = request.body["body"]
        return 200, {"id": int(match[1])}, {}

    @host.route("POST", repo + r"/statuses/([0-9a-f]{40})")
    def status(request: Request, match: re.Match[str]) -> Any:
        return 201, {"id": 1, **request.body}, {}


def seed(settings: Mapping[str, str]) -> str:
    """The tables and github/acme/widgets; returns its upload token."""
    from flask_coverage import operations

    app = create_app(settings)
    with app.app_context():
        operations.init_db()
        operations.add_org("github", "acme")
        token = operations.add_repo("github", "acme", "widgets").upload_token
    with app.app_context():
        app.extensions["sqlalchemy"].engine.dispose()
    return token


@pytest.fixture(scope="module")
def world(module_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The git history and its bare mirror, the fake GitHub, gunicorn, and the uploader."""
    work = str(tmp_path_factory.mktemp("feedback-work"))
    git("init", "-q", work, cwd=work)
    base = commit(work, "base", {"app.py": APP_V1, "codecov.yml": CODECOV_YML})
    git("checkout", "-q", "-b", "feature", cwd=work)
    first = commit(work, "first push", {"app.py": APP_V2})
    second = commit(work, "second push", {"lib.py": LIB})
    git("checkout", "-q", "main", cwd=work)
    root = tmp_path_factory.mktemp("feedback-mirrors")
    mirror = root / "github" / "acme" / "widgets.git"
    mirror.parent.mkdir(parents=True)
    git("clone", "-q", "--mirror", work, str(mirror), cwd=work)
    clients = install_clients()
    with fake_host() as github, tempfile.TemporaryDirectory() as log_dir:
        github_routes(github)
        github.state.update(base=base, heads={PULL: first})
        env = {
            "FEEDBACK_TEST_DATABASE_URL": module_database_url,
            "FEEDBACK_TEST_GIT_ROOT": str(root),
            "FEEDBACK_TEST_GITHUB_URL": github.url,
            "PYTHONPATH": str(Path(__file__).parent.parent),
        }
        token = seed(env)
        gunicorn = Gunicorn(
            "test_real_feedback:create_app()", workers=2, env=env, chdir=Path(__file__).parent, log_dir=log_dir
        )
        with gunicorn:
            url = f"http://127.0.0.1:{gunicorn.port}"
            app = create_app(env, public_url=url)  # where notify runs
            yield {
                "env": env,
                "app": app,
                "log": gunicorn.log_path,
                "github": github,
                "clients": clients,
                "server": {"url": url, "token": token},
                "work": work,
                "mirror": str(mirror),
                "shas": {"base": base, "first": first, "second": second},
            }
        with app.app_context():
            app.extensions["sqlalchemy"].engine.dispose()


def upload(world: dict[str, Any], sha: str, report: dict[str, dict[int, int]], **options: str) -> None:
    """``report`` uploaded for ``sha`` by codecov-cli's upload-process, run in a checkout of ``sha``."""
    work = world["work"]
    git("checkout", "-q", "--detach", sha, cwd=work)
    name = options.pop("name", "coverage")
    path = Path(work) / f"{name}.lcov"
    path.write_bytes(lcov(report))
    try:
        argv = codecovcli(world["clients"], world["server"], ["upload-process"], sha, file=path.name, **options)
        result = run(argv, Path(work))
        assert result.returncode == 0, result.stderr + result.stdout + world["log"].read_text()
    finally:
        path.unlink()
        git("checkout", "-q", "main", cwd=work)


def notify(world: dict[str, Any]) -> str:
    result = world["app"].test_cli_runner().invoke(args=["coverage", "notify"])
    assert result.exit_code == 0, result.output
    return result.output


def added_lines(mirror: str, base: str, head: str) -> dict[str, set[int]]:
    """Each file's added line numbers in ``git diff base...head`` of the mirror (the hunks' ``+`` sides)."""
    diff = git("--git-dir", mirror, "diff", "-U0", "--no-color", f"{base}...{head}", cwd=mirror)
    added: dict[str, set[int]] = {}
    path = ""
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else ""
        elif line.startswith("@@") and path:
            match = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            assert match
            start, count = int(match[1]), int(match[2] if match[2] is not None else 1)
            added.setdefault(path, set()).update(range(start, start + count))
    return added


def percent(hits: int, lines: int) -> str:
    """As the statuses say it (codecov.yml's default precision 2, rounded down)."""
    return str((Decimal(100 * hits) / lines).quantize(Decimal("0.01"), rounding=ROUND_DOWN))


def reference_patch(world: dict[str, Any], head: str, report: dict[str, dict[int, int]]) -> tuple[int, int]:
    """(hits, lines with coverage) among the lines the pull adds up to ``head``."""
    added = added_lines(world["mirror"], world["shas"]["base"], head)
    covered = [hits for path, lines in added.items() for n, hits in report.get(path, {}).items() if n in lines]
    return sum(1 for hits in covered if hits), len(covered)


def project(report: dict[str, dict[int, int]]) -> tuple[int, int]:
    return sum(1 for lines in report.values() for hits in lines.values() if hits), sum(map(len, report.values()))


def statuses(github: FakeHost, sha: str) -> dict[str, dict[str, Any]]:
    """The last status GitHub was sent per context for ``sha``."""
    sent = [r for r in github.sent("POST") if r.route.endswith(f"/statuses/{sha}")]
    return {r.body["context"]: r.body for r in sent}


def comment_requests(github: FakeHost) -> list[tuple[str, str]]:
    """The requests that post, edit or delete a comment."""
    return [(r.method, r.route) for r in github.requests if "/comments" in r.route and r.method != "GET"]


def test_two_pushes_give_statuses_per_sha_and_one_comment_edited(world: dict[str, Any]) -> None:
    github, shas = world["github"], world["shas"]
    upload(world, shas["base"], BASE_REPORT, branch="main")
    notify(world)
    base_statuses = statuses(github, shas["base"])
    assert base_statuses["codecov/project"]["state"] == "success"  # 70% >= 60%
    assert comment_requests(github) == []  # not a pull

    # First push: the project at 11/24 misses 60%, the patch (changed 3, 6; added 21-24) misses 80%.
    github.state["heads"][PULL] = shas["first"]
    upload(world, shas["first"], FIRST_REPORT, branch="feature", pr=str(PULL))
    notify(world)
    hits, lines = reference_patch(world, shas["first"], FIRST_REPORT)
    assert (hits, lines) == (3, 6)  # lines 3, 6 and 21 hit; 22-24 not
    first = statuses(github, shas["first"])
    assert first["codecov/project"]["state"] == "failure"
    assert first["codecov/project"]["description"] == f"{percent(*project(FIRST_REPORT))}% (target 60.00%)"
    assert first["codecov/patch"]["state"] == "failure"
    assert first["codecov/patch"]["description"] == f"{percent(hits, lines)}% of diff hit (target 80.00%)"
    assert first["codecov/patch"]["target_url"] == f"{world['server']['url']}/gh/acme/widgets/pull/{PULL}"
    (created,) = [r for r in github.sent("POST") if r.route.endswith("/comments")]
    assert comment_requests(github) == [("POST", f"/repos/acme/widgets/issues/{PULL}/comments")]
    (comment_id,) = github.state["comments"]
    assert f"Patch coverage is `{percent(hits, lines)}%` with `{lines - hits} lines`" in created.body["body"]

    # Second push: both targets reached; the comment is edited in place, not posted again.
    github.state["heads"][PULL] = shas["second"]
    upload(world, shas["second"], SECOND_REPORT, branch="feature", pr=str(PULL))
    notify(world)
    hits, lines = reference_patch(world, shas["second"], SECOND_REPORT)
    assert (hits, lines) == (14, 16)
    second = statuses(github, shas["second"])
    assert second["codecov/project"]["state"] == "success"
    assert second["codecov/project"]["description"] == f"{percent(*project(SECOND_REPORT))}% (target 60.00%)"
    assert second["codecov/patch"]["state"] == "success"
    assert second["codecov/patch"]["description"] == f"{percent(hits, lines)}% of diff hit (target 80.00%)"
    assert statuses(github, shas["first"]) == first  # the first push's statuses stay as they were
    assert comment_requests(github) == [
        ("POST", f"/repos/acme/widgets/issues/{PULL}/comments"),
        ("PATCH", f"/repos/acme/widgets/issues/comments/{comment_id}"),
    ]
    body = github.state["comments"][comment_id]
    assert f"Patch coverage is `{percent(hits, lines)}%` with `{lines - hits} lines`" in body
    assert shas["second"][:7] in body

    # Eight parallel uploads to the head: one edit, one status per context.
    before = len(github.requests)
    processes = []
    merged = {path: dict(lines) for path, lines in SECOND_REPORT.items()}
    for k in range(8):
        report = {"app.py": {21 + (k % 4): 1}}
        merged["app.py"][21 + (k % 4)] = 1
        work = Path(world["work"])
        git("checkout", "-q", "--detach", shas["second"], cwd=str(work))
        (work / f"part{k}.lcov").write_bytes(lcov(report))
    argvs = [
        codecovcli(
            world["clients"],
            world["server"],
            ["upload-process"],
            shas["second"],
            file=f"part{k}.lcov",
            branch="feature",
            pr=str(PULL),
            name=f"part{k}",
        )
        for k in range(8)
    ]
    for argv in argvs:
        processes.append(
            subprocess.Popen(  # noqa: S603 - fixed argv: the pinned codecovcli
                argv, cwd=world["work"], env=client_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
        )
    outputs = [process.communicate(timeout=180)[0] for process in processes]
    git("checkout", "-q", "main", cwd=world["work"])
    assert all(process.returncode == 0 for process in processes), outputs
    notify(world)
    after = [(r.method, r.route) for r in github.requests[before:]]
    assert after.count(("PATCH", f"/repos/acme/widgets/issues/comments/{comment_id}")) == 1, after
    assert not any(method == "POST" and "/comments" in route for method, route in after)
    sent_statuses = [r.body["context"] for r in github.requests[before:] if "/statuses/" in r.route]
    assert sorted(sent_statuses) == ["codecov/patch", "codecov/project"]  # one per context
    hits, lines = reference_patch(world, shas["second"], merged)
    assert (hits, lines) == (15, 16)
    head = statuses(github, shas["second"])
    assert head["codecov/patch"]["description"] == f"{percent(hits, lines)}% of diff hit (target 80.00%)"
    assert head["codecov/project"]["description"] == f"{percent(*project(merged))}% (target 60.00%)"


@contextlib.contextmanager
def senders(world: dict[str, Any], **settings: str) -> Iterator[tuple[Gunicorn, dict[str, Any]]]:
    """gunicorn's two workers with their sender thread on (the default), ``settings`` added to the
    environment; yields it and ``world`` with its address."""
    env = {**world["env"], "FEEDBACK_TEST_SENDER": "1", **settings}
    with tempfile.TemporaryDirectory() as log_dir:
        gunicorn = Gunicorn(
            "test_real_feedback:create_app()", workers=2, env=env, chdir=Path(__file__).parent, log_dir=log_dir
        )
        with gunicorn:
            server = {"url": f"http://127.0.0.1:{gunicorn.port}", "token": world["server"]["token"]}
            yield gunicorn, {**world, "server": server, "log": gunicorn.log_path}


def until(condition: Callable[[], Any], what: str, seconds: float = 20) -> Any:
    """``condition()``'s first true value, asked every 0.05 s until the deadline (then the test fails)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")


def feedback(world: dict[str, Any], sha: str) -> dict[str, Any]:
    """The commit's feedback as the v2 API shows it (``pending``, ``sent``)."""
    status, body = get(world["server"], f"/api/v2/github/acme/repos/widgets/commits/{sha}/feedback/")
    assert status == 200, body
    return json.loads(body)


def delivered(world: dict[str, Any], sha: str, contexts: tuple[str, ...]) -> Optional[dict[str, Any]]:
    """The feedback once nothing is owed and every context was sent without error, else ``None``."""
    shown = feedback(world, sha)
    sent = {item["context"]: item for item in shown["sent"] if item["sent_at"] and not item["error"]}
    return shown if shown["pending"] is None and set(contexts) <= set(sent) else None


def test_the_workers_sender_thread_delivers_without_notify(world: dict[str, Any]) -> None:
    """gunicorn's workers with their sender thread on (the default): an upload's feedback arrives alone."""
    github, shas = world["github"], world["shas"]
    pull = PULL + 1
    github.state["heads"][pull] = shas["first"]
    route = f"/repos/acme/widgets/issues/{pull}/comments"
    with senders(world) as (_, served):
        upload(served, shas["first"], FIRST_REPORT, branch="feature", pr=str(pull), name="t")
        until(lambda: any(r.route == route for r in github.sent("POST")), "the comment")
    (created,) = [r for r in github.sent("POST") if r.route == route]
    hits, lines = reference_patch(world, shas["first"], FIRST_REPORT)
    assert f"Patch coverage is `{percent(hits, lines)}%` with `{lines - hits} lines`" in created.body["body"]
    assert statuses(github, shas["first"])["codecov/patch"]["state"] == "failure"


def pushed(world: dict[str, Any], name: str, files: dict[str, str], parent: str = "base") -> str:
    """A commit of ``files`` on a new branch ``name`` from ``parent`` (a name of ``world["shas"]`` or a
    sha), in the work tree and the mirror."""
    work = world["work"]
    git("checkout", "-q", "-b", name, world["shas"].get(parent, parent), cwd=work)
    sha = commit(work, name, files)
    git("checkout", "-q", "main", cwd=work)
    git("--git-dir", world["mirror"], "fetch", "-q", work, f"{name}:{name}", cwd=work)
    return sha


#: What answers a request before the fake's routes: an answer, or ``None`` to leave it to them.
Gate = Callable[[Request], Optional[Answer]]


@contextlib.contextmanager
def github_fake(
    world: dict[str, Any], heads: dict[int, str], gate: Gate = lambda request: None, port: int = 0
) -> Iterator[FakeHost]:
    """A fake GitHub of its own (on ``port`` if given) with the pulls ``heads``; ``state["delivered"]``
    lists the requests it answered with a 2xx, and ``state["gate"]`` (``gate`` from the start) answers
    each request first (``None`` from it: the routes answer; ``state["routes"]`` answers as they do)."""
    with fake_host(port) as github:
        github_routes(github)
        routes = github.answer
        github.state.update(base=world["shas"]["base"], heads=heads, delivered=[], gate=gate, routes=routes)

        def answer(request: Request) -> Answer:
            answered = github.state["gate"](request) or routes(request)
            if 200 <= answered[0] < 300:
                github.state["delivered"].append(request)
            return answered

        github.answer = answer  # type: ignore[method-assign]
        yield github


def pending_error(world: dict[str, Any], sha: str, text: str) -> Optional[dict[str, Any]]:
    """The feedback while it is owed with a last error containing ``text``, else ``None``."""
    shown = feedback(world, sha)
    return shown if shown["pending"] and text in (shown["pending"]["last_error"] or "") else None


def test_the_provider_down_for_a_while_gets_everything_after_exactly_once(world: dict[str, Any]) -> None:
    """GitHub refuses connections, then answers 429 with Retry-After, then 503, then recovers: the upload
    succeeds at once, the last error is on the commit's feedback while it is down, and after it every
    status and the one comment arrive exactly once; the next push edits that comment."""
    pull, contexts = PULL + 2, ("codecov/project", "codecov/patch", "comment")
    head = pushed(world, "outage", {"app.py": APP_V2})
    with socket.socket() as refusing:
        refusing.bind(("127.0.0.1", 0))  # bound, never listening: every connection to it is refused
        port = refusing.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        with senders(world, FEEDBACK_TEST_GITHUB_URL=url, FEEDBACK_TEST_BACKOFF="0.2,1") as (_, served):
            upload(served, head, FIRST_REPORT, branch="outage", pr=str(pull))  # asserts codecov-cli's success
            until(lambda: pending_error(served, head, "could not be reached"), "the refusal shown")
            answered: list[int] = []

            def down(request: Request) -> Answer:
                if not answered:  # the first request is rate limited, for a second
                    answered.append(429)
                    return 429, {"message": "API rate limit exceeded"}, {"Retry-After": "1"}
                answered.append(503)
                return 503, {"message": "Service Unavailable"}, {}

            refusing.close()
            with github_fake(world, {pull: head}, gate=down, port=port) as github:
                shown = until(lambda: pending_error(served, head, "answered 503"), "the 503 shown")
                assert not any(item["sent_at"] for item in shown["sent"])
                github.state["gate"] = lambda request: None  # GitHub is back
                until(lambda: delivered(served, head, contexts), "the feedback after the outage")
                assert answered[0] == 429 and 503 in answered
                sent = [r for r in github.state["delivered"] if r.method != "GET"]
                comments = f"/repos/acme/widgets/issues/{pull}/comments"
                assert [r.route for r in sent if "/comments" in r.route] == [comments]  # one POST
                assert sorted(r.body["context"] for r in sent if "/statuses/" in r.route) == sorted(contexts[:2])
                (comment_id,) = github.state["comments"]
                first = statuses(github, head)
                assert first["codecov/project"]["state"] == first["codecov/patch"]["state"] == "failure"

                # The next push, with GitHub up: the comment is edited, not posted again.
                second = pushed(world, "outage-2", {"lib.py": LIB}, parent=head)
                github.state["heads"][pull] = second
                upload(served, second, SECOND_REPORT, branch="outage", pr=str(pull))
                until(lambda: delivered(served, second, contexts), "the second push's feedback")
                requests = [
                    (r.method, r.route)
                    for r in github.state["delivered"]
                    if "/comments" in r.route and r.method != "GET"
                ]
                assert requests == [("POST", comments), ("PATCH", f"/repos/acme/widgets/issues/comments/{comment_id}")]
                assert statuses(github, second)["codecov/patch"]["state"] == "success"


def process_of(port: int, pids: list[int]) -> int:
    """The one of ``pids`` holding the loopback TCP connection whose local port is ``port``."""
    sockets = {
        f"socket:[{fields[9]}]"
        for fields in map(str.split, Path("/proc/net/tcp").read_text().splitlines()[1:])
        if int(fields[1].split(":")[1], 16) == port
    }
    owners = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in sockets:
                        owners.add(pid)
    (owner,) = owners
    return owner


@pytest.mark.parametrize("held_what", ["status", "comment"])
def test_a_worker_killed_while_sending_leaves_the_feedback_to_another_once(
    world: dict[str, Any], held_what: str
) -> None:
    """The fake holds the first status open (before GitHub acts on it), or the comment's POST (after
    GitHub created the comment); the gunicorn worker sending it is killed; gunicorn starts another; the
    row's lease runs out and a sender takes it over: the statuses and the one comment arrive. The
    comment is never posted twice: the taker finds the one the killed worker posted by its marker."""
    pull, contexts = PULL + 3 + (held_what == "comment"), ("codecov/project", "codecov/patch", "comment")
    head = pushed(world, f"killed-{held_what}", {"app.py": APP_V2})
    held: list[Request] = []
    release = threading.Event()

    def hold(request: Request) -> Optional[Answer]:
        if held or request.method != "POST":
            return None
        if held_what == "status" and "/statuses/" in request.route:
            held.append(request)
            release.wait(30)  # then answered as GitHub would: it did get the request
        elif held_what == "comment" and request.route.endswith("/comments"):
            held.append(request)
            created = github.state["routes"](request)  # GitHub creates the comment, its answer never arrives
            release.wait(30)
            return created
        return None

    with github_fake(world, {pull: head}, gate=hold) as github:
        try:
            with senders(world, FEEDBACK_TEST_GITHUB_URL=github.url, FEEDBACK_TEST_LEASE="5") as (gunicorn, served):
                upload(served, head, FIRST_REPORT, branch="killed", pr=str(pull))
                until(lambda: held, f"the first {held_what} sent")
                workers = gunicorn.worker_pids()
                sending = process_of(held[0].peer[1], workers)
                os.kill(sending, signal.SIGKILL)
                until(
                    lambda: sending not in gunicorn.worker_pids() and len(gunicorn.worker_pids()) == 2,
                    "gunicorn's new worker",
                )
                release.set()
                until(lambda: delivered(served, head, contexts), "the feedback after the kill")
        finally:
            release.set()
        comments = f"/repos/acme/widgets/issues/{pull}/comments"
        changes = [
            (r.method, r.route) for r in github.state["delivered"] if "/comments" in r.route and r.method != "GET"
        ]
        (comment_id,) = github.state["comments"]  # exactly one comment on the pull
        sent = [r.body for r in github.state["delivered"] if "/statuses/" in r.route]
        if held_what == "status":
            assert changes == [("POST", comments)]
            (again,) = [body for body in sent if body["context"] == held[0].body["context"]][1:]
            assert again == held[0].body  # the held one, sent again by the taker: the same status
            assert sorted(body["context"] for body in sent) == sorted(
                ["codecov/patch", "codecov/project", again["context"]]
            )
        else:  # the comment the killed worker posted is found and edited, with the same body
            assert changes == [("POST", comments), ("PATCH", f"/repos/acme/widgets/issues/comments/{comment_id}")]
            (edit,) = [r for r in github.state["delivered"] if r.method == "PATCH"]
            assert edit.body == held[0].body == {"body": github.state["comments"][comment_id]}
            assert {body["context"] for body in sent} == {"codecov/patch", "codecov/project"}
        assert statuses(github, head)["codecov/patch"]["state"] == "failure"
