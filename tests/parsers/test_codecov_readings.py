"""Readings that follow Codecov's (docs/parsing.md): JaCoCo's module names, files without lines,
Clover's conditions; each on a small report shaped as its tool writes it."""

from __future__ import annotations

import pytest

from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import merge_by_path, parse_report


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
