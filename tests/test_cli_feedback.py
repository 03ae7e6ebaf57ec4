"""``flask coverage set-yaml``: the repository's or the owner's stored codecov.yml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flask_coverage.models import Owner
from flask_coverage.queries.repositories import find_repository
from tests.test_cli import run_error, run_ok


def test_set_yaml_stores_validates_and_clears(runner: Any, widgets: Any, tmp_path: Path) -> None:
    path = tmp_path / "codecov.yml"
    path.write_text("coverage:\n  range: 50..75\nflags:\n  unit:\n    carryforward_mode: labels\n")
    result = run_ok(runner, "set-yaml", "gh/acme/widgets", str(path))
    assert result.output.splitlines() == [
        "Note: ['flags', 'unit', 'carryforward_mode']: valid, not acted on by this service",
        "Stored the YAML of gh/acme/widgets.",
    ]
    repository = find_repository("github", "acme", "widgets")
    assert repository.yaml == path.read_text()
    assert (repository.coverage_low, repository.coverage_high) == (50, 75)
    assert run_ok(runner, "set-yaml", "gh/acme/widgets", "--clear").output == "Removed the YAML of gh/acme/widgets.\n"
    assert find_repository("github", "acme", "widgets").yaml is None


def test_set_yaml_of_an_owner_stores_and_clears(runner: Any, widgets: Any, tmp_path: Path, db: Any) -> None:
    path = tmp_path / "codecov.yml"
    path.write_text("ignore: [docs/]\n")
    assert run_ok(runner, "set-yaml", "gh/acme", str(path)).output == "Stored the YAML of gh/acme.\n"
    owner = db.session.execute(db.select(Owner).where(Owner.username == "acme")).scalar_one()
    assert owner.yaml == "ignore: [docs/]\n"
    assert run_ok(runner, "set-yaml", "gh/acme", "--clear").output == "Removed the YAML of gh/acme.\n"
    db.session.refresh(owner)
    assert owner.yaml is None


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (b"coverage:\n  round: sideways\n", ("gh/acme/widgets",), "Error at ['coverage', 'round']: must be one of"),
        (b"a: &x 1\nb: *x\n", ("gh/acme/widgets",), "anchors and aliases"),
        (b"\xff\xfe", ("gh/acme/widgets",), "not UTF-8"),
        (b"x" * 70000, ("gh/acme/widgets",), "larger than"),
        (b"coverage: {}\n", ("gh/acme/nothing",), "nothing"),
        (b"coverage: {}\n", ("gh",), "expected SERVICE/OWNER or SERVICE/OWNER/REPO"),
        (b"coverage: {}\n", ("gh/acme/widgets/x",), "expected SERVICE/OWNER[/REPO]"),
        (b"coverage: {}\n", ("gh/nobody",), "nobody"),
        (b"ignore: 3\n", ("gh/acme",), "Error at ['ignore']: must be a list"),
        (b"coverage: {}\n", ("gh/acme/widgets", "--clear"), "give a FILE to store, or --clear"),
    ],
)
def test_set_yaml_refuses_and_changes_nothing(
    runner: Any, db: Any, widgets: Any, tmp_path: Path, content: bytes, args: tuple[str, ...], message: str
) -> None:
    path = tmp_path / "codecov.yml"
    path.write_bytes(content)
    assert message in run_error(runner, db, "set-yaml", args[0], str(path), *args[1:])
