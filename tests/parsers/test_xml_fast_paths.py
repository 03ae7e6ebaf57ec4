"""The XML parsers read their hot element on a fast path when its attributes come in the writer's usual
order with small numbers, and on the checked path otherwise (``parsers/_xml.py``). Both must give the
same lines and the same skip counts: the same report with its attributes in another order (which only
the checked path reads) is the reference."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL, LineColumns, LineCoverage
from flask_coverage.parsers import Skips, merge_by_path, parse_report

# Numbers as reports write them: small (the fast path), past the table, odd (checked: skipped,
# clamped or refused, and counted).
NUMBERS = st.one_of(
    st.integers(0, 40).map(str),
    st.sampled_from(["9999", "10000", "123456", "0042", " 7", "-1", "1.0", "1e+0", "", "undefined", "+3", "1_0"]),
)


def element(name: str, attrs: list[tuple[str, str]], reverse: bool) -> str:
    pairs = reversed(attrs) if reverse else attrs
    return f"<{name} " + " ".join(f'{key}="{value}"' for key, value in pairs) + "/>"


# What follows number and hits, by kind: nothing, four condition-coverages, branch="false" (Istanbul,
# gcovr), coverage.py's missing-branches.
COBERTURA_BRANCHES: list[list[tuple[str, str]]] = [
    [],
    *([("branch", "true"), ("condition-coverage", text)] for text in ["0% (0/2)", "50% (1/2)", "100% (2/2)", "?"]),
    [("branch", "false")],
    [("branch", "true"), ("condition-coverage", "50% (1/2)"), ("missing-branches", "3")],
]


def cobertura(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    body = "".join(
        element(
            "line",
            [("number", number), ("hits", hits)] + COBERTURA_BRANCHES[kind],
            reverse,
        )
        for number, hits, kind in lines
    )
    return (
        b'<?xml version="1.0" ?><coverage><packages><package name="p"><classes>'
        + f'<class name="a" filename="a.py"><methods/><lines>{body}</lines></class>'.encode()
        + b"</classes></package></packages></coverage>"
    )


def jacoco(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    body = "".join(
        element(
            "line", [("nr", number), ("mi", "1"), ("ci", hits), ("mb", str(kind % 2)), ("cb", str(kind // 2))], reverse
        )
        for number, hits, kind in lines
    )
    return (
        f'<report name="r"><package name="p"><sourcefile name="A.java">{body}</sourcefile></package></report>'.encode()
    )


def clover(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    body = "".join(
        element("line", [("num", number), ("type", "stmt"), ("count", hits)], reverse)
        if kind % 2
        else element(
            "line",
            [("num", number), ("count", hits), ("type", "cond" if kind else "stmt")]
            + ([("truecount", "1"), ("falsecount", "0")] if kind else []),
            reverse,
        )
        for number, hits, kind in lines
    )
    return f'<coverage generated="1"><project><file name="a.js">{body}</file></project></coverage>'.encode()


def sonarqube(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    body = "".join(
        element(
            "lineToCover",
            [
                ("lineNumber", number),
                ("covered", ("true" if int(hits) else "false") if hits.isdigit() else hits),
            ]
            + ([("branchesToCover", "2"), ("coveredBranches", str(kind % 3))] if kind else []),
            reverse,
        )
        for number, hits, kind in lines
    )
    return f'<coverage version="1"><file path="a.c">{body}</file></coverage>'.encode()


def opencover(lines: list[tuple[str, str, int]], reverse: bool) -> bytes:
    points = "".join(
        element(
            "SequencePoint",
            [
                ("vc", hits),
                ("uspid", "1"),
                ("ordinal", "0"),
                ("sl", number),
                ("sc", "1"),
                ("el", number),
                ("ec", "9"),
                ("bec", str(kind and 2)),
                ("bev", str(kind % 3)),
                ("fileid", "1"),
            ],
            reverse,
        )
        for number, hits, kind in lines
    )
    return (
        '<CoverageSession><Modules><Module><Files><File uid="1" fullPath="C:\\w\\A.cs"/></Files><Classes><Class>'
        f'<Methods><Method><FileRef uid="1"/><SequencePoints>{points}</SequencePoints></Method></Methods>'
        "</Class></Classes></Module></Modules></CoverageSession>"
    ).encode()


WRITERS = {"cobertura": cobertura, "jacoco": jacoco, "clover": clover, "sonarqube": sonarqube, "opencover": opencover}


def read(data: bytes, format: str) -> tuple[object, dict[str, int]]:
    skips = Skips()
    try:
        files = {
            path: list(lines) for path, lines in merge_by_path(parse_report(data, format=format, skips=skips)).items()
        }
    except ReportError as error:
        return str(error), skips.counts
    return files, skips.counts


@pytest.mark.parametrize("format", sorted(WRITERS))
@given(lines=st.lists(st.tuples(NUMBERS, NUMBERS, st.integers(0, 6)), max_size=12))
def test_the_fast_path_reads_as_the_checked_path(format, lines):
    write = WRITERS[format]
    assert read(write(lines, reverse=False), format) == read(write(lines, reverse=True), format)


@pytest.mark.parametrize("format", sorted(WRITERS))
def test_usual_lines_are_read_on_either_path(format):
    lines = [("3", "2", 0), ("1", "0", 0), ("2", "5", 1), ("3", "1", 2), ("12345", "67890", 0)]
    write = WRITERS[format]
    files, skips = read(write(lines, reverse=False), format)
    assert (files, skips) == read(write(lines, reverse=True), format)
    assert isinstance(files, dict) and len(files) == 1 and not skips
    (tracked,) = files.values()
    assert [line for line, _, _ in tracked] == [1, 2, 3, 12345]


def test_cobertura_branch_lines_take_their_state_from_the_conditions_on_the_fast_path():
    lines = [("1", "3", 1), ("2", "3", 2), ("3", "0", 3), ("4", "3", 4), ("5", "0", 4)]
    files, _ = read(cobertura(lines, reverse=False), "cobertura")
    assert files == {"a.py": [(1, 3, MISS), (2, 3, PARTIAL), (3, 0, HIT), (4, 3, HIT), (5, 0, MISS)]}


# Clover's <line>s by kind: Istanbul's stmt and cond lines (num count type [truecount falsecount]),
# PHPUnit's stmt and method lines (num type [name visibility complexity crap] count), and shapes only
# the checked path reads: cond lines in PHPUnit's orders, one without a count, a method in Istanbul's.
CLOVER_LINES = [
    lambda number, hits, trues, falses: [("num", number), ("count", hits), ("type", "stmt")],
    lambda number, hits, trues, falses: [
        ("num", number),
        ("count", hits),
        ("type", "cond"),
        ("truecount", trues),
        ("falsecount", falses),
    ],
    lambda number, hits, trues, falses: [("num", number), ("type", "stmt"), ("count", hits)],
    lambda number, hits, trues, falses: [
        ("num", number),
        ("type", "method"),
        ("name", "area"),
        ("visibility", "public"),
        ("complexity", "2"),
        ("crap", "6"),
        ("count", hits),
    ],
    lambda number, hits, trues, falses: [("num", number), ("type", "cond"), ("count", hits)],
    lambda number, hits, trues, falses: [
        ("num", number),
        ("type", "cond"),
        ("truecount", trues),
        ("falsecount", falses),
    ],
    lambda number, hits, trues, falses: [("num", number), ("count", hits), ("type", "method")],
    lambda number, hits, trues, falses: [
        ("num", number),
        ("type", "cond"),
        ("name", "area"),
        ("visibility", "public"),
        ("truecount", trues),
        ("falsecount", falses),
        ("count", hits),
    ],
]


def clover_report(
    files: list[tuple[str, str, str, list[tuple[str, str, int, str, str]]]], istanbul: bool, reverse: bool
):
    """A Clover report of ``files`` (name, path or "-" for none, loc, lines), its root Istanbul's or
    OpenClover's."""
    root = element("coverage", [("generated", "1"), ("clover", "3.2.0" if istanbul else "4.5.2")], reverse)
    body = []
    for name, path, loc, lines in files:
        body.append(element("file", [("name", name)] + ([("path", path)] if path != "-" else []), reverse)[:-2] + ">")
        body.extend(
            element("line", CLOVER_LINES[kind](number, hits, trues, falses), reverse)
            for number, hits, kind, trues, falses in lines
        )
        body.append(element("metrics", [("loc", loc), ("statements", "1")], reverse) + "</file>")
    return (root[:-2] + "><project>" + "".join(body) + "</project></coverage>").encode()


