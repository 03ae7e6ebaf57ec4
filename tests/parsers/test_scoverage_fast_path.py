"""scoverage's statements are read on a fast path (the start handler itself) when laid out like the
statement before, in its source, with small numbers; on the checked path otherwise
(``parsers/scoverage.py``). Both must give the same files, lines, skip counts and errors: the
reference is the same report read with the fast path off (no layout is ever learnt)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import Skips, parse_report
from flask_coverage.parsers import scoverage as module

SAMPLE = Path(__file__).parent.parent / "data" / "tools" / "scala" / "scoverage.xml"

# Numbers as reports write them: small (the fast path), past the table, odd (checked: skipped,
# clamped or refused, and counted).
NUMBERS = st.one_of(
    st.integers(0, 12).map(str),
    st.sampled_from(["9999", "10000", "0042", " 7", "-1", "1.0", "1e+0", "", "undefined", "99999999999999999999"]),
)
SOURCES = st.sampled_from(["/w/a.scala", "/w/a.scala", "/w/b.scala", "/w/./a.scala", "", None])
IGNORED = st.sampled_from(["false", "false", "false", "true", "FALSE", None])
# How a statement is written: 0-5 scoverage's layout; 6 an extra attribute first; 7 "count" for
# "invocation-count"; 8 the attributes reversed; 9 child elements (Codecov's sample).
ODD = st.tuples(SOURCES, NUMBERS, NUMBERS, IGNORED, st.integers(0, 9))
# Mostly the usual statements, on few lines (so statements of a line come in a row, and apart).
USUAL = st.tuples(
    st.sampled_from(["/w/a.scala", "/w/a.scala", "/w/b.scala"]),
    st.integers(1, 12).map(str),
    st.integers(0, 3).map(str),
    st.just("false"),
    st.just(0),
)
STATEMENTS = st.one_of(USUAL, USUAL, USUAL, ODD)


def statement(source: str | None, line: str, count: str, ignored: str | None, kind: int) -> str:
    attrs = [] if source is None else [("source", source)]
    attrs += [("method", "m"), ("line", line), ("branch", "false")]
    attrs.append(("count" if kind == 7 else "invocation-count", count))
    attrs += [] if ignored is None else [("ignored", ignored)]
    if kind == 8:
        attrs.reverse()
    if kind == 9:
        return "<statement>" + "".join(f"<{key}>{value}</{key}>" for key, value in attrs) + "</statement>"
    if kind == 6:
        attrs.insert(0, ("extra", "1"))
    return "<statement " + " ".join(f'{key}="{value}"' for key, value in attrs) + "/>"


def report(packages: list[list[tuple[str, list[tuple[str | None, str, str, str | None, int]]]]]) -> bytes:
    parts = ['<?xml version="1.0" encoding="UTF-8"?><scoverage version="1.0"><packages>']
    for classes in packages:
        parts.append('<package name="p"><classes>')
        for filename, statements in classes:
            parts.append(f'<class name="p.A" filename="{filename}"><methods><method name="m"><statements>')
            parts.extend(statement(*each) for each in statements)
            parts.append("</statements></method></methods></class>")
        parts.append("</classes></package>")
    parts.append("</packages></scoverage>")
    return "".join(parts).encode()


def read(data: bytes) -> tuple[object, dict[str, int]]:
    # Files in the order yielded (not merged), so the grouping by package is compared too.
    skips = Skips()
    try:
        files = [(parsed.path, list(parsed.lines)) for parsed in parse_report(data, format="scoverage", skips=skips)]
    except ReportError as error:
        return str(error), skips.counts
    return files, skips.counts


def read_checked(data: bytes) -> tuple[object, dict[str, int]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "_layout", lambda attrs: None)
        return read(data)


PACKAGES = st.lists(
    st.lists(st.tuples(st.sampled_from(["p/A.scala", "p/B.scala", ""]), st.lists(STATEMENTS, max_size=20)), max_size=3),
    max_size=3,
)


@settings(max_examples=300)
@given(packages=PACKAGES)
def test_the_fast_path_reads_as_the_checked_path(packages):
    data = report(packages)
    assert read(data) == read_checked(data)


def test_a_usual_report_is_read_on_the_fast_path(monkeypatch):
    calls = []
    checked = module._ScoverageReader._checked
    monkeypatch.setattr(
        module._ScoverageReader, "_checked", lambda self, attrs: calls.append(1) or checked(self, attrs)
    )
    lines = [(n, "3" if n % 3 else "0") for n in range(1, 201)]
    data = report([[("p/A.scala", [("/w/a.scala", str(n), hits, "false", 0) for n, hits in lines])]])
    files, skips = read(data)
    assert files == [("w/a.scala", [(n, int(hits), HIT if int(hits) else MISS) for n, hits in lines])]
    assert not skips
    assert len(calls) == 1  # the first statement teaches the layout


def test_statements_out_of_line_order_and_repeated_lines():
    # Statements of a line in a row, apart (another method), and a line before the last one.
    written = [(5, "2"), (5, "0"), (7, "4"), (3, "1"), (7, "9"), (3, "1"), (1, "0"), (5, "8"), (8, "0"), (8, "0")]
    data = report([[("p/A.scala", [("/w/a.scala", str(n), hits, "false", 0) for n, hits in written])]])
    expected = [("w/a.scala", [(1, 0, MISS), (3, 1, HIT), (5, 8, PARTIAL), (7, 9, HIT), (8, 0, MISS)])]
    assert read(data) == read_checked(data) == (expected, {})


def test_a_file_in_two_packages_is_merged_by_the_usual_rules():
    first = [("/w/a.scala", "1", "2", "false", 0), ("/w/a.scala", "2", "0", "false", 0)]
    second = [("/w/a.scala", "1", "0", "false", 0), ("/w/b.scala", "1", "1", "false", 0)]
    data = report([[("p/A.scala", first)], [("p/A.scala", second)]])
    expected = [
        ("w/a.scala", [(1, 2, HIT), (2, 0, MISS)]),
        ("w/a.scala", [(1, 0, MISS)]),
        ("w/b.scala", [(1, 1, HIT)]),
    ]
    assert read(data) == read_checked(data) == (expected, {})


def test_every_prefix_of_the_sample_reads_alike_on_both_paths():
    data = SAMPLE.read_bytes()
    step = max(1, len(data) // 200)
    for end in [*range(0, len(data), step), len(data)]:
        assert read(data[:end]) == read_checked(data[:end]), end
    files, skips = read(data)
    assert isinstance(files, list) and files and not skips
