"""Benchmark the file view of a 5,000-line file: server time, and first paint in Chromium.

Run from the repository root::

    .venv/bin/python benchmarks/bench_file_view.py [--lines 5000] [--repeat 7] [--no-browser]

It makes a real bare git repository (``git`` on PATH) holding one Python file of ``--lines`` lines
(every other line tracked; one tracked line in 10 missed, one in 25 partial), uploads its coverage
into a fresh SQLite database, and requests ``/gh/acme/big/commit/{sha}/blob/big.py`` of an app whose
``COVERAGE_SOURCE_GIT_ROOT`` holds the repository:

- cold: the source cache emptied first: two ``git`` subprocesses, Pygments highlighting (when
  installed) and the page;
- warm: the same again (the highlighted lines come from the cache): the page alone;
- 304: with ``If-None-Match``;
- no source: the compact view of the tracked lines (no loader configured).

Times are medians of ``--repeat`` runs, in milliseconds of app time (the WSGI app called with a ready
environ). Then Chromium (Debian's, or ``CHROMIUM_PATH``) loads the page from a local server
``--repeat`` times, each in a fresh context, and the median first contentful paint is printed
(``performance`` entries of the page, from the start of navigation).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from flask import Flask
from werkzeug.test import EnvironBuilder

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.ingest import upload_report  # noqa: E402
from flask_coverage.operations import add_org, add_repo, init_db  # noqa: E402
from flask_coverage.state import get_cache  # noqa: E402


def make_source(lines: int) -> str:
    """A Python file of ``lines`` lines: small functions, comments and blank lines."""
    out = []
    for number in range(1, lines + 1):
        if number % 2:
            out.append(f"    value_{number} = compute({number}, 'text {number}')  # step {number}")
        else:
            out.append("" if number % 6 == 0 else f"def function_{number}(argument):")
    return "\n".join(out) + "\n"


def make_report(lines: int) -> bytes:
    """LCOV for ``big.py``: every odd line tracked, one in 10 missed, one in 25 partial."""
    out = ["SF:big.py\n"]
    for number in range(1, lines + 1, 2):
        out.append(f"DA:{number},{0 if number % 20 == 1 else 3}\n")
        if number % 50 == 5:
            out.append(f"BRDA:{number},0,0,1\nBRDA:{number},0,1,0\n")
    out.append("end_of_record\n")
    return "".join(out).encode()


def make_mirror(root: Path, lines: int) -> str:
    """A bare repository ``root/github/acme/big.git`` with ``big.py``; returns the commit's sha."""
    work = root.parent / "work"
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    git = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com"]
    subprocess.run([*git, "init", "-q", str(work)], check=True, env=env)  # noqa: S603
    (work / "big.py").write_text(make_source(lines))
    subprocess.run([*git, "-C", str(work), "add", "big.py"], check=True, env=env)  # noqa: S603
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "big"], check=True, env=env)  # noqa: S603
    sha = subprocess.run(  # noqa: S603
        [*git, "-C", str(work), "rev-parse", "HEAD"], check=True, env=env, capture_output=True, text=True
    ).stdout.strip()
    bare = root / "github" / "acme" / "big.git"
    bare.parent.mkdir(parents=True)
    subprocess.run([*git, "clone", "-q", "--bare", str(work), str(bare)], check=True, env=env)  # noqa: S603
    return sha


def call(app: Flask, path: str, headers: dict[str, str]) -> tuple[float, int, bytes, dict[str, str]]:
    """One request straight into the WSGI app: (milliseconds, status, body, headers)."""
    environ = EnvironBuilder(path=path, headers=headers).get_environ()
    out: dict[str, Any] = {}

    def start_response(status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        out["status"], out["headers"] = int(status.split()[0]), dict(response_headers)
        return lambda data: None

    started = time.perf_counter()
    body = b"".join(app.wsgi_app(environ, start_response))
    return (time.perf_counter() - started) * 1000, out["status"], body, out["headers"]


def median_ms(app: Flask, path: str, repeat: int, *, cold: bool = False, headers: Any = None) -> float:
    times = []
    for _ in range(repeat):
        if cold:
            with app.app_context():
                get_cache().clear()
        elapsed, status, _, _ = call(app, path, headers or {})
        if status not in (200, 304):
            raise RuntimeError(f"{path} answered {status}")
        times.append(elapsed)
    return statistics.median(times)


def first_paint_ms(app: Flask, path: str, repeat: int) -> float:
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from example_app.screenshots import launch_chromium

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    paints = []
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            for _ in range(repeat):
                context = browser.new_context()
                page = context.new_page()
                page.goto(f"http://127.0.0.1:{server.port}{path}")
                page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0")
                paints.append(page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime"))
                context.close()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return statistics.median(paints)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium first-paint measurement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "mirrors"
        sha = make_mirror(root, args.lines)
        apps = {}
        for name, config in (("source", {"COVERAGE_SOURCE_GIT_ROOT": str(root)}), ("none", {})):
            app = Flask(f"bench_{name}")
            app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/{name}.db", **config)
            CoverageService(app)
            with app.app_context():
                init_db()
                add_org("github", "acme")
                upload_report(add_repo("github", "acme", "big"), make_report(args.lines), commit=sha, branch="main")
            apps[name] = app
        path = f"/gh/acme/big/commit/{sha}/blob/big.py"
        app = apps["source"]
        _, status, body, headers = call(app, path, {})
        assert status == 200 and b"coverage-source" in body, "no source in the page"
        etag = headers["ETag"]
        print(f"file view of a {args.lines}-line file ({len(body) / 1024:.0f} KiB of HTML), median of {args.repeat}:")
        print(f"  cold (git + highlighting + page): {median_ms(app, path, args.repeat, cold=True):7.1f} ms")
        print(f"  warm (source cached):             {median_ms(app, path, args.repeat):7.1f} ms")
        conditional = median_ms(app, path, args.repeat, headers={"If-None-Match": etag})
        print(f"  304 (If-None-Match):              {conditional:7.1f} ms")
        print(f"  no source (tracked lines only):   {median_ms(apps['none'], path, args.repeat):7.1f} ms")
        if not args.no_browser:
            print(f"  Chromium first contentful paint:  {first_paint_ms(app, path, args.repeat):7.1f} ms")
        for made in apps.values():
            with made.app_context():
                made.extensions["sqlalchemy"].engine.dispose()


if __name__ == "__main__":
    main()
