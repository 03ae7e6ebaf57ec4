"""The v2 API's ``compare/flags/`` and ``compare/components/`` (docs/api.md) and the comment's components
section (docs/pull-requests.md) of a pull with a real diff, against totals computed here from the uploaded
reports and the diff."""

from __future__ import annotations

import random
import re

from flask import Flask

from flask_coverage import operations
from flask_coverage.feedback.notify import send_due
from flask_coverage.ingest import upload_report
from flask_coverage.ingest.target import UploadMeta
from flask_coverage.providers import PullInfo
from tests.fake_provider import RecordingProvider
from tests.git_history import History, lcov

REPO = "/api/v2/github/acme/repos/widgets"
# What base...second adds (tests/git_history.py): app.py lines 3, 4, 11, 12 and new.py 1 to 3.
ADDED = {"app.py": {3, 4, 11, 12}, "new.py": {1, 2, 3}}
YAML = """
component_management:
  individual_components:
    - component_id: app
      name: Application
      paths: ["app.py", "lib/"]
    - component_id: new_files
      paths: ["new\\\\.py$", "lib/**/*.py"]
    - component_id: empty
      paths: ["vendor/"]
    - component_id: unit
      flag_regexes: ["^unit$"]
"""


def random_files(rng: random.Random, paths: list[str]) -> dict[str, dict[int, object]]:
    return {path: {n: rng.choice([0, 1, 2, "partial"]) for n in range(1, 13)} for path in paths}


