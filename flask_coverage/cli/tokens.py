"""Access tokens of users: ``create-token``, ``revoke-token``, ``list-tokens``."""

from __future__ import annotations

import click

from .. import operations
from ..queries.repositories import list_tokens, require_owner
from .base import service_command


@service_command("create-token")
@click.argument("username")
@click.option("--name", required=True, help="A name to recognise the token by.")
def create_token_command(service: str, username: str, name: str) -> None:
    """Create an access token; it is printed once, alone on the last line."""
    row, token = operations.create_token(service, username, name=name)
    click.echo(f"Created access token {row.name!r} for {row.owner.username}. It is shown only once:")
    click.echo(token)


@service_command("revoke-token")
@click.argument("username")
@click.option("--name", required=True, help="The name of the token to revoke.")
def revoke_token_command(service: str, username: str, name: str) -> None:
    """Revoke (delete) an access token."""
    operations.revoke_token(service, username, name=name)
    click.echo(f"Revoked access token {name!r}.")


@service_command("list-tokens")
@click.argument("username")
def list_tokens_command(service: str, username: str) -> None:
    """List a user's access tokens: name, created, last used (never the secret)."""
    tokens = list_tokens(require_owner(service, username))
    if not tokens:
        click.echo(f"{username} has no access tokens.")
    for token in tokens:
        used = f"{token.last_used:%Y-%m-%d %H:%M} UTC" if token.last_used else "never"
        click.echo(f"{token.name}\tcreated {token.created_at:%Y-%m-%d %H:%M} UTC\tlast used {used}")
