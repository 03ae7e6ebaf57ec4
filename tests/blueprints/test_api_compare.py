"""The v2 API's totals, file report and compare (docs/api.md), over WebTest, against the report API."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from v2_history import API, C0, C1, C2, C3, REGRESSED, REPO, assert_not_found, bearer

NAMES = {0: "hits", 1: "misses", 2: "partials"}


def report(testapp, sha: str, **params) -> dict:
    return testapp.get(f"{REPO}/report/", params={"sha": sha, **params}).json


def summed(files: list[dict]) -> dict:
    """The totals of ``files`` computed here, from their lines."""
    states = Counter(state for file in files for _, state in file["line_coverage"])
    lines = sum(states.values())
    hits, misses, partials = states[0], states[1], states[2]
    coverage = int(hits * 10000 / lines) / 100 if lines else 0
    return {
        "files": len(files), "lines": lines, "hits": hits, "misses": misses, "partials": partials,
        "coverage": coverage, "branches": 0, "methods": 0,
    }  # fmt: skip


PAGE_KEYS = ("count", "next", "previous", "total_pages")


def every_page(testapp, url: str, **params) -> dict:
    """The answer of ``url`` with the files of all its pages (3 files a page, followed by the ``next``
    links), without the page's keys."""
    first = body = testapp.get(url, params={**params, "page_size": 3}).json
    files = list(body["files"])
    while body["next"]:
        body = testapp.get(body["next"]).json
        assert body["previous"] is not None and len(body["files"]) <= 3
        files += body["files"]
    assert first["previous"] is None and first["count"] == len(files)
    assert first["total_pages"] == max(1, -(-len(files) // 3))
    return {**{key: value for key, value in first.items() if key not in PAGE_KEYS}, "files": files}


def test_totals_of_a_commit_and_its_files(testapp, history) -> None:
    for sha in (C0, C1, C2, C3):
        body = every_page(testapp, f"{REPO}/totals/", sha=sha)
        reference = report(testapp, sha)
        assert body["totals"] == reference["totals"] == summed(reference["files"])
        assert body["files"] == [{"name": f["name"], "totals": f["totals"]} for f in reference["files"]]
        assert body["commit_file_url"] == reference["commit_file_url"]
    assert testapp.get(f"{REPO}/totals/").json["totals"] == report(testapp, C1)["totals"]  # main's tip
    branch = testapp.get(f"{REPO}/totals/", params={"branch": "fix/typo"}).json
    assert branch["totals"] == report(testapp, C3)["totals"]
    under = every_page(testapp, f"{REPO}/totals/", sha=C1, path="src/marshmallow/f")
    assert [f["name"] for f in under["files"]] == ["src/marshmallow/fields.py"]
    assert under["totals"] == summed(report(testapp, C1, path="src/marshmallow/f")["files"])


def test_totals_of_a_flag_are_those_of_its_uploads(testapp, history) -> None:
    body = every_page(testapp, f"{REPO}/totals/", sha=C2, flag="sqla")
    reference = report(testapp, C2, path="src/flask_sqlalchemy/")["files"]
    assert body["files"] == [{"name": f["name"], "totals": f["totals"]} for f in reference]
    assert body["totals"] == summed(reference) and len(reference) == 10
    assert_not_found(testapp.get(f"{REPO}/totals/", params={"sha": C1, "flag": "sqla"}, status=404))
    assert testapp.get(f"{REPO}/totals/", params={"flag": "a b"}, status=400).json["errors"]["flag"]


def test_file_report(testapp, history) -> None:
    reference = {f["name"]: f for f in report(testapp, C2)["files"]}
    body = testapp.get(f"{REPO}/file_report/src/marshmallow/fields.py", params={"sha": C2}).json
    assert {key: body[key] for key in ("name", "totals", "line_coverage")} == reference["src/marshmallow/fields.py"]
    assert body["commit_sha"] == C2 and body["commit_file_url"].endswith(f"/commit/{C2}")
    tip = testapp.get(f"{REPO}/file_report/src/marshmallow/fields.py").json
    assert tip["commit_sha"] == C1
    assert (
        testapp.get(f"{REPO}/file_report/src/marshmallow/fields.py", params={"branch": "feature/faster"}).json == body
    )
    for path in ("src/marshmallow/nope.py", "src/marshmallow", "src/marshmallow/fields.py/", "a%00b"):
        assert_not_found(testapp.get(f"{REPO}/file_report/{path}", status=404))


def reference_comparison(testapp, base: str, head: str) -> dict:
    """The comparison computed here from the two reports (the report API's files and lines)."""
    before = {f["name"]: f for f in report(testapp, base)["files"]}
    files = []
    for file in report(testapp, head)["files"]:
        old = before.get(file["name"])
        summary: Counter = Counter()
        if old is not None:
            states = dict(old["line_coverage"])
            for line, state in file["line_coverage"]:
                if line in states and states[line] != state:
                    summary[NAMES[states[line]]] -= 1
                    summary[NAMES[state]] += 1
        files.append(
            {
                "name": {"base": old and old["name"], "head": file["name"]},
                "totals": {"base": old and old["totals"], "head": file["totals"], "patch": None},
                "has_diff": False,
                "stats": None,
                "change_summary": {key: value for key, value in summary.items() if value},
            }
        )
    totals = {"base": report(testapp, base)["totals"], "head": report(testapp, head)["totals"], "patch": None}
    return {"base_commit": base, "head_commit": head, "totals": totals, "files": files, "untracked": []}


def test_compare_two_commits_against_the_reports(testapp, history) -> None:
    body = every_page(testapp, f"{REPO}/compare/", base=C1, head=C2)
    assert body == reference_comparison(testapp, C1, C2)
    fields_py = next(f for f in body["files"] if f["name"]["head"] == "src/marshmallow/fields.py")
    # The regression: lines that ran in C1 and no longer do in C2 (fields.py's lines REGRESSED).
    assert fields_py["change_summary"]["misses"] > 0
    assert -fields_py["change_summary"]["misses"] == sum(
        v for k, v in fields_py["change_summary"].items() if k != "misses"
    )
    assert fields_py["change_summary"]["misses"] <= len(REGRESSED)
    new = [f for f in body["files"] if f["name"]["base"] is None]
    assert len(new) == 10 and all(f["name"]["head"].startswith("src/flask_sqlalchemy/") for f in new)
    # Short shas, and the other direction.
    assert every_page(testapp, f"{REPO}/compare/", base=C1[:7], head=C2[:9]) == body
    assert every_page(testapp, f"{REPO}/compare/", base=C2, head=C0) == reference_comparison(testapp, C2, C0)


def test_compare_a_pull_with_its_base(testapp, history) -> None:
    pull7 = every_page(testapp, f"{REPO}/compare/", pullid=7)
    assert pull7 == every_page(testapp, f"{REPO}/compare/", base=C1, head=C2)
    pull8 = every_page(testapp, f"{REPO}/compare/", pullid=8)
    assert pull8 == reference_comparison(testapp, C0, C3)


@pytest.mark.parametrize(
    "params, status",
    [
        ({"base": C1}, 400),
        ({"head": C1}, 400),
        ({}, 400),
        ({"pullid": 7, "base": C1}, 400),
        ({"pullid": 7, "head": C1, "base": C0}, 400),
        ({"pullid": "0"}, 400),
        ({"pullid": "x"}, 400),
        ({"pullid": "99999999999"}, 400),
        ({"base": "zz", "head": C1}, 400),
        ({"base": C2[:7], "head": C1}, 404),  # ambiguous
        ({"base": "f" * 40, "head": C1}, 404),
        ({"pullid": 9}, 404),
    ],
)
def test_compare_bad_input_is_a_4xx_and_changes_nothing(testapp, history, snapshot, params, status) -> None:
    before = snapshot()
    response = testapp.get(f"{REPO}/compare/", params=params, status=status)
    assert response.json["detail"] in ("Invalid query parameters.", "Not found.")
    if status == 400:
        assert response.json["errors"]
    assert snapshot() == before


def test_compare_of_a_pull_whose_base_has_no_coverage(testapp, history, make_lcov) -> None:
    from flask_coverage.ingest import record_commit

    record_commit(history.widgets, "d" * 40, pullid=9, parent="e" * 40)
    body = make_lcov({"a.py": {1: 1}})
    testapp.post(f"/upload/v2?token={history.widgets.upload_token}&commit={'d' * 40}&pr=9", body, status=200)
    response = testapp.get(f"{REPO}/compare/", params={"pullid": 9}, status=404)
    assert response.json == {"detail": "The pull request's base commit has no coverage."}
    assert testapp.get(f"{REPO}/pulls/9/").json["base_totals"] is None


@pytest.mark.parametrize("url", ["totals/", "file_report/src/index.js", f"compare/?base={C0}&head={C0}"])
def test_private_repositories_need_an_activated_member(testapp, history, url) -> None:
    full = f"{API}/repos/secret/{url}"
    for headers in ({}, bearer(history.tokens["mallory"]), bearer(history.tokens["nina"])):
        assert_not_found(testapp.get(full, headers=headers, status=404))
    assert testapp.get(full, headers=bearer(history.tokens["alice"]), status=200)


@pytest.fixture
def dated(history, db):
    """main's commits C0 and C1 on Monday 2026-01-05 10:00 and Tuesday 2026-01-06 12:30 (UTC);
    feature/faster's C2 on 2026-02-20 (set by hand, so the trend's days are rebuilt)."""
    from flask_coverage.models import Commit
    from flask_coverage.queries.trend import refresh_trend

    times = {C0: dt.datetime(2026, 1, 5, 10), C1: dt.datetime(2026, 1, 6, 12, 30), C2: dt.datetime(2026, 2, 20)}
    for commit in db.session.query(Commit).filter(Commit.repository_id == history.widgets.id):
        if commit.sha in times:
            commit.timestamp = times[commit.sha]
    db.session.commit()
    refresh_trend(history.widgets.id)
    return history


def coverage_of(testapp, sha: str) -> float:
    return report(testapp, sha)["totals"]["coverage"]


def test_coverage_trend_per_interval(testapp, dated) -> None:
    c0, c1 = coverage_of(testapp, C0), coverage_of(testapp, C1)
    days = testapp.get(f"{REPO}/coverage/", params={"interval": "1d"}).json
    assert days["count"] == 2
    assert days["results"] == [
        {"timestamp": "2026-01-05T00:00:00+00:00", "min": c0, "max": c0, "avg": c0},
        {"timestamp": "2026-01-06T00:00:00+00:00", "min": c1, "max": c1, "avg": c1},
    ]
    week = testapp.get(f"{REPO}/coverage/", params={"interval": "7d"}).json["results"]
    ratios = [report(testapp, sha)["totals"]["hits"] / report(testapp, sha)["totals"]["lines"] for sha in (C0, C1)]
    mean = int(sum(ratios) / 2 * 10000) / 100
    assert week == [{"timestamp": "2026-01-05T00:00:00+00:00", "min": min(c0, c1), "max": max(c0, c1), "avg": mean}]
    # 30-day bins are counted from Monday 2000-01-03: 2026-01-05 falls in the one from 2025-12-17.
    month = testapp.get(f"{REPO}/coverage/", params={"interval": "30d"}).json["results"]
    assert [m["timestamp"] for m in month] == ["2025-12-17T00:00:00+00:00"]
    assert (dt.date(2025, 12, 17) - dt.date(2000, 1, 3)).days % 30 == 0


def test_coverage_trend_of_a_branch_between_dates(testapp, dated) -> None:
    feature = testapp.get(f"{REPO}/coverage/", params={"interval": "1d", "branch": "feature/faster"}).json
    assert [m["timestamp"] for m in feature["results"]] == ["2026-02-20T00:00:00+00:00"]
    assert feature["results"][0]["max"] == coverage_of(testapp, C2)
    get = lambda **p: testapp.get(f"{REPO}/coverage/", params={"interval": "1d", **p}).json["results"]  # noqa: E731
    assert len(get(start_date="2026-01-05T10:00:00", end_date="2026-01-05T10:00:00")) == 1  # both inclusive
    assert len(get(start_date="2026-01-06")) == 1
    assert len(get(end_date="2026-01-05T09:00:00Z")) == 0
    assert len(get(end_date="2026-01-05T12:00:00+02:00")) == 1  # 10:00 UTC
    assert testapp.get(f"{REPO}/coverage/", params={"interval": "1d", "branch": "nope"}).json["count"] == 0


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"interval": "2d"},
        {"interval": "1D"},
        {"interval": "1d", "start_date": "2026-13-01"},
        {"interval": "1d", "end_date": "yesterday"},
        {"interval": "1d", "start_date": "2026-02-01", "end_date": "2026-01-01"},
        {"interval": "1d", "branch": ""},
        {"interval": "1d", "page_size": "0"},
    ],
)
def test_coverage_trend_bad_input_is_a_400(testapp, dated, snapshot, params) -> None:
    before = snapshot()
    response = testapp.get(f"{REPO}/coverage/", params=params, status=400)
    assert response.json["detail"] == "Invalid query parameters." and response.json["errors"]
    assert snapshot() == before
