"""Which ``codecov.yml`` applies to a commit (docs/pull-requests.md, "Where the YAML comes from").

The file at the commit, looked for as Codecov does: ``codecov.yml``, ``.codecov.yml``,
``codecov.yaml``, ``.codecov.yaml`` at the root, then in ``dev/`` and ``.github/``; read from the git
mirror, else through the provider's ``read_file``. A commit without one takes the repository's
stored YAML (``flask coverage set-yaml``). Either is merged over :data:`~.schema.DEFAULTS`. An
invalid file at a commit is ignored whole (the repository's YAML applies) and its error is kept
with the commit, for its page and the API to show. What a commit's file said is read once and
stored (:class:`~flask_coverage.models.CommitYaml`): a sha's files never change. Under either lies
the owner's stored YAML (``set-yaml SERVICE/OWNER``), as Codecov puts an organization's YAML under a
repository's.

An upload reads only what is here (:func:`upload_settings`): the stored row, else the git mirror.
It never asks the provider: a commit whose file neither holds gets the repository's (or owner's)
YAML, and the feedback sender reads the commit's file from the provider later
(:func:`commit_settings`), for the statuses and the comment and for the uploads after it.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Optional

import sqlalchemy as sa

from .. import git_mirror
from ..models import Commit, CommitYaml, Repository
from ..providers import ProviderError, provider_for
from ..state import dialect_insert, execute, get_session
from .loader import MAX_YAML_BYTES, YamlError
from .numbers import Numbers
from .schema import DEFAULTS, merged, parse

log = logging.getLogger(__name__)

NAMES = ("codecov.yml", ".codecov.yml", "codecov.yaml", ".codecov.yaml")
#: Where a commit's ``codecov.yml`` is looked for, in order.
PLACES = tuple(folder + name for folder in ("", "dev/", ".github/") for name in NAMES)


@dataclass
class Settings:
    """The YAML that applies to a commit: ``value`` (merged over the defaults), where it came from
    (``source``: a path at the commit, ``"repository"``, ``"owner"`` or ``"defaults"``), and the ``error`` of the
    commit's own file when it was ignored."""

    value: dict[str, Any]
    source: str
    error: Optional[str] = None

    def numbers(self) -> Numbers:
        """How percentages are shown (``coverage.precision``, ``coverage.round``)."""
        return Numbers(self.get("coverage", "precision", default=2), self.get("coverage", "round", default="down"))

    def get(self, *keys: str, default: Any = None) -> Any:
        """The value at a key path (``get("coverage", "precision")``), or ``default``."""
        value: Any = self.value
        for key in keys:
            if not isinstance(value, dict) or key not in value:
                return default
            value = value[key]
        return value


def stored_yaml(text: Optional[str], what: str) -> Optional[dict[str, Any]]:
    """A stored YAML (a repository's or an owner's), validated (it was valid when stored; ``None`` if
    there is none or it no longer validates)."""
    if not text:
        return None
    try:
        validated = parse(text)
    except YamlError:
        log.warning("the stored YAML of %s no longer validates", what)
        return None
    return None if validated is None else validated.value


def repository_yaml(repository: Repository) -> Optional[dict[str, Any]]:
    """The repository's stored YAML (``set-yaml SERVICE/OWNER/REPO``), validated."""
    return stored_yaml(repository.yaml, f"repository {repository.id}")


def owner_yaml(repository: Repository) -> Optional[dict[str, Any]]:
    """The stored YAML of the repository's owner (``set-yaml SERVICE/OWNER``), validated."""
    return stored_yaml(repository.owner.yaml, f"owner {repository.owner_id}")


def _mirror_file(repository: Repository, sha: str) -> Optional[tuple[Optional[str], Optional[bytes]]]:
    """``(path, bytes)`` of the commit's ``codecov.yml`` in the git mirror (``(None, None)`` if it has
    none), or ``None`` when there is no mirror or it cannot tell."""
    git_dir = git_mirror.mirror(repository)
    return git_mirror.first_file(git_dir, sha, PLACES, MAX_YAML_BYTES) if git_dir is not None else None


def _provider_file(repository: Repository, sha: str) -> tuple[Optional[str], Optional[bytes]]:
    """``(path, bytes)`` of the commit's ``codecov.yml`` read from the provider (``(None, None)`` if it
    has none, or no provider is configured). Raises :class:`~flask_coverage.providers.ProviderError`
    if the provider could not answer."""
    provider = provider_for(repository)
    if provider is None:
        return None, None
    for path in PLACES:
        data = provider.read_file(repository, sha, path)
        if data is not None:
            return path, data
    return None, None


