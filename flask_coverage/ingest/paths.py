"""An upload's paths made the repository's: the codecov.yml's ``fixes`` rewrite them, the uploader's
file list (else the git mirror's tree, else the files already known) places them, the uploader's fixes
take lines that are not code out, and the codecov.yml's ``ignore`` (and its flags' ``ignore`` and
``paths``) leaves files out (docs/pull-requests.md)."""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from flask import current_app

from ..codecov_yml.paths import PathRules
from ..codecov_yml.settings import upload_settings
from ..errors import ReportError
from ..lines import LineCoverage
from ..models import Repository
from ..parsers import ParserSettings, Skips, place_by_network
from ..state import get_session
from .envelope import FileFix
from .reports import Packed, check_storable

#: The reason counted in an upload's skips for the files its codecov.yml ignores.
IGNORED_BY_YAML = "files the codecov.yml ignores, skipped"

log = logging.getLogger(__name__)


def path_rules(
    repository: Repository, sha: str, flags: tuple[str, ...]
) -> tuple[dict[str, Any], PathRules, ParserSettings, Optional[dict[str, Any]]]:
    """The codecov.yml in force at the commit (merged over the defaults), its ``ignore`` and ``fixes``
    for an upload with these ``flags``, its ``parsers:`` settings (what the reports read,
    docs/parsing.md), and the commit's YAML to store with the upload
    (:func:`~flask_coverage.codecov_yml.settings.upload_settings`). No settings, no rules and Codecov's
    parser defaults when it cannot be read: an upload never fails because of its YAML."""
    service = {"gcov_unexecuted_blocks": bool(current_app.config["COVERAGE_GCOV_UNEXECUTED_BLOCKS"])}
    try:
        settings, row = upload_settings(repository, sha)
    except Exception:
        log.exception("the codecov.yml of %s could not be read for its upload", sha[:12])
        get_session().rollback()
        return {}, PathRules(), ParserSettings.of({}, **service), None
    return settings.value, PathRules.of(settings.value, flags), ParserSettings.of(settings.value, **service), row


def prepared(
    files: dict[str, Packed],
    rules: PathRules,
    known: Iterable[str],
    fixes: Mapping[str, FileFix],
    skips: Skips,
) -> dict[str, Packed]:
    """``files`` under the repository's paths, in this order: the codecov.yml's fixes, then placement on
    ``known`` (two uploaders' spellings of a file end up as one path), then the uploader's ``fixes``,
    then the codecov.yml's ignore (counted in ``skips``). A ReportError if no file is left."""
    return _kept(_fixed(_placed(_rewritten(files, rules), known), fixes), rules, skips)


def _rewritten(files: dict[str, Packed], rules: PathRules) -> dict[str, Packed]:
    """``files`` under the paths the codecov.yml's ``fixes`` give them; a path a fix would make empty
    or climbing out of the repository keeps its name."""
    if not rules.fixes:
        return files
    out: dict[str, Packed] = {}
    for path, packed in files.items():
        fixed = posixpath.normpath(rules.fix(path))
        if fixed in ("", ".", "..") or fixed.startswith(("../", "/")):
            fixed = path
        check_storable(fixed)
        out[fixed] = out[fixed].merge(packed.coverage()) if fixed in out else packed
    return out


def _placed(files: dict[str, Packed], known: Iterable[str]) -> dict[str, Packed]:
    """``files`` with each path moved to the repository's file it names (:func:`place_by_network`)."""
    for old, new in place_by_network(files, known).items():
        check_storable(new)
        moved = files.pop(old)
        files[new] = moved if new not in files else files[new].merge(moved.coverage())
    return files


def _fixed(files: dict[str, Packed], fixes: Mapping[str, FileFix]) -> dict[str, Packed]:
    """``files`` without the lines the uploader says are not code; a file the fixes leave with no line
    is dropped. A ReportError if no file is left."""
    for path, (not_code, eof) in fixes.items():
        if path in files:
            kept = [e for e in files[path].coverage() if e[0] not in not_code and (eof is None or e[0] <= eof)]
            files[path] = Packed.of(LineCoverage(kept))
            if not kept:
                del files[path]
    if not files:
        raise ReportError("the upload has no files with coverage")
    return files


def _kept(files: dict[str, Packed], rules: PathRules, skips: Skips) -> dict[str, Packed]:
    """``files`` without those the codecov.yml ignores (counted in ``skips``)."""
    if not rules.keep:
        return files
    kept = {path: lines for path, lines in files.items() if rules.kept(path)}
    if len(kept) < len(files):
        skips.add(IGNORED_BY_YAML, len(files) - len(kept))
    return kept
