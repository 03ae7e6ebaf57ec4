"""The compiled readers of ``flask_coverage/parsers/_speedups/`` (docs/parsing.md#compiled-readers).

Each ``*.c`` file there is one optional extension module, built with the header they share
(``common.h``, a dependency: a change to it rebuilds every reader): built when a C compiler is at hand, else the
package installs without it and the parsers read every report with their Python readers (slower, the
same results). Everything else about the package is in ``setup.cfg``.
"""

from pathlib import Path

from setuptools import Extension, setup

SPEEDUPS = Path("flask_coverage", "parsers", "_speedups")
HEADERS = [header.as_posix() for header in sorted(SPEEDUPS.glob("*.h"))]

setup(
    ext_modules=[
        Extension(
            f"flask_coverage.parsers._speedups.{source.stem}", [source.as_posix()], depends=HEADERS, optional=True
        )
        for source in sorted(SPEEDUPS.glob("*.c"))
    ]
)
