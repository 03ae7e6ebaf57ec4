"""A pull's real base: the merge base of its target branch and its head (docs/pull-requests.md,
"The pull's base").

In order, the first that answers:

1. the base the CI named with codecov-cli's ``pr-base-picking`` (``Pull.user_base_sha``);
2. the git mirror: ``git merge-base`` of the target branch's tip (the provider's pull says which
   branch and its tip; without an answer, the target branch a webhook stored, else the repository's
   default branch, in the mirror) and the head;
3. the provider's pull: its base sha (the target branch's tip: no merge base without a mirror);
4. what the uploads said (``Pull.base_sha`` as :mod:`flask_coverage.ingest` keeps it).

Never a commit of the pull itself: a base that is one of the pull's own commits (a commit uploaded
with the pull's number, or the head) is walked back along first parents to the first commit that is
not. The answer is stored as ``Pull.base_sha``, which every comparison of the pull reads, and asked
again when the head moves (kept in the cache per head for :data:`CACHE_SECONDS`).
"""

from __future__ import annotations

import logging
from typing import Optional

import sqlalchemy as sa

from .. import git_mirror
from ..models import Commit, Pull, Repository
from ..providers import ProviderError, provider_for
from ..queries.targets import find_pull
from ..state import cache_errors, execute, get_cache, get_session

log = logging.getLogger(__name__)

#: How long a pull's base is trusted for one head before the provider is asked again.
CACHE_SECONDS = 300


def _pull_shas(repository: Repository, pullid: int) -> set[str]:
    """The shas of the commits uploaded with the pull's number."""
    query = sa.select(Commit.sha).where(Commit.repository_id == repository.id, Commit.pullid == pullid)
    return set(execute(query).scalars())


def find_base(repository: Repository, pull: Pull, head_sha: str) -> Optional[str]:
    """The pull's real base (see the module), not stored."""
    own = _pull_shas(repository, pull.pullid) | {head_sha}
    git_dir = git_mirror.mirror(repository)
    if pull.user_base_sha:
        return _outside(git_dir, pull.user_base_sha, own)
    info = None
    provider = provider_for(repository)
    if provider is not None:
        try:
            info = provider.pull(repository, pull.pullid)
        except ProviderError as error:
            log.warning("the provider did not answer for pull %s: %s", pull.pullid, error)
    if git_dir is not None and git_mirror.has_commit(git_dir, head_sha):
        tip = (
            info.base_sha if info is not None else git_mirror.branch_tip(git_dir, pull.base_branch or repository.branch)
        )
        found = git_mirror.merge_base(git_dir, tip, head_sha) if tip else None
        if found:
            return _outside(git_dir, found, own)
    if info is not None and info.base_sha:
        return _outside(git_dir, info.base_sha, own)
    return _outside(git_dir, pull.base_sha, own) if pull.base_sha else None


def _outside(git_dir: Optional[str], sha: str, own: set[str]) -> Optional[str]:
    """``sha``, or if it is one of the pull's commits, its first ancestor along first parents that is
    not (``None`` when that cannot be told without a mirror)."""
    if sha not in own:
        return sha
    if git_dir is None:
        return None
    for ancestor in git_mirror.first_parents(git_dir, sha):
        if ancestor not in own:
            return ancestor
    return None


def refresh_base(repository: Repository, pull: Pull, head_sha: str) -> Optional[str]:
    """:func:`find_base` stored as the pull's ``base_sha`` (once per head and :data:`CACHE_SECONDS`)."""
    key = f"coverage-pull-base:{repository.id}:{pull.pullid}:{head_sha}:{pull.user_base_sha}"
    cache, known = get_cache(), None
    with cache_errors("pull's base"):
        known = cache.get(key)
    if known is not None:
        return known or None
    base = find_base(repository, pull, head_sha)
    if base is not None and base != pull.base_sha:
        execute(sa.update(Pull).where(Pull.id == pull.id).values(base_sha=base))
        get_session().commit()
    with cache_errors("pull's base"):
        cache.set(key, base or "", timeout=CACHE_SECONDS)
    return base


def find_pull_with_base(repository: Repository, pullid: int) -> Optional[sa.Row]:
    """:func:`~flask_coverage.queries.targets.find_pull` (``(pull, head, base)``) after the pull's
    base was brought up to date (:func:`refresh_base`)."""
    row = find_pull(repository, pullid)
    if row is None:
        return None
    pull, head, _ = row
    stored = pull.base_sha  # read now: a refresh commits, which reloads the pull
    if refresh_base(repository, pull, head.sha) != stored:
        row = find_pull(repository, pullid)
    return row


def set_user_base(repository: Repository, pullid: int, sha: str) -> bool:
    """Store the base codecov-cli's ``pr-base-picking`` names for a pull; ``False`` if the pull has no
    upload yet (the pull is made by its first upload)."""
    query = sa.update(Pull).where(Pull.repository_id == repository.id, Pull.pullid == pullid)
    updated = execute(query.values(user_base_sha=sha)).rowcount
    get_session().commit()
    return bool(updated)
