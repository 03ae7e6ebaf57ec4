"""Every list an upload carries (issue 26, F2) is read an element at a time, bounded in count and bytes,
and refused with a 413 past its bound, leaving nothing stored; peak memory under 300 MB at the limit,
for each list, through /upload/v2 and codecov-cli's PUT."""

from __future__ import annotations

import base64
import gzip
import json
import textwrap
import zlib
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_upload_memory import LIMIT_MB, PEAK_MB, limit, run_child

from flask_coverage.errors import InvalidInput
from flask_coverage.ingest import envelope as upload
from flask_coverage.ingest.envelope import MAX_FIX_LINES, MAX_NETWORK_FILES, read_cli_payload, read_envelope

SHA = "a" * 40
LCOV = b"SF:src/a.py\nDA:1,1\nDA:2,0\nend_of_record\n"
BASE = "/upload/github/acme::::widgets"


def envelope(network: bytes = b"", fixes: bytes = b"") -> bytes:
    body = network + b"<<<<<< network\n# path=lcov.info\n" + LCOV + b"<<<<<< EOF\n"
    return body + (b"# path=fixes\n" + fixes + b"<<<<<< EOF\n" if fixes else b"")


def cli_payload(**extra: object) -> bytes:
    data = base64.b64encode(zlib.compress(LCOV)).decode()
    files = [{"filename": "lcov.info", "format": "base64+compressed", "data": data}]
    return json.dumps({"coverage_files": files, **extra}).encode()


def test_the_envelope_is_read_into_reports_network_and_fixes() -> None:
    fixes = b"src/a.py:2,3\nsrc/a.py:7:/* start\nsrc/a.py:10:end */\nEOF: 40 src/a.py\nnonsense\n"
    parts = read_envelope(
        b"CI=true\n<<<<<< ENV\n" + envelope(b"src/a.py\nREADME.md\n", fixes) + b"==FROMNOWONIGNOREDBYCODECOV==>>>junk"
    )
    assert [(name, bytes(report)) for name, report in parts.reports] == [("lcov.info", LCOV)]
    assert parts.network == ["src/a.py", "README.md"]
    assert parts.fixes == {"src/a.py": (frozenset({2, 3, 7, 8, 9, 10}), 40)}


def test_the_cli_payload_is_read_with_unused_keys_passed_over() -> None:
    fixes = {"format": "legacy", "value": {"src/a.py": {"eof": 9, "lines": [3, 4]}}}
    raw = cli_payload(network_files=["src/a.py"], report_fixes=fixes, metadata={"x": [[[1]]] * 3}, other=None)
    parts = read_cli_payload(raw, limit)
    assert [(name, bytes(data)) for name, data in parts.reports] == [("lcov.info", LCOV)]
    assert parts.network == ["src/a.py"]
    assert parts.fixes == {"src/a.py": (frozenset({3, 4}), 9)}


def many_names(count: int) -> list[str]:
    return [f"f{n}.c" for n in range(count)]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ("v2", envelope("\n".join(many_names(MAX_NETWORK_FILES + 1)).encode() + b"\n")), "more than 500000"),
        (
            lambda: ("v2", envelope(fixes=b"".join(b"src/a.py:%d\n" % n for n in range(1, MAX_FIX_LINES + 2)))),
            "fixes has more than",
        ),
        (lambda: ("v2", envelope(fixes=b"a.c:1:/*\na.c:%d:*/\n" % (MAX_FIX_LINES + 5))), "fixes has more than"),
        (lambda: ("cli", cli_payload(network_files=many_names(MAX_NETWORK_FILES + 1))), "network_files has more than"),
        (
            lambda: (
                "cli",
                cli_payload(
                    report_fixes={"format": "legacy", "value": {"a.c": {"lines": list(range(1, MAX_FIX_LINES + 2))}}}
                ),
            ),
            "report_fixes has more than",
        ),
        (lambda: ("cli", cli_payload(network_files=["a" * 4_000] * 300)), "network_files is larger than"),
    ],
    ids=["v2 network", "v2 fixes", "v2 fixes block", "cli network_files", "cli report_fixes", "cli network bytes"],
)
def test_a_list_past_its_bound_is_a_413_and_stores_nothing(
    testapp, widgets, snapshot, monkeypatch, make, message
) -> None:
    if "larger than" in message:
        monkeypatch.setattr(upload, "MAX_LIST_BYTES", 1_000_000)
    kind, body = make()
    token = widgets.upload_token
    before = snapshot()
    if kind == "v2":
        query = urlencode({"token": token, "commit": SHA})
        answer = testapp.post(
            f"/upload/v2?{query}", gzip.compress(body, 1), headers={"Content-Encoding": "gzip"}, status=413
        )
        assert message in answer.text and answer.text.startswith("Upload refused: ")
    else:
        headers = {"Authorization": f"token {token}"}
        created = testapp.post_json(f"{BASE}/commits/{SHA}/reports/default/uploads", {}, headers=headers, status=201)
        parts = urlsplit(created.json["raw_upload_location"])
        answer = testapp.put(f"{parts.path}?{parts.query}", body, status=413)
        assert message in answer.text
    assert snapshot() == before


