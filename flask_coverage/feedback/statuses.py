"""Commit statuses as Codecov computes them: ``codecov/project``, ``codecov/patch``,
``codecov/changes``, with ``/<title>`` for each title but ``default`` (docs/pull-requests.md, "Statuses").

Pure: the coverage compared comes in as :class:`Side`\\ s (path → lines) through a function of the
status's flags, so the rules here are tested on plain data. Percentages are exact ratios, shown with
the YAML's ``coverage.precision`` and ``coverage.round``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from typing import Any, Callable, Optional

from ..codecov_yml.numbers import PRECISION, Numbers
from ..codecov_yml.patterns import matches
from ..codecov_yml.schema import component_flags, components, flag_settings
from ..lines import HIT, MISS, PARTIAL, LineCoverage, Totals
from .diff import Diff, paired_lines

#: A commit's coverage as a status sees it: path → its lines.
Side = dict[str, LineCoverage]
KINDS = ("project", "patch", "changes")


@dataclass(frozen=True)
class Status:
    """One status to set on the head commit."""

    context: str
    state: str
    description: str


def ratio(totals: Totals) -> Optional[Decimal]:
    """``hits / lines * 100``, exact; ``None`` without lines (a partial is not covered)."""
    if not totals.lines:
        return None
    with localcontext() as context:
        context.prec = PRECISION
        return Decimal(totals.hits) * 100 / Decimal(totals.lines)


@dataclass
class Facts:
    """What a commit's statuses are computed from: ``sides(flags)`` gives the head's coverage and the
    base's (``None`` without a base report) for a status's flags (``()``: all uploads)."""

    sides: Callable[[tuple[str, ...]], tuple[Side, Optional[Side]]]
    head_sha: str
    base_sha: Optional[str]
    diff: Optional[Diff]
    pullid: Optional[int]
    branch: Optional[str]
    settings: dict[str, Any]
    numbers: Numbers = field(default_factory=Numbers)
    #: The flags the head or the base carries: those with ``statuses`` get a status each.
    flags: tuple[str, ...] = ()
    #: The head's flags carried forward, not uploaded (docs/upload.md): see ``carryforward_behavior``.
    carried: frozenset[str] = frozenset()


#: What a status passed by ``carryforward_behavior: pass`` adds to its description (Codecov's words).
CARRIED_AUTO_PASSED = " [Auto passed due to carriedforward or missing coverage]"


def configured(settings: dict[str, Any], flags: tuple[str, ...] = ()) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(kind, title, options)`` of each status the YAML turns on, as Codecov lists them: the titles of
    ``coverage.status``; then for each of ``flags`` configured with ``statuses`` (``flags.<name>`` or
    ``flag_management``), one titled ``<name_prefix><flag>`` of that flag's coverage; then for each
    component of ``component_management``, one per status titled ``<name_prefix><name>``, of its
    ``paths`` and of the ``flags`` its ``flag_regexes`` match (every upload if none does)."""
    config = (settings.get("coverage") or {}).get("status") or {}
    for kind in KINDS:
        group = config.get(kind)
        if group is True:
            yield kind, "default", {}
        elif isinstance(group, dict):
            for title, options in group.items():
                if options is True:
                    yield kind, title, {}
                elif isinstance(options, dict) and options.get("enabled", True):
                    yield kind, title, options
    for flag in flags:
        found = flag_settings(settings, flag) or {}
        for options in found.get("statuses") or []:
            if options.get("enabled", True):
                yield options["type"], options.get("name_prefix", "") + flag, {"flags": [flag], **options}
    for component in components(settings):
        chosen = list(component_flags(component, flags))
        for options in component.get("statuses") or []:
            if options.get("enabled", True):
                title = options.get("name_prefix", "") + component["title"]
                yield options["type"], title, {"flags": chosen, "paths": component.get("paths") or [], **options}


def context_name(kind: str, title: str) -> str:
    return f"codecov/{kind}" if title == "default" else f"codecov/{kind}/{title}"


def _paths(settings: dict[str, Any], options: dict[str, Any]) -> Optional[list[str]]:
    """The status's ``paths`` and those of its flags; a flag without paths means every path, so no
    path filter (as Codecov reads them)."""
    patterns = list(options.get("paths") or [])
    for flag in options.get("flags") or []:
        flag_paths = (flag_settings(settings, flag) or {}).get("paths")
        if not flag_paths:
            return None
        patterns += flag_paths
    return patterns or None


