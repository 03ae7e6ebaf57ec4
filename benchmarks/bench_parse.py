"""Parse time and peak memory of our report parsers, next to pycobertura on the same Cobertura file, to
ijson's yajl2_c backend feeding the coverage.py JSON parser's per-file conversion (issue 25: the faster
reader is kept; ijson is in the bench extra), and to a bare pass of the same bytes through the
tokenizer each parser builds on (expat for XML, ``json.loads`` for JSON, and for LCOV
``bench_formats.bare_lines``: a UTF-8 decode, a split into lines and a Python ``for`` over them, in the
parsers' 1 MiB chunks): the ratio is the parser's own cost.

The XML baseline (issue 25's 2x) is expat over the same 1 MiB chunks with a start handler that does
nothing: the Python call per element that any Python expat consumer pays, whatever it does next
(``bench_formats.py`` uses the same one). Expat with no handler at all is printed too.

Each measurement runs in a fresh interpreter, so peak RSS (``ru_maxrss``) is that parse's alone; a
second run under ``tracemalloc`` gives the peak of Python allocations. Times are the best of
``--repeat`` runs, as wall time and CPU time (CPU time is steadier on a busy machine).

Usage::

    python benchmarks/bench_parse.py [--dir DIR] [--files 20000] [--lines 2000000] [--repeat 3]

Reports are generated into DIR (default: a temporary directory) unless already there.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from xml.parsers import expat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_formats import bare_lines  # noqa: E402
from generate_reports import SOURCE_ROOT, SyntheticProject  # noqa: E402
from pycobertura import Cobertura  # noqa: E402

# Imported here, before any timing: importing flask_coverage pulls in Flask and SQLAlchemy.
from flask_coverage.parsers import merge_by_path, parse_report  # noqa: E402
from flask_coverage.parsers._input import CHUNK_SIZE  # noqa: E402

CASES = {
    # name: (report file, how to parse it)
    "flask-coverage Cobertura": ("synthetic.xml", "ours:cobertura"),
    "flask-coverage LCOV": ("synthetic.lcov", "ours:lcov"),
    "flask-coverage coverage.py JSON": ("synthetic.json", "ours:coveragepy"),
    # The same per-file conversion fed by ijson's C backend instead of JsonStream (issue 25's comparison).
    "ijson (yajl2_c) coverage.py JSON": ("synthetic.json", "ijson"),
    # What an upload does: every file kept (merged per path) and encoded for its database column.
    "flask-coverage Cobertura, kept": ("synthetic.xml", "ours:cobertura:keep"),
    "pycobertura Cobertura": ("synthetic.xml", "pycobertura"),
    # The tokenizers alone, on the same bytes: the floor each parser is compared with.
    "bare expat (no handlers)": ("synthetic.xml", "bare:xml"),
    "bare expat (empty start handler)": ("synthetic.xml", "bare:xml-calls"),
    "bare json.loads": ("synthetic.json", "bare:json"),
    "bare decode + split + for lines": ("synthetic.lcov", "bare:lines"),
}
#: Which bare pass each parser is compared with (issue 25: at most 2x; for XML the empty handler).
RATIOS = {
    "flask-coverage Cobertura": ("bare expat (empty start handler)", "bare expat (no handlers)"),
    "flask-coverage coverage.py JSON": ("bare json.loads",),
    "ijson (yajl2_c) coverage.py JSON": ("bare json.loads",),
    "flask-coverage LCOV": ("bare decode + split + for lines",),
}


def bare_pass(path: Path, kind: str) -> None:
    """Read ``path`` through the tokenizer alone, in the parsers' 1 MiB chunks, keeping nothing."""
    if kind == "json":
        json.loads(path.read_bytes())
        return
    with open(path, "rb") as report:
        chunks = iter(lambda: report.read(CHUNK_SIZE), b"")
        if kind == "lines":
            bare_lines(chunks)
            return
        parser = expat.ParserCreate()
        if kind == "xml-calls":
            parser.StartElementHandler = lambda name, attrs: None
        for chunk in chunks:
            parser.Parse(chunk, False)
        parser.Parse(b"", True)


def parse_ours(path: Path, fmt: str, keep: bool = False) -> tuple[int, int, int]:
    """Parse with flask-coverage; ``(files, tracked lines, hit lines)``.

    ``keep``: hold every file (merged per path) and its encoded form until the end, as an upload does.
    """
    with open(path, "rb") as report:
        parsed = parse_report(report, format=fmt, root=SOURCE_ROOT)
        if keep:
            merged = merge_by_path(parsed)
            encoded = {name: lines.encode() for name, lines in merged.items()}
            assert len(encoded) == len(merged)
            coverages = list(merged.values())
        else:
            coverages = (file.lines for file in parsed)
        files = lines = hits = 0
        for coverage in coverages:
            totals = coverage.totals()
            files += 1
            lines += totals.lines
            hits += totals.hits + totals.partials
    return files, lines, hits


