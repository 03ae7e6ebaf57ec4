"""Paths as tools write them, placed on the repository's files (issue 25 item 5, issue 27 item 3): with
the uploader's file list, else the commit's tree in the git mirror, else the files the repository already
knows; ``?root=`` on v2 and v4."""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import urlencode, urlsplit

from flask_coverage.parsers import place_by_network
from flask_coverage.queries.files import file_totals
from flask_coverage.queries.targets import resolve_commit
from tests.git_history import commit, git

SHA = "b" * 40
OTHER = "c" * 40
# coverage.py's XML of a src layout: the source is the package folder, names are relative to it.
SRC_LAYOUT = b"""<?xml version="1.0" ?>
<coverage version="7.6.1" timestamp="1" lines-valid="3" lines-covered="2" line-rate="0.6667">
<sources><source>/home/ci/work/widgets/src</source></sources>
<packages><package name="widgets"><classes>
<class name="core.py" filename="widgets/core.py"><lines>
<line number="1" hits="1"/><line number="2" hits="1"/><line number="3" hits="0"/></lines></class>
<class name="__init__.py" filename="widgets/__init__.py"><lines><line number="1" hits="1"/></lines></class>
</classes></package></packages></coverage>
"""
REPOSITORY_FILES = [
    "README.md",
    "pyproject.toml",
    "src/widgets/__init__.py",
    "src/widgets/core.py",
    "tests/test_core.py",
]
PLACED = ["src/widgets/__init__.py", "src/widgets/core.py"]


def paths(widgets, sha: str = SHA) -> list[str]:
    return sorted(row.path for row in file_totals(resolve_commit(widgets, sha=sha)))


def curl(testapp, widgets, sha: str = SHA, **params: str):
    query = urlencode({"token": widgets.upload_token, "commit": sha, **params})
    return testapp.post(f"/upload/v2?{query}", SRC_LAYOUT, headers={"Content-Type": "text/plain"}, status=200)


def codecov_cli(testapp, widgets, sha: str = SHA) -> None:
    headers = {"Authorization": f"token {widgets.upload_token}"}
    base = "/upload/github/acme::::widgets"
    created = testapp.post_json(f"{base}/commits/{sha}/reports/default/uploads", {}, headers=headers, status=201)
    data = base64.b64encode(zlib.compress(SRC_LAYOUT)).decode()
    payload = {
        "coverage_files": [{"filename": "coverage.xml", "format": "base64+compressed", "data": data}],
        "network_files": REPOSITORY_FILES,
    }
    url = urlsplit(created.json["raw_upload_location"])
    testapp.put(f"{url.path}?{url.query}", json.dumps(payload).encode(), status=200)


def test_the_readme_curl_recipe_with_root_stores_the_repository_paths(testapp, widgets) -> None:
    curl(testapp, widgets, root="/home/ci/work/widgets")
    assert paths(widgets) == PLACED


def test_v4_takes_root_too(testapp, widgets) -> None:
    query = urlencode({"token": widgets.upload_token, "commit": SHA, "root": "/home/ci/work/widgets"})
    url = urlsplit(testapp.post(f"/upload/v4?{query}", b"", status=200).text.split()[1])
    testapp.put(f"{url.path}?{url.query}", SRC_LAYOUT, status=200)
    assert paths(widgets) == PLACED


def test_curl_and_codecov_cli_uploads_of_one_report_give_one_set_of_files(testapp, widgets) -> None:
    codecov_cli(testapp, widgets)
    assert paths(widgets) == PLACED
    curl(testapp, widgets)  # no root, no file list: placed on what the commit already has
    assert paths(widgets) == PLACED
    assert resolve_commit(widgets, sha=SHA).version == 2


def test_an_upload_without_a_file_list_is_placed_on_the_default_branchs_files(testapp, widgets) -> None:
    codecov_cli(testapp, widgets)
    query = urlencode({"token": widgets.upload_token, "commit": SHA, "branch": "main"})
    testapp.post(f"/upload/v2?{query}", b"SF:README.md\nDA:1,1\nend_of_record\n", status=200)
    curl(testapp, widgets, sha=OTHER)
    assert paths(widgets, OTHER) == PLACED


def test_without_a_list_or_known_files_paths_are_kept_as_written(testapp, widgets) -> None:
    curl(testapp, widgets)
    assert paths(widgets) == ["widgets/__init__.py", "widgets/core.py"]


