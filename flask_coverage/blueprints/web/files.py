"""The file view: one file of a target, each line with its state, hits and source, a pull's added
lines marked; Codecov's ``.../blob/{ref}/{path}`` links redirected to it (docs/web.md)."""

from __future__ import annotations

from typing import Any, Optional

from flask import make_response, redirect, render_template, request
from markupsafe import Markup

from ...errors import NotFound
from ...feedback.base import find_pull_with_base
from ...feedback.comparison import Comparison
from ...identifiers import normalize_sha
from ...lines import HIT, MISS, PARTIAL
from ...queries.files import file_lines
from ...queries.targets import find_flag, leading_branch
from ...request_args import etag, requested_flag
from ...sources import load_source
from ...svg.writer import format_percent
from . import NOT_FOUND_MESSAGE, REPO, Target, View, bp, current_user, legend_of, page_target, page_view

#: Missed ranges linked at the top of a file view; more are reached with "next miss".
LISTED_MISS_RANGES = 50


STATE_NAMES = {HIT: "hit", MISS: "miss", PARTIAL: "partial"}


def _miss_ranges(tracked: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs of consecutive missed lines, as ``(first, last)``."""
    ranges: list[tuple[int, int]] = []
    for number in sorted(tracked):
        if tracked[number][1] != MISS:
            continue
        if ranges and ranges[-1][1] == number - 1:
            ranges[-1] = (ranges[-1][0], number)
        else:
            ranges.append((number, number))
    return ranges


def lines_html(
    tracked: dict[int, tuple[int, int]], source: Optional[tuple[Markup, ...]], added: frozenset[int] = frozenset()
) -> Markup:
    """The rows of the file view's table, built here rather than in a template loop: a 5,000-line
    file is 5,000 rows, and a join of formatted strings is several times faster (docs/web.md).

    With ``source``: every line, ``number | hits | code``; without: the tracked lines, ``number |
    state | hits``. A row's class is its state (``coverage-hit``, ...; none for untracked lines), and
    ``coverage-added`` for the lines of ``added`` (a pull's added lines).
    """
    rows = []
    if source is None:
        for number in sorted(tracked):
            hits, state = tracked[number]
            name = STATE_NAMES[state]
            extra = " coverage-added" if number in added else ""
            rows.append(
                f'<tr class="coverage-{name}{extra}" id="L{number}"><td><a href="#L{number}">{number}</a></td>'
                f"<td>{name}</td><td>{hits}</td></tr>"
            )
    else:
        last = max(len(source), max(tracked, default=0))
        for number in range(1, last + 1):
            code = source[number - 1] if number <= len(source) else ""
            found = tracked.get(number)
            names = ([] if found is None else [f"coverage-{STATE_NAMES[found[1]]}"]) + (
                ["coverage-added"] if number in added else []
            )
            css = f' class="{" ".join(names)}"' if names else ""
            hits_text = "" if found is None else found[0]
            link = f'<a href="#L{number}">{number}</a>'
            rows.append(f'<tr{css} id="L{number}"><td>{link}</td><td>{hits_text}</td><td>{code}</td></tr>')
    # Numbers, state names and already escaped source only.
    return Markup("\n".join(rows))  # noqa: S704


def _added_lines(view: View, path: str) -> tuple[frozenset[int], Optional[str]]:
    """The lines a pull's page's file adds over the pull's base (none for other pages or without a
    diff), and the base's sha."""
    if view.target.pullid is None or view.commit is None:
        return frozenset(), None
    row = find_pull_with_base(view.repository, view.target.pullid)
    if row is None:
        return frozenset(), None
    found = Comparison.of_pull(view.repository, row[0], view.commit, row[2]).diff
    return frozenset(found.added.get(path, ()) if found else ()), row[0].base_sha


def _blob_ref(view: View, path: str) -> Optional[str]:
    """Codecov's file link ``.../blob/{ref}/{path}`` as the file view of that branch (the longest branch
    name that starts the path: names may hold ``/``) or commit (a sha of 7 to 64 hex digits), or ``None``."""
    parts = path.split("/")
    repository = view.repository
    branch = leading_branch(repository.owner.service, repository.owner.username, repository.name, parts[:-1])
    if branch is not None:
        rest = "/".join(parts[branch.count("/") + 1 :])
        return view.url("coverage_web.file_view", target=Target(branch=branch), path=rest, flag=requested_flag())
    sha = normalize_sha(parts[0], prefix=True)
    if sha is not None and len(parts) > 1:
        rest = "/".join(parts[1:])
        return view.url("coverage_web.file_view", target=Target(sha=sha), path=rest, flag=requested_flag())
    return None


@bp.get(REPO + "/blob/<path:path>")
@bp.get(REPO + "/branch/<path:branch>/blob/<path:path>")
@bp.get(REPO + "/pull/<pullid>/blob/<path:path>")
@bp.get(REPO + "/commit/<sha>/blob/<path:path>")
def file_view(
    prov: str,
    owner: str,
    repo: str,
    path: str,
    branch: Optional[str] = None,
    pullid: Optional[str] = None,
    sha: Optional[str] = None,
) -> Any:
    """One file of the commit the URL's target names (``?flag=``: of that flag of it): each line
    with its state, hits and source."""
    flag = requested_flag()
    view = page_view(prov, owner, repo, page_target(branch, pullid, sha))
    commit = view.commit
    coverage = commit if flag is None or commit is None else find_flag(commit, flag)
    lines = file_lines(coverage, path) if coverage is not None else None
    if lines is None and view.target == Target():
        codecov_link = _blob_ref(view, path)
        if codecov_link is not None:
            return redirect(codecov_link)
    if commit is None or lines is None:
        raise NotFound(NOT_FOUND_MESSAGE)
    source = load_source(view.repository, commit.sha, path)
    added, base_sha = _added_lines(view, path)
    user = current_user()
    tag = etag(commit.id, commit.sha, commit.version, path, flag, getattr(user, "id", None), source, base_sha)
    if request.if_none_match.contains(tag):
        response = make_response("", 304)
        response.set_etag(tag)
        return response
    tracked = {number: (hits, state) for number, hits, state in lines}
    totals = lines.totals()
    response = make_response(
        render_template(
            "coverage/file.html",
            view=view,
            repository=view.repository,
            commit=commit,
            path=path,
            flag=flag,
            totals=totals,
            coverage=format_percent(totals.hits, totals.lines),
            rows=lines_html(tracked, source.lines, added),
            added=added,
            added_missed=sorted(number for number in added if number in tracked and tracked[number][1] != HIT),
            source=source,
            miss_ranges=_miss_ranges(tracked),
            listed_miss_ranges=LISTED_MISS_RANGES,
            legend=legend_of(view.repository),
            Target=Target,
        )
    )
    response.set_etag(tag)
    return response
