"""The compiled readers of ``flask_coverage/parsers/_speedups`` are built wherever the tests run.

Each ``*.c`` there is an optional extension (``setup.py``): an install without a C compiler still
works, with the Python readers. The tests of each format compare the two readers on the same reports
(the ``pure_python`` fixture); this file makes sure the compiled side of those comparisons exists, so a
build that silently fell back to Python fails here instead of passing by comparing Python with itself.
Where a reader was not built its tests skip, naming it, unless ``COVERAGE_SPEEDUPS=required`` (as in CI).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from compiled_readers import skip_unless_built

from flask_coverage.parsers import _speedups

SOURCES = sorted((Path(__file__).resolve().parents[2] / "flask_coverage" / "parsers" / "_speedups").glob("*.c"))


@pytest.mark.parametrize(
    "source", [pytest.param(source, marks=skip_unless_built(source.stem), id=source.stem) for source in SOURCES]
)
def test_each_compiled_reader_is_built(source: Path) -> None:
    assert _speedups.load(source.stem) is not None, f"{source.name} was not built: is a C compiler installed?"


def test_a_reader_that_was_not_built_is_none() -> None:
    assert _speedups.load("no_such_reader") is None
