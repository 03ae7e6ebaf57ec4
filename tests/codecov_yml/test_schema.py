"""The codecov.yml validator: every coercion, every error path, and the hostile files it refuses
(docs/pull-requests.md, the keys table)."""

# ruff: noqa: E501 - one case a line reads best in these tables

from __future__ import annotations

import re
from typing import Any

import pytest

from flask_coverage.codecov_yml.loader import MAX_YAML_BYTES, YamlError, load_yaml
from flask_coverage.codecov_yml.paths import PathRules
from flask_coverage.codecov_yml.patterns import matches
from flask_coverage.codecov_yml.schema import DEFAULTS, components, flag_settings, merged, parse, path_regex, validate


def value_at(text: str, *path: Any) -> Any:
    validated = parse(text)
    assert validated is not None
    value: Any = validated.value
    for key in path:
        value = value[key]
    return value


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        # coverage.range: two dots, three dots, a list, spaces, decimals
        ("coverage: {range: 60..80}", ("coverage", "range"), [60.0, 80.0]),
        ("coverage: {range: 60...80}", ("coverage", "range"), [60.0, 80.0]),
        ("coverage: {range: [70, 90.5]}", ("coverage", "range"), [70.0, 90.5]),
        ("coverage: {range: ' 50 .. 75 '}", ("coverage", "range"), [50.0, 75.0]),
        ("coverage: {range: ['60%', '80%']}", ("coverage", "range"), [60.0, 80.0]),
        ("coverage: {range: 80..80}", ("coverage", "range"), [80.0, 80.0]),
        # percentages: numbers and "N%"
        (
            "coverage: {status: {project: {default: {target: 80}}}}",
            ("coverage", "status", "project", "default", "target"),
            80.0,
        ),
        (
            "coverage: {status: {project: {default: {target: '80%'}}}}",
            ("coverage", "status", "project", "default", "target"),
            80.0,
        ),
        (
            "coverage: {status: {project: {default: {target: 79.5}}}}",
            ("coverage", "status", "project", "default", "target"),
            79.5,
        ),
        (
            "coverage: {status: {project: {default: {target: auto}}}}",
            ("coverage", "status", "project", "default", "target"),
            "auto",
        ),
        (
            "coverage: {status: {patch: {default: {threshold: '1%'}}}}",
            ("coverage", "status", "patch", "default", "threshold"),
            1.0,
        ),
        (
            "coverage: {status: {patch: {default: {threshold: 0}}}}",
            ("coverage", "status", "patch", "default", "threshold"),
            0.0,
        ),
        # precision and round
        ("coverage: {precision: 0}", ("coverage", "precision"), 0),
        ("coverage: {precision: 99}", ("coverage", "precision"), 99),
        ("coverage: {round: nearest}", ("coverage", "round"), "nearest"),
        ("coverage: {round: up}", ("coverage", "round"), "up"),
        # statuses: true, false, titles
        ("coverage: {status: {project: true}}", ("coverage", "status", "project"), True),
        ("coverage: {status: {changes: false}}", ("coverage", "status", "changes"), False),
        ("coverage: {status: {project: {ui: false}}}", ("coverage", "status", "project", "ui"), False),
        (
            "coverage: {status: {project: {ui: {informational: true}}}}",
            ("coverage", "status", "project", "ui"),
            {"informational": True},
        ),
        # path patterns: prefix, glob, regex, negation, ./
        ("ignore: [src/]", ("ignore",), ["^src/"]),
        ("ignore: ['./src/a.py']", ("ignore",), [r"^src/a\.py"]),
        ("ignore: ['**/*.md']", ("ignore",), [r"^.*/[^/]*\.md\Z"]),
        ("ignore: ['*.md']", ("ignore",), [r"^[^/]*\.md\Z"]),
        ("ignore: ['tests/*']", ("ignore",), [r"^tests/[^/]*\Z"]),
        ("ignore: ['a?c/**']", ("ignore",), [r"^a.c/.*\Z"]),
        ("ignore: ['src/.*_test\\.py$']", ("ignore",), [r"src/.*_test\.py$"]),
        ("ignore: ['!vendor/']", ("ignore",), ["!^vendor/"]),
        ("ignore: 'lone/'", ("ignore",), ["^lone/"]),
        # branches
        (
            "coverage: {status: {project: {default: {branches: [main]}}}}",
            ("coverage", "status", "project", "default", "branches"),
            ["^main$"],
        ),
        (
            "coverage: {status: {project: {default: {branches: ['release/*']}}}}",
            ("coverage", "status", "project", "default", "branches"),
            ["^release/.*$"],
        ),
        (
            "coverage: {status: {project: {default: {branches: ['*', '']}}}}",
            ("coverage", "status", "project", "default", "branches"),
            [".*", ".*"],
        ),
        (
            "coverage: {status: {project: {default: {branches: ['!dev']}}}}",
            ("coverage", "status", "project", "default", "branches"),
            ["!^dev$"],
        ),
        # fixes
        ("fixes: ['before/::after/']", ("fixes",), [{"before": "^before/", "after": "after/"}]),
        ("fixes: ['::prefix/']", ("fixes",), [{"before": "^", "after": "prefix/"}]),
        ("fixes: ['strip/::']", ("fixes",), [{"before": "^strip/", "after": ""}]),
        # the comment
        (
            "comment: {layout: 'header, diff,files:5 , footer'}",
            ("comment", "layout"),
            ["header", "diff", "files:5", "footer"],
        ),
        ("comment: {layout: condensed_header}", ("comment", "layout"), ["condensed_header"]),
        ("comment: {require_changes: false}", ("comment", "require_changes"), []),
        ("comment: {require_changes: true}", ("comment", "require_changes"), [["any_change"]]),
        (
            "comment: {require_changes: coverage_drop OR uncovered_patch}",
            ("comment", "require_changes"),
            [["coverage_drop", "uncovered_patch"]],
        ),
        (
            "comment: {require_changes: coverage_drop and uncovered_patch}",
            ("comment", "require_changes"),
            [["coverage_drop"], ["uncovered_patch"]],
        ),
        ("comment: false", ("comment",), False),
        ("comment: true", ("comment",), {}),
        ("comment: {behavior: once}", ("comment", "behavior"), "once"),
        ("comment: {after_n_builds: 3}", ("comment", "after_n_builds"), 3),
        (
            "codecov: {notify: {after_n_builds: 2, manual_trigger: true}}",
            ("codecov", "notify"),
            {"after_n_builds": 2, "manual_trigger": True},
        ),
        # flag_management and component_management, statuses with their kind
        (
            "flag_management: {default_rules: {statuses: [{type: project, target: '80%'}]}}",
            ("flag_management", "default_rules", "statuses"),
            [{"type": "project", "target": 80.0}],
        ),
        (
            "flag_management: {individual_flags: [{name: ui, paths: [web/], ignore: ['**/*.md']}]}",
            ("flag_management", "individual_flags"),
            [{"name": "ui", "paths": ["^web/"], "ignore": [r"^.*/[^/]*\.md\Z"]}],
        ),
        (
            "component_management: {individual_components: [{component_id: api, flag_regexes: ['unit.*'], paths: [api/]}]}",
            ("component_management", "individual_components"),
            [{"component_id": "api", "flag_regexes": ["unit.*"], "paths": ["^api/"]}],
        ),
        # Codecov's moves: coverage.ignore to the top, codecov.notify.require_ci_to_pass up one
        ("coverage: {ignore: [docs/]}", ("ignore",), ["^docs/"]),
        ("codecov: {notify: {require_ci_to_pass: false}}", ("codecov", "require_ci_to_pass"), False),
    ],
)
def test_coercions(text: str, path: tuple[Any, ...], expected: Any) -> None:
    assert value_at(text, *path) == expected


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("foo: 1", ["foo"], "unknown key"),
        (
            "coverage: {status: {project: {default: {treshold: 1}}}}",
            ["coverage", "status", "project", "default", "treshold"],
            "unknown key",
        ),
        ("coverage: {range: 60....80}", ["coverage", "range"], "must be a range"),
        ("coverage: {range: 90..80}", ["coverage", "range"], "lower end"),
        ("coverage: {range: 60..180}", ["coverage", "range"], "between 0 and 100"),
        ("coverage: {range: [60]}", ["coverage", "range"], "must be a range"),
        ("coverage: {range: [60, x]}", ["coverage", "range", 1], "percentage"),
        ("coverage: {precision: 100}", ["coverage", "precision"], "between 0 and 99"),
        ("coverage: {precision: 2.5}", ["coverage", "precision"], "integer"),
        ("coverage: {precision: true}", ["coverage", "precision"], "integer"),
        ("coverage: {round: sideways}", ["coverage", "round"], "must be one of"),
        (
            "coverage: {status: {project: {default: {target: 101}}}}",
            ["coverage", "status", "project", "default", "target"],
            "between 0 and 100",
        ),
        (
            "coverage: {status: {project: {default: {target: lots}}}}",
            ["coverage", "status", "project", "default", "target"],
            "percentage",
        ),
        (
            "coverage: {status: {project: {default: {target: true}}}}",
            ["coverage", "status", "project", "default", "target"],
            "percentage",
        ),
        (
            "coverage: {status: {project: {default: {informational: yes please}}}}",
            ["coverage", "status", "project", "default", "informational"],
            "boolean",
        ),
        (
            "coverage: {status: {project: {default: {if_not_found: maybe}}}}",
            ["coverage", "status", "project", "default", "if_not_found"],
            "must be one of",
        ),
        (
            "coverage: {status: {project: 3}}",
            ["coverage", "status", "project"],
            "must be a boolean (true or false) or a mapping",
        ),
        (
            "coverage: {status: {patch: {default: {paths: 3}}}}",
            ["coverage", "status", "patch", "default", "paths"],
            "must be a list",
        ),
        (
            "coverage: {status: {patch: {default: {flags: [1]}}}}",
            ["coverage", "status", "patch", "default", "flags", 0],
            "must be a string",
        ),
        ("ignore: ['[a']", ["ignore", 0], "not a valid regular expression"),
        ("ignore: ['!']", ["ignore", 0], "must not be empty"),
        ("ignore: ['" + "a" * 1001 + "']", ["ignore", 0], "longer than"),
        ("fixes: ['no separator']", ["fixes", 0], "before::after"),
        ("fixes: ['a::b::c']", ["fixes", 0], "before::after"),
        (
            "comment: {layout: 'header, foo, files:x'}",
            ["comment", "layout"],
            "Unexpected values on layout: foo, files:x",
        ),
        ("comment: {behavior: loud}", ["comment", "behavior"], "must be one of"),
        (
            "comment: {require_changes: coverage_drop or nothing}",
            ["comment", "require_changes"],
            "unknown condition 'nothing'",
        ),
        ("comment: {after_n_builds: -1}", ["comment", "after_n_builds"], "at least 0"),
        ("comment: {unknown: 1}", ["comment", "unknown"], "unknown key"),
        ("comment: 3", ["comment"], "must be a boolean (true or false) or a mapping"),
        ("flags: {'': {paths: [a/]}}", ["flags", ""], "must be a name"),
        ("flags: {unit: {paths: [a/], carry: true}}", ["flags", "unit", "carry"], "unknown key"),
        ("codecov: {notify: {after_n_builds: many}}", ["codecov", "notify", "after_n_builds"], "integer"),
        ("github_checks: {annotations: 1}", ["github_checks", "annotations"], "boolean"),
        ("fixes: ['a::../../etc/']", ["fixes", 0], "must not climb"),
        ('fixes: ["a::b\\u200b/"]', ["fixes", 0], "must not contain control"),
        (
            "flag_management: {default_rules: {statuses: [{target: 80}]}}",
            ["flag_management", "default_rules", "statuses", 0, "type"],
            "required field",
        ),
        (
            "flag_management: {default_rules: {statuses: [{type: project, flags: [a]}]}}",
            ["flag_management", "default_rules", "statuses", 0, "flags"],
            "unknown key",
        ),
        (
            "flag_management: {individual_flags: [{paths: [a/]}]}",
            ["flag_management", "individual_flags", 0, "name"],
            "required field",
        ),
        (
            "flag_management: {individual_flags: [{name: ''}]}",
            ["flag_management", "individual_flags", 0, "name"],
            "must not be empty",
        ),
        ("flag_management: {rules: {}}", ["flag_management", "rules"], "unknown key"),
        (
            "component_management: {individual_components: [{name: API}]}",
            ["component_management", "individual_components", 0, "component_id"],
            "required field",
        ),
        (
            "component_management: {individual_components: [{component_id: a, flag_regexes: ['[']}]}",
            ["component_management", "individual_components", 0, "flag_regexes", 0],
            "not a valid regular expression",
        ),
        (
            "component_management: {default_rules: {statuses: [{type: sideways}]}}",
            ["component_management", "default_rules", "statuses", 0, "type"],
            "must be one of",
        ),
        ("coverage: {ignore: [a/]}\nignore: [b/]", ["coverage", "ignore"], "both here and at the top level"),
    ],
)
def test_errors_name_the_key_path(text: str, where: list[Any], message: str) -> None:
    with pytest.raises(YamlError) as raised:
        parse(text)
    assert raised.value.path == tuple(where)
    assert message in raised.value.message
    assert str(raised.value).startswith(f"Error at {where}: ")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("a: &x [1, 2]\nb: *x\n", "anchors and aliases"),
        ('a: &a ["lol","lol"]\nb: &b [*a,*a]\nc: [*b,*b]\n', "anchors and aliases"),
        ("a: !!python/object/apply:os.system ['true']\n", "tags"),
        ("a: !!str 1\n", "tags"),
        ("a: !custom x\n", "tags"),
        ("a: " + "[" * 50 + "]" * 50 + "\n", "nested deeper"),
        ("a: 1\na: 2\n", "appears twice"),
        ("? [1, 2]\n: x\n", "plain value"),
        ("a: [1, 2\n", "Can't parse YAML"),
        ("\tx: 1\n", "Can't parse YAML"),
        ("- 1\n- 2\n", "must be a mapping"),
        ("just words\n", "must be a mapping"),
        (b"a: '\xff'\n", "not UTF-8"),
        ("a: " + "x" * MAX_YAML_BYTES + "\n", "larger than"),
    ],
)
def test_hostile_and_broken_files_are_refused_clearly(data: Any, message: str) -> None:
    with pytest.raises(YamlError, match=re.escape(message)):
        load_yaml(data)


