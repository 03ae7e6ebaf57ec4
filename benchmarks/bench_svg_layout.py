"""Benchmark the SVG coverage graphs on generated repositories.

Run from the repository root::

    .venv/bin/python benchmarks/bench_svg_layout.py [--files 20000 100000] [--repeat 15]

For each repository size and graph kind it prints the render time (CPU time
of the whole ``render_graph_svg`` call: hierarchy, layout and SVG writing;
fastest and median of ``--repeat`` runs), the number of files drawn as a block of their own, all
blocks drawn (files, folders and folded small files), the document size, bytes per block, and
bytes per drawn file without and with links, and the peak memory of one
render (tracemalloc, in a separate run since tracing slows Python down).
A second table shows what the smallest block size costs on the tree.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask_coverage.svg import GRAPH_KINDS, render_graph_svg, validate_graph_params  # noqa: E402

# The file-view prefix relative to a commit's graph URL (.../commit/{sha}/graphs/tree.svg),
# and a root-relative one with the full sha.
SHORT_PREFIX = "../blob/"
LONG_PREFIX = "/gh/acme/widgets/commit/8f2a6c1d9e0b7a4f3c5d2e1b0a9f8e7d6c5b4a39/blob/"
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
EXTENSIONS = [".py", ".py", ".py", ".js", ".ts", ".go", ".c", ".h"]


def render(kind: str, files: list[tuple[str, int, int]], **options: Any) -> str:
    """The graph ``kind`` of ``files`` with the writer's defaults but for ``options``."""
    return render_graph_svg(files, validate_graph_params(kind, **options))


def _word(rng: random.Random) -> str:
    word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
    if rng.random() < 0.25:
        word += "_" + rng.choice(SYLLABLES) + rng.choice(SYLLABLES)
    return word


def generate_repo(n_files: int, seed: int = 1) -> list[tuple[str, int, int]]:
    """``n_files`` records ``(path, lines, hits)``.

    Folders are 1..7 deep below six top-level folders (paths of 2..8 parts,
    most of 4..6), with about 15 files each; folders grow from a random
    existing folder, shallower ones more likely, so fan-out is heavy-tailed.
    File sizes are lognormal (median ~55 tracked lines, a long tail into the
    thousands), 3 % of files have no tracked lines, and coverage is mostly
    high (beta(5, 1.5), mean ~77 %).
    """
    rng = random.Random(seed)
    tops = ["src", "tests", "lib", "docs", "tools", "vendor"]
    dirs = [(name, 1) for name in tops]
    while len(dirs) < max(len(tops), n_files // 15):
        parent, depth = rng.choice(dirs)
        # Deeper folders get fewer sub-folders: most files end up 3-6 deep.
        if depth < 7 and rng.random() < 0.7 ** (depth - 1):
            dirs.append((f"{parent}/{_word(rng)}", depth + 1))
    files = []
    seen = set()
    while len(files) < n_files:
        folder, _ = rng.choice(dirs)
        path = f"{folder}/{_word(rng)}{rng.choice(EXTENSIONS)}"
        if path in seen:
            continue
        seen.add(path)
        lines = 0 if rng.random() < 0.03 else max(1, int(rng.lognormvariate(4.0, 1.2)))
        files.append((path, lines, int(lines * rng.betavariate(5, 1.5))))
    return files


def _times_ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    # CPU time of this process: what the render costs, even on a machine whose
    # cores are shared with other work (wall time there mostly measures waiting).
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return min(times), statistics.median(times)


def _peak_mb(fn: Callable[[], object]) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _counts(svg: str) -> tuple[int, int]:
    """(files drawn on their own, all blocks drawn) of a document rendered with links."""
    return svg.count("<a "), svg.count("<path") + svg.count("<circle")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[20000, 100000])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

    print(f"Python {sys.version.split()[0]}; CPU times: fastest / median of {args.repeat} runs")
    print(f"link prefixes: {SHORT_PREFIX!r} ({len(SHORT_PREFIX)} chars), root-relative ({len(LONG_PREFIX)} chars)\n")
    header = (
        f"{'files':>7} {'kind':<9} {'min ms':>7} {'med ms':>7} {'drawn':>6} {'blocks':>6} {'KB':>6} "
        f"{'B/block':>7} {'B/file':>6} {'B/file+rel':>10} {'B/file+long':>11} {'peak MB':>7}"
    )
    print(header)
    print("-" * len(header))
    for n in args.files:
        files = generate_repo(n)
        for kind in GRAPH_KINDS:
            render(kind, files)  # warm-up
            fastest, median = _times_ms(lambda kind=kind, files=files: render(kind, files), args.repeat)
            plain = len(render(kind, files).encode())
            short = render(kind, files, link_prefix=SHORT_PREFIX)
            long = len(render(kind, files, link_prefix=LONG_PREFIX).encode())
            drawn, blocks = _counts(short)
            peak = _peak_mb(lambda kind=kind, files=files: render(kind, files, link_prefix=LONG_PREFIX))
            per_file = [f"{size / drawn:.0f}" if drawn else "-" for size in (plain, len(short.encode()), long)]
            print(
                f"{n:>7} {kind:<9} {fastest:>7.1f} {median:>7.1f} {drawn:>6} {blocks:>6} {plain / 1024:>6.0f} "
                f"{plain / blocks:>7.0f} {per_file[0]:>6} {per_file[1]:>10} {per_file[2]:>11} {peak:>7.1f}"
            )
    files = generate_repo(args.files[0])
    lengths = [len(p) for p, _, _ in files]
    print(f"\nmean path length {statistics.mean(lengths):.0f} chars\n")

    print(f"tree of {args.files[0]} files, 500 x 500, by smallest block size (min_block_size)")
    header = (
        f"{'min px':>6} {'min ms':>7} {'med ms':>7} {'drawn':>6} {'blocks':>6} {'KB':>6} "
        f"{'B/block':>7} {'B/file':>6} {'B/file+rel':>10}"
    )
    print(header)
    print("-" * len(header))
    for size in (2, 3, 4, 5, 6, 8):
        fastest, median = _times_ms(lambda size=size: render("tree", files, min_block_size=size), args.repeat)
        plain = len(render("tree", files, min_block_size=size).encode())
        linked = render("tree", files, min_block_size=size, link_prefix=SHORT_PREFIX)
        drawn, blocks = _counts(linked)
        print(
            f"{size:>6} {fastest:>7.1f} {median:>7.1f} {drawn:>6} {blocks:>6} {plain / 1024:>6.0f} "
            f"{plain / blocks:>7.0f} {plain / drawn:>6.0f} {len(linked.encode()) / drawn:>10.0f}"
        )


if __name__ == "__main__":
    main()