CLOVER_FILES = st.lists(
    st.tuples(
        st.sampled_from(["a.js", "a.php", "b.php", " ", "{a}.php", "vendor/x/a.php"]),
        st.sampled_from(["-", "", "src/a.js", "/w/src/c.php"]),
        NUMBERS,
        st.lists(st.tuples(NUMBERS, NUMBERS, st.integers(0, len(CLOVER_LINES) - 1), NUMBERS, NUMBERS), max_size=8),
    ),
    max_size=3,
)


@given(files=CLOVER_FILES, istanbul=st.booleans())
def test_clover_fast_path_reads_every_shape_as_the_checked_path(files, istanbul):
    assert read(clover_report(files, istanbul, reverse=False), "clover") == read(
        clover_report(files, istanbul, reverse=True), "clover"
    )


@pytest.mark.parametrize("istanbul", [False, True])
def test_clover_usual_lines_never_take_the_checked_path(monkeypatch, istanbul):
    from flask_coverage.parsers import clover as clover_module

    def refuse(self, attrs):
        raise AssertionError(f"checked path taken by {attrs}")

    lines = [
        ("1", "3", 0, "", ""),
        ("2", "0", 0, "", ""),
        ("3", "2", 1, "4", "0"),
        ("4", "1", 1, "0", "2"),
        ("5", "5", 1, "1", "1"),
        ("6", "0", 1, "0", "0"),
        ("7", "9999", 2, "", ""),
        ("8", "0", 2, "", ""),
        ("9", "1", 3, "", ""),
        ("10", "0", 3, "", ""),
    ]
    report = clover_report([("a.js", "src/a.js", "10", lines)], istanbul, reverse=False)
    expected = read(report, "clover")
    monkeypatch.setattr(clover_module._CloverReader, "checked_line", refuse)
    assert read(report, "clover") == expected
    assert expected == (
        {
            "src/a.js": [
                (1, 3, HIT),
                (2, 0, MISS),
                (3, 2, PARTIAL if not istanbul else HIT),
                (4, 1, PARTIAL),
                (5, 5, HIT if not istanbul else PARTIAL),
                (6, 0, MISS),
                (7, 9999, HIT),
                (8, 0, MISS),
                (9, 1, HIT),
                (10, 0, MISS),
            ]
        },
        {},
    )