def test_an_empty_file_is_no_yaml() -> None:
    assert parse("") is None
    assert parse("# only a comment\n") is None


def test_keys_codecov_knows_but_this_service_does_not_act_on_validate_with_a_note() -> None:
    validated = parse(
        "codecov: {require_ci_to_pass: true}\n"
        "flags: {unit: {carryforward_mode: labels}}\n"
        "slack_app: {enabled: true}\n"
        "comment: {layout: 'reach, header'}\n"
    )
    assert validated is not None
    assert "['codecov', 'require_ci_to_pass']: valid, not acted on by this service" not in validated.notes
    assert "['flags', 'unit', 'carryforward_mode']: valid, not acted on by this service" in validated.notes
    assert "['slack_app']: valid, not acted on by this service" in validated.notes
    assert "['comment', 'layout']: the section 'reach' is not drawn here" in validated.notes
    assert parse("coverage: {precision: 1}").notes == []  # type: ignore[union-attr]


def test_validate_does_not_change_its_argument() -> None:
    given = {"coverage": {"ignore": ["a/"], "range": "60..80"}}
    validate(given)
    assert given == {"coverage": {"ignore": ["a/"], "range": "60..80"}}


def test_merged_over_the_defaults_key_by_key() -> None:
    own = value_at("coverage: {precision: 1, status: {project: {default: {target: 90}}}}")
    result = merged(DEFAULTS, own)
    assert result["coverage"]["precision"] == 1
    assert result["coverage"]["round"] == "down"  # kept from the defaults
    assert result["coverage"]["status"]["project"] == {"default": {"target": 90.0}}
    assert result["coverage"]["status"]["patch"] is True
    assert DEFAULTS["coverage"]["precision"] == 2  # the defaults are not changed


