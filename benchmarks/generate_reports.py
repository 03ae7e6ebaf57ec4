"""Write big synthetic coverage reports (Cobertura XML, LCOV, coverage.py JSON) for benchmarks.

The three formats describe the same synthetic project, so parsing any of them gives the same paths
and per-file totals. File sizes are heavy-tailed (a few huge modules, many small ones) and files sit
in nested folders one to seven levels deep, like a real repository.

Usage::

    python benchmarks/generate_reports.py OUTDIR [--files 20000] [--lines 2000000] [--seed 0]

or, from another benchmark::

    from generate_reports import SyntheticProject
    project = SyntheticProject(files=2000, lines=200_000)
    project.write_cobertura("big.xml")
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import IO, Iterator, NamedTuple

#: Where the synthetic checkout lives on the (imaginary) CI runner; pass it as ``root``.
SOURCE_ROOT = "/home/runner/work/synthetic/synthetic"

_FOLDER_WORDS = ("api", "core", "util", "models", "views", "services", "storage", "auth", "http", "cli")
_FOLDER_WORDS += ("io", "net", "cache", "db", "ext", "plugins", "schema", "tasks", "render", "parse")
_FILE_WORDS = ("base", "client", "server", "handler", "manager", "factory", "helpers", "types", "errors")
_FILE_WORDS += ("fields", "loader", "writer", "reader", "mixins", "session", "query", "tree", "graph")


class SyntheticLine(NamedTuple):
    """One tracked line; ``branches``/``taken`` are 0 for a line without branches."""

    number: int
    hits: int
    branches: int
    taken: int


class SyntheticProject:
    """A reproducible fake repository of ``files`` source files holding ``lines`` tracked lines."""

    def __init__(self, files: int = 20_000, lines: int = 2_000_000, seed: int = 0) -> None:
        if files < 1 or lines < files:
            raise ValueError("need at least one file and at least one line per file")
        self.seed = seed
        rng = random.Random(seed)
        self.paths = sorted(_make_paths(rng, files))
        self.sizes = _heavy_tailed_sizes(rng, files, lines)

    def file_lines(self, index: int) -> list[SyntheticLine]:
        """The tracked lines of file ``index``, the same on every call."""
        rng = random.Random(self.seed * 1_000_003 + index)
        # Per-file coverage varies a lot: most files well covered, some barely.
        ratio = rng.betavariate(4.0, 1.2)
        number = 0
        out = []
        for _ in range(self.sizes[index]):
            number += rng.choice((1, 1, 1, 1, 2, 2, 3, 5, 8))
            ran = rng.random() < ratio
            hits = 1 + int(rng.expovariate(0.02)) if ran else 0
            branches = taken = 0
            if rng.random() < 0.15:
                branches = 2
                taken = (2 if rng.random() < 0.8 else 1) if ran else 0
            out.append(SyntheticLine(number, hits, branches, taken))
        return out

    def files(self) -> Iterator[tuple[str, list[SyntheticLine]]]:
        """``(path, lines)`` of every file, in path order."""
        for index, path in enumerate(self.paths):
            yield path, self.file_lines(index)

    def totals(self) -> tuple[int, int]:
        """``(tracked lines, lines with hits > 0)`` over the whole project."""
        valid = covered = 0
        for _, lines in self.files():
            valid += len(lines)
            covered += sum(1 for line in lines if line.hits)
        return valid, covered

    def write_cobertura(self, path: str | Path) -> None:
        """Write the project as coverage.py-style Cobertura XML (``<source>`` = :data:`SOURCE_ROOT`)."""
        valid, covered = self.totals()
        with open(path, "w", encoding="utf-8") as out:
            out.write('<?xml version="1.0" ?>\n')
            out.write(
                f'<coverage version="7.0" timestamp="0" lines-valid="{valid}" '
                f'lines-covered="{covered}" line-rate="{_rate(covered, valid)}" '
                'branches-valid="0" branches-covered="0" branch-rate="0" complexity="0">\n'
                f"\t<sources>\n\t\t<source>{SOURCE_ROOT}</source>\n\t</sources>\n\t<packages>\n"
            )
            package = None
            for name, lines in self.files():
                folder, _, base = name.rpartition("/")
                if folder != package:
                    if package is not None:
                        out.write("\t\t\t</classes>\n\t\t</package>\n")
                    package = folder
                    out.write(
                        f'\t\t<package name="{folder.replace("/", ".")}" line-rate="0" '
                        'branch-rate="0" complexity="0">\n\t\t\t<classes>\n'
                    )
                hit = sum(1 for line in lines if line.hits)
                out.write(
                    f'\t\t\t\t<class name="{base}" filename="{name}" complexity="0" '
                    f'line-rate="{_rate(hit, len(lines))}" branch-rate="0">\n'
                    "\t\t\t\t\t<methods/>\n\t\t\t\t\t<lines>\n"
                )
                out.writelines(_cobertura_line(line) for line in lines)
                out.write("\t\t\t\t\t</lines>\n\t\t\t\t</class>\n")
            if package is not None:
                out.write("\t\t\t</classes>\n\t\t</package>\n")
            out.write("\t</packages>\n</coverage>\n")

    def write_lcov(self, path: str | Path) -> None:
        """Write the project as LCOV with ``DA`` and ``BRDA`` records and repository-relative paths."""
        with open(path, "w", encoding="utf-8") as out:
            for name, lines in self.files():
                out.write(f"TN:\nSF:{name}\n")
                out.writelines(f"DA:{line.number},{line.hits}\n" for line in lines)
                branch_records = 0
                branch_hits = 0
                for line in lines:
                    for k in range(line.branches):
                        if not line.hits:
                            out.write(f"BRDA:{line.number},0,{k},-\n")
                        else:
                            taken = k < line.taken
                            out.write(f"BRDA:{line.number},0,{k},{1 if taken else 0}\n")
                            branch_hits += taken
                        branch_records += 1
                hit = sum(1 for line in lines if line.hits)
                out.write(f"LF:{len(lines)}\nLH:{hit}\n")
                out.write(f"BRF:{branch_records}\nBRH:{branch_hits}\nend_of_record\n")

    def write_coveragepy_json(self, path: str | Path) -> None:
        """Write the project in coverage.py's JSON format 3 (branch mode; hits become 0/1)."""
        with open(path, "w", encoding="utf-8") as out:
            meta = {"format": 3, "version": "7.0", "branch_coverage": True, "show_contexts": False}
            out.write('{"meta": ' + json.dumps(meta) + ', "files": {')
            for index, (name, lines) in enumerate(self.files()):
                executed = [line.number for line in lines if line.hits]
                missing = [line.number for line in lines if not line.hits]
                executed_branches, missing_branches = [], []
                for line in lines:
                    for k in range(line.branches):
                        arc = [line.number, line.number + 1 + k]
                        taken = line.hits and k < line.taken
                        (executed_branches if taken else missing_branches).append(arc)
                entry = {
                    "executed_lines": executed,
                    "missing_lines": missing,
                    "excluded_lines": [],
                    "executed_branches": executed_branches,
                    "missing_branches": missing_branches,
                }
                out.write(("," if index else "") + json.dumps(name) + ": " + json.dumps(entry))
            out.write('}, "totals": {}}\n')


