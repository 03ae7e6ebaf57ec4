"""What the git mirror (``COVERAGE_SOURCE_GIT_ROOT``, docs/web.md) answers for feedback: whether it
has a commit, the merge base of two commits, a branch's tip, the added lines of a diff. Every
function answers ``None`` when the mirror cannot (no mirror, an unknown commit, out of time), so
callers fall back to the provider; none raises for a git failure.
"""

from __future__ import annotations

import os
import subprocess
import threading
from typing import Optional

from ..sources import _git
from .diff import Diff, parse_diff

#: A merge base answers within this many seconds; a diff of a big pull within ``DIFF_SECONDS``.
GIT_SECONDS = 10
DIFF_SECONDS = 60
_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_NO_REPLACE_OBJECTS": "1"}


def _answer(git_dir: str, *args: str, timeout: float = GIT_SECONDS) -> Optional[bytes]:
    try:
        done = _git(git_dir, *args, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return done.stdout if done.returncode == 0 else None


def has_commit(git_dir: str, sha: str) -> bool:
    return _answer(git_dir, "cat-file", "-e", f"{sha}^{{commit}}") is not None


def merge_base(git_dir: str, one: str, other: str) -> Optional[str]:
    """The best common ancestor of two commits (or branch names), or ``None``."""
    found = _answer(git_dir, "merge-base", one, other)
    return found.decode().strip() or None if found else None


def first_parents(git_dir: str, sha: str, limit: int = 1000) -> list[str]:
    """``sha``'s ancestors along first parents, nearest first (at most ``limit``)."""
    found = _answer(git_dir, "rev-list", "--first-parent", f"--max-count={limit + 1}", sha)
    return found.decode().split()[1:] if found else []


def branch_tip(git_dir: str, branch: str) -> Optional[str]:
    """The sha of ``refs/heads/<branch>`` in the mirror, or ``None``."""
    found = _answer(git_dir, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}")
    return found.decode().strip() if found else None


def diff(git_dir: str, base: str, head: str) -> Optional[Diff]:
    """The lines ``head`` adds over ``base...head`` (by their numbers in ``head``) and those it
    removes, or ``None`` if the mirror cannot tell. Read as git writes it, with no context lines and
    renames found, so a moved file adds only its changed lines."""
    command = [
        "git",
        "-c",
        f"safe.directory={git_dir}",
        "-c",
        "core.quotePath=false",
        f"--git-dir={git_dir}",
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "-M",
        "-U0",
        f"{base}...{head}",
        "--",
    ]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **_ENV}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env) as process:  # noqa: S603
        # A git that hangs mid-diff is killed: its output ends and the answer is None.
        timer = threading.Timer(DIFF_SECONDS, process.kill)
        timer.start()
        try:
            found = parse_diff(process.stdout or ())
            process.wait()
        finally:
            timer.cancel()
    return found if process.returncode == 0 else None
