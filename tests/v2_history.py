"""A repository history from the real reports in tests/data, for the v2 API's tests (the ``history``
fixture of conftest.py builds it with :func:`build`)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from flask_coverage import operations
from flask_coverage.ingest import record_commit

DATA = Path(__file__).parent / "data"
API = "/api/v2/github/acme"
REPO = f"{API}/repos/widgets"

#: main: C0 then C1; feature/faster (pull 7): C2; fix/typo (pull 8, parent C0): C3.
C0, C1 = "c0" * 20, "c1" * 20
C2, C3 = "abcdef1" + "2" * 33, "abcdef1" + "3" * 33
#: The lines of fields.py that C2 no longer runs (a regression).
REGRESSED = range(100, 200)


def lcov_records(text: str) -> list[str]:
    return [record + "end_of_record\n" for record in text.split("end_of_record\n") if record.strip()]


def regressed(text: str) -> str:
    """marshmallow.lcov with the lines REGRESSED of fields.py no longer run."""
    out = []
    for record in lcov_records(text):
        if record.startswith("SF:src/marshmallow/fields.py\n"):
            record = re.sub(
                r"^DA:(\d+),\d+$",
                lambda m: f"DA:{m[1]},0" if int(m[1]) in REGRESSED else m[0],
                record,
                flags=re.M,
            )
            record = re.sub(r"^BRDA:(\d+),.*\n", lambda m: "" if int(m[1]) in REGRESSED else m[0], record, flags=re.M)
        out.append(record)
    return "".join(out)


def upload(testapp: Any, token: str, body: bytes, sha: str, **params: Any) -> None:
    query = "&".join(f"{name}={value}" for name, value in {"token": token, "commit": sha, **params}.items())
    testapp.post(f"/upload/v2?{query}", body, headers={"Content-Type": "text/plain"}, status=200)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_not_found(response: Any) -> None:
    assert response.status_code == 404 and response.json == {"detail": "Not found."}


def build(testapp: Any, db: Any) -> SimpleNamespace:
    """acme's public widgets (the history above), private secret (d3-hierarchy on main) and public,
    inactive dormant (no uploads); alice an activated member of acme, nina a member not activated,
    mallory no member, each with a token (``tokens``)."""
    operations.add_org("github", "acme", name="Acme Corp")
    widgets = operations.add_repo("github", "acme", "widgets", language="python")
    secret = operations.add_repo("github", "acme", "secret", private=True)
    dormant = operations.add_repo("github", "acme", "dormant")
    dormant.active = False
    db.session.commit()
    lcov = (DATA / "marshmallow.lcov").read_text()
    token = widgets.upload_token
    upload(testapp, token, "".join(lcov_records(lcov)[:-2]).encode(), C0, branch="main")
    upload(testapp, token, (DATA / "marshmallow.coverage.xml").read_bytes(), C1, branch="main")
    upload(testapp, token, regressed(lcov).encode(), C2, branch="feature/faster", pr=7)
    # A second job of the same commit covers another package: files the base does not have.
    upload(
        testapp, token, (DATA / "flask-sqlalchemy.lcov").read_bytes(), C2, branch="feature/faster", pr=7, flags="sqla"
    )
    record_commit(widgets, C3, branch="fix/typo", pullid=8, parent=C0)
    upload(testapp, token, (DATA / "marshmallow.coverage.json").read_bytes(), C3, branch="fix/typo", pr=8)
    upload(testapp, secret.upload_token, (DATA / "d3-hierarchy.lcov").read_bytes(), C0, branch="main")
    for name in ("alice", "nina", "mallory"):
        operations.add_user("github", name)
    operations.add_member("github", "acme", "alice", activated=True)
    operations.add_member("github", "acme", "nina", activated=False, admin=True)
    tokens = {name: operations.create_token("github", name, name="t")[1] for name in ("alice", "mallory", "nina")}
    return SimpleNamespace(widgets=widgets, secret=secret, dormant=dormant, tokens=tokens)
