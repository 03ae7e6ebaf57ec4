"""The real tools' reports of tests/data/tools/ (generate.sh): each is read to the tool's own per-file
totals, and the formats one run wrote agree with each other; docs/parsing.md says where a tool's
semantics and Codecov's differ, and these tests hold exactly those differences."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL, LineCoverage
from flask_coverage.parsers import Skips, detect_format, merge_by_path, parse_report

TOOLS = Path(__file__).resolve().parent.parent / "data" / "tools"
#: Where generate.sh built the programs: the absolute paths gcov, llvm-cov, nyc and PHPUnit write.
WORK = "/tmp/flask-coverage-tools"  # noqa: S108 (a name in the reports, never opened)


def read(name: str, **options: object) -> dict[str, LineCoverage]:
    """The files of tests/data/tools/<name>, merged per path; no line of a real report is skipped."""
    skips = Skips()
    files = merge_by_path(parse_report((TOOLS / name).read_bytes(), skips=skips, **options))  # type: ignore[arg-type]
    assert not skips, skips.summary()
    assert files
    return files


def states(lines: LineCoverage) -> dict[int, int]:
    return {line: state for line, _, state in lines}


def covered(lines: LineCoverage) -> int:
    """Lines a tool counts as covered: hit, or partly hit."""
    totals = lines.totals()
    return totals.hits + totals.partials


# Go


def test_go_profiles_of_every_mode_give_the_same_lines():
    set_mode, count, atomic = (read(f"go/cover-{mode}.out") for mode in ("set", "count", "atomic"))
    assert list(count) == ["example.com/shapes/shapes.go"]  # the import path, as go test writes it
    assert count == atomic
    assert {p: states(f) for p, f in set_mode.items()} == {p: states(f) for p, f in count.items()}
    assert max(hits for _, hits, _ in count["example.com/shapes/shapes.go"]) == 2  # counts, not 0/1


def test_go_lines_follow_go_tool_cover_func():
    # Every line of a function at 0.0% is missed, at 100.0% hit, and one in between has both.
    lines = states(read("go/cover-count.out")["example.com/shapes/shapes.go"])
    functions = []
    for row in (TOOLS / "go/cover-func.txt").read_text().splitlines():
        match = re.fullmatch(r"example\.com/shapes/shapes\.go:(\d+):\s+(\w+)\s+([\d.]+)%", row)
        if match:
            functions.append((int(match.group(1)), match.group(2), float(match.group(3))))
    assert [name for _, name, _ in functions] == ["Classify", "Area", "Sum"]
    bounds = [start for start, _, _ in functions] + [max(lines) + 1]
    for (start, name, percent), end in zip(functions, bounds[1:]):
        own = {lines[n] for n in range(start, end) if n in lines}
        if percent == 0:
            assert own == {MISS}, name
        elif percent == 100:
            assert own == {HIT}, name
        else:
            assert HIT in own and own - {HIT}, name


# C: gcc + gcov + gcovr, clang + llvm-cov


def gcovr_summary() -> dict[str, tuple[int, int]]:
    rows = (TOOLS / "c/gcovr-summary.txt").read_text().splitlines()
    found = (re.fullmatch(r"(\S+\.[ch])\s+(\d+)\s+(\d+)\s+\d+%.*", row) for row in rows)
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in found if m}


def test_gcov_text_is_read_to_gcovrs_line_totals():
    summary = gcovr_summary()
    assert set(summary) == {"main.c", "shapes.c", "shapes.h"}
    for path, (lines, executed) in summary.items():
        files = read(f"c/{path}.gcov")
        assert list(files) == [path]
        assert (len(files[path]), covered(files[path])) == (lines, executed), path


def test_gcovrs_cobertura_and_sonarqube_agree_and_differ_from_gcov_text_only_where_docs_say():
    cobertura, sonarqube = read("c/gcovr-cobertura.xml"), read("c/gcovr-sonarqube.xml")
    assert {p: states(f) for p, f in cobertura.items()} == {p: states(f) for p, f in sonarqube.items()}
    for path, lines in cobertura.items():
        gcov = states(read(f"c/{path}.gcov")[path])
        assert set(gcov) == set(states(lines))
        for number, state in states(lines).items():
            # gcov text reads branches on if/for/while lines only (Codecov's branch_detection): the
            # ternary of shapes.h line 3 is partial for gcovr and hit in the gcov text.
            assert gcov[number] == state or (path, number, gcov[number], state) == ("shapes.h", 3, HIT, PARTIAL)


def test_gcov_json_is_gcovrs_cobertura_line_for_line():
    # gcov's JSON has no source text: a line's untaken branch makes it partial, as gcovr reads it.
    files = merge_by_path(
        file for name in ("main", "shapes") for file in parse_report((TOOLS / f"c/{name}.gcov.json").read_bytes())
    )
    assert files == read("c/gcovr-cobertura.xml")


def test_gcovrs_coveralls_json_is_read_to_gcovrs_line_totals():
    # Coveralls' format has no branches: a line is covered or not, as gcovr's summary counts it.
    files = read("c/gcovr-coveralls.json")
    assert {path: (len(lines), lines.totals().hits) for path, lines in files.items()} == gcovr_summary()


def test_codecov_json_written_from_gcov_text_gives_its_lines():
    # No tool writes Codecov's JSON: codecov/coverage.json is gcov's run of the C program by hand, in
    # the format's three shapes of a file's lines (an object, a list from line 0, {"lines": [...]}).
    codecov = read("codecov/coverage.json")
    assert {path: states(lines) for path, lines in codecov.items()} == {
        path: states(read(f"c/{path}.gcov")[path]) for path in ("main.c", "shapes.c", "shapes.h")
    }


def test_llvm_cov_lcov_is_read_to_llvm_cov_reports_line_totals():
    report = {}
    for row in (TOOLS / "llvm/report.txt").read_text().splitlines():
        cells = row.split()
        if cells and cells[0].endswith((".c", ".h")):
            report[cells[0]] = (int(cells[7]), int(cells[8]))  # Lines, Missed Lines
    files = read("llvm/export.lcov", root=f"{WORK}/llvm")
    assert set(files) == set(report) == {"main.c", "shapes.c", "shapes.h"}
    for path, (lines, missed) in report.items():
        assert (len(files[path]), files[path].totals().misses) == (lines, missed), path


def test_llvm_cov_export_json_is_its_lcov_line_for_line_and_its_report_totals():
    files = read("llvm/export.json", root=f"{WORK}/llvm")
    assert files == read("llvm/export.lcov", root=f"{WORK}/llvm")
    assert sum(lines.totals().partials for lines in files.values()) > 0  # the branches were read


def test_llvm_cov_show_text_is_its_lcov_without_closing_braces():
    # Codecov's rules for the text view: a lone "}" row is no code; without colours no line is partial.
    lcov = read("llvm/export.lcov", root=f"{WORK}/llvm")
    plain = read("llvm/show.txt", root=f"{WORK}/llvm")
    coloured = read("llvm/show-color.txt", root=f"{WORK}/llvm")
    braces = {"main.c": {10, 13}, "shapes.c": {14, 21}, "shapes.h": set()}
    for path, lines in lcov.items():
        expected = {n: HIT if s == PARTIAL else s for n, s in states(lines).items() if n not in braces[path]}
        assert states(plain[path]) == expected, path
        # With colours, a counted line holding a red (never run) region is partial: a subset of LCOV's.
        partial = {n for n, s in states(coloured[path]).items() if s == PARTIAL}
        assert partial <= {n for n, s in states(lines).items() if s == PARTIAL}, path
        assert {n: HIT if s == PARTIAL else s for n, s in states(coloured[path]).items()} == expected, path
    assert sum(lines.totals().partials for lines in coloured.values()) == 2


# JavaScript: nyc


def nyc_text() -> dict[str, tuple[str, set[int]]]:
    # " shapes.js |   71.42 |  75 |   66.66 |   66.66 | 4,8,14-15": % Lines and the uncovered lines.
    rows = {}
    for row in (TOOLS / "js/nyc-text.txt").read_text().splitlines():
        cells = [cell.strip() for cell in row.split("|")]
        if len(cells) == 6 and cells[0].endswith(".js"):
            uncovered: set[int] = set()
            for part in filter(None, cells[5].split(",")):
                first, _, last = part.partition("-")
                uncovered.update(range(int(first), int(last or first) + 1))
            rows[cells[0]] = (cells[4], uncovered)
    return rows


def test_istanbul_json_is_read_to_nycs_line_summary():
    files = read("js/coverage-final.json", root=f"{WORK}/js")
    summary = nyc_text()
    assert set(files) == set(summary) == {"main.js", "shapes.js"}
    for path, (percent, uncovered) in summary.items():
        lines = files[path]
        # nyc prints the percentage cut (not rounded) to two decimals: 8 of 12 is "66.66".
        assert f"{covered(lines) * 10000 // len(lines) / 100:g}" == percent, path
        assert {n for n, state in states(lines).items() if state == MISS} == uncovered, path
    assert files["shapes.js"].totals().partials == 2  # the branch maps were read


@pytest.mark.parametrize("other", ["js/clover.xml", "js/cobertura-coverage.xml"])
def test_nycs_formats_of_one_run_agree_line_for_line(other):
    assert read(other, root=f"{WORK}/js") == read("js/coverage-final.json", root=f"{WORK}/js")


def partials_as_hits(lines: LineCoverage) -> LineCoverage:
    return LineCoverage((line, hits, HIT if state == PARTIAL else state) for line, hits, state in lines)


def test_nycs_lcov_is_its_json_with_half_taken_lines_as_hits():
    # As on Codecov, a .js file of an LCOV report is read by its DA counts alone.
    json = read("js/coverage-final.json", root=f"{WORK}/js")
    lcov = read("js/lcov.info", root=f"{WORK}/js")
    assert json["shapes.js"].totals().partials == 2
    assert lcov == {path: partials_as_hits(lines) for path, lines in json.items()}


def lcov_summary(name: str) -> dict[str, tuple[int, int]]:
    """The tool's own (lines found, lines hit) per file of an LCOV report: its LF and LH records."""
    found: dict[str, tuple[int, int]] = {}
    for record in (TOOLS / name).read_text().split("end_of_record")[:-1]:
        fields = dict(line.split(":", 1) for line in record.split() if ":" in line)
        found[fields["SF"]] = (int(fields["LF"]), int(fields["LH"]))
    return found


