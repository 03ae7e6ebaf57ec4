"""The codecov.yml's ``ignore`` and ``fixes`` applied at upload, over HTTP (docs/pull-requests.md,
"ignore and fixes"): the commit's file in the git mirror, else the repository's stored YAML over the
owner's; a flag's ``paths`` and ``ignore`` for the uploads carrying it; an unreadable or invalid YAML
never fails an upload; what is stored already stays as it was stored; an upload never calls the
provider, whose copy of the commit's file the sender reads for the uploads after it."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.feedback.notify import send_due
from flask_coverage.models import CommitYaml, Upload
from flask_coverage.queries.files import file_totals
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit
from tests.fake_provider import RecordingProvider
from tests.git_history import commit, git, lcov

YAML = "ignore:\n  - docs/\n  - '**/*_test.py'\nfixes:\n  - 'build/::'\n"
# Paths as a build directory writes them: the fix takes build/ off, the ignore drops two of them.
REPORT = lcov(
    {
        "/build/src/app.py": {1: 1, 2: 0},
        "/build/src/app_test.py": {1: 1},
        "/build/docs/conf.py": {1: 1},
        "/build/lib/util.py": {1: 0},
    }
)


@pytest.fixture
def shas(app: Flask, widgets: Any, tmp_path: Path) -> dict[str, str]:
    """A mirror of github/acme/widgets: ``yml`` carries :data:`YAML`, ``plain`` none, ``invalid`` a
    codecov.yml that does not validate."""
    work = str(tmp_path / "work")
    os.makedirs(work)
    git("init", "-q", work, cwd=work)
    found = {"plain": commit(work, "plain", {"README.md": "hi\n"})}
    found["yml"] = commit(work, "yml", {"codecov.yml": YAML})
    found["invalid"] = commit(work, "invalid", {"codecov.yml": "ignore: 3\nfixes: ['build/::']\n"})
    root = tmp_path / "mirrors"
    (root / "github" / "acme").mkdir(parents=True)
    git("clone", "-q", "--mirror", work, str(root / "github" / "acme" / "widgets.git"), cwd=work)
    app.config["COVERAGE_SOURCE_GIT_ROOT"] = str(root)
    return found


def upload(testapp: webtest.TestApp, sha: str, report: bytes = REPORT, **params: str) -> webtest.TestResponse:
    widgets = find_repository("github", "acme", "widgets")
    query = urlencode({"token": widgets.upload_token, "commit": sha, **params})
    return testapp.post(f"/upload/v2?{query}", report, headers={"Content-Type": "text/plain"}, status=200)


def stored(sha: str) -> list[str]:
    widgets = find_repository("github", "acme", "widgets")
    return sorted(row.path for row in file_totals(resolve_commit(widgets, sha=sha)))


def test_the_commits_codecov_yml_fixes_and_ignores_paths(
    testapp: webtest.TestApp, shas: dict[str, str], db: Any
) -> None:
    answer = upload(testapp, shas["yml"])
    assert stored(shas["yml"]) == ["lib/util.py", "src/app.py"]
    assert "2 files the codecov.yml ignores, skipped" in answer.text
    reasons = db.session.execute(db.select(Upload.skip_reasons)).scalar_one()
    assert reasons == {"files the codecov.yml ignores, skipped": 2}
    # The compare and the totals know only what was stored.
    totals = testapp.get(f"/api/v2/github/acme/repos/widgets/totals/?sha={shas['yml']}").json
    assert totals["totals"]["files"] == 2


def test_the_yaml_read_for_the_upload_is_kept_for_the_commit(
    testapp: webtest.TestApp, shas: dict[str, str], app: Flask, db: Any
) -> None:
    upload(testapp, shas["yml"])
    rows = db.session.execute(db.select(CommitYaml)).scalars().all()
    assert [(row.path, row.error) for row in rows] == [("codecov.yml", None)]
    # A second upload reads what was kept: the mirror is not asked again.
    app.config["COVERAGE_SOURCE_GIT_ROOT"] = "/nonexistent"
    upload(testapp, shas["yml"], report=lcov({"/build/docs/index.py": {1: 1}, "/build/src/more.py": {1: 1}}))
    assert stored(shas["yml"]) == ["lib/util.py", "src/app.py", "src/more.py"]


def test_without_a_file_the_repository_yaml_over_the_owners(testapp: webtest.TestApp, shas: dict[str, str]) -> None:
    operations.set_owner_yaml("github", "acme", "ignore: [lib/]\nfixes: ['build/::']\n")
    upload(testapp, shas["plain"])
    assert stored(shas["plain"]) == ["docs/conf.py", "src/app.py", "src/app_test.py"]
    # The repository's YAML replaces the owner's ignore list (a list is replaced, not merged), keeps its fixes.
    operations.set_repository_yaml("github", "acme", "widgets", "ignore: [docs/]\n")
    other = "d" * 40
    upload(testapp, other)
    assert stored(other) == ["lib/util.py", "src/app.py", "src/app_test.py"]


def test_an_invalid_commit_file_is_ignored_whole(testapp: webtest.TestApp, shas: dict[str, str]) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "fixes: ['build/src/::code/']\n")
    upload(testapp, shas["invalid"])
    assert stored(shas["invalid"]) == ["build/docs/conf.py", "build/lib/util.py", "code/app.py", "code/app_test.py"]
    page = testapp.get(f"/gh/acme/widgets/commit/{shas['invalid']}")
    assert "This commit's codecov.yml is ignored: codecov.yml: Error at ['ignore']" in html.unescape(page.text)


def test_a_flags_paths_and_ignore_apply_to_its_uploads(testapp: webtest.TestApp, shas: dict[str, str]) -> None:
    operations.set_repository_yaml(
        "github",
        "acme",
        "widgets",
        "fixes: ['build/::']\n"
        "flag_management:\n  individual_flags:\n    - {name: unit, paths: [src/], ignore: ['**/*_test.py']}\n",
    )
    sha = "e" * 40
    upload(testapp, sha, flags="unit")
    assert stored(sha) == ["src/app.py"]
    upload(testapp, sha, flags="other")  # no rules for this flag: everything
    assert stored(sha) == ["docs/conf.py", "lib/util.py", "src/app.py", "src/app_test.py"]


def test_an_upload_whose_files_are_all_ignored_is_kept_empty(testapp: webtest.TestApp, widgets: Any) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "ignore: ['.*']\n")
    sha = "f" * 40
    answer = upload(testapp, sha)
    assert "4 files the codecov.yml ignores, skipped" in answer.text
    assert stored(sha) == []


class Untouchable(RecordingProvider):
    """A provider configured for the repository that an upload must never call: any call fails the
    test (``pytest.fail`` is not an ``Exception``, so no ``except Exception`` on the way hides it)."""

    def _call(self, name: str, *args: Any) -> None:
        self.calls.append((name, args))
        pytest.fail(f"an upload called the provider: {name}{args}")


@pytest.mark.parametrize("endpoint", ["/upload/v2", "/upload/v4"])
def test_an_upload_never_calls_the_provider(
    testapp: webtest.TestApp, widgets: Any, app: Flask, db: Any, endpoint: str
) -> None:
    provider = Untouchable()
    app.config["COVERAGE_PROVIDERS"] = {"github": provider}
    operations.set_repository_yaml("github", "acme", "widgets", "fixes: ['build/::']\n")
    sha = "a" * 40
    query = urlencode({"token": widgets.upload_token, "commit": sha})
    if endpoint == "/upload/v2":
        testapp.post(f"/upload/v2?{query}", REPORT, headers={"Content-Type": "text/plain"}, status=200)
    else:
        url = urlsplit(testapp.post(f"/upload/v4?{query}", b"", status=200).text.split()[1])
        testapp.put(f"{url.path}?{url.query}", REPORT, status=200)
    # Not local (no mirror, nothing stored): the repository's YAML applies, nothing is kept for the commit.
    assert stored(sha) == ["docs/conf.py", "lib/util.py", "src/app.py", "src/app_test.py"]
    assert db.session.execute(db.select(CommitYaml)).scalars().all() == []
    assert provider.calls == []


def test_the_sender_reads_the_commits_yaml_for_the_uploads_after_it(
    testapp: webtest.TestApp, widgets: Any, app: Flask, db: Any
) -> None:
    app.config.update(COVERAGE_PROVIDERS={"github": Untouchable()}, COVERAGE_FEEDBACK_DELAY=0)
    operations.set_repository_yaml("github", "acme", "widgets", "fixes: ['build/::']\n")
    sha = "a" * 40
    upload(testapp, sha)
    provider = RecordingProvider(files={(sha, "codecov.yml"): b"ignore: [docs/]\nfixes: ['build/::']\n"})
    app.config["COVERAGE_PROVIDERS"] = {"github": provider}
    send_due()
    assert [path for _, path in provider.called("read_file")] == ["codecov.yml"]
    rows = db.session.execute(db.select(CommitYaml)).scalars().all()
    assert [(row.path, row.error) for row in rows] == [("codecov.yml", None)]
    # The next upload reads what the sender kept: its docs/ file is ignored, with no call to the provider.
    app.config["COVERAGE_PROVIDERS"] = {"github": Untouchable()}
    upload(testapp, sha, report=lcov({"/build/docs/more.py": {1: 1}, "/build/src/more.py": {1: 1}}))
    assert stored(sha) == ["docs/conf.py", "lib/util.py", "src/app.py", "src/app_test.py", "src/more.py"]


def test_a_yaml_that_cannot_be_read_at_all_never_fails_the_upload(
    testapp: webtest.TestApp, widgets: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("the provider's settings cannot make a client")

    monkeypatch.setattr("flask_coverage.codecov_yml.settings.local_commit_yaml", broken)
    sha = "c" * 40
    upload(testapp, sha)
    assert stored(sha) == ["build/docs/conf.py", "build/lib/util.py", "build/src/app.py", "build/src/app_test.py"]
    assert "could not be read for its upload" in caplog.text


def test_a_changed_yaml_does_not_rewrite_what_is_stored(testapp: webtest.TestApp, widgets: Any) -> None:
    sha = "b" * 40
    upload(testapp, sha)
    operations.set_repository_yaml("github", "acme", "widgets", "ignore: [docs/]\n")
    assert stored(sha) == ["build/docs/conf.py", "build/lib/util.py", "build/src/app.py", "build/src/app_test.py"]
