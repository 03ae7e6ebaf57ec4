"""``GET .../repos/{repo}/components/``: the components of ``codecov.yml`` and their coverage (docs/api.md),
against totals computed here from the uploaded reports."""

from __future__ import annotations

import math
import random
import re

import pytest

from flask_coverage import operations
from flask_coverage.ingest import upload_report
from flask_coverage.ingest.target import UploadMeta

REPO = "/api/v2/github/acme/repos/widgets"
SHA = "c0" * 20
NOT_FOUND = {"detail": "Not found."}

YAML = """
component_management:
  default_rules:
    statuses: []
  individual_components:
    - component_id: app_folder
      name: App
      paths: ["src/app/"]
    - component_id: ap_prefix
      paths: ["src/ap", "src/app/core/"]
    - component_id: two_folders
      paths: ["src/lib/", "tests/"]
    - component_id: python_glob
      name: Python
      paths: ["src/**/*.py", "!src/app/**"]
    - component_id: regex
      paths: ["^src/(lib|apple)/.*_util\\\\.c$"]
    - component_id: nothing
      name: Nothing
      paths: ["vendor/", "docs/**/*.md"]
    - component_id: everything
    - component_id: unit_only
      flag_regexes: ["^unit$"]
      paths: ["src/"]
"""


def reference(files: dict[str, dict[int, int]], wanted) -> float | None:
    """The coverage of the files ``wanted(path)`` selects, computed here from the report's lines."""
    lines = hits = 0
    for path, counts in files.items():
        if wanted(path):
            lines += len(counts)
            hits += sum(1 for count in counts.values() if count > 0)
    return math.floor(hits * 10000 // lines) / 100 if lines else None


@pytest.fixture
def uploaded(widgets, make_lcov) -> dict[str, dict[str, dict[int, int]]]:
    """Two uploads of one commit of main, ``unit`` and ``e2e``, over random files of several folders."""
    rng = random.Random(38)
    folders = ["src/app", "src/app/core", "src/apple", "src/lib", "src/lib/deep", "tests", "", "scripts"]
    names = ["main.py", "util.py", "x_util.c", "core.js", "apex.py"]
    paths = [f"{folder}/{name}" if folder else name for folder in folders for name in rng.sample(names, 3)]
    uploads = {}
    for flag in ("unit", "e2e"):
        # The same paths in both (a path one upload alone has could be matched to another by its name).
        files = {path: {line: rng.choice([0, 1, 3]) for line in range(1, rng.randrange(2, 30))} for path in paths}
        uploads[flag] = files
        upload_report(widgets, make_lcov(files), commit=SHA, branch="main", meta=UploadMeta(flags=(flag,)))
    operations.set_repository_yaml("github", "acme", "widgets", YAML)
    return uploads


def merged(uploads) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for files in uploads.values():
        for path, counts in files.items():
            target = out.setdefault(path, {})
            for line, count in counts.items():
                target[line] = max(target.get(line, 0), count)
    return out


def test_each_component_s_coverage_matches_the_reports(testapp, uploaded) -> None:
    files = merged(uploaded)
    glob = re.compile(r"src/.*\.py")
    expected = {
        "app_folder": reference(files, lambda p: p.startswith("src/app/")),
        "ap_prefix": reference(files, lambda p: p.startswith("src/ap")),
        "two_folders": reference(files, lambda p: p.startswith(("src/lib/", "tests/"))),
        "python_glob": reference(files, lambda p: glob.fullmatch(p) is not None and not p.startswith("src/app/")),
        "regex": reference(files, lambda p: re.match(r"^src/(lib|apple)/.*_util\.c$", p) is not None),
        "nothing": None,
        "everything": reference(files, lambda p: True),
        "unit_only": reference(uploaded["unit"], lambda p: p.startswith("src/")),
    }
    body = testapp.get(f"{REPO}/components/").json
    assert set(body) == {"count", "next", "previous", "total_pages", "results"}
    assert body["count"] == len(expected)
    assert [c["component_id"] for c in body["results"]] == list(expected)  # the YAML's order
    assert {c["component_id"]: c["coverage"] for c in body["results"]} == expected
    names = {c["component_id"]: c["name"] for c in body["results"]}
    assert (names["app_folder"], names["nothing"], names["regex"]) == ("App", "Nothing", "regex")
    assert all(value is not None for key, value in expected.items() if key != "nothing")
    # The same by sha and by branch.
    assert testapp.get(f"{REPO}/components/", params={"sha": SHA}).json == body
    assert testapp.get(f"{REPO}/components/", params={"branch": "main"}).json == body


def test_pages_and_404s(testapp, uploaded) -> None:
    whole = testapp.get(f"{REPO}/components/").json["results"]
    seen, page = [], testapp.get(f"{REPO}/components/", params={"page_size": 3}).json
    while True:
        seen += page["results"]
        if page["next"] is None:
            break
        page = testapp.get(page["next"]).json
    assert seen == whole
    assert testapp.get(f"{REPO}/components/?page=9", status=404).json == {"detail": "Invalid page."}
    for url in [
        f"{REPO}/components/?sha={'d' * 40}",
        f"{REPO}/components/?branch=nowhere",
        "/api/v2/github/acme/repos/nothing/components/",
    ]:
        assert testapp.get(url, status=404).json == NOT_FOUND
    operations.set_repo("github", "acme", "widgets", private=True)
    assert testapp.get(f"{REPO}/components/", status=404).json == NOT_FOUND
    assert testapp.get(f"{REPO}/components/?page=0", status=404).json == NOT_FOUND  # the 404 before the 400


def test_no_components_is_an_empty_list(testapp, widgets, make_lcov) -> None:
    upload_report(widgets, make_lcov({"a.py": {1: 1}}), commit=SHA, branch="main")
    assert testapp.get(f"{REPO}/components/").json["results"] == []


def test_in_the_openapi_document(testapp) -> None:
    paths = testapp.get("/api/v2/openapi.json").json["paths"]
    operation = paths["/api/v2/{service}/{owner_username}/repos/{repo}/components/"]["get"]
    assert operation["operationId"] == "repos_components_list" and operation["tags"] == ["Components"]