@pytest.mark.parametrize("name", ["js/c8.lcov", "js/node-test.lcov", "js/lcov.info"])
def test_javascript_lcov_is_read_to_the_tools_lines_and_covered(name):
    files = read(name, root=f"{WORK}/js")
    summary = lcov_summary(name)
    assert set(files) == set(summary)
    for path, (found, hit) in summary.items():
        totals = files[path].totals()
        assert (totals.lines, totals.hits, totals.partials) == (found, hit, 0), path
    assert summary["shapes.js"][1] < summary["shapes.js"][0]  # a program with lines not run


@pytest.mark.parametrize("name", ["js/c8-text.txt", "js/node-test-text.txt"])
def test_javascript_lcov_misses_are_the_tools_uncovered_lines(name):
    text = (TOOLS / name).read_text()
    match = re.search(r"shapes\.js\s*\|[^\n]*\|\s*([-0-9, ]+?)\s*$", text, re.M)
    assert match
    uncovered: set[int] = set()
    for part in re.split(r"[ ,]+", match.group(1)):
        first, _, last = part.partition("-")
        uncovered.update(range(int(first), int(last or first) + 1))
    lcov = name.replace("-text.txt", ".lcov")
    assert {n for n, state in states(read(lcov, root=f"{WORK}/js")["shapes.js"]).items() if state == MISS} == uncovered