def filtered_totals(side: Side, settings: dict[str, Any], options: dict[str, Any]) -> Totals:
    """The totals of ``side`` within ``options``' ``paths`` and its flags' paths, as a status reads them
    (the Slack and webhook notifiers too)."""
    return _totals(side, _paths(settings, options))


def _totals(side: Side, paths: Optional[list[str]]) -> Totals:
    return sum((lines.totals() for path, lines in side.items() if matches(paths, path)), Totals())


def _lines_totals(side: Side, wanted: dict[str, list[int]], paths: Optional[list[str]]) -> Totals:
    """The totals of the ``wanted`` lines of each file (added or removed lines) in ``side``."""
    counts = {HIT: 0, MISS: 0, PARTIAL: 0}
    for path, numbers in wanted.items():
        lines = side.get(path)
        if lines is None or not numbers or not matches(paths, path):
            continue
        chosen = set(numbers)
        for line, _, state in lines:
            if line in chosen:
                counts[state] += 1
    return Totals.from_counts(counts[HIT], counts[MISS], counts[PARTIAL])


def _outside_the_diff(
    before: LineCoverage, after: LineCoverage, added: list[int], removed: list[int]
) -> tuple[Totals, Totals]:
    """The totals, in ``before`` and in ``after``, of the lines outside the diff whose state changed
    (a line tracked on one side only counts on that side), paired by :func:`.diff.paired_lines`."""
    old, new = dict(before.line_states()), dict(after.line_states())
    last = max(max(new, default=0), max(old, default=0) + len(set(added)))
    counts: list[dict[int, int]] = [{HIT: 0, MISS: 0, PARTIAL: 0}, {HIT: 0, MISS: 0, PARTIAL: 0}]
    for line_before, line in paired_lines(added, removed, last):
        if line_before is None or line is None:
            continue
        state_before, state_after = old.get(line_before), new.get(line)
        if state_before != state_after:
            if state_before is not None:
                counts[0][state_before] += 1
            if state_after is not None:
                counts[1][state_after] += 1
    return tuple(Totals.from_counts(c[HIT], c[MISS], c[PARTIAL]) for c in counts)  # type: ignore[return-value]


def unexpected_changes(
    head: Side, base: Side, diff: Optional[Diff], paths: Optional[list[str]]
) -> dict[str, tuple[Totals, Totals]]:
    """Codecov's "unexpected changes": for each file in both commits (under the same path) with lines
    outside the diff whose state changed, the totals of those lines before and after
    (:func:`_outside_the_diff`). New and deleted files are expected changes."""
    found = {}
    for path, old, lines, added, removed in _files_of_both(head, base, diff, paths):
        before, after = _outside_the_diff(old, lines, added, removed)
        if before.lines or after.lines:
            found[path] = (before, after)
    return found


def _files_of_both(
    head: Side, base: Side, diff: Optional[Diff], paths: Optional[list[str]]
) -> Iterator[tuple[str, LineCoverage, LineCoverage, list[int], list[int]]]:
    """``(path, base's lines, head's, added line numbers, removed)`` of each file of both commits under
    ``paths`` that the diff touches or whose lines differ: the others have no line outside the diff
    that changed state."""
    for path, lines in head.items():
        old = base.get(path)
        if old is None or not matches(paths, path):
            continue
        added, removed = (diff.added.get(path), diff.removed.get(path)) if diff is not None else (None, None)
        if added is None and removed is None and old == lines:
            continue
        yield path, old, lines, added or [], removed or []


def missed(totals: Totals) -> int:
    """The lines missed or partial (a partial line is not covered)."""
    return totals.misses + totals.partials


def is_indirect_change(head: int, added: int, base: int, removed: int) -> bool:
    """Codecov's indirect change of a file of both commits (its changes status's "change worth
    noting"): among its lines outside the diff that changed state (:func:`unexpected_changes`), more
    are missed or partial after than before. A line outside the diff whose state did not change counts
    on both sides alike, so the rule needs only counts of lines missed or partial: the file's in the
    head (``head``) and in the base (``base``), and among the lines the diff adds to the head
    (``added``) and removes from the base (``removed``)."""
    return head - added > base - removed


