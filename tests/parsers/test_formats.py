"""Format detection and the line-state rules of each format, on small hand-written reports."""

from __future__ import annotations

import io

import pytest

from flask_coverage.errors import ReportError
from flask_coverage.lines import HIT, MISS, PARTIAL
from flask_coverage.parsers import detect_format, merge_by_path, parse_report


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'<?xml version="1.0" ?>\n<coverage version="7">', "cobertura"),
        (b"\xef\xbb\xbf<coverage>", "cobertura"),
        (
            b'<?xml version="1.0"?>\n<!-- by a tool -->\n<!DOCTYPE coverage SYSTEM "http://x/c.dtd">\n<coverage ',
            "cobertura",
        ),
        (b'<!DOCTYPE coverage [<!ENTITY a "b">]><coverage>', "cobertura"),  # refused later, by the parser
        (b'{"meta": {"format": 3}, "files": {', "coveragepy"),
        (b'  {\n  "files": {}', "coveragepy"),
        (b"TN:\nSF:src/a.c\n", "lcov"),
        (b"SF:/abs/a.c\nDA:1,1\n", "lcov"),
        (b"VER:2.0\nTN:x\n", "lcov"),
    ],
)
def test_detect_format(head, expected):
    assert detect_format(head) == expected


def test_detection_ignores_what_a_file_is_called():
    # Only content counts: an LCOV body is LCOV even when the caller thinks it is XML.
    data = b"TN:\nSF:a.py\nDA:1,1\nend_of_record\n"
    assert [f.path for f in parse_report(data)] == ["a.py"]


def cobertura_lines(lines: str, methods: str = "<methods/>") -> list[tuple[int, int, int]]:
    data = (
        '<coverage><packages><package name="p"><classes><class name="a" filename="a.py">'
        f"{methods}<lines>{lines}</lines></class></classes></package></packages></coverage>"
    ).encode()
    (parsed,) = parse_report(data)
    return list(parsed.lines)


def test_cobertura_line_states():
    lines = cobertura_lines(
        '<line number="1" hits="3"/>'
        '<line number="2" hits="0"/>'
        '<line number="3" hits="2" branch="true" condition-coverage="50% (1/2)"/>'
        '<line number="4" hits="2" branch="true" condition-coverage="100% (2/2)"/>'
        '<line number="5" hits="0" branch="true" condition-coverage="0% (0/2)"/>'
        '<line number="6" hits="1" branch="false"/>'
        '<line number="7" hits="1" branch="true"/>'
    )
    assert lines == [(1, 3, HIT), (2, 0, MISS), (3, 2, PARTIAL), (4, 2, HIT), (5, 0, MISS), (6, 1, HIT), (7, 1, HIT)]


def test_cobertura_method_lines_count_only_without_class_lines():
    methods = '<methods><method name="f"><lines><line number="1" hits="9"/></lines></method></methods>'
    assert cobertura_lines('<line number="1" hits="1"/><line number="2" hits="0"/>', methods) == [
        (1, 1, HIT),
        (2, 0, MISS),
    ]
    assert cobertura_lines("", methods) == [(1, 9, HIT)]


def test_a_source_inside_methods_stays_in_its_class():
    """A ``<source>`` element inside ``<methods>`` (seen in the wild) is not a source folder and does
    not end the methods early: the next class's lines are its own."""
    data = (
        b"<coverage><sources><source>/w/r</source></sources><packages><package><classes>"
        b'<class filename="/w/r/a.py"><methods><method name="f"><source>x</source>'
        b'<lines><line number="9" hits="1"/></lines></method></methods>'
        b'<lines><line number="1" hits="1"/></lines></class>'
        b'<class filename="/w/r/b.py"><methods/><lines><line number="2" hits="0"/></lines></class>'
        b"</classes></package></packages></coverage>"
    )
    assert [(f.path, list(f.lines)) for f in parse_report(data)] == [("a.py", [(1, 1, HIT)]), ("b.py", [(2, 0, MISS)])]


def test_lcov_with_a_byte_order_mark():
    data = b"\xef\xbb\xbfTN:\nSF:a.py\nDA:1,1\nend_of_record\n"
    for format in ("auto", "lcov"):
        assert [(f.path, list(f.lines)) for f in parse_report(data, format=format)] == [("a.py", [(1, 1, HIT)])]
    # Split anywhere, even inside the mark.
    assert [f.path for f in parse_report(io.BytesIO(data))] == ["a.py"]