# Ruby: SimpleCov


def test_simplecov_resultset_is_read_to_simplecovs_summary():
    match = re.search(r"(\d+) / (\d+) LOC", (TOOLS / "ruby/simplecov-summary.txt").read_text())
    assert match
    files = read("ruby/resultset.json", root=f"{WORK}/ruby")
    assert list(files) == ["shapes.rb"]
    totals = files["shapes.rb"].totals()
    assert (totals.hits, totals.lines) == (int(match.group(1)), int(match.group(2)))


# R: covr


def test_covr_json_is_read_to_covrs_own_percentage():
    match = re.search(r"R/shapes\.R: ([\d.]+)%", (TOOLS / "r/covr-summary.txt").read_text())
    assert match
    lines = read("r/covr.json")["R/shapes.R"]
    assert f"{covered(lines) * 100 / len(lines):.2f}" == match.group(1)
    assert states(lines)[4] == MISS and states(lines)[3] == HIT  # element i is line i


# Java: JaCoCo


def test_jacoco_xml_is_read_to_jacocos_csv():
    files = read("java/jacoco.xml")
    with (TOOLS / "java/jacoco.csv").open() as rows:
        classes = list(csv.DictReader(rows))
    assert len(classes) == len(files) == 1
    for row in classes:
        path = f"{row['PACKAGE'].replace('.', '/')}/{row['CLASS']}.java"  # package + source file
        lines = files[path]
        # JaCoCo counts a line with a missed branch as covered; Codecov (and this service) as partial.
        assert lines.totals().misses == int(row["LINE_MISSED"])
        assert covered(lines) == int(row["LINE_COVERED"])
        assert lines.totals().partials > 0


