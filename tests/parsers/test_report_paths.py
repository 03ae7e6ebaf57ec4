"""How report file names become repository-relative paths (root, Cobertura sources, hostile names)."""

from __future__ import annotations

import pytest

from flask_coverage.errors import ReportError
from flask_coverage.parsers import parse_report
from flask_coverage.parsers._paths import PathResolver

ROOT = "/home/runner/work/x/x"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("src/a.py", "src/a.py"),
        ("./src/a.py", "src/a.py"),
        ("src\\pkg\\a.py", "src/pkg/a.py"),
        ("src//pkg/./a.py", "src/pkg/a.py"),
        ("src/pkg/../a.py", "src/a.py"),
        (f"{ROOT}/src/a.py", "src/a.py"),
        (f"{ROOT}/./src/../src/a.py", "src/a.py"),
        # Outside the root: kept, minus the leading slash.
        ("/usr/include/stdio.h", "usr/include/stdio.h"),
        ("C:\\Users\\me\\proj\\a.py", "Users/me/proj/a.py"),
    ],
)
def test_paths_with_a_root(name, expected):
    assert PathResolver(ROOT).resolve(name) == expected


def test_windows_root():
    resolver = PathResolver("C:\\Users\\me\\proj")
    assert resolver.resolve("c:\\Users\\me\\proj\\src\\a.py") == "src/a.py"


def test_relative_root_is_a_prefix():
    assert PathResolver("checkout").resolve("checkout/src/a.py") == "src/a.py"
    assert PathResolver("checkout").resolve("src/a.py") == "src/a.py"


def test_root_only_on_segment_boundaries():
    assert PathResolver("/repo").resolve("/repository/a.py") == "repository/a.py"


@pytest.mark.parametrize("name", ["..", "../a.py", "src/../../a.py", "./../a.py", "src\\..\\..\\a.py"])
def test_climbing_out_is_refused(name):
    with pytest.raises(ReportError, match="climbs out of the repository root"):
        PathResolver(ROOT).resolve(name)


@pytest.mark.parametrize("name", ["", "   ", ".", "./", ROOT, ROOT + "/"])
def test_no_file_name_is_refused(name):
    with pytest.raises(ReportError, match="empty path|names the repository root"):
        PathResolver(ROOT).resolve(name)


def test_overlong_path_is_refused():
    with pytest.raises(ReportError, match="longer than 4096 characters"):
        PathResolver().resolve("a/" * 3000)


def test_one_source_is_the_checkout_root():
    resolver = PathResolver(None, [ROOT])
    assert resolver.resolve("src/a.py") == "src/a.py"
    assert resolver.resolve(f"{ROOT}/src/a.py") == "src/a.py"


def test_checkout_root_and_tests_sources():
    # coverage.py with source = [package, "tests"]: the checkout root and tests/ are both listed.
    resolver = PathResolver(None, [ROOT, f"{ROOT}/tests"])
    assert resolver.resolve("src/flask_sqlalchemy/model.py") == "src/flask_sqlalchemy/model.py"
    assert resolver.resolve("tests/test_model.py") == "tests/test_model.py"
    assert resolver.resolve(f"{ROOT}/tests/test_model.py") == "tests/test_model.py"


def test_sibling_sources_share_their_common_ancestor():
    resolver = PathResolver(None, [f"{ROOT}/src", f"{ROOT}/tests"])
    assert resolver.resolve(f"{ROOT}/tests/test_a.py") == "tests/test_a.py"
    assert resolver.resolve(f"{ROOT}/src/pkg/a.py") == "src/pkg/a.py"
    # A relative name goes to the first of the outermost sources.
    assert resolver.resolve("pkg/a.py") == "src/pkg/a.py"


def test_root_places_a_nested_source():
    resolver = PathResolver(ROOT, [f"{ROOT}/src/main/java"])
    assert resolver.resolve("com/example/App.java") == "src/main/java/com/example/App.java"


def test_relative_sources_are_dropped_as_codecov_drops_them():
    assert PathResolver(None, ["."]).resolve("a.py") == "a.py"
    assert PathResolver(None, ["src"]).resolve("pkg/a.py") == "pkg/a.py"
    assert PathResolver(None, ["src", "/ci/repo"]).resolve("pkg/a.py") == "pkg/a.py"


def test_a_source_outside_the_root_is_ignored():
    resolver = PathResolver(ROOT, ["/elsewhere"])
    assert resolver.resolve("/elsewhere/a.py") == "elsewhere/a.py"
    assert resolver.resolve("a.py") == "a.py"


def test_cobertura_sources_are_applied():
    data = (
        b'<?xml version="1.0" ?><coverage><sources><source>/ci/build/repo/src</source>'
        b"<source>/ci/build/repo/tests</source></sources><packages><package><classes>"
        b'<class filename="pkg/a.py"><lines><line number="1" hits="1"/></lines></class>'
        b'<class filename="/ci/build/repo/tests/test_a.py"><lines><line number="1" hits="1"/></lines></class>'
        b"</classes></package></packages></coverage>"
    )
    assert [f.path for f in parse_report(data)] == ["src/pkg/a.py", "tests/test_a.py"]
    assert [f.path for f in parse_report(data, root="/ci/build/repo")] == ["src/pkg/a.py", "tests/test_a.py"]