def indirect_changes(head: Side, base: Side, diff: Optional[Diff], paths: Optional[list[str]]) -> list[str]:
    """The files with indirect changes (:func:`is_indirect_change`); new and deleted files never are."""
    found = []
    for path, old, lines, added, removed in _files_of_both(head, base, diff, paths):
        in_diff = _lines_totals(head, {path: added}, None), _lines_totals(base, {path: removed}, None)
        if is_indirect_change(missed(lines.totals()), missed(in_diff[0]), missed(old.totals()), missed(in_diff[1])):
            found.append(path)
    return found


#: A status's description while the commit's CI runs (``codecov.notify.wait_for_ci``).
WAITING_FOR_CI = "Waiting for CI to finish"
#: A status's description once the commit's CI failed (``codecov.require_ci_to_pass``), Codecov's words.
CI_FAILED = "Coverage not measured fully because CI failed"


def compute(facts: Facts, ci: str = "passed") -> list[Status]:
    """Every status the YAML turns on that applies to this commit (``only_pulls``, ``branches``); of two
    with one context, the first. While the commit's CI runs (``ci``: ``passed``, ``failed`` or
    ``running``) each is pending, not computed; once it failed each is ``success`` if informational,
    else its ``if_ci_failed`` (``error``)."""
    out: dict[str, Status] = {}
    for kind, title, options in configured(facts.settings, facts.flags):
        if context_name(kind, title) in out:
            continue
        if (options.get("only_pulls") or options.get("base") == "pr") and facts.pullid is None:
            continue
        if options.get("branches") and (facts.branch is None or not matches(options["branches"], facts.branch)):
            continue
        behavior = _carryforward_behavior(facts, options)
        if behavior == "exclude":
            continue
        if ci == "running":
            state, description = "pending", WAITING_FOR_CI
        elif ci == "failed":
            state, description = options.get("if_ci_failed", "error"), CI_FAILED
        else:
            with localcontext() as context:
                context.prec = PRECISION  # every sum and comparison as exact as the ratios
                state, description = _STATUS[kind](facts, options)
            if behavior == "pass":
                state, description = "success", description + CARRIED_AUTO_PASSED
        if options.get("informational") and ci != "running":
            state = "success"
        out[context_name(kind, title)] = Status(context_name(kind, title), state, description)
    return list(out.values())


def _carryforward_behavior(facts: Facts, options: dict[str, Any]) -> str:
    """A status's ``carryforward_behavior`` (else ``coverage.status.default_rules``'), ``include`` unless
    the status has flags and the head carries every one of them forward."""
    flags = options.get("flags") or ()
    if not flags or not set(flags) <= facts.carried:
        return "include"
    defaults = ((facts.settings.get("coverage") or {}).get("status") or {}).get("default_rules") or {}
    return str(options.get("carryforward_behavior", defaults.get("carryforward_behavior", "include")))


def _not_found(options: dict[str, Any], description: str) -> tuple[str, str]:
    return options.get("if_not_found", "success"), description


def _target(options: dict[str, Any], auto: Optional[Decimal]) -> tuple[Optional[Decimal], bool]:
    """The status's target (``None``: auto without a base) and whether it is a number given."""
    target = options.get("target", "auto")
    if target == "auto":
        return auto, False
    return Decimal(str(target)), True


def _project(facts: Facts, options: dict[str, Any]) -> tuple[str, str]:
    numbers, paths = facts.numbers, _paths(facts.settings, options)
    head, base = facts.sides(tuple(options.get("flags") or ()))
    head_ratio = ratio(_totals(head, paths))
    if head_ratio is None:
        return _not_found(options, "No coverage information found on head")
    base_ratio = ratio(_totals(base, paths)) if base is not None else None
    target, custom = _target(options, base_ratio)
    if target is None:
        if base is None:
            return _not_found(options, "No report found to compare against")
        return _not_found(options, "No coverage information found on base report")
    threshold = Decimal(str(options.get("threshold", 0)))
    if custom:
        description = f"{numbers.show(head_ratio)}% (target {numbers.show(target)}%)"
    else:
        change = numbers.signed(head_ratio - target)
        description = f"{numbers.show(head_ratio)}% ({change}%) compared to {(facts.base_sha or '')[:7]}"
    if head_ratio >= target - threshold:
        return "success", description
    if base is None or facts.diff is None:
        return "failure", description
    behavior = options.get("removed_code_behavior", "adjust_base")
    passed = None
    if behavior == "adjust_base" and not custom:
        passed = _adjusted_base(facts.numbers, facts.diff, head, base, paths, head_ratio, threshold)
    elif behavior == "removals_only":
        passed = _only_removals(facts.diff, head, base, paths)
    elif behavior == "fully_covered_patch":
        passed = _fully_covered_patch(facts.diff, head, base, paths)
    return ("success", description + passed) if passed else ("failure", description)


