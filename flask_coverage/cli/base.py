"""What every command module of the operator CLI builds on: the ``flask coverage`` group, the one way
errors are reported, the one way things are named (the path of the web URLs, ``gh/acme/widgets``),
the ``--json`` output and the confirmation of destructive commands."""

from __future__ import annotations

import functools
import json
from typing import Any, Callable, TypeVar

import click
from flask.cli import AppGroup
from sqlalchemy.exc import SQLAlchemyError

from ..errors import CoverageError, InvalidInput
from ..identifiers import parse_service
from ..models import SERVICE_BY_SHORT, ServiceEnum
from ..state import get_session

F = TypeVar("F", bound=Callable[..., Any])

#: Shown by ``--help`` of the group and of every command that names a service.
SERVICES_HELP = (
    f"SERVICE is one of {', '.join(service.value for service in ServiceEnum)}, or its prefix in the web URLs"
    f" ({', '.join(SERVICE_BY_SHORT)}): gh/acme/widgets names the repository at /gh/acme/widgets."
)

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


def split_names(
    arguments: tuple[str, ...], names: tuple[str, ...], metavar: str, *, optional: bool = False
) -> tuple[ServiceEnum, list[str]]:
    """The service and the ``names`` that the command line's ``arguments`` give, as one path
    (``gh/acme widgets``, ``gh/acme/widgets``) or as separate words (``github acme widgets``, the form of the
    first versions, still read). With ``optional``, trailing names may be left out (``gh`` or ``gh/acme``)."""
    # A path copied from an address bar may start or end with "/".
    parts = [
        part for argument in arguments for part in (argument.strip("/") if "/" in argument else argument).split("/")
    ]
    if not (1 if optional else len(names) + 1) <= len(parts) <= len(names) + 1:
        given = " ".join(arguments)
        raise InvalidInput(f"expected {metavar} (e.g. {_EXAMPLES[len(names)]}), not {given!r}")
    return parse_service(parts[0], short=True), parts[1:]


_EXAMPLES = {0: "gh", 1: "gh/acme", 2: "gh/acme/widgets"}


def service_command(name: str, *names: str, metavar: str = "") -> Callable[[F], F]:
    """A command ``flask coverage NAME SERVICE/NAME/...``: the function gets the service and each of
    ``names`` (e.g. ``"OWNER", "REPO"``) as its first arguments, then the options it declares; errors
    are reported by :func:`reports_errors`. ``metavar`` is the usage's spelling of the path
    (``SERVICE/OWNER/REPO`` by default)."""
    metavar = metavar or "/".join(("SERVICE", *names))

    def decorator(f: F) -> F:
        @functools.wraps(f)
        def command(path: tuple[str, ...], **options: Any) -> Any:
            service, values = split_names(path, names, metavar)
            return f(service, *values, **options)

        argument = click.argument("path", nargs=-1, required=True, metavar=metavar)
        return coverage_cli.command(name, epilog=SERVICES_HELP)(argument(reports_errors(command)))  # type: ignore[return-value]

    return decorator


#: ``--json``: print what a command reads as JSON, for scripts.
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON (for scripts) instead of text.")
#: ``--yes``: a destructive command does not ask first.
yes_option = click.option("--yes", is_flag=True, help="Do not ask for confirmation.")


def confirm(question: str, yes: bool) -> None:
    """Ask ``question`` unless ``yes``; anything but yes aborts the command (exit status 1, nothing changed)."""
    if not yes:
        click.confirm(question, abort=True, err=True)


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2))


def echo_rows(rows: list[dict[str, Any]], as_json: bool, empty: str) -> None:
    """``rows`` as a JSON list, or as aligned columns under a header of their keys (``-`` for nothing),
    or ``empty`` when there are none."""
    if as_json:
        echo_json(rows)
    elif not rows:
        click.echo(empty)
    else:
        _echo_table(rows)


def _echo_table(rows: list[dict[str, Any]]) -> None:
    columns = list(rows[0])
    cells = [columns] + [[cell(row[column]) for column in columns] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    for line in cells:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())


def plural(count: int, one: str, many: str) -> str:
    """``1 repository``, ``2 repositories``."""
    return f"{count} {one if count == 1 else many}"


def cell(value: Any) -> str:
    """A value as the text output shows it: ``-`` for nothing, ``yes``/``no`` for a boolean."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
