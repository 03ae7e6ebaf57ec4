"""GET {COVERAGE_API_URL_PREFIX}/{service}/{owner}/repos/{repo}/report/, over WebTest (docs/upload.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from openapi_spec_validator import validate

from flask_coverage import operations
from flask_coverage.queries.repositories import get_owner
from flask_coverage.schemas.report import REPORT_PIECE, CoverageTotalsSchema, FileReportSchema

DATA = Path(__file__).parent.parent / "data"
URL = "/api/v2/github/acme/repos/widgets/report/"
SHA_MAIN = "1" * 40
SHA_FEATURE = "2" * 40


def upload(testapp, token: str, body: bytes, sha: str, **params: str) -> None:
    query = "&".join(f"{name}={value}" for name, value in {"token": token, "commit": sha, **params}.items())
    testapp.post(f"/upload/v2?{query}", body, headers={"Content-Type": "text/plain"}, status=200)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def branch_verdicts(run: str) -> int:
    """How many more lines Codecov's rule counts covered than the tool did, for the run ``run`` (its
    Cobertura report, read without our parsers): a branch line takes the state of its conditions
    "(n/m)", so one that ran with every branch missed is a miss and one "(m/m)" without hits a hit."""
    cobertura = next(DATA.glob(f"{run}.*.xml")).read_text()
    found = re.findall(
        r'<line number="\d+" hits="(\d+)" branch="true" condition-coverage="[^"]*\((\d+)/(\d+)\)"', cobertura
    )
    ran_but_missed = sum(1 for hits, taken, total in found if int(hits) and taken == "0")
    covered_without_hits = sum(1 for hits, taken, total in found if not int(hits) and taken == total)
    return covered_without_hits - ran_but_missed


def stated_totals(path: Path) -> tuple[int, int, int]:
    """(files, tracked lines, covered lines) as the report itself states them, read without our parsers,
    with Codecov's rule for branch lines applied (:func:`branch_verdicts`)."""
    files, lines, covered = _stated(path)
    if path.suffix == ".lcov" and all(
        name.endswith(".js") for name in re.findall(r"^SF:(.+)$", path.read_text(), re.M)
    ):
        return files, lines, covered  # .js files of an LCOV report are read by their DA counts, as on Codecov
    return files, lines, covered + branch_verdicts(path.name.split(".")[0])


def _stated(path: Path) -> tuple[int, int, int]:
    text = path.read_text()
    if path.suffix == ".xml":
        root = re.search(r"<coverage [^>]*>", text).group(0)
        valid, covered = (
            int(re.search(rf'{name}="(\d+)"', root).group(1)) for name in ("lines-valid", "lines-covered")
        )
        return len(set(re.findall(r'filename="([^"]+)"', text))), valid, covered
    if path.suffix == ".json":
        report = json.loads(text)
        return len(report["files"]), report["totals"]["num_statements"], report["totals"]["covered_lines"]
    found = sum(int(n) for n in re.findall(r"^LF:(\d+)$", text, re.M))
    hit = sum(int(n) for n in re.findall(r"^LH:(\d+)$", text, re.M))
    return len(set(re.findall(r"^SF:(.+)$", text, re.M))), found, hit


@pytest.mark.parametrize("report", sorted(p.name for p in DATA.iterdir() if p.is_file() and p.suffix != ".md"))
def test_each_real_report_reads_back_with_the_totals_it_states(testapp, widgets, report) -> None:
    upload(testapp, widgets.upload_token, (DATA / report).read_bytes(), SHA_MAIN, branch="main")
    body = testapp.get(URL).json
    files, lines, covered = stated_totals(DATA / report)
    totals = body["totals"]
    assert (totals["files"], totals["lines"], totals["hits"] + totals["partials"]) == (files, lines, covered)
    assert totals["lines"] == totals["hits"] + totals["misses"] + totals["partials"]
    assert totals["coverage"] == int(totals["hits"] * 10000 / totals["lines"]) / 100
    assert len(body["files"]) == files
    assert [f["name"] for f in body["files"]] == sorted(f["name"] for f in body["files"])
    for file in body["files"]:
        types = [kind for _, kind in file["line_coverage"]]
        counts = (len(types), types.count(0), types.count(1), types.count(2))
        t = file["totals"]
        assert (t["lines"], t["hits"], t["misses"], t["partials"]) == counts
        assert [line for line, _ in file["line_coverage"]] == sorted({line for line, _ in file["line_coverage"]})
    if report.endswith(".json"):  # coverage.py states every file's totals too
        stated = json.loads((DATA / report).read_text())["files"]
        for file in body["files"]:
            summary = stated[file["name"]]["summary"]
            assert file["totals"]["lines"] == summary["num_statements"]
            assert file["totals"]["hits"] + file["totals"]["partials"] == summary["covered_lines"]