def totals(files: dict[str, dict[int, object]], wanted=lambda path: True, lines=None) -> dict | None:
    """Totals as the API gives them, of the files ``wanted`` selects (only their ``lines[path]``, if given)."""
    counts = {"hits": 0, "misses": 0, "partials": 0}
    chosen = 0
    for path, states in files.items():
        if not wanted(path) or (lines is not None and path not in lines):
            continue
        chosen += 1
        for number, hits in states.items():
            if lines is not None and number not in lines[path]:
                continue
            counts["partials" if hits == "partial" else "hits" if hits else "misses"] += 1
    total = sum(counts.values())
    coverage = (counts["hits"] * 10000 // total) / 100 if total else 0.0
    return {"files": chosen, "lines": total, **counts, "coverage": coverage, "branches": 0, "methods": 0}


def merged(*reports: dict) -> dict:
    out: dict[str, dict[int, object]] = {}
    rank = {0: 0, "partial": 1}
    for report in reports:
        for path, states in report.items():
            target = out.setdefault(path, {})
            for number, hits in states.items():
                old = target.get(number)
                target[number] = hits if old is None or rank.get(hits, 2) > rank.get(old, 2) else old
    return out


def test_flags_and_components_of_a_pull_match_the_reports(app: Flask, mirrored: History, testapp) -> None:
    rng = random.Random(38)
    paths = ["app.py", "new.py", "lib/util.py", "lib/deep/x.py", "other.py"]
    base = {flag: random_files(rng, [p for p in paths if p != "new.py"]) for flag in ("unit", "e2e")}
    head = {"unit": random_files(rng, paths), "e2e": random_files(rng, ["app.py", "other.py", "lib/util.py"])}
    operations.set_repository_yaml("github", "acme", "widgets", YAML)
    for sha, reports, branch in ((mirrored.base, base, "main"), (mirrored.second, head, "feature")):
        for flag, files in reports.items():
            upload_report("github/acme/widgets", lcov(files), commit=sha, branch=branch, meta=UploadMeta(flags=(flag,)))
    params = {"base": mirrored.base, "head": mirrored.second}

    flags = testapp.get(f"{REPO}/compare/flags/", params=params).json
    assert flags["count"] == 2
    expected = [
        {
            "name": flag,
            "base_report_totals": totals(base[flag]),
            "head_report_totals": totals(head[flag]),
            "diff_totals": totals(head[flag], lines=ADDED),
        }
        for flag in ("e2e", "unit")
    ]
    assert flags["results"] == expected

    everything_base, everything_head = merged(*base.values()), merged(*head.values())
    selectors = {
        "app": lambda p: p == "app.py" or p.startswith("lib/"),
        "new_files": lambda p: re.match(r"new\.py$", p) is not None or re.match(r"lib/.*/[^/]*\.py\Z", p) is not None,
        "empty": lambda p: p.startswith("vendor/"),
    }
    expected = []
    for component, wanted in selectors.items():
        expected.append(
            {
                "component_id": component,
                "name": "Application" if component == "app" else component,
                "base_report_totals": totals(everything_base, wanted),
                "head_report_totals": totals(everything_head, wanted),
                "diff_totals": totals(everything_head, wanted, ADDED),
            }
        )
    expected.append(
        {
            "component_id": "unit",
            "name": "unit",
            "base_report_totals": totals(base["unit"]),
            "head_report_totals": totals(head["unit"]),
            "diff_totals": totals(head["unit"], lines=ADDED),
        }
    )
    components = testapp.get(f"{REPO}/compare/components/", params=params).json
    assert components["results"] == expected
    assert expected[2]["head_report_totals"]["lines"] == 0  # the empty component: zero, not an error
    # A pull that has no uploads here: the 404.
    missing = testapp.get(f"{REPO}/compare/components/", params={"pullid": 7}, status=404)
    assert missing.json == {"detail": "Not found."}
    # A page of them, and the 404s and 400s of compare/.
    page = testapp.get(f"{REPO}/compare/components/", params={**params, "page_size": 3}).json
    assert page["results"] == expected[:3] and page["next"]
    for url in (f"{REPO}/compare/flags/", f"{REPO}/compare/components/"):
        assert testapp.get(url, params={"base": mirrored.base, "head": "f" * 40}, status=404).json
        assert testapp.get(url, params={"base": mirrored.base}, status=400).json["errors"]
        other = url.replace("widgets", "gadgets")
        assert testapp.get(other, params=params, status=404).json == {"detail": "Not found."}


def test_the_comment_s_components_section_shows_the_api_s_numbers(app: Flask, mirrored: History, testapp) -> None:
    provider = RecordingProvider(
        pulls={7: PullInfo(7, "open", "A change", "main", mirrored.base, "feature", mirrored.second)}
    )
    app.config.update(
        COVERAGE_PROVIDERS={"github": provider},
        COVERAGE_FEEDBACK_SENDER=False,
        COVERAGE_FEEDBACK_DELAY=0,
        COVERAGE_PUBLIC_URL="https://coverage.example",
    )
    yaml = YAML.replace(
        "component_management:", 'comment:\n  layout: "header, components, flags"\ncomponent_management:'
    )
    operations.set_repository_yaml("github", "acme", "widgets", yaml)
    rng = random.Random(7)
    paths = ["app.py", "new.py", "lib/util.py", "lib/deep/x.py"]
    base, head = random_files(rng, [p for p in paths if p != "new.py"]), random_files(rng, paths)
    upload_report(
        "github/acme/widgets", lcov(base), commit=mirrored.base, branch="main", meta=UploadMeta(flags=("unit",))
    )
    upload_report(
        "github/acme/widgets",
        lcov(head),
        commit=mirrored.second,
        branch="feature",
        pullid=7,
        parent=mirrored.base,
        meta=UploadMeta(flags=("unit",)),
    )
    while send_due():
        pass
    ((_, body),) = provider.comments.values()
    table = body[body.index("| Component | Coverage Δ |") :].split("\n\n")[0].splitlines()[2:]
    api = testapp.get(f"{REPO}/compare/components/", params={"pullid": 7}).json["results"]
    names = [re.sub(r"\\(.)", r"\1", row.split(" | ")[0].lstrip("| ")) for row in table]  # Markdown escapes undone
    assert names == [c["name"] for c in api]
    wanted = lambda p: p == "app.py" or p.startswith("lib/")  # noqa: E731
    app_row = table[0]
    head_totals, base_totals = totals(head, wanted), totals(base, wanted)
    patch = totals(head, wanted, ADDED)
    assert api[0]["head_report_totals"] == head_totals and api[0]["diff_totals"] == patch
    assert f"`{head_totals['coverage']:.2f}% <{patch['coverage']:.2f}%>" in app_row
    exact = (head_totals["hits"] / head_totals["lines"] - base_totals["hits"] / base_totals["lines"]) * 100
    shown = re.search(r"\(([+-][0-9.]+)%\)`", app_row)
    assert shown is not None and abs(float(shown[1]) - exact) < 0.01, (app_row, exact)
    # The empty component has no lines: Codecov's "?".
    assert table[2].startswith("| empty | `? ")
    assert "| Flag | Coverage Δ |" in body


def test_impacted_files_match_the_reports(app: Flask, mirrored: History, testapp) -> None:
    rng = random.Random(11)
    base = random_files(rng, ["app.py", "same.py", "dropped.py", "lib/util.py"])
    head = random_files(rng, ["app.py", "new.py", "lib/util.py"])
    head["same.py"] = dict(base["same.py"])  # unchanged and not in the diff: not impacted
    upload_report("github/acme/widgets", lcov(base), commit=mirrored.base, branch="main")
    upload_report("github/acme/widgets", lcov(head), commit=mirrored.second, branch="feature")

    def one(files, path):
        return totals({path: files[path]}) if path in files else None

    expected = []
    for path in sorted(set(base) | set(head)):
        before, after = one(base, path), one(head, path)
        if before == after and path not in ADDED:
            continue
        patch = totals({path: head[path]}, lines=ADDED) if path in ADDED and path in head else None
        change = round(after["coverage"] - before["coverage"], 2) if before and after else None
        expected.append(
            {
                "file_name": path,
                "base_name": path if before else None,
                "head_name": path if after else None,
                "is_new_file": before is None,
                "is_renamed_file": False,
                "is_deleted_file": after is None,
                "base_coverage": before,
                "head_coverage": after,
                "patch_coverage": patch,
                "change_coverage": change,
                "misses_count": after["misses"] + after["partials"] if after else 0,
            }
        )
    assert [f["file_name"] for f in expected] == ["app.py", "dropped.py", "lib/util.py", "new.py"]
    params = {"base": mirrored.base, "head": mirrored.second}
    body = testapp.get(f"{REPO}/compare/impacted_files/", params=params).json
    assert body["files"] == expected
    assert (body["base_commit"], body["head_commit"], body["state"], body["untracked"]) == (
        mirrored.base,
        mirrored.second,
        "processed",
        [],
    )
    assert body["totals"]["head"] == totals(head) and body["totals"]["base"] == totals(base)
    # Pages of it, and the comparison's 404s and 400s.
    page = testapp.get(f"{REPO}/compare/impacted_files/", params={**params, "page_size": 3}).json
    assert page["count"] == 4 and page["files"] == expected[:3]
    assert testapp.get(page["next"]).json["files"] == expected[3:]
    url = f"{REPO}/compare/impacted_files/"
    assert testapp.get(url, params={**params, "page": 3, "page_size": 3}, status=404).json == {
        "detail": "Invalid page."
    }
    assert testapp.get(url, params={"base": mirrored.base, "head": "e" * 40}, status=404).json
    assert testapp.get(url, params={"head": mirrored.base}, status=400).json["errors"]


# app.py from base to second (tests/git_history.py): lines 3 and 4 replaced, 11 and 12 added.
APP_PAIRS = [(1, 1), (2, 2), (None, 3), (None, 4), (3, None), (4, None)]
APP_PAIRS += [(n, n) for n in range(5, 11)] + [(None, 11), (None, 12), (11, 13), (12, 14)]


def state(hits) -> int | None:
    return None if hits is None else 2 if hits == "partial" else 0 if hits else 1


def test_one_file_line_by_line_and_its_segments(app: Flask, mirrored: History, testapp) -> None:
    rng = random.Random(5)
    base = random_files(rng, ["app.py", "other.py"])
    head = random_files(rng, ["app.py", "new.py"])
    upload_report("github/acme/widgets", lcov(base), commit=mirrored.base, branch="main")
    upload_report("github/acme/widgets", lcov(head), commit=mirrored.second, branch="feature")
    params = {"base": mirrored.base, "head": mirrored.second}
    body = testapp.get(f"{REPO}/compare/file/app.py", params=params).json
    assert body["name"] == {"base": "app.py", "head": "app.py"}
    assert body["totals"] == {
        "base": totals({"app.py": base["app.py"]}),
        "head": totals({"app.py": head["app.py"]}),
        "patch": totals({"app.py": head["app.py"]}, lines=ADDED),
    }
    assert body["has_diff"] is True and body["stats"] is None
    expected = [
        {
            "value": None,
            "number": {"base": before, "head": after},
            "coverage": {"base": state(base["app.py"].get(before)), "head": state(head["app.py"].get(after))},
            "is_diff": before is None or after is None,
            "added": before is None,
            "removed": after is None,
            "sessions": None
            if after not in head["app.py"]
            else (1 if head["app.py"][after] == "partial" else head["app.py"][after]),
        }
        for before, after in APP_PAIRS
    ]
    assert body["lines"] == expected
    # A new file, a dropped one, and one neither has.
    new = testapp.get(f"{REPO}/compare/file/new.py", params=params).json
    assert new["name"] == {"base": None, "head": "new.py"} and all(line["added"] for line in new["lines"][:3])
    dropped = testapp.get(f"{REPO}/compare/file/other.py", params=params).json
    assert dropped["name"] == {"base": "other.py", "head": None} and dropped["totals"]["head"] is None
    for url in (f"{REPO}/compare/file/nothing.py", f"{REPO}/compare/segments/nothing.py"):
        assert testapp.get(url, params=params, status=404).json == {"detail": "Not found."}

    # Segments: the changed lines with 3 lines of context, runs that meet made one.
    changed = [
        i
        for i, (before, after) in enumerate(APP_PAIRS)
        if before is None or after is None or expected[i]["coverage"]["base"] != expected[i]["coverage"]["head"]
    ]
    wanted = sorted({j for i in changed for j in range(max(0, i - 3), min(len(APP_PAIRS), i + 4))})
    runs: list[list[int]] = []
    for j in wanted:
        if runs and j == runs[-1][-1] + 1:
            runs[-1].append(j)
        else:
            runs.append([j])
    segments = testapp.get(f"{REPO}/compare/segments/app.py", params=params).json["segments"]
    assert [[(line["base_number"], line["head_number"]) for line in s["lines"]] for s in segments] == [
        [APP_PAIRS[j] for j in run] for run in runs
    ]
    first = segments[0]["lines"]
    assert [line["content"] for line in first if line["head_number"] in (3, 4)] == ["+", "+"]
    assert [line["content"] for line in first if line["base_number"] in (3, 4) and line["head_number"] is None] == [
        "-",
        "-",
    ]
