"""A short, seeded differential fuzz of every compiled reader (docs/parsing.md "Fuzzing the compiled
readers"): reports of each format with a C reader, mutated at random (characters changed, lines cut,
repeated or swapped, odd values), read with the reader and by the Python reader alone, in random
chunk sizes: the same files, lines, skips and errors. The seeds are fixed, so a failure reproduces;
``FUZZ_CASES`` runs more cases (the long run of the docs, under a sanitizer build)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest
from compiled_readers import both_ways, require_built

from flask_coverage.parsers import codecov, coveralls, gcov, go, lcov, xcode

CASES = int(os.environ.get("FUZZ_CASES", "300"))
# Characters that change how a line reads: digits, separators, marks, blanks, braces, non-ASCII ones.
ODD = "0123456789:,.-*#=$%| \t\n}{()E kM\u00a0\u0663\u2003é"


def _lcov(rng: random.Random) -> str:
    parts = ["TN:t\n"]
    for f in range(rng.randint(1, 3)):
        parts.append(f"SF:src/f{f}.c\n")
        for line in sorted(rng.sample(range(1, 40), rng.randint(1, 8))):
            parts.append(f"DA:{line},{rng.choice([0, 1, 7, 4294967295, 4294967296])}\n")
            if rng.random() < 0.3:
                parts.append(f"BRDA:{line},0,{rng.randint(0, 1)},{rng.choice(['-', '0', '3'])}\n")
        parts.append("LF:3\nLH:1\nend_of_record\n")
    return "".join(parts)


def _go(rng: random.Random) -> str:
    parts = ["mode: count\n"]
    for f in range(rng.randint(1, 3)):
        for _ in range(rng.randint(1, 6)):
            first = rng.randint(1, 30)
            parts.append(
                f"example.com/m/f{f}.go:{first}.{rng.randint(1, 9)},{first + rng.randint(0, 5)}.{rng.randint(1, 9)}"
                f" {rng.randint(0, 3)} {rng.choice([0, 1, 9, 4294967295])}\n"
            )
    return "".join(parts)


def _gcov(rng: random.Random) -> str:
    parts = []
    for f in range(rng.randint(1, 2)):
        parts.append(f"        -:    0:Source:f{f}.c\n        -:    0:Runs:1\n")
        for line in range(1, rng.randint(2, 12)):
            count = rng.choice(["-", "#####", "=====", "1", "12*", "0"])
            code = rng.choice(["  x();", "{", "}", "static int f(void)", "  if (x)", "  for (;;)", "  y;"])
            parts.append(f"{count:>9}:{line:>5}:{code}\n")
            if code.startswith("  if") and rng.random() < 0.7:
                parts.append(f"branch  0 taken {rng.choice([0, 1])}\nbranch  1 never executed\n")
    return "".join(parts)


def _xcode(rng: random.Random) -> str:
    parts = []
    for f in range(rng.randint(1, 2)):
        parts.append(f"/w/src/f{f}.swift:\n")
        for line in range(1, rng.randint(2, 12)):
            count = rng.choice(["", "0", "1", "12", "1.2k", "3M", "99999999999999999999"])
            parts.append(f"{line:>5}|{count:>7}|{rng.choice(['  x()', '}', '  }', 'let y = 1'])}\n")
        parts.append("  ------------------\n" if rng.random() < 0.3 else "\n")
    return "".join(parts)


def _mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(0, 4)):
        lines = text.split("\n")
        choice = rng.random()
        if choice < 0.5 and text:
            at = rng.randrange(len(text))
            text = text[:at] + rng.choice(ODD) + text[at + rng.randint(0, 1) :]
        elif choice < 0.65:
            text = text[: rng.randrange(len(text) + 1)]  # cut short
        elif choice < 0.8 and len(lines) > 1:
            at = rng.randrange(len(lines))
            text = "\n".join(lines[: at + 1] + lines[at:])  # a line repeated
        elif len(lines) > 2:
            a, b = rng.sample(range(len(lines)), 2)
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
    return text


VALUES: list[Any] = [None, -1, 0, 1, 7, 2**32, 2**63, 1.5, "3", "01", "1/2", "0/4", "4/4", "x", True, False, "ignored"]
KEYS = ["1", "2", "3", "01", "0", "-1", "12345678", "99999999999999999999", "x", "٣"]


def _codecov(rng: random.Random) -> str:
    files = {}
    for f in range(rng.randint(1, 3)):
        keys = sorted(rng.sample(KEYS, rng.randint(1, 5)), key=lambda key: (not key.isdigit(), key))
        files[f"f{f}.c"] = {key: rng.choice(VALUES) for key in keys}
    return json.dumps({"coverage": files})


def _coveralls(rng: random.Random) -> str:
    files = [
        {"name": f"f{f}.c", "coverage": [rng.choice(VALUES) for _ in range(rng.randint(0, 12))]}
        for f in range(rng.randint(1, 3))
    ]
    return json.dumps({"source_files": files})


READERS: dict[str, tuple[ModuleType, Callable[[random.Random], str], bool]] = {
    # name: (parser module, report generator, whether text mutations apply)
    "lcov": (lcov, _lcov, True),
    "go": (go, _go, True),
    "gcov": (gcov, _gcov, True),
    "xcode": (xcode, _xcode, True),
    "codecov": (codecov, _codecov, False),
    "coveralls": (coveralls, _coveralls, False),
}


def test_every_compiled_reader_is_fuzzed() -> None:
    require_built(READERS["lcov"][0])
    # The sources of the checkout (an installed package has no .c files).
    sources = {path.stem for path in Path(__file__).parents[2].glob("flask_coverage/parsers/_speedups/*.c")}
    fuzzed = {module._compiled.__name__.rpartition(".")[2] for module, _, _ in READERS.values() if module._compiled}
    assert fuzzed == sources


@pytest.mark.parametrize("name", sorted(READERS))
def test_compiled_and_python_readers_agree_on_mutated_reports(name: str) -> None:
    module, generate, textual = READERS[name]
    require_built(module)
    rng = random.Random(f"fuzz-{name}")
    reached: set[str] = set()
    for case in range(CASES):
        text = generate(rng)
        if textual:
            text = _mutate(text, rng)
        data = text.encode("utf-8", "surrogatepass")
        compiled, python = both_ways(module, data, rng.choice([7, 64, 300, 1 << 20]))
        assert compiled == python, (case, text)
        reached.update(part for part, outcome in zip(("files", "skips"), compiled) if outcome)
    # The cases reach read files and skipped lines alike (and refusals, where the format has them).
    assert reached == {"files", "skips"}
