"""The patterns of a codecov.yml run on RE2, in time linear in the path, wherever they come from:
``ignore``, a flag's ``paths`` and ``ignore``, ``fixes``, a status's ``paths``, a component's
``paths`` and ``flag_regexes``; and what RE2 cannot run is refused at validation (docs/pull-requests.md,
"Patterns run in linear time")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Callable
from urllib.parse import urlencode

import pytest
import re2
import webtest

from flask_coverage import operations
from flask_coverage.codecov_yml import patterns
from flask_coverage.codecov_yml.loader import YamlError
from flask_coverage.codecov_yml.paths import PathRules
from flask_coverage.codecov_yml.patterns import PatternError, any_match, compile_pattern, matches
from flask_coverage.codecov_yml.schema import DEFAULTS, merged, parse
from flask_coverage.feedback.statuses import configured
from flask_coverage.lines import HIT, MISS, LineCoverage
from flask_coverage.queries.files import file_totals
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit
from tests.feedback.test_statuses import statuses
from tests.git_history import lcov

#: Python's re takes 2**30 steps to find that this does not match ``a`` * 30 + ``!``.
EVIL = "(a+)+$"
NOT_MATCHED = "a" * 30 + "!"
MATCHED = "a" * 30


def settings_of(text: str) -> dict[str, Any]:
    validated = parse(text)
    assert validated is not None
    return merged(DEFAULTS, validated.value)


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What RE2 compiles from now on (nothing is compiled already: the caches are emptied)."""
    seen: list[str] = []
    real = re2.compile

    def recording(pattern: str, options: Any = None) -> Any:
        seen.append(pattern)
        return real(pattern, options)

    monkeypatch.setattr(re2, "compile", recording)
    patterns._compiled.cache_clear()
    patterns.pattern_filter.cache_clear()
    yield seen
    patterns._compiled.cache_clear()
    patterns.pattern_filter.cache_clear()


def test_the_engine_is_re2_and_answers_a_catastrophic_pattern(compiled: list[str]) -> None:
    pattern = compile_pattern(EVIL)
    assert type(pattern).__module__.split(".")[0] == "re2"
    assert compiled == [EVIL]
    assert pattern.match(NOT_MATCHED) is None
    assert pattern.match(MATCHED) is not None
    assert [matches([EVIL], path) for path in (NOT_MATCHED, MATCHED, "b" + MATCHED)] == [False, True, False]


@pytest.mark.parametrize(
    ("yaml", "flags", "expected"),
    [
        # ignore: the path that matches is left out
        (f"ignore: ['{EVIL}']", (), [True, False]),
        # a flag's paths: only what matches is kept for its uploads; its ignore: what matches is left out
        (f"flag_management: {{individual_flags: [{{name: unit, paths: ['{EVIL}']}}]}}", ("unit",), [False, True]),
        (f"flags: {{unit: {{ignore: ['{EVIL}']}}}}", ("unit",), [True, False]),
    ],
)
def test_ignore_and_flag_paths_run_on_re2(
    compiled: list[str], yaml: str, flags: tuple[str, ...], expected: list[bool]
) -> None:
    rules = PathRules.of(settings_of(yaml), flags)
    assert [rules.kept(path) for path in (NOT_MATCHED, MATCHED)] == expected
    assert any(EVIL in pattern for pattern in compiled)


def test_fixes_run_on_re2(compiled: list[str]) -> None:
    rules = PathRules.of(settings_of("fixes: ['[a](a+)+b/::src/']"))
    assert rules.fix(NOT_MATCHED) == NOT_MATCHED
    assert rules.fix(MATCHED + "b/app.py") == "src/app.py"
    assert "[a](a+)+b/" in compiled


def lines(*states: int) -> LineCoverage:
    return LineCoverage((number, 1 if state == HIT else 0, state) for number, state in enumerate(states, 1))


@pytest.mark.parametrize(
    ("yaml", "context"),
    [
        (f"coverage: {{status: {{patch: false, project: {{default: {{paths: ['{EVIL}']}}}}}}}}", "codecov/project"),
        (
            "coverage: {status: {project: false, patch: false}}\n"
            f"component_management: {{individual_components: [{{component_id: a, paths: ['{EVIL}'],"
            " statuses: [{type: project}]}]}",
            "codecov/project/a",
        ),
    ],
)
def test_status_and_component_paths_run_on_re2(compiled: list[str], yaml: str, context: str) -> None:
    # Only the file the pattern matches counts: half of its lines are hit.
    side = {NOT_MATCHED: lines(HIT, HIT, HIT, HIT), MATCHED: lines(HIT, MISS)}
    found = statuses(yaml, side, side)
    assert [(name, description.split()[0]) for name, _, description in found] == [(context, "50.00%")]
    assert any(EVIL in pattern for pattern in compiled)


