"""Measure Pygments' worst lexers on adversarial input, and the bound the file view's CPU budget keeps.

Run from the repository root (needs the ``highlight`` extra)::

    .venv/bin/python benchmarks/bench_highlight.py [--kib 64]

For the lexers of common file names and inputs made of one piece repeated (runs of blank lines, spaces,
comment openers, quotes, backslashes, brackets, one long line...), ``--kib`` KiB each, it runs
``sources.highlight_lines`` (the file view's highlighting, with its budget of
``HIGHLIGHT_CPU_SECONDS`` of the thread's CPU) and measures the thread's CPU time. It prints every case
that took more than 50 ms, the largest CPU time of all (the bound: the budget plus one token), and for
the cases cut by the budget, the CPU time of the whole lexing of 2, 4 and 8 KiB of the same input (how
fast they grow).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pygments.lexers import get_lexer_for_filename  # noqa: E402

from flask_coverage import sources  # noqa: E402

NAMES = [
    "a.c", "a.h", "a.cpp", "a.java", "a.cs", "a.js", "a.ts", "a.py", "a.go", "a.rs", "a.rb", "a.php", "a.kt",
    "a.scala", "a.swift", "a.sh", "a.html", "a.css", "a.sql", "a.yaml", "a.xml", "a.m", "a.pl", "a.lua",
]  # fmt: skip
PIECES = {
    "blank lines": "\n",
    "spaces": " ",
    "tabs": "\t",
    "spaces and newlines": " \n",
    "comment openers": "/*",
    "stars": "*",
    "line comments": "//\n",
    "single quotes": "'",
    "double quotes": '"',
    "backslashes": "\\",
    "hashes": "#",
    "braces": "{",
    "parentheses": "(",
    "one long line": "a",
    "hex digits": "0x",
    "angle brackets": "<",
}


def source(piece: str, kib: int) -> list[str]:
    text = "int x;\n" + piece * (kib * 1024 // len(piece)) + "\nint y;\n"
    return text.split("\n")


def cpu(lines: list[str], name: str) -> float:
    started = time.thread_time()
    sources.highlight_lines(lines, name)
    return time.thread_time() - started


def full_lexing(lines: list[str], name: str) -> float:
    lexer = get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    started = time.thread_time()
    for _ in lexer.get_tokens("\n".join(lines)):
        pass
    return time.thread_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kib", type=int, default=64)
    options = parser.parse_args()
    worst: list[tuple[float, str, str]] = []
    for name in NAMES:
        for what, piece in PIECES.items():
            worst.append((cpu(source(piece, options.kib), name), name, what))
    worst.sort(reverse=True)
    print(f"budget {sources.HIGHLIGHT_CPU_SECONDS} s of CPU; {options.kib} KiB inputs; {len(worst)} cases")
    print("| file | input | CPU s | whole lexing of 2 / 4 / 8 KiB, s |")
    print("|---|---|---:|---|")
    for seconds, name, what in worst:
        if seconds < 0.05:
            break
        growth = ""
        if seconds >= sources.HIGHLIGHT_CPU_SECONDS:
            growth = " / ".join(f"{full_lexing(source(PIECES[what], kib), name):.2f}" for kib in (2, 4, 8))
        print(f"| {name} | {what} | {seconds:.2f} | {growth} |")
    print(f"largest: {worst[0][0]:.3f} s ({worst[0][1]}, {worst[0][2]})")


if __name__ == "__main__":
    main()
