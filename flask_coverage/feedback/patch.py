"""Patch coverage: the coverage of the lines a change adds (docs/pull-requests.md, "Patch coverage").

The added lines of ``base...head`` (from the git mirror, else the provider's ``diff``) are looked up in
the head commit's coverage, as Codecov counts them: an added line with coverage is a hit, a miss or a
partial (a partial is not covered); an added line without coverage (a blank line, a comment) does
not count. Files of the diff that the head's report does not have count nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Optional

from .. import git_mirror
from ..lines import HIT, MISS, PARTIAL, LineCoverage, Totals
from ..models import Commit, Repository
from ..providers import ProviderError, provider_for
from ..queries.compare import files_data
from ..state import cache_errors, get_cache
from .diff import AddedLines, Diff, parse_diff

log = logging.getLogger(__name__)

#: A provider's diff is kept this long in the extension's cache (the pull page, its file views).
DIFF_CACHE_SECONDS = 3600


@dataclass(frozen=True)
class FilePatch:
    """One file's added lines with coverage: their ``totals`` and the ``missed`` ones (misses and
    partials), ascending."""

    path: str
    totals: Totals
    missed: tuple[int, ...]


@dataclass(frozen=True)
class Patch:
    """The coverage of a change: its ``totals``, each changed ``files``' (by path; every file of the
    diff that the head's report has), and ``changed``, every path the diff touches."""

    totals: Totals
    files: dict[str, FilePatch]
    changed: frozenset[str]


def find_diff(repository: Repository, base_sha: str, head_sha: str) -> Optional[Diff]:
    """What ``head`` changes over ``base`` (``base...head``): from the git mirror when it has both
    commits, else the provider; ``None`` when neither can tell."""
    git_dir = git_mirror.mirror(repository)
    if git_dir is not None and git_mirror.has_commit(git_dir, base_sha) and git_mirror.has_commit(git_dir, head_sha):
        found = git_mirror.diff(git_dir, base_sha, head_sha, parse_diff)
        if found is not None:
            return found
    provider = provider_for(repository)
    if provider is None:
        return None
    key = f"coverage-diff:{repository.id}:{base_sha}:{head_sha}"
    cache, cached = get_cache(), None
    with cache_errors("diff"):
        cached = cache.get(key)
    if isinstance(cached, Diff):
        return cached
    try:
        found = parse_diff(provider.diff(repository, base_sha, head_sha).splitlines())
    except ProviderError as error:
        log.warning("the provider gave no diff of %s...%s: %s", base_sha[:12], head_sha[:12], error)
        return None
    with cache_errors("diff"):
        cache.set(key, found, timeout=DIFF_CACHE_SECONDS)  # two shas' diff never changes
    return found


def patch_of(head: Commit, added: AddedLines) -> Patch:
    """The coverage of the ``added`` lines in ``head``'s report."""
    files: dict[str, FilePatch] = {}
    for path, data in files_data(head, [path for path, lines in added.items() if lines]):
        wanted = set(added[path])
        counts = {HIT: 0, MISS: 0, PARTIAL: 0}
        missed = []
        for line, _, state in LineCoverage.decode(data):
            if line in wanted:
                counts[state] += 1
                if state != HIT:
                    missed.append(line)
        files[path] = FilePatch(path, Totals.from_counts(counts[HIT], counts[MISS], counts[PARTIAL]), tuple(missed))
    return Patch(sum((file.totals for file in files.values()), Totals()), files, frozenset(added))