def test_clover_project_metrics_do_not_cut_the_last_php_file():
    # No end tags are followed: a PHP file's loc is its own <metrics> (a project's counts files).
    data = (
        b'<coverage generated="1"><project><file name="a.php"><line num="5" type="stmt" count="1"/>'
        b'</file><metrics files="1" loc="2"/></project></coverage>'
    )
    assert read(data, "clover") == ({"a.php": [(5, 1, HIT)]}, {})


def test_line_columns_collect_in_c_and_build_like_the_builder():
    columns = LineColumns()
    add_line, add_hits, add_state = columns.lines.append, columns.hits.append, columns.states.append
    for line, hits, state in [(3, 1, HIT), (1, 0, MISS), (3, 2, PARTIAL)]:
        add_line(line)
        add_hits(hits)
        add_state(state)
    columns.add(7, 2**40, HIT)
    assert columns.take() == LineCoverage([(1, 0, MISS), (3, 3, HIT), (7, 2**32 - 1, HIT)])
    assert len(columns) == 0 and len(columns.take()) == 0
    add_line(5)  # the bound appends still fill the columns after a take
    add_hits(1)
    add_state(HIT)
    assert columns.take() == LineCoverage([(5, 1, HIT)])
    assert isinstance(columns.lines, array) and len(columns) == 0


