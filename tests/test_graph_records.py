"""Graph records read once per coverage version (flask_coverage.queries.graph_records), the cap on cached
variants of one commit, and per-client rate limits with Flask-Limiter (docs/graphs.md, "Limits")."""

from __future__ import annotations

from typing import Any, Callable

import pytest
import webtest

from flask_coverage.blueprints import graphs
from flask_coverage.ingest import upload_report
from flask_coverage.queries import graph_records
from flask_coverage.queries.graph_records import _RecordsCache
from flask_coverage.state import get_cache, get_session

SHA = "c0ffee" + "0" * 34
URL = "/gh/acme/widgets/graphs/tree.svg"


@pytest.fixture
def uploaded(widgets: Any, make_lcov: Callable[..., bytes]) -> Any:
    upload_report(widgets, make_lcov({"a.py": {1: 1, 2: 0}, "b/c.py": {1: 3}}), commit=SHA, branch="main")
    return widgets


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per database read of graph records."""
    calls: list[int] = []
    real = graph_records.read_graph_records

    def counting(commit: Any) -> Any:
        calls.append(commit.id)
        return real(commit)

    monkeypatch.setattr(graph_records, "read_graph_records", counting)
    graph_records.records_cache.clear()
    return calls


def test_new_sizes_of_a_drawn_commit_do_not_read_the_database(
    testapp: webtest.TestApp, uploaded: Any, reads: list[int], make_lcov: Callable[..., bytes]
) -> None:
    for size in (100, 200, 333, 4000):
        testapp.get(f"{URL}?width={size}&height={size}")
    testapp.get(URL.replace("tree", "icicle"))
    testapp.get(URL.replace("tree", "sunburst") + "?border_size=3")
    assert len(reads) == 1
    # A new upload is a new coverage version: read once more, and the new file is drawn.
    upload_report(uploaded, make_lcov({"new.py": {1: 1}}), commit=SHA)
    get_session().remove()
    assert b"new.py" in testapp.get(f"{URL}?width=101").body
    testapp.get(f"{URL}?width=102")
    assert len(reads) == 2


def test_the_records_cache_keeps_to_its_byte_budget() -> None:
    cache = _RecordsCache(budget=100_000)
    sets = {n: [(f"src/file{n}_{k}.py", 10, 5) for k in range(100)] for n in range(10)}
    for n, records in sets.items():
        cache.put(("commit", n), records)
        assert cache.used <= cache.budget
    assert cache.get(("commit", 0)) is None  # the oldest went first
    assert cache.get(("commit", 9)) == sets[9]
    cache.put(("huge",), [("x" * 1000, 1, 1)] * 1000)  # bigger than the budget: not kept
    assert cache.get(("huge",)) is None and cache.get(("commit", 9)) == sets[9]


def test_one_commit_keeps_a_bounded_number_of_cached_variants(testapp: webtest.TestApp, uploaded: Any) -> None:
    """A client asking for ever new sizes gets correct graphs, but fills at most MAX_CACHED_VARIANTS entries."""
    stored = get_cache().cache._cache  # SimpleCache's own dict
    for width in range(100, 140):
        body = testapp.get(f"{URL}?width={width}").body
        assert f'width="{width}"'.encode() in body
    graphs_stored = [key for key in stored if key.startswith("coverage-graph:")]
    assert len(graphs_stored) == graphs.MAX_CACHED_VARIANTS
    # The first ones drawn stay cached and are served from the cache.
    assert b'width="100"' in testapp.get(f"{URL}?width=100").body
    assert len([key for key in stored if key.startswith("coverage-graph:")]) == graphs.MAX_CACHED_VARIANTS


def test_per_client_rate_limits_with_flask_limiter(app: Any, uploaded: Any) -> None:
    """docs/graphs.md's recipe: Flask-Limiter (the ``limiter`` extra) on the graph blueprint."""
    from flask_limiter import Limiter
    from flask_limiter.util import get_remote_address

    limiter = Limiter(get_remote_address, app=app, storage_uri="memory://")
    limiter.limit("3 per minute")(app.blueprints["coverage_graphs"])
    one, other = ({"REMOTE_ADDR": address} for address in ("192.0.2.1", "192.0.2.2"))
    client = webtest.TestApp(app)
    for size in (100, 200, 300):
        client.get(f"{URL}?width={size}", extra_environ=one, status=200)
    assert client.get(f"{URL}?width=400", extra_environ=one, status=429).status_int == 429
    client.get(URL, extra_environ=other, status=200)  # per client
    client.get("/_coverage/health", extra_environ=one, status=200)  # other blueprints are not limited


def test_the_graph_cache_keeps_to_its_byte_budget(app: Any, testapp: webtest.TestApp, uploaded: Any) -> None:
    stored = get_cache().cache._cache
    first = testapp.get(f"{URL}?width=100")
    size = len(get_cache().get(next(key for key in stored if key.startswith("coverage-graph:"))))
    # The repository's share: the one stored, and two more.
    app.config["COVERAGE_GRAPH_CACHE_MAX_BYTES"] = int((3 * size + size // 2) / graphs.REPOSITORY_BUDGET_SHARE)
    for width in range(101, 110):
        assert f'width="{width}"'.encode() in testapp.get(f"{URL}?width={width}").body
    counters = {key: get_cache().get(key) for key in stored if key.startswith("coverage-graph-bytes:")}
    assert len([key for key in stored if key.startswith("coverage-graph:")]) == 3, (size, counters)
    assert testapp.get(f"{URL}?width=100").body == first.body  # still served from the cache
    # One counter for the whole service and one for the repository, each with at least what was stored.
    assert len(counters) == 2 and all(value >= 3 * size for value in counters.values())


def test_one_repository_cannot_spend_the_budget_of_the_others(
    app: Any, testapp: webtest.TestApp, uploaded: Any, make_lcov: Callable[..., bytes]
) -> None:
    """Issue 26, F9: ever new sizes of one repository's graphs once turned caching off for every repository."""
    from flask_coverage import operations

    stored = get_cache().cache._cache
    testapp.get(f"{URL}?width=100")
    size = len(get_cache().get(next(key for key in stored if key.startswith("coverage-graph:"))))
    app.config["COVERAGE_GRAPH_CACHE_MAX_BYTES"] = 16 * size  # a repository's share: 2 graphs
    other = operations.add_repo("github", "acme", "gadgets")
    upload_report(other, make_lcov({"a.py": {1: 1, 2: 0}, "b/c.py": {1: 3}}), commit=SHA, branch="main")
    for width in range(101, 140):  # widgets asks for ever new sizes
        testapp.get(f"{URL}?width={width}")
    graphs_of = {key for key in stored if key.startswith("coverage-graph:")}
    assert len(graphs_of) <= 2
    # gadgets' graphs are still cached.
    testapp.get("/gh/acme/gadgets/graphs/tree.svg?width=100")
    assert len({key for key in stored if key.startswith("coverage-graph:")} - graphs_of) == 1


def test_the_byte_counters_expire(app: Any, testapp: webtest.TestApp, uploaded: Any) -> None:
    import time

    testapp.get(f"{URL}?width=100")
    timeout = app.config["COVERAGE_CACHE_CONFIG"]["CACHE_DEFAULT_TIMEOUT"]
    counters = {key: expires for key, (expires, _) in get_cache().cache._cache.items() if "graph-bytes" in key}
    assert len(counters) == 2
    assert all(0 < expires <= time.time() + 2 * timeout for expires in counters.values()), counters
