"""Which of Python 3.9-3.13 the test environments can run on: each ``python3.X`` on ``PATH`` is run
(``python3.X --version``), since a name on ``PATH`` may be a shim that fails (pyenv's, for a version that
is installed but not selected). ``tox -e interpreters`` prints it; ``.ci/run`` runs it with ``--require``,
which exits 1 when any is missing, so that CI never passes having tested less than the README says.

With ``--skips DIR`` it also prints what the test environments skipped and why (each writes
``DIR/<env>.txt``: tests/conftest.py), then removes those files: the last lines of ``tox p`` say what this
machine did not test (no Chromium, no Node.js, no C compiler, no PostgreSQL)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

VERSIONS = [f"3.{minor}" for minor in range(9, 14)]


def check(version: str) -> str | None:
    """Why ``python<version>`` cannot run the tests, or ``None`` if it runs and is that version."""
    name = f"python{version}"
    if shutil.which(name) is None:
        return "not on PATH"
    try:
        done = subprocess.run(  # noqa: S603 - a fixed argv of our own
            [name, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"does not run: {error}"
    said = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        return f"fails: {said.splitlines()[0] if said else f'exit status {done.returncode}'}"
    if not said.startswith(f"Python {version}."):
        return f"is not Python {version}: {said!r}"
    return None


def main(argv: list[str]) -> int:
    problems = {version: check(version) for version in VERSIONS}
    working = [f"python{version}" for version, problem in problems.items() if problem is None]
    missing = [f"python{version} ({problem})" for version, problem in problems.items() if problem is not None]
    print("Pythons that run, so tested:", ", ".join(working) or "none")
    print("Pythons not on PATH or not working, so not tested:", "; ".join(missing) or "none")
    if "--skips" in argv:
        for written in sorted(Path(argv[argv.index("--skips") + 1]).glob("*.txt")):
            for line in written.read_text().splitlines():
                print(f"{written.stem}: {line}")
            written.unlink()
    return 1 if missing and "--require" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
