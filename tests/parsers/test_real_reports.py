"""The real reports of tests/data: every one parses, and the formats of one run agree exactly."""

from __future__ import annotations

import io
import re
import socket
import urllib.request
from pathlib import Path

import pytest

from flask_coverage.errors import ReportTooLarge
from flask_coverage.lines import HIT, MISS, Totals
from flask_coverage.parsers import detect_format, merge_by_path, parse_report

DATA = Path(__file__).resolve().parent.parent / "data"
REPORTS = sorted(p.name for p in DATA.iterdir() if p.suffix in (".xml", ".json", ".lcov"))
EXPECTED_FORMAT = {".xml": "cobertura", ".json": "coveragepy", ".lcov": "lcov"}
COBERTURA = [name for name in REPORTS if name.endswith(".xml")]


def test_every_report_is_found():
    assert len(REPORTS) == 8


@pytest.mark.parametrize("name", REPORTS)
def test_report_parses_to_repository_relative_paths(name, report_bytes, file_totals):
    data = report_bytes(name)
    assert detect_format(data[:4096]) == EXPECTED_FORMAT[name[name.rindex(".") :]]
    totals = file_totals(data)
    assert totals
    for path, t in totals.items():
        assert not path.startswith(("/", "./", "../")) and "\\" not in path
        assert path.startswith("src/")
        assert t.lines == t.hits + t.misses + t.partials > 0


@pytest.mark.parametrize("project", ["marshmallow", "flask-sqlalchemy"])
def test_coveragepy_formats_of_one_run_agree(project, report_bytes, file_totals):
    xml = file_totals(report_bytes(f"{project}.coverage.xml"))
    json = file_totals(report_bytes(f"{project}.coverage.json"))
    lcov = file_totals(report_bytes(f"{project}.lcov"))
    assert set(xml) == set(json) == set(lcov)
    for path in xml:
        assert xml[path] == json[path] == lcov[path], path
    assert sum(xml.values(), Totals()).partials > 0  # branch data really was read


def test_flask_sqlalchemy_paths_with_two_sources(report_bytes, file_totals):
    # Sources are the checkout root and tests/: paths stay relative to the checkout root.
    paths = set(file_totals(report_bytes("flask-sqlalchemy.coverage.xml")))
    assert "src/flask_sqlalchemy/model.py" in paths
    assert all(p.startswith("src/flask_sqlalchemy/") for p in paths)


def test_istanbul_cobertura_and_lcov_agree(report_bytes, file_totals):
    # The same lines and counts; LCOV's .js files are read by their DA counts alone (as on Codecov),
    # so a line's state is its count's (the Cobertura report's follows its branches).
    xml = merge_by_path(parse_report(report_bytes("d3-hierarchy.cobertura.xml")))
    lcov = merge_by_path(parse_report(report_bytes("d3-hierarchy.lcov")))
    assert set(xml) == set(lcov)
    assert "src/treemap/squarify.js" in xml
    assert sum(lines.totals().partials for lines in xml.values()) > 0
    for path, lines in xml.items():
        assert list(lcov[path]) == [(n, hits, HIT if hits else MISS) for n, hits, _ in lines], path


@pytest.mark.parametrize("name", COBERTURA)
def test_cobertura_sums_match_the_root_element(name, report_bytes, file_totals):
    data = report_bytes(name)
    root = re.search(rb"<coverage [^>]*>", data).group(0)
    valid = int(re.search(rb'lines-valid="(\d+)"', root).group(1))
    covered = int(re.search(rb'lines-covered="(\d+)"', root).group(1))
    files = merge_by_path(parse_report(data))
    total = sum((lines.totals() for lines in files.values()), Totals())
    assert total.lines == valid
    # The tool counts a line covered by its hits; Codecov's rule (and this one) gives a branch line
    # the state of its conditions "(n/m)", whatever its hits.
    entries = [(hits, state) for lines in files.values() for _, hits, state in lines]
    ran_but_missed = sum(1 for hits, state in entries if hits and state == MISS)
    covered_without_hits = sum(1 for hits, state in entries if not hits and state != MISS)
    assert total.hits + total.partials + ran_but_missed - covered_without_hits == covered


def test_istanbul_method_lines_are_not_counted_twice(report_bytes):
    (accessors,) = [f for f in parse_report(report_bytes("d3-hierarchy.cobertura.xml")) if f.path == "src/accessors.js"]
    # The class lists lines 1-8; <method> blocks repeat lines 1 and 5 with other counts.
    assert [(line, hits) for line, hits, _ in accessors.lines][:2] == [(1, 1), (2, 26)]
    assert len(accessors.lines) == 8


def test_istanbul_doctype_is_never_fetched(report_bytes, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the parser tried to use the network")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    data = report_bytes("d3-hierarchy.cobertura.xml")
    assert b'<!DOCTYPE coverage SYSTEM "http://' in data
    assert len(list(parse_report(data))) == 34


def test_root_is_stripped_from_absolute_paths(report_bytes, file_totals):
    root = "/home/runner/work/marshmallow/marshmallow"
    lcov = report_bytes("marshmallow.lcov").replace(b"SF:src/", f"SF:{root}/src/".encode())
    relative = file_totals(report_bytes("marshmallow.lcov"))
    assert file_totals(lcov, root=root) == relative
    assert file_totals(lcov, root=root + "/") == relative
    # Without a root, an absolute path is kept minus its leading slash.
    assert f"{root[1:]}/src/marshmallow/fields.py" in file_totals(lcov)
    # Cobertura's <source> already gives the root; passing it too changes nothing.
    xml = report_bytes("marshmallow.coverage.xml")
    assert file_totals(xml, root=root) == file_totals(xml) == relative


@pytest.mark.parametrize("name", REPORTS)
def test_file_object_and_explicit_format_give_the_same_result(name, report_bytes):
    data = report_bytes(name)
    fmt = detect_format(data)
    from_bytes = list(parse_report(data))
    from_file = list(parse_report(io.BytesIO(data), format=fmt, max_bytes=len(data)))
    assert from_file == from_bytes


class CountingReader(io.RawIOBase):
    """A binary stream that returns at most 1000 bytes per read and counts what it handed out."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self.handed_out = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = self._data.read(min(size, 1000) if size >= 0 else 1000)
        self.handed_out += len(chunk)
        return chunk


def test_short_reads_are_fine(report_bytes):
    data = report_bytes("marshmallow.coverage.json")
    assert list(parse_report(CountingReader(data))) == list(parse_report(data))


def test_max_bytes_stops_reading_a_file_early(report_bytes):
    data = report_bytes("marshmallow.coverage.json")
    reader = CountingReader(data)
    with pytest.raises(ReportTooLarge, match="larger than the limit of 10000 bytes"):
        list(parse_report(reader, max_bytes=10_000))
    assert reader.handed_out == 10_001


def test_max_bytes_on_bytes(report_bytes):
    data = report_bytes("d3-hierarchy.lcov")
    with pytest.raises(ReportTooLarge):
        parse_report(data, max_bytes=len(data) - 1)
    assert len(list(parse_report(data, max_bytes=len(data)))) == 34
