"""Access tokens of users: ``create-token``, ``revoke-token``, ``list-tokens``."""

from __future__ import annotations

import click

from .. import operations
from ..models import ServiceEnum, utc_iso
from ..queries.repositories import list_tokens, require_owner
from .base import echo_json, json_option, service_command


@service_command("create-token", "USERNAME")
@click.option("--name", required=True, help="A name to recognise the token by.")
def create_token_command(service: ServiceEnum, username: str, name: str) -> None:
    """Create an access token; it is printed once, alone on the last line."""
    row, token = operations.create_token(service, username, name=name)
    click.echo(f"Created access token {row.name!r} for {row.owner.username}. It is shown only once:")
    click.echo(token)


@service_command("revoke-token", "USERNAME")
@click.option("--name", required=True, help="The name of the token to revoke.")
def revoke_token_command(service: ServiceEnum, username: str, name: str) -> None:
    """Revoke (delete) an access token."""
    operations.revoke_token(service, username, name=name)
    click.echo(f"Revoked access token {name!r}.")


@service_command("list-tokens", "USERNAME")
@json_option
def list_tokens_command(service: ServiceEnum, username: str, as_json: bool) -> None:
    """List a user's access tokens: name, created, last used (never the secret)."""
    tokens = list_tokens(require_owner(service, username))
    if as_json:
        echo_json(
            [
                {"name": t.name, "created_at": utc_iso(t.created_at), "last_used": t.last_used and utc_iso(t.last_used)}
                for t in tokens
            ]
        )
        return
    if not tokens:
        click.echo(f"{username} has no access tokens.")
    for token in tokens:
        used = f"{token.last_used:%Y-%m-%d %H:%M} UTC" if token.last_used else "never"
        click.echo(f"{token.name}\tcreated {token.created_at:%Y-%m-%d %H:%M} UTC\tlast used {used}")
