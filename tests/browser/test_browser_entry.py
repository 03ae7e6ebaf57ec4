"""A real Chromium walks a bare host app (the README's few lines) from its entry page to a file view."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import pytest
from flask import Flask

from flask_coverage import CoverageService
from flask_coverage.ingest import upload_report
from flask_coverage.operations import add_org, add_repo, init_db

pytestmark = pytest.mark.browser

SHA = "e" * 40


@pytest.fixture
def bare_app(make_database_url: Callable[[], str], make_lcov: Callable[..., bytes]) -> Iterator[Flask]:
    """The README's host app: no pages, no users of its own; acme has a public and a private repository."""
    app = Flask("bare_host_app")
    app.config.update(SECRET_KEY="browser-test", SQLALCHEMY_DATABASE_URI=make_database_url())
    CoverageService(app)
    with app.app_context():
        init_db()
        add_org("github", "acme", name="Acme Inc.")
        widgets = add_repo("github", "acme", "widgets", language="python")
        vault = add_repo("github", "acme", "vault", private=True)
        report = make_lcov({"src/widgets/core.py": {1: 1, 2: 0, 3: 4}, "src/widgets/cli.py": {1: 1, 2: 1}})
        for repository in (widgets, vault):
            upload_report(repository, report, commit=SHA, branch="main")
    yield app
    with app.app_context():
        for engine in app.extensions["sqlalchemy"].engines.values():
            engine.dispose()


def test_from_the_entry_page_to_a_file_view(
    bare_app: Flask, live_server: Callable[[Any], str], browser_page: Any, page_errors: list[str], tmp_path: Path
) -> None:
    shots = Path(os.environ.get("COVERAGE_SCREENSHOTS_DIR", tmp_path))
    page = browser_page
    page.set_viewport_size({"width": 1000, "height": 700})
    base = live_server(bare_app)
    page.goto(base + "/")
    assert page.title() == "Coverage"
    assert page.locator(".coverage-user").inner_text() == "Not signed in"
    assert page.locator(".coverage-owner h2 a").all_inner_texts() == ["Acme Inc."]
    # The private repository is not listed to an anonymous visitor.
    assert page.locator(".coverage-owner tbody td:first-child a").all_inner_texts() == ["widgets"]
    page.screenshot(path=str(shots / "entry.png"), full_page=True)

    page.click("text=widgets")
    page.wait_for_url("**/gh/acme/widgets")
    assert page.locator("h1").inner_text() == "acme/widgets"
    for name in ("src/", "widgets/", "core.py"):  # the file explorer, folder by folder
        page.click(f"#coverage-files tbody a:text-is('{name}')")
    page.wait_for_url("**/gh/acme/widgets/**/blob/src/widgets/core.py")
    assert page.locator("h1").inner_text() == "src/widgets/core.py"
    assert page.locator("tr.coverage-miss").count() == 1
    page.screenshot(path=str(shots / "file.png"), full_page=True)

    # Back home through the navigation bar.
    page.click(".coverage-home")
    page.wait_for_url(base + "/")
    assert page.locator(".coverage-owner").count() == 1
    assert page_errors == []
