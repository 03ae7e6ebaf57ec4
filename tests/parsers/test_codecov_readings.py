"""Readings that follow Codecov's (docs/parsing.md): JaCoCo's module names, files without lines,
Clover's conditions; each on a small report shaped as its tool writes it."""

from __future__ import annotations

import pytest

from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import ParserSettings, merge_by_path, parse_report


def states(lines) -> dict[int, int]:
    return {line: state for line, _, state in lines}


def jacoco(module: str, covered: int) -> bytes:
    """A module's report, as JaCoCo's DTD (report.dtd 1.1) shapes it: com/x/Util.java, line 3 run or not."""
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd">'
        f'<report name="{module}"><sessioninfo id="s" start="1" dump="2"/>'
        '<package name="com/x"><class name="com/x/Util" sourcefilename="Util.java">'
        '<method name="f" desc="()V" line="3"><counter type="LINE" missed="0" covered="1"/></method></class>'
        f'<sourcefile name="Util.java"><line nr="3" mi="{2 - covered}" ci="{covered}" mb="0" cb="0"/>'
        f'<counter type="LINE" missed="{1 - covered}" covered="{covered}"/></sourcefile>'
        "</package></report>"
    ).encode()


def jacoco_paths(known, *modules: tuple[str, int]) -> dict[str, dict[int, int]]:
    files = merge_by_path(f for m, c in modules for f in parse_report(jacoco(m, c), known=known))
    return {path: states(lines) for path, lines in files.items()}


@pytest.mark.parametrize(
    "layout",
    [
        "{m}/src/main/java/com/x/Util.java",  # Maven's and Gradle's layout
        "{m}/com/x/Util.java",  # sources at the module's root
        "services/{m}/src/main/java/com/x/Util.java",  # modules in a folder
    ],
)
def test_jacoco_modules_land_at_their_own_listed_paths(layout):
    known = {layout.format(m=m) for m in ("module_a", "module_b")} | {"README.md"}
    paths = jacoco_paths(known, ("module_a", 1), ("module_b", 0))
    assert paths == {layout.format(m="module_a"): {3: HIT}, layout.format(m="module_b"): {3: MISS}}


def test_jacoco_module_name_without_a_file_list_is_the_first_tried():
    # Codecov with no file list takes <report name>/<package>/<file>.
    assert jacoco_paths(frozenset(), ("module_a", 1), ("module_b", 0)) == {
        "module_a/com/x/Util.java": {3: HIT},
        "module_b/com/x/Util.java": {3: MISS},
    }


def test_jacoco_bare_path_when_no_module_path_is_listed():
    # The bare path is left to the placement, as before; a name with a space is no module name.
    assert jacoco_paths({"lib/com/x/Util.java"}, ("shapes", 1)) == {"com/x/Util.java": {3: HIT}}
    assert jacoco_paths(frozenset(), ("my project", 1)) == {"com/x/Util.java": {3: HIT}}
    assert jacoco_paths(None, ("module_a", 1)) == {"com/x/Util.java": {3: HIT}}


def clover(*lines: str) -> bytes:
    """An OpenClover report of one file with these <line> elements."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?><coverage generated="1" clover="4.4.1"><project timestamp="1">'
        '<file name="A.java" path="src/A.java">' + "".join(lines) + "</file></project></coverage>"
    ).encode()


def test_clover_cond_line_without_count_is_read_by_its_true_and_false_counts():
    report = clover(
        '<line num="1" type="cond" truecount="2" falsecount="1"/>',
        '<line num="2" type="cond" truecount="0" falsecount="3"/>',
        '<line num="3" type="cond" truecount="4" falsecount="0"/>',
        '<line num="4" type="cond" truecount="0" falsecount="0"/>',
        '<line num="5" type="cond" count="" truecount="1" falsecount="1"/>',
        '<line num="6" type="stmt" count="2"/>',
    )
    (lines,) = merge_by_path(parse_report(report)).values()
    assert list(lines) == [(1, 3, HIT), (2, 3, PARTIAL), (3, 4, PARTIAL), (4, 0, MISS), (5, 2, HIT), (6, 2, HIT)]


def test_clover_cond_line_with_a_count_keeps_its_reading():
    report = clover('<line num="1" type="cond" count="0" truecount="1" falsecount="1"/>')
    assert list(*merge_by_path(parse_report(report)).values()) == [(1, 0, MISS)]


GCOV = b"""        -:    0:Source:a.c
function f called 1 returned 100% blocks executed 100%
        1:    1:int f(int x) { return x ? 1 : 2; }