def test_a_bad_root_is_a_400(testapp, widgets) -> None:
    query = urlencode({"token": widgets.upload_token, "commit": SHA, "root": "/a\x00b"})
    answer = testapp.post(f"/upload/v2?{query}", SRC_LAYOUT, status=400)
    assert answer.text.startswith("Upload refused: root must be")


def test_paths_as_tools_write_them_are_placed_with_the_file_list() -> None:
    network = [
        "pkg/server/handler.go",
        "src/main/java/com/acme/App.java",
        "lib/core/alloc.c",
        "Widgets/Core.cs",
        "README.md",
    ]
    written = [
        "example.com/acme/server/pkg/server/handler.go",  # Go: the module's import path first
        "com/acme/App.java",  # JaCoCo: package folders and the source file name
        "home/runner/work/acme/acme/lib/core/alloc.c",  # gcov, llvm-cov: an absolute build path
        "D:/a/acme/acme/Widgets/Core.cs",  # Windows, after the name rule made the separators "/"
        "not/in/the/list.py",  # kept as written: never dropped
    ]
    moves = place_by_network(written, network)
    assert moves == {
        "example.com/acme/server/pkg/server/handler.go": "pkg/server/handler.go",
        "com/acme/App.java": "src/main/java/com/acme/App.java",
        "home/runner/work/acme/acme/lib/core/alloc.c": "lib/core/alloc.c",
        "D:/a/acme/acme/Widgets/Core.cs": "Widgets/Core.cs",
    }


def test_paths_of_go_modules_below_the_root_are_placed_by_their_go_mod() -> None:
    # svc/go.mod declares example.com/m, api/go.mod example.com/api: go test writes import paths.
    network = ["svc/go.mod", "svc/pkg/x.go", "svc/main.go", "api/go.mod", "api/cmd/y.go", "pkg/x.go", "go.work"]
    written = ["example.com/m/pkg/x.go", "example.com/m/main.go", "example.com/api/cmd/y.go", "example.com/m/gone.go"]
    assert place_by_network(written, network) == {
        "example.com/m/pkg/x.go": "svc/pkg/x.go",  # the module's file, not the root's pkg/x.go (no go.mod there)
        "example.com/m/main.go": "svc/main.go",
        "example.com/api/cmd/y.go": "api/cmd/y.go",
    }
    # A module at the root as before; two modules holding the same inner path place nothing by it.
    assert place_by_network(["example.com/m/pkg/x.go"], ["go.mod", "pkg/x.go"]) == {
        "example.com/m/pkg/x.go": "pkg/x.go"
    }
    twice = ["a/go.mod", "a/pkg/x.go", "b/go.mod", "b/pkg/x.go"]
    assert place_by_network(["example.com/m/pkg/x.go"], twice) == {}


def test_an_upload_without_a_file_list_is_placed_on_the_commits_tree_in_the_git_mirror(
    app, testapp, widgets, tmp_path
) -> None:
    # No file list and nothing known yet: the mirror's tree of the commit places the report's paths,
    # Go's import paths of a module in svc/ among them.
    work, root = tmp_path / "work", tmp_path / "mirrors"
    work.mkdir()
    git("init", "-q", cwd=str(work))
    files = {name: "x\n" for name in [*REPOSITORY_FILES, "svc/go.mod", "svc/pkg/handler.go"]}
    sha = commit(str(work), "widgets", files)
    git("clone", "-q", "--bare", str(work), str(root / "github" / "acme" / "widgets.git"), cwd=str(tmp_path))
    app.config["COVERAGE_SOURCE_GIT_ROOT"] = str(root)
    curl(testapp, widgets, sha=sha)
    assert paths(widgets, sha) == PLACED
    query = urlencode({"token": widgets.upload_token, "commit": sha})
    report = b"mode: set\nexample.com/widgets/pkg/handler.go:1.1,1.10 1 1\n"
    testapp.post(f"/upload/v2?{query}", report, headers={"Content-Type": "text/plain"}, status=200)
    assert "svc/pkg/handler.go" in paths(widgets, sha)
    # A commit the mirror does not have: the files the repository knows, as before.
    curl(testapp, widgets, sha=OTHER)
    assert paths(widgets, OTHER) == ["widgets/__init__.py", "widgets/core.py"]
