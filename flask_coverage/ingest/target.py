"""Which commit an upload goes to, and what is said of it: the checked target (:class:`CommitTarget`),
the uploader's metadata (:class:`UploadMeta`), and the commit's message and author from the git mirror,
read once per commit before the upload's transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, NamedTuple, Optional, Union, cast

import sqlalchemy as sa

from ..git_mirror import CommitAbout, commit_about
from ..identifiers import check_flags, check_name, check_sha, normalize_branch, normalize_pullid
from ..models import Commit, Repository, Upload
from ..state import execute

#: The fields of :class:`UploadMeta` besides ``flags`` and ``external_id``, as stored on the upload.
META_FIELDS = ("name", "build", "job", "build_url", "provider")

_COMMITS = cast(sa.Table, Commit.__table__)


class CommitTarget(NamedTuple):
    """The commit an upload goes to, checked once (:meth:`check`): full sha, branch and pull request
    it moves (``None``: none), parent sha."""

    sha: str
    branch: Optional[str] = None
    pullid: Optional[int] = None
    parent: Optional[str] = None

    @classmethod
    def check(cls, commit: str, branch: Optional[str] = None, pullid: Any = None, parent: Any = None) -> CommitTarget:
        """The target of these arguments as uploaders send them; InvalidInput naming a bad one."""
        sha = check_sha(commit)
        parent_sha = check_sha(parent, "parent") if parent else None
        return cls(sha, normalize_branch(branch), normalize_pullid(pullid), parent_sha)


@dataclass(frozen=True)
class UploadMeta:
    """What an uploader says about an upload beyond its reports; stored with the upload record.

    Build it with :meth:`create`, which checks each value.
    """

    flags: tuple[str, ...] = ()
    name: Optional[str] = None
    build: Optional[str] = None
    job: Optional[str] = None
    build_url: Optional[str] = None
    provider: Optional[str] = None
    external_id: Optional[str] = field(default=None, compare=False)

    @classmethod
    def create(
        cls,
        *,
        flags: Union[str, Iterable[str], None] = None,
        external_id: Optional[str] = None,
        **values: Any,
    ) -> UploadMeta:
        """The meta with ``flags`` checked (:func:`check_flags`) and each other value a clean name.

        ``values`` are ``name``, ``build``, ``job``, ``build_url`` and ``provider``: blank means
        none; longer than its column or holding control characters is an InvalidInput.
        """
        checked: dict[str, Optional[str]] = {}
        for key, value in values.items():
            length: int = Upload.__table__.c[key].type.length  # type: ignore[attr-defined]
            text = "" if value is None else str(value).strip()
            what = {"build_url": "CI URL", "provider": "CI service"}.get(key, key)
            checked[key] = check_name(text, what, max_length=length, single_word=False) if text else None
        return cls(flags=check_flags(flags), external_id=external_id, **checked)


def unknown_about(repository: Repository, sha: str) -> Optional[CommitAbout]:
    """The message and author of a commit not stored with them yet, from the git mirror (if any),
    read before the upload's transaction: once per commit, never per page view."""
    known = sa.select(_COMMITS.c.message).where(
        _COMMITS.c.repository_id == repository.id, _COMMITS.c.sha == sha, _COMMITS.c.message.is_not(None)
    )
    return None if execute(known).first() else commit_about(repository, sha)
