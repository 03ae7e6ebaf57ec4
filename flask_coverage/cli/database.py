"""``flask coverage init-db`` and ``flask coverage demo``: the tables and the demo data set."""

from __future__ import annotations

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
@reports_errors
def demo_command(generated_files: int) -> None:
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
    click.echo(f"Access token {demo.DEMO_TOKEN_NAME!r} of {summary.token_user} (with flask run):")
    click.echo(f"  curl -H 'Authorization: Bearer {summary.token}' http://127.0.0.1:5000{users_url}")
