"""Which ``codecov.yml`` applies to a commit (docs/pull-requests.md, "Where the YAML comes from").

The file at the commit, looked for as Codecov does: ``codecov.yml``, ``.codecov.yml``,
``codecov.yaml``, ``.codecov.yaml`` at the root, then in ``dev/`` and ``.github/``; read from the git
mirror, else through the provider's ``read_file``. A commit without one takes the repository's
stored YAML (``flask coverage set-yaml``). Either is merged over :data:`~.codecov_yml.DEFAULTS`. An
invalid file at a commit is ignored whole (the repository's YAML applies) and its error is kept
with the commit, for its page and the API to show. What a commit's file said is read once and
stored (:class:`~flask_coverage.models.CommitYaml`): a sha's files never change.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Optional

import sqlalchemy as sa

from ..models import Commit, CommitYaml, Repository
from ..providers import ProviderError, provider_for
from ..state import dialect_insert, execute, get_session
from . import git
from .codecov_yml import DEFAULTS, MAX_YAML_BYTES, YamlError, merged, parse
from .statuses import Numbers

log = logging.getLogger(__name__)

NAMES = ("codecov.yml", ".codecov.yml", "codecov.yaml", ".codecov.yaml")
#: Where a commit's ``codecov.yml`` is looked for, in order.
PLACES = tuple(folder + name for folder in ("", "dev/", ".github/") for name in NAMES)


@dataclass
class Settings:
    """The YAML that applies to a commit: ``value`` (merged over the defaults), where it came from
    (``source``: a path at the commit, ``"repository"`` or ``"defaults"``), and the ``error`` of the
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


def repository_yaml(repository: Repository) -> Optional[dict[str, Any]]:
    """The repository's stored YAML, validated (it was valid when stored; ``None`` if there is none)."""
    if not repository.yaml:
        return None
    try:
        validated = parse(repository.yaml)
    except YamlError:
        log.warning("the stored YAML of repository %s no longer validates", repository.id)
        return None
    return None if validated is None else validated.value


def read_commit_file(repository: Repository, sha: str) -> tuple[Optional[str], Optional[bytes]]:
    """``(path, bytes)`` of the commit's ``codecov.yml`` (``(None, None)`` if it has none). Raises
    :class:`~flask_coverage.providers.ProviderError` if the provider could not answer."""
    git_dir = git.mirror(repository)
    if git_dir is not None and git.has_commit(git_dir, sha):
        found = git.first_file(git_dir, sha, PLACES, MAX_YAML_BYTES)
        return found if found is not None else (None, None)
    provider = provider_for(repository)
    if provider is None:
        return None, None
    for path in PLACES:
        data = provider.read_file(repository, sha, path)
        if data is not None:
            return path, data
    return None, None


def _stored(commit_id: int) -> Optional[CommitYaml]:
    return execute(sa.select(CommitYaml).where(CommitYaml.commit_id == commit_id)).scalar()


def commit_yaml(repository: Repository, commit: Commit) -> CommitYaml:
    """What the commit's own ``codecov.yml`` says, read and stored on first use. A provider that could
    not answer is not stored: the next use asks again."""
    stored = _stored(commit.id)
    if stored is not None:
        return stored
    try:
        path, data = read_commit_file(repository, commit.sha)
    except ProviderError as failed:
        return CommitYaml(commit_id=commit.id, error=f"The codecov.yml could not be read from the provider: {failed}")
    settings = error = None
    if data is not None:
        try:
            validated = parse(data)
            settings = None if validated is None else json.dumps(validated.value)
        except YamlError as invalid:
            error = f"{path}: {invalid}"
    values = {"commit_id": commit.id, "path": path, "settings": settings, "error": error}
    execute(dialect_insert(CommitYaml.__table__).values(**values).on_conflict_do_nothing())
    get_session().commit()
    return _stored(commit.id) or CommitYaml(**values)


def commit_settings(repository: Repository, commit: Commit) -> Settings:
    """The YAML that applies to ``commit`` (see the module)."""
    own = commit_yaml(repository, commit)
    if own.settings is not None:
        return Settings(merged(DEFAULTS, json.loads(own.settings)), own.path or "", own.error)
    stored = repository_yaml(repository)
    return Settings(merged(DEFAULTS, stored), "repository" if stored else "defaults", own.error)