CLI_CHILD = PEAK_MB + textwrap.dedent(
    """
    from urllib.parse import urlsplit
    from flask_coverage.operations import add_org, add_repo, init_db

    body, database, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    app = Flask("memory")
    app.config["SQLALCHEMY_DATABASE_URI"] = database
    CoverageService(app)
    with app.app_context():
        init_db()
        add_org("github", "acme")
        token = add_repo("github", "acme", "widgets").upload_token
    client = app.test_client()
    sha = "5eed" * 10
    with open(body, "rb") as file:
        data = file.read()
    before = peak_mb()
    if kind == "v2":
        gzipped = {"Content-Encoding": "gzip"}
        response = client.post(f"/upload/v2?token={token}&commit={sha}", data=data, headers=gzipped)
        text = response.text
    else:
        headers = {"Authorization": f"token {token}"}
        path = f"/upload/github/acme::::widgets/commits/{sha}/reports/default/uploads"
        created = client.post(path, json={}, headers=headers)
        url = urlsplit(created.json["raw_upload_location"])
        response = client.put(f"{url.path}?{url.query}", data=data)
        text = response.text
    print(json.dumps({"status": response.status_code, "text": text[:200], "before": before, "peak": peak_mb()}))
    """
)


def memory_body(kind: str) -> tuple[str, bytes]:
    """An upload near the limit whose bulk is one list."""
    room = limit - 10_000
    if kind == "v2-network":
        names = b"".join(b"src/pkg%d/module_%d.py\n" % (n // 100, n) for n in range(MAX_NETWORK_FILES))
        return "v2", envelope(names + b"x\n" * ((room - len(names)) // 2))
    if kind == "v2-network-at-bound":
        return "v2", envelope(b"".join(b"src/pkg%d/module_%d.py\n" % (n // 100, n) for n in range(MAX_NETWORK_FILES)))
    if kind == "v2-fixes":
        line = b"src/a.py:" + b",".join(b"%d" % n for n in range(1, 100_000)) + b"\n"
        return "v2", envelope(fixes=line * (room // len(line)))
    if kind == "cli-network_files":
        return "cli", cli_payload(network_files=["n"] * (room // 6))
    if kind == "cli-report_fixes":
        return "cli", cli_payload(report_fixes={"format": "legacy", "value": {"a.c": {"lines": [1] * (room // 3)}}})
    if kind == "cli-unused-keys":
        return "cli", cli_payload(metadata=[[1, [2, {"k": "v"}]]] * (room // 30))
    raise ValueError(kind)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")
@pytest.mark.parametrize(
    ("kind", "status"),
    [
        ("v2-network", 413),
        ("v2-network-at-bound", 200),
        ("v2-fixes", 413),
        ("cli-network_files", 413),
        ("cli-report_fixes", 413),
        ("cli-unused-keys", 200),
    ],
)
def test_each_list_at_the_limit_stays_under_300_mb(tmp_path: Path, kind: str, status: int) -> None:
    protocol, plain = memory_body(kind)
    assert len(plain) <= limit
    (tmp_path / "body").write_bytes(gzip.compress(plain, 1) if protocol == "v2" else plain)
    del plain
    measured = run_child(CLI_CHILD, str(tmp_path / "body"), f"sqlite:///{tmp_path}/memory.sqlite", protocol)
    assert measured["status"] == status, measured
    assert measured["peak"] < LIMIT_MB, measured


FUZZ = settings(max_examples=200, deadline=None, derandomize=True)
PIECES = st.sampled_from(
    [
        b"<<<<<< network\n",
        b"<<<<<< ENV\n",
        b"<<<<<< EOF\n",
        b"# path=fixes\n",
        b"# path=a.info\n",
        b"a.py:1,2\n",
        b"a.py:3:/*\n",
        b"a.py:9:*/\n",
        b"EOF: 4 a.py\n",
        b"SF:a.py\nDA:1,1\nend_of_record\n",
        b"\n",
        b"\x00\xff",
        b"==FROMNOWONIGNOREDBYCODECOV==>>>",
        b"a.py:99999999999\n",
    ]
)


@FUZZ
@given(st.lists(PIECES | st.binary(max_size=12), max_size=12))
def test_any_envelope_is_read_or_refused_with_a_4xx(pieces) -> None:
    try:
        parts = read_envelope(b"".join(pieces))
    except InvalidInput as error:
        assert error.status in (400, 413)
        return
    assert all(isinstance(name, str) for name, _ in parts.reports)
    assert all(isinstance(lines, frozenset) for lines, _ in parts.fixes.values())


JSON_LEAVES = st.none() | st.booleans() | st.integers(-5, 2**40) | st.text(max_size=8)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=10,
)


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(["coverage_files", "network_files", "report_fixes", "metadata", "value", "lines"]),
        JSON_VALUES,
        max_size=4,
    ),
    st.booleans(),
)
def test_any_cli_payload_is_read_or_refused_with_a_4xx(payload, with_report) -> None:
    if with_report:
        payload["coverage_files"] = [{"filename": "x", "data": base64.b64encode(zlib.compress(LCOV)).decode()}]
    raw = json.dumps(payload).encode()
    for cut in (len(raw), len(raw) // 2):
        try:
            read_cli_payload(raw[:cut], limit)
        except InvalidInput as error:
            assert error.status in (400, 413)
