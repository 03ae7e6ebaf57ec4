"""The git mirror (``COVERAGE_SOURCE_GIT_ROOT``, docs/web.md): every ``git`` the service runs.

A repository's bare mirror is ``{root}/{service}/{owner}/{repo}.git`` (:func:`mirror`). What it answers:
a file at a commit for the file view (:func:`file_at`), a commit's message and author
(:func:`commit_about`) and its tree (:func:`mirror_files`) for uploads, and for feedback a
codecov.yml (:func:`first_file`), a merge base, first parents, a branch's tip and a diff. Every git
runs with no system or global config, within a deadline; a revision that came from outside follows
``--end-of-options``, so a sha or branch spelled like an option (a webhook's ``base_sha``) is never
read as one. Apart from :func:`file_at` (which says why it could not read), each function answers
``None`` (or nothing) when the mirror cannot: callers fall back to the provider.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterable
from typing import Callable, NamedTuple, Optional, TypeVar

from flask import current_app

from .models import Repository

T = TypeVar("T")

#: A merge base or a file for feedback answers within this many seconds; a diff of a big pull within
#: ``DIFF_SECONDS``.
GIT_SECONDS = 10
DIFF_SECONDS = 60
#: The longest commit message stored (characters); longer ones are cut.
MAX_MESSAGE_LENGTH = 4000
#: The most paths read from a commit's tree in the git mirror (the uploaders' own file list's bound).
MAX_TREE_FILES = 500_000


class Unreadable(Exception):
    """Why :func:`file_at` could not read a file from the mirror (the file view shows it)."""


class CommitAbout(NamedTuple):
    """What the git mirror says of a commit: its author's name and its message."""

    author_name: str
    message: str


def mirror_path(root: str, repository: Repository) -> Optional[str]:
    """``{root}/{service}/{owner}/{repo}.git``, or ``None`` if a name would leave its folder or the
    path leads (through a symbolic link) outside ``root``."""
    owner = repository.owner
    names = (owner.service.value, owner.username, repository.name)
    if any(not name or name.startswith(".") or "/" in name or "\\" in name or "\0" in name for name in names):
        return None
    path = os.path.join(root, *names[:2], names[2] + ".git")
    real_root = os.path.realpath(root)
    return path if os.path.realpath(path).startswith(real_root + os.sep) else None


def mirror(repository: Repository) -> Optional[str]:
    """The repository's bare mirror under ``COVERAGE_SOURCE_GIT_ROOT``, or ``None``."""
    root = current_app.config["COVERAGE_SOURCE_GIT_ROOT"]
    path = mirror_path(root, repository) if root else None
    return path if path is not None and os.path.isdir(path) else None


def _command(git_dir: str, args: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_LITERAL_PATHSPECS": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
    }
    config = ["-c", f"safe.directory={git_dir}", "-c", "core.quotePath=false"]
    return ["git", *config, f"--git-dir={git_dir}", *args], env


def _git(git_dir: str, *args: str, timeout: float) -> subprocess.CompletedProcess[bytes]:
    command, env = _command(git_dir, args)
    return subprocess.run(command, capture_output=True, timeout=timeout, env=env, check=False)  # noqa: S603