def _adjusted_base(
    numbers: Numbers,
    diff: Diff,
    head: Side,
    base: Side,
    paths: Optional[list[str]],
    head_ratio: Decimal,
    threshold: Decimal,
) -> Optional[str]:
    """``adjust_base``: the base without the lines the diff removes; passes if the head is not below it."""
    removed = _lines_totals(base, diff.removed, paths)
    kept = _totals(base, paths)
    adjusted = ratio(
        Totals.from_counts(kept.hits - removed.hits, kept.misses - removed.misses, kept.partials - removed.partials)
    )
    if removed.lines and adjusted is not None and adjusted - threshold - head_ratio < Decimal("0.005"):
        return (
            f", passed because coverage increased by {numbers.signed(head_ratio - adjusted)}% "
            f"when compared to adjusted base ({numbers.show(adjusted)}%)"
        )
    return None


def _only_removals(diff: Diff, head: Side, base: Side, paths: Optional[list[str]]) -> Optional[str]:
    """``removals_only``: passes if the change adds no line with coverage, changes none outside the diff,
    and removes some line with coverage."""
    if _lines_totals(head, diff.added, paths).lines or unexpected_changes(head, base, diff, paths):
        return None
    if not _lines_totals(base, diff.removed, paths).lines:
        return None
    return ", passed because this change only removed code"


def _fully_covered_patch(diff: Diff, head: Side, base: Side, paths: Optional[list[str]]) -> Optional[str]:
    """``fully_covered_patch``: passes if no line changed outside the diff and every added line with
    coverage is hit (or none has coverage)."""
    if unexpected_changes(head, base, diff, paths):
        return None
    patch = _lines_totals(head, diff.added, paths)
    if not patch.lines:
        return ", passed because coverage was not affected by patch"
    if patch.hits == patch.lines:
        return ", passed because patch was fully covered by tests, and no indirect coverage changes"
    return None


def _patch(facts: Facts, options: dict[str, Any]) -> tuple[str, str]:
    numbers, paths = facts.numbers, _paths(facts.settings, options)
    if facts.diff is None:
        return _not_found(options, "No diff found to compare against")
    head, base = facts.sides(tuple(options.get("flags") or ()))
    patch_ratio = ratio(_lines_totals(head, facts.diff.added, paths))
    if patch_ratio is None:
        return "success", f"Coverage not affected when comparing {(facts.base_sha or '')[:7]}...{facts.head_sha[:7]}"
    target, _ = _target(options, ratio(_totals(base, paths)) if base is not None else None)
    if target is None:
        return _not_found(options, "No report found to compare against")
    threshold = Decimal(str(options.get("threshold", 0)))
    shown = f"{numbers.show(patch_ratio)}% of diff hit"
    if patch_ratio >= target:
        return "success", f"{shown} (target {numbers.show(target)}%)"
    if patch_ratio >= target - threshold:
        return (
            "success",
            f"{shown} (within {numbers.show(threshold)}% threshold of {numbers.show(target)}%)",
        )
    return "failure", f"{shown} (target {numbers.show(target)}%)"


def _changes(facts: Facts, options: dict[str, Any]) -> tuple[str, str]:
    head, base = facts.sides(tuple(options.get("flags") or ()))
    if base is None:
        return "success", "Unable to determine changes, no report found at pull request base"
    changed = indirect_changes(head, base, facts.diff, _paths(facts.settings, options))
    if changed:
        files = "1 file has" if len(changed) == 1 else f"{len(changed)} files have"
        return "failure", f"{files} indirect coverage changes not visible in diff"
    return "success", "No indirect coverage changes found"


_STATUS: dict[str, Callable[[Facts, dict[str, Any]], tuple[str, str]]] = {
    "project": _project,
    "patch": _patch,
    "changes": _changes,
}
