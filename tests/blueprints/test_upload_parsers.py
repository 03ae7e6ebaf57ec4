"""The codecov.yml's ``parsers:`` settings acted on at upload (docs/parsing.md, "parsers: settings"):
each key changes what an upload of a real tool's report stores, as Codecov's does; the YAML is the one
in force at the uploaded commit (the repository's here, the commit's own file in the git mirror in
tests/feedback/test_upload_yaml.py's way)."""

from __future__ import annotations

import os

import pytest

from flask_coverage import operations
from flask_coverage.queries.targets import resolve_commit
from tests.blueprints.test_upload_formats import envelope, stored
from tests.git_history import commit, git

JAVA = "java/src/com/example/shapes/Shapes.java"
# (codecov.yml, report, path, what Codecov's defaults store, what the key makes it store):
# (lines, hits, misses, partials).
CASES = [
    ("javascript: {enable_partials: true}", "js/coverage-final.json", "js/shapes.js", (12, 8, 4, 0), (12, 6, 4, 2)),
    ("cobertura: {partials_as_hits: true}", "js/cobertura-coverage.xml", "js/shapes.js", (12, 6, 4, 2), (12, 8, 4, 0)),
    ("go: {partials_as_hits: true}", "go/cover-count.out", "shapes.go", (23, 11, 9, 3), (23, 14, 9, 0)),
    ("jacoco: {partials_as_hits: true}", "java/jacoco.xml", JAVA, (14, 5, 6, 3), (14, 8, 6, 0)),
    ("gcov: {branch_detection: {conditional: false, loop: false}}", "c/shapes.c.gcov", "c/shapes.c", None, None),
]  # fmt: skip


@pytest.mark.parametrize(("yaml", "report", "path", "default", "changed"), CASES)
def test_each_parsers_key_changes_what_an_upload_stores(testapp, widgets, yaml, report, path, default, changed):
    url = "/upload/v2?commit={}&token=" + widgets.upload_token
    testapp.post(url.format("a" * 40), envelope(report), headers={"Content-Type": "text/plain"})
    operations.set_repository_yaml("github", "acme", "widgets", f"parsers:\n  {yaml}\n")
    testapp.post(url.format("b" * 40), envelope(report), headers={"Content-Type": "text/plain"})
    before, after = (stored(resolve_commit(widgets, sha=sha))[path] for sha in ("a" * 40, "b" * 40))
    if default is None:  # gcov: no line's branches decide, so the partial lines are hits
        assert before[3] > 0 and after == (before[0], before[1] + before[3], before[2], 0)
    else:
        assert (before, after) == (default, changed)


def test_the_parsers_settings_are_the_uploaded_commits(testapp, widgets, app, tmp_path):
    # The commit's own codecov.yml (in the git mirror) decides, over the repository's.
    work = str(tmp_path / "work")
    os.makedirs(work)
    git("init", "-q", work, cwd=work)
    own = commit(work, "yml", {"codecov.yml": "parsers:\n  go:\n    partials_as_hits: true\n"})
    mirrors = tmp_path / "mirrors"
    (mirrors / "github" / "acme").mkdir(parents=True)
    git("clone", "-q", "--mirror", work, str(mirrors / "github" / "acme" / "widgets.git"), cwd=work)
    app.config["COVERAGE_SOURCE_GIT_ROOT"] = str(mirrors)
    operations.set_repository_yaml("github", "acme", "widgets", "parsers:\n  go:\n    partials_as_hits: false\n")
    url = f"/upload/v2?commit={own}&token={widgets.upload_token}"
    testapp.post(url, envelope("go/cover-count.out"), headers={"Content-Type": "text/plain"})
    assert stored(resolve_commit(widgets, sha=own))["shapes.go"] == (23, 14, 9, 0)


def test_the_service_drops_gcovs_starred_lines_when_configured(testapp, widgets, app):
    # COVERAGE_GCOV_UNEXECUTED_BLOCKS = False restores Codecov's reading of gcc 8's "1*" lines.
    report = (
        b"        -:    0:Source:c/shapes.c\n        1:    1:int f(void) {\n       2*:    2:    return g() || h();\n"
    )
    url = "/upload/v2?commit={}&token=" + widgets.upload_token
    testapp.post(url.format("c" * 40), report, headers={"Content-Type": "text/plain"})
    app.config["COVERAGE_GCOV_UNEXECUTED_BLOCKS"] = False
    testapp.post(url.format("d" * 40), report, headers={"Content-Type": "text/plain"})
    assert stored(resolve_commit(widgets, sha="c" * 40))["c/shapes.c"] == (2, 2, 0, 0)
    assert stored(resolve_commit(widgets, sha="d" * 40))["c/shapes.c"] == (1, 1, 0, 0)
