"""Render the README pictures: each graph kind of a real report, drawn by Chromium, as PNG.

Run from the repository root (needs Playwright and Debian's Chromium, or ``CHROMIUM_PATH``)::

    .venv/bin/python benchmarks/render_readme_images.py [--report tests/data/d3-hierarchy.lcov] [--out docs/images]

The report is uploaded into a temporary SQLite database through the normal upload path, the app is
served on a local port, and Chromium opens ``/gh/demo/project/graphs/{kind}.svg`` at twice the
pixel density and saves a screenshot of exactly the graph: ``{out}/tree.png``, ``icicle.png``,
``sunburst.png``. The same inputs give the same pictures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from pathlib import Path

from flask import Flask
from werkzeug.serving import make_server

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask_coverage import CoverageService  # noqa: E402
from flask_coverage.ingest import upload_report  # noqa: E402
from flask_coverage.operations import add_org, add_repo, init_db  # noqa: E402
from flask_coverage.svg import GRAPH_DEFAULTS, GRAPH_KINDS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# The launch arguments of the browser tests (tests/conftest.py).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


def serve(report: Path, database: Path, root: str) -> tuple[str, object]:
    """Upload ``report`` into a fresh app and serve it; returns (base URL, server)."""
    app = Flask("readme_images")
    app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{database}"
    CoverageService(app)
    with app.app_context():
        init_db()
        add_org("github", "demo")
        repository = add_repo("github", "demo", "project")
        upload_report(repository, report.read_bytes(), commit="0" * 40, branch="main", root=root or None)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.port}", server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, default=ROOT / "tests" / "data" / "d3-hierarchy.lcov")
    parser.add_argument("--root", default="", help="the source root to strip from the report's paths")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--scale", type=float, default=2, help="device pixels per CSS pixel")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        base, server = serve(args.report, Path(tmp) / "images.sqlite", args.root)
        try:
            with sync_playwright() as playwright:
                path = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
                browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
                page = browser.new_page(device_scale_factor=args.scale)
                for kind in GRAPH_KINDS:
                    width, height = GRAPH_DEFAULTS[kind]
                    response = page.goto(f"{base}/gh/demo/project/graphs/{kind}.svg")
                    assert response is not None and response.ok, f"{kind}: {response and response.status}"
                    target = args.out / f"{kind}.png"
                    page.screenshot(path=str(target), clip={"x": 0, "y": 0, "width": width, "height": height})
                    print(f"wrote {target}")
                browser.close()
        finally:
            server.shutdown()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
