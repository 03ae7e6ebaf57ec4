"""Fixtures of the parser tests: the real reports in ``tests/data``, a per-file totals helper, and the
parsers without their compiled readers."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Callable

import pytest

from flask_coverage import parsers
from flask_coverage.lines import Totals
from flask_coverage.parsers import merge_by_path, parse_report

DATA = Path(__file__).resolve().parent.parent / "data"  # the real reports, with their README


@pytest.fixture
def report_bytes() -> Callable[[str], bytes]:
    """``report_bytes(name)``: the bytes of ``tests/data/<name>``."""

    def read(name: str) -> bytes:
        return (DATA / name).read_bytes()

    return read


@pytest.fixture
def file_totals() -> Callable[..., dict[str, Totals]]:
    """``file_totals(source, **options)``: path -> Totals of a parsed report, duplicates merged."""

    def totals(source: bytes, **options: object) -> dict[str, Totals]:
        merged = merge_by_path(parse_report(source, **options))  # type: ignore[arg-type]
        return {path: lines.totals() for path, lines in merged.items()}

    return totals


@pytest.fixture
def pure_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parsers as they run where no C compiler built ``parsers/_speedups``: each parser module's
    ``_compiled`` reader is None, so its Python code reads everything."""
    for info in pkgutil.iter_modules(parsers.__path__):
        module = importlib.import_module(f"{parsers.__name__}.{info.name}")
        if getattr(module, "_compiled", None) is not None:
            monkeypatch.setattr(module, "_compiled", None)