def _columns(path: Optional[str], data: Optional[bytes]) -> dict[str, Any]:
    """What a commit's ``codecov.yml`` (``data`` at ``path``, ``None`` without one) says, as the columns
    of its :class:`~flask_coverage.models.CommitYaml` row (``path``, ``settings``, ``error``)."""
    settings = error = None
    if data is not None:
        try:
            validated = parse(data)
            settings = None if validated is None else json.dumps(validated.value)
        except YamlError as invalid:
            error = f"{path}: {invalid}"
    return {"path": path, "settings": settings, "error": error}


def local_commit_yaml(repository: Repository, sha: str) -> Optional[dict[str, Any]]:
    """The :class:`~flask_coverage.models.CommitYaml` columns of the commit's ``codecov.yml`` from the
    git mirror alone (what an upload may read), or ``None`` when the mirror cannot tell."""
    found = _mirror_file(repository, sha)
    return None if found is None else _columns(*found)


def read_commit_yaml(repository: Repository, sha: str) -> dict[str, Any]:
    """The :class:`~flask_coverage.models.CommitYaml` columns of the commit's ``codecov.yml``: from the
    git mirror, else from the provider. Raises :class:`~flask_coverage.providers.ProviderError` if the
    provider could not answer."""
    return local_commit_yaml(repository, sha) or _columns(*_provider_file(repository, sha))


def _stored(commit_id: int) -> Optional[CommitYaml]:
    return execute(sa.select(CommitYaml).where(CommitYaml.commit_id == commit_id)).scalar()


def store_commit_yaml(commit_id: int, values: dict[str, Any]) -> None:
    """Keep what a commit's ``codecov.yml`` says (:func:`read_commit_yaml`), unless it is kept already;
    in the caller's transaction."""
    execute(dialect_insert(CommitYaml.__table__).values(commit_id=commit_id, **values).on_conflict_do_nothing())


def commit_yaml(repository: Repository, commit: Commit) -> CommitYaml:
    """What the commit's own ``codecov.yml`` says, read and stored on first use. A provider that could
    not answer is not stored: the next use asks again."""
    stored = _stored(commit.id)
    if stored is not None:
        return stored
    try:
        values = read_commit_yaml(repository, commit.sha)
    except ProviderError as failed:
        return CommitYaml(commit_id=commit.id, error=f"The codecov.yml could not be read from the provider: {failed}")
    store_commit_yaml(commit.id, values)
    get_session().commit()
    return _stored(commit.id) or CommitYaml(commit_id=commit.id, **values)


def _applying(repository: Repository, own: Optional[str], path: Optional[str], error: Optional[str]) -> Settings:
    """The settings of a commit whose own file says ``own`` (JSON, ``None`` without a valid file): the
    defaults, under the owner's stored YAML, under the commit's file or else the repository's stored
    YAML (Codecov's order)."""
    organization = owner_yaml(repository)
    if own is not None:
        return Settings(merged(DEFAULTS, organization, json.loads(own)), path or "", error)
    stored = repository_yaml(repository)
    source = "repository" if stored else "owner" if organization else "defaults"
    return Settings(merged(DEFAULTS, organization, stored), source, error)


def stored_settings(repository: Repository, commit: Optional[Commit]) -> Settings:
    """The YAML that applies to ``commit`` as far as what is stored here says (the commit's kept file,
    else the repository's or owner's YAML), read without asking anyone or writing anything: what a
    page reads to decide what to show."""
    own = _stored(commit.id) if commit is not None else None
    return _applying(repository, own.settings if own else None, own.path if own else None, None)


def commit_settings(repository: Repository, commit: Commit) -> Settings:
    """The YAML that applies to ``commit`` (see the module)."""
    own = commit_yaml(repository, commit)
    return _applying(repository, own.settings, own.path, own.error)


def upload_settings(repository: Repository, sha: str) -> tuple[Settings, Optional[dict[str, Any]]]:
    """The YAML that applies to an upload to the commit ``sha`` (which may not be stored yet), and the
    :class:`~flask_coverage.models.CommitYaml` columns to store with the upload (``None`` when they are
    stored already, or the git mirror cannot tell). Read before the upload's transaction, from what is
    here alone: the stored row, else the git mirror, else the repository's or owner's YAML (the
    provider is never asked: the feedback sender reads the commit's file later, :func:`commit_yaml`)."""
    query = (
        sa.select(CommitYaml)
        .join(Commit, Commit.id == CommitYaml.commit_id)
        .where(Commit.repository_id == repository.id, Commit.sha == sha)
    )
    stored = execute(query).scalar()
    if stored is not None:
        return _applying(repository, stored.settings, stored.path, stored.error), None
    values = local_commit_yaml(repository, sha)
    own = values or {}
    return _applying(repository, own.get("settings"), own.get("path"), own.get("error")), values
