"""Carryforward flags: a commit whose uploads lack a flag marked ``carryforward`` carries its coverage
from the nearest ancestor that has it; a real upload of the flag replaces it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from flask_coverage import operations
from flask_coverage.ingest import UploadMeta, record_commit, upload_report
from flask_coverage.ingest.carryforward import MAX_GENERATIONS, OWN
from flask_coverage.lines import Totals
from flask_coverage.models import CarriedFlag, FlagFileCoverage, Repository, Upload
from flask_coverage.parsers import merge_by_path, parse_report
from flask_coverage.queries.targets import find_flag
from flask_coverage.state import execute

DATA = Path(__file__).resolve().parent / "data"
UNIT = "flask-sqlalchemy.lcov"
INTEGRATION = "marshmallow.coverage.json"
CARRYFORWARD = "flags:\n  unit:\n    carryforward: true\n  integration:\n    carryforward: true\n"


def sha(number: int) -> str:
    return f"{number:040x}"


def reference(*names: str) -> Totals:
    """The totals of the reports merged, from the parsers alone."""
    files = merge_by_path(parsed for name in names for parsed in parse_report((DATA / name).read_bytes()))
    return sum((lines.totals() for lines in files.values()), Totals())


def totals_of(row: Any) -> Totals:
    return Totals(row.lines, row.hits, row.misses, row.partials)


def upload(repository: Repository, number: int, name: str, flag: str, parent: int | None = None, **more: Any):
    parent_sha = None if parent is None else sha(parent)
    meta = UploadMeta.create(flags=flag)
    report = (DATA / name).read_bytes()
    return upload_report(repository, report, commit=sha(number), parent=parent_sha, meta=meta, **more)


def carried(commit_id: int) -> dict[str, str]:
    rows = execute(sa.select(CarriedFlag.flag, CarriedFlag.origin_sha).where(CarriedFlag.commit_id == commit_id))
    return dict(rows.all())


@pytest.fixture
def carrying(widgets: Repository) -> Repository:
    operations.set_repository_yaml("github", "acme", "widgets", CARRYFORWARD)
    upload(widgets, 1, UNIT, "unit", branch="main")
    upload(widgets, 1, INTEGRATION, "integration", branch="main")
    return widgets


def test_a_flag_not_uploaded_is_carried_from_the_parent_and_replaced_by_its_upload(carrying: Repository) -> None:
    head = upload(carrying, 2, UNIT, "unit", parent=1, run_id="head")
    assert totals_of(head) == reference(UNIT, INTEGRATION)
    assert totals_of(find_flag(head, "integration")) == reference(INTEGRATION)
    assert totals_of(find_flag(head, "unit")) == reference(UNIT)
    assert carried(head.id) == {"integration": sha(1)}
    kinds = execute(sa.select(sa.func.count()).where(Upload.commit_id == head.id)).scalar()
    assert kinds == 2  # the real upload and the carried one

    # A real upload of integration (here: the unit report under that flag) replaces what was carried.
    head = upload(carrying, 2, UNIT, "integration", parent=1, run_id="late")
    assert totals_of(head) == reference(UNIT, UNIT)
    assert totals_of(find_flag(head, "integration")) == reference(UNIT)
    assert carried(head.id) == {}
    assert execute(sa.select(sa.func.count()).where(Upload.commit_id == head.id)).scalar() == 2
    own = sa.select(sa.func.count()).where(FlagFileCoverage.commit_id == head.id, FlagFileCoverage.flag == OWN)
    assert execute(own).scalar() == 0  # kept only while the commit carries flags


def test_a_flag_uploaded_with_the_first_upload_is_not_carried(carrying: Repository) -> None:
    head = upload(carrying, 2, UNIT, "unit,integration", parent=1)
    assert carried(head.id) == {}
    assert totals_of(head) == reference(UNIT)


def test_flags_not_marked_carryforward_are_not_carried(widgets: Repository) -> None:
    operations.set_repository_yaml("github", "acme", "widgets", "flags:\n  unit:\n    carryforward: true\n")
    upload(widgets, 1, UNIT, "unit")
    upload(widgets, 1, INTEGRATION, "integration")
    head = upload(widgets, 2, UNIT, "unit", parent=1)
    assert carried(head.id) == {}
    assert totals_of(head) == reference(UNIT)


def test_flag_management_default_rules_carry_every_flag(widgets: Repository) -> None:
    yaml = "flag_management:\n  default_rules:\n    carryforward: true\n"
    operations.set_repository_yaml("github", "acme", "widgets", yaml)
    upload(widgets, 1, INTEGRATION, "integration")
    head = upload(widgets, 2, UNIT, "unit", parent=1)
    assert carried(head.id) == {"integration": sha(1)}


def test_a_long_chain_carries_from_the_origin_and_looks_only_so_far_back(carrying: Repository) -> None:
    # Each commit carries what its parent carried: the origin stays the commit it was uploaded to.
    for number in range(2, 30):
        head = upload(carrying, number, UNIT, "unit", parent=number - 1)
    assert carried(head.id) == {"integration": sha(1)}
    assert totals_of(head) == reference(UNIT, INTEGRATION)
    # Commits with no coverage in between: past MAX_GENERATIONS nothing is found.
    far = 100 + MAX_GENERATIONS
    record_commit(carrying, sha(100), parent=sha(29))
    for number in range(101, far):
        record_commit(carrying, sha(number), parent=sha(number - 1))
    lost = upload(carrying, far, UNIT, "unit", parent=far - 1)
    assert carried(lost.id) == {}
    near = upload(carrying, far + 1, UNIT, "unit", parent=far - 2)
    assert carried(near.id) == {"integration": sha(1)}


def test_an_upload_deep_in_a_chain_costs_what_one_near_its_origin_costs(
    carrying: Repository, statements: list[str]
) -> None:
    counts = []
    for number in range(2, 40):
        statements.clear()
        upload(carrying, number, UNIT, "unit", parent=number - 1)
        counts.append(len(statements))
    assert counts[-1] == counts[MAX_GENERATIONS] <= counts[0] + MAX_GENERATIONS


def test_the_flags_page_says_which_flag_is_carried_and_from_where(carrying: Repository, testapp: Any) -> None:
    upload(carrying, 2, UNIT, "unit", parent=1, branch="main")
    rows = testapp.get("/gh/acme/widgets/flags").html.select("#coverage-flag-list tbody tr")
    marks = {row.td.a.text: row.select_one(".coverage-carried") for row in rows}
    assert marks["unit"] is None
    assert marks["integration"] is not None and sha(1)[:12] in marks["integration"].text
