"""The test command tells the truth about its Pythons (tox.ini, .ci/interpreters.py): an environment that
names a Python runs on it or is skipped, and a name on PATH that does not run (a pyenv shim) counts as missing."""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "interpreters.py"


def fake(directory: Path, name: str, script: str) -> None:
    path = directory / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)


def run(path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": str(path)}
    command = [sys.executable, str(SCRIPT), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)  # noqa: S603 - our own script


def test_a_failing_shim_on_path_is_named_as_not_tested(tmp_path: Path) -> None:
    # pyenv's shim for a version that is installed but not selected: on PATH, and it fails.
    fake(tmp_path, "python3.9", 'echo "pyenv: python3.9: command not found" >&2; exit 127')
    fake(tmp_path, "python3.11", 'echo "Python 3.11.7"')
    fake(tmp_path, "python3.12", 'echo "Python 3.11.7"')  # a link to another version
    fake(tmp_path, "python3.13", 'echo "Python 3.13.0"')
    result = run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Pythons that run, so tested: python3.11, python3.13",
        "Pythons not on PATH or not working, so not tested: python3.9 (fails: pyenv: python3.9: command not found);"
        " python3.10 (not on PATH); python3.12 (is not Python 3.12: 'Python 3.11.7')",
    ]
    # CI asks for every one: a missing Python fails the run.
    assert run(tmp_path, "--require").returncode == 1


def test_with_every_python_working_nothing_is_skipped(tmp_path: Path) -> None:
    for minor in range(9, 14):
        fake(tmp_path, f"python3.{minor}", f'echo "Python 3.{minor}.1"')
    result = run(tmp_path, "--require")
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1] == "Pythons not on PATH or not working, so not tested: none"


def test_the_environments_that_name_a_python_have_no_fallback() -> None:
    # With a list (python3.9, python3.10, python3.11), a missing 3.9 ran "minimum" on 3.11 and said OK.
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini")
    assert tox["testenv:minimum"]["base_python"].strip() == "python3.9"
    assert tox["testenv:latest"]["base_python"].strip() == "python3.13"
    assert tox["tox"]["skip_missing_interpreters"].strip() == "true"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 .ci/interpreters.py --require" in ci
    assert "--skip-missing-interpreters false" in ci


def pytest_run(*args: str, **env: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(command, capture_output=True, text=True, env=environ, cwd=ROOT, check=False)  # noqa: S603


def test_tests_whose_tools_are_missing_skip_naming_them_and_the_last_lines_say_so(tmp_path: Path) -> None:
    # A bare machine: no Chromium, no Node.js (PATH holds neither). The browser and clients tests skip,
    # and say why.
    skips = tmp_path / "skips"
    nowhere, bare_path = str(tmp_path / "no-chromium"), str(tmp_path / "bin")
    (tmp_path / "bin").mkdir()
    files = ["tests/browser/test_browser_badges.py", "tests/test_real_uploaders.py"]
    tools = dict(CHROMIUM_PATH=nowhere, PATH=bare_path, COVERAGE_TEST_TOOLS="")
    skipped = pytest_run("-m", "browser or clients", *files, COVERAGE_TEST_SKIPS=str(skips / "tools.txt"), **tools)
    assert skipped.returncode == 0, skipped.stdout
    lines = run(tmp_path / "bin", "--skips", str(skips)).stdout.splitlines()[2:]
    assert len(lines) == 2, lines
    assert lines[0].startswith("tools: ") and f"skipped: no Chromium at {nowhere} (set CHROMIUM_PATH)" in lines[0]
    assert lines[1].startswith("tools: ") and "skipped: no node or npm on PATH" in lines[1]
    assert not list(skips.glob("*.txt"))  # printed once: the next run does not repeat them
    # CI has them all: there a missing one fails.
    required = pytest_run("-m", "browser or clients", *files, **{**tools, "COVERAGE_TEST_TOOLS": "required"})
    assert required.returncode == 1
    assert f"no Chromium at {nowhere}" in required.stdout and "no node or npm on PATH" in required.stdout
