"""flask coverage upload: the operator's way to get a report in."""

from __future__ import annotations

import re
from pathlib import Path

from flask_coverage.parsers import REPORT_FORMATS
from flask_coverage.queries.files import file_totals
from flask_coverage.queries.repositories import find_repository
from flask_coverage.queries.targets import resolve_commit

DATA = Path(__file__).parent / "data"
SHA = "e" * 40
REPO = "github/acme/widgets"


def upload(runner, *args: str, **kwargs):
    return runner.invoke(args=["coverage", "upload", *args], **kwargs)


def test_upload_a_cobertura_report(runner, widgets) -> None:
    report = str(DATA / "marshmallow.coverage.xml")
    result = upload(runner, report, "--repo", REPO, "--commit", SHA, "--branch", "main", "--pr", "9")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"Uploaded {report} to gh/acme/widgets at {SHA}: 13 files, 1912 lines, 96.39% covered (version 1).\n"
    )
    assert result.stderr == ""  # a small report and no terminal: no progress bar
    repository = find_repository("github", "acme", "widgets")
    assert resolve_commit(repository).sha == SHA
    assert resolve_commit(repository, pullid=9).sha == SHA


def test_upload_with_root_and_format(runner, widgets) -> None:
    args = ["--repo", "gh/Acme/WIDGETS", "--commit", SHA.upper()]
    report = str(DATA / "flask-sqlalchemy.lcov")
    result = upload(runner, report, *args, "--format", "lcov", "--root", "src")
    assert result.exit_code == 0, result.output
    assert "version 1" in result.stdout
    commit = resolve_commit(find_repository("github", "acme", "widgets"), sha=SHA)
    assert "flask_sqlalchemy/model.py" in [row.path for row in file_totals(commit)]


def test_upload_from_stdin(runner, widgets) -> None:
    report = (DATA / "d3-hierarchy.lcov").read_bytes()
    result = upload(runner, "-", "--repo", REPO, "--commit", SHA, input=report)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Uploaded - to gh/acme/widgets")


def test_a_big_report_shows_a_progress_bar_on_stderr(runner, widgets, monkeypatch) -> None:
    monkeypatch.setattr("flask_coverage.cli.upload.PROGRESS_BAR_BYTES", 1000)
    report = str(DATA / "marshmallow.coverage.json")
    result = upload(runner, report, "--repo", REPO, "--commit", SHA)
    assert result.exit_code == 0, result.output
    assert f"Reading {report}" in result.stderr
    assert "Uploaded" in result.stdout and "Reading" not in result.stdout


BAD_UPLOADS = [
    (["missing.xml", "--repo", REPO, "--commit", SHA], "cannot read missing.xml: No such file or directory"),
    ([str(DATA), "--repo", REPO, "--commit", SHA], "cannot read"),
    ([str(DATA / "marshmallow.lcov"), "--repo", "github/acme/nope", "--commit", SHA], "no repository acme/nope"),
    ([str(DATA / "marshmallow.lcov"), "--repo", "githab/acme/widgets", "--commit", SHA], "unknown service"),
    ([str(DATA / "marshmallow.lcov"), "--repo", "acme/widgets", "--commit", SHA], "SERVICE/OWNER/REPO"),
    ([str(DATA / "marshmallow.lcov"), "--repo", REPO, "--commit", "HEAD"], "full sha"),
    ([str(DATA / "marshmallow.lcov"), "--repo", REPO, "--commit", SHA, "--pr", "x1"], "pull request number"),
    ([str(DATA / "marshmallow.lcov"), "--repo", REPO, "--commit", SHA, "--format", "ncover"], "unknown report"),
    ([str(DATA / "marshmallow.lcov"), "--repo", REPO, "--commit", SHA, "--format", "cobertura"], "XML"),
    ([str(DATA / "README.md"), "--repo", REPO, "--commit", SHA], "unknown report format"),
]


def test_errors_are_one_line_and_change_nothing(runner, widgets, snapshot, make_lcov, tmp_path) -> None:
    kept = tmp_path / "kept.info"
    kept.write_bytes(make_lcov({"kept.py": {1: 1}}))
    assert upload(runner, str(kept), "--repo", REPO, "--commit", SHA, "--branch", "main").exit_code == 0
    before = snapshot()
    for args, message in BAD_UPLOADS:
        result = upload(runner, *args, "--branch", "other")
        assert result.exit_code == 1, args
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.stderr
        assert result.stdout == ""
        assert snapshot() == before, args


def test_a_truncated_report_changes_nothing(runner, widgets, snapshot, tmp_path) -> None:
    truncated = tmp_path / "coverage.xml"
    truncated.write_bytes((DATA / "marshmallow.coverage.xml").read_bytes()[:-200])
    before = snapshot()
    result = upload(runner, str(truncated), "--repo", REPO, "--commit", SHA)
    assert result.exit_code == 1 and "Error: invalid XML report" in result.stderr
    assert snapshot() == before


def test_the_readme_the_docs_and_the_help_name_every_format_read(runner) -> None:
    names = [report_format.name for report_format in REPORT_FORMATS]
    readme = (DATA.parent.parent / "README.md").read_text()
    listed = re.search(r"`FORMAT` is one of `([^`]*)`", (DATA.parent.parent / "docs" / "configuration.md").read_text())
    assert listed is not None and re.split(r",\s*", listed.group(1)) == names
    help_text = runner.invoke(args=["coverage", "upload", "--help"], terminal_width=500).output
    assert "--format " + "|".join(["auto", *names]) in help_text
    # The prose counts them where it counts them.
    for page in (readme, (DATA.parent.parent / "docs" / "upload.md").read_text()):
        counts = {int(count) for count in re.findall(r"\b(\d+) (?:report )?formats (?:are )?read", page)}
        assert counts == {len(names)}, counts
