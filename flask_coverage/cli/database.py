"""``flask coverage init-db`` and ``flask coverage demo``: the tables and the demo data set."""

from __future__ import annotations

import os
from typing import Optional

import click
from flask import current_app

from .. import demo, operations
from .base import coverage_cli, reports_errors


@coverage_cli.command("init-db")
@reports_errors
def init_db_command() -> None:
    """Create the coverage tables (safe to run again)."""
    trigram_index = operations.init_db()
    click.echo("Coverage tables are ready.")
    if trigram_index is False:
        click.echo(
            "No trigram index: the users list's search scans the members. A role that may create the "
            "pg_trgm extension can run 'flask coverage init-db' again (see docs/api.md)."
        )


@coverage_cli.command("demo")
@click.option(
    "--files",
    "generated_files",
    default=demo.DEMO_GENERATED_FILES,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Files in the generated repository globex/platform.",
)
@click.option(
    "--url",
    "server_url",
    metavar="URL",
    help="The server's URL in the printed curl line. Default: where flask run serves the app (SERVER_NAME,"
    " else FLASK_RUN_HOST and FLASK_RUN_PORT, else http://127.0.0.1:5000).",
)
@reports_errors
def demo_command(generated_files: int, server_url: Optional[str]) -> None:
    """Load the demo data set (safe to run again: it resets the demo to the same state)."""
    summary = demo.load_demo(generated_files=generated_files)
    click.echo(
        f"Demo data loaded: {summary.organizations} organizations, {summary.users} users,"
        f" {summary.memberships} memberships, {len(summary.repositories)} repositories,"
        f" {summary.commits} commits, {summary.files} files."
    )
    for slug in summary.repositories:
        click.echo(f"  {slug}")
    if summary.mirrors:
        click.echo(f"Git mirrors with the demo source (the file views show it): {summary.mirrors}")
    users_url = f"{current_app.config['COVERAGE_API_URL_PREFIX']}/{demo.DEMO_SERVICE.value}/acme/users/"
    base = (server_url or flask_run_url()).rstrip("/")
    click.echo(f"Access token {demo.DEMO_TOKEN_NAME!r} of {summary.token_user}, for the server at {base}:")
    click.echo(f"  curl -H 'Authorization: Bearer {summary.token}' {base}{users_url}")


def flask_run_url() -> str:
    """Where ``flask run`` serves the app: its ``SERVER_NAME``, else the host and port that ``flask run``
    reads from ``FLASK_RUN_HOST`` and ``FLASK_RUN_PORT`` (its defaults 127.0.0.1 and 5000)."""
    server_name = current_app.config.get("SERVER_NAME")
    if server_name:
        return f"{current_app.config.get('PREFERRED_URL_SCHEME') or 'http'}://{server_name}"
    host = os.environ.get("FLASK_RUN_HOST") or "127.0.0.1"
    return f"http://{host}:{os.environ.get('FLASK_RUN_PORT') or 5000}"
