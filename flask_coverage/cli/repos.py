"""Repositories: ``add-repo``, ``rotate-token``, ``delete-repo``."""

from __future__ import annotations

from typing import Optional

import click

from .. import operations
from ..errors import InvalidInput
from .base import service_command


@service_command("add-repo")
@click.argument("owner")
@click.argument("repo")
@click.option("--private", is_flag=True, help="Only members may read it; graphs need the graph token.")
@click.option("--branch", default="main", show_default=True, help="The default branch.")
@click.option("--language", help="The main language, shown next to the repository (e.g. python).")
def add_repo_command(service: str, owner: str, repo: str, private: bool, branch: str, language: Optional[str]) -> None:
    """Create a repository of an existing user or organization and print its upload and graph tokens."""
    repository = operations.add_repo(service, owner, repo, private=private, branch=branch, language=language)
    click.echo(f"upload_token={repository.upload_token}")
    click.echo(f"graph_token={repository.image_token}")


@service_command("rotate-token")
@click.argument("owner")
@click.argument("repo")
@click.option("--upload", is_flag=True, help="Replace the upload token.")
@click.option("--graph", is_flag=True, help="Replace the graph token.")
def rotate_token_command(service: str, owner: str, repo: str, upload: bool, graph: bool) -> None:
    """Replace a repository's upload or graph token and print the new one; the old one stops at once."""
    if upload == graph:
        raise InvalidInput("say which one token to replace: --upload or --graph")
    kind = "upload" if upload else "graph"
    token = operations.rotate_token(service, owner, repo, kind=kind)
    click.echo(f"{kind}_token={token}")


@service_command("delete-repo")
@click.argument("owner")
@click.argument("repo")
def delete_repo_command(service: str, owner: str, repo: str) -> None:
    """Delete a repository and all its coverage (commits, files, branches, pulls, uploads)."""
    operations.delete_repo(service, owner, repo)
    click.echo(f"Deleted {owner}/{repo} and its coverage.")
