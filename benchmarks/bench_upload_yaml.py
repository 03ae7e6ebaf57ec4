"""Upload latency with the codecov.yml's ``ignore`` and ``fixes`` applied, against none.

Four apps on SQLite files, alike but for where their YAML comes from: "none" has no YAML (no mirror,
no provider, nothing stored); "stored" has a repository YAML with ``fixes`` and ten ``ignore``
patterns; "mirror" has a git mirror whose every commit carries that YAML as its ``codecov.yml``, read
(two git commands) at each commit's first upload; "bare" has a mirror of the same commits without
the file (one git command finds none). A mirror also costs the commit's message and author, read at
upload before this, so "mirror" against "bare" is the cost of reading and applying the file.
Uploads of one LCOV report (``--files`` files of ``--lines`` lines, a tenth of them ignored) to a new
commit each, the four interleaved, through Flask's test client; the median and best of ``--runs``
each, and the ratio to "none".

Usage::

    python benchmarks/bench_upload_yaml.py [--runs 30] [--files 200] [--lines 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from flask import Flask

from flask_coverage import CoverageService, operations

YAML = (
    "fixes:\n  - 'build/::'\nignore:\n" + "".join(f"  - 'src/pkg{n}/gen/'\n" for n in range(9)) + "  - '**/*_pb2.py'\n"
)


def report(files: int, lines: int) -> bytes:
    out = []
    for n in range(files):
        name = f"mod{n}_pb2.py" if n % 10 == 0 else f"mod{n}.py"
        out.append(f"SF:build/src/pkg{n // 50}/{name}\n")
        out.extend(f"DA:{line},{line % 3}\n" for line in range(1, lines + 1))
        out.append("end_of_record\n")
    return "".join(out).encode()


def git(*args: str, cwd: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    command = ["git", "-c", "user.name=B", "-c", "user.email=b@example.com", "-c", "init.defaultBranch=main", *args]
    return subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()  # noqa: S603


def make_mirror(folder: str, commits: int, name: str, yaml: bool) -> tuple[str, list[str]]:
    work = os.path.join(folder, f"work-{name}")
    os.makedirs(work)
    git("init", "-q", work, cwd=work)
    if yaml:
        with open(os.path.join(work, "codecov.yml"), "w") as file:
            file.write(YAML)
        git("add", "-A", cwd=work)
    shas = []
    for n in range(commits):
        git("commit", "-q", "--allow-empty", "-m", f"c{n}", cwd=work)
        shas.append(git("rev-parse", "HEAD", cwd=work))
    root = os.path.join(folder, f"mirrors-{name}")
    git("clone", "-q", "--mirror", work, os.path.join(root, "github", "acme", "widgets.git"), cwd=work)
    return root, shas


def make_app(folder: str, name: str, root: str) -> tuple[Flask, str]:
    app = Flask(f"bench-{name}")
    app.config.update(SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/{name}.db")
    if name in ("mirror", "bare"):
        app.config["COVERAGE_SOURCE_GIT_ROOT"] = root
    CoverageService(app)
    with app.app_context():
        operations.init_db()
        operations.add_org("github", "acme")
        token = operations.add_repo("github", "acme", "widgets").upload_token
        if name == "stored":
            operations.set_repository_yaml("github", "acme", "widgets", YAML)
    return app, token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--lines", type=int, default=100)
    args = parser.parse_args(argv)
    body = report(args.files, args.lines)
    modes = ("none", "stored", "bare", "mirror")
    times: dict[str, list[float]] = {name: [] for name in modes}
    with tempfile.TemporaryDirectory() as folder:
        mirrors = {name: make_mirror(folder, args.runs + 2, name, name == "mirror") for name in ("bare", "mirror")}
        apps = {name: make_app(folder, name, mirrors.get(name, ("", []))[0]) for name in modes}
        clients = {name: app.test_client() for name, (app, _) in apps.items()}
        for run in range(args.runs + 2):
            for name in modes if run % 2 else reversed(modes):
                token = apps[name][1]
                start = time.perf_counter()
                sha = mirrors[name][1][run] if name in mirrors else f"{run:040x}"
                answer = clients[name].post(f"/upload/v2?token={token}&commit={sha}&branch=main", data=body)
                elapsed = time.perf_counter() - start
                assert answer.status_code == 200, answer.get_data(as_text=True)
                ignored = "files the codecov.yml ignores" in answer.get_data(as_text=True)
                assert ignored == (name in ("stored", "mirror")), (name, answer.get_data(as_text=True))
                if run >= 2:  # the first two warm up
                    times[name].append(elapsed)
    for name in modes:
        median, best = statistics.median(times[name]) * 1000, min(times[name]) * 1000
        ratio = statistics.median(times[name]) / statistics.median(times["none"])
        print(f"yaml {name:>6}: median {median:7.1f} ms, best {best:7.1f} ms, {ratio:.3f}x none's median")
    return 0


if __name__ == "__main__":
    sys.exit(main())
