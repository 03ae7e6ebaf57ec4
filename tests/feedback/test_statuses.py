"""The statuses' rules on plain data: Codecov's states and descriptions for project, patch and
changes, targets, thresholds, titles, paths, flags, branches, informational, only_pulls,
if_not_found and removed_code_behavior; the statuses of flags and components."""

from __future__ import annotations

import random
from typing import Any, Optional

import pytest

from flask_coverage.codecov_yml.numbers import Numbers
from flask_coverage.codecov_yml.schema import DEFAULTS, merged, parse
from flask_coverage.feedback.diff import Diff
from flask_coverage.feedback.statuses import Facts, Side, Status, compute, indirect_changes, unexpected_changes
from flask_coverage.lines import HIT, MISS, PARTIAL, LineCoverage

BASE_SHA, HEAD_SHA = "b" * 40, "h" * 40
STATES = {"h": HIT, "m": MISS, "p": PARTIAL}


def side(**files: str) -> Side:
    """``app="hhm."``: line 1 hit, 2 hit, 3 missed, 4 untracked (a file's name with ``__`` for ``/``)."""
    return {
        name.replace("__", "/") + ".py": LineCoverage(
            (number, 1 if state == "h" else 0, STATES[state]) for number, state in enumerate(states, 1) if state != "."
        )
        for name, states in files.items()
    }


def facts(
    yaml: str,
    head: Side,
    base: Optional[Side],
    added: Optional[dict[str, list[int]]] = None,
    removed: Optional[dict[str, list[int]]] = None,
    pullid: Optional[int] = 7,
    branch: Optional[str] = "feature",
    flagged: Optional[dict[tuple[str, ...], tuple[Side, Optional[Side]]]] = None,
    flags: tuple[str, ...] = (),
) -> Facts:
    validated = parse(yaml)
    settings = merged(DEFAULTS, validated.value if validated else None)
    diff = Diff(added or {}, removed or {}) if added is not None or removed is not None else Diff({}, {})

    def sides(flags: tuple[str, ...]) -> tuple[Side, Optional[Side]]:
        return (flagged or {}).get(flags, (head, base))

    numbers = Numbers(settings["coverage"]["precision"], settings["coverage"]["round"])
    return Facts(sides, HEAD_SHA, BASE_SHA, diff, pullid, branch, settings, numbers, flags)


def statuses(*args: Any, **kwargs: Any) -> list[tuple[str, str, str]]:
    return [(s.context, s.state, s.description) for s in compute(facts(*args, **kwargs))]


def test_the_defaults_are_project_and_patch() -> None:
    found = statuses("", side(app="hhhm"), side(app="hhmm"), added={"app.py": [3]})
    assert found == [
        ("codecov/project", "success", "75.00% (+25.00%) compared to bbbbbbb"),
        ("codecov/patch", "success", "100.00% of diff hit (target 50.00%)"),
    ]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ("{}", ("success", "75.00% (+25.00%) compared to bbbbbbb")),
        ("{target: 80}", ("failure", "75.00% (target 80.00%)")),
        ("{target: '80%', threshold: 5}", ("success", "75.00% (target 80.00%)")),
        ("{target: 76, threshold: 0.5}", ("failure", "75.00% (target 76.00%)")),
        ("{target: 80, informational: true}", ("success", "75.00% (target 80.00%)")),
    ],
)
def test_project_targets_and_thresholds(options: str, expected: tuple[str, str]) -> None:
    yaml = f"coverage: {{status: {{project: {{default: {options}}}, patch: false}}}}"
    assert statuses(yaml, side(app="hhhm"), side(app="hhmm")) == [("codecov/project", *expected)]


def test_project_drop_within_the_threshold_and_below_it() -> None:
    head, base = side(app="hhmm"), side(app="hhhm")  # 50 % after 75 %
    yaml = "coverage: {status: {project: {default: {threshold: 25}}, patch: false}}"
    assert statuses(yaml, head, base) == [("codecov/project", "success", "50.00% (-25.00%) compared to bbbbbbb")]
    yaml = "coverage: {status: {project: {default: {threshold: 24.99}}, patch: false}}"
    assert statuses(yaml, head, base)[0][1] == "failure"


