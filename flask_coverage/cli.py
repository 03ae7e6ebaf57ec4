"""The operator CLI: ``flask --app <app> coverage ...``. Each command wraps :mod:`.operations`."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from typing import Any, BinaryIO, Callable, Optional, TypeVar

import click
from flask import current_app
from flask.cli import AppGroup
from sqlalchemy.exc import SQLAlchemyError

from . import demo, ingest, operations
from .errors import CoverageError, InvalidInput
from .lines import Totals
from .models import ServiceEnum
from .parsers import Skips
from .queries.repositories import list_tokens, require_owner
from .state import get_session

F = TypeVar("F", bound=Callable[..., Any])

#: Shown by ``--help`` of the group and of every command that takes a SERVICE.
SERVICES_HELP = f"SERVICE is one of {', '.join(service.value for service in ServiceEnum)}."

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


def service_command(name: str) -> Callable[[F], F]:
    """A command ``flask coverage NAME SERVICE ...``: the SERVICE argument first, then the arguments
    and options the function declares; errors are reported by :func:`reports_errors`."""

    def decorator(f: F) -> F:
        command = click.argument("service")(reports_errors(f))
        return coverage_cli.command(name, epilog=SERVICES_HELP)(command)  # type: ignore[return-value]

    return decorator


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


@service_command("remove-member")
@click.argument("org")
@click.argument("username")
def remove_member_command(service: str, org: str, username: str) -> None:
    """End a user's membership of an organization (its private repositories are closed to them at once)."""
    operations.remove_member(service, org, username)
    click.echo(f"Removed {username} from {org}.")


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


#: Reports at least this big show a progress bar even when stderr is not a terminal (CI logs).
PROGRESS_BAR_BYTES = 16 * 1024 * 1024


@coverage_cli.command("upload")
@click.argument("report")
@click.option("--repo", "slug", required=True, metavar="SERVICE/OWNER/REPO", help="e.g. github/acme/widgets")
@click.option("--commit", "sha", required=True, help="The full sha of the commit the report was made on.")
@click.option("--branch", help="Move this branch's tip to the commit.")
@click.option("--pr", "pullid", metavar="N", help="Move this pull request's tip to the commit.")
@click.option("--root", help="The checkout directory the report was written in; stripped from its paths.")
@click.option(
    "--format",
    "report_format",
    default="auto",
    show_default=True,
    metavar="auto|cobertura|coveragepy|lcov",
    help="The report format; auto detects it from the content.",
)
@click.option(
    "--flag",
    "flags",
    multiple=True,
    metavar="NAME",
    help="A flag of the upload (repeat for several): its coverage is kept per flag too.",
)
@reports_errors
def upload_command(
    report: str,
    slug: str,
    sha: str,
    branch: Optional[str],
    pullid: Optional[str],
    root: Optional[str],
    report_format: str,
    flags: tuple[str, ...],
) -> None:
    """Merge a coverage report (Cobertura XML, coverage.py JSON or LCOV; - for stdin) into a commit."""
    meta = ingest.UploadMeta.create(flags=flags)
    skips = Skips()
    try:
        source: BinaryIO = sys.stdin.buffer if report == "-" else open(report, "rb")  # noqa: SIM115
    except OSError as error:
        raise InvalidInput(f"cannot read {report}: {error.strerror}") from None
    with source, contextlib.ExitStack() as stack:
        size = os.fstat(source.fileno()).st_size if report != "-" else 0
        stderr = sys.stderr
        progress = None
        if size > 0 and (stderr.isatty() or size >= PROGRESS_BAR_BYTES):
            progress = stack.enter_context(
                click.progressbar(length=size, label=f"Reading {report}", file=stderr)
            ).update
        commit = ingest.upload_report(
            slug,
            source,
            commit=sha,
            branch=branch,
            pullid=pullid,
            root=root,
            format=report_format,
            progress=progress,
            meta=meta,
            skips=skips,
        )
    repository = commit.repository
    totals = Totals.of(commit)
    click.echo(
        f"Uploaded {report} to {repository.owner.service.value}/{repository.owner.username}/{repository.name}"
        f" at {commit.sha}: {commit.files} files, {commit.lines} lines, {totals.coverage}% covered"
        f" (version {commit.version})."
    )
    if skips:
        click.echo(f"The report's odd lines were read as Codecov reads them: {skips.summary()}.")


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
