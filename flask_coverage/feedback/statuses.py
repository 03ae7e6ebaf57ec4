"""Commit statuses as Codecov computes them: ``codecov/project``, ``codecov/patch``,
``codecov/changes``, with ``/<title>`` for each title but ``default`` (docs/pull-requests.md, "Statuses").

Pure: the coverage compared comes in as :class:`Side`\\ s (path → lines) through a function of the
status's flags, so the rules here are tested on plain data. Percentages are exact ratios, shown with
the YAML's ``coverage.precision`` and ``coverage.round``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext
from typing import Any, Callable, Optional

from ..lines import HIT, MISS, PARTIAL, LineCoverage, Totals
from .codecov_yml import matches
from .diff import Diff

#: A commit's coverage as a status sees it: path → its lines.
Side = dict[str, LineCoverage]
KINDS = ("project", "patch", "changes")
#: Significant digits of the ratios: enough for ``coverage.precision``'s 99 decimals.
PRECISION = 128
_ROUNDING = {"down": ROUND_FLOOR, "up": ROUND_CEILING, "nearest": ROUND_HALF_UP}


@dataclass(frozen=True)
class Status:
    """One status to set on the head commit."""

    context: str
    state: str
    description: str


@dataclass(frozen=True)
class Numbers:
    """How the YAML shows a percentage (``coverage.precision``, ``coverage.round``)."""

    precision: int = 2
    rounding: str = "down"

    def show(self, value: Decimal) -> str:
        with localcontext() as context:
            context.prec = PRECISION
            return str(value.quantize(Decimal(1).scaleb(-self.precision), rounding=_ROUNDING[self.rounding]))

    def signed(self, value: Decimal) -> str:
        text = self.show(value)
        return text if text.startswith("-") else "+" + text


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


def configured(settings: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(kind, title, options)`` of each status the YAML turns on."""
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


def context_name(kind: str, title: str) -> str:
    return f"codecov/{kind}" if title == "default" else f"codecov/{kind}/{title}"


def _paths(settings: dict[str, Any], options: dict[str, Any]) -> Optional[list[str]]:
    """The status's ``paths`` and those of its flags; a flag without paths means every path, so no
    path filter (as Codecov reads them)."""
    patterns = list(options.get("paths") or [])
    for flag in options.get("flags") or []:
        flag_paths = ((settings.get("flags") or {}).get(flag) or {}).get("paths")
        if not flag_paths:
            return None
        patterns += flag_paths
    return patterns or None


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


def _indirect_changes(head: Side, base: Side, diff: Optional[Diff], paths: Optional[list[str]]) -> list[str]:
    """Files in both commits, not touched by the diff, where a line tracked in both changed state and
    that have lines not covered (Codecov's "unexpected changes")."""
    touched = set(diff.added) | set(diff.removed) if diff is not None else set()
    found = []
    for path, lines in head.items():
        old = base.get(path)
        if old is None or path in touched or not matches(paths, path) or old == lines:
            continue
        before = dict(old.line_states())
        changed = any(before.get(line, state) != state for line, state in lines.line_states())
        totals = lines.totals()
        if changed and totals.misses + totals.partials:
            found.append(path)
    return found


def compute(facts: Facts) -> list[Status]:
    """Every status the YAML turns on that applies to this commit (``only_pulls``, ``branches``)."""
    out = []
    for kind, title, options in configured(facts.settings):
        if (options.get("only_pulls") or options.get("base") == "pr") and facts.pullid is None:
            continue
        if options.get("branches") and (facts.branch is None or not matches(options["branches"], facts.branch)):
            continue
        with localcontext() as context:
            context.prec = PRECISION  # every sum and comparison as exact as the ratios
            state, description = _STATUS[kind](facts, options)
        if options.get("informational"):
            state = "success"
        out.append(Status(context_name(kind, title), state, description))
    return out


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
    behavior = options.get("removed_code_behavior", "adjust_base")
    if behavior == "adjust_base" and not custom and base is not None and facts.diff is not None:
        removed = _lines_totals(base, facts.diff.removed, paths)
        kept = _totals(base, paths)
        adjusted = ratio(
            Totals.from_counts(kept.hits - removed.hits, kept.misses - removed.misses, kept.partials - removed.partials)
        )
        if removed.lines and adjusted is not None and adjusted - threshold - head_ratio < Decimal("0.005"):
            description += (
                f", passed because coverage increased by {numbers.signed(head_ratio - adjusted)}% "
                f"when compared to adjusted base ({numbers.show(adjusted)}%)"
            )
            return "success", description
    return "failure", description


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
    changed = _indirect_changes(head, base, facts.diff, _paths(facts.settings, options))
    if changed:
        return "failure", f"{len(changed)} files have indirect coverage changes not visible in diff"
    return "success", "No indirect coverage changes found"


_STATUS: dict[str, Callable[[Facts, dict[str, Any]], tuple[str, str]]] = {
    "project": _project,
    "patch": _patch,
    "changes": _changes,
}
