"""Patch coverage of a pull touching many files, next to ``git diff`` alone on the same mirror.

A bare repository gets a base commit of ``--files`` files (``--lines`` lines each) and a head commit
that changes two lines and adds ten in every file; the head's coverage (every line tracked, one in
three missed) is uploaded to a SQLite database. Then, best of ``--repeat``:

- ``git diff``: ``git diff -M -U0 base...head`` as the service runs it, its output read and dropped;
- patch coverage: ``feedback.comparison.Comparison.patch`` (the same diff, read and parsed, and every
  changed file's coverage read from the database and looked up).

Usage::

    python benchmarks/bench_patch.py [--files 5000] [--lines 40] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flask import Flask

from flask_coverage import CoverageService, operations
from flask_coverage.feedback.comparison import Comparison
from flask_coverage.ingest import upload_report
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit

GIT = shutil.which("git") or "git"
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(*args: str, cwd: str) -> str:
    command = [GIT, "-c", "user.name=Bench", "-c", "user.email=bench@example.com", *args]
    return subprocess.run(command, cwd=cwd, env=ENV, check=True, capture_output=True, text=True).stdout.strip()  # noqa: S603


def make_history(work: str, files: int, lines: int) -> tuple[str, str]:
    git("init", "-q", "-b", "main", work, cwd=work)
    paths = [f"pkg{n // 100}/mod{n}.py" for n in range(files)]
    for path in paths:
        os.makedirs(os.path.join(work, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(work, path), "w") as file:
            file.writelines(f"value_{n} = {n}\n" for n in range(1, lines + 1))
    git("add", "-A", cwd=work)
    git("commit", "-qm", "base", cwd=work)
    base = git("rev-parse", "HEAD", cwd=work)
    for path in paths:
        with open(os.path.join(work, path)) as file:
            text = file.readlines()
        text[2] = "changed_3 = 3\n"
        text[5] = "changed_6 = 6\n"
        text += [f"added_{n} = {n}\n" for n in range(10)]
        with open(os.path.join(work, path), "w") as file:
            file.writelines(text)
    git("commit", "-qam", "head", cwd=work)
    return base, git("rev-parse", "HEAD", cwd=work)


def head_report(files: int, lines: int) -> bytes:
    out = []
    for n in range(files):
        out.append(f"SF:pkg{n // 100}/mod{n}.py\n")
        out.extend(f"DA:{line},{0 if line % 3 == 0 else 1}\n" for line in range(1, lines + 11))
        out.append("end_of_record\n")
    return "".join(out).encode()


def best(function: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        base, head = make_history(work, args.files, args.lines)
        root = Path(tmp, "mirrors")
        git_dir = str(root / "github" / "acme" / "big.git")
        git("clone", "-q", "--mirror", work, git_dir, cwd=tmp)
        app = Flask("bench")
        app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp}/bench.db", COVERAGE_SOURCE_GIT_ROOT=str(root))
        CoverageService(app)
        with app.app_context():
            operations.init_db()
            operations.add_org("github", "acme")
            operations.add_repo("github", "acme", "big")
            upload_report("github/acme/big", head_report(args.files, args.lines), commit=head)
            repository = find_repository("github", "acme", "big")
            commit = resolve_commit(repository, sha=head)
            assert commit is not None

            def diff_alone() -> None:
                command = [GIT, f"--git-dir={git_dir}", "diff", "--no-color", "-M", "-U0", f"{base}...{head}", "--"]
                with subprocess.Popen(command, stdout=subprocess.PIPE, env=ENV) as process:  # noqa: S603
                    assert process.stdout is not None
                    for _ in process.stdout:
                        pass

            def patch() -> None:
                found = Comparison(repository, commit, base, None).patch
                assert found is not None and len(found.files) == args.files

            git_seconds = best(diff_alone, args.repeat)
            patch_seconds = best(patch, args.repeat)
            found = Comparison(repository, commit, base, None).patch
            assert found is not None
            print(f"{args.files} files, {found.totals.lines} added lines with coverage, patch {found.totals.coverage}%")
            print(f"git diff alone:  {git_seconds * 1000:8.1f} ms")
            print(f"patch coverage:  {patch_seconds * 1000:8.1f} ms")
            print(f"ratio:           {patch_seconds / git_seconds:8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