def test_component_flag_regexes_run_on_re2(compiled: list[str]) -> None:
    settings = settings_of(
        f"component_management: {{individual_components: [{{component_id: a, flag_regexes: ['{EVIL}'],"
        " statuses: [{type: project}]}]}"
    )
    found = [options["flags"] for _, title, options in configured(settings, (NOT_MATCHED, MATCHED)) if title == "a"]
    assert found == [[MATCHED]]
    assert EVIL in compiled


@pytest.mark.parametrize(
    ("yaml", "where", "construct"),
    [
        (r"ignore: ['(a)\1$']", ["ignore", 0], r"\1"),
        ("flags: {unit: {paths: ['src/(?=app)$']}}", ["flags", "unit", "paths", 0], "(?="),
        (
            "component_management: {individual_components: [{component_id: a, flag_regexes: ['(?<!x)u']}]}",
            ["component_management", "individual_components", 0, "flag_regexes", 0],
            "(?<!",
        ),
        (
            "coverage: {status: {project: {default: {paths: ['(?P<x>a)(?P=x)$']}}}}",
            ["coverage", "status", "project", "default", "paths", 0],
            "(?P",
        ),
        ("fixes: ['(a)?(?(1)b|c)[d]::c/']", ["fixes", 0], "(?("),
    ],
)
def test_what_re2_cannot_run_is_refused_at_validation(yaml: str, where: list[Any], construct: str) -> None:
    with pytest.raises(YamlError) as refused:
        parse(yaml)
    message = str(refused.value)
    assert message.startswith(f"Error at {where}: is not a regular expression RE2 runs (")
    assert construct in message
    assert "every pattern must run in linear time" in message


def test_the_validator_answers_the_refusal_over_http(testapp: webtest.TestApp) -> None:
    answer = testapp.post("/validate", rb"ignore: ['(a)\1$']", content_type="application/octet-stream", status=400)
    assert answer.text.startswith("Error at ['ignore', 0]: \nis not a regular expression RE2 runs (invalid escape")


def test_pythons_end_of_text_is_read_as_re2s() -> None:
    # The coerced globs end with \Z (Python's spelling), stored so in the commits' rows: RE2 reads \z.
    pattern = compile_pattern(r"^src/[^/]*\.py\Z")
    assert pattern.match("src/app.py") is not None
    assert pattern.match("src/app.pyc") is None
    assert compile_pattern(r"^a\\Z").match("a\\Z") is not None  # an escaped backslash, then a Z


def test_a_pattern_past_the_length_bound_is_refused() -> None:
    with pytest.raises(PatternError, match="longer than 1000 characters"):
        compile_pattern("a" * 1001)


def test_patterns_too_large_together_are_matched_one_by_one(compiled: list[str]) -> None:
    # Each within RE2's memory bound, their alternation past it: still the same answers.
    big = [f"x{index}|\\pL{{300}}" for index in range(8)]
    matching: Callable[[str], bool] = any_match(big)
    assert len(compiled) == 1 + len(big)
    assert matching("x7") and matching("é" * 300) and not matching("y")


def test_an_upload_with_a_catastrophic_ignore_is_stored_as_the_pattern_says(
    testapp: webtest.TestApp, widgets: Any
) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", f"ignore: ['{EVIL}']\n")
    report = lcov({"a" * 30 + "!": {1: 1}, "a" * 29 + "!": {1: 0}, "a" * 28 + "!": {1: 1}, MATCHED: {1: 1}})
    query = urlencode({"token": widgets.upload_token, "commit": "e" * 40})
    answer = testapp.post(f"/upload/v2?{query}", report, headers={"Content-Type": "text/plain"}, status=200)
    assert "1 files the codecov.yml ignores, skipped" in answer.text
    repository = find_repository("github", "acme", "widgets")
    stored = sorted(row.path for row in file_totals(resolve_commit(repository, sha="e" * 40)))
    assert stored == ["a" * 28 + "!", "a" * 29 + "!", "a" * 30 + "!"]