@pytest.fixture
def history(testapp, widgets, make_lcov):
    """main at SHA_MAIN; feature/x at SHA_FEATURE, which has one more run of src/core.py."""
    first = make_lcov(
        {"src/core.py": {1: 1, 2: 0, 3: 2}, "src/cli.py": {1: 1, 2: 1}, "tests/test_core.py": {1: 1}},
        partial={"src/core.py": {3}},
    )
    upload(testapp, widgets.upload_token, first, SHA_MAIN, branch="main")
    upload(testapp, widgets.upload_token, first, SHA_FEATURE, branch="feature/x")
    upload(testapp, widgets.upload_token, make_lcov({"src/core.py": {2: 5}}), SHA_FEATURE, branch="feature/x")
    return widgets


def test_the_body_has_totals_files_and_line_types(testapp, history) -> None:
    body = testapp.get(URL).json
    assert set(body) == {"totals", "files", "commit_file_url"}
    assert body["totals"] == {
        "files": 3,
        "lines": 6,
        "hits": 4,
        "misses": 1,
        "partials": 1,
        "coverage": 66.66,  # 4/6, rounded down
        "branches": 0,
        "methods": 0,
    }
    core = body["files"][1]
    assert core == {
        "name": "src/core.py",
        "totals": {
            "files": 1,
            "lines": 3,
            "hits": 1,
            "misses": 1,
            "partials": 1,
            "coverage": 33.33,
            "branches": 0,
            "methods": 0,
        },
        "line_coverage": [[1, 0], [2, 1], [3, 2]],
    }
    assert body["commit_file_url"] == f"http://localhost/gh/acme/widgets/commit/{SHA_MAIN}"


def test_sha_branch_and_the_default_branch_name_the_commit(testapp, history) -> None:
    def core_lines(**params):
        files = testapp.get(URL, params=params).json["files"]
        return next(f["line_coverage"] for f in files if f["name"] == "src/core.py")

    assert core_lines() == [[1, 0], [2, 1], [3, 2]]
    assert core_lines(branch="main") == [[1, 0], [2, 1], [3, 2]]
    assert core_lines(branch="feature/x") == [[1, 0], [2, 0], [3, 2]]
    assert core_lines(sha=SHA_FEATURE) == [[1, 0], [2, 0], [3, 2]]
    assert core_lines(sha=SHA_FEATURE[:7].upper()) == [[1, 0], [2, 0], [3, 2]]
    assert core_lines(sha=SHA_MAIN[:7]) == [[1, 0], [2, 1], [3, 2]]
    assert core_lines(sha=SHA_MAIN, branch="feature/x") == [[1, 0], [2, 1], [3, 2]]  # sha wins
    assert testapp.get(URL, params={"sha": SHA_FEATURE}).json["commit_file_url"].endswith(f"/commit/{SHA_FEATURE}")


def test_path_keeps_only_the_files_under_it_and_totals_follow(testapp, history) -> None:
    body = testapp.get(URL, params={"path": "src/"}).json
    assert [f["name"] for f in body["files"]] == ["src/cli.py", "src/core.py"]
    assert (body["totals"]["files"], body["totals"]["lines"], body["totals"]["hits"]) == (2, 5, 3)
    assert testapp.get(URL, params={"path": "src/c"}).json["totals"]["files"] == 2
    assert testapp.get(URL, params={"path": "SRC/"}).json["files"] == []  # case-sensitive
    empty = testapp.get(URL, params={"path": "docs/"}).json
    assert empty["files"] == [] and empty["totals"]["coverage"] == 0 and empty["totals"]["files"] == 0


