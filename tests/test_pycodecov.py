"""pycodecov (PyPI), the published Python client of Codecov's v2 API, reads this API over real HTTP.

Run by the tox env "pycodecov" (``pytest -m pycodecov``): pycodecov needs Python 3.12+ (it uses PEP 695
generics), so below that the test skips. Its paging cuts the first 21 characters off the absolute
``next``/``previous`` links (the length of ``http://api.codecov.io``) and asks its session for the rest,
so the server must answer at a base URL of exactly 21 characters: ``http://127.0.0.1:NNNN`` with a
four-digit port.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from v2_history import C2

pytestmark = [
    pytest.mark.pycodecov,
    pytest.mark.skipif(sys.version_info < (3, 12), reason="pycodecov needs Python 3.12+ (PEP 695 generics)"),
]


@pytest.fixture
def base_url(app: Any) -> Iterator[str]:
    """The app served at ``http://127.0.0.1:NNNN``: 21 characters, as pycodecov's paging needs."""
    from werkzeug.serving import make_server

    for port in range(8100, 10000):
        try:
            server = make_server("127.0.0.1", port, app, threaded=True)
            break
        except OSError:
            continue
    else:
        pytest.fail("no free four-digit port on 127.0.0.1")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def test_pycodecov_reads_owners_repositories_branches_and_commits(history: Any, base_url: str) -> None:
    from aiohttp import ClientSession
    from pycodecov.api.branch import Branch
    from pycodecov.api.owner import Owner
    from pycodecov.api.repo import Repo
    from pycodecov.enums import Service

    assert len(base_url) == 21
    token = history.tokens["alice"]

    async def read() -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        async with ClientSession(base_url, headers=headers) as session:
            owner = await Owner(Service.GITHUB, "acme", token=token, session=session).get_detail()
            repos = await Repo(token, session).get_repo_list(Service.GITHUB, "acme", page_size=2)
            second = await repos.get_next()
            repo = await Repo(token, session).get_repo_detail(Service.GITHUB, "acme", "widgets")
            branches = await Branch(token, session).get_branch_list(Service.GITHUB, "acme", "widgets")
            feature = await Branch(token, session).get_branch_detail(
                Service.GITHUB, "acme", "widgets", "feature/faster"
            )
            return {
                "owner": owner,
                "repos": repos,
                "second": second,
                "repo": repo,
                "branches": branches,
                "feature": feature,
            }

    got = asyncio.run(read())
    assert (got["owner"].username, got["owner"].name) == ("acme", "Acme Corp")
    assert got["repos"].count == 3 and [r.name for r in got["repos"].results] == ["dormant", "secret"]
    # The next page through pycodecov's own paging (the 21-character cut).
    assert [r.name for r in got["second"].results] == ["widgets"] and got["second"].next is None
    assert got["repo"].name == "widgets" and got["repo"].branch == "main"
    assert got["repo"].totals.coverage > 0
    assert [b.name for b in got["branches"].results] == ["feature/faster", "fix/typo", "main"]
    head = got["feature"].head_commit
    assert head.commitid == C2 and head.branch == "feature/faster" and head.totals.files == 23
    assert head.report.totals.files == head.totals.files
