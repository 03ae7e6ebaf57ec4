"""POST /upload/v2 with the real tools' reports of every format read since issue 25, in one legacy
envelope whose network file list places the paths the tools wrote (import paths, package folders,
absolute build paths) on the repository's files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from flask_coverage.queries.files import file_totals
from flask_coverage.queries.targets import resolve_commit

TOOLS = Path(__file__).parent.parent / "data" / "tools"
NETWORK = [
    "shapes.go",  # the Go module example.com/shapes is the repository's root, its go.mod there
    "c/main.c",
    "c/shapes.c",
    "c/shapes.h",
    "js/main.js",
    "js/shapes.js",
    "ruby/shapes.rb",
    "java/src/com/example/shapes/Shapes.java",
    "php/Shapes.php",
    "php/ShapesTest.php",
]


def envelope(*reports: str) -> bytes:
    """A legacy uploader's body: the network, then each report of tests/data/tools as a section."""
    parts = ["\n".join(NETWORK).encode(), b"\n<<<<<< network\n"]
    for name in reports:
        parts += [f"# path={name}\n".encode(), (TOOLS / name).read_bytes().rstrip(b"\n"), b"\n<<<<<< EOF\n"]
    return b"".join(parts)


def stored(commit) -> dict[str, tuple[int, int, int, int]]:
    return {row.path: (row.lines, row.hits, row.misses, row.partials) for row in file_totals(commit)}


def test_one_upload_of_every_new_format_is_placed_and_stored(testapp, widgets) -> None:
    sha = "e" * 40
    body = envelope(
        "go/cover-count.out",
        "c/main.c.gcov",
        "c/shapes.c.gcov",
        "c/shapes.h.gcov",
        "js/coverage-final.json",
        "ruby/resultset.json",
        "java/jacoco.xml",
        "php/clover.xml",
    )
    testapp.post(f"/upload/v2?commit={sha}&token={widgets.upload_token}", body, headers={"Content-Type": "text/plain"})
    assert stored(resolve_commit(widgets, sha=sha)) == {
        "shapes.go": (23, 11, 9, 3),
        "c/main.c": (7, 5, 1, 1),  # gcovr: 7 lines, 6 executed
        "c/shapes.c": (12, 3, 6, 3),  # 12 lines, 6 executed
        "c/shapes.h": (1, 1, 0, 0),
        "js/main.js": (2, 2, 0, 0),
        "js/shapes.js": (12, 8, 4, 0),  # nyc: 66.66 % of lines (its half-taken lines hits, as on Codecov)
        "ruby/shapes.rb": (11, 8, 3, 0),  # SimpleCov: 8 / 11 LOC
        "java/src/com/example/shapes/Shapes.java": (14, 5, 6, 3),  # JaCoCo: 6 missed, 8 covered
        "php/Shapes.php": (12, 6, 6, 0),  # PHPUnit: 5 / 10 lines, and the two method lines
        "php/ShapesTest.php": (4, 3, 1, 0),
    }


def test_the_formats_of_one_run_uploaded_apart_store_the_same_files(testapp, widgets) -> None:
    # (nyc's LCOV is read by its DA counts alone, as on Codecov: its Clover and Cobertura keep the partials.)
    runs = {
        "a" * 40: ["c/gcovr-sonarqube.xml"],
        "b" * 40: ["c/gcovr-cobertura.xml"],
        "c" * 40: ["js/clover.xml"],
        "d" * 40: ["js/cobertura-coverage.xml"],
    }
    for sha, reports in runs.items():
        url = f"/upload/v2?commit={sha}&token={widgets.upload_token}"
        testapp.post(url, envelope(*reports), headers={"Content-Type": "text/plain"})
    files = {sha: stored(resolve_commit(widgets, sha=sha)) for sha in runs}
    assert files["a" * 40] == files["b" * 40] and set(files["a" * 40]) == {"c/main.c", "c/shapes.c", "c/shapes.h"}
    assert files["c" * 40] == files["d" * 40] and set(files["c" * 40]) == {"js/main.js", "js/shapes.js"}


def test_odd_lines_of_a_new_format_are_said_in_the_answer_and_stored_with_the_upload(testapp, widgets, db) -> None:
    # JaCoCo and Go lines Codecov skips: skipped, counted, and said on the answer's last line.
    jacoco = (TOOLS / "java/jacoco.xml").read_bytes().replace(b'<line nr="4"', b'<line nr="0"', 1)
    go = (TOOLS / "go/cover-count.out").read_bytes() + b"example.com/shapes/shapes.go:19: Area 0.0%\n"
    body = "\n".join(NETWORK).encode() + b"\n<<<<<< network\n"
    body += b"# path=jacoco.xml\n" + jacoco + b"\n<<<<<< EOF\n# path=cover.out\n" + go + b"<<<<<< EOF\n"
    sha = "f" * 40
    response = testapp.post(
        f"/upload/v2?commit={sha}&token={widgets.upload_token}", body, headers={"Content-Type": "text/plain"}
    )
    blank, _url, summary, said, end = response.text.split("\n")
    assert (blank, end) == ("", "")
    assert said == (
        "skipped or clamped: 1 lines numbered 0 or less, skipped; 1 lines that are not coverage blocks, skipped"
    )
    assert json.loads(summary)["skipped"] == 2
    assert stored(resolve_commit(widgets, sha=sha))["java/src/com/example/shapes/Shapes.java"][0] == 13