@pytest.mark.parametrize(
    ("patterns", "path", "expected"),
    [
        (None, "anything", True),
        (["src/"], "src/a.py", True),
        (["src/"], "lib/src/a.py", False),
        (["*.py"], "a.py", True),
        (["*.py"], "pkg/a.py", False),
        (["**/*.py"], "pkg/sub/a.py", True),
        (["src/", "!src/vendor/"], "src/vendor/x.py", False),
        (["src/", "!src/vendor/"], "src/app.py", True),
        (["!docs/"], "src/app.py", True),
        (["!docs/"], "docs/index.md", False),
    ],
)
def test_path_patterns_match_as_codecov_matches_them(patterns: Any, path: str, expected: bool) -> None:
    coerced = None if patterns is None else [path_regex(pattern) for pattern in patterns]
    assert matches(coerced, path) is expected


def test_a_flag_is_configured_by_flags_else_flag_management() -> None:
    settings = value_at(
        "flags: {legacy: {paths: [old/]}}\n"
        "flag_management:\n"
        "  default_rules: {paths: [src/], statuses: [{type: patch}]}\n"
        "  individual_flags: [{name: ui, paths: [web/]}, {name: legacy, paths: [new/]}]\n"
    )
    assert flag_settings(settings, "legacy") == {"paths": ["^old/"]}  # flags.<name> wins, as at Codecov
    assert flag_settings(settings, "ui") == {"name": "ui", "paths": ["^web/"], "statuses": [{"type": "patch"}]}
    assert flag_settings(settings, "other") == {"paths": ["^src/"], "statuses": [{"type": "patch"}]}
    assert flag_settings({}, "other") is None