def test_removed_code_adjusts_the_base() -> None:
    # A hit line removed: 66.67 % after 75 %, but the base without that line had 66.67 % too.
    head, base = side(app="hhm"), side(app="hhhm")
    yaml = "coverage: {status: {patch: false}}"
    assert statuses(yaml, head, base, removed={"app.py": [1]}) == [
        (
            "codecov/project",
            "success",
            "66.66% (-8.34%) compared to bbbbbbb, passed because coverage increased by +0.00% "
            "when compared to adjusted base (66.66%)",
        )
    ]
    off = "coverage: {status: {project: {default: {removed_code_behavior: off}}, patch: false}}"
    assert statuses(off, head, base, removed={"app.py": [1]})[0][1] == "failure"
    assert statuses(yaml, head, base, removed={})[0][1] == "failure"  # nothing removed: nothing to adjust


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ("{}", ("codecov/project", "success", "No report found to compare against")),
        ("{if_not_found: failure}", ("codecov/project", "failure", "No report found to compare against")),
        ("{target: 60}", ("codecov/project", "success", "75.00% (target 60.00%)")),
    ],
)
def test_project_without_a_base(options: str, expected: tuple[str, str, str]) -> None:
    yaml = f"coverage: {{status: {{project: {{default: {options}}}, patch: false}}}}"
    assert statuses(yaml, side(app="hhhm"), None) == [expected]


def test_project_without_coverage_on_head() -> None:
    yaml = "coverage: {status: {project: {default: {if_not_found: error}}, patch: false}}"
    assert statuses(yaml, {}, side(app="h")) == [("codecov/project", "error", "No coverage information found on head")]


@pytest.mark.parametrize(
    ("options", "added", "expected"),
    [
        ("{target: 80}", [1, 3], ("failure", "50.00% of diff hit (target 80.00%)")),
        ("{target: 80, threshold: 30}", [1, 3], ("success", "50.00% of diff hit (within 30.00% threshold of 80.00%)")),
        ("{target: 40}", [1, 3], ("success", "50.00% of diff hit (target 40.00%)")),
        ("{}", [1, 3], ("success", "50.00% of diff hit (target 50.00%)")),  # auto: the base's project coverage
        ("{}", [3, 4], ("failure", "0.00% of diff hit (target 50.00%)")),  # a partial is not covered
        ("{}", [5, 6], ("success", "Coverage not affected when comparing bbbbbbb...hhhhhhh")),
        ("{target: 100, informational: true}", [3], ("success", "0.00% of diff hit (target 100.00%)")),
    ],
)
def test_patch(options: str, added: list[int], expected: tuple[str, str]) -> None:
    yaml = f"coverage: {{status: {{project: false, patch: {{default: {options}}}}}}}"
    head, base = side(app="hmmp.."), side(app="hhmm")
    assert statuses(yaml, head, base, added={"app.py": added}) == [("codecov/patch", *expected)]


def test_patch_auto_without_a_base() -> None:
    yaml = "coverage: {status: {project: false, patch: {default: {if_not_found: failure}}}}"
    assert statuses(yaml, side(app="h"), None, added={"app.py": [1]}) == [
        ("codecov/patch", "failure", "No report found to compare against")
    ]


def test_changes() -> None:
    yaml = "coverage: {status: {project: false, patch: false, changes: true}}"
    base = side(app="hh", lib="hh", docs="hh", gone="h")
    head = side(app="hm", lib="hm", docs="hh", new="m")  # app.py in the diff; lib.py changed outside it
    assert statuses(yaml, head, base, added={"app.py": [2]}) == [
        ("codecov/changes", "failure", "1 file has indirect coverage changes not visible in diff")
    ]
    assert statuses(yaml, side(app="hm"), side(app="hh"), added={"app.py": [2]}) == [
        ("codecov/changes", "success", "No indirect coverage changes found")
    ]
    assert statuses(yaml, head, None) == [
        ("codecov/changes", "success", "Unable to determine changes, no report found at pull request base")
    ]