# Java: JaCoCo, a two-module build (one report per module, as Maven and Gradle write them)

MODULES = ("module_a", "module_b")


def module_report(module: str, known: object) -> dict[str, LineCoverage]:
    return read(f"java_modules/{module}/jacoco.xml", known=known)


def module_csv(module: str) -> tuple[int, int]:
    """JaCoCo's own (LINE_MISSED, LINE_COVERED) of the module's one class, com.x.Util."""
    with (TOOLS / f"java_modules/{module}/jacoco.csv").open() as rows:
        (row,) = csv.DictReader(rows)
    assert (row["GROUP"], row["PACKAGE"], row["CLASS"]) == (module, "com.x", "Util")
    return int(row["LINE_MISSED"]), int(row["LINE_COVERED"])


def test_jacoco_modules_are_read_at_their_listed_paths_to_each_modules_csv():
    # The uploader's file list holds both modules' Util.java: each report lands on its own module's
    # file (<report name>/src/main/java/<package>/<file>), read to that module's own CSV.
    known = {f"{m}/src/main/java/com/x/Util.java" for m in MODULES} | {"settings.gradle"}
    files = {m: module_report(m, known) for m in MODULES}
    for module, read_files in files.items():
        assert list(read_files) == [f"{module}/src/main/java/com/x/Util.java"]
        (lines,) = read_files.values()
        # As for one module: JaCoCo's covered lines are this service's hits and partials.
        assert (lines.totals().misses, covered(lines)) == module_csv(module), module
    a, b = (states(lines) for m in MODULES for lines in files[m].values())
    assert (a[12], b[12]) == (MISS, HIT)  # the same line of two files: merged, both would be a hit
    assert a[5] == PARTIAL  # `if (n < 0)` never true


def test_jacoco_modules_without_a_file_list_take_the_module_name_first():
    # Codecov with no file list takes <report name>/<package>/<file>: still two files.
    for module in MODULES:
        assert list(module_report(module, frozenset())) == [f"{module}/com/x/Util.java"]
    # With no module path listed the bare path is kept, and placement decides where it goes.
    assert list(module_report("module_a", {"lib/com/x/Util.java"})) == ["com/x/Util.java"]


# D: LDC's -cov listings


@pytest.mark.parametrize("module", ["app", "shapes"])
def test_d_listing_is_read_to_the_compilers_own_last_row(module):
    # "source/shapes.d is 66% covered": the lines run of the lines with code, cut to a whole percent.
    text = (TOOLS / f"d/source-{module}.lst").read_text()
    match = re.search(r"^(\S+) is (\d+)% covered$", text, re.M)
    assert match
    files = read(f"d/source-{module}.lst")
    assert list(files) == [match.group(1)] == [f"source/{module}.d"]
    lines = files[match.group(1)]
    assert covered(lines) * 100 // len(lines) == int(match.group(2))
    assert lines.totals().partials == 0  # a listing counts runs of a line, no branches
    if module == "shapes":
        # The branch not taken and the function never called; `a == b && b == c` counted per operand.
        assert {n for n, s in states(lines).items() if s == MISS} == {8, 14}
        assert max(hits for _, hits, _ in lines) == 3


# Flow: flow-coverage-report (flow coverage --json of each file)