def _answer(git_dir: str, *args: str, timeout: float = GIT_SECONDS) -> Optional[bytes]:
    try:
        done = _git(git_dir, *args, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return done.stdout if done.returncode == 0 else None


def commit_about(repository: Repository, sha: str) -> Optional[CommitAbout]:
    """The author's name and the message of ``sha`` in the repository's git mirror under
    ``COVERAGE_SOURCE_GIT_ROOT``, or ``None`` (no mirror, no such commit, no answer within
    ``COVERAGE_SOURCE_TIMEOUT``). Uploads ask it once per commit, so pages never run git for it."""
    git_dir = mirror(repository)
    if git_dir is None:
        return None
    timeout = current_app.config["COVERAGE_SOURCE_TIMEOUT"]
    shown = _answer(git_dir, "show", "-s", "--format=%an%x00%B", "--end-of-options", sha, "--", timeout=timeout)
    if shown is None or b"\0" not in shown:
        return None
    name, _, message = shown.decode("utf-8", "replace").partition("\0")
    return CommitAbout(name.strip()[:255], message.strip()[:MAX_MESSAGE_LENGTH])


def mirror_files(repository: Repository, sha: str) -> Optional[list[str]]:
    """The paths of the files of ``sha`` in the repository's git mirror under ``COVERAGE_SOURCE_GIT_ROOT``
    (``git ls-tree -r``), or ``None`` (no mirror, no such commit, no answer within
    ``COVERAGE_SOURCE_TIMEOUT``). An upload without the uploader's file list places its paths on them."""
    git_dir = mirror(repository)
    if git_dir is None:
        return None
    timeout = current_app.config["COVERAGE_SOURCE_TIMEOUT"]
    listed = _answer(
        git_dir, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", sha, timeout=timeout
    )
    if listed is None:
        return None
    names = listed.split(b"\0", MAX_TREE_FILES)[:MAX_TREE_FILES]
    return [name.decode("utf-8", "replace") for name in names if name]


def file_at(git_dir: str, sha: str, path: str) -> Optional[bytes]:
    """The bytes of the regular file ``path`` at ``sha`` in the bare repository ``git_dir``, or
    ``None`` if the commit has no such file. An unknown commit, a symbolic link, a submodule, a file
    over ``COVERAGE_SOURCE_MAX_BYTES`` and no answer within ``COVERAGE_SOURCE_TIMEOUT`` raise
    :class:`Unreadable`, saying which."""
    config = current_app.config
    deadline = time.monotonic() + config["COVERAGE_SOURCE_TIMEOUT"]
    try:
        listed = _git(
            git_dir,
            *("ls-tree", "-l", "-z", "--full-tree", "--end-of-options", sha, "--", path),
            timeout=config["COVERAGE_SOURCE_TIMEOUT"],
        )
        if listed.returncode != 0:
            raise Unreadable(f"The git mirror does not have commit {sha[:12]}.")
        entry = next((item for item in listed.stdout.split(b"\0") if item.endswith(b"\t" + path.encode())), None)
        if entry is None:
            return None
        mode, kind, obj, size = entry.split(b"\t", 1)[0].split()
        if kind != b"blob" or mode not in (b"100644", b"100755"):
            raise Unreadable("The file is not a regular file at this commit (a link or a submodule).")
        if int(size) > config["COVERAGE_SOURCE_MAX_BYTES"]:
            raise Unreadable(f"The file is larger than {config['COVERAGE_SOURCE_MAX_BYTES']:,} bytes.")
        blob = _git(git_dir, "cat-file", "blob", obj.decode(), timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise Unreadable("The git mirror did not answer in time.") from None
    if blob.returncode != 0:
        raise Unreadable("The git mirror could not read the file.")
    return blob.stdout


def first_file(
    git_dir: str, sha: str, paths: Iterable[str], max_bytes: int
) -> Optional[tuple[Optional[str], Optional[bytes]]]:
    """The first of ``paths`` that is a regular file at the commit ``sha``: its path and bytes (at most
    ``max_bytes`` read), ``(None, None)`` if none is; ``None`` if the mirror does not have the commit
    (or cannot tell). Two git commands at most (an upload reads its commit's codecov.yml this way)."""
    wanted = list(paths)
    listed = _answer(git_dir, "ls-tree", "-z", "--full-tree", "--end-of-options", f"{sha}^{{commit}}", "--", *wanted)
    if listed is None:
        return None
    found = {}
    for entry in listed.split(b"\0"):
        if b"\t" in entry:
            meta, name = entry.split(b"\t", 1)
            mode, kind, obj = meta.split()
            if kind == b"blob" and mode in (b"100644", b"100755"):
                found[name.decode("utf-8", "replace")] = obj.decode()
    for path in wanted:
        if path in found:
            blob = _answer(git_dir, "cat-file", "blob", found[path])
            return None if blob is None else (path, blob[: max_bytes + 1])
    return None, None


def has_commit(git_dir: str, sha: str) -> bool:
    """Whether the mirror has the commit ``sha``."""
    return _answer(git_dir, "cat-file", "-e", "--end-of-options", f"{sha}^{{commit}}") is not None


def merge_base(git_dir: str, one: str, other: str) -> Optional[str]:
    """The best common ancestor of two commits (or branch names), or ``None``."""
    found = _answer(git_dir, "merge-base", "--end-of-options", one, other)
    return found.decode().strip() or None if found else None


def first_parents(git_dir: str, sha: str, limit: int = 1000) -> list[str]:
    """``sha``'s ancestors along first parents, nearest first (at most ``limit``)."""
    found = _answer(git_dir, "rev-list", "--first-parent", f"--max-count={limit + 1}", "--end-of-options", sha)
    return found.decode().split()[1:] if found else []


def branch_tip(git_dir: str, branch: str) -> Optional[str]:
    """The sha of ``refs/heads/<branch>`` in the mirror, or ``None``."""
    found = _answer(git_dir, "rev-parse", "--verify", "--quiet", "--end-of-options", f"refs/heads/{branch}^{{commit}}")
    return found.decode().strip() if found else None


def diff(git_dir: str, base: str, head: str, read: Callable[[Iterable[bytes]], T]) -> Optional[T]:
    """What ``read`` makes of the diff ``base...head`` as git writes it (its lines, as they come), or
    ``None`` if the mirror cannot tell: no context lines, renames found, so a moved file shows only its
    changed lines (feedback reads it with :func:`~flask_coverage.feedback.diff.parse_diff`)."""
    options = ("--no-color", "--no-ext-diff", "--no-textconv", "-M", "-U0")
    command, env = _command(git_dir, ("diff", *options, "--end-of-options", f"{base}...{head}", "--"))
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env) as process:  # noqa: S603
        # A git that hangs mid-diff is killed: its output ends and the answer is None.
        timer = threading.Timer(DIFF_SECONDS, process.kill)
        timer.start()
        try:
            found = read(process.stdout or ())
            process.wait()
        finally:
            timer.cancel()
    return found if process.returncode == 0 else None
