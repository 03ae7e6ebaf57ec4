"""Peak memory of one upload of up to COVERAGE_MAX_UPLOAD_BYTES (after decompression): under 300 MB.

Each upload runs in a fresh interpreter (``ru_maxrss`` is that process's peak), through the real
upload endpoint, the parsers and the database, with the bodies of the abuse review and an honest
report near the limit. See docs/upload.md ("Size limits") and docs/deployment.md ("Limits and abuse").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT_MB = 300

CHILD = textwrap.dedent(
    """
    import gzip, json, resource, sys
    from flask import Flask
    from flask_coverage import CoverageService
    from flask_coverage.operations import add_org, add_repo, init_db

    kind, database = sys.argv[1], sys.argv[2]
    limit = 50 * 1024 * 1024  # the default COVERAGE_MAX_UPLOAD_BYTES

    def body():
        if kind == "coveragepy-empty-arcs":  # the review: an entry decoded whole took 1.4 GB
            head = b'{"meta": {}, "files": {"x.py": {"executed_lines": [1], "missing_branches": ['
            return head + b"[]," * ((limit - 200) // 3) + b"[]]}}}"
        if kind == "coveragepy-honest":
            files = {}
            for n in range(20_000):
                lines = list(range(1, 121))
                files[f"src/p{n // 100}/m{n}.py"] = {
                    "executed_lines": lines[:100], "missing_lines": lines[100:],
                    "missing_branches": [[5, 7]], "summary": {"covered_lines": 100},
                    "functions": {f"f{k}": {"executed_lines": lines[k * 10 : k * 10 + 10]} for k in range(10)},
                }
            return json.dumps({"meta": {"format": 3}, "files": files}).encode()
        if kind == "lcov-reversed-lines":
            data = bytearray(b"SF:a.py\\n")
            for n in range(9_999_999, 10_000_000 - (limit - 100) // 14, -1):
                data += b"DA:%d,1\\n" % n
            return bytes(data + b"end_of_record\\n")
        if kind == "cobertura-one-long-attribute":
            head = b'<coverage><packages><package><classes><class filename="'
            return head + b"a" * (limit - 200) + b'"/></classes></package></packages></coverage>'
        raise SystemExit(kind)

    app = Flask("memory")
    app.config["SQLALCHEMY_DATABASE_URI"] = database
    CoverageService(app)
    with app.app_context():
        init_db()
        add_org("github", "acme")
        token = add_repo("github", "acme", "widgets").upload_token
    data = gzip.compress(body(), 1)
    assert len(gzip.decompress(data)) <= limit
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    response = app.test_client().post(
        f"/upload/v2?token={token}&commit={'5eed' * 10}&branch=main", data=data, headers={"Content-Encoding": "gzip"}
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    measured = {"status": response.status_code, "text": response.text[:200], "before": before // 1024}
    print(json.dumps({**measured, "peak": peak // 1024}))
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kilobytes on Linux")
@pytest.mark.parametrize(
    ("kind", "status"),
    [
        ("coveragepy-empty-arcs", 400),
        ("coveragepy-honest", 200),
        ("lcov-reversed-lines", 200),
        ("cobertura-one-long-attribute", 400),
    ],
)
def test_an_upload_at_the_limit_stays_under_300_mb(tmp_path: Path, kind: str, status: int) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    database = f"sqlite:///{tmp_path}/memory.sqlite"
    result = subprocess.run(  # noqa: S603 - this interpreter, our own script
        [sys.executable, "-c", CHILD, kind, database], capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    assert measured["status"] == status, measured
    # The peak of the whole process: the test builds the body in it too, before the upload.
    assert measured["peak"] < LIMIT_MB, measured
