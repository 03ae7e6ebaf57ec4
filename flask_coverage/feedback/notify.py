"""Sending a commit's feedback: its statuses and its pull's comment (docs/pull-requests.md, "Delivery").

The orchestrator: :func:`deliver` computes what the commit's YAML asks (:mod:`.statuses`,
:mod:`.comment`) from the stored coverage (:mod:`flask_coverage.queries.files`) and the commit's
comparison with its base (:mod:`.comparison`: the pull's real base, the diff, the patch), and sends
through the repository's provider what changed since the last sending. What was sent, a payload's
digest per context with when and the last error, is read and written by :mod:`.outbox`.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any, Optional

from ..codecov_yml.settings import commit_settings
from ..lines import Totals
from ..models import Commit, Pull, Repository, utcnow
from ..providers import CiState, CiStatus, CommentGone, Provider, ProviderError, provider_for
from ..queries.files import carried_origins, flag_names, upload_count
from ..queries.targets import resolve_commit
from ..state import get_session
from ..urls import pull_file_url, pull_page_url
from . import checks, notifiers, outbox
from .base import find_pull_with_base
from .comment import CommentFacts, FileRow, FlagRow, marked, marker, render, wanted
from .comparison import Comparison
from .statuses import Facts, compute

log = logging.getLogger(__name__)

#: The context under which the comment's sending is recorded.
COMMENT = "comment"
#: The first wait before the commit's CI is asked again (``codecov.notify.wait_for_ci``); each next
#: one doubles, as Codecov's, up to ``COVERAGE_FEEDBACK_BACKOFF``'s longest.
CI_FIRST_WAIT = 15.0
#: How many times a commit whose CI still runs is re-checked before its feedback is given up, as
#: Codecov gives up (its schedule without a webhook: 10 re-checks, about 4 h 16 min).
CI_RECHECKS = 10
#: The error a commit's feedback is given up with when its CI never finished.
CI_TIMED_OUT = (
    "Given up: the commit's CI did not finish (codecov.notify.wait_for_ci; re-checked "
    f"{CI_RECHECKS} times). Nothing more was sent, as Codecov; the next upload of the commit tries again."
)
#: ``Pull.comment_id`` of a pull whose comment a user deleted under ``behavior: once``: never posted again.
DELETED = "deleted"


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def deliver(claim: outbox.Claim) -> None:
    """Send what the claimed commit owes, then finish its row; a provider's error that a retry can
    help leaves it to be retried, any other is recorded and the row finished."""
    commit = get_session().get(Commit, claim.commit_id)
    if commit is None:
        outbox.finish(claim)
        return
    repository = commit.repository
    try:
        provider = provider_for(repository)
    except Exception as error:  # a provider's settings that cannot make a client: shown, not retried
        outbox.record(commit.id, "provider", error=str(error)[:2000], error_at=utcnow())
        outbox.finish(claim)
        return
    if provider is None:
        outbox.finish(claim)
        return
    settings = commit_settings(repository, commit)
    notify = settings.get("codecov", "notify", default={}) or {}
    if notify.get("manual_trigger") and not claim.triggered:
        outbox.park(claim)
        return
    if notify.get("after_n_builds") and upload_count(commit) < notify["after_n_builds"]:
        outbox.finish(claim)  # the next upload owes it again
        return
    sent: outbox.Sent = []
    try:
        ci = _ci_state(provider, repository, commit, settings)
        if ci == "running" and claim.attempts > CI_RECHECKS:
            outbox.give_up(claim, CI_TIMED_OUT)  # as Codecov: nothing more is sent
            return
        _send(provider, repository, commit, settings, claim, sent, ci)
    except ProviderError as error:
        log.warning("feedback for %s not sent (%s): %s", commit.sha[:12], error.kind, error)
        if error.retryable:
            outbox.retry(claim, str(error), error.retry_after)
        else:
            outbox.finish(claim)  # broken or terminal: a retry would get the same; the error is shown
        return
    outbox.record_all(sent)
    if ci == "running":
        # Re-checked later, on Codecov's schedule: 15 s, doubling.
        outbox.retry(claim, "waiting for the commit's CI to finish", CI_FIRST_WAIT * 2 ** (claim.attempts - 1))
        return
    outbox.finish(claim)  # one commit a sending: SQLite's commits wait on the disk, holding its write lock


def _ci_state(provider: Provider, repository: Repository, commit: Commit, settings: Any) -> CiState:
    """The commit's CI as far as the YAML asks (``codecov.notify.wait_for_ci``,
    ``codecov.require_ci_to_pass``, both on by default): a provider that cannot tell counts as passed."""
    wait = settings.get("codecov", "notify", "wait_for_ci", default=True)
    require = settings.get("codecov", "require_ci_to_pass", default=True)
    if not (wait or require) or not isinstance(provider, CiStatus):
        return "passed"
    state = provider.ci_state(repository, commit.sha)
    if (state == "running" and not wait) or (state == "failed" and not require):
        return "passed"
    return state


def _send(
    provider: Provider,
    repository: Repository,
    commit: Commit,
    settings: Any,
    claim: outbox.Claim,
    done: outbox.Sent,
    ci: CiState,
) -> None:
    pull_row = find_pull_with_base(repository, commit.pullid) if commit.pullid is not None else None
    pull: Optional[Pull] = pull_row[0] if pull_row is not None else None
    base_sha = pull.base_sha if pull is not None else commit.parent_sha
    base = pull_row[2] if pull_row is not None else resolve_commit(repository, sha=base_sha) if base_sha else None
    comparison = Comparison(repository, commit, base_sha, base)
    diff = comparison.diff
    sides = comparison.sides

    numbers = settings.numbers()
    target_url = pull_page_url(repository, pull.pullid if pull is not None else None, commit.sha, claim.base_url)
    flags = flag_names(commit, *([base] if base is not None else []))
    carried = frozenset(carried_origins(commit))
    facts = Facts(
        sides, commit.sha, base_sha, diff, commit.pullid, commit.branch, settings.value, numbers, flags, carried
    )
    sent = outbox.sent_digests(commit.id)
    runs = checks.runs_for(provider, pull, settings.value)
    shapes = checks.shapes(settings.value)
    run_ids = outbox.check_run_ids(commit.id)
    for status in compute(facts, ci):
        if ci == "failed" and status.context not in run_ids:
            continue  # as Codecov: only the statuses already on the commit say that CI failed
        shape = shapes.get(status.context, checks.Shape())
        notes = checks.uncovered_added(diff, sides(())[0]) if shape.annotated and diff is not None else ()
        parts: list[Any] = [status.state, status.description, target_url]
        if notes:
            parts.append([(note.path, note.start_line, note.end_line) for note in notes])
        digest = _digest(*parts)
        if sent.get(status.context) == digest:
            continue
        # A context sent as a commit status stays one on this sha (never a status and a run of one name).
        as_run = runs is not None and (status.context not in run_ids or run_ids[status.context] is not None)
        run = checks.check_run(status, shape, target_url, notes) if as_run else None
        # GitHub adds a run's annotations to those it has: an annotated run is made anew, not edited.
        run_id = None if shape.annotated else run_ids.get(status.context)
        try:
            run_id = checks.send(
                provider, runs, repository, commit.sha, status, run, run_id, target_url, adopt=not shape.annotated
            )
        except ProviderError as error:
            outbox.failed(done, commit.id, status.context, error)
            raise
        values = {"digest": digest, "state": status.state, "description": status.description}
        done.append((commit.id, status.context, {**values, "check_run_id": run_id, "sent_at": utcnow(), "error": None}))
    comment = settings.get("comment")
    if ci != "passed":
        return  # while CI runs, or once it failed, no comment and no notifier (as Codecov)
    if pull is not None and pull_row is not None and pull_row[1].id == commit.id and isinstance(comment, dict):
        _comment(provider, comparison, pull, settings, target_url or "", claim, sent, done)
    notifiers.send_each(repository, commit, base, settings.value, sides, claim.base_url, sent, done)


def _comment(
    provider: Provider,
    comparison: Comparison,
    pull: Pull,
    settings: Any,
    pull_url: str,
    claim: outbox.Claim,
    sent: dict[str, Optional[str]],
    done: outbox.Sent,
) -> None:
    options = settings.get("comment")
    behavior = options.get("behavior", "default")
    if behavior == "once" and pull.comment_id == DELETED:
        return
    repository, commit, base, patch = comparison.repository, comparison.head, comparison.base, comparison.patch
    sections = {item.partition(":")[0] for item in options.get("layout", [])}
    facts = CommentFacts(
        pull_url=pull_url,
        file_url=lambda path: pull_file_url(repository, pull.pullid, path, claim.base_url) or "",
        pullid=pull.pullid,
        head_sha=commit.sha,
        base_sha=pull.base_sha,
        head=Totals.of(commit),
        base=Totals.of(base) if base is not None else None,
        head_files=commit.files,
        base_files=base.files if base is not None else None,
        patch=patch.totals if patch is not None else None,
        files=[FileRow(file.path, file.totals) for file in comparison.missed_files],
        flags=comparison.flags,
        components=_component_rows(comparison, settings.value) if "components" in sections else [],
        indirect=len(comparison.indirect),
        numbers=settings.numbers(),
    )
    has_comment = pull.comment_id is not None and pull.comment_id != DELETED
    after = options.get("after_n_builds")
    if not wanted(options.get("require_changes", []), facts, has_comment, upload_count(commit), after):
        return
    shown = [options.get(key, False) for key in ("hide_project_coverage", "show_carryforward_flags")]
    body = marked(render(facts, options.get("layout", []), *shown), pull.pullid)
    digest = _digest(body)
    if sent.get(COMMENT) == digest and behavior != "spammy":
        return
    comment_id = None if behavior == "spammy" else pull.comment_id if has_comment else None
    try:
        if behavior == "new" and comment_id is not None:
            provider.delete_comment(repository, pull.pullid, comment_id)
            comment_id = None
        if comment_id is None and behavior != "spammy":
            # No id stored (a first post, or a sender killed after posting): the comment is looked
            # for on the provider first. ``new`` looks after deleting, for a post whose id was lost.
            comment_id = provider.find_comment(repository, pull.pullid, marker(pull.pullid))
            if behavior == "new" and comment_id is not None:
                provider.delete_comment(repository, pull.pullid, comment_id)
                comment_id = None
        try:
            new_id = provider.upsert_comment(repository, pull.pullid, body, comment_id)
        except CommentGone:
            if behavior == "once":
                outbox.record_all(done)
                outbox.keep_comment_id(pull.id, DELETED)
                outbox.record(
                    commit.id,
                    COMMENT,
                    error="The comment was deleted on the provider (behavior: once).",
                    error_at=utcnow(),
                )
                get_session().commit()
                return
            new_id = provider.upsert_comment(repository, pull.pullid, body, None)
    except ProviderError as error:
        outbox.failed(done, commit.id, COMMENT, error)
        raise
    outbox.keep_comment_id(pull.id, new_id)
    outbox.record(
        commit.id, COMMENT, digest=digest, state="sent", description=f"comment {new_id}", sent_at=utcnow(), error=None
    )


def _component_rows(comparison: Comparison, settings: dict[str, Any]) -> list[FlagRow]:
    """The comment's rows of the components of ``settings``."""
    return [
        FlagRow(row.component.name, row.head, row.base, row.patch, row.files) for row in comparison.components(settings)
    ]


def send_due(limit: int = 10, before_each: Optional[Callable[[], None]] = None) -> int:
    """Claim and send what is due (at most ``limit`` commits); how many were handled. Never raises
    for one commit's failure: it is logged and the row retried. ``before_each`` is called before
    each commit is sent (the sender thread waits there for the uploads under way)."""
    handled = 0
    for claim in outbox.claim(limit):
        if before_each is not None:
            before_each()
        try:
            with outbox.leased(claim):
                deliver(claim)
        except Exception as error:
            log.exception("feedback for commit %s failed", claim.commit_id)
            get_session().rollback()
            outbox.retry(claim, f"{type(error).__name__}: {error}")
        handled += 1
    return handled
