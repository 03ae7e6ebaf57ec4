"""The pull request's comment, in Markdown, as the YAML's ``comment`` asks (docs/pull-requests.md,
"The comment"): the sections of ``comment.layout`` in order (``header``, ``diff``, ``flags``,
``files``, ``footer``, their ``new``/``condensed`` variants; ``name:N`` shows at most N rows),
``hide_project_coverage``, and whether to comment at all (``require_changes``, ``after_n_builds``).

Pure: everything comes in as :class:`CommentFacts`. Every path and flag name is escaped for
Markdown; ``file_url`` gives URLs already quoted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Optional

from ..codecov_yml.numbers import Numbers
from ..lines import Totals
from .statuses import ratio

#: Rows of a list section without ``:N``.
DEFAULT_ROWS = 10
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~])")


def escape(text: str) -> str:
    """``text`` shown as it is in Markdown (GitHub's, GitLab's, Bitbucket's): its special characters
    backslashed, line breaks as spaces."""
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


@dataclass(frozen=True)
class FlagRow:
    """A flag (or a component) of the head: its totals in the head and the base (``None``: not uploaded
    there) and of the patch; ``carried_from``: the sha a flag's coverage was carried forward from
    (``None``: uploaded)."""

    name: str
    head: Totals
    base: Optional[Totals]
    patch: Optional[Totals]
    #: The number of files of each (what the API shows with the totals).
    files: tuple[int, Optional[int], int] = (0, None, 0)
    carried_from: Optional[str] = None


@dataclass(frozen=True)
class FileRow:
    """A file with added lines not covered: its patch totals."""

    path: str
    patch: Totals


@dataclass
class CommentFacts:
    """What the comment says."""

    pull_url: str
    file_url: Callable[[str], str]
    pullid: int
    head_sha: str
    base_sha: Optional[str]
    head: Totals
    base: Optional[Totals]
    head_files: int
    base_files: Optional[int]
    patch: Optional[Totals]
    files: list[FileRow] = field(default_factory=list)
    flags: list[FlagRow] = field(default_factory=list)
    #: The components of ``component_management``, in the YAML's order (read only for a layout with them).
    components: list[FlagRow] = field(default_factory=list)
    indirect: int = 0
    numbers: Numbers = field(default_factory=Numbers)


def _percent(numbers: Numbers, totals: Optional[Totals]) -> Optional[str]:
    value = ratio(totals) if totals is not None else None
    return None if value is None else f"{numbers.show(value)}%"


def _change(numbers: Numbers, head: Optional[Totals], base: Optional[Totals]) -> Optional[Decimal]:
    after = ratio(head) if head is not None else None
    before = ratio(base) if base is not None else None
    return None if after is None or before is None else after - before


def _header(facts: CommentFacts, condensed: bool, hide_project: bool) -> list[str]:
    numbers, lines = facts.numbers, []
    missing = facts.patch.misses + facts.patch.partials if facts.patch is not None else 0
    if facts.patch is None:
        lines.append(":grey_question: Patch coverage is unknown: no diff of this pull could be read.")
    elif missing:
        shown = _percent(numbers, facts.patch)
        lines.append(
            f":x: Patch coverage is `{shown}` with `{missing} line{'s' if missing != 1 else ''}` "
            "in your changes missing coverage."
        )
    else:
        lines.append(":white_check_mark: All modified and coverable lines are covered by tests.")
    if not hide_project:
        head, base = _percent(numbers, facts.head), _percent(numbers, facts.base)
        base7, head7 = (facts.base_sha or "")[:7], facts.head_sha[:7]
        if base is None:
            lines.append(
                f":warning: Please upload a report for the base (`{base7}`) to compare with. "
                f"Project coverage is `{head}`."
            )
        else:
            change = _change(numbers, facts.head, facts.base)
            sign = numbers.signed(change) if change is not None else "?"
            if condensed:
                lines.append(f"Project coverage is `{head}` ({sign}%), base `{base7}`.")
            else:
                lines.append(
                    f"Project coverage is `{head}` ({sign}%). "
                    f"Comparing base (`{base7}`, {base}) to head (`{head7}`, {head})."
                )
        if facts.indirect:
            files = "1 file has" if facts.indirect == 1 else f"{facts.indirect} files have"
            lines.append(f"{files} indirect coverage changes (outside the diff).")
    return ["\n\n".join(lines)]


def _diff(facts: CommentFacts) -> list[str]:
    """A ``diff``-fenced table of base against head: + rows got better, - rows worse."""
    if facts.base is None:
        return []
    numbers = facts.numbers
    base_name, head_name = (facts.base_sha or "")[:7], f"#{facts.pullid}"
    width = 12

    def row(sign: str, name: str, before: str, after: str, change: str) -> str:
        return f"{sign} {name:<10}{before:>{width}}{after:>{width}}{change:>{width}}".rstrip()

    def count_row(name: str, before: int, after: int, better_up: Optional[bool]) -> str:
        delta = after - before
        sign = " " if not delta or better_up is None else ("+" if (delta > 0) == better_up else "-")
        return row(sign, name, f"{before:,}", f"{after:,}", f"{delta:+,}" if delta else "")

    change = _change(numbers, facts.head, facts.base)
    coverage_sign = " " if not change else ("+" if change > 0 else "-")
    names = f"##{'':<8}{base_name:>{width}}{head_name:>{width}}{'+/-':>{width}}  ##"
    rule = "=" * len(names)
    body = [
        f"@@{'Coverage Diff':^{len(names) - 4}}@@",
        names,
        rule,
        row(
            coverage_sign,
            "Coverage",
            _percent(numbers, facts.base) or "?",
            _percent(numbers, facts.head) or "?",
            f"{numbers.signed(change)}%" if change else "",
        ),
        rule,
        count_row("Files", facts.base_files or 0, facts.head_files, None),
        count_row("Lines", facts.base.lines, facts.head.lines, None),
        rule,
        count_row("Hits", facts.base.hits, facts.head.hits, True),
        count_row("Misses", facts.base.misses, facts.head.misses, False),
        count_row("Partials", facts.base.partials, facts.head.partials, False),
    ]
    return ["```diff\n" + "\n".join(body) + "\n```"]


def _delta(numbers: Numbers, head: Totals, base: Optional[Totals], patch: Optional[Totals]) -> str:
    """Codecov's ``absolute <patch> (impact)``: ``ø`` where nothing changed, ``?`` without data."""
    absolute = _percent(numbers, head) or "?"
    patch_text = f" <{_percent(numbers, patch)}>" if patch is not None and patch.lines else ""
    change = _change(numbers, head, base)
    if base is None:
        impact = "(?)"
    elif not change:
        impact = "(ø)"
    else:
        impact = f"({numbers.signed(change)}%)"
    return f"`{absolute}{patch_text} {impact}`"


#: Where Codecov explains carryforward flags, as its comment links it.
CARRYFORWARD_DOCS = "https://docs.codecov.com/docs/carryforward-flags"


def _flags(facts: CommentFacts, found: list[FlagRow], title: str, limit: int, show_carried: bool = True) -> list[str]:
    """The table of the flags or the components (``title``), as Codecov draws them; flags carried
    forward are left out (a line says so) unless ``show_carried``, then shown with Codecov's
    "Carriedforward from" column."""
    shown = found if show_carried else [row for row in found if row.carried_from is None]
    carried = any(row.carried_from for row in shown)
    more = f"[Click here]({CARRYFORWARD_DOCS}) to find out more."
    notes = []
    if len(shown) < len(found):
        notes.append(f"*Flags with carried forward coverage won't be shown. {more}*")
    elif carried:
        notes.append(f"*This pull request uses carry forward flags. {more}*")
    if not shown:
        return notes
    rows = [f"| {title} | Coverage Δ | |", "|---|---|---|"] if carried else [f"| {title} | Coverage Δ |", "|---|---|"]
    for row in shown[:limit]:
        line = f"| {escape(row.name)} | {_delta(facts.numbers, row.head, row.base, row.patch)} |"
        if carried:
            line += f" Carriedforward from `{row.carried_from[:7]}` |" if row.carried_from else " |"
        rows.append(line)
    if len(shown) > limit:
        rows.append(f"| … and {len(shown) - limit} more | |" + (" |" if carried else ""))
    return ["\n".join(rows), *notes]


def _files(facts: CommentFacts, limit: int, condensed: bool) -> list[str]:
    if not facts.files:
        return []
    title = "Files with missing lines" if not condensed else "Files"
    rows = [f"| [{title}]({facts.pull_url}) | Patch % | Lines |", "|---|---|---|"]
    for file in facts.files[:limit]:
        missed, partial = file.patch.misses, file.patch.partials
        parts = [f"{missed} Missing"] if missed else []
        parts += [f"{partial} partial{'s' if partial != 1 else ''}"] if partial else []
        # A Markdown link's destination ends at an unbalanced parenthesis, which a URL's path may hold.
        link = facts.file_url(file.path).replace("(", "%28").replace(")", "%29")
        rows.append(
            f"| [{escape(file.path)}]({link}) | {_percent(facts.numbers, file.patch)} | "
            f"[{' and '.join(parts)} :warning:]({link}) |"
        )
    if len(facts.files) > limit:
        rows.append(f"| … and [{len(facts.files) - limit} more]({facts.pull_url}) | | |")
    return ["\n".join(rows)]


def _footer(facts: CommentFacts, condensed: bool) -> list[str]:
    base7, head7 = (facts.base_sha or "")[:7], facts.head_sha[:7]
    if condensed:
        return [f"[Full report]({facts.pull_url}) · last update `{base7}...{head7}`."]
    return [
        "---\n\n"
        f"[Continue to review the full report]({facts.pull_url}).\n"
        "> `Δ = absolute <patch> (impact)`, `ø = not affected`, `? = missing data`\n"
        f"> Last update `{base7}...{head7}`."
    ]


def render(
    facts: CommentFacts, layout: list[str], hide_project_coverage: bool = False, show_carryforward_flags: bool = False
) -> str:
    """The comment's Markdown for ``layout`` (the validated ``comment.layout``). A layout without a
    header gets the condensed one first, as Codecov's does. Flags carried forward are in the flags table
    only with ``show_carryforward_flags``."""
    sections = [f"## [Coverage report]({facts.pull_url}) for #{facts.pullid}"]
    names = [item.partition(":")[0] for item in layout]
    if not {"header", "newheader", "condensed_header"} & set(names):
        layout = ["condensed_header", *layout]
    for item in layout:
        name, _, limit_text = item.partition(":")
        limit = int(limit_text) if limit_text else DEFAULT_ROWS
        if name in ("header", "newheader", "condensed_header"):
            sections += _header(facts, name == "condensed_header", hide_project_coverage)
        elif name == "diff":
            sections += _diff(facts)
        elif name in ("flag", "flags"):
            sections += _flags(facts, facts.flags, "Flag", limit, show_carryforward_flags)
        elif name == "components":
            sections += _flags(facts, facts.components, "Component", limit)
        elif name in ("file", "files", "tree", "newfiles", "condensed_files"):
            sections += _files(facts, limit, name == "condensed_files")
        elif name in ("footer", "newfooter", "condensed_footer"):
            sections += _footer(facts, name == "condensed_footer")
    return "\n\n".join(sections) + "\n"


def marker(pullid: int) -> str:
    """The hidden line that ends the service's comment on pull ``pullid``, by which a sender finds
    the comment on the provider when its id was never stored: a Markdown link reference definition,
    which no provider shows (an HTML comment would be shown as text where HTML is escaped)."""
    return f'[//]: # "flask-coverage comment on pull request {pullid}"'


def marked(body: str, pullid: int) -> str:
    """``body`` (as :func:`render` gives it) with the :func:`marker` line at its end."""
    return f"{body}\n{marker(pullid)}\n"


def wanted(
    require_changes: list[list[str]],
    facts: CommentFacts,
    has_comment: bool,
    uploads: int,
    after_n_builds: Optional[int],
) -> bool:
    """Whether to comment: at least ``after_n_builds`` uploads, and ``require_changes`` holds (every
    group has one condition that holds) unless a comment exists already (it is kept up to date)."""
    if after_n_builds and uploads < after_n_builds:
        return False
    if has_comment:
        return True
    change = _change(facts.numbers, facts.head, facts.base)
    patch_ratio = ratio(facts.patch) if facts.patch is not None else None
    holds: dict[str, Any] = {
        "any_change": facts.indirect > 0 or bool(facts.patch and facts.patch.lines),
        "coverage_drop": change is None or change <= Decimal("-0.01"),
        "uncovered_patch": patch_ratio is not None and patch_ratio <= Decimal("99.99"),
    }
    return all(any(holds[name] for name in group) for group in require_changes)
