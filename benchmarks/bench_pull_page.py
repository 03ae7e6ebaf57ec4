"""A pull request's page and the v2 API's ``compare/?pullid=`` on a pull touching many files, in this
tree and, with ``--against DIR``, in another checkout of the project, timed in one run.

The history is ``bench_patch.py``'s (a base of ``--files`` files, a head that changes two lines and
adds ten in every file, in a git mirror, so the diff is git's); the base's report tracks every line,
the head's misses one line in three and, in one file in ten, a line outside the diff it hit before
(an indirect change). Each tree answers in a process of its own, the trees taking turns ``--rounds``
times; each request's time is the best of ``--repeat`` in a process, then the best over the rounds.

Usage::

    python benchmarks/bench_pull_page.py [--files 2000] [--lines 40] [--repeat 5] [--rounds 3] [--against DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
URLS = {"pull page": "/gh/acme/big/pull/1", "v2 compare": "/api/v2/github/acme/repos/big/compare/?pullid=1"}


def report(files: int, lines: int, head: bool) -> bytes:
    out = []
    for n in range(files):
        out.append(f"SF:pkg{n // 100}/mod{n}.py\n")
        for line in range(1, lines + (11 if head else 1)):
            missed = head and (line % 3 == 0 or (n % 10 == 0 and line == lines))
            out.append(f"DA:{line},{0 if missed else 1}\n")
        out.append("end_of_record\n")
    return "".join(out).encode()


def measure(tmp: str, files: int, lines: int, repeat: int) -> dict[str, float]:
    """In this process (the tree on ``sys.path``): the data stored, then each URL's best time."""
    from flask import Flask

    from flask_coverage import CoverageService, operations
    from flask_coverage.ingest import upload_report

    shas = json.loads(Path(tmp, "shas.json").read_text())
    app = Flask("bench")
    database = Path(tmp, f"bench-{os.getpid()}.db")
    app.config.update(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", COVERAGE_SOURCE_GIT_ROOT=str(Path(tmp, "mirrors"))
    )
    CoverageService(app)
    with app.app_context():
        operations.init_db()
        operations.add_org("github", "acme")
        operations.add_repo("github", "acme", "big")
        upload_report("github/acme/big", report(files, lines, False), commit=shas["base"], branch="main")
        head = report(files, lines, True)
        upload_report("github/acme/big", head, commit=shas["head"], branch="feature", pullid=1, parent=shas["base"])
    client = app.test_client()
    found = {}
    for name, url in URLS.items():
        assert client.get(url).status_code == 200  # warm: statements compiled, diff parsed once
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - start)
            assert response.status_code == 200
        found[name] = min(times)
    database.unlink()
    return found


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", help="another checkout of the project (its root) to time as well")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # a child's data folder
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.measure, args.files, args.lines, args.repeat)))
        return 0
    from bench_patch import git, make_history  # here: a child of another tree must not import this tree's names

    trees = {"this tree": str(HERE.parent)}
    if args.against:
        trees["against"] = os.path.abspath(args.against)
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        base, head = make_history(work, args.files, args.lines)
        git("clone", "-q", "--mirror", work, os.path.join(tmp, "mirrors", "github", "acme", "big.git"), cwd=tmp)
        Path(tmp, "shas.json").write_text(json.dumps({"base": base, "head": head}))
        best: dict[str, dict[str, float]] = {tree: {} for tree in trees}
        for _ in range(args.rounds):
            for tree, root in trees.items():
                command = [sys.executable, __file__, "--measure", tmp, "--files", str(args.files)]
                command += ["--lines", str(args.lines), "--repeat", str(args.repeat)]
                env = {**os.environ, "PYTHONPATH": root}
                done = subprocess.run(command, env=env, capture_output=True, text=True)  # noqa: S603
                if done.returncode:
                    raise SystemExit(f"{tree} failed:\n{done.stderr}")
                for name, seconds in json.loads(done.stdout.splitlines()[-1]).items():
                    best[tree][name] = min(seconds, best[tree].get(name, seconds))
    print(f"{args.files} files, {args.lines} lines each; best of {args.repeat} x {args.rounds} rounds")
    for name in URLS:
        times = "  ".join(f"{tree}: {best[tree][name] * 1000:8.1f} ms" for tree in trees)
        ratio = f"  ratio {best['this tree'][name] / best['against'][name]:.2f}" if args.against else ""
        print(f"{name:<12}{times}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
