"""Compiled readers of the well-formed case of some report formats (docs/parsing.md#compiled-readers).

Each ``<name>.c`` here is built into the extension module ``<name>`` when the package is installed with
a C compiler at hand (``setup.py``). A parser asks for its reader with :func:`load` once, at import,
and reads with it only what the reader accepts: the reader returns None for anything it does not take
whole (an odd line, a number out of range), and the parser then reads that part with its own Python
code, which has the exact rules, skips and errors. Without the module (no compiler), the Python code
reads everything: the same results, more slowly.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Optional

__all__ = ["load"]


def load(name: str) -> Optional[ModuleType]:
    """The compiled reader ``name``, or None where it was not built."""
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError:
        return None
