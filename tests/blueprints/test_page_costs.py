"""``totals/``, ``compare/``, the commit page, a folder of the file explorer and the pull page cost a page,
not the commit (issue 26, F3; issue 28, item 1).

The cost is counted where it is deterministic: the SQLite virtual machine's steps (its progress handler,
called every 100 instructions) of every statement the request runs, for a commit of 200 files and one
of 4,000. Reading every file of the commit, as before, costs 20 times more on the larger one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa

from flask_coverage import operations
from flask_coverage.blueprints.web import pulls as web
from flask_coverage.state import get_engine

BASE, HEAD = "b" * 40, "c" * 40


@contextmanager
def sqlite_steps() -> Iterator[list[int]]:
    """The SQLite instructions (in hundreds) that the statements run inside the block execute."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0  # go on

    def watch(connection: Any, *args: Any) -> None:
        connection.connection.dbapi_connection.set_progress_handler(tick, 100)

    engine = get_engine()
    sa.event.listen(engine, "before_cursor_execute", watch)
    try:
        yield steps
    finally:
        sa.event.remove(engine, "before_cursor_execute", watch)


def _repository(testapp: Any, name: str, files: int, make_lcov: Any) -> None:
    token = operations.add_repo("github", "acme", name).upload_token
    for sha, hits, extra in ((BASE, 0, {}), (HEAD, 1, {"pr": "1", "parent": BASE, "branch": "feature"})):
        report = make_lcov({f"src/pkg{index // 50}/mod{index}.py": {1: 1, 2: hits} for index in range(files)})
        query = urlencode({"commit": sha, "token": token, **extra})
        testapp.post(f"/upload/v2?{query}", report, status=200)


def _costs(testapp: Any, name: str) -> dict[str, int]:
    api = f"/api/v2/github/acme/repos/{name}"
    urls = {
        "totals": f"{api}/totals/?sha={HEAD}",
        "compare": f"{api}/compare/?base={BASE}&head={HEAD}",
        "compare of a pull": f"{api}/compare/?pullid=1",
        "commit page": f"/gh/acme/{name}/commit/{HEAD}",
        "folder page": f"/gh/acme/{name}/tree/{HEAD}/src/pkg1",
        "folder page by coverage": f"/gh/acme/{name}/tree/{HEAD}/src/pkg1?sort=coverage&order=desc",
        "pull page": f"/gh/acme/{name}/pull/1",
    }
    costs = {}
    for what, url in urls.items():
        with sqlite_steps() as steps:
            testapp.get(url, status=200)
        costs[what] = steps[0]
    return costs


def test_each_request_costs_its_page_not_the_commit(app, testapp, make_lcov, monkeypatch) -> None:
    if get_engine().dialect.name != "sqlite":
        pytest.skip("counts SQLite's virtual machine steps; the PostgreSQL plans are the same statements")
    # A pull of more files than this names no changed files on its page (the API compares a page of them).
    monkeypatch.setattr(web, "SORTED_FILES", 1000)
    operations.add_org("github", "acme")
    _repository(testapp, "small", 200, make_lcov)
    _repository(testapp, "large", 4000, make_lcov)
    small, large = _costs(testapp, "small"), _costs(testapp, "large")
    for what in small:
        # The index descends one level deeper in the larger commit; nothing else grows.
        assert large[what] <= 1.5 * small[what] + 20, (what, small[what], large[what])


def test_a_large_pull_links_to_the_api_compare(app, testapp, make_lcov, monkeypatch) -> None:
    monkeypatch.setattr(web, "SORTED_FILES", 150)
    operations.add_org("github", "acme")
    _repository(testapp, "large", 200, make_lcov)
    pull = testapp.get("/gh/acme/large/pull/1").html.find(id="coverage-comparison")
    link = pull.find("a", string="compare them with the API")["href"]
    assert link == "/api/v2/github/acme/repos/large/compare/?pullid=1"
    assert testapp.get(link).json["count"] == 200