branch  0 taken 1
branch  1 taken 0
        1:    2:    if (x) {
branch  0 taken 1
branch  1 taken 0
        1:    3:    for (;;) {
branch  0 taken 1
branch  1 never executed
        1:    4:    CHECK(x);
branch  0 taken 1
branch  1 taken 0
        1:    5:    return 0;
"""


@pytest.mark.parametrize(
    ("detection", "partial"),
    [
        ({}, {2, 3}),  # Codecov's default: conditionals and loops
        ({"conditional": False}, {3}),
        ({"loop": False}, {2}),
        ({"macro": True}, {2, 3, 4}),
        ({"method": True}, {2, 3}),  # a function's line is then read as any other line: a macro's rule
        ({"method": True, "macro": True}, {1, 2, 3, 4}),
        ({"conditional": False, "loop": False}, set()),
    ],
)
def test_gcov_branch_detection_chooses_the_lines_branches_decide(detection, partial):
    settings = ParserSettings.of({"parsers": {"gcov": {"branch_detection": detection}}})
    (lines,) = merge_by_path(parse_report(GCOV, settings=settings)).values()
    assert {n for n, state in states(lines).items() if state == PARTIAL} == partial
    assert set(states(lines)) == {1, 2, 3, 4, 5} and all(hits == 1 for _, hits, _ in lines)


def test_gcov_default_detection_reads_the_same_in_python_and_c(monkeypatch):
    from flask_coverage.parsers import gcov

    compiled = merge_by_path(parse_report(GCOV, settings=ParserSettings()))
    monkeypatch.setattr(gcov, "_compiled", None)
    assert merge_by_path(parse_report(GCOV, settings=ParserSettings())) == compiled


def test_parser_settings_take_codecovs_defaults_for_what_is_missing_or_not_a_boolean():
    assert ParserSettings.of({}) == ParserSettings()
    assert ParserSettings() == ParserSettings(
        javascript_partials=False, gcov_conditional=True, gcov_loop=True, gcov_method=False, gcov_macro=False
    )
    odd = {"parsers": {"go": {"partials_as_hits": "yes"}, "jacoco": [], "gcov": {"branch_detection": 3}}}
    assert ParserSettings.of(odd) == ParserSettings()
    given = {"parsers": {"go": {"partials_as_hits": True}, "javascript": {"enable_partials": True}}}
    assert ParserSettings.of(given) == ParserSettings(go_partials_as_hits=True, javascript_partials=True)


def test_a_report_read_with_settings_reads_partials_as_codecov_does():
    # Istanbul: enable_partials false (Codecov's default) makes a half-taken line a hit; scoverage
    # lines with a statement invoked are hits; without settings each keeps its tool's partials.
    istanbul = (
        b'{"/w/a.js": {"path": "/w/a.js", "statementMap": {"0": {"start": {"line": 1, "column": 0}, '
        b'"end": {"line": 1, "column": 9}}}, "fnMap": {}, "branchMap": {"0": {"type": "if", "line": 1, '
        b'"loc": {"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 9}}, "locations": '
        b'[{"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 9}}, '
        b'{"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 9}}]}}, '
        b'"s": {"0": 3}, "f": {}, "b": {"0": [3, 0]}}}'
    )
    scoverage = (
        b'<?xml version="1.0"?><scoverage statement-count="2"><packages><package name="p"><classes>'
        b'<class name="A" filename="A.scala"><methods><method name="m"><statements>'
        b'<statement source="/w/A.scala" line="3" invocation-count="2" ignored="false"/>'
        b'<statement source="/w/A.scala" line="3" invocation-count="0" ignored="false"/>'
        b"</statements></method></methods></class></classes></package></packages></scoverage>"
    )
    for report in (istanbul, scoverage):
        (own,) = merge_by_path(parse_report(report, root="/w")).values()
        (codecov,) = merge_by_path(parse_report(report, root="/w", settings=ParserSettings())).values()
        assert [state for _, _, state in own] == [PARTIAL]
        assert list(codecov) == [(line, hits, HIT) for line, hits, _ in own]
    kept = ParserSettings(javascript_partials=True)
    assert [s for _, _, s in merge_by_path(parse_report(istanbul, root="/w", settings=kept))["a.js"]] == [PARTIAL]


STARRED = b"""        -:    0:Source:a.c
        1:    1:int main(void) {
       1*:    2:    return f() || g();
    #####:    3:    unused();
"""


def test_gcov_starred_lines_are_kept_unless_the_service_drops_them_as_codecov_does():
    kept = merge_by_path(parse_report(STARRED, settings=ParserSettings()))
    dropped = merge_by_path(parse_report(STARRED, settings=ParserSettings(gcov_unexecuted_blocks=False)))
    assert list(kept["a.c"]) == [(1, 1, HIT), (2, 1, HIT), (3, 0, MISS)]
    assert list(dropped["a.c"]) == [(1, 1, HIT), (3, 0, MISS)]
