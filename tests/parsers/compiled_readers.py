"""What the tests of the compiled readers share: a report read in chunks by a parser module, with its
compiled reader and without it (``parsers/_speedups``, docs/parsing.md#compiled-readers)."""

from __future__ import annotations

import os
from types import ModuleType
from typing import Dict, List, Tuple
from unittest import mock

import pytest

from flask_coverage.errors import ReportError
from flask_coverage.parsers import ParseContext, Skips, _speedups


def _not_built_reason(name: str) -> str:
    return f"parsers/_speedups/{name}.c was not built: no C compiler at install (COVERAGE_SPEEDUPS=required fails)"


def _may_skip() -> bool:
    return os.environ.get("COVERAGE_SPEEDUPS") != "required"


def skip_unless_built(name: str) -> pytest.MarkDecorator:
    """Skips a test of the compiled reader ``name`` where it was not built (no C compiler at install),
    unless ``COVERAGE_SPEEDUPS=required`` (as in CI), where the test runs and fails."""
    return pytest.mark.skipif(_speedups.load(name) is None and _may_skip(), reason=_not_built_reason(name))


def require_built(module: ModuleType) -> None:
    """The same as :func:`skip_unless_built`, inside a test, for the reader of the parser ``module``."""
    if module._compiled is None and _may_skip():
        pytest.skip(
            f"{module.__name__}: its compiled reader was not built: no C compiler at install "
            "(COVERAGE_SPEEDUPS=required fails)"
        )


#: The files (path, entries), the skip counts and the error ("" for none) of one read.
Outcome = Tuple[List[Tuple[str, List[Tuple[int, int, int]]]], Dict[str, int], str]


def read(module: ModuleType, data: bytes, size: int = 1 << 20) -> Outcome:
    """``data`` read by ``module``'s parser in chunks of ``size`` bytes."""
    skips = Skips()
    files = []
    error = ""
    chunks = [data[k : k + size] for k in range(0, len(data), size)]
    try:
        for parsed in module.FORMAT.parse(chunks, ParseContext(skips=skips)):
            files.append((parsed.path, list(parsed.lines)))
    except ReportError as exc:
        error = str(exc)
    return files, dict(skips.counts), error


def both_ways(module: ModuleType, data: bytes, size: int = 1 << 20) -> Tuple[Outcome, Outcome]:
    """``data`` read with ``module``'s compiled reader, then by its Python reader alone (as the
    ``pure_python`` fixture leaves it)."""
    compiled = read(module, data, size)
    with mock.patch.object(module, "_compiled", None):
        return compiled, read(module, data, size)
