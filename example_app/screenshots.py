"""Screenshots of the example app for the README, taken by a real Chromium.

Run from a clone, with the test extra installed (it brings Playwright)::

    .venv/bin/python -m example_app.screenshots            # docs/images/home.png
    .venv/bin/python -m example_app.screenshots --graphs   # and docs/images/{tree,icicle,sunburst}.png

The app runs on a free local port with the demo data in a temporary SQLite database; the browser is
Debian's Chromium (``CHROMIUM_PATH`` to use another), which loads nothing from the network.
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

from . import create_app

#: What the test suite's browser fixture passes too: no sandbox (containers), no background traffic.
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


def wait_for_images(page: Any) -> None:
    """Wait until every ``<img>`` of the page has loaded (or failed)."""
    page.wait_for_function("Array.from(document.images).every((image) => image.complete)")


def take_screenshots(out: Path, *, graphs: bool, generated_files: int) -> list[Path]:
    """Serve the example app with demo data and shoot its pages into ``out``; returns the files written."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/demo.db", "SECRET_KEY": "screenshots"})
        with app.app_context():
            load_demo(generated_files=generated_files)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
        server = make_server("127.0.0.1", 0, app, threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.port}"
        try:
            with sync_playwright() as playwright:
                executable = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
                browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 900}, device_scale_factor=1)
                # Signed in as a member of acme: the private repository is on the page too.
                page.goto(f"{base}/sign-in")
                page.click(f"#sign-in-as-{SIGNED_IN_AS}")
                page.wait_for_url(f"{base}/")
                wait_for_images(page)
                written.append(out / "home.png")
                page.screenshot(path=str(written[-1]), full_page=False)
                if graphs:
                    for kind in ("tree", "icicle", "sunburst"):
                        page.goto(f"{base}{GRAPH_REPOSITORY}/graphs/{kind}.svg")
                        written.append(out / f"{kind}.png")
                        page.locator("svg").screenshot(path=str(written[-1]))
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