@pytest.fixture
def private(testapp, history, db):
    """widgets made private; alice is an activated member of acme, nina a member not activated (an
    admin even), mallory no member; each has an access token."""
    history.private = True
    db.session.commit()
    operations.add_user("github", "alice")
    operations.add_user("github", "mallory")
    operations.add_user("github", "nina")
    operations.add_member("github", "acme", "alice", activated=True)
    operations.add_member("github", "acme", "nina", activated=False, admin=True)
    return {name: operations.create_token("github", name, name="t")[1] for name in ("alice", "mallory", "nina")}


def assert_not_found(response) -> None:
    assert response.status_code == 404 and response.json == {"detail": "Not found."}


def test_public_repositories_are_readable_without_a_token_private_ones_by_members(testapp, private) -> None:
    assert_not_found(testapp.get(URL, status=404))
    assert_not_found(testapp.get(URL, headers=bearer(private["mallory"]), status=404))
    # A membership counts once it is activated.
    assert_not_found(testapp.get(URL, headers=bearer(private["nina"]), status=404))
    assert testapp.get(URL, headers=bearer(private["alice"])).json["totals"]["files"] == 3
    # The same 404 whatever else is wrong: a private repository's existence does not leak.
    assert_not_found(testapp.get(URL, params={"sha": "zz"}, status=404))
    assert_not_found(testapp.get(URL.replace("widgets", "nope"), status=404))


def test_the_owner_reads_its_own_private_repository(app, testapp, private, db) -> None:
    acme = get_owner("github", "acme")

    @app.extensions["coverage"].service.verify_token
    def verify(token):
        return acme if token == "acme-token" else None

    assert testapp.get(URL, headers=bearer("acme-token")).json["totals"]["files"] == 3


def test_bad_credentials_are_a_401_even_on_public_repositories(testapp, history) -> None:
    for header in ["Bearer nope", "Bearer", "Basic abc", "Bearer a b"]:
        response = testapp.get(URL, headers={"Authorization": header}, status=401)
        assert response.headers["WWW-Authenticate"] == "Bearer" and "detail" in response.json


UNKNOWN = [
    "/api/v2/gh/acme/repos/widgets/report/",
    "/api/v2/GITHUB/acme/repos/widgets/report/",
    "/api/v2/gitlab/acme/repos/widgets/report/",
    "/api/v2/github/nobody/repos/widgets/report/",
    "/api/v2/github/acme/repos/gadgets/report/",
    "/api/v2/github/ac%00me/repos/widgets/report/",
    "/api/v2/github/acme/repos/wid%0Agets/report/",
    "/api/v2/github/acme/repos/wid/gets/report/",
    URL + "?sha=" + "3" * 40,
    URL + "?branch=nope",
    URL + "?branch=Main",
]


def test_unknown_anything_is_the_same_404(testapp, history) -> None:
    for url in UNKNOWN:
        assert_not_found(testapp.get(url, status=404))


def test_no_coverage_yet_is_a_404(testapp, widgets) -> None:
    assert_not_found(testapp.get(URL, status=404))


def test_a_deleted_repository_is_a_404(testapp, history, db) -> None:
    history.deleted = True
    db.session.commit()
    assert_not_found(testapp.get(URL, status=404))


MALFORMED = [
    ({"sha": "xyz1234"}, "sha"),
    ({"sha": "123456"}, "sha"),
    ({"sha": "1" * 65}, "sha"),
    ({"branch": ""}, "branch"),
    ({"branch": "a\x00b"}, "branch"),
    ({"path": "src/\x00"}, "path"),
]


def test_malformed_query_arguments_are_a_400_naming_them(testapp, history) -> None:
    for params, field in MALFORMED:
        response = testapp.get(URL, params=params, status=400)
        assert response.json["detail"] == "Invalid query parameters." and list(response.json["errors"]) == [field]


