"""The one rule for names that may be stored and shown (flask_coverage.identifiers), wherever a name comes in."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape

from flask_coverage import operations
from flask_coverage.errors import InvalidInput
from flask_coverage.identifiers import (
    check_name,
    is_branch_name,
    is_fork_branch,
    is_storable,
    normalize_branch,
    parse_service,
    refused_character,
)
from flask_coverage.models import ServiceEnum
from flask_coverage.queries.repositories import find_repository, get_owner

REFUSED = {
    "NUL": "\x00",
    "escape": "\x1b",
    "tab": "\t",
    "DEL": "\x7f",
    "C1 next line": "\x85",
    "right-to-left override": "\u202e",
    "left-to-right isolate": "\u2066",
    "right-to-left mark": "\u200f",
    "zero-width space": "\u200b",
    "zero-width joiner": "\u200d",
    "byte order mark": "\ufeff",
    "soft hyphen": "\xad",
    "line separator": "\u2028",
    "paragraph separator": "\u2029",
    "lone surrogate": "\ud800",
}
ALLOWED = ["café", "日本語", "emoji-😀", "a.b_c-d", "Ünïcödé", "x\u00a0y"]


@pytest.mark.parametrize("name", REFUSED)
def test_refused_characters_are_found_anywhere(name: str) -> None:
    char = REFUSED[name]
    for value in (char, f"a{char}", f"ab{char}cd", f"é{char}"):
        assert refused_character(value) == char
        assert not is_storable(value)
    with pytest.raises(
        InvalidInput, match=rf"^branch must not contain control, format .*\(it holds U\+{ord(char):04X}\)$"
    ):
        check_name(f"main{char}x", "branch", single_word=False)


def test_other_names_are_storable() -> None:
    for value in ALLOWED:
        assert refused_character(value) is None and is_storable(value)
    assert check_name("  feature/x y ", "branch", single_word=False) == "feature/x y"
    for bad in ("a/b", "a b", "a\u00a0b", "a\u3000b"):
        with pytest.raises(InvalidInput, match="must not contain '/' or spaces"):
            check_name(bad, "username")
    assert not is_storable("") and not is_storable(None) and not is_storable("x" * 256)


def test_the_operations_refuse_them_and_lookups_find_nothing(app, db) -> None:
    operations.add_org("github", "acme")
    for call in (
        lambda: operations.add_org("github", "ac\u202eme"),
        lambda: operations.add_user("github", "bob", name="Bob \u202eevil"),
        lambda: operations.add_user("github", "bob", email="b\u200bob@example.com"),
        lambda: operations.add_repo("github", "acme", "wid\u200bgets"),
        lambda: operations.add_repo("github", "acme", "widgets", branch="ma\u2028in"),
    ):
        with pytest.raises(InvalidInput, match="must not contain control, format"):
            call()
    assert find_repository("github", "acme", "wid\u200bgets") is None
    assert get_owner("github", "ac\u202eme") is None


def test_every_stored_path_is_reachable_through_the_file_view(testapp, widgets, make_lcov) -> None:
    """What the parsers keep, the file view shows: the same rule on both sides."""
    paths = [f"src/{name}/m.py" for name in ALLOWED] + ["src/with space.py", "src/per%cent.py", "src/q?x#y.py"]
    sha = "e" * 40
    body = make_lcov({path: {1: 1} for path in paths})
    testapp.post(f"/upload/v2?token={widgets.upload_token}&commit={sha}", body, headers={"Content-Type": "text/plain"})
    for path in paths:
        page = testapp.get(f"/gh/acme/widgets/commit/{sha}/blob/{quote(path)}")
        assert page.status_int == 200 and str(escape(path)) in page.text, path


def test_the_operator_names_a_service_by_its_value_or_its_web_prefix() -> None:
    assert parse_service("github", short=True) is parse_service("gh", short=True) is ServiceEnum.github
    assert parse_service("bbs", short=True) is ServiceEnum.bitbucket_server
    with pytest.raises(InvalidInput, match=r"unknown service 'GH': expected one of github, .* \(or gh, gl, bb"):
        parse_service("GH", short=True)
    # The v2 API's paths take the values only (tests/blueprints/test_api_users.py).
    with pytest.raises(InvalidInput, match=r"unknown service 'gh': expected one of github, .*bitbucket_server$"):
        parse_service("gh")


_REF_PIECES = ["a", "b", "/", ".", "..", "-", "@", "{", "@{", ".lock", "lock", " ", "~", "^", ":", "?", "*", "[", "\\"]
_REF_PIECES += ["\x7f", "\x01", "é", "HEAD", "refs", "}"]


def _git_takes_branch(name: str) -> bool:
    import subprocess

    command = ["git", "check-ref-format", "--branch", name]
    done = subprocess.run(command, capture_output=True, cwd="/")  # noqa: S603, S607 - git itself, one argument
    return done.returncode == 0


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_REF_PIECES), min_size=1, max_size=6).map("".join))
def test_branch_names_are_what_git_check_ref_format_takes(name: str) -> None:
    assert is_branch_name(name) == _git_takes_branch(name), name


@pytest.mark.parametrize(
    "name", ["x/../../../../account/access", "..", "a/./b", ".hidden", "a.lock", "a//b", "-x", "x/", "x.", "a@{1}"]
)
def test_uploads_and_repositories_refuse_what_git_refuses(testapp, widgets, make_lcov, snapshot, name: str) -> None:
    assert not _git_takes_branch(name)
    token = widgets.upload_token
    before = snapshot()
    query = urlencode({"commit": "c" * 40, "token": token, "branch": name})
    answer = testapp.post(f"/upload/v2?{query}", make_lcov({"a.py": {1: 1}}), status=400)
    assert "git branch name" in answer.text
    with pytest.raises(InvalidInput, match="git branch name"):
        normalize_branch(name)
    with pytest.raises(InvalidInput, match="git branch name"):
        operations.add_repo("github", "acme", "gadgets", branch=name)
    assert snapshot() == before


@pytest.mark.parametrize(
    "name", ["main", "release/2.x", "feature/é", "a.b", "@", "x@y", "v1.0-rc{1}", "refs/pull/1/merge"]
)
def test_branch_names_git_takes_are_kept(name: str) -> None:
    assert _git_takes_branch(name)
    assert normalize_branch(name) == name


@pytest.mark.parametrize("name", ["contributor:fix", "a-b.c_d:feature/x", "u:main"])
def test_a_forks_user_and_branch_is_kept_as_codecov_cli_sends_it(name: str) -> None:
    assert is_fork_branch(name) and normalize_branch(name) == name


@pytest.mark.parametrize("name", ["main", ":fix", "u:", "u:a:b", "-u:fix", "u/v:fix", "u:../x", "u:x y", "..:x"])
def test_anything_else_with_a_colon_is_no_forks_branch(name: str) -> None:
    assert not is_fork_branch(name)
    if ":" in name:
        with pytest.raises(InvalidInput, match="git branch name"):
            normalize_branch(name)
