"""GET {api}/{service}/{owner}/repos/{repo}/flags/ and ?flag= on the report API."""

from __future__ import annotations

from typing import Any, Callable

import schemathesis
import webtest
from flask import Flask
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from flask_coverage import operations
from flask_coverage.ingest import UploadMeta, upload_report
from flask_coverage.lines import Totals
from flask_coverage.models import Repository
from flask_coverage.queries.targets import find_flag, resolve_commit

# No 500, and every status, content type, header and body as the document says.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

URL = "/api/v2/github/acme/repos/widgets/flags/"
REPORT = "/api/v2/github/acme/repos/widgets/report/"
SHA_MAIN = "a" * 40
SHA_FEATURE = "b" * 40


def coverage_of(repository: Repository, sha: str, flag: str) -> float:
    row = find_flag(resolve_commit(repository, sha=sha), flag)
    assert row is not None
    return Totals(row.lines, row.hits, row.misses, row.partials).coverage


def test_flags_and_their_coverage(
    testapp: webtest.TestApp, widgets: Repository, make_lcov: Callable[..., bytes]
) -> None:
    unit = make_lcov({"a.py": {1: 1, 2: 0, 3: 1}})
    integration = make_lcov({"a.py": {2: 1}, "b.py": {1: 0}})
    upload_report(widgets, unit, commit=SHA_MAIN, branch="main", meta=UploadMeta.create(flags="unit"))
    upload_report(widgets, integration, commit=SHA_MAIN, branch="main", meta=UploadMeta.create(flags="integration"))
    upload_report(widgets, unit, commit=SHA_FEATURE, branch="feature", meta=UploadMeta.create(flags="unit"))
    body = testapp.get(URL).json
    assert body["count"] == 2 and body["next"] is None and body["previous"] is None
    assert body["results"] == [
        {"flag_name": "integration", "coverage": 50.0},
        {"flag_name": "unit", "coverage": 66.66},
    ]
    assert body["results"][1]["coverage"] == coverage_of(widgets, SHA_MAIN, "unit")
    feature = testapp.get(URL, {"branch": "feature"}).json["results"]
    assert feature == [{"flag_name": "integration", "coverage": None}, {"flag_name": "unit", "coverage": 66.66}]
    assert testapp.get(URL, {"sha": SHA_FEATURE[:8]}).json["results"] == feature
    for query in ({"sha": "c" * 40}, {"branch": "nope"}):
        assert testapp.get(URL, query, status=404).json == {"detail": "Not found."}
    testapp.get(URL, {"sha": "xyz"}, status=400)

    # The report of one flag: its files, its lines, its totals; an unknown flag is an empty report.
    report = testapp.get(REPORT, {"flag": "integration"}).json
    assert [f["name"] for f in report["files"]] == ["a.py", "b.py"]
    assert report["totals"]["coverage"] == 50.0 and report["totals"]["lines"] == 2
    assert testapp.get(REPORT, {"flag": "unit", "branch": "feature"}).json["totals"]["coverage"] == 66.66
    merged = testapp.get(REPORT).json
    assert testapp.get(REPORT, {"flag": ""}).json == merged
    empty = testapp.get(REPORT, {"flag": "e2e"}).json
    assert empty["files"] == [] and empty["totals"]["lines"] == 0
    assert empty["commit_file_url"] == merged["commit_file_url"]
    for bad in ("no way", "a" * 46, "é"):
        assert "flag" in testapp.get(REPORT, {"flag": bad}, status=400).json["errors"]


def test_the_flags_list_paginates(
    testapp: webtest.TestApp, widgets: Repository, make_lcov: Callable[..., bytes]
) -> None:
    names = [f"job-{n:02d}" for n in range(25)]
    upload_report(
        widgets, make_lcov({"a.py": {1: 1}}), commit=SHA_MAIN, branch="main", meta=UploadMeta.create(flags=names)
    )
    seen: list[str] = []
    url = f"{URL}?page_size=10"
    while url:
        page = testapp.get(url).json
        assert page["count"] == 25 and page["total_pages"] == 3
        seen += [row["flag_name"] for row in page["results"]]
        assert all(row["coverage"] == 100.0 for row in page["results"])
        url = page["next"]
    assert seen == names
    testapp.get(URL, {"page": 4, "page_size": 10}, status=404)
    assert testapp.get(URL, {"page": 3, "page_size": 10}).json["previous"].endswith(f"{URL}?page=2&page_size=10")


def test_who_sees_the_flags(testapp: webtest.TestApp, widgets: Repository, make_lcov: Callable[..., bytes]) -> None:
    secret = operations.add_repo("github", "acme", "secret", private=True)
    upload_report(
        secret, make_lcov({"a.py": {1: 1}}), commit=SHA_MAIN, branch="main", meta=UploadMeta.create(flags="unit")
    )
    hidden = testapp.get("/api/v2/github/acme/repos/secret/flags/", status=404).json
    assert hidden == testapp.get("/api/v2/github/acme/repos/nothing/flags/", status=404).json
    # No upload yet: an empty list, page 1 included.
    assert testapp.get(URL).json == {"count": 0, "next": None, "previous": None, "total_pages": 1, "results": []}


def test_the_flags_list_is_in_the_openapi_document(
    testapp: webtest.TestApp, app: Flask, widgets: Repository, make_lcov: Callable[..., bytes]
) -> None:
    document = testapp.get("/api/v2/openapi.json").json
    validate(document)
    operation = document["paths"]["/api/v2/{service}/{owner_username}/repos/{repo}/flags/"]["get"]
    assert operation["operationId"] == "repos_flags_list" and operation["tags"] == ["Flags"]
    report = document["paths"]["/api/v2/{service}/{owner_username}/repos/{repo}/report/"]["get"]
    assert "flag" in {parameter["name"] for parameter in report["parameters"]}
    upload_report(
        widgets, make_lcov({"a.py": {1: 1, 2: 0}}), commit=SHA_MAIN, branch="main", meta=UploadMeta.create(flags="unit")
    )
    schema = schemathesis.openapi.from_wsgi("/api/v2/openapi.json", app)
    operation = schema["/api/v2/{service}/{owner_username}/repos/{repo}/flags/"]["GET"]
    statuses: set[int] = set()

    # The real repository's list and an unknown repository are always among the examples; the draws add
    # the rest (the same ones on every run, tests/conftest.py).
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(), real=st.booleans())
    @example(case=operation.Case(path_parameters={}, query={}), real=True)
    @example(case=operation.Case(path_parameters={"service": "github", "owner_username": "x", "repo": "y"}), real=False)
    def check(case: Any, real: bool) -> None:
        if real:
            case.path_parameters = {"service": "github", "owner_username": "acme", "repo": "widgets"}
        statuses.add(case.call_and_validate(checks=CHECKS).status_code)

    check()
    assert {200, 404} <= statuses
    assert testapp.get(URL).json["results"] == [{"flag_name": "unit", "coverage": 50.0}]