def test_titles_paths_and_flags() -> None:
    yaml = (
        "coverage:\n  status:\n    patch: false\n    project:\n      default: true\n"
        "      backend: {paths: [src/], target: 90}\n      ui: {flags: [ui]}\n      disabled: false\n"
        "flags:\n  ui:\n    paths: [web/]\n"
    )
    head = side(src__a="hhhh", web__b="mm")
    ui_only = (side(web__b="hm", src__a="mmmm"), side(web__b="mm"))
    assert statuses(yaml, head, head, flagged={("ui",): ui_only}) == [
        ("codecov/project", "success", "66.66% (+0.00%) compared to bbbbbbb"),
        ("codecov/project/backend", "success", "100.00% (target 90.00%)"),
        # The ui flag's coverage, and only the ui flag's paths (web/).
        ("codecov/project/ui", "success", "50.00% (+50.00%) compared to bbbbbbb"),
    ]


def test_only_pulls_and_branches() -> None:
    yaml = (
        "coverage:\n  status:\n    patch: false\n    project:\n      default: {only_pulls: true}\n"
        "      release: {branches: ['release/*']}\n      notdev: {branches: ['!dev']}\n"
    )
    head = side(app="h")
    assert [s[0] for s in statuses(yaml, head, head, pullid=None, branch="release/1.0")] == [
        "codecov/project/release",
        "codecov/project/notdev",
    ]
    assert [s[0] for s in statuses(yaml, head, head, pullid=7, branch="dev")] == ["codecov/project"]


def test_rounded_as_the_yaml_says() -> None:
    yaml = "coverage: {precision: 1, round: up, status: {patch: false}}"
    assert statuses(yaml, side(app="hhm"), side(app="hm")) == [
        ("codecov/project", "success", "66.7% (+16.7%) compared to bbbbbbb")
    ]


def test_a_status_is_a_value() -> None:
    assert Status("codecov/patch", "success", "x") == Status("codecov/patch", "success", "x")


CHANGES_ONLY = "coverage: {status: {project: false, patch: false, changes: true}}"


@pytest.mark.parametrize(
    ("base", "head", "added", "removed", "expected"),
    [
        # Not in the diff: a line that became missed.
        ({"lib": "hh"}, {"lib": "hm"}, {}, {}, "1 file has indirect coverage changes not visible in diff"),
        # Not in the diff and better: nothing to note.
        ({"lib": "hm"}, {"lib": "hh"}, {}, {}, "No indirect coverage changes found"),
        # One line better, one worse: no more missed lines than before.
        ({"lib": "hm"}, {"lib": "mh"}, {}, {}, "No indirect coverage changes found"),
        # In the diff, a line outside its hunks became missed: line 1 added, so line 3 was line 2.
        (
            {"app": "hh"},
            {"app": "hhm"},
            {"app.py": [1]},
            {},
            "1 file has indirect coverage changes not visible in diff",
        ),
        # In the diff, only the added line is missed: expected.
        ({"app": "hh"}, {"app": "mhh"}, {"app.py": [1]}, {}, "No indirect coverage changes found"),
        # Line 1 removed: the old line 2 is the new line 1, unchanged; the removed miss is expected.
        ({"app": "mh"}, {"app": "h"}, {"app.py": []}, {"app.py": [1]}, "No indirect coverage changes found"),
        # Line 1 replaced by two lines: old line 3 (hit) is new line 4, now missed.
        (
            {"app": "hhh"},
            {"app": "hhhm"},
            {"app.py": [1, 2]},
            {"app.py": [1]},
            "1 file has indirect coverage changes not visible in diff",
        ),
        # A line tracked only now, outside the diff, missed.
        ({"lib": "h."}, {"lib": "hm"}, {}, {}, "1 file has indirect coverage changes not visible in diff"),
        # New and deleted files are expected changes.
        ({"gone": "h"}, {"new": "m"}, {"new.py": [1]}, {"gone.py": [1]}, "No indirect coverage changes found"),
        (
            {"a": "hh", "b": "hh"},
            {"a": "hm", "b": "mh"},
            {},
            {},
            "2 files have indirect coverage changes not visible in diff",
        ),
    ],
)
def test_changes_counts_lines_outside_the_hunks_as_codecov_does(
    base: dict[str, str], head: dict[str, str], added: Any, removed: Any, expected: str
) -> None:
    ((context, state, description),) = statuses(CHANGES_ONLY, side(**head), side(**base), added=added, removed=removed)
    assert (context, description) == ("codecov/changes", expected)
    assert state == ("success" if expected.startswith("No") else "failure")