def test_a_report_that_breaks_its_format_stores_nothing(testapp, widgets, snapshot) -> None:
    url = f"/upload/v2?commit={'f' * 40}&token={widgets.upload_token}"
    before = snapshot()
    bad = (TOOLS / "java/jacoco.xml").read_bytes().replace(b"</report>", b"</repor>")
    response = testapp.post(
        url,
        bad,
        headers={"Content-Type": "text/plain"},
        status=400,
    )
    assert response.text.startswith("Upload refused: invalid XML report: mismatched tag at line 1")
    assert snapshot() == before


def test_two_jacoco_modules_are_stored_apart_with_and_without_a_file_list(testapp, widgets) -> None:
    # A two-module build's reports, JaCoCo's own (generate.sh's java_modules): each names its module
    # (<report name="module_a">) and both hold com/x/Util.java. Each module's file keeps its own lines,
    # JaCoCo's CSV totals: (lines, hits, misses, partials), its covered lines the hits and partials.
    modules = {"module_a": (8, 3, 3, 2), "module_b": (12, 7, 5, 0)}
    for module, (lines, hits, misses, partials) in modules.items():
        with (TOOLS / f"java_modules/{module}/jacoco.csv").open() as rows:
            (row,) = csv.DictReader(rows)
        missed, covered = int(row["LINE_MISSED"]), int(row["LINE_COVERED"])
        assert (missed, covered, missed + covered) == (misses, hits + partials, lines)
    reports = b"".join(
        b"# path=%s/build/reports/jacoco/test/jacocoTestReport.xml\n%s\n<<<<<< EOF\n"
        % (m.encode(), (TOOLS / f"java_modules/{m}/jacoco.xml").read_bytes())
        for m in modules
    )
    network = b"module_a/src/main/java/com/x/Util.java\nmodule_b/src/main/java/com/x/Util.java\n<<<<<< network\n"
    for sha, body, prefix in (("1" * 40, network + reports, "src/main/java/"), ("2" * 40, reports, "")):
        url = f"/upload/v2?commit={sha}&token={widgets.upload_token}"
        testapp.post(url, body, headers={"Content-Type": "text/plain"})
        assert stored(resolve_commit(widgets, sha=sha)) == {
            f"{module}/{prefix}com/x/Util.java": totals for module, totals in modules.items()
        }


def test_files_without_tracked_lines_are_not_stored(testapp, widgets) -> None:
    # Codecov drops them: an LCOV record with no DA, a Cobertura class with no lines, a JaCoCo
    # source file with no lines. The upload's file count and the commit's files are those with lines.
    lcov = b"SF:a.c\nDA:1,1\nend_of_record\nSF:empty.c\nFN:1,main\nend_of_record\n"
    cobertura = (
        b'<?xml version="1.0" ?><coverage><packages><package name="p"><classes>'
        b'<class name="B" filename="b.py"><lines><line number="2" hits="0"/></lines></class>'
        b'<class name="E" filename="empty.py"><lines/></class></classes></package></packages></coverage>'
    )
    jacoco = (
        b'<?xml version="1.0"?><report name="r"><package name="p"><sourcefile name="C.java">'
        b'<line nr="3" mi="0" ci="1" mb="0" cb="0"/></sourcefile><sourcefile name="Empty.java">'
        b'<counter type="LINE" missed="0" covered="0"/></sourcefile></package></report>'
    )
    network = b"a.c\nempty.c\nb.py\nempty.py\nr/p/C.java\nr/p/Empty.java\n<<<<<< network\n"
    body = network + b"".join(b"# path=%d\n%s\n<<<<<< EOF\n" % (n, r) for n, r in enumerate((lcov, cobertura, jacoco)))
    sha = "3" * 40
    response = testapp.post(
        f"/upload/v2?commit={sha}&token={widgets.upload_token}", body, headers={"Content-Type": "text/plain"}
    )
    assert json.loads(response.text.split("\n")[2])["files"] == 3
    assert stored(resolve_commit(widgets, sha=sha)) == {
        "a.c": (1, 1, 0, 0),
        "b.py": (1, 0, 1, 0),
        "r/p/C.java": (1, 1, 0, 0),
    }
