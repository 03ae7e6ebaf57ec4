"""The feedback tests' git history (tests/git_history.py) as fixtures."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from flask import Flask

from flask_coverage import operations
from tests.git_history import APP_V1, APP_V2, NEW_PY, History, commit, git


@pytest.fixture(scope="session")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    work = str(tmp_path_factory.mktemp("history-work"))
    git("init", "-q", work, cwd=work)
    base = commit(work, "base", {"app.py": APP_V1, "other.py": "x = 1\n"})
    main = commit(work, "main moves on", {"other.py": "x = 1\ny = 2\n"})
    git("checkout", "-q", "-b", "feature", base, cwd=work)
    first = commit(work, "first push", {"app.py": APP_V2})
    second = commit(work, "second push", {"new.py": NEW_PY})
    git("checkout", "-q", "-b", "yaml", main, cwd=work)
    yml = commit(work, "yml", {"codecov.yml": "coverage:\n  precision: 1\n  range: 50..70\n"})
    os.remove(os.path.join(work, "codecov.yml"))
    github_yml = commit(work, "github", {".github/codecov.yml": "coverage:\n  round: up\n"})
    invalid_yml = commit(work, "invalid", {"codecov.yml": "coverage:\n  precision: many\n"})
    git("checkout", "-q", "main", cwd=work)
    root = tmp_path_factory.mktemp("history-mirrors")
    (root / "github" / "acme").mkdir(parents=True)
    git("clone", "-q", "--mirror", work, str(root / "github" / "acme" / "widgets.git"), cwd=work)
    return History(str(root), base, main, first, second, yml, github_yml, invalid_yml)


@pytest.fixture
def mirrored(app: Flask, history: History, tmp_path: Path) -> History:
    """``app`` with a copy of the mirror under ``COVERAGE_SOURCE_GIT_ROOT`` and github/acme/widgets."""
    root = tmp_path / "mirrors"
    shutil.copytree(history.root, root)
    app.config["COVERAGE_SOURCE_GIT_ROOT"] = str(root)
    operations.add_org("github", "acme")
    operations.add_repo("github", "acme", "widgets")
    return History(str(root), *(getattr(history, name) for name in list(History.__dataclass_fields__)[1:]))
