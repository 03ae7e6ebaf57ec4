"""The operator's ``flask coverage upload`` command: a report file on disk merged into a commit, through
:func:`flask_coverage.ingest.upload_report` (the uploaders' HTTP protocols are ``blueprints/upload/``)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import BinaryIO, Optional

import click

from .. import ingest
from ..errors import InvalidInput
from ..lines import Totals
from ..parsers import FORMATS, Skips
from .base import coverage_cli, reports_errors

#: Reports at least this big show a progress bar even when stderr is not a terminal (CI logs).
PROGRESS_BAR_BYTES = 16 * 1024 * 1024


@coverage_cli.command("upload")
@click.argument("report")
@click.option("--repo", "slug", required=True, metavar="SERVICE/OWNER/REPO", help="e.g. gh/acme/widgets")
@click.option("--commit", "sha", required=True, help="The full sha of the commit the report was made on.")
@click.option("--branch", help="Move this branch's tip to the commit.")
@click.option("--pr", "pullid", metavar="N", help="Move this pull request's tip to the commit.")
@click.option("--root", help="The checkout directory the report was written in; stripped from its paths.")
@click.option(
    "--format",
    "report_format",
    default="auto",
    show_default=True,
    metavar="|".join(("auto", *FORMATS)),
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
    """Merge a coverage report (- for stdin) into a commit; --format lists every format read."""
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
        f"Uploaded {report} to {repository.owner.service.short}/{repository.owner.username}/{repository.name}"
        f" at {commit.sha}: {commit.files} files, {commit.lines} lines, {totals.coverage}% covered"
        f" (version {commit.version})."
    )
    if skips:
        click.echo(f"The report's odd lines were read as Codecov reads them: {skips.summary()}.")
