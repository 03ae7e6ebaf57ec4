"""Codecov's line semantics for Cobertura, LCOV and coverage.py JSON: odd lines skipped or clamped,
and counted, instead of refusing the report; branch lines taking their state from their branches."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import Skips, merge_by_path, parse_report

DATA = Path(__file__).resolve().parent.parent / "data"


FUZZ = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def read(data: bytes, **options: object) -> tuple[dict[str, list], dict[str, int]]:
    skips = Skips()
    files = merge_by_path(parse_report(data, skips=skips, **options))  # type: ignore[arg-type]
    return {path: list(lines) for path, lines in files.items()}, skips.counts


def cobertura(*classes: tuple[str, str], sources: str = "", root: str = "coverage") -> bytes:
    body = "".join(f'<class name="c" filename="{name}"><lines>{lines}</lines></class>' for name, lines in classes)
    return (
        f'<?xml version="1.0" ?><{root}><sources>{sources}</sources><packages><package name="p"><classes>'
        f"{body}</classes></package></packages></{root}>"
    ).encode()


def test_cobertura_branch_lines_take_their_state_from_condition_coverage():
    data = cobertura(
        (
            "a.py",
            '<line number="1" hits="5" branch="true" condition-coverage="100% (2/2)"/>'
            '<line number="2" hits="5" branch="true" condition-coverage="50% (1/2)"/>'
            '<line number="3" hits="5" branch="true" condition-coverage="0% (0/2)"/>'
            '<line number="4" hits="0" branch="true" condition-coverage="100% (1/1)"/>'
            '<line number="5" hits="3" branch="True" condition-coverage="50%"/>'
            '<line number="6" hits="0" branch="false" condition-coverage="50% (1/2)"/>',
        )
    )
    files, skips = read(data)
    assert files["a.py"] == [(1, 5, HIT), (2, 5, PARTIAL), (3, 5, MISS), (4, 0, HIT), (5, 3, HIT), (6, 0, MISS)]
    assert skips == {}


def test_cobertura_odd_lines_are_skipped_or_clamped_and_counted():
    data = cobertura(
        (
            "a.py",
            '<line number="0" hits="1"/><line number="undefined" hits="1"/><line number="-3" hits="1"/>'
            '<line number="1" hits="1.0"/><line number="2" hits="1e+0"/><line number="3" hits="-4"/>'
            '<line number="4" hits="many"/><line number="5"/><line number="x" hits="1"/>'
            '<line number="6" hits="2"/>',
        ),
        ("", '<line number="1" hits="1"/>'),
    )
    files, skips = read(data)
    assert files == {"a.py": [(1, 1, HIT), (2, 1, HIT), (3, 0, MISS), (6, 2, HIT)]}
    assert skips == {
        "lines numbered 0 or less, skipped": 2,
        'lines numbered "undefined", skipped': 1,
        "lines whose number is not an integer, skipped": 1,
        "hit counts written as decimals, rounded down": 2,
        "negative hit counts, clamped to 0": 1,
        "lines whose hit count is not a number, skipped": 2,
        "files with an empty name, skipped": 1,
    }


def test_cobertura_statements_are_read_and_ignored_ones_skipped():
    statements = (
        '<statement line="3" invocation-count="2" branch="false" method="m"/>'
        '<statement line="3" invocation-count="0" branch="true" method="m"/>'
        '<statement line="4" invocation-count="0" branch="false" method="m"/>'
        '<statement line="5" invocation-count="9" ignored="true" branch="false" method="m"/>'
    )
    # In scoverage's own XML a line with an invoked and a missed statement is partial (parsers/scoverage.py).
    files, _ = read(cobertura(("A.scala", statements), root="scoverage"))
    assert files == {"A.scala": [(3, 2, PARTIAL), (4, 0, MISS)]}
    files, _ = read(cobertura(("B.scala", '<line number="1" hits="1"/>' + statements)))
    assert files == {"B.scala": [(1, 1, HIT), (3, 2, HIT), (4, 0, MISS)]}


def test_cobertura_relative_sources_are_dropped():
    data = cobertura(("pkg/a.py", '<line number="1" hits="1"/>'), sources="<source>src</source>")
    assert list(read(data)[0]) == ["pkg/a.py"]
    data = cobertura(("pkg/a.py", '<line number="1" hits="1"/>'), sources="<source>/ci/repo/src</source>")
    assert list(read(data, root="/ci/repo")[0]) == ["src/pkg/a.py"]


def lcov(body: str) -> bytes:
    return f"TN:\nSF:a.c\n{body}\nend_of_record\n".encode()


def test_lcov_branch_lines_take_their_state_from_the_branches_with_or_without_da():
    data = lcov(
        "BRDA:1,0,0,1\nBRDA:1,0,1,2\nBRDA:2,0,0,1\nBRDA:2,0,1,-\nBRDA:3,0,0,0\nBRDA:3,0,1,-\n"
        "BRDA:7,0,0,3\nBRDA:7,0,1,0\nDA:1,4\nDA:2,4\nDA:3,4\nDA:4,0"
    )
    files, skips = read(data)
    assert files["a.c"] == [(1, 4, HIT), (2, 4, PARTIAL), (3, 4, MISS), (4, 0, MISS), (7, 1, PARTIAL)]
    assert skips == {}


def test_lcov_odd_lines_are_skipped_or_clamped_and_counted():
    data = (
        b"a stray line before anything\nDA:1,1\nTN:\nSF:a.c\nDA:0,1\nDA:undefined,1\nDA:1,1.0\nDA:2,1e+0\nDA:3,-2\n"
        b"DA:4,nan\nDA:5\nDA:6,7\nBRDA:0,0,0,1\nBRDA:9\nnot a record\nend_of_record\nend_of_record\n"
        b"SF:\nDA:1,1\nend_of_record\nSF:b.c\nDA:1,1\n"
    )
    files, skips = read(data)
    assert files == {"a.c": [(1, 1, HIT), (2, 1, HIT), (3, 0, MISS), (6, 7, HIT)], "b.c": [(1, 1, HIT)]}
    assert skips == {
        "lines that are not LCOV records, skipped": 3,
        "DA or BRDA records outside an SF: block, skipped": 1,
        "lines numbered 0 or less, skipped": 2,
        'lines numbered "undefined", skipped': 1,
        "hit counts written as decimals, rounded down": 2,
        "negative hit counts, clamped to 0": 1,
        "lines whose hit count is not a number, skipped": 2,
        "BRDA records without line, block, branch and taken, skipped": 1,
        "files with an empty name, skipped": 1,
        "SF: blocks without end_of_record, closed": 1,
    }


def test_coveragepy_line_zero_and_empty_names_are_skipped_and_counted():
    data = (
        b'{"meta": {}, "files": {"": {"executed_lines": [1]},'
        b' "a.py": {"executed_lines": [0, 1], "missing_lines": [-1, 2]}}}'
    )
    files, skips = read(data)
    assert files == {"a.py": [(1, 1, HIT), (2, 0, MISS)]}
    assert skips == {"files with an empty name, skipped": 1, "lines numbered 0 or less, skipped": 2}


def test_a_report_of_odd_lines_only_is_read_to_no_lines():
    files, skips = read(lcov("DA:0,1"))
    assert files == {"a.c": []}
    assert sum(skips.values()) == 1


SAMPLES = [(DATA / name).read_bytes()[:20_000] for name in ("marshmallow.coverage.xml", "marshmallow.lcov")]
SAMPLES.append((DATA / "marshmallow.coverage.json").read_bytes()[:20_000])


@FUZZ
@given(st.sampled_from(SAMPLES), st.integers(0, 19_999), st.binary(max_size=40), st.integers(0, 40))
def test_a_mangled_report_is_read_or_refused_never_an_error(sample, at, insert, cut):
    data = sample[:at] + insert + sample[at + cut :]
    try:
        read(data)
    except ReportError as error:
        assert str(error) and "\n" not in str(error).strip()


ODD_VALUES = st.sampled_from(["0", "-1", "undefined", "1.0", "1e+0", "-2.5", "", "x", "1e999", "9" * 30, " 3 ", "٣"])


@FUZZ
@given(st.lists(st.tuples(ODD_VALUES, ODD_VALUES), min_size=1, max_size=8), st.sampled_from(["cobertura", "lcov"]))
def test_odd_numbers_are_skipped_clamped_or_refused_with_a_reason(pairs, format):
    if format == "cobertura":
        data = cobertura(("a.py", "".join(f'<line number="{n}" hits="{h}"/>' for n, h in pairs)))
    else:
        data = lcov("\n".join(f"DA:{n},{h}" for n, h in pairs))
    try:
        files, skips = read(data)
    except ReportError as error:
        assert "too large" in str(error) or "invalid hit count" in str(error) or "invalid line number" in str(error)
        return
    # Every line whose number is not one is skipped and counted; " 3 " and "٣" are line 3.
    kept = files.get("a.py", files.get("a.c", []))
    assert [line for line, _, _ in kept] in ([], [3])
    assert sum(skips.values()) >= sum(1 for number, _ in pairs if number not in (" 3 ", "٣"))
