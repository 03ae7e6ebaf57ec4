"""Users, organizations and memberships: ``add-user``, ``add-org``, ``add-member``, ``remove-member``."""

from __future__ import annotations

from typing import Optional

import click

from .. import operations
from .base import service_command


@service_command("add-user")
@click.argument("username")
@click.option("--name", help="Display name.")
@click.option("--email", help="Email address.")
def add_user_command(service: str, username: str, name: Optional[str], email: Optional[str]) -> None:
    """Create a user account."""
    user = operations.add_user(service, username, name=name, email=email)
    click.echo(f"Created user {user.service.value}/{user.username}.")


@service_command("add-org")
@click.argument("username")
@click.option("--name", help="Display name.")
def add_org_command(service: str, username: str, name: Optional[str]) -> None:
    """Create an organization."""
    org = operations.add_org(service, username, name=name)
    click.echo(f"Created organization {org.service.value}/{org.username}.")


@service_command("add-member")
@click.argument("org")
@click.argument("username")
@click.option("--activated", is_flag=True, help="The membership is activated.")
@click.option("--admin", is_flag=True, help="The member is an admin of the organization.")
def add_member_command(service: str, org: str, username: str, activated: bool, admin: bool) -> None:
    """Make a user a member of an organization."""
    membership = operations.add_member(service, org, username, activated=activated, admin=admin)
    click.echo(f"Added {membership.user.username} to {membership.org.username}.")


@service_command("remove-member")
@click.argument("org")
@click.argument("username")
def remove_member_command(service: str, org: str, username: str) -> None:
    """End a user's membership of an organization (its private repositories are closed to them at once)."""
    operations.remove_member(service, org, username)
    click.echo(f"Removed {username} from {org}.")
