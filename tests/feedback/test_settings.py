"""Which codecov.yml applies to a commit: the file at the commit (git mirror or provider), else the
repository's stored YAML, merged over the defaults; an invalid file is ignored and its error shown."""

from __future__ import annotations

from typing import Any

import pytest
import webtest
from flask import Flask

from flask_coverage import operations
from flask_coverage.codecov_yml.settings import commit_settings
from flask_coverage.errors import InvalidInput
from flask_coverage.ingest import upload_report
from flask_coverage.models import CommitYaml
from flask_coverage.providers import ProviderError
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit
from tests.fake_provider import RecordingProvider
from tests.git_history import History, lcov

REPORT = lcov({"app.py": {1: 1, 2: 0}})


def settings_of(sha: str) -> Any:
    repository = find_repository("github", "acme", "widgets")
    return commit_settings(repository, resolve_commit(repository, sha=sha))


def upload(sha: str, **args: Any) -> None:
    upload_report("github/acme/widgets", REPORT, commit=sha, **args)


def test_the_file_at_the_commit_merged_over_the_defaults(mirrored: History) -> None:
    upload(mirrored.yml)
    settings = settings_of(mirrored.yml)
    assert settings.source == "codecov.yml"
    assert settings.error is None
    assert settings.get("coverage", "precision") == 1
    assert settings.get("coverage", "range") == [50.0, 70.0]
    assert settings.get("coverage", "round") == "down"  # a default


def test_dot_github_is_looked_in_when_the_root_has_none(mirrored: History) -> None:
    upload(mirrored.github_yml)
    settings = settings_of(mirrored.github_yml)
    assert (settings.source, settings.get("coverage", "round")) == (".github/codecov.yml", "up")


def test_without_a_file_the_stored_yaml_then_the_defaults(mirrored: History) -> None:
    upload(mirrored.main)
    assert settings_of(mirrored.main).source == "defaults"
    operations.set_repository_yaml("github", "acme", "widgets", "coverage:\n  precision: 3\n")
    settings = settings_of(mirrored.main)
    assert (settings.source, settings.get("coverage", "precision")) == ("repository", 3)


def test_an_invalid_file_is_ignored_whole_and_its_error_shown(mirrored: History, testapp: webtest.TestApp) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "coverage:\n  precision: 3\n")
    upload(mirrored.invalid_yml)
    settings = settings_of(mirrored.invalid_yml)
    assert settings.source == "repository"
    assert settings.get("coverage", "precision") == 3
    assert settings.error == "codecov.yml: Error at ['coverage', 'precision']: must be an integer"
    page = testapp.get(f"/gh/acme/widgets/commit/{mirrored.invalid_yml}")
    assert "This commit's codecov.yml is ignored: codecov.yml: Error at" in page.text
    answer = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{mirrored.invalid_yml}/yaml/").json
    assert answer["source"] == "repository"
    assert answer["error"].startswith("codecov.yml: Error at ['coverage', 'precision']")
    assert answer["yaml"]["coverage"]["precision"] == 3


def test_a_commit_file_is_read_once(mirrored: History, db: Any) -> None:
    upload(mirrored.yml)
    settings_of(mirrored.yml)
    stored = db.session.execute(db.select(CommitYaml)).scalars().all()
    assert [(row.path, row.error) for row in stored] == [("codecov.yml", None)]
    # The mirror is gone: the stored answer is used.
    db.session.remove()
    from flask import current_app

    current_app.config["COVERAGE_SOURCE_GIT_ROOT"] = "/nonexistent"
    assert settings_of(mirrored.yml).get("coverage", "precision") == 1


def test_without_a_mirror_the_provider_is_asked_in_codecov_order(app: Flask, widgets: Any) -> None:
    sha = "a" * 40
    provider = RecordingProvider(files={(sha, "dev/.codecov.yaml"): b"coverage:\n  precision: 0\n"})
    app.config["COVERAGE_PROVIDERS"] = {"github": provider}
    upload(sha)
    settings = settings_of(sha)
    assert (settings.source, settings.get("coverage", "precision")) == ("dev/.codecov.yaml", 0)
    asked = [path for _, path in provider.called("read_file")]
    assert asked == [
        "codecov.yml",
        ".codecov.yml",
        "codecov.yaml",
        ".codecov.yaml",
        "dev/codecov.yml",
        "dev/.codecov.yml",
        "dev/codecov.yaml",
        "dev/.codecov.yaml",
    ]


def test_a_provider_that_fails_is_asked_again_next_time(app: Flask, widgets: Any) -> None:
    sha = "b" * 40
    provider = RecordingProvider(failure=ProviderError("GitHub answered 502", status=502, retry_after=1))
    app.config["COVERAGE_PROVIDERS"] = {"github": provider}
    upload(sha)
    settings = settings_of(sha)
    assert settings.source == "defaults"
    assert settings.error == "The codecov.yml could not be read from the provider: GitHub answered 502"
    provider.failure = None
    provider.files[(sha, "codecov.yml")] = b"coverage: {precision: 4}\n"
    assert settings_of(sha).get("coverage", "precision") == 4


def test_set_yaml_validates_stores_and_sets_the_colour_range(widgets: Any, testapp: webtest.TestApp) -> None:
    with pytest.raises(InvalidInput, match=r"Error at \['coverage', 'range'\]"):
        operations.set_repository_yaml("github", "acme", "widgets", "coverage: {range: 90..10}")
    notes = operations.set_repository_yaml("github", "acme", "widgets", "coverage: {range: 55.5..81}\nslack_app: {}\n")
    assert notes == ["['slack_app']: valid, not acted on by this service"]
    repository = find_repository("github", "acme", "widgets")
    assert (repository.coverage_low, repository.coverage_high) == (55, 81)
    operations.set_repository_yaml("github", "acme", "widgets", "")
    repository = find_repository("github", "acme", "widgets")
    assert (repository.yaml, repository.coverage_low, repository.coverage_high) == (None, None, None)


def test_the_owners_yaml_lies_under_the_repositorys_and_the_commits(
    mirrored: History, testapp: webtest.TestApp
) -> None:
    upload(mirrored.main)
    upload(mirrored.yml)
    operations.set_owner_yaml("github", "acme", "coverage:\n  precision: 4\n  round: nearest\n")
    settings = settings_of(mirrored.main)
    assert (settings.source, settings.get("coverage", "precision")) == ("owner", 4)
    answer = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{mirrored.main}/yaml/").json
    assert (answer["source"], answer["yaml"]["coverage"]["precision"]) == ("owner", 4)
    assert "the owner's stored codecov.yml" in testapp.get(f"/gh/acme/widgets/commit/{mirrored.main}").text
    operations.set_repository_yaml("github", "acme", "widgets", "coverage:\n  precision: 3\n")
    settings = settings_of(mirrored.main)
    assert (settings.source, settings.get("coverage", "precision"), settings.get("coverage", "round")) == (
        "repository",
        3,
        "nearest",  # the owner's, where the repository's says nothing
    )
    settings = settings_of(mirrored.yml)  # the commit's file (precision 1) over the owner's
    assert (settings.source, settings.get("coverage", "precision"), settings.get("coverage", "round")) == (
        "codecov.yml",
        1,
        "nearest",
    )