def project(behavior: str) -> str:
    return f"coverage: {{status: {{project: {{default: {{removed_code_behavior: {behavior}}}}}, patch: false}}}}"


REMOVED_BASE = {"app": "hhhm", "lib": "hh"}  # 83.33 %


@pytest.mark.parametrize(
    ("behavior", "head", "added", "removed", "expected"),
    [
        # Two hit lines removed (75.00 % after 83.33 %), nothing added, the rest unchanged.
        (
            "removals_only",
            {"app": "hm"},
            {"app.py": []},
            {"app.py": [1, 2]},
            ("success", ", passed because this change only removed code"),
        ),
        # A line with coverage added: not only removals.
        ("removals_only", {"app": "hmm"}, {"app.py": [3]}, {"app.py": [1, 2]}, ("failure", "")),
        # Nothing removed: the drop is a change outside the diff.
        ("removals_only", {"app": "hmhm"}, {}, {}, ("failure", "")),
        # A change outside the diff (lib.py's line 2).
        ("removals_only", {"app": "hm", "lib": "hm"}, {"app.py": []}, {"app.py": [1, 2]}, ("failure", "")),
        # The added line is hit, nothing changed outside the diff (80.00 % after 83.33 %).
        (
            "fully_covered_patch",
            {"app": "hmh"},
            {"app.py": [3]},
            {"app.py": [1, 2]},
            ("success", ", passed because patch was fully covered by tests, and no indirect coverage changes"),
        ),
        (
            "fully_covered_patch",
            {"app": "hm."},
            {"app.py": [3]},
            {"app.py": [1, 2]},
            ("success", ", passed because coverage was not affected by patch"),
        ),
        ("fully_covered_patch", {"app": "hmm"}, {"app.py": [3]}, {"app.py": [1, 2]}, ("failure", "")),
        ("fully_covered_patch", {"app": "hmh", "lib": "hm"}, {"app.py": [3]}, {"app.py": [1, 2]}, ("failure", "")),
        # Off: no rescue.
        ("off", {"app": "hm"}, {"app.py": []}, {"app.py": [1, 2]}, ("failure", "")),
    ],
)
def test_removed_code_behaviors(
    behavior: str, head: dict[str, str], added: Any, removed: Any, expected: tuple[str, str]
) -> None:
    head = {"lib": "hh", **head}
    ((_, state, description),) = statuses(
        project(behavior), side(**head), side(**REMOVED_BASE), added=added, removed=removed
    )
    assert (state, description.partition(" compared to bbbbbbb")[2]) == expected


def test_removed_code_behaviors_need_a_diff_and_a_base() -> None:
    for behavior in ("removals_only", "fully_covered_patch"):
        assert statuses(project(behavior), side(app="m"), None)[0][1] == "success"  # if_not_found
        ((_, state, _),) = compute_without_diff(project(behavior), side(app="m"), side(app="hm", gone="h"))
        assert state == "failure"


def compute_without_diff(yaml: str, head: Side, base: Side) -> list[tuple[str, str, str]]:
    found = facts(yaml, head, base)
    found.diff = None
    return [(s.context, s.state, s.description) for s in compute(found)]


FLAGGED = {
    ("unit",): (side(src__a="hm"), side(src__a="hh")),
    ("ui",): (side(web__b="hh"), side(web__b="hm")),
}


