"""``flask coverage sync``: read a signed-in user's view from their git host again (docs/sign-in.md)."""

from __future__ import annotations

from typing import Optional

import click

from ..models import ServiceEnum
from ..sync import sync_owner
from .base import service_command


@service_command("sync", "OWNER", metavar="SERVICE/OWNER")
@click.option("--user", "member", metavar="NAME", help="Only this member of the organization.")
def sync_command(service: ServiceEnum, owner: str, member: Optional[str]) -> None:
    """Sync a user signed in with the git host, or every signed-in member of an organization, with
    their own stored token: organizations, roles, repositories and private access as the host says.
    A user whose sync fails keeps their previous permissions; the exit status is then 1."""
    failed = False
    for user, error in sync_owner(service, owner, member=member):
        if error is None:
            click.echo(f"Synced {user.username}.")
        else:
            failed = True
            click.echo(f"Not synced {user.username}: {error}", err=True)
    if failed:
        raise click.exceptions.Exit(1)
