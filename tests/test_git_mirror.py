"""What the git mirror answers when a revision from outside (a webhook's ``base_sha``, an uploaded sha,
a branch name) is spelled like one of git's options: it is a revision git does not know, never an
option (flask_coverage/git_mirror.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from flask import Flask

from flask_coverage import git_mirror, operations
from flask_coverage.feedback.diff import parse_diff
from tests.git_history import commit, git


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """A bare mirror of two commits on main: (its path, the first sha, the second sha)."""
    work = str(tmp_path_factory.mktemp("work"))
    git("init", "-q", work, cwd=work)
    first = commit(work, "first", {"app.py": "a = 1\n"})
    second = commit(work, "second", {"app.py": "a = 1\nb = 2\n"})
    bare = str(tmp_path_factory.mktemp("mirrors") / "widgets.git")
    git("clone", "-q", "--mirror", work, bare, cwd=work)
    return bare, first, second


def test_the_mirror_answers_real_revisions(mirror: tuple[str, str, str]) -> None:
    # The same calls as below with real revisions: the refusals below are not a mirror that never answers.
    git_dir, first, second = mirror
    assert git_mirror.merge_base(git_dir, first, second) == first
    assert git_mirror.first_parents(git_dir, second) == [first]
    assert git_mirror.has_commit(git_dir, second)
    assert git_mirror.branch_tip(git_dir, "main") == second
    assert git_mirror.first_file(git_dir, second, ["app.py"], 100) == ("app.py", b"a = 1\nb = 2\n")
    found = git_mirror.diff(git_dir, first, second, parse_diff)
    assert found is not None and found.added == {"app.py": [2]}


@pytest.mark.parametrize(
    "option",
    ["--independent", "--all", "--output={out}", "-h", "--stdin"],
)
def test_a_revision_spelled_as_an_option_is_an_unknown_revision(
    app: Flask, mirror: tuple[str, str, str], tmp_path: Path, option: str
) -> None:
    git_dir, first, second = mirror
    out = tmp_path / "out"
    out.mkdir()
    revision = option.format(out=out / "written")
    # Without --end-of-options: merge-base --independent answered the head as the base, rev-list --all
    # listed every commit, diff --output= wrote the diff to a file of the sender's choosing.
    assert git_mirror.merge_base(git_dir, revision, second) is None
    assert git_mirror.merge_base(git_dir, first, revision) is None
    assert git_mirror.first_parents(git_dir, revision) == []
    assert not git_mirror.has_commit(git_dir, revision)
    assert git_mirror.branch_tip(git_dir, revision) is None
    assert git_mirror.first_file(git_dir, revision, ["app.py"], 100) is None
    assert git_mirror.diff(git_dir, revision, second, parse_diff) is None
    assert git_mirror.diff(git_dir, first, revision, parse_diff) is None
    with app.app_context(), pytest.raises(git_mirror.Unreadable, match="does not have commit"):
        git_mirror.file_at(git_dir, revision, "app.py")
    assert os.listdir(out) == []


def test_an_uploaded_sha_spelled_as_an_option_reads_nothing(
    app: Flask, mirror: tuple[str, str, str], tmp_path: Path
) -> None:
    git_dir, _, second = mirror
    root = tmp_path / "root"
    shutil.copytree(git_dir, root / "github" / "acme" / "widgets.git")
    app.config["COVERAGE_SOURCE_GIT_ROOT"] = str(root)
    with app.app_context():
        operations.add_org("github", "acme")
        repository = operations.add_repo("github", "acme", "widgets")
        assert git_mirror.commit_about(repository, second) == git_mirror.CommitAbout("Test", "second")
        assert git_mirror.mirror_files(repository, second) == ["app.py"]
        written = tmp_path / "written"
        assert git_mirror.commit_about(repository, f"--output={written}") is None
        assert git_mirror.mirror_files(repository, "--help") is None
    assert not written.exists()