def _make_paths(rng: random.Random, count: int) -> set[str]:
    paths: set[str] = set()
    while len(paths) < count:
        top = "tests" if rng.random() < 0.2 else "src/app"
        depth = rng.choices((0, 1, 2, 3, 4, 5), weights=(8, 25, 30, 20, 12, 5))[0]
        # Few choices near the top and more deeper down, so folders are shared like in a real tree.
        folders = [
            rng.choice(_FOLDER_WORDS[: 4 + 4 * level]) + (str(rng.randrange(level)) if level > 1 else "")
            for level in range(depth)
        ]
        stem = f"{rng.choice(_FILE_WORDS)}_{rng.randrange(10_000)}"
        paths.add("/".join([top, *folders, f"{stem}.py"]))
    return paths


def _heavy_tailed_sizes(rng: random.Random, count: int, total: int) -> list[int]:
    # Log-normal weights: many small modules, a long tail of big ones; clamped so no single file
    # swallows the whole project.
    weights = [min(rng.lognormvariate(0.0, 1.4), 400.0) for _ in range(count)]
    spare = total - count
    scale = spare / sum(weights)
    sizes = [1 + int(w * scale) for w in weights]
    for k in rng.sample(range(count), total - sum(sizes)):
        sizes[k] += 1
    return sizes


def _rate(hit: int, valid: int) -> str:
    return f"{hit / valid:.4g}" if valid else "1"


def _cobertura_line(line: SyntheticLine) -> str:
    if not line.branches:
        return f'\t\t\t\t\t\t<line number="{line.number}" hits="{line.hits}"/>\n'
    percent = 100 * line.taken // line.branches
    return (
        f'\t\t\t\t\t\t<line number="{line.number}" hits="{line.hits}" branch="true" '
        f'condition-coverage="{percent}% ({line.taken}/{line.branches})"/>\n'
    )


def main(argv: list[str] | None = None, stdout: IO[str] = sys.stdout) -> int:
    """Command line: write ``synthetic.xml``, ``synthetic.lcov`` and ``synthetic.json`` to OUTDIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--formats",
        default="cobertura,lcov,json",
        help="comma-separated subset of cobertura, lcov, json",
    )
    args = parser.parse_args(argv)
    project = SyntheticProject(args.files, args.lines, args.seed)
    args.outdir.mkdir(parents=True, exist_ok=True)
    writers = {
        "cobertura": ("synthetic.xml", project.write_cobertura),
        "lcov": ("synthetic.lcov", project.write_lcov),
        "json": ("synthetic.json", project.write_coveragepy_json),
    }
    for fmt in args.formats.split(","):
        filename, write = writers[fmt.strip()]
        write(args.outdir / filename)
        print(f"wrote {args.outdir / filename}", file=stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
