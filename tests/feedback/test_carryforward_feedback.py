"""Carryforward end to end over HTTP (WebTest) with the recording provider: a base with flags ``unit``
and ``integration`` (both carryforward), a pull head uploading only ``unit``: the head's totals, the
``codecov/project`` status and the comment are those of the base's ``integration`` plus the head's
``unit``; the pages and the API mark ``integration`` as carried; a later ``integration`` upload replaces it."""

from __future__ import annotations

from decimal import Decimal
from urllib.parse import urlencode

import pytest
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.feedback.comment import CommentFacts, FlagRow, render
from flask_coverage.lines import Totals
from flask_coverage.parsers import merge_by_path, parse_report
from flask_coverage.providers import PullInfo
from tests.fake_provider import RecordingProvider
from tests.feedback.test_delivery import send_all
from tests.git_history import History, lcov

BASE_UNIT = lcov({"app.py": {1: 1, 2: 1, 3: 0, 4: 1}})
BASE_INTEGRATION = lcov({"app.py": {5: 1, 6: 1, 7: 0, 8: 1, 9: 1, 10: 1}, "other.py": {1: 0}})
HEAD_UNIT = lcov({"app.py": {1: 1, 3: 1, 4: 0, 5: 1, 11: 1, 12: 1}})
HEAD_INTEGRATION = lcov({"app.py": {2: 1, 11: 0}, "other.py": {1: 1}})
YAML = """\
flags:
  unit: {carryforward: true}
  integration:
    carryforward: true
    statuses: [{type: project, name_prefix: "flag-", carryforward_behavior: pass}]
comment:
  layout: "header, diff, flags, files"
  show_carryforward_flags: true
"""


def totals(*reports: bytes) -> Totals:
    """The reports merged, by the parsers alone (no database)."""
    files = merge_by_path(parsed for report in reports for parsed in parse_report(report))
    return sum((lines.totals() for lines in files.values()), Totals())


def percent(value: Totals) -> str:
    return str((Decimal(value.hits) * 100 / Decimal(value.lines)).quantize(Decimal("0.01"), rounding="ROUND_DOWN"))


@pytest.fixture
def provider(app: Flask, mirrored: History) -> RecordingProvider:
    fake = RecordingProvider(
        pulls={7: PullInfo(7, "open", "A change", "main", mirrored.base, "feature", mirrored.first)}
    )
    app.config.update(
        COVERAGE_PROVIDERS={"github": fake},
        COVERAGE_FEEDBACK_SENDER=False,
        COVERAGE_FEEDBACK_DELAY=0,
        COVERAGE_PUBLIC_URL="https://coverage.example.com",
    )
    operations.set_repository_yaml("github", "acme", "widgets", YAML)
    return fake


def post(testapp: webtest.TestApp, report: bytes, **query: str) -> None:
    token = operations.require_repository("github", "acme", "widgets").upload_token
    testapp.post(f"/upload/v2?{urlencode({'token': token, **query})}", report, status=200)


def test_a_pull_head_uploading_one_flag_carries_the_other_until_it_is_uploaded(
    testapp: webtest.TestApp, mirrored: History, provider: RecordingProvider
) -> None:
    base, head = mirrored.base, mirrored.first
    post(testapp, BASE_UNIT, commit=base, branch="main", flags="unit")
    post(testapp, BASE_INTEGRATION, commit=base, branch="main", flags="integration")
    send_all()
    post(testapp, HEAD_UNIT, commit=head, branch="feature", pr="7", parent=base, flags="unit")
    send_all()

    expected, base_totals = totals(HEAD_UNIT, BASE_INTEGRATION), totals(BASE_UNIT, BASE_INTEGRATION)
    api = f"/api/v2/github/acme/repos/widgets/totals/?sha={head}"
    assert (
        Totals(**{key: testapp.get(api).json["totals"][key] for key in ("lines", "hits", "misses", "partials")})
        == expected
    )
    project = provider.statuses[(head, "codecov/project")]["description"]
    assert project.startswith(f"{percent(expected)}% ")
    flag_status = provider.statuses[(head, "codecov/project/flag-integration")]
    assert flag_status["state"] == "success"
    assert flag_status["description"].endswith("[Auto passed due to carriedforward or missing coverage]")
    ((_, (_, body)),) = provider.comments.items()
    assert f"{percent(expected)}%" in body and f"{percent(base_totals)}%" in body
    integration_row = next(line for line in body.splitlines() if line.startswith("| integration |"))
    assert f"Carriedforward from `{base[:7]}`" in integration_row
    unit_row = next(line for line in body.splitlines() if line.startswith("| unit |"))
    assert "Carriedforward" not in unit_row
    assert "uses carry forward flags" in body

    page = testapp.get("/gh/acme/widgets/pull/7").text
    assert "(carried forward)" in page and page.count("coverage-carried") == 1
    uploads = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{head}/uploads/").json["results"]
    kinds = sorted((upload["flags"], upload["upload_type"], upload["carriedforward_from"]) for upload in uploads)
    assert kinds == [(["integration"], "carriedforward", base), (["unit"], "uploaded", None)]

    # The integration tests run on the head too: their upload replaces what was carried.
    post(testapp, HEAD_INTEGRATION, commit=head, branch="feature", pr="7", parent=base, flags="integration")
    send_all()
    expected = totals(HEAD_UNIT, HEAD_INTEGRATION)
    assert (
        Totals(**{key: testapp.get(api).json["totals"][key] for key in ("lines", "hits", "misses", "partials")})
        == expected
    )
    assert provider.statuses[(head, "codecov/project")]["description"].startswith(f"{percent(expected)}% ")
    assert "Auto passed" not in provider.statuses[(head, "codecov/project/flag-integration")]["description"]
    ((_, (_, body)),) = provider.comments.items()
    assert "Carriedforward" not in body and "carry forward" not in body
    assert "coverage-carried" not in testapp.get("/gh/acme/widgets/pull/7").text
    uploads = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{head}/uploads/").json["results"]
    assert sorted(upload["upload_type"] for upload in uploads) == ["uploaded", "uploaded"]


def test_the_comment_leaves_carried_flags_out_unless_asked_to_show_them() -> None:
    unit = FlagRow("unit", Totals.from_counts(9, 1, 0), Totals.from_counts(8, 2, 0), None)
    carried = FlagRow(
        "integration", Totals.from_counts(5, 5, 0), Totals.from_counts(5, 5, 0), None, carried_from="ab" * 20
    )
    facts = CommentFacts(
        pull_url="https://coverage.example.com/gh/acme/widgets/pull/7",
        file_url=lambda path: path,
        pullid=7,
        head_sha="1" * 40,
        base_sha="ab" * 20,
        head=Totals.from_counts(14, 6, 0),
        base=Totals.from_counts(13, 7, 0),
        head_files=2,
        base_files=2,
        patch=None,
        flags=[carried, unit],
    )
    hidden = render(facts, ["flags"])
    assert "| unit |" in hidden and "| integration |" not in hidden
    assert "Flags with carried forward coverage won't be shown." in hidden
    shown = render(facts, ["flags"], show_carryforward_flags=True)
    assert "| integration | `50.00% (ø)` | Carriedforward from `abababa` |" in shown
    assert "| unit |" in shown and "This pull request uses carry forward flags." in shown
