"""No nesting depth of a JSON body gives a 500: codecov-cli's calls, its JSON PUT, a coverage.py report
inside a v2 or codecov-cli upload. Deep bodies are refused with a 400 (issue 26, F4)."""

from __future__ import annotations

import base64
import zlib
from urllib.parse import urlencode, urlsplit

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SHA = "c" * 40
BASE = "/upload/github/acme::::widgets"
CALLS = ("/commits", "/upload-coverage", f"/commits/{SHA}/reports", f"/commits/{SHA}/reports/default/uploads")


def nested(openers: str) -> str:
    """JSON nesting ``openers`` (``[`` an array, ``{`` an object) around a number, in that order."""
    head = "".join('{"a":' if char == "{" else "[" for char in openers)
    return head + "1" + "".join("}" if char == "{" else "]" for char in reversed(openers))


#: Depths around Python's recursion limit, and far past it.
DEPTHS = st.sampled_from([1, 10, 500, 900, 990, 1000, 1010, 2000, 5000, 50_000]) | st.integers(1, 3000)
NESTINGS = st.builds(lambda depth, kinds: (kinds * depth)[:depth], DEPTHS, st.sampled_from(["[", "{", "[{", "{["]))


def _put_url(testapp, headers: dict[str, str]) -> str:
    upload = testapp.post_json(BASE + f"/commits/{SHA}/reports/default/uploads", {}, headers=headers, status=201)
    parts = urlsplit(upload.json["raw_upload_location"])
    return f"{parts.path}?{parts.query}"


def _cli_file(report: str) -> str:
    data = base64.b64encode(zlib.compress(report.encode())).decode()
    return f'{{"filename": "coverage.json", "format": "base64+compressed", "data": "{data}"}}'


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(openers=NESTINGS)
def test_no_nesting_depth_answers_500(testapp, widgets, openers: str) -> None:
    value = nested(openers)
    headers = {"Authorization": f"token {widgets.upload_token}", "Content-Type": "application/json"}
    bodies = [value, f'{{"commitid": "{SHA}", "cli_args": {value}}}']
    for path in CALLS:
        for body in bodies:
            answer = testapp.post(BASE + path, body.encode(), headers=headers, expect_errors=True)
            assert answer.status_int in (200, 201, 400), (path, len(openers), answer.text)
    report = f'{{"meta": {{"version": "7.4"}}, "files": {{"a.py": {{"executed_lines": [1], "x": {value}}}}}}}'
    puts = [
        value,
        f'{{"coverage_files": {value}}}',
        f'{{"coverage_files": [], "network_files": {value}, "report_fixes": {value}, "metadata": {value}}}',
        f'{{"coverage_files": [{_cli_file(report)}]}}',
    ]
    for body in puts:
        answer = testapp.put(_put_url(testapp, headers), body.encode(), expect_errors=True)
        assert answer.status_int in (200, 400), (body[:60], len(openers), answer.text)
    query = urlencode({"commit": SHA, "token": widgets.upload_token})
    answer = testapp.post(f"/upload/v2?{query}", report.encode(), expect_errors=True)
    assert answer.status_int in (200, 400), (len(openers), answer.text)


def test_a_body_nested_past_the_decoders_depth_is_a_400_naming_the_depth(testapp, widgets) -> None:
    # 100,000 deep: past the decoder's depth on every Python (3.13's reads 1,000 deep).
    headers = {"Authorization": f"token {widgets.upload_token}", "Content-Type": "application/json"}
    answer = testapp.post(BASE + "/commits", nested("[" * 100_000).encode(), headers=headers, status=400)
    assert answer.json == {"detail": "Upload refused: the body is not JSON (nested too deeply)."}
