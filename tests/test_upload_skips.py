"""What the parsers skipped or clamped is said: in the v2 answer (text), the codecov-cli answer (JSON),
the CLI's output and the upload record."""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import urlencode, urlsplit

import sqlalchemy as sa

from flask_coverage.models import Upload

SHA = "f" * 40
ODD = b"TN:\nSF:a.py\nDA:0,1\nDA:1,1.0\nDA:2,-3\nDA:3,1\nend_of_record\n"
REASONS = {
    "lines numbered 0 or less, skipped": 1,
    "hit counts written as decimals, rounded down": 1,
    "negative hit counts, clamped to 0": 1,
}
SAID = (
    "skipped or clamped: 1 hit counts written as decimals, rounded down; 1 lines numbered 0 or less, skipped; "
    "1 negative hit counts, clamped to 0"
)


def stored_skips(db) -> list[tuple[int, dict | None]]:
    return [tuple(row) for row in db.session.execute(sa.select(Upload.skipped, Upload.skip_reasons))]


def test_the_v2_answer_says_what_was_skipped_on_a_last_line(testapp, widgets, db) -> None:
    query = urlencode({"token": widgets.upload_token, "commit": SHA})
    response = testapp.post(f"/upload/v2?{query}", ODD, headers={"Content-Type": "text/plain"}, status=200)
    blank, url, summary, said, end = response.text.split("\n")
    assert (blank, said, end) == ("", SAID, "")
    summary = json.loads(summary)
    assert summary["skipped"] == 3 and summary["skip_reasons"] == REASONS
    assert summary["lines"] == 3
    assert stored_skips(db) == [(3, REASONS)]


def test_a_clean_upload_says_nothing_more(testapp, widgets, db, make_lcov) -> None:
    query = urlencode({"token": widgets.upload_token, "commit": SHA})
    response = testapp.post(f"/upload/v2?{query}", make_lcov({"a.py": {1: 1}}), status=200)
    assert len(response.text.split("\n")) == 4
    assert json.loads(response.text.split("\n")[2])["skipped"] == 0
    assert stored_skips(db) == [(0, None)]


def test_the_codecov_cli_answer_carries_the_counts(testapp, widgets, db) -> None:
    headers = {"Authorization": f"token {widgets.upload_token}"}
    base = "/upload/github/acme::::widgets"
    testapp.post_json(f"{base}/commits", {"commitid": SHA}, headers=headers, status=201)
    testapp.post_json(f"{base}/commits/{SHA}/reports", {"code": "default"}, headers=headers, status=201)
    created = testapp.post_json(f"{base}/commits/{SHA}/reports/default/uploads", {}, headers=headers, status=201)
    parts = urlsplit(created.json["raw_upload_location"])
    data = base64.b64encode(zlib.compress(ODD)).decode()
    payload = {"coverage_files": [{"filename": "lcov.info", "format": "base64+compressed", "data": data}]}
    answer = testapp.put(f"{parts.path}?{parts.query}", json.dumps(payload).encode(), status=200)
    assert answer.json["skipped"] == 3 and answer.json["skip_reasons"] == REASONS
    assert stored_skips(db) == [(3, REASONS)]


def test_the_cli_says_what_was_skipped(runner, widgets, db, tmp_path) -> None:
    report = tmp_path / "lcov.info"
    report.write_bytes(ODD)
    result = runner.invoke(args=["coverage", "upload", str(report), "--repo", "github/acme/widgets", "--commit", SHA])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == f"The report's odd lines were read as Codecov reads them: {SAID}."
    assert stored_skips(db) == [(3, REASONS)]
