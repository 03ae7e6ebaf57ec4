"""``GET .../repos/{repo}/flags/{flag}/coverage/``: the coverage trend of one flag (docs/api.md)."""

from __future__ import annotations

import datetime as dt
import random

import pytest
import sqlalchemy as sa
from test_trend import reference_trend, report, sha

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.ingest.target import UploadMeta
from flask_coverage.models import Commit

REPO = "/api/v2/github/acme/repos/widgets"
NOT_FOUND = {"detail": "Not found."}


@pytest.fixture
def flagged(widgets, db, make_lcov) -> dict[str, list[tuple]]:
    """24 commits of main at random times over three weeks, each with a ``unit`` upload of random coverage and
    some with an ``e2e`` one too; 3 commits of dev with ``unit``. The reference: ``(time, hits, lines)`` of
    each flag's uploads on main."""
    rng = random.Random(38)
    monday = dt.datetime(2026, 3, 2)
    expected: dict[str, list[tuple]] = {"unit": [], "e2e": []}
    times = {}
    for n in range(1, 25):
        times[sha(n)] = monday + dt.timedelta(minutes=rng.randrange(21 * 24 * 60))
        for flag in ("unit", "e2e"):
            if flag == "e2e" and rng.random() < 0.4:
                continue
            lines = rng.randrange(1, 7)
            hits = rng.randrange(0, lines + 1)
            # Each flag covers its own file, so a flag's coverage is its upload's.
            body = report(make_lcov, hits, lines).replace(b"src/app.py", f"src/{flag}.py".encode())
            meta = UploadMeta(flags=(flag,))
            upload_report(widgets, body, commit=sha(n), branch="main", meta=meta)
            expected[flag].append((times[sha(n)], hits, lines))
    for n in range(100, 103):
        upload_report(widgets, report(make_lcov, 1, 3), commit=sha(n), branch="dev", meta=UploadMeta(flags=("unit",)))
    for commit in db.session.execute(sa.select(Commit).where(Commit.sha.in_(times))).scalars():
        commit.timestamp = times[commit.sha]
    db.session.commit()
    return expected


def test_each_flag_s_trend_matches_its_uploads_for_any_interval_and_bounds(testapp, flagged) -> None:
    monday = dt.datetime(2026, 3, 2)
    rng = random.Random(5)
    bounds = [(None, None), (monday + dt.timedelta(days=3), None), (None, monday + dt.timedelta(days=10))]
    for _ in range(6):
        low, high = sorted(monday + dt.timedelta(minutes=rng.randrange(-600, 22 * 24 * 60)) for _ in range(2))
        bounds.append((low, high))
    for flag, commits in flagged.items():
        for interval in (1, 7, 30):
            for start, end in bounds:
                params = {"interval": f"{interval}d", "page_size": "100"}
                params.update({k: v.isoformat() for k, v in (("start_date", start), ("end_date", end)) if v})
                answer = testapp.get(f"{REPO}/flags/{flag}/coverage/", params=params).json
                expected = reference_trend(commits, interval, start, end)
                assert answer["results"] == expected, (flag, interval, start, end)
                assert answer["count"] == len(expected)
    # Another branch: its own commits only.
    dev = testapp.get(f"{REPO}/flags/unit/coverage/", params={"interval": "30d", "branch": "dev"}).json["results"]
    assert len(dev) == 1 and dev[0]["min"] == dev[0]["max"] == 33.33


def test_pages_of_bins(testapp, flagged) -> None:
    whole = testapp.get(f"{REPO}/flags/unit/coverage/", params={"interval": "1d", "page_size": "100"}).json
    assert whole["count"] > 3
    seen, page = [], testapp.get(f"{REPO}/flags/unit/coverage/", params={"interval": "1d", "page_size": "3"}).json
    while True:
        seen += page["results"]
        if page["next"] is None:
            break
        page = testapp.get(page["next"]).json
    assert seen == whole["results"]
    assert testapp.get(f"{REPO}/flags/unit/coverage/?interval=1d&page=99", status=404).json == {
        "detail": "Invalid page."
    }


def test_the_404s_and_the_400s(testapp, flagged) -> None:
    for url in [
        f"{REPO}/flags/nightly/coverage/?interval=1d",  # no upload carried it
        "/api/v2/github/acme/repos/nothing/flags/unit/coverage/?interval=1d",
        "/api/v2/github/nobody/repos/widgets/flags/unit/coverage/?interval=1d",
    ]:
        assert testapp.get(url, status=404).json == NOT_FOUND
    # A private repository's flag: the same 404 for outsiders.
    operations.set_repo("github", "acme", "widgets", private=True)
    assert testapp.get(f"{REPO}/flags/unit/coverage/?interval=1d", status=404).json == NOT_FOUND
    operations.set_repo("github", "acme", "widgets", private=False)
    for query in ["", "?interval=2d", "?interval=1d&start_date=2026-03-10&end_date=2026-03-01", "?interval=1d&page=0"]:
        assert testapp.get(f"{REPO}/flags/unit/coverage/{query}", status=400).json["errors"]


def test_in_the_openapi_document(testapp) -> None:
    paths = testapp.get("/api/v2/openapi.json").json["paths"]
    operation = paths["/api/v2/{service}/{owner_username}/repos/{repo}/flags/{flag}/coverage/"]["get"]
    assert operation["operationId"] == "repos_flags_coverage_list"
    assert set(operation["responses"]) == {"200", "400", "401", "404"}