def test_components_take_the_default_rules_and_a_title() -> None:
    settings = value_at(
        "component_management:\n"
        "  default_rules: {statuses: [{type: project}]}\n"
        "  individual_components: [{component_id: api, paths: [api/]}, {component_id: w, name: Web, statuses: []}]\n"
    )
    assert components(settings) == [
        {"component_id": "api", "paths": ["^api/"], "statuses": [{"type": "project"}], "title": "api"},
        {"component_id": "w", "name": "Web", "statuses": [], "title": "Web"},
    ]


@pytest.mark.parametrize(
    ("yaml", "flags", "path", "expected"),
    [
        ("fixes: ['before/::after/']", (), "before/a.py", "after/a.py"),
        ("fixes: ['before/::after/']", (), "other/before/a.py", "other/before/a.py"),
        ("fixes: ['::pkg/']", (), "a.py", "pkg/a.py"),
        ("fixes: ['::pkg/', '::sub']", (), "a.py", "pkg/sub/a.py"),
        ("fixes: ['/home/ci/build/::']", (), "/home/ci/build/src/a.py", "src/a.py"),
        ("fixes: ['**/build/::']", (), "x/y/build/src/a.py", "src/a.py"),
        ("fixes: ['a/::b/', 'a/c/::d/']", (), "a/c/x.py", "b/c/x.py"),  # the first that matches
        ("fixes: ['::pkg/', 'pkg/old/::pkg/new/']", (), "old/a.py", "pkg/new/a.py"),  # prefixes first
        ("fixes: ['a/::']", (), "a//b.py", "b.py"),
    ],
)
def test_fixes_rewrite_paths_as_codecov_does(yaml: str, flags: tuple[str, ...], path: str, expected: str) -> None:
    assert PathRules.of(value_at(yaml), flags).fix(path) == expected


