"""A real git history for the feedback tests (fixtures in tests/feedback/conftest.py): a bare mirror
of github/acme/widgets where ``main`` moved on after a pull branched from it, the pull has two
pushes, and some commits carry a codecov.yml."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Any


def git(*args: str, cwd: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    command = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"]
    done = subprocess.run([*command, *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)  # noqa: S603
    return done.stdout.strip()


def write(work: str, files: dict[str, str]) -> None:
    for path, text in files.items():
        full = os.path.join(work, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as file:
            file.write(text)


def commit(work: str, message: str, files: dict[str, str]) -> str:
    write(work, files)
    git("add", "-A", cwd=work)
    git("commit", "-qm", message, cwd=work)
    return git("rev-parse", "HEAD", cwd=work)


APP_V1 = "".join(f"line {n}\n" for n in range(1, 11))
# The pull changes lines 3 and 4 and adds 11 and 12 to app.py, and adds new.py (3 lines).
APP_V2 = APP_V1.replace("line 3\n", "line 3 changed\n").replace("line 4\n", "line 4 changed\n") + "line 11\nline 12\n"
NEW_PY = "a = 1\nb = 2\nc = 3\n"


@dataclass(frozen=True)
class History:
    """The mirror ``root`` and the shas: ``base`` (where the pull branched from main), ``main`` (main's
    tip, one commit on), ``first``/``second`` (the pull's pushes), ``yml``/``github_yml``/``invalid_yml``
    (commits on other branches with a codecov.yml at the root, in .github/, and an invalid one)."""

    root: str
    base: str
    main: str
    first: str
    second: str
    yml: str
    github_yml: str
    invalid_yml: str


def lcov(files: dict[str, dict[int, Any]]) -> bytes:
    """An LCOV report: ``{path: {line: hits, or "partial"}}``."""
    out = []
    for path, lines in files.items():
        out.append(f"SF:{path}\n")
        for line, hits in lines.items():
            out.append(f"DA:{line},{1 if hits == 'partial' else hits}\n")
            if hits == "partial":
                out.append(f"BRDA:{line},0,0,-\nBRDA:{line},0,1,1\n")
        out.append("end_of_record\n")
    return "".join(out).encode()
