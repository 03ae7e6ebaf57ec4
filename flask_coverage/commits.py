"""Reading stored coverage back: repositories by name, commits by sha or tip, files and their lines.

Every reader of coverage (the report API, the graphs, the file view) goes through these functions,
so "which commit does this URL mean" has one answer everywhere. Lookups never raise for names that
could not exist (wrong service, control characters, absurd lengths): they return ``None``, which
the web layer turns into its one 404.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple, Optional, Union

import sqlalchemy as sa
from sqlalchemy.orm import aliased, contains_eager

from .auth import READABLE, reader_id
from .errors import InvalidInput
from .lines import LineCoverage, Totals
from .models import (
    Branch,
    Commit,
    CommitFlag,
    FileCoverage,
    FlagFileCoverage,
    Owner,
    Pull,
    Repository,
    ServiceEnum,
    Upload,
    UploadFlag,
)
from .names import is_storable, refused_character
from .state import execute, get_connection, get_engine

#: The shortest sha prefix that names a commit (what ``git log --oneline`` shows).
MIN_SHA_PREFIX = 7
#: Full shas: 40 hex digits (SHA-1) or 64 (SHA-256 repositories).
FULL_SHA_LENGTHS = (40, 64)
#: Pull request numbers are stored in a 32-bit column.
MAX_PULLID = 2**31 - 1

#: What coverage is read from: a commit (all its uploads) or one of its flags (the uploads with it).
Coverage = Union[Commit, CommitFlag]

_HEX = re.compile(r"[0-9a-f]+")


class FileTotals(NamedTuple):
    """One file of a commit with its totals, read from columns (no line data decoded)."""

    path: str
    lines: int
    hits: int
    misses: int
    partials: int

    @property
    def totals(self) -> Totals:
        """The same counts as a :class:`~flask_coverage.lines.Totals`."""
        return Totals(self.lines, self.hits, self.misses, self.partials)


def parse_service(value: Union[str, ServiceEnum]) -> ServiceEnum:
    """The :class:`ServiceEnum` member named ``value``, or :class:`InvalidInput`."""
    try:
        return ServiceEnum(value)
    except ValueError:
        choices = ", ".join(member.value for member in ServiceEnum)
        raise InvalidInput(f"unknown service {str(value)!r}: expected one of {choices}") from None


def _repository_params(service: Union[str, ServiceEnum], owner: str, name: str) -> Optional[dict[str, object]]:
    """The bound parameters of :func:`_repository_select` naming ``owner/name`` on ``service``, or
    ``None`` for a name no repository can have (an unknown service included)."""
    if not (is_storable(owner) and is_storable(name)):
        return None
    try:
        return {"service": parse_service(service), "owner": owner.lower(), "name": name.lower()}
    except InvalidInput:
        return None


def _repository_select(*columns: Any) -> sa.Select:
    """The repository (with its owner loaded, and ``columns``) that the bound ``service``, ``owner``
    and ``name`` name, case-insensitively: the one repository lookup, which every other starts from."""
    return (
        sa.select(Repository, *columns)
        .join(Owner, Owner.id == Repository.owner_id)
        .where(
            Owner.service == sa.bindparam("service"),
            sa.func.lower(Owner.username) == sa.bindparam("owner"),
            sa.func.lower(Repository.name) == sa.bindparam("name"),
        )
        .options(contains_eager(Repository.owner))
    )


# find_repository's statements, built once (so a lookup neither builds nor hashes SQL), keyed by
# (only what the bound ``reader_id`` may read, deleted ones too).
_REPOSITORY = _repository_select()
_LISTED = Repository.deleted.is_(False)
_REPOSITORY_STATEMENTS = {
    (False, True): _REPOSITORY,
    (False, False): _REPOSITORY.where(_LISTED),
    (True, True): _REPOSITORY.where(READABLE),
    (True, False): _REPOSITORY.where(READABLE, _LISTED),
}


def find_repository(
    service: Union[str, ServiceEnum], owner: str, name: str, *, deleted: bool = False
) -> Optional[Repository]:
    """The repository ``owner/name`` on ``service`` (names case-insensitive, its owner loaded with it),
    whoever asks (the operator, the uploads and the pages, which check access after), or ``None``.

    ``None`` too for an unknown service or a name that cannot exist; ``deleted`` repositories are found
    only when asked for.
    """
    params = _repository_params(service, owner, name)
    if params is None:
        return None
    return execute(_REPOSITORY_STATEMENTS[False, deleted], params).scalar_one_or_none()


def find_readable_repository(
    user: Optional[Owner], service: Union[str, ServiceEnum], owner: str, name: str, *, deleted: bool = False
) -> Optional[Repository]:
    """Like :func:`find_repository`, if ``user`` (``None``: anonymous) may read it
    (:data:`~flask_coverage.auth.READABLE`).

    One query: it has the same shape whether the repository is missing, hidden or readable, so the
    answers of the first two take the same time.
    """
    params = _repository_params(service, owner, name)
    if params is None:
        return None
    params["reader_id"] = reader_id(user)
    return execute(_REPOSITORY_STATEMENTS[True, deleted], params).scalar_one_or_none()


def normalize_sha(value: str, *, prefix: bool = False) -> Optional[str]:
    """``value`` as a lower-case commit sha, or ``None`` if it is not one.

    A full sha has 40 or 64 hex digits; with ``prefix=True`` any 7 to 64 hex digits are accepted.
    """
    sha = (value or "").strip().lower()
    if not _HEX.fullmatch(sha):
        return None
    if prefix:
        return sha if MIN_SHA_PREFIX <= len(sha) <= max(FULL_SHA_LENGTHS) else None
    return sha if len(sha) in FULL_SHA_LENGTHS else None


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
_TARGET_STATEMENTS = _commit_statements(_repository_select(Commit).where(Repository.deleted.is_(False)))
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
    params = _repository_params(service, owner, name)
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


def flags_query(repository: Repository, commit: Optional[Commit]) -> sa.Select:
    """Every flag that uploads to ``repository`` carried, in name order, as rows of ``flag_name``
    and the flag's ``lines``, ``hits``, ``misses`` and ``partials`` in ``commit`` (``NULL`` when
    ``commit`` is ``None`` or has no upload with that flag)."""
    names = (
        sa.select(CommitFlag.flag)
        .join(Commit, Commit.id == CommitFlag.commit_id)
        .where(Commit.repository_id == repository.id)
        .distinct()
        .subquery()
    )
    here = aliased(CommitFlag)
    on = sa.and_(here.flag == names.c.flag, here.commit_id == (commit.id if commit is not None else None))
    columns = (here.lines, here.hits, here.misses, here.partials)
    return sa.select(names.c.flag.label("flag_name"), *columns).outerjoin(here, on).order_by(names.c.flag)


def _file_model(coverage: Coverage) -> tuple[Any, sa.ColumnElement[bool]]:
    """The model that holds the files of ``coverage`` and the condition that selects them."""
    if isinstance(coverage, CommitFlag):
        files = FlagFileCoverage
        return files, sa.and_(files.commit_id == coverage.commit_id, files.flag == coverage.flag)
    return FileCoverage, FileCoverage.commit_id == coverage.id


def _files_query(coverage: Coverage, path_prefix: Optional[str]) -> Optional[sa.Select]:
    files, owned = _file_model(coverage)
    query = sa.select(files.path, files.lines, files.hits, files.misses, files.partials).where(owned)
    if path_prefix:
        if refused_character(path_prefix) is not None:
            return None  # no stored path holds such characters
        # substr, not LIKE: exact and case-sensitive on every database, no wildcards to escape.
        query = query.where(sa.func.substr(files.path, 1, len(path_prefix)) == path_prefix)
    return query.order_by(files.path)


def file_totals(commit: Coverage, path_prefix: Optional[str] = None) -> list[FileTotals]:
    """The files of ``commit`` or of a flag of it (only those whose path starts with ``path_prefix``),
    ordered by path.

    Reads the totals columns only, never the line data, so it stays cheap for 100,000 files.
    """
    query = _files_query(commit, path_prefix)
    if query is None:
        return []
    return [FileTotals(*row) for row in execute(query)]


def file_rows(commit: Coverage, path_prefix: Optional[str] = None) -> Iterator[tuple[str, int, int, int, int, bytes]]:
    """The rows of :func:`iter_file_coverage` as they are stored: ``(path, lines, hits, misses,
    partials, data)``, ``data`` the encoded :class:`~flask_coverage.lines.LineCoverage`.

    Streamed: plain rows of the session's connection (no ORM layer: the report API reads millions of
    them), fetched 1,000 at a time (a server-side cursor on PostgreSQL).
    """
    query = _files_query(commit, path_prefix)
    if query is None:
        return iter(())
    query = query.add_columns(_file_model(commit)[0].data).execution_options(yield_per=1000)
    return iter(get_connection().execute(query))


def iter_file_coverage(
    commit: Coverage, path_prefix: Optional[str] = None
) -> Iterator[tuple[FileTotals, LineCoverage]]:
    """Like :func:`file_totals`, with each file's lines; rows are streamed, not loaded at once."""
    for path, lines, hits, misses, partials, data in file_rows(commit, path_prefix):
        yield FileTotals(path, lines, hits, misses, partials), LineCoverage.decode(data)


def file_lines(commit: Coverage, path: str) -> Optional[LineCoverage]:
    """The line coverage of the file ``path`` of ``commit`` (or of a flag of it), or ``None`` if it
    has no such file."""
    if not path or refused_character(path) is not None:
        return None
    files, owned = _file_model(commit)
    query = sa.select(files.data).where(owned, files.path == path)
    data = execute(query).scalar_one_or_none()
    return None if data is None else LineCoverage.decode(data)


def uploads_query(commit: Commit) -> sa.Select:
    """The uploads of ``commit``, oldest first, as rows of :class:`~flask_coverage.models.Upload`'s
    columns plus ``flags``: the upload's flags joined by ``","`` (``None`` for none), in one query."""
    flag = UploadFlag.flag
    joined = (
        sa.func.string_agg(flag, ",") if get_engine().dialect.name == "postgresql" else sa.func.group_concat(flag, ",")
    )
    flags = sa.select(joined).where(UploadFlag.upload_id == Upload.id).scalar_subquery()
    return (
        sa.select(*Upload.__table__.columns, flags.label("flags"))
        .where(Upload.commit_id == commit.id)
        .order_by(Upload.created_at, Upload.id)
    )