def test_flag_statuses_from_flags_and_flag_management() -> None:
    yaml = (
        "coverage: {status: {project: false, patch: false}}\n"
        "flags: {ui: {statuses: [{type: project, name_prefix: 'front-'}]}}\n"
        "flag_management:\n"
        "  default_rules: {statuses: [{type: project, target: 60}, {type: patch, enabled: false}]}\n"
        "  individual_flags: [{name: other, statuses: []}]\n"
    )
    found = statuses(yaml, side(), side(), flagged=FLAGGED, flags=("ui", "unit", "other"))
    assert found == [
        # flags.<name> wins over flag_management, as at Codecov; its prefix names the context.
        ("codecov/project/front-ui", "success", "100.00% (+50.00%) compared to bbbbbbb"),
        # The default rules apply to a flag without an entry of its own.
        ("codecov/project/unit", "failure", "50.00% (target 60.00%)"),
    ]


def test_a_flag_status_uses_the_flags_paths() -> None:
    yaml = (
        "coverage: {status: {project: false, patch: false}}\n"
        "flag_management: {default_rules: {paths: [src/], statuses: [{type: project, target: 75}]}}\n"
    )
    head = side(src__a="hm", src__b="hh", web__c="mmmm")
    assert statuses(yaml, side(), side(), flagged={("unit",): (head, head)}, flags=("unit",)) == [
        ("codecov/project/unit", "success", "75.00% (target 75.00%)")
    ]


def test_component_statuses_of_their_paths_and_flags() -> None:
    yaml = (
        "coverage: {status: {project: false, patch: false}}\n"
        "component_management:\n"
        "  default_rules: {statuses: [{type: project, target: 70}]}\n"
        "  individual_components:\n"
        "    - {component_id: backend, paths: [src/]}\n"
        "    - {component_id: front, name: Frontend, flag_regexes: ['^u'],\n"
        "       statuses: [{type: patch, name_prefix: c-}]}\n"
    )
    head = side(src__a="hm", web__b="hh")
    both = (side(src__a="hh", web__b="hh"), side(web__b="hm"))
    found = statuses(
        yaml,
        head,
        head,
        added={"src/a.py": [1], "web/b.py": [1]},
        flagged={**FLAGGED, ("ui", "unit"): both},
        flags=("ui", "unit"),
    )
    assert found == [
        ("codecov/project/backend", "failure", "50.00% (target 70.00%)"),
        # The flags its regexes match (ui and unit): their coverage, every path.
        ("codecov/patch/c-Frontend", "success", "100.00% of diff hit (target 50.00%)"),
    ]


def test_two_statuses_of_one_context_send_the_first() -> None:
    yaml = (
        "coverage: {status: {patch: false, project: {unit: {target: 10}}}}\n"
        "flags: {unit: {statuses: [{type: project, target: 90}]}}\n"
    )
    assert statuses(yaml, side(app="hm"), side(app="hm"), flags=("unit",), flagged=FLAGGED) == [
        ("codecov/project/unit", "success", "50.00% (target 10.00%)")
    ]


def test_an_indirect_change_is_more_lines_missed_among_the_lines_that_changed_state() -> None:
    """The rule on totals (``is_indirect_change``, which the pull's page can apply from columns) names
    the files Codecov's definition names: those whose unexpected changes, the lines outside the diff
    that changed state, have more lines missed or partial after than before."""
    randomness = random.Random(34)
    for _ in range(300):
        head, base, added, removed = {}, {}, {}, {}
        for name in ("a", "b", "c"):
            base[name] = "".join(randomness.choice("hmp.") for _ in range(randomness.randint(0, 8)))
            head[name] = "".join(randomness.choice("hmp.") for _ in range(randomness.randint(0, 8)))
            if randomness.random() < 0.6:
                added[f"{name}.py"] = sorted(randomness.sample(range(1, 9), randomness.randint(0, 3)))
                removed[f"{name}.py"] = sorted(randomness.sample(range(1, 9), randomness.randint(0, 3)))
        diff = Diff(added, removed) if randomness.random() < 0.8 else None
        after, before = side(**head), side(**base)
        expected = [
            path
            for path, (old, new) in unexpected_changes(after, before, diff, None).items()
            if new.misses + new.partials > old.misses + old.partials
        ]
        assert indirect_changes(after, before, diff, None) == expected, (head, base, diff)
