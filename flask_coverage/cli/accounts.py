"""Users, organizations and memberships: ``add-user``, ``add-org``, ``list-owners``, ``delete-user``,
``delete-org``, ``add-member``, ``set-member``, ``list-members``, ``remove-member``."""

from __future__ import annotations

from typing import Optional

import click

from .. import operations
from ..models import ServiceEnum
from ..queries.inventory import list_members, list_owners, owner_holdings
from ..queries.repositories import require_owner
from .base import (
    SERVICES_HELP,
    confirm,
    coverage_cli,
    echo_rows,
    json_option,
    plural,
    reports_errors,
    service_command,
    split_names,
    yes_option,
)


@service_command("add-user", "USERNAME")
@click.option("--name", help="Display name.")
@click.option("--email", help="Email address.")
def add_user_command(service: ServiceEnum, username: str, name: Optional[str], email: Optional[str]) -> None:
    """Create a user account, e.g. gh/alice."""
    user = operations.add_user(service, username, name=name, email=email)
    click.echo(f"Created user {user.service.short}/{user.username}.")


@service_command("add-org", "ORG")
@click.option("--name", help="Display name.")
def add_org_command(service: ServiceEnum, org: str, name: Optional[str]) -> None:
    """Create an organization, e.g. gh/acme."""
    row = operations.add_org(service, org, name=name)
    click.echo(f"Created organization {row.service.short}/{row.username}.")


@coverage_cli.command("list-owners", epilog=SERVICES_HELP)
@click.argument("service", required=False)
@json_option
@reports_errors
def list_owners_command(service: Optional[str], as_json: bool) -> None:
    """List the users and organizations (of SERVICE if given), with their repositories and memberships."""
    rows = list_owners(split_names((service,), (), "SERVICE")[0] if service else None)
    echo_rows(rows, as_json, "No users or organizations.")


def _delete_owner(service: ServiceEnum, username: str, *, is_org: bool, yes: bool) -> None:
    owner = require_owner(service, username, is_org=is_org)
    held = owner_holdings(owner)
    kind = "organization" if is_org else "user"
    repositories = plural(held["repositories"], "repository", "repositories")
    memberships = plural(held["memberships"], "membership", "memberships")
    tokens = plural(held["access_tokens"], "access token", "access tokens")
    confirm(
        f"Delete {kind} {service.short}/{owner.username} with its {repositories} (and their coverage),"
        f" {memberships} and {tokens}?",
        yes,
    )
    (operations.delete_org if is_org else operations.delete_user)(service, owner.username)
    click.echo(f"Deleted {kind} {service.short}/{owner.username}.")


@service_command("delete-user", "USERNAME")
@yes_option
def delete_user_command(service: ServiceEnum, username: str, yes: bool) -> None:
    """Delete a user with its repositories (and their coverage), memberships and access tokens."""
    _delete_owner(service, username, is_org=False, yes=yes)


@service_command("delete-org", "ORG")
@yes_option
def delete_org_command(service: ServiceEnum, org: str, yes: bool) -> None:
    """Delete an organization with its repositories (and their coverage) and memberships; the members'
    own accounts stay."""
    _delete_owner(service, org, is_org=True, yes=yes)


@service_command("add-member", "ORG", "USERNAME", metavar="SERVICE/ORG USERNAME")
@click.option(
    "--activated/--deactivated",
    default=True,
    help="The membership is activated (the default: it opens private repositories), or not (it opens nothing).",
)
@click.option("--admin", is_flag=True, help="The member is an admin of the organization.")
def add_member_command(service: ServiceEnum, org: str, username: str, activated: bool, admin: bool) -> None:
    """Make a user an activated member of an organization, e.g. gh/acme alice (--deactivated: a member who
    sees nothing of it until activated)."""
    membership = operations.add_member(service, org, username, activated=activated, admin=admin)
    user, org_name = membership.user.username, membership.org.username
    if membership.activated:
        click.echo(f"Added {user} to {org_name}.")
        return
    # Nothing says why a deactivated member gets 404s: say it here, with the way out.
    click.echo(
        f"Added {user} to {org_name}, deactivated: {user} sees nothing of {org_name} (its private "
        f"repositories, its members: 404) until activated with\n"
        f"  flask coverage set-member {service.short}/{org_name} {user} --activated"
    )


@service_command("set-member", "ORG", "USERNAME", metavar="SERVICE/ORG USERNAME")
@click.option("--activated/--deactivated", default=None, help="Activate the membership, or deactivate it.")
@click.option("--admin/--no-admin", default=None, help="Make the member an admin, or not.")
def set_member_command(
    service: ServiceEnum, org: str, username: str, activated: Optional[bool], admin: Optional[bool]
) -> None:
    """Change a membership, e.g. gh/acme alice --activated --admin (an option not given is left as it is)."""
    membership = operations.set_member(service, org, username, activated=activated, admin=admin)
    state = "activated" if membership.activated else "not activated"
    role = "admin" if membership.is_admin else "not admin"
    click.echo(f"{membership.user.username} in {membership.org.username}: {state}, {role}.")


@service_command("list-members", "ORG")
@json_option
def list_members_command(service: ServiceEnum, org: str, as_json: bool) -> None:
    """List the members of an organization, e.g. gh/acme: activated, admin."""
    rows = list_members(require_owner(service, org, is_org=True))
    echo_rows(rows, as_json, f"{org} has no members.")


@service_command("remove-member", "ORG", "USERNAME", metavar="SERVICE/ORG USERNAME")
def remove_member_command(service: ServiceEnum, org: str, username: str) -> None:
    """End a user's membership of an organization (its private repositories are closed to them at once)."""
    operations.remove_member(service, org, username)
    click.echo(f"Removed {username} from {org}.")
