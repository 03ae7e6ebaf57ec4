"""The format registry: every detector accepts its own reports and refuses every other format's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_older_shapes import MONO

from flask_coverage.errors import ReportError
from flask_coverage.parsers import REPORT_FORMATS, ReportHead, Skips, detect_format
from flask_coverage.parsers._format import MAX_SKIP_REASONS, OTHER_REASON

DATA = Path(__file__).resolve().parent.parent / "data"

#: Real reports by the format they are: a format plugged in adds its samples here.
SAMPLES = {
    "cobertura": [
        "marshmallow.coverage.xml",
        "flask-sqlalchemy.coverage.xml",
        "d3-hierarchy.cobertura.xml",
        "tools/c/gcovr-cobertura.xml",
        "tools/js/cobertura-coverage.xml",
        "tools/php/cobertura.xml",
    ],
    "coveragepy": ["marshmallow.coverage.json", "flask-sqlalchemy.coverage.json"],
    "lcov": [
        "marshmallow.lcov",
        "flask-sqlalchemy.lcov",
        "d3-hierarchy.lcov",
        "tools/js/lcov.info",
        "tools/llvm/export.lcov",
    ],
    "jacoco": ["tools/java/jacoco.xml"],
    "go": ["tools/go/cover-set.out", "tools/go/cover-count.out", "tools/go/cover-atomic.out"],
    "istanbul": ["tools/js/coverage-final.json", "tools/jscover/jscoverage.json"],
    "clover": ["tools/js/clover.xml", "tools/php/clover.xml"],
    "gcov": ["tools/c/main.c.gcov", "tools/c/shapes.c.gcov", "tools/c/shapes.h.gcov"],
    "sonarqube": ["tools/c/gcovr-sonarqube.xml"],
    "simplecov": ["tools/ruby/resultset.json"],
    "coveralls": ["tools/c/gcovr-coveralls.json"],
    "codecov": ["tools/codecov/coverage.json"],
    "gcov_json": ["tools/c/main.gcov.json", "tools/c/shapes.gcov.json"],
    "llvm": ["tools/llvm/export.json"],
    "xcode": ["tools/llvm/show.txt", "tools/llvm/show-color.txt"],
    # Mono's report is written inline (no Mono tool here): tests/parsers/test_older_shapes.py.
    "mono": [],
    "opencover": ["tools/opencover/coverage.opencover.xml"],
    "covr": ["tools/r/covr.json"],
    "scoverage": ["tools/scala/scoverage.xml"],
    "luacov": ["tools/lua/luacov.report.out"],
    "xccov": ["tools/xcode/xccov-report.json"],
    "xccov_archive": ["tools/xcode/xccov-archive.json"],
    "dotcover": ["tools/dotcover/dotcover.xml"],
    "flow": ["tools/flow/flow-coverage.json"],
    "elm": ["tools/elm/codecov.json"],
    "salesforce": ["tools/salesforce/test-result-codecoverage.json"],
    "xcode_plist": ["tools/xcode/Action.xccoverage.plist"],
    "dlst": ["tools/d/source-shapes.lst"],
    "bullseye": ["tools/bullseye/coverage.xml"],
    "vscoverage": ["tools/vscoverage/shapes.coveragexml", "tools/vscoverage/shapes.dspriv.xml"],
    "gap": ["tools/gap/profile.coverage"],
}
#: Heads of reports that look like another format's at a glance, and the format each is (None: not read).
LOOKALIKES = {
    "Clover (PHPUnit)": (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<coverage generated="1700000000">\n<project',
        "clover",
    ),
    "Clover (OpenClover)": (b'<coverage clover="4.5.2" generated="1700000000">', "clover"),
    "SonarQube (empty)": (b'<coverage version="1"></coverage>', "sonarqube"),
    "SonarQube (a comment first)": (
        b'<coverage version="1">\n  <!-- made by hand -->\n  <file path="a.c">',
        "sonarqube",
    ),
    "Cobertura (coverage.py)": (b'<coverage version="7.6.1" timestamp="1" lines-valid="3" line-rate="1">', "cobertura"),
    "Cobertura (no rates)": (b'<coverage version="1">\n<sources><source>/src</source></sources>', "cobertura"),
    "covr (files array)": (b'{"files": [{"name": "R/a.R", "coverage": [null, 1, 0]}]}', "covr"),
    "SimpleCov JSON": (
        b'{"meta": {"simplecov_version": "0.22.0"}, "coverage": {"/app/a.rb": {"lines": [1]}}}',
        "simplecov",
    ),
    "simplecov-json": (b'{"timestamp": 1, "command_name": "RSpec", "files": [{"filename": "/app/a.rb"}]}', "simplecov"),
    "Codecov JSON": (b'{"coverage": {"a.py": {"1": 1, "2": 0}}}', "codecov"),
    "Coveralls": (b'{"service_name": "x", "source_files": [{"name": "a.c", "coverage": [1]}]}', "coveralls"),
    "gcov text": (b"        -:    0:Source:a.c\n        1:    1:int main() {\n", "gcov"),
    "Go profile without a mode line": (b"example.com/m/a.go:3.14,5.2 1 1\n", "go"),
    "scoverage (Codecov's sample)": (
        b'<?xml version="1.0" ?>\n<statements>\n<statement><source>a.scala</source>',
        "scoverage",
    ),
    "luacov": (b"=======\na.lua\n=======\n  1 local a = 1\n", "luacov"),
    "not luacov (a rule alone)": (b"==========\nSome text\n", None),
    "xccov": (b'{"coveredLines": 1, "lineCoverage": 1, "targets": [{"files": [], "executableLines": 1}]}', "xccov"),
    "not xccov (a targets list alone)": (b'{"targets": [{"files": []}]}', None),
    "xccov archive": (b'{"\\/w\\/A.swift" : [{"line" : 1, "isExecutable" : false}]}', "xccov_archive"),
    "not dotCover (a plain <Root>)": (b'<?xml version="1.0"?><Root><File Index="1" Name="a.cs"/></Root>', None),
    "not Salesforce (a list of named objects)": (b'[{"name": "a", "coverage": [1]}]', None),
    "not an xccoverage plist (Info.plist)": (
        b'<?xml version="1.0"?><plist version="1.0"><dict><key>a</key></dict></plist>',
        None,
    ),
    "not a D listing (a Markdown table)": (b"| a | b |\n|---|---|\n", None),
    "not Visual Studio (a plain <results>)": (b"<results><module name='a'/></results>", None),
    "Istanbul JSON": (b'{"/app/a.js": {"path": "/app/a.js", "statementMap": {"0": {}}, "s": {"0": 1}}}', "istanbul"),
    "JSCover JSON": (b'{"/app/a.js": {"lineData": [null, 1, 0], "functionData": [1]}}', "istanbul"),
    "Mono": (b'<?xml version="1.0"?>\n<coverage version="0.3">\n\t<assembly name="a" guid="x"/>', "mono"),
    "Mono (its methods first)": (b'<coverage version="0.3"><method filename="/w/a.cs">', "cobertura"),
    "Visual Studio's CoverageDSPriv": (b'<?xml version="1.0" standalone="yes"?>\n<CoverageDSPriv>\n', "vscoverage"),
    "llvm-cov show before 3.9": (b"/w/a.c:\n       |    1|#include <stdio.h>\n", "xcode"),
}


def test_every_sample_is_accepted_by_its_own_detector_alone():
    assert set(SAMPLES) == {f.name for f in REPORT_FORMATS}
    heads = [(format, name, (DATA / name).read_bytes()[:65536]) for format, paths in SAMPLES.items() for name in paths]
    heads.append(("mono", "test_older_shapes.MONO", MONO))
    for expected, name, data in heads:
        head = ReportHead(data)
        assert [f.name for f in REPORT_FORMATS if f.detect(head)] == [expected], name


@pytest.mark.parametrize(("head", "expected"), LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_lookalikes_are_taken_for_what_they_are_and_nothing_else(head, expected):
    # A Clover <coverage generated=...> is not Cobertura; a JSON "files" array is not coverage.py.
    accepted = [f.name for f in REPORT_FORMATS if f.detect(ReportHead(head))]
    assert accepted == ([expected] if expected else [])


def test_the_file_name_is_a_hint_that_never_overrides_content():
    lcov = b"TN:\nSF:a.c\nDA:1,1\nend_of_record\n"
    assert detect_format(lcov, name="coverage.xml") == "lcov"
    with pytest.raises(ReportError, match="^unknown report format"):
        detect_format(b"hello\n", name="lcov.info")


def test_an_unknown_report_gets_one_line_with_what_it_looked_like_and_the_formats_read():
    titles = ", ".join(f.title for f in REPORT_FORMATS)
    cases = {
        b"<testsuites name='x'>": "XML whose root element is <testsuites>",
        b'{"results": {}}': 'a JSON object whose first key is "results"',
        b"[1, 2]": "a JSON array",
        b"\x1f\x8b\x08\x00garbage": "text starting '????garbage'",
        b'<?xml version="1.0"?><html><body/></html>': "XML whose root element is <html>",
    }
    for head, looked in cases.items():
        with pytest.raises(ReportError) as caught:
            detect_format(head)
        assert str(caught.value) == f"unknown report format: {looked}; the formats read are {titles}"
        assert "\n" not in str(caught.value)


def test_the_description_never_echoes_control_characters():
    with pytest.raises(ReportError) as caught:
        detect_format(b"<\x1b[31mred\x07>")
    assert re.fullmatch(r"[\x20-\x7e]+", str(caught.value))


def test_skips_count_by_reason_and_summarise_most_first():
    skips = Skips()
    assert not skips
    assert skips.summary() == "nothing skipped or clamped"
    skips.add("line number 0")
    skips.add("hit count not an integer", 3)
    skips.add("line number 0")
    assert skips.total == 5
    assert skips.counts == {"line number 0": 2, "hit count not an integer": 3}
    assert skips.summary() == "skipped or clamped: 3 hit count not an integer; 2 line number 0"
    more = Skips()
    more.add("line number 0")
    more.update(skips)
    assert more.counts == {"line number 0": 3, "hit count not an integer": 3}


def test_skip_reasons_are_bounded():
    skips = Skips()
    for n in range(MAX_SKIP_REASONS + 10):
        skips.add(f"reason {n}")
    assert len(skips.counts) == MAX_SKIP_REASONS + 1
    assert skips.counts[OTHER_REASON] == 10
    assert skips.total == MAX_SKIP_REASONS + 10
