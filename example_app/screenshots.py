"""The README's pictures, taken by a real Chromium.

Run from a clone, with the test extra installed (it brings Playwright)::

    .venv/bin/python -m example_app.screenshots            # docs/images/{home,repository,pull,file}.png
    .venv/bin/python -m example_app.screenshots --graphs   # and docs/images/{tree,icicle,sunburst,badge}.png

The app runs on a free local port with the demo data in a temporary SQLite database; the browser is
Debian's Chromium (``CHROMIUM_PATH`` to use another), which loads nothing from the network.
``home.png`` is the home page, signed in; ``repository.png`` the first screen of ``globex/d3-hierarchy``'s
page (coverage, trend, file explorer); ``pull.png`` a pull request led by its changed files;
``file.png`` the file view of :data:`FILE_VIEW` with its source (from the demo's git mirror). The
graph pictures are each graph kind of
``globex/d3-hierarchy``, whose default branch ends at d3-hierarchy's real LCOV report as it is, drawn
at its default size and twice the pixel density, and so is its badge. The same inputs give the same pictures.
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from werkzeug.serving import make_server

from flask_coverage.demo import load_demo
from flask_coverage.svg import GRAPH_DEFAULTS, GRAPH_KINDS

from . import create_app

#: No sandbox (containers), no background traffic; the test suite's browser is launched with these too.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
#: Who is signed in on the home page's screenshot.
SIGNED_IN_AS = "alice"
#: The repository whose graphs ``--graphs`` shoots.
GRAPH_REPOSITORY = "/gh/globex/d3-hierarchy"
#: Device pixels per CSS pixel of the graph pictures.
GRAPH_SCALE = 2
#: The pull request ``pull.png`` shows.
PULL_PAGE = "/gh/acme/marshmallow/pull/41"
#: The file view ``file.png`` shows (its top: totals, missed lines, the first lines).
FILE_VIEW = "/gh/globex/d3-hierarchy/blob/src/hierarchy/index.js"


def chromium_path() -> str:
    """Where the Chromium to drive is looked for: ``CHROMIUM_PATH``, else Debian's ``/usr/bin/chromium``."""
    return os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


def launch_chromium(playwright: Any) -> Any:
    """Launch Debian's Chromium (or the one at ``CHROMIUM_PATH``) headless with :data:`CHROMIUM_ARGS`.

    Raises :class:`FileNotFoundError`, saying what to do, when there is no Chromium at that path.
    """
    path = chromium_path()
    if not os.path.exists(path):
        raise FileNotFoundError(f"no Chromium at {path}: install Debian's chromium or set CHROMIUM_PATH")
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)


def wait_for_images(page: Any) -> None:
    """Wait until every ``<img>`` of the page has loaded (or failed)."""
    page.wait_for_function("Array.from(document.images).every((image) => image.complete)")


def shoot_home(browser: Any, base: str, out: Path) -> Path:
    """The home page of the app at ``base``, signed in as :data:`SIGNED_IN_AS`, as ``out/home.png``."""
    page = browser.new_page(viewport={"width": 1100, "height": 900}, device_scale_factor=1)
    # Signed in as a member of acme: the private repository is on the page too.
    page.goto(f"{base}/sign-in")
    page.click(f"#sign-in-as-{SIGNED_IN_AS}")
    page.wait_for_url(f"{base}/")
    wait_for_images(page)
    page.screenshot(path=str(out / "home.png"), full_page=False)
    return out / "home.png"


def shoot_pages(browser: Any, base: str, out: Path) -> list[Path]:
    """The first screen of :data:`GRAPH_REPOSITORY`'s page (coverage, trend, file explorer) as
    ``out/repository.png``, of :data:`PULL_PAGE` (led by its changed files) as ``out/pull.png``, and
    :data:`FILE_VIEW` as ``out/file.png``."""
    page = browser.new_page(viewport={"width": 1000, "height": 900}, device_scale_factor=1)
    page.goto(f"{base}{GRAPH_REPOSITORY}")
    page.locator("#coverage-trend object").evaluate("(object) => object.contentDocument.readyState")
    page.screenshot(path=str(out / "repository.png"), full_page=False)
    page.goto(f"{base}{PULL_PAGE}")
    page.screenshot(path=str(out / "pull.png"), full_page=False)
    page.set_viewport_size({"width": 1000, "height": 640})
    page.goto(f"{base}{FILE_VIEW}")
    page.screenshot(path=str(out / "file.png"), full_page=False)
    return [out / "repository.png", out / "pull.png", out / "file.png"]


def shoot_graphs(browser: Any, base: str, out: Path) -> list[Path]:
    """Each graph kind of :data:`GRAPH_REPOSITORY` at its default size and :data:`GRAPH_SCALE`, as
    ``out/{kind}.png``, and its badge as ``out/badge.png``."""
    page = browser.new_page(device_scale_factor=GRAPH_SCALE)
    written = []
    for kind in GRAPH_KINDS:
        response = page.goto(f"{base}{GRAPH_REPOSITORY}/graphs/{kind}.svg")
        if response is None or not response.ok:
            raise RuntimeError(f"the {kind} graph answered {response.status if response else 'nothing'}")
        width, height = GRAPH_DEFAULTS[kind]
        written.append(out / f"{kind}.png")
        page.screenshot(path=str(written[-1]), clip={"x": 0, "y": 0, "width": width, "height": height})
    response = page.goto(f"{base}{GRAPH_REPOSITORY}/graph/badge.svg")
    if response is None or not response.ok:
        raise RuntimeError(f"the badge answered {response.status if response else 'nothing'}")
    width = int(page.evaluate("document.documentElement.getAttribute('width')"))
    written.append(out / "badge.png")
    page.screenshot(path=str(written[-1]), clip={"x": 0, "y": 0, "width": width, "height": 20})
    return written


def take_screenshots(out: Path, *, graphs: bool, generated_files: int) -> list[Path]:
    """Serve the example app with demo data and shoot its pages into ``out``; returns the files written."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/demo.db",
                "SECRET_KEY": "screenshots",
                "COVERAGE_SOURCE_GIT_ROOT": f"{folder}/git-mirrors",
            }
        )
        with app.app_context():
            load_demo(generated_files=generated_files)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
        server = make_server("127.0.0.1", 0, app, threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.port}"
        try:
            with sync_playwright() as playwright:
                browser = launch_chromium(playwright)
                written.append(shoot_home(browser, base, out))
                written.extend(shoot_pages(browser, base, out))
                if graphs:
                    written.extend(shoot_graphs(browser, base, out))
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)
            with app.app_context():
                for engine in app.extensions["sqlalchemy"].engines.values():
                    engine.dispose()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"), help="folder of the PNG files")
    parser.add_argument("--graphs", action="store_true", help="also shoot each graph kind")
    parser.add_argument("--files", type=int, default=3000, help="files of the generated repository")
    args = parser.parse_args()
    for path in take_screenshots(args.out, graphs=args.graphs, generated_files=args.files):
        print(path)


if __name__ == "__main__":
    main()
