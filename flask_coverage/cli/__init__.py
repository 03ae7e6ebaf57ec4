"""The operator CLI: ``flask --app <app> coverage ...``. Each command wraps :mod:`..operations` or a
query of :mod:`..queries`.

One module per group of commands; :mod:`.base` holds the group (``coverage_cli``), the error
reporting (``reports_errors``) and ``service_command``. To add commands: write ``cli/<topic>.py``
with functions decorated by ``@service_command("name")`` (or ``@coverage_cli.command`` and
``@reports_errors``), and add the module to the import below, which registers them.
"""

from __future__ import annotations

from . import accounts, database, feedback, repos, sync, tokens, upload  # noqa: F401  (importing registers the commands)
from .base import SERVICES_HELP, coverage_cli, reports_errors, service_command

__all__ = ["SERVICES_HELP", "coverage_cli", "reports_errors", "service_command"]
