"""Repositories: ``add-repo``, ``list-repos``, ``show-repo``, ``set-repo``, ``rotate-token``, ``webhook-secret``,
``delete-repo``."""

from __future__ import annotations

from typing import Optional

import click

from .. import operations
from ..errors import InvalidInput
from ..models import ServiceEnum
from ..queries.inventory import list_repositories, show_repository
from ..queries.repositories import require_owner, require_repository
from .base import (
    SERVICES_HELP,
    cell,
    confirm,
    coverage_cli,
    echo_json,
    echo_rows,
    json_option,
    reports_errors,
    service_command,
    split_names,
    yes_option,
)


@service_command("add-repo", "OWNER", "REPO")
@click.option("--private", is_flag=True, help="Only members may read it; graphs need the graph token.")
@click.option("--branch", default="main", show_default=True, help="The default branch.")
@click.option("--language", help="The main language, shown next to the repository (e.g. python).")
def add_repo_command(
    service: ServiceEnum, owner: str, repo: str, private: bool, branch: str, language: Optional[str]
) -> None:
    """Create a repository of an existing user or organization, e.g. gh/acme/widgets, and print its upload
    and graph tokens (show-repo prints them again)."""
    repository = operations.add_repo(service, owner, repo, private=private, branch=branch, language=language)
    click.echo(f"upload_token={repository.upload_token}")
    click.echo(f"graph_token={repository.image_token}")


@coverage_cli.command("list-repos", epilog=SERVICES_HELP)
@click.argument("path", required=False, metavar="[SERVICE[/OWNER]]")
@click.option("--deleted", is_flag=True, help="List the deleted repositories too.")
@json_option
@reports_errors
def list_repos_command(path: Optional[str], deleted: bool, as_json: bool) -> None:
    """List the repositories (of a service, e.g. gh, or of an owner, e.g. gh/acme): settings, and the
    coverage of the default branch's tip."""
    service, names = split_names((path,), ("OWNER",), "SERVICE[/OWNER]", optional=True) if path else (None, [])
    owner = require_owner(service, names[0]) if service is not None and names else None
    rows = list_repositories(service, owner, deleted=deleted)
    echo_rows(rows, as_json, "No repositories.")


@service_command("show-repo", "OWNER", "REPO")
@json_option
def show_repo_command(service: ServiceEnum, owner: str, repo: str, as_json: bool) -> None:
    """Show a repository, e.g. gh/acme/widgets: its settings, its upload and graph tokens (nothing is
    rotated), what it holds and its default branch's tip."""
    shown = show_repository(require_repository(service, owner, repo))
    if as_json:
        echo_json(shown)
        return
    tip = shown.pop("tip")
    for key, value in shown.items():
        click.echo(f"{key}: {cell(value)}")
    click.echo("tip: -" if tip is None else f"tip: {tip['sha']} ({tip['coverage']}% of {tip['files']} files)")


@service_command("set-repo", "OWNER", "REPO")
@click.option("--private/--public", default=None, help="Only members may read it, or anyone may.")
@click.option("--branch", help="The default branch (what pages, graphs and badges show when none is named).")
@click.option("--language", help="The main language (an empty value clears it).")
@click.option("--active/--inactive", default=None, help="Listed as active or not (uploads are taken either way).")
def set_repo_command(
    service: ServiceEnum,
    owner: str,
    repo: str,
    private: Optional[bool],
    branch: Optional[str],
    language: Optional[str],
    active: Optional[bool],
) -> None:
    """Change a repository's settings, e.g. gh/acme/widgets --private (an option not given is left as it is)."""
    repository = operations.set_repo(
        service, owner, repo, private=private, branch=branch, language=language, active=active
    )
    visibility = "private" if repository.private else "public"
    state = "active" if repository.active else "inactive"
    click.echo(
        f"{service.short}/{repository.owner.username}/{repository.name}: {visibility}, {state}, default branch"
        f" {repository.branch}, language {repository.language or '-'}."
    )


@service_command("rotate-token", "OWNER", "REPO")
@click.option("--upload", is_flag=True, help="Replace the upload token.")
@click.option("--graph", is_flag=True, help="Replace the graph token.")
@click.option("--webhook", is_flag=True, help="Replace the webhook secret.")
def rotate_token_command(service: ServiceEnum, owner: str, repo: str, upload: bool, graph: bool, webhook: bool) -> None:
    """Replace a repository's upload or graph token or webhook secret and print the new one; the old one
    stops at once."""
    if upload + graph + webhook != 1:
        raise InvalidInput("say which one to replace: --upload or --graph (a token), or --webhook (the webhook secret)")
    kind = "upload" if upload else "graph" if graph else "webhook"
    token = operations.rotate_token(service, owner, repo, kind=kind)
    click.echo(f"{kind}_secret={token}" if webhook else f"{kind}_token={token}")


@service_command("webhook-secret", "OWNER", "REPO")
def webhook_secret_command(service: ServiceEnum, owner: str, repo: str) -> None:
    """Print the secret of a repository's own pull-request webhooks (made on first request)."""
    click.echo(f"webhook_secret={operations.webhook_secret(service, owner, repo)}")


@service_command("delete-repo", "OWNER", "REPO")
@yes_option
def delete_repo_command(service: ServiceEnum, owner: str, repo: str, yes: bool) -> None:
    """Delete a repository and all its coverage (commits, files, branches, pulls, uploads)."""
    repository = require_repository(service, owner, repo)
    name = f"{service.short}/{repository.owner.username}/{repository.name}"
    confirm(f"Delete {name} and all its coverage?", yes)
    operations.delete_repo(service, owner, repo)
    click.echo(f"Deleted {repository.owner.username}/{repository.name} and its coverage.")
