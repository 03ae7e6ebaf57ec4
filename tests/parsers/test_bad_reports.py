"""Bad input of every kind gives a ReportError with a clear message, never another exception."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from flask_coverage.errors import ReportError, ReportTooLarge
from flask_coverage.parsers import detect_format, parse_report

DATA = Path(__file__).resolve().parent.parent / "data"


def parse_all(data: bytes, **options: object) -> list:
    return list(parse_report(data, **options))  # type: ignore[arg-type]


def cobertura(lines: str, filename: str = "a.py", prolog: str = "") -> bytes:
    return (
        f'<?xml version="1.0" ?>{prolog}<coverage><packages><package name="p"><classes>'
        f'<class name="a" filename="{filename}"><methods/><lines>{lines}</lines></class>'
        "</classes></package></packages></coverage>"
    ).encode()


def lcov(body: str, path: str = "a.py") -> bytes:
    return f"TN:\nSF:{path}\n{body}\nend_of_record\n".encode()


def test_empty_input():
    with pytest.raises(ReportError, match="^empty report$"):
        parse_all(b"")


def test_blank_input_with_explicit_format():
    with pytest.raises(ReportError, match="^empty report$"):
        parse_all(b" \n\t", format="lcov")


def test_unknown_format():
    message = (
        "unknown report format: text starting 'hello, this is not a coverage '; "
        "the formats read are Cobertura XML, coverage.py JSON, LCOV, JaCoCo XML, Go coverage profile, "
        "Istanbul JSON, Clover XML, gcov text, SonarQube generic coverage XML, SimpleCov JSON, Coveralls JSON, "
        "Codecov JSON, gcov JSON, llvm-cov export JSON, llvm-cov show text, OpenCover XML, R covr JSON, "
        "scoverage XML, luacov report, xccov JSON report, xccov archive JSON, dotCover XML, Flow coverage JSON, "
        "elm-coverage JSON, Salesforce Apex JSON, Xcode xccoverage plist, D coverage listing, BullseyeCoverage XML, "
        "Visual Studio coverage XML, GAP profile JSON lines, Mono coverage XML"
    )
    with pytest.raises(ReportError, match=f"^{re.escape(message)}$"):
        parse_all(b"hello, this is not a coverage report\n")


def test_unknown_format_argument():
    with pytest.raises(ReportError, match="unknown report format 'xml': expected auto or one of cobertura, "):
        parse_all(b"SF:a.py\n", format="xml")


def test_binary_garbage():
    with pytest.raises(ReportError, match="^unknown report format"):
        parse_all(bytes(range(256)) * 4)


def test_gzip_is_not_guessed():
    with pytest.raises(ReportError, match="^unknown report format"):
        parse_all(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\x00" * 64)


def test_other_xml():
    with pytest.raises(ReportError, match=r"^unknown report format: XML whose root element is <html>; the formats"):
        parse_all(b"<!DOCTYPE html><html><body>nope</body></html>")


def test_other_json():
    with pytest.raises(ReportError, match='^unknown report format: a JSON object whose first key is "totals";'):
        parse_all(b'{"totals": {}}')


def test_truncated_xml():
    data = (DATA / "marshmallow.coverage.xml").read_bytes()
    with pytest.raises(ReportError, match=r"^invalid XML report \(truncated\?\): unclosed token at line \d+"):
        parse_all(data[: len(data) // 2])


def test_truncated_xml_between_elements():
    data = (DATA / "marshmallow.coverage.xml").read_bytes()
    cut = data.index(b"</class>") + len(b"</class>")
    with pytest.raises(ReportError, match=r"^invalid XML report \(truncated\?\): no element found"):
        parse_all(data[:cut])


def test_malformed_xml():
    with pytest.raises(ReportError, match=r"^invalid XML report: mismatched tag at line 1"):
        parse_all(b"<coverage><packages></coverage>")


def test_truncated_json():
    data = (DATA / "marshmallow.coverage.json").read_bytes()
    with pytest.raises(ReportError, match=r"^invalid JSON report: it stops in the middle of a value \(truncated\?\)$"):
        parse_all(data[: len(data) // 2])


def test_invalid_json():
    with pytest.raises(ReportError, match=r"^invalid JSON report: expected ',' or '}' near"):
        parse_all(b'{"meta": {} "files": {}}')


def test_json_without_meta():
    with pytest.raises(ReportError, match="^not a coverage.py JSON report: it needs both meta and files$"):
        parse_all(b'{"files": {}}')


def test_invalid_utf8_lcov():
    with pytest.raises(ReportError, match=r"^report is not valid UTF-8 \(invalid byte at offset 8\)$"):
        parse_all(b"TN:\nSF:a\xff.py\nDA:1,1\nend_of_record\n")


def test_invalid_utf8_json():
    with pytest.raises(ReportError, match=r"^report is not valid UTF-8 \(invalid byte at offset \d+\)$"):
        parse_all(b'{"meta": {}, "files": {"a\xff.py": {"executed_lines": [1]}}}')


def test_invalid_utf8_xml():
    with pytest.raises(ReportError, match=r"^invalid XML report: not well-formed \(invalid token\) at line 1"):
        parse_all(cobertura('<line number="1" hits="1"/>', filename="a@.py").replace(b"a@", b"a\xff"))


def test_billion_laughs():
    prolog = (
        '<!DOCTYPE coverage [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
    )
    with pytest.raises(ReportError, match=r"^XML report declares entities \(<!ENTITY \.\.\.>\); they are refused"):
        parse_all(cobertura('<line number="1" hits="1"/>', filename="&lol3;", prolog=prolog))


def test_external_entity():
    prolog = '<!DOCTYPE coverage [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    with pytest.raises(ReportError, match="declares entities"):
        parse_all(cobertura('<line number="1" hits="1"/>', filename="&xxe;", prolog=prolog))


def test_external_parameter_entity():
    prolog = '<!DOCTYPE coverage [<!ENTITY % remote SYSTEM "http://example.invalid/evil.dtd"> %remote;]>'
    with pytest.raises(ReportError, match="declares entities"):
        parse_all(cobertura('<line number="1" hits="1"/>', prolog=prolog))


def test_undeclared_entity():
    with pytest.raises(ReportError, match="^invalid XML report: undefined entity at line 1"):
        parse_all(cobertura('<line number="1" hits="1"/>', filename="&nope;"))


def test_non_integer_line_number_in_json():
    with pytest.raises(ReportError, match=r"^invalid line number '\"7\"' in 'a.py': not an integer$"):
        parse_all(b'{"meta": {}, "files": {"a.py": {"executed_lines": ["7"]}}}')


def test_absurd_line_number():
    with pytest.raises(
        ReportError, match=r"^invalid line number '4294967296' in 'a.py': too large \(the limit is 10000000\)$"
    ):
        parse_all(lcov("DA:4294967296,1"))


def test_absurd_hit_count():
    with pytest.raises(ReportError, match=r"^invalid hit count '1{30}' for line 1 of 'a.py': "):
        parse_all(cobertura(f'<line number="1" hits="{"1" * 30}"/>'))
    with pytest.raises(ReportError, match=r"^invalid hit count '1e30' for line 1 of 'a.py': "):
        parse_all(lcov("DA:1,1e30"))


def test_absurd_number_in_json():
    with pytest.raises(ReportError, match="^invalid JSON report: a number is absurdly large$|too large"):
        parse_all(b'{"meta": {}, "files": {"a.py": {"executed_lines": [1' + b"0" * 5000 + b"]}}}")


def test_deeply_nested_json():
    with pytest.raises(ReportError, match="^invalid JSON report: nested too deeply$"):
        parse_all(b'{"meta": {}, "files": {"a.py": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}")


def test_path_climbing_out():
    with pytest.raises(ReportError, match=r"^path 'src/../../etc/passwd' climbs out of the repository root$"):
        parse_all(lcov("DA:1,1", path="src/../../etc/passwd"))


@pytest.mark.parametrize(
    ("path", "shown", "code"),
    [
        ("a\x1b[31m.py", r"a\\x1b\[31m.py", "001B"),  # C0 control
        ("src/c1\x85ctl.py", r"src/c1\\x85ctl.py", "0085"),  # C1 control
        ("src/\u202egnp.py", r"src/\\u202egnp.py", "202E"),  # right-to-left override
        ("a\u200bb.py", r"a\\u200bb.py", "200B"),  # zero-width space
        ("a\ufeffb.py", r"a\\ufeffb.py", "FEFF"),  # byte order mark inside a name
        ("a\u2028b.py", r"a\\u2028b.py", "2028"),  # line separator
    ],
)
def test_paths_that_cannot_be_shown_are_refused_and_escaped(path: str, shown: str, code: str) -> None:
    rule = r"must not contain control, format \(bidirectional, zero-width\) or line-separator characters"
    message = rf"^path '{shown}' {rule} \(it holds U\+{code}\)$"
    reports = [lcov("DA:1,1", path=path)]
    if path.isprintable() or code != "001B":  # XML itself cannot hold C0 controls
        reports.append(cobertura('<line number="1" hits="1"/>', filename=path))
    for report in reports:
        with pytest.raises(ReportError, match=message):
            parse_all(report)


def test_other_unicode_paths_are_kept() -> None:
    (parsed,) = parse_all(lcov("DA:1,1", path="src/caf\u00e9/\u65e5\u672c \u00a0x.py"))
    assert parsed.path == "src/caf\u00e9/\u65e5\u672c \u00a0x.py"


def test_report_too_large_from_file_object():
    data = (DATA / "d3-hierarchy.lcov").read_bytes()
    with pytest.raises(ReportTooLarge, match="^report is larger than the limit of 100 bytes$"):
        list(parse_report(io.BytesIO(data), max_bytes=100))


def test_detect_format_refuses_empty_head():
    with pytest.raises(ReportError, match="^empty report$"):
        detect_format(b"\xef\xbb\xbf  \n")


def test_lcov_line_without_end():
    with pytest.raises(ReportError, match=r"^LCOV line 2 is longer than 1048576 characters$"):
        parse_all(b"TN:\nSF:" + b"a" * 3_000_000)


def test_json_blank_run_is_skipped_quickly():
    # Millions of blanks are skipped by a regular-expression search, not a Python loop per character.
    assert parse_all(b'{"meta": {}, "files": {' + b" " * 5_000_000 + b"}}") == []


def test_a_huge_source_is_refused_without_being_kept():
    data = b"<coverage><sources><source>" + b"x" * 500_000 + b"</source></sources></coverage>"
    with pytest.raises(ReportError, match="a <source> is longer than 4096 characters"):
        parse_all(data)


@pytest.mark.parametrize("run", [b'<class filename="' + b"a" * 3_000_000 + b'">', b"<x>" + b"t" * 3_000_000 + b"</x>"])
def test_one_long_tag_or_text_is_refused_before_expat_holds_it(run: bytes) -> None:
    data = b"<coverage><packages>" + run + b"</packages></coverage>"
    with pytest.raises(ReportError, match="a tag or text runs over 1048576 bytes"):
        list(parse_report(io.BytesIO(data)))


@pytest.mark.parametrize(
    ("report", "root"),
    [
        (DATA / "tools" / "vscoverage" / "shapes.dspriv.xml", "CoverageDSPriv"),
        (
            b'<?xml version="1.0"?>\n<coverage version="0.3">\n\t<assembly name="a"/>\n\t<method filename="/w/a.cs">'
            b'\n\t\t<statement offset="0" counter="1" line="3" column="0"/>\n\t</method>\n</coverage>\n',
            "coverage",
        ),
    ],
    ids=["CoverageDSPriv", "Mono"],
)
def test_the_older_xml_shapes_refuse_what_every_xml_format_refuses(report: object, root: str) -> None:
    data = report.read_bytes() if isinstance(report, Path) else report
    assert isinstance(data, bytes)
    with pytest.raises(ReportError, match=r"^invalid XML report \(truncated\?\): "):
        parse_all(data[: data.rindex(b"</")])
    with pytest.raises(ReportError, match=r"^invalid XML report: mismatched tag at line"):
        parse_all(data.replace(f"</{root}>".encode(), b"</x>"))
    entity = f'<!DOCTYPE {root} [<!ENTITY e "e">]>'.encode()
    with pytest.raises(ReportError, match="declares entities"):
        parse_all(data.replace(f"<{root}".encode(), entity + f"<{root}".encode(), 1))