def test_cobertura_classes_of_one_file_are_yielded_separately():
    data = (
        b'<coverage><packages><package name="p"><classes>'
        b'<class name="A" filename="A.java"><lines><line number="1" hits="1"/></lines></class>'
        b'<class name="A$B" filename="A.java"><lines><line number="5" hits="0"/></lines></class>'
        b"</classes></package></packages></coverage>"
    )
    parsed = list(parse_report(data))
    assert [f.path for f in parsed] == ["A.java", "A.java"]
    assert list(merge_by_path(parsed)["A.java"]) == [(1, 1, HIT), (5, 0, MISS)]


def test_lcov_line_states():
    data = (
        b"TN:\nSF:a.c\nDA:1,5\nDA:2,0\nDA:3,4\nDA:4,2,abcdef\nDA:5,0\n"
        b"BRDA:3,0,0,4\nBRDA:3,0,1,0\nBRDA:4,0,0,1\nBRDA:4,0,1,1\nBRDA:5,0,0,-\nBRDA:5,0,1,-\n"
        b"LF:5\nLH:3\nend_of_record\n"
    )
    (parsed,) = parse_report(data)
    assert list(parsed.lines) == [(1, 5, HIT), (2, 0, MISS), (3, 4, PARTIAL), (4, 2, HIT), (5, 0, MISS)]


def test_lcov_windows_line_ends_and_repeated_records():
    data = b"TN:t1\r\nSF:a.c\r\nDA:1,1\r\nDA:2,0\r\nend_of_record\r\nTN:t2\r\nSF:a.c\r\nDA:2,3\r\nend_of_record"
    parsed = list(parse_report(data))
    assert [f.path for f in parsed] == ["a.c", "a.c"]
    assert list(merge_by_path(parsed)["a.c"]) == [(1, 1, HIT), (2, 3, HIT)]


def test_lcov_branch_names_with_commas():
    # coverage.py writes branch descriptions; only the first and last fields matter. Its one branch
    # was not taken: a miss, as on Codecov, though the line ran.
    data = b"SF:a.py\nDA:1,1\nBRDA:1,0,jump to line 2, or not,0\nBRDA:2,0,x,y,1\nend_of_record\n"
    (parsed,) = parse_report(data)
    assert list(parsed.lines) == [(1, 1, MISS), (2, 1, HIT)]


def test_coveragepy_line_states():
    data = (
        b'{"meta": {"format": 3}, "files": {"a.py": {"executed_lines": [1, 3, 4], "missing_lines": [2, 5],'
        b' "executed_branches": [[3, 4], [4, 5]], "missing_branches": [[3, -1], [5, 6]], "excluded_lines": [9]}},'
        b' "totals": {"covered_lines": 3}}'
    )
    (parsed,) = parse_report(data)
    assert parsed.path == "a.py"
    assert list(parsed.lines) == [(1, 1, HIT), (2, 0, MISS), (3, 1, PARTIAL), (4, 1, HIT), (5, 0, MISS)]


def test_coveragepy_keys_in_any_order():
    data = b'{"totals": {}, "files": {"b.py": {"executed_lines": [2]}}, "meta": {}}'
    assert [(f.path, list(f.lines)) for f in parse_report(data)] == [("b.py", [(2, 1, HIT)])]


def test_coveragepy_is_streamed_across_small_reads():
    import io

    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self._data = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            return self._data.read(1)  # one byte at a time: every token is split somewhere

    data = '{"meta": {}, "files": {"é/a.py": {"executed_lines": [1, 22, 333], "missing_lines": [4444]}}}'.encode()
    (parsed,) = parse_report(Trickle(data))
    assert parsed.path == "é/a.py"
    assert [line for line, _, _ in parsed.lines] == [1, 22, 333, 4444]


@pytest.mark.parametrize(
    "head",
    [
        b'<?xml version="1.0"?>' + b" " * 60_000 + b"!",
        b"<!--a-->" * 8_000 + b"!",
        b"<?pi x?>" * 8_000 + b"!",
        b"<!DOCTYPE x [" + b"]" * 60_000,
    ],
)
def test_detection_is_linear_on_hostile_prologs(head):
    # A regular expression for the prolog backtracked exponentially on these; now they are instant.
    with pytest.raises(ReportError, match="^unknown report format: XML without a root element; the formats read"):
        detect_format(head)
