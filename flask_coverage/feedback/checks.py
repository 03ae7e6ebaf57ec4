"""Statuses as GitHub check runs (docs/pull-requests.md, "Check runs").

With a provider that has check runs (:class:`~flask_coverage.providers.CheckRuns`: GitHub with a
GitHub App) and ``github_checks`` not ``false``, each status of an open pull's commit is a check run
named as the status, with Codecov's output: the status's description as the title, a link to the
pull's page and the description as the summary, ``success`` or ``failure`` (``neutral`` for an
``informational`` status, which gates nothing). The patch check without ``flags`` or ``paths``
carries annotations of the added lines no test ran when ``github_checks.annotations`` is ``true``
(Codecov's default is ``false`` since 2025-01-30): consecutive lines in one annotation.

Pure but for :func:`send`, which talks to the provider: the rules are tested on plain data.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Optional

from ..lines import MISS
from ..models import Pull, Repository
from ..providers import Annotation, CheckRun, CheckRuns, ChecksRefused, Conclusion, Provider
from .diff import Diff
from .statuses import Side, Status, configured, context_name

log = logging.getLogger(__name__)

_CONCLUSIONS: dict[str, Optional[Conclusion]] = {
    "success": "success",
    "failure": "failure",
    "error": "failure",
    "pending": None,
}


@dataclass(frozen=True)
class Shape:
    """How one status's check run looks: ``neutral`` instead of its state, and whether it carries
    annotations of the uncovered added lines."""

    informational: bool = False
    annotated: bool = False


def runs_for(provider: Provider, pull: Optional[Pull], settings: dict[str, Any]) -> Optional[CheckRuns]:
    """The provider's check runs for a commit of ``pull``, or ``None`` for commit statuses: as Codecov,
    only for a commit of an open pull, and not with ``github_checks: false``."""
    if not isinstance(provider, CheckRuns) or pull is None or pull.state != "open":
        return None
    return provider if settings.get("github_checks", True) is not False else None


def shapes(settings: dict[str, Any]) -> dict[str, Shape]:
    """Each configured status's :class:`Shape`, by context."""
    checks = settings.get("github_checks")
    annotations = isinstance(checks, dict) and checks.get("annotations") is True
    out = {}
    for kind, title, options in configured(settings):
        annotated = annotations and kind == "patch" and not options.get("flags") and not options.get("paths")
        out[context_name(kind, title)] = Shape(bool(options.get("informational")), annotated)
    return out


def uncovered_added(diff: Diff, head: Side) -> tuple[Annotation, ...]:
    """An annotation per run of consecutive added lines that no test ran (a partial line ran: not
    one), file by file in path order."""
    out = []
    for path in sorted(diff.added):
        lines = head.get(path)
        if lines is None:
            continue
        added = set(diff.added[path])
        missed = [line for line, _, state in lines if state == MISS and line in added]
        start = 0
        for index, line in enumerate(missed):
            if index + 1 == len(missed) or missed[index + 1] != line + 1:
                first = missed[start]
                if first == line:
                    message = f"Added line #L{line} was not covered by tests"
                else:
                    message = f"Added lines #L{first} - L{line} were not covered by tests"
                out.append(Annotation(path, first, line, message))
                start = index + 1
    return tuple(out)


def check_run(
    status: Status, shape: Shape, target_url: Optional[str], annotations: tuple[Annotation, ...] = ()
) -> CheckRun:
    """The check run showing ``status``."""
    conclusion = "neutral" if shape.informational else _CONCLUSIONS[status.state]
    summary = status.description
    if target_url:
        summary = f"[See the coverage of this pull request]({target_url})\n\n{summary}"
    return CheckRun(status.context, conclusion, status.description, summary, target_url, annotations)


def send(
    provider: Provider,
    checks: Optional[CheckRuns],
    repository: Repository,
    sha: str,
    status: Status,
    run: Optional[CheckRun],
    run_id: Optional[str],
    target_url: Optional[str],
    adopt: bool = True,
) -> Optional[str]:
    """Send ``status``: as the check run ``run`` (updated in place when ``run_id`` names it; without
    one and with ``adopt``, the run of its name the provider has on ``sha`` is looked for and updated,
    so a run created by a sender killed before it stored the id is not created twice) with ``checks``,
    then the run's id; else, or when the provider refuses check runs, as a commit status (``None``)."""
    if checks is not None and run is not None:
        try:
            if run_id is None and adopt:
                run_id = checks.find_check_run(repository, sha, run.name)
            return checks.upsert_check_run(repository, sha, run, run_id)
        except ChecksRefused as refused:
            log.info("check runs refused for %s, commit statuses instead: %s", status.context, refused)
    provider.set_status(
        repository,
        sha,
        context=status.context,
        state=status.state,  # type: ignore[arg-type]
        description=status.description,
        target_url=target_url,
    )
    return None
