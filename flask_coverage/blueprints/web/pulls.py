"""What a pull request's page shows of its comparison with its base, read from the pull's one
:class:`~flask_coverage.feedback.comparison.Comparison` (docs/web.md, docs/pull-requests.md "One comparison")."""

from __future__ import annotations

from typing import Any, Optional

from flask import request, url_for

from ...codecov_yml.settings import Settings
from ...errors import InvalidInput
from ...feedback.comparison import Comparison
from ...feedback.statuses import ratio
from ...lines import Totals
from ...queries.compare import changed_files
from . import Target, View, totals_of

#: A pull request's page names the changed files of a head of at most this many files (ranked from
#: the totals of both commits); past it the page links to the v2 API's compare, a page at a time.
SORTED_FILES = 10_000
#: The files a pull request's page lists: those whose coverage changed most, and those whose added
#: lines are missed most.
CHANGED_FILES_SHOWN = 10
#: ... and with ``?changes=all``: every changed file, up to this many (the API's compare pages the rest).
CHANGED_FILES_ALL = 500


def pull_comparison(view: View, row: Any, settings: Settings) -> Optional[dict[str, Any]]:
    """A pull request compared with its base (``None`` while it has no base), read from its
    :class:`~flask_coverage.feedback.comparison.Comparison`: the base commit (``None`` while it has no
    coverage here), the change of coverage, the files whose coverage changed most (from the totals
    columns; none named when the head has more than :data:`SORTED_FILES` files: the page links to the
    API's compare instead), the patch coverage (``None`` without a diff) and its files with missed
    lines, the indirect changes, the trees. ``row`` is
    :func:`~flask_coverage.feedback.base.find_pull_with_base`'s; the patch's percentages are shown with
    the commit's ``coverage.precision`` and ``coverage.round``."""
    if row[0].base_sha is None:
        return None
    pull, head, base = row
    every = request.args.get("changes")
    if every not in (None, "all"):
        raise InvalidInput("changes must be all, or left out.")
    numbers = settings.numbers()

    def shown(totals: Totals) -> str:
        value = ratio(totals)
        return "no coverable lines" if value is None else f"{numbers.show(value)}%"

    comparison = Comparison.of_pull(view.repository, pull, head, base)
    patch, missed = comparison.patch, comparison.missed_files
    found = {
        "base_sha": pull.base_sha,
        "base": base,
        "patch": patch,
        "patch_text": shown(patch.totals) if patch else None,
    }
    found["missed_files"] = [(file, shown(file.totals)) for file in missed[:CHANGED_FILES_SHOWN]]
    found["missed_count"] = len(missed)
    if base is None:
        return found
    sorted_here = head.files <= SORTED_FILES
    changed = changed_files(base, head) if sorted_here else None
    patched = patch.files if patch is not None else {}
    return {
        **found,
        "change": totals_of(head).coverage - totals_of(base).coverage,  # type: ignore[union-attr]
        "files": (changed or [])[: CHANGED_FILES_ALL if every else CHANGED_FILES_SHOWN],
        "file_patch": {path: shown(file.totals) for path, file in patched.items()},
        "changed": None if changed is None else len(changed),
        "indirect": comparison.indirect if sorted_here else [],
        "all_url": view.url("coverage_web.repository_page", changes="all") + "#coverage-comparison-title",
        "compare_url": url_for(
            "coverage_api.repos_compare_retrieve",
            service=view.repository.owner.service.value,
            owner_username=view.repository.owner.username,
            repo=view.repository.name,
            pullid=view.target.pullid,
        ),
        "base_graph": view._replace(target=Target(sha=base.sha)).graph_url("tree"),
        "head_graph": view.graph_url("tree"),
    }
