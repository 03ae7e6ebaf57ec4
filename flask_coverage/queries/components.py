"""The coverage of a commit's components (``component_management`` of its ``codecov.yml``), read cheaply.

A component is the files its ``paths`` match, in the uploads of the flags its ``flag_regexes`` match
(every upload when none does), as Codecov counts them (a component's status also takes in its flags'
own ``paths``: :mod:`flask_coverage.feedback.statuses`). Its totals come from what is already summed:

- ``paths`` that are all plain prefixes (``src/app/``, ``src/app``: what ``codecov.yml`` turns a path
  without ``*``, ``$``, ``[`` or ``]`` into) are read from the file explorer's rows (``coverage_tree``):
  the entries of the prefix's folder whose names start with its last part, a few rows per prefix;
- any other ``paths`` (globs, regular expressions, ``!`` exclusions) from the files' totals columns,
  matched here, never their line data; only the files under the literal text every included pattern
  starts with (``src/`` of ``src/**/*.py``) are read;
- a component of flags merges those flags' lines, as the statuses read them.

A component whose paths match nothing is empty (zero lines, coverage ``None`` in the API), never an error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, cast

import sqlalchemy as sa

from ..codecov_yml.patterns import matches, pattern_filter
from ..codecov_yml.schema import component_flags, components
from ..lines import Totals
from ..models import Commit, FileCoverage, TreeEntry
from ..state import execute
from .files import flag_names, lines_by_path

_TREE = cast(sa.Table, TreeEntry.__table__)
_FILES = cast(sa.Table, FileCoverage.__table__)
# A regex that is a plain prefix as ``codecov_yml.schema.path_regex`` writes one: "^" and escaped text.
_ESCAPED = re.compile(r"\\(.)", re.S)


@dataclass(frozen=True)
class Component:
    """A component of ``component_management``: its id, its name (``title``: the name, else the id), its
    ``paths`` (coerced patterns, as the YAML validator leaves them) and the flags of the commit it covers
    (empty: every upload)."""

    component_id: str
    name: str
    paths: tuple[str, ...]
    flags: tuple[str, ...]


def commit_components(settings: dict[str, Any], *commits: Commit) -> list[Component]:
    """The components the YAML ``settings`` declare, in their order, each with the flags of ``commits``'
    uploads that its ``flag_regexes`` match."""
    flags = flag_names(*commits)
    found = []
    for component in components(settings):
        chosen = component_flags(component, flags)
        paths = tuple(component.get("paths") or ())
        found.append(Component(str(component["component_id"]), str(component["title"]), paths, chosen))
    return found


def component_totals(commit: Commit, component: Component) -> tuple[Totals, int]:
    """The totals of ``component`` in ``commit`` and its number of files (see the module for how)."""
    if component.flags:
        side = lines_by_path(commit, component.flags)
        chosen = [lines.totals() for path, lines in side.items() if matches(component.paths, path)]
        return sum(chosen, Totals()), len(chosen)
    if not component.paths:
        return Totals.of(commit), commit.files
    prefixes = plain_prefixes(component.paths)
    if prefixes is not None:
        return _prefix_totals(commit, prefixes)
    return _matched_totals(commit, component.paths)


def plain_prefixes(paths: Sequence[str]) -> Optional[list[str]]:
    """The texts of ``paths`` when each is a plain prefix (``^`` and escaped text), none inside another;
    else ``None``."""
    texts = []
    for pattern in paths:
        if not pattern.startswith("^"):
            return None
        text = _ESCAPED.sub(r"\1", pattern[1:])
        if "^" + re.escape(text) != pattern:
            return None
        texts.append(text)
    # A prefix inside another's files counts them once: keep the shortest.
    kept: list[str] = []
    for text in sorted(set(texts)):
        if not any(text.startswith(shorter) for shorter in kept):
            kept.append(text)
    return kept


def literal_prefix(pattern: str) -> str:
    """A text every path that the coerced regex ``pattern`` matches starts with ("" when none is known)."""
    if not pattern.startswith("^") or "|" in pattern:
        return ""
    text, index = [], 1
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern) and not pattern[index + 1].isalnum():
            text.append(pattern[index + 1])
            index += 2
        elif char.isalnum() or char in "/_-":
            text.append(char)
            index += 1
        else:
            if char in "?*{" and text:  # a quantifier of the last character: it may be absent or repeated
                text.pop()
            break
    return "".join(text)


def _matched_totals(commit: Commit, paths: tuple[str, ...]) -> tuple[Totals, int]:
    """The sums of the totals columns of the files of ``commit`` that ``paths`` match: the files under
    the longest text every included path starts with are read (all of them without one), and matched here."""
    included = [literal_prefix(pattern) for pattern in paths if not pattern.startswith("!")]
    prefix = os.path.commonprefix(included) if included else ""
    columns = (_FILES.c.path, _FILES.c.lines, _FILES.c.hits, _FILES.c.misses, _FILES.c.partials)
    query = sa.select(*columns).where(_FILES.c.commit_id == commit.id)
    if prefix:
        query = query.where(sa.func.substr(_FILES.c.path, 1, len(prefix)) == prefix)
    passes = pattern_filter(paths).passes
    counts, files = [0, 0, 0, 0], 0
    for path, *totals in execute(query):
        if passes(path):
            files += 1
            counts = [total + value for total, value in zip(counts, totals)]
    return Totals(*counts), files


def _prefix_totals(commit: Commit, prefixes: list[str]) -> tuple[Totals, int]:
    """The sums of the explorer's entries under ``prefixes``: for ``a/b/c``, the entries of folder ``a/b``
    whose name starts with ``c`` (its files and folders, each folder holding the sums of its files)."""
    columns = (_TREE.c.files, _TREE.c.lines, _TREE.c.hits, _TREE.c.misses, _TREE.c.partials)
    parts = []
    for prefix in prefixes:
        parent, _, start = prefix.rpartition("/")
        # One indexed range of (commit_id, parent) per prefix: an OR of them would scan the commit's rows.
        part = sa.select(*columns).where(_TREE.c.commit_id == commit.id, _TREE.c.parent == parent)
        parts.append(part.where(sa.func.substr(_TREE.c.name, 1, len(start)) == start) if start else part)
    rows = sa.union_all(*parts).subquery()
    query = sa.select(*(sa.func.coalesce(sa.func.sum(column), 0) for column in rows.c))
    # PostgreSQL's sum of integers is a numeric (a Decimal): the totals are ints.
    files, lines, hits, misses, partials = (int(value) for value in execute(query).one())
    return Totals(lines, hits, misses, partials), files
