"""How a graph URL finds its repository and commit: ``queries.targets.find_target``, one query per request."""

from __future__ import annotations

from typing import Any, Callable, Optional

import pytest
import webtest

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.models import Repository
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import find_target, resolve_commit

# Two shas that share their first 8 hex digits, and a third one.
SHA_A = "abcdef01" + "1" * 32
SHA_B = "abcdef01" + "2" * 32
SHA_C = "0123456" + "f" * 33


@pytest.fixture
def history(widgets: Repository, make_lcov: Callable[..., bytes], db: Any) -> dict[str, Any]:
    """widgets: A on main, B on feature/x (pull 5), C without branch; gadgets: A on main; acme/gone (deleted)."""
    report = make_lcov({"src/app.py": {1: 1, 2: 0}, "README_test.py": {1: 1}})
    gadgets = operations.add_repo("github", "acme", "gadgets")
    gone = operations.add_repo("github", "acme", "gone")
    upload_report(gone, report, commit=SHA_A, branch="main")
    gone.deleted = True
    db.session.commit()
    return {
        "A": upload_report(widgets, report, commit=SHA_A, branch="main"),
        "B": upload_report(widgets, report, commit=SHA_B, branch="feature/x", pullid=5),
        "C": upload_report(widgets, report, commit=SHA_C),
        "gadgets A": upload_report(gadgets, report, commit=SHA_A, branch="main"),
    }


NAMES = [
    ("github", "acme", "widgets"),
    ("github", "ACME", "Widgets"),
    ("github", "acme", "gadgets"),
    ("github", "acme", "gone"),
    ("gitlab", "acme", "widgets"),
    ("githab", "acme", "widgets"),
    ("github", "nobody", "widgets"),
    ("github", "acme", "wid\x00gets"),
    ("github", "a" * 300, "widgets"),
    ("github", "acme", ""),
]
TARGETS: list[dict[str, Any]] = [
    {},
    {"branch": "main"},
    {"branch": "feature/x"},
    {"branch": "Feature/X"},
    {"branch": "nope"},
    {"branch": "a\x00b"},
    {"branch": "x" * 300},
    {"pullid": 5},
    {"pullid": 6},
    {"pullid": 0},
    {"pullid": 2**40},
    {"sha": SHA_A},
    {"sha": SHA_B.upper()},
    {"sha": SHA_A[:9]},
    {"sha": SHA_C[:7]},
    {"sha": SHA_A[:8]},  # ambiguous: A and B
    {"sha": SHA_C[:6]},  # too short
    {"sha": "f" * 40},
    {"sha": "not hex at all"},
    {"sha": SHA_C, "branch": "main"},
    {"branch": "main", "pullid": 5},
]


def _ids(found: Optional[tuple[Any, Any]]) -> Optional[tuple[int, int]]:
    return None if found is None else (found[0].id, found[1].id)


def test_find_target_answers_like_find_repository_then_resolve_commit(history: dict[str, Any]) -> None:
    answered = 0
    for service, owner, name in NAMES:
        repository = find_repository(service, owner, name)
        for target in TARGETS:
            commit = resolve_commit(repository, **target) if repository is not None else None
            expected = None if commit is None else (repository.id, commit.id)  # type: ignore[union-attr]
            assert _ids(find_target(service, owner, name, **target)) == expected, (service, owner, name, target)
            answered += expected is not None
    assert answered > 20  # the comparison is not only about misses
    assert find_target("github", "acme", "gone", sha=SHA_A) is None  # deleted


def test_find_target_loads_the_owner_with_the_repository(history: dict[str, Any]) -> None:
    found = find_target("github", "acme", "widgets", pullid=5)
    assert found is not None
    repository, commit = found
    assert (repository.owner.username, repository.name, commit.sha) == ("acme", "widgets", SHA_B)


@pytest.mark.parametrize(
    "url",
    [
        "/gh/acme/widgets/graphs/tree.svg",
        "/gh/acme/widgets/branch/feature/x/graphs/icicle.svg",
        "/gh/acme/widgets/pull/5/graphs/sunburst.svg",
        f"/gh/acme/widgets/commit/{SHA_A[:9]}/graphs/tree.svg",
    ],
)
def test_a_cached_graph_costs_one_query(
    testapp: webtest.TestApp, history: dict[str, Any], statements: list[str], url: str
) -> None:
    first = testapp.get(url)
    statements.clear()
    again = testapp.get(url)
    assert again.body == first.body
    not_modified = testapp.get(url, headers={"If-None-Match": first.headers["ETag"]}, status=304)
    assert not not_modified.body
    # Repository, owner and commit in one SELECT for the cache hit, one for the 304.
    assert len(statements) == 2, statements


def test_a_new_upload_is_seen_at_once(
    testapp: webtest.TestApp, widgets: Repository, history: dict[str, Any], make_lcov: Callable[..., bytes]
) -> None:
    url = "/gh/acme/widgets/graphs/tree.svg"
    before = testapp.get(url)
    assert b"src/new.py" not in before.body
    upload_report(widgets, make_lcov({"src/new.py": {1: 1}}), commit="d" * 40, branch="main")
    after = testapp.get(url, headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_int == 200
    assert b"src/new.py" in after.body