def parse_ijson(path: Path) -> tuple[int, int, int]:
    """coverage.py JSON read by ijson's yajl2_c backend, one ``files`` entry at a time, each turned
    into lines by the parser's own conversion; same triple as parse_ours."""
    import ijson  # the bench extra

    from flask_coverage.parsers import ParseContext, coveragepy

    context = ParseContext(root=SOURCE_ROOT)
    resolver = context.resolver()
    files = lines = hits = 0
    with open(path, "rb") as report:
        for name, entry in ijson.get_backend("yajl2_c").kvitems(report, "files", use_float=True):
            resolver.resolve(name)
            coverage = coveragepy._bulk_lines(entry, name) or coveragepy._entry_lines(
                entry.items(), name, context.skips
            )
            totals = coverage.totals()
            files += 1
            lines += totals.lines
            hits += totals.hits + totals.partials
    return files, lines, hits


def parse_pycobertura(path: Path) -> tuple[int, int, int]:
    """Parse with pycobertura, reading every line's status per file; same triple as parse_ours."""
    report = Cobertura(str(path))
    files = lines = hits = 0
    for filename in report.files():
        statuses = report.line_statuses(filename)
        files += 1
        lines += len(statuses)
        hits += sum(1 for _, status in statuses if status != "miss")
    return files, lines, hits


def child(how: str, path: Path, traced: bool) -> dict[str, float]:
    """One measurement, run inside the child interpreter."""
    if traced:
        tracemalloc.start()
    wall, cpu = time.perf_counter(), time.process_time()
    if how == "pycobertura":
        files, lines, hits = parse_pycobertura(path)
    elif how == "ijson":
        files, lines, hits = parse_ijson(path)
    elif how.startswith("bare:"):
        bare_pass(path, how[5:])
        files = lines = hits = -1
    else:
        _, fmt, *keep = how.split(":")
        files, lines, hits = parse_ours(path, fmt, keep=bool(keep))
    result = {
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "files": files,
        "lines": lines,
        "hits": hits,
    }
    if traced:
        result["traced_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    return result


def measure(how: str, path: Path, traced: bool) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", how, str(path)] + (["--traced"] if traced else [])
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout  # noqa: S603
    return json.loads(output)


def baseline_rss() -> float:
    """Peak RSS of an interpreter that only imported the parsers and pycobertura."""
    code = (
        "import resource, flask_coverage.parsers, pycobertura;"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    return float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)  # noqa: S603


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="comma-separated case names to run (default: all)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("path", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.path, args.traced)))
        return 0

    with tempfile.TemporaryDirectory() as scratch:
        folder = args.dir or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        project = None
        for filename, write in (
            ("synthetic.xml", "write_cobertura"),
            ("synthetic.lcov", "write_lcov"),
            ("synthetic.json", "write_coveragepy_json"),
        ):
            if not (folder / filename).exists():
                project = project or SyntheticProject(args.files, args.lines)
                print(f"generating {folder / filename} ...", file=sys.stderr)
                getattr(project, write)(folder / filename)
        cases = CASES if not args.only else {k: v for k, v in CASES.items() if k in args.only.split(",")}
        print(f"{args.files} files, {args.lines} lines; best of {args.repeat}; baseline RSS {baseline_rss():.0f} MB")
        header = ("parser", "size MB", "wall s", "CPU s", "peak RSS MB", "traced MB")
        print(f"| {header[0]:<32} | " + " | ".join(f"{h:>{len(h)}}" for h in header[1:]) + " |")
        print("|" + "|".join("-" * (len(h) + 2) for h in (" " * 32, *header[1:])) + "|")
        cpu = {}
        for name, (filename, how) in cases.items():
            path = folder / filename
            runs = [measure(how, path, traced=False) for _ in range(args.repeat)]
            traced = measure(how, path, traced=True)
            best = min(runs, key=lambda r: r["cpu"])
            cpu[name] = best["cpu"]
            if not how.startswith("bare:"):
                assert (best["files"], best["lines"]) == (args.files, args.lines), (name, best)
            print(
                f"| {name:<32} | {path.stat().st_size / 2**20:7.1f} | {min(r['wall'] for r in runs):6.2f} "
                f"| {best['cpu']:5.2f} | {max(r['rss_mb'] for r in runs):11.0f} | {traced['traced_mb']:9.1f} |",
                flush=True,
            )
        for name, bares in RATIOS.items():
            for bare in bares:
                if name in cpu and bare in cpu:
                    print(f"{name}: {cpu[name] / cpu[bare]:.2f}x the CPU of {bare}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