def test_other_methods_are_a_json_405(testapp, history) -> None:
    response = testapp.post(URL, status=405)
    assert response.json == {"detail": 'Method "POST" not allowed.'} and "GET" in response.headers["Allow"]


def test_the_report_is_in_the_openapi_document(testapp) -> None:
    document = testapp.get("/api/v2/openapi.json").json
    validate(document)
    operation = document["paths"]["/api/v2/{service}/{owner_username}/repos/{repo}/report/"]["get"]
    assert operation["operationId"] == "repos_report_retrieve"
    assert {p["name"] for p in operation["parameters"]} == {
        "service",
        "owner_username",
        "repo",
        "sha",
        "branch",
        "path",
        "flag",
    }
    assert {"200", "400", "401", "404"} <= set(operation["responses"])
    assert {} in operation["security"]  # a token is optional
    schema = document["components"]["schemas"]["FileReport"]["properties"]["line_coverage"]
    assert schema["type"] == "array" and schema["items"]["items"] == {"type": "integer"}


def test_private_answers_are_not_stored_by_any_cache(app, testapp, private) -> None:
    answer = testapp.get(URL, headers=bearer(private["alice"]))
    assert answer.headers["Cache-Control"] == "private, no-store"
    missing = testapp.get(URL.replace("widgets", "nope"), status=404)
    hidden = testapp.get(URL, status=404)
    assert (sorted(missing.headers.items()), missing.body) == (sorted(hidden.headers.items()), hidden.body)


def test_public_answers_may_be_cached(testapp, history) -> None:
    assert "Cache-Control" not in testapp.get(URL).headers


def test_the_report_is_streamed_in_pieces(app, testapp, widgets, make_lcov) -> None:
    """The body is produced while the rows are read, in pieces of about REPORT_PIECE characters (one
    write to the client each, not one per file); its totals are those of the files sent."""
    names = [f"src/p{n // 100}/module_{n:04d}.py" for n in range(1_500)]
    upload(testapp, widgets.upload_token, make_lcov({name: {1: 1, 2: 0} for name in names}), SHA_MAIN, branch="main")
    response = app.test_client().get(URL, buffered=False)
    assert response.is_streamed
    parts = [part if isinstance(part, str) else part.decode() for part in response.response]
    pieces = [part for part in parts if '"line_coverage": ' in part]
    assert len(pieces) >= 3
    longest_file = max(map(len, re.findall(r'\{"line_coverage": .*?\}\}', "".join(pieces))))
    for piece in pieces[:-1]:
        assert REPORT_PIECE <= len(piece) < REPORT_PIECE + longest_file + 2
    body = json.loads("".join(parts))
    assert [file["name"] for file in body["files"]] == sorted(names)
    for key in ("lines", "hits", "misses", "partials"):
        assert body["totals"][key] == sum(f["totals"][key] for f in body["files"])
    assert body["totals"]["files"] == len(body["files"])
    response.close()


def test_the_report_is_the_json_of_its_schemas(app, testapp, widgets, make_lcov) -> None:
    """Written by hand for speed, the body is the very text Flask's JSON provider gives the schemas' dump:
    keys sorted, the same separators, names escaped to ASCII, every coverage figure as before."""
    lines = {1: 1, 2: 0, 3: 1}
    report = make_lcov({"src/naïve/\u00e9t\u00e9.py": lines, 'src/q"uote.py': {1: 0}, "src/a.py": {1: 1, 5: 1}})
    upload(testapp, widgets.upload_token, report, SHA_MAIN, branch="main")
    for url in (URL, f"{URL}?path=src/n", f"{URL}?path=nothing/"):
        text = testapp.get(url).text
        body = json.loads(text)
        files = ", ".join(app.json.dumps(FileReportSchema().dump(file)) for file in body["files"])
        totals = app.json.dumps(CoverageTotalsSchema().dump(body["totals"]))
        url_json = app.json.dumps(body["commit_file_url"])
        assert text == f'{{"files": [{files}], "totals": {totals}, "commit_file_url": {url_json}}}'
    assert [file["totals"]["coverage"] for file in json.loads(testapp.get(URL).text)["files"]] == [100.0, 66.66, 0.0]
