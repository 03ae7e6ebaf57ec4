"""The compiled readers of ``flask_coverage/parsers/_speedups`` are built wherever the tests run.

Each ``*.c`` there is an optional extension (``setup.py``): an install without a C compiler still
works, with the Python readers. The tests of each format compare the two readers on the same reports
(the ``pure_python`` fixture); this file makes sure the compiled side of those comparisons exists, so a
build that silently fell back to Python fails here instead of passing by comparing Python with itself.
COVERAGE_SPEEDUPS=optional lets the suite run on a machine without a compiler.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flask_coverage.parsers import _speedups

SOURCES = sorted((Path(__file__).resolve().parents[2] / "flask_coverage" / "parsers" / "_speedups").glob("*.c"))


@pytest.mark.parametrize("source", SOURCES, ids=[source.stem for source in SOURCES])
def test_each_compiled_reader_is_built(source: Path) -> None:
    if os.environ.get("COVERAGE_SPEEDUPS") == "optional":
        pytest.skip("COVERAGE_SPEEDUPS=optional: the Python readers may stand in")
    assert _speedups.load(source.stem) is not None, f"{source.name} was not built: is a C compiler installed?"


def test_a_reader_that_was_not_built_is_none() -> None:
    assert _speedups.load("no_such_reader") is None
