"""The format registry: every detector accepts its own reports and refuses every other format's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flask_coverage.errors import ReportError
from flask_coverage.parsers import REPORT_FORMATS, ReportHead, Skips, detect_format
from flask_coverage.parsers._format import MAX_SKIP_REASONS, OTHER_REASON

DATA = Path(__file__).resolve().parent.parent / "data"

#: Real reports by the format they are: a format plugged in adds its samples here.
SAMPLES = {
    "cobertura": ["marshmallow.coverage.xml", "flask-sqlalchemy.coverage.xml", "d3-hierarchy.cobertura.xml"],
    "coveragepy": ["marshmallow.coverage.json", "flask-sqlalchemy.coverage.json"],
    "lcov": ["marshmallow.lcov", "flask-sqlalchemy.lcov", "d3-hierarchy.lcov"],
}
#: Heads of reports that look like a registered format's at a glance and are not it.
LOOKALIKES = {
    "Clover (PHPUnit)": b'<?xml version="1.0" encoding="UTF-8"?>\n<coverage generated="1700000000">\n<project',
    "Clover (OpenClover)": b'<coverage clover="4.5.2" generated="1700000000">',
    "covr (files array)": b'{"files": [{"name": "R/a.R", "coverage": [null, 1, 0]}]}',
    "SimpleCov JSON": b'{"meta": {"simplecov_version": "0.22.0"}, "coverage": {"/app/a.rb": {"lines": [1]}}}',
    "Coveralls": b'{"service_name": "x", "source_files": [{"name": "a.c", "coverage": [1]}]}',
    "gcov text": b"        -:    0:Source:a.c\n        1:    1:int main() {\n",
}


def test_every_sample_is_accepted_by_its_own_detector_alone():
    assert set(SAMPLES) == {f.name for f in REPORT_FORMATS}
    for expected, names in SAMPLES.items():
        for name in names:
            head = ReportHead((DATA / name).read_bytes()[: 64 * 1024])
            accepted = [f.name for f in REPORT_FORMATS if f.detect(head)]
            assert accepted == [expected], name


@pytest.mark.parametrize("head", LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_lookalikes_are_no_registered_format(head):
    # A Clover <coverage generated=...> is not Cobertura; a JSON "files" array is not coverage.py.
    accepted = [f.name for f in REPORT_FORMATS if f.detect(ReportHead(head))]
    assert not {"cobertura", "coveragepy", "lcov"} & set(accepted)


def test_the_file_name_is_a_hint_that_never_overrides_content():
    lcov = b"TN:\nSF:a.c\nDA:1,1\nend_of_record\n"
    assert detect_format(lcov, name="coverage.xml") == "lcov"
    with pytest.raises(ReportError, match="^unknown report format"):
        detect_format(b"hello\n", name="lcov.info")


def test_an_unknown_report_gets_one_line_with_what_it_looked_like_and_the_formats_read():
    titles = ", ".join(f.title for f in REPORT_FORMATS)
    cases = {
        b"<report name='x'>": "XML whose root element is <report>",
        b'{"coverage": {}}': 'a JSON object whose first key is "coverage"',
        b"[1, 2]": "a JSON array",
        b"\x1f\x8b\x08\x00garbage": "text starting '????garbage'",
        b'<?xml version="1.0"?><coverage generated="1"><project/></coverage>': "XML whose root element is <coverage>",
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
