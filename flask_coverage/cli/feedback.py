"""Pull-request feedback: ``set-yaml``, ``notify`` (docs/pull-requests.md)."""

from __future__ import annotations

from typing import IO, Optional

import click
from flask import current_app

from .. import operations
from ..codecov_yml.loader import MAX_YAML_BYTES
from ..errors import InvalidInput
from ..feedback.sender import POLL_SECONDS, Bell, loop, run_once
from .base import SERVICES_HELP, coverage_cli, reports_errors, split_names


@coverage_cli.command("set-yaml", epilog=SERVICES_HELP)
@click.argument("path", metavar="SERVICE/OWNER[/REPO]")
@click.argument("file", type=click.File("rb"), required=False)
@click.option("--clear", is_flag=True, help="Remove the stored YAML.")
@reports_errors
def set_yaml_command(path: str, file: Optional[IO[bytes]], clear: bool) -> None:
    """Store FILE (a codecov.yml; - for standard input) as the repository's YAML, e.g.
    ``set-yaml gh/acme/widgets codecov.yml``: the settings of its commits that have no codecov.yml of
    their own; its coverage.range becomes the graph and badge colour range. For an owner
    (``set-yaml gh/acme codecov.yml``): merged under the YAML of each of its repositories. It is
    validated first."""
    service, names = split_names((path,), ("OWNER", "REPO"), "SERVICE/OWNER[/REPO]", optional=True)
    if not names:
        raise InvalidInput("expected SERVICE/OWNER or SERVICE/OWNER/REPO (e.g. gh/acme or gh/acme/widgets)")
    if clear == (file is not None):
        raise InvalidInput("give a FILE to store, or --clear to remove the stored YAML")
    text = None
    if file is not None:
        data = file.read(MAX_YAML_BYTES + 1)
        try:
            text = data.decode("utf-8") if len(data) <= MAX_YAML_BYTES else None
        except UnicodeDecodeError:
            raise InvalidInput("the file is not UTF-8 text") from None
        if text is None:
            raise InvalidInput(f"the file is larger than {MAX_YAML_BYTES:,} bytes")
    if len(names) == 1:
        notes = operations.set_owner_yaml(service, names[0], text)
    else:
        notes = operations.set_repository_yaml(service, names[0], names[1], text)
    for note in notes:
        click.echo(f"Note: {note}")
    click.echo(f"Stored the YAML of {path.strip('/')}." if text else f"Removed the YAML of {path.strip('/')}.")


@coverage_cli.command("notify")
@click.option("--loop", "forever", is_flag=True, help="Keep sending as feedback falls due (a worker process).")
@reports_errors
def notify_command(forever: bool) -> None:
    """Send the commit statuses and pull-request comments the outbox holds that are due, then exit
    (--loop: keep going, as a worker of its own when COVERAGE_FEEDBACK_SENDER is False)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if forever:
        loop(app, Bell(), idle=None, poll=POLL_SECONDS)
        return
    total = 0
    while True:
        handled, _ = run_once(app)
        if not handled:
            break
        total += handled
    click.echo(f"Sent the feedback of {total} commit(s).")
