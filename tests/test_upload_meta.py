"""What uploaders send beyond the report: flags, name, build, job and CI URL on the upload record,
the network file list placing paths, and report fixes (flask_coverage.ingest)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
import sqlalchemy as sa

from flask_coverage.errors import InvalidInput
from flask_coverage.identifiers import check_flags
from flask_coverage.ingest import UploadMeta, upload_report, upload_reports
from flask_coverage.lines import HIT, MISS
from flask_coverage.models import Upload, UploadFlag
from flask_coverage.parsers import place_by_network
from flask_coverage.queries.files import file_lines
from flask_coverage.queries.targets import resolve_commit

SHA = "e" * 40


def test_flags_are_checked_unique_and_sorted() -> None:
    assert check_flags("unit, py39,unit,,") == ("py39", "unit")
    assert check_flags(["a.b-c_1"]) == ("a.b-c_1",)
    assert check_flags(None) == ()
    for bad in ["has space", "x" * 46, "ünï", "a/b", ["ok", 3]]:
        with pytest.raises(InvalidInput):
            check_flags(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="at most 100 flags"):
        check_flags([f"f{k}" for k in range(101)])


def test_upload_meta_refuses_odd_values() -> None:
    assert UploadMeta.create(name="  ", build=12) == UploadMeta(build="12")
    with pytest.raises(InvalidInput, match="CI URL is longer than 500"):
        UploadMeta.create(build_url="https://ci/" + "x" * 500)
    with pytest.raises(InvalidInput, match="name must not contain control"):
        UploadMeta.create(name="a\nb")


def test_v2_query_arguments_are_stored_with_the_upload(db, testapp, widgets, make_lcov) -> None:
    query = {
        "token": widgets.upload_token,
        "commit": SHA,
        "flags": "unit,py39",
        "name": "linux 3.12",
        "build": "77",
        "job": "77.2",
        "build_url": "https://ci.example.org/77",
        "service": "github-actions",
    }
    testapp.post("/upload/v2?" + urlencode(query), make_lcov({"a.py": {1: 1}}), status=200)
    upload = db.session.execute(sa.select(Upload)).scalar_one()
    assert (upload.name, upload.build, upload.job) == ("linux 3.12", "77", "77.2")
    assert (upload.build_url, upload.provider) == ("https://ci.example.org/77", "github-actions")
    flags = db.session.execute(sa.select(UploadFlag.flag).where(UploadFlag.upload_id == upload.id)).scalars()
    assert sorted(flags) == ["py39", "unit"]


def test_a_bad_flag_is_a_400_that_stores_nothing(testapp, widgets, make_lcov, snapshot) -> None:
    query = urlencode({"token": widgets.upload_token, "commit": SHA, "flags": "unit,no way"})
    before = snapshot()
    response = testapp.post("/upload/v2?" + query, make_lcov({"a.py": {1: 1}}), status=400)
    assert response.text == "Upload refused: flag 'no way' must be 1 to 45 letters, digits, '_', '.' or '-'.\n"
    assert snapshot() == before


def test_flags_take_part_in_the_merge_once_key(app, widgets, make_lcov) -> None:
    report = make_lcov({"a.py": {1: 1}})
    for flags in ["unit", "unit", "integration"]:
        upload_report(widgets, report, commit=SHA, meta=UploadMeta.create(flags=flags))
    commit = resolve_commit(widgets, sha=SHA)
    assert commit.version == 2 and list(file_lines(commit, "a.py")) == [(1, 2, HIT)]


def test_place_by_network() -> None:
    network = ["src/pkg/a.py", "src/pkg/b.py", "lib/b.py", "README.md", "../out.py", "/abs/x.py"]
    paths = ["pkg/a.py", "src/pkg/b.py", "b.py", "home/ci/src/pkg/a.py", "README.md", "out.py", "x.py", "c.py"]
    # b.py ends two files: it stays; out.py and x.py are not usable network names.
    assert place_by_network(paths, network) == {"pkg/a.py": "src/pkg/a.py", "home/ci/src/pkg/a.py": "src/pkg/a.py"}
    assert place_by_network(paths, []) == {}


def test_network_places_paths_of_a_nested_source_and_merges_them(app, widgets, make_lcov) -> None:
    reports = [("inner", make_lcov({"pkg/a.py": {1: 1, 2: 0}})), ("outer", make_lcov({"src/pkg/a.py": {2: 3}}))]
    upload_reports(widgets, reports, commit=SHA, network=["src/pkg/a.py", "setup.py"])
    commit = resolve_commit(widgets, sha=SHA)
    assert commit.files == 1
    assert list(file_lines(commit, "src/pkg/a.py")) == [(1, 1, HIT), (2, 3, HIT)]


def test_fixes_remove_lines_that_are_not_code(app, widgets, make_lcov) -> None:
    report = make_lcov({"a.py": {1: 1, 2: 0, 3: 0, 9: 0}, "b.py": {1: 0}, "c.py": {1: 1}})
    fixes = {"a.py": (frozenset({2}), 8), "b.py": (frozenset({1}), None), "zzz.py": (frozenset({1}), 1)}
    upload_reports(widgets, [("", report)], commit=SHA, fixes=fixes)
    commit = resolve_commit(widgets, sha=SHA)
    assert list(file_lines(commit, "a.py")) == [(1, 1, HIT), (3, 0, MISS)]
    assert file_lines(commit, "b.py") is None  # nothing left of it
    assert commit.files == 2


def test_place_by_network_compares_ends_at_most_32_folders_deep() -> None:
    deep = "/".join(f"d{k}" for k in range(40))
    too_long = "x/" * 2100 + "b.py"  # longer than any path can be: not a network file
    network = [f"{deep}/a.py", too_long] + [f"pkg{k}/" * 300 + f"m{k}.py" for k in range(2000)]
    near = "/".join(deep.split("/")[-31:]) + "/a.py"  # 32 folders from the file: placed
    far = "/".join(deep.split("/")[-33:]) + "/a.py"  # 34: too deep to compare, stays
    moves = place_by_network([near, far, "m7.py", "b.py"], network)
    assert moves == {near: f"{deep}/a.py", "m7.py": "pkg7/" * 300 + "m7.py"}