def test_cobertura_branch_lines_without_conditions_take_the_hits():
    data = cobertura([], reverse=False).replace(
        b"<lines></lines>",
        b'<lines><line number="1" hits="2" branch="true"/><line number="2" hits="0" branch="TRUE"/></lines>',
    )
    assert read(data, "cobertura") == ({"a.py": [(1, 2, HIT), (2, 0, MISS)]}, {})


def test_opencover_a_files_methods_among_other_files_methods_and_modules():
    # Methods of a file among other files' methods, the checked path the reference; uids are a module's own.
    def point(number: int, visits: str, reverse: bool) -> str:
        attrs = [("vc", visits), ("uspid", "1"), ("ordinal", "0"), ("sl", str(number)), ("sc", "1")]
        attrs += [("el", str(number)), ("ec", "9"), ("bec", "0"), ("bev", "0"), ("fileid", "1")]
        return element("SequencePoint", attrs, reverse)

    def module(files: dict[str, str], methods: list[tuple[str, list[tuple[int, str]]]], reverse: bool) -> str:
        listed = "".join(f'<File uid="{uid}" fullPath="{path}"/>' for uid, path in files.items())
        bodies = "".join(
            f'<Method><FileRef uid="{uid}"/><SequencePoints>'
            + "".join(point(number, visits, reverse) for number, visits in points)
            + "</SequencePoints></Method>"
            for uid, points in methods
        )
        return f"<Module><Files>{listed}</Files><Classes><Class><Methods>{bodies}</Methods></Class></Classes></Module>"

    def report(reverse: bool) -> bytes:
        first = module(
            {"1": "a.cs", "2": "b.cs"},
            [("1", [(1, "3")]), ("2", [(5, "0")]), ("1", [(2, "0"), (3, "1")]), ("9", [(1, "1")])],
            reverse,
        )
        second = module({"1": "c.cs"}, [("1", [(4, "2")])], reverse)
        return f"<CoverageSession><Modules>{first}{second}</Modules></CoverageSession>".encode()

    files, skips = read(report(reverse=False), "opencover")
    assert (files, skips) == read(report(reverse=True), "opencover")
    assert files == {
        "a.cs": [(1, 3, HIT), (2, 0, MISS), (3, 1, HIT)],
        "b.cs": [(5, 0, MISS)],
        "c.cs": [(4, 2, HIT)],
    }
    assert skips == {"methods of a file not listed, skipped": 1}


# JaCoCo's <line>s by kind: as JaCoCo writes them (nr mi ci mb cb), and shapes only the checked path
# reads: a count missing, an attribute more.
JACOCO_LINES = [
    lambda number, missed, covered, missed_branches, covered_branches: [
        ("nr", number),
        ("mi", missed),
        ("ci", covered),
        ("mb", missed_branches),
        ("cb", covered_branches),
    ],
    lambda number, missed, covered, missed_branches, covered_branches: [
        ("nr", number),
        ("mi", missed),
        ("ci", covered),
    ],
    lambda number, missed, covered, missed_branches, covered_branches: [
        ("nr", number),
        ("mi", missed),
        ("ci", covered),
        ("mb", missed_branches),
        ("cb", covered_branches),
        ("x", "1"),
    ],
]


