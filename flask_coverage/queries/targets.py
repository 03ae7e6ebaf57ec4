"""Which commit a URL means: by sha or sha prefix, a branch's tip, a pull's tip, the default branch's tip.

Every reader of coverage (the report API, the graphs, the web pages) resolves its commit here, so
"which commit does this URL mean" has one answer everywhere. A name no commit can have (a short or
non-hex sha, a pull number out of range, a branch the name rule refuses) finds ``None`` without a
query, which each caller turns into its one 404.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import sqlalchemy as sa
from sqlalchemy.orm import aliased

from ..identifiers import FULL_SHA_LENGTHS, MAX_PULLID, is_storable, normalize_sha
from ..models import Branch, Commit, CommitFlag, Pull, Repository, ServiceEnum
from ..state import execute
from .repositories import repository_params, repository_select

# A pull's head commit, and its base: the commit of its repository whose sha it names (if uploaded).
PULL_HEAD, PULL_BASE = Commit.__table__.alias("head"), Commit.__table__.alias("base")
HEAD_OF_PULL = PULL_HEAD.c.id == Pull.__table__.c.head_commit_id
BASE_OF_PULL = sa.and_(
    PULL_BASE.c.repository_id == Pull.__table__.c.repository_id, PULL_BASE.c.sha == Pull.__table__.c.base_sha
)


def _commit_target(
    sha: Optional[str], branch: Optional[str], pullid: Optional[int]
) -> Optional[tuple[str, dict[str, object]]]:
    """Which of :func:`_commit_statements` finds the commit that ``sha``, ``branch`` or ``pullid``
    names (in that order; with none of them, the tip of the default branch) and its bound
    parameters, or ``None`` for a name no commit has."""
    if sha is not None:
        value = normalize_sha(sha, prefix=True)
        if value is None:
            return None
        if len(value) in FULL_SHA_LENGTHS:
            return "sha", {"sha": value}
        return "prefix", {"sha": value, "sha_end": value + "g"}
    if pullid is not None and branch is None:
        return ("pull", {"pullid": pullid}) if 1 <= pullid <= MAX_PULLID else None
    if branch is not None:
        return ("branch", {"branch": branch}) if is_storable(branch) else None
    return "default", {}


def _commit_statements(base: sa.Select) -> dict[str, sa.Select]:
    """``base`` (a query of a ``Repository``) joined to its commit, one statement per way to name it,
    with bound parameters (built once: a warm graph request spends no time building SQL)."""
    branch_tip = base.join(Branch, Branch.repository_id == Repository.id).join(
        Commit, Commit.id == Branch.head_commit_id
    )
    pull_tip = base.join(Pull, Pull.repository_id == Repository.id).join(Commit, Commit.id == Pull.head_commit_id)
    by_sha = base.join(Commit, Commit.repository_id == Repository.id)
    return {
        "default": branch_tip.where(Branch.name == Repository.branch),
        "branch": branch_tip.where(Branch.name == sa.bindparam("branch")),
        "pull": pull_tip.where(Pull.pullid == sa.bindparam("pullid")),
        "sha": by_sha.where(Commit.sha == sa.bindparam("sha")),
        # Two rows at most: one means a unique prefix. A range instead of LIKE: it uses the
        # (repository_id, sha) index under any collation, and for lower-case hex "g" sorts after
        # every digit, so [prefix, prefix + "g") holds the prefixed shas.
        "prefix": by_sha.where(Commit.sha >= sa.bindparam("sha"), Commit.sha < sa.bindparam("sha_end")).limit(2),
    }


# The commit of a repository already found (by its id), and the repository found with its commit.
_COMMIT_STATEMENTS = _commit_statements(
    sa.select(Commit).select_from(Repository).where(Repository.id == sa.bindparam("repository_id"))
)
_TARGET_STATEMENTS = _commit_statements(repository_select(Commit).where(Repository.deleted.is_(False)))
# The same, with the coverage of one flag of the commit: an outer join on its unique key, so a sha
# prefix stays ambiguous when only one of its commits has the flag.
_FLAG_TARGET_STATEMENTS = {
    kind: statement.add_columns(CommitFlag).outerjoin(
        CommitFlag, sa.and_(CommitFlag.commit_id == Commit.id, CommitFlag.flag == sa.bindparam("flag"))
    )
    for kind, statement in _TARGET_STATEMENTS.items()
}


def resolve_commit(
    repository: Repository,
    *,
    sha: Optional[str] = None,
    branch: Optional[str] = None,
    pullid: Optional[int] = None,
) -> Optional[Commit]:
    """The commit of ``repository`` that a URL or query names, or ``None``.

    Exactly one way is used, in this order: ``sha`` (a full sha or a unique prefix of at least 7
    hex digits; an ambiguous prefix finds nothing), ``branch`` (the branch's tip), ``pullid`` (the
    pull request's tip); with none of them, the tip of the repository's default branch.
    """
    target = _commit_target(sha, branch, pullid)
    if target is None:
        return None
    kind, params = target
    found = execute(_COMMIT_STATEMENTS[kind], {**params, "repository_id": repository.id})
    commits = found.scalars().all()
    return commits[0] if len(commits) == 1 else None


def _target_row(
    service: Union[str, ServiceEnum],
    owner: str,
    name: str,
    *,
    sha: Optional[str],
    branch: Optional[str],
    pullid: Optional[int],
    flag: Optional[str],
) -> Optional[Any]:
    params = repository_params(service, owner, name)
    target = _commit_target(sha, branch, pullid)
    if params is None or target is None:
        return None
    kind, more = target
    params.update(more)
    statements = _TARGET_STATEMENTS
    if flag is not None:
        statements, params["flag"] = _FLAG_TARGET_STATEMENTS, flag
    rows = execute(statements[kind], params).all()
    return rows[0] if len(rows) == 1 else None


def find_target(
    service: Union[str, ServiceEnum],
    owner: str,
    name: str,
    *,
    sha: Optional[str] = None,
    branch: Optional[str] = None,
    pullid: Optional[int] = None,
) -> Optional[tuple[Repository, Commit]]:
    """``(repository, commit)``: the repository ``owner/name`` on ``service`` and its commit that
    ``sha``, ``branch`` or ``pullid`` names (with none of them, the tip of its default branch), or
    ``None`` if either does not exist.

    The same answer as :func:`find_repository` followed by :func:`resolve_commit`, read with one
    query (the repository's owner is loaded with it); graphs run it on every request, cache hits
    and 304s included.
    """
    row = _target_row(service, owner, name, sha=sha, branch=branch, pullid=pullid, flag=None)
    return None if row is None else (row[0], row[1])


def find_flag_target(
    service: Union[str, ServiceEnum],
    owner: str,
    name: str,
    flag: str,
    *,
    sha: Optional[str] = None,
    branch: Optional[str] = None,
    pullid: Optional[int] = None,
) -> Optional[tuple[Repository, Commit, CommitFlag]]:
    """Like :func:`find_target`, with the coverage of ``flag`` in that commit, in the same one
    query; ``None`` too when the commit has no upload with that flag."""
    row = _target_row(service, owner, name, sha=sha, branch=branch, pullid=pullid, flag=flag)
    return None if row is None or row[2] is None else (row[0], row[1], row[2])


def find_flag(commit: Commit, flag: str) -> Optional[CommitFlag]:
    """The coverage of ``flag`` in ``commit``, or ``None`` if no upload of the commit had that flag."""
    query = sa.select(CommitFlag).where(CommitFlag.commit_id == commit.id, CommitFlag.flag == flag)
    return execute(query).scalar_one_or_none()


def find_branch(repository: Repository, name: str) -> Optional[Branch]:
    """The branch ``name`` of ``repository`` with its tip loaded, or ``None``."""
    if not is_storable(name):
        return None
    query = sa.select(Branch).where(Branch.repository_id == repository.id, Branch.name == name)
    return execute(query).scalar_one_or_none()


def find_pull(repository: Repository, pullid: int) -> Optional[sa.Row]:
    """``(pull, head, base)`` of the pull request ``pullid`` (base ``None`` if not uploaded), or ``None``."""
    head, base = aliased(Commit, PULL_HEAD), aliased(Commit, PULL_BASE)
    query = sa.select(Pull, head, base).join(head, HEAD_OF_PULL).outerjoin(base, BASE_OF_PULL)
    return execute(query.where(Pull.repository_id == repository.id, Pull.pullid == pullid)).first()


#: The most ``/``-separated parts of a branch name that a URL's leading segments are tried as.
MAX_BRANCH_DEPTH = 8
#: Statement of :func:`leading_branch`: the longest of the bound ``names`` that is a branch of the repository.
_LEADING_BRANCH = (
    repository_select(Branch.name)
    .join(Branch, Branch.repository_id == Repository.id)
    .where(Repository.deleted.is_(False), Branch.name.in_(sa.bindparam("names", expanding=True)))
    .order_by(sa.func.length(Branch.name).desc())
    .limit(1)
)


def leading_branch(service: Union[str, ServiceEnum], owner: str, name: str, segments: list[str]) -> Optional[str]:
    """Which branch starts a path of ``segments`` (``.../tree/{ref}/{folder}``, Codecov's
    ``.../blob/{ref}/{path}``): the longest run of the first ones, up to :data:`MAX_BRANCH_DEPTH`, joined
    by ``/`` that is a branch of the repository (a branch name may hold ``/``), or ``None``. One query,
    the same whether the repository is missing, private or public."""
    params = repository_params(service, owner, name)
    runs = ("/".join(segments[:end]) for end in range(1, min(len(segments), MAX_BRANCH_DEPTH) + 1))
    names = [run for run in runs if is_storable(run)]
    if params is None or not names:
        return None
    row = execute(_LEADING_BRANCH, {**params, "names": names}).first()
    return None if row is None else str(row[1])