def test_flow_coverage_report_is_read_to_its_own_table():
    # Flow counts expressions Flow knows the type of (not `any`), not lines: each marks its start
    # line, a line's hits are its typed expressions, and a line whose expressions are all `any` is
    # a miss. The table's "covered" is the sum of a file's hits, its total the locations read.
    text = (TOOLS / "flow/flow-coverage-text.txt").read_text()
    rows = re.finditer(r"│ (\S+\.js) +│ +flow │ +\d+ % │ +(\d+) │ +(\d+) │ (\d+) +│", text)
    table = {m.group(1): (int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in rows}
    files = read("flow/flow-coverage.json")
    report = json.loads((TOOLS / "flow/flow-coverage.json").read_text())["files"]
    assert set(files) == set(table) == {"src/main.js", "src/shapes.js"}
    for path, (total, typed, untyped) in table.items():
        lines = files[path]
        assert sum(hits for _, hits, _ in lines) == typed, path
        expressions = report[path]["expressions"]
        assert len(expressions["covered_locs"]) + len(expressions["uncovered_locs"]) == total == typed + untyped
        starts = {
            kind: {loc["start"]["line"] for loc in expressions[kind]} for kind in ("covered_locs", "uncovered_locs")
        }
        assert {n for n, s in states(lines).items() if s == MISS} == starts["uncovered_locs"] - starts["covered_locs"]
    assert states(files["src/shapes.js"])[11] == MISS  # shape.check(): every expression `any`


# GAP: CoverageLineByLine, and the profiling package's reports of it


def test_gap_profiling_packages_reports_agree_line_for_line():
    # What GAP packages upload: the profiling package's Codecov JSON (OutputJsonCoverage, counts 0/1),
    # its LCOV and its Coveralls JSON (both with counts) of one GAP run, read to the same lines.
    root = f"{WORK}/gap"
    codecov = read("gap/gap-coverage.json", root=root)
    lcov = read("gap/gap.lcov", root=root)
    coveralls = read("gap/coveralls.json")
    assert list(codecov) == list(lcov) == list(coveralls) == ["shapes.g"]
    assert states(codecov["shapes.g"]) == states(lcov["shapes.g"]) == states(coveralls["shapes.g"])
    assert lcov == coveralls and max(hits for _, hits, _ in lcov["shapes.g"]) == 2
    # The branch not taken (`return "isosceles"`) and the function never called (Area's body).
    assert {n for n, s in states(lcov["shapes.g"]).items() if s == MISS} == {6, 12}


def test_gaps_own_line_by_line_file_is_refused_as_codecov_refuses_it():
    # GAP 4.12's own file starts with a header line ("Type": "_") and interleaves files by FileId;
    # Codecov's GAP detector wants a "File" in the first line, and so does this one: refused, with
    # the profiling package's reports above to upload instead (docs/parsing.md).
    data = (TOOLS / "gap/line-by-line.coverage").read_bytes()
    assert data.startswith(b'{ "Type": "_"') and b'"FileId"' in data
    with pytest.raises(ReportError, match='unknown report format: a JSON object whose first key is "Type"'):
        detect_format(data)
    # Named (`--format gap`), it is read by FileId (its header and its line-0 rows skipped and counted):
    # shapes.g reads what the profiling package read of the same run.
    skips = Skips()
    files = merge_by_path(parse_report(data, format="gap", root=f"{WORK}/gap", skips=skips))
    assert states(files["shapes.g"]) == states(read("gap/gap.lcov", root=f"{WORK}/gap")["shapes.g"])
    assert skips.summary().endswith("5 lines numbered 0 or less, skipped; 1 lines outside a named file, skipped")


# Mono: the coverage profiler's XML


def test_mono_report_is_read_to_what_the_program_ran():
    """src/mono/Shapes.cs: Main calls Classify twice (equilateral, scalene) and never Area."""
    files = read("mono/coverage.xml")
    path = f"{WORK}/mono/Shapes.cs".lstrip("/")  # an absolute path, as every format keeps it
    assert list(files) == [path]
    lines = states(files[path])
    isosceles_branch, area = {12, 13}, {19, 20, 21}
    assert {line for line, state in lines.items() if state == MISS} == isosceles_branch | area
    assert set(lines) - isosceles_branch - area == {line for line, state in lines.items() if state == HIT}
    hits = {line: count for line, count, _ in files[path]}
    assert hits[7] == 2  # Classify's first test ran on both calls
    assert hits[9] == 1  # "equilateral" returned once


# PHP: PHPUnit + pcov


def test_phpunits_clover_and_cobertura_agree_with_its_text_summary():
    text = (TOOLS / "php/text.txt").read_text()
    match = re.search(r"\nShapes\n.*Lines:\s+[\d.]+% \(\s*(\d+)/\s*(\d+)\)", text)
    assert match
    expected = (int(match.group(1)), int(match.group(2)))
    clover = read("php/clover.xml", root=f"{WORK}/php")
    cobertura = read("php/cobertura.xml")
    assert (covered(cobertura["Shapes.php"]), len(cobertura["Shapes.php"])) == expected
    # Codecov also tracks Clover's type="method" lines (a method's declaration): without them the
    # Clover file is the Cobertura file, line for line.
    text = (TOOLS / "php/clover.xml").read_text()
    shapes = text[text.index("/Shapes.php") : text.index("</file>")]
    methods = {int(n) for n in re.findall(r'<line num="(\d+)" type="method"', shapes)}
    assert methods == {5, 19}
    statements = LineCoverage(entry for entry in clover["Shapes.php"] if entry[0] not in methods)
    assert statements == cobertura["Shapes.php"]
    assert len(clover["Shapes.php"]) == expected[1] + 2  # classify and area


def test_luacov_report_is_read_to_its_own_summary():
    # luacov's table: "File Hits Missed Coverage"; a table's "20" row (no code) is no count of 20.
    files = read("lua/luacov.report.out")
    text = (TOOLS / "lua/luacov.report.out").read_text()
    summary = {
        m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(r"^(\S+\.lua) +(\d+) +(\d+) ", text, re.M)
    }
    assert summary == {"run.lua": (5, 0), "shapes.lua": (15, 5)}
    assert {path: (lines.totals().hits, lines.totals().misses) for path, lines in files.items()} == summary
    assert 28 not in states(files["shapes.lua"])  # "      20" inside the weights table


def test_scoverage_is_read_to_its_statement_counts_per_line():
    # Hand-written in scoverage's writer's shape (no Scala toolchain in Debian): the header's 10
    # statements (one more ignored) on 7 lines, 6 invoked; line 6 has an invoked and a missed branch.
    files = read("scala/scoverage.xml", root="/home/runner/work/shapes/shapes")
    assert sorted(files) == ["src/main/scala/example/Shapes.scala", "src/main/scala/example/util/Units.scala"]
    shapes = files["src/main/scala/example/Shapes.scala"]
    assert states(shapes) == {5: HIT, 6: PARTIAL, 7: MISS, 10: HIT, 14: HIT}  # 11 ignored; 14 in the companion
    assert max(hits for _, hits, _ in shapes) == 12
    assert states(files["src/main/scala/example/util/Units.scala"]) == {3: MISS, 5: HIT}


def test_xccov_report_is_read_one_line_per_function():
    # Hand-written in Xcode's shape (no Xcode here): each function's first line, partial when some of
    # its lines did not run (coveredLines < executableLines); both targets' files.
    data = (TOOLS / "xcode/xccov-report.json").read_text()
    files = read("xcode/xccov-report.json", root="/Users/runner/work/shapes/shapes")
    assert states(files["Sources/Shapes/Shapes.swift"]) == {4: PARTIAL, 14: HIT, 22: MISS, 27: PARTIAL}
    assert states(files["Tests/ShapesTests/ShapesTests.swift"]) == {5: HIT, 11: MISS}
    functions = len(re.findall(r'"lineNumber"', data))
    assert sum(len(lines) for lines in files.values()) == functions


def test_every_tool_report_is_detected_as_its_format():
    expected = {
        "go/cover-set.out": "go",
        "c/main.c.gcov": "gcov",
        "c/gcovr-cobertura.xml": "cobertura",
        "c/gcovr-sonarqube.xml": "sonarqube",
        "llvm/export.lcov": "lcov",
        "js/coverage-final.json": "istanbul",
        "js/clover.xml": "clover",
        "ruby/resultset.json": "simplecov",
        "java/jacoco.xml": "jacoco",
        "java_modules/module_a/jacoco.xml": "jacoco",
        "d/source-shapes.lst": "dlst",
        "flow/flow-coverage.json": "flow",
        "mono/coverage.xml": "mono",
        "gap/gap-coverage.json": "codecov",
        "gap/gap.lcov": "lcov",
        "php/clover.xml": "clover",
        "php/cobertura.xml": "cobertura",
        "c/gcovr-coveralls.json": "coveralls",
        "codecov/coverage.json": "codecov",
        "c/main.gcov.json": "gcov_json",
        "llvm/export.json": "llvm",
        "llvm/show.txt": "xcode",
        "llvm/show-color.txt": "xcode",
        "r/covr.json": "covr",
        "lua/luacov.report.out": "luacov",
        "scala/scoverage.xml": "scoverage",
        "xcode/xccov-report.json": "xccov",
    }
    assert {name: detect_format((TOOLS / name).read_bytes()[:65536]) for name in expected} == expected