def jacoco_report(
    packages: list[tuple[str, list[tuple[str, list[tuple[int, str, str, str, str, str]]]]]], reverse: bool
):
    """A JaCoCo report of ``packages`` (name, source files: name, lines), a counter after each file's
    lines and each package's files, as JaCoCo writes them."""
    counter = element("counter", [("type", "LINE"), ("missed", "1"), ("covered", "2")], reverse)
    body = []
    for package, files in packages:
        body.append(f'<package name="{package}">')
        for name, lines in files:
            body.append(f'<sourcefile name="{name}">')
            body.extend(element("line", JACOCO_LINES[kind](*counts), reverse) for kind, *counts in lines)
            body.append(counter + "</sourcefile>")
        body.append(counter + "</package>")
    return f'<report name="r">{"".join(body)}{counter}</report>'.encode()


# Counts where JaCoCo's states turn (0, 1, 2) often, so every state is drawn.
JACOCO_COUNTS = st.one_of(st.sampled_from(["0", "1", "2"]), NUMBERS)
JACOCO_PACKAGES = st.lists(
    st.tuples(
        st.sampled_from(["com/acme", "", "/org/x/"]),
        st.lists(
            st.tuples(
                st.sampled_from(["A.java", "B.kt", " "]),
                st.lists(
                    st.tuples(
                        st.integers(0, len(JACOCO_LINES) - 1),
                        NUMBERS,
                        JACOCO_COUNTS,
                        JACOCO_COUNTS,
                        JACOCO_COUNTS,
                        JACOCO_COUNTS,
                    ),
                    max_size=8,
                ),
            ),
            max_size=3,
        ),
    ),
    max_size=3,
)


@given(packages=JACOCO_PACKAGES)
def test_jacoco_fast_path_reads_every_shape_as_the_checked_path(packages):
    assert read(jacoco_report(packages, reverse=False), "jacoco") == read(
        jacoco_report(packages, reverse=True), "jacoco"
    )


def refuse_the_checked_path(self, attrs):
    raise AssertionError(f"checked path taken by {attrs}")


def test_jacoco_usual_lines_never_take_the_checked_path(monkeypatch):
    from flask_coverage.parsers import jacoco as jacoco_module

    lines = [
        (0, "1", "0", "3", "0", "0"),
        (0, "2", "2", "0", "0", "0"),
        (0, "3", "0", "0", "1", "1"),
        (0, "4", "0", "2", "1", "1"),
        (0, "5", "1", "0", "2", "0"),
        (0, "6", "0", "9999", "0", "2"),
    ]
    report = jacoco_report([("com/acme", [("A.java", lines), ("B.java", lines[:2])])], reverse=False)
    expected = read(report, "jacoco")
    monkeypatch.setattr(jacoco_module._JacocoReader, "checked_line", refuse_the_checked_path)
    assert read(report, "jacoco") == expected
    assert expected == (
        {
            "com/acme/A.java": [
                (1, 3, HIT),
                (2, 0, MISS),
                (3, 1, PARTIAL),
                (4, 2, PARTIAL),
                (5, 0, MISS),
                (6, 9999, HIT),
            ],
            "com/acme/B.java": [(1, 3, HIT), (2, 0, MISS)],
        },
        {},
    )


def test_sonarqube_usual_lines_never_take_the_checked_path(monkeypatch):
    from flask_coverage.parsers import sonarqube as sonarqube_module

    lines = [("1", "3", 0), ("2", "0", 0), ("3", "1", 1), ("4", "1", 2), ("5", "0", 3)]
    report = sonarqube(lines, reverse=False).replace(b"</file>", b'</file><file path="b.c"></file>')
    expected = read(report, "sonarqube")
    monkeypatch.setattr(sonarqube_module._SonarReader, "checked_line", refuse_the_checked_path)
    assert read(report, "sonarqube") == expected
    assert expected == ({"a.c": [(1, 1, HIT), (2, 0, MISS), (3, 1, PARTIAL), (4, 1, HIT), (5, 0, MISS)], "b.c": []}, {})
