"""What every command module of the operator CLI builds on: the ``flask coverage`` group, the one way
errors are reported, and the decorator of commands that name a service."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

import click
from flask.cli import AppGroup
from sqlalchemy.exc import SQLAlchemyError

from ..errors import CoverageError
from ..models import ServiceEnum
from ..state import get_session

F = TypeVar("F", bound=Callable[..., Any])

#: Shown by ``--help`` of the group and of every command that takes a SERVICE.
SERVICES_HELP = f"SERVICE is one of {', '.join(service.value for service in ServiceEnum)}."

coverage_cli = AppGroup("coverage", help=f"Manage the coverage service. {SERVICES_HELP}")


def reports_errors(f: F) -> F:
    """Turn a service error into one line on stderr and exit status 1, after a rollback."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except CoverageError as e:
            get_session().rollback()
            raise click.ClickException(str(e)) from None
        except SQLAlchemyError as e:
            get_session().rollback()
            reason = str(getattr(e, "orig", None) or e).splitlines()[0]
            raise click.ClickException(f"database error: {reason} (did you run 'flask coverage init-db'?)") from None

    return wrapper  # type: ignore[return-value]


def service_command(name: str) -> Callable[[F], F]:
    """A command ``flask coverage NAME SERVICE ...``: the SERVICE argument first, then the arguments
    and options the function declares; errors are reported by :func:`reports_errors`."""

    def decorator(f: F) -> F:
        command = click.argument("service")(reports_errors(f))
        return coverage_cli.command(name, epilog=SERVICES_HELP)(command)  # type: ignore[return-value]

    return decorator