@pytest.mark.parametrize(
    ("yaml", "flags", "path", "expected"),
    [
        ("ignore: [docs/]", (), "docs/a.py", False),
        ("ignore: [docs/]", (), "src/docs/a.py", True),
        ("ignore: ['**/*_test.py']", (), "src/a_test.py", False),
        ("ignore: ['*_test.py']", (), "src/a_test.py", True),  # * stays within a folder
        ("ignore: ['.*/migrations/.*']", (), "app/migrations/0001.py", False),
        ("ignore: [docs/]", ("unit",), "docs/a.py", False),
        ("flags: {unit: {paths: [src/]}}", ("unit",), "tests/a.py", False),
        ("flags: {unit: {paths: [src/]}}", ("unit",), "src/a.py", True),
        ("flags: {unit: {paths: [src/]}}", (), "tests/a.py", True),  # only for the flag's uploads
        ("flags: {unit: {ignore: [src/gen/]}}", ("unit",), "src/gen/x.py", False),
        ("flag_management: {default_rules: {ignore: [vendor/]}}", ("any",), "vendor/x.py", False),
        ("flag_management: {individual_flags: [{name: ui, paths: [web/]}]}", ("ui", "other"), "api/x.py", False),
        ("ignore: ['!src/']", (), "lib/x.py", False),  # a negated ignore is an include, as at Codecov
        ("ignore: ['!src/']", (), "src/x.py", True),
    ],
)
def test_ignore_and_flag_paths_decide_which_files_are_kept(
    yaml: str, flags: tuple[str, ...], path: str, expected: bool
) -> None:
    assert PathRules.of(value_at(yaml), flags).kept(path) is expected


def test_no_rules_without_ignore_or_fixes() -> None:
    assert not PathRules.of(DEFAULTS)
    assert PathRules.of(DEFAULTS).kept("anything") and PathRules.of(DEFAULTS).fix("a.py") == "a.py"
