"""The demo data set: ``flask coverage demo`` in any host app, loaded through the upload path, idempotent."""

from __future__ import annotations

from collections import Counter
from typing import Any, Optional

import sqlalchemy as sa
import webtest

from flask_coverage.demo import active_demo_token, demo_access_token, demo_commits, load_demo
from flask_coverage.demo.data import DEMO_REPOSITORIES, generate_lcov, vary_lcov
from flask_coverage.models import AccessToken, Branch, Commit, FileCoverage, Pull, Repository, metadata
from flask_coverage.operations import add_repo, add_user, create_token
from flask_coverage.parsers import merge_by_path, parse_report
from flask_coverage.queries.repositories import find_repository, get_owner

GENERATED_FILES = 40


def table_rows(app: Any) -> dict[str, list[tuple]]:
    """Every row of every coverage table, without the columns a reload may change.

    Timestamps and ids change, and so do the references to commits and uploads, which are deleted and
    uploaded again (PostgreSQL's sequences give them new ids; SQLite may reuse them); :func:`tips` and
    :func:`file_hits` compare commits by sha instead.
    """
    volatile = {"id", "created_at", "updatestamp", "timestamp", "last_used", "read_at"}
    rows = {}
    with app.app_context(), app.extensions["sqlalchemy"].engine.connect() as connection:
        for table in metadata.sorted_tables:
            columns = [
                column
                for column in table.columns
                if column.name not in volatile
                and not any(
                    key.column.table.name in ("coverage_commit", "coverage_upload") for key in column.foreign_keys
                )
            ]
            rows[table.name] = sorted(map(tuple, connection.execute(sa.select(*columns))), key=repr)
    return rows


def tips(app: Any) -> set[tuple[str, str, str]]:
    """(repository, branch name or pull number, sha of the tip) of every branch and pull."""
    with app.app_context():
        session = app.extensions["sqlalchemy"].session
        found = set()
        for model, key in ((Branch, Branch.name), (Pull, Pull.pullid)):
            query = (
                sa.select(Repository.name, key, Commit.sha)
                .join(Commit, Commit.id == model.head_commit_id)
                .join(Repository, Repository.id == model.repository_id)
            )
            found |= {(name, str(value), sha) for name, value, sha in session.execute(query)}
        return found


def file_hits(app: Any) -> dict[tuple[str, str, str], tuple[int, int, int, int, bytes]]:
    """(repository, sha, path) -> the file's totals and line data."""
    with app.app_context():
        session = app.extensions["sqlalchemy"].session
        query = (
            sa.select(Repository.name, Commit.sha, FileCoverage.path, FileCoverage.lines, FileCoverage.hits)
            .join(Commit, Commit.id == FileCoverage.commit_id)
            .join(Repository, Repository.id == Commit.repository_id)
            .add_columns(FileCoverage.misses, FileCoverage.partials, FileCoverage.data)
        )
        return {(name, sha, path): tuple(rest) for name, sha, path, *rest in session.execute(query)}


def demo_sha(spec: Any, label: str) -> str:
    """The sha of the demo commit ``label`` of ``spec``."""
    _, commits = demo_commits(spec, GENERATED_FILES)
    return next(sha for upload, _, sha in commits if upload.label == label)


def test_loading_twice_leaves_the_same_data(make_app, make_database_url) -> None:
    app = make_app(make_database_url())
    with app.app_context():
        add_user("github", "zoe")
        add_repo("github", "zoe", "notes")
        first = load_demo(generated_files=GENERATED_FILES)
    rows, hits, heads = table_rows(app), file_hits(app), tips(app)
    with app.app_context():
        second = load_demo(generated_files=GENERATED_FILES)
    assert table_rows(app) == rows
    assert file_hits(app) == hits
    assert (
        tips(app) == heads
        and ("marshmallow", "fix/nested-partial", demo_sha(DEMO_REPOSITORIES[0], "nested partial 2")) in heads
    )
    assert second == first
    assert first.files == len(hits) > GENERATED_FILES
    with app.app_context():
        # Every demo commit holds exactly its own upload(s): nothing was merged twice.
        uploads = Counter((spec.name, demo_sha(spec, u.label)) for spec in DEMO_REPOSITORIES for u in spec.uploads)
        assert max(uploads.values()) == 2  # two jobs (flags) of one commit
        versions = app.extensions["sqlalchemy"].session.execute(
            sa.select(Repository.name, Commit.sha, Commit.version).join(Repository)
        )
        assert {(name, sha): version for name, sha, version in versions} == uploads
        # What is not demo data stays.
        assert find_repository("github", "zoe", "notes") is not None


def test_the_tips_hold_the_real_reports(app) -> None:
    summary = load_demo(generated_files=GENERATED_FILES)
    assert summary.repositories == (
        "github/acme/marshmallow",
        "github/acme/flask-sqlalchemy",
        "github/globex/d3-hierarchy",
        "github/globex/platform",
    )
    marshmallow = find_repository("github", "acme", "marshmallow")
    private = find_repository("github", "acme", "flask-sqlalchemy")
    assert not marshmallow.private and private.private
    session = app.extensions["sqlalchemy"].session

    def tip(repository: Repository, model: Any = Branch, **where: Any) -> Commit:
        query = sa.select(Commit).join(model, model.head_commit_id == Commit.id)
        query = query.where(model.repository_id == repository.id, *(getattr(model, k) == v for k, v in where.items()))
        return session.execute(query).scalar_one()

    main = tip(marshmallow, name="main")
    with open("tests/data/marshmallow.coverage.xml", "rb") as report:
        real = merge_by_path(parse_report(report.read()))
    assert (main.files, main.lines, main.hits) == (len(real), 1912, 1843)
    # Branches (one with a "/") and pulls have tips of their own, with less coverage than main.
    branch = tip(marshmallow, name="fix/nested-partial")
    pull = tip(marshmallow, Pull, pullid=41)
    assert branch.id == pull.id != main.id
    assert 0 < branch.hits < main.hits and branch.lines == main.lines
    commits = session.execute(sa.select(sa.func.count()).where(Commit.repository_id == marshmallow.id)).scalar()
    assert commits == 6
    platform = find_repository("github", "globex", "platform")
    assert tip(platform, name="main").files == GENERATED_FILES


def test_the_users_list_of_acme_has_several_pages(app) -> None:
    summary = load_demo(generated_files=GENERATED_FILES)
    client = webtest.TestApp(app)
    headers = {"Authorization": f"Bearer {summary.token}"}
    first = client.get("/api/v2/github/acme/users/", headers=headers).json
    assert first["count"] == 63 and first["total_pages"] == 4 and len(first["results"]) == 20
    assert first["next"].endswith("/api/v2/github/acme/users/?page=2")
    last = client.get("/api/v2/github/acme/users/?page=4", headers=headers).json
    assert len(last["results"]) == 3 and last["next"] is None
    admins = client.get("/api/v2/github/acme/users/?is_admin=true", headers=headers).json
    assert admins["count"] == 4 and "alice" in {user["username"] for user in admins["results"]}
    inactive = client.get("/api/v2/github/acme/users/?activated=false&page_size=100", headers=headers).json
    assert inactive["count"] == 11 and "dave" in {user["username"] for user in inactive["results"]}
    # carol is not in acme: the same 404 as for an unknown organization.
    _, carol_token = create_token("github", "carol", name="laptop")
    client.get("/api/v2/github/acme/users/", headers={"Authorization": f"Bearer {carol_token}"}, status=404)
    client.get("/api/v2/github/globex/users/", headers={"Authorization": f"Bearer {carol_token}"}, status=200)


def test_the_demo_token_is_derived_from_the_secret_key(make_app, make_database_url) -> None:
    app = make_app(make_database_url())
    app.config["SECRET_KEY"] = "one key"
    with app.app_context():
        assert active_demo_token() is None
        token = load_demo(generated_files=GENERATED_FILES).token
        assert token == demo_access_token() == active_demo_token()
        alice = get_owner("github", "alice")
        tokens = app.extensions["sqlalchemy"].session.execute(
            sa.select(AccessToken.name).where(AccessToken.owner_id == alice.id)
        )
        assert list(tokens.scalars()) == ["demo"]
    other = make_app(make_database_url())
    other.config["SECRET_KEY"] = "another key"
    with other.app_context():
        assert demo_access_token() != token


def test_without_a_secret_key_each_load_replaces_the_token(make_app, make_database_url, make_runner) -> None:
    app = make_app(make_database_url())
    app.config["SECRET_KEY"] = None
    runner = make_runner(app)
    tokens = []
    for _ in range(2):
        result = runner.invoke(args=["coverage", "demo", "--files", str(GENERATED_FILES)])
        assert result.exit_code == 0, result.output
        assert "4 repositories" in result.output and "github/acme/flask-sqlalchemy" in result.output
        tokens.append(result.output.split("Bearer ")[1].split("'")[0])
    assert tokens[0] != tokens[1]
    client = webtest.TestApp(app)
    client.get("/api/v2/github/acme/users/", headers={"Authorization": f"Bearer {tokens[0]}"}, status=401)
    client.get("/api/v2/github/acme/users/", headers={"Authorization": f"Bearer {tokens[1]}"}, status=200)


def test_a_demo_name_taken_by_the_other_kind_of_owner_is_an_error(runner) -> None:
    assert runner.invoke(args=["coverage", "add-user", "github", "acme"]).exit_code == 0
    result = runner.invoke(args=["coverage", "demo", "--files", "1"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "Error: 'acme' already exists on github but is not an organization"
    assert get_owner("github", "acme").is_org is False


def test_generated_and_varied_reports_are_reproducible() -> None:
    report = generate_lcov(120)
    assert report == generate_lcov(120) != generate_lcov(120, seed=1)
    files = merge_by_path(parse_report(report))
    assert len(files) == 120
    coverages = [lines.totals().coverage for lines in files.values()]
    # Some files well covered, some badly: the graphs get every color.
    assert min(coverages) < 50 < 90 < max(coverages)

    with open("tests/data/d3-hierarchy.lcov", "rb") as source:
        real = source.read()
    variant = vary_lcov(real, seed=7, miss_rate=0.2, drop_files=3)
    assert variant == vary_lcov(real, seed=7, miss_rate=0.2, drop_files=3)
    real_files, varied = merge_by_path(parse_report(real)), merge_by_path(parse_report(variant))
    assert len(varied) == len(real_files) - 3
    assert sum(f.totals().hits for f in varied.values()) < sum(real_files[p].totals().hits for p in varied)
    assert all(varied[p].totals().lines == real_files[p].totals().lines for p in varied)


def test_the_demo_mirrors_hold_source_that_matches_the_reports(make_app, make_database_url, tmp_path) -> None:
    """With COVERAGE_SOURCE_GIT_ROOT set, the demo writes bare repositories that git itself reads: at
    every tip, each file's tracked lines hold code and its other lines comments, line for line."""
    import subprocess

    from flask_coverage.queries.files import file_lines, file_totals
    from flask_coverage.queries.targets import resolve_commit

    root = tmp_path / "mirrors"
    app = make_app(make_database_url(), COVERAGE_SOURCE_GIT_ROOT=str(root))
    with app.app_context():
        assert load_demo(generated_files=GENERATED_FILES).mirrors == str(root)
        git_dir = root / "github" / "globex" / "d3-hierarchy.git"
        env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin"}

        def git(*args: str) -> str:
            command = ["git", f"--git-dir={git_dir}", *args]
            return subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout  # noqa: S603

        git("fsck", "--strict")
        repository = find_repository("github", "globex", "d3-hierarchy")
        for branch in ("main", "treemap/binary"):
            commit = resolve_commit(repository, branch=branch)
            assert git("rev-parse", f"refs/heads/{branch}").strip() == commit.sha
            for file in file_totals(commit):
                text = git("show", f"{commit.sha}:{file.path}").split("\n")[:-1]
                tracked = {number for number, _, _ in file_lines(commit, file.path)}
                assert len(text) == max(tracked)
                for number, line in enumerate(text, 1):
                    assert line.startswith("//") != (number in tracked), (file.path, number, line)


def test_demo_commits_name_their_parents_and_have_a_trend(app, testapp) -> None:
    token = {"Authorization": f"Bearer {load_demo(generated_files=GENERATED_FILES).token}"}  # alice's: sees all
    for spec in DEMO_REPOSITORIES:
        _, uploads = demo_commits(spec, GENERATED_FILES)
        shas = list(dict.fromkeys(sha for _, _, sha in uploads))
        url = f"/api/v2/github/{spec.owner}/repos/{spec.name}/commits/?page_size=100"
        parents = {commit["commitid"]: commit["parent"] for commit in testapp.get(url, headers=token).json["results"]}
        # One line of commits: each names the one before it, as an uploader sends its parent.
        assert parents == dict(zip(shas, [None, *shas[:-1]]))
        trend = testapp.get(f"/api/v2/github/{spec.owner}/repos/{spec.name}/coverage/?interval=1d", headers=token)
        assert trend.json["count"] == 1 and 0 < trend.json["results"][0]["avg"] <= 100


def test_a_demo_pull_is_compared_with_its_base_on_main_not_its_own_first_commit(app, testapp) -> None:
    token = {"Authorization": f"Bearer {load_demo(generated_files=GENERATED_FILES).token}"}
    spec = next(spec for spec in DEMO_REPOSITORIES if spec.name == "marshmallow")
    _, uploads = demo_commits(spec, GENERATED_FILES)
    sha = {upload.label: sha for upload, _, sha in uploads}
    compare = testapp.get("/api/v2/github/acme/repos/marshmallow/compare/?pullid=41", headers=token).json
    assert compare["head_commit"] == sha["nested partial 2"]
    assert compare["base_commit"] == sha["4.0.0"]  # not "nested partial 1", the pull's own first push


def test_the_curl_line_names_the_port_flask_run_serves_on(app, runner) -> None:
    def curl_url(*args: str, env: Optional[dict[str, str]] = None) -> str:
        result = runner.invoke(args=["coverage", "demo", "--files", "1", *args], env=env)
        assert result.exit_code == 0, result.output
        line = next(line for line in result.output.splitlines() if line.strip().startswith("curl "))
        return line.split()[-1]

    users = "/api/v2/github/acme/users/"
    assert curl_url(env={"FLASK_RUN_PORT": "", "FLASK_RUN_HOST": ""}) == f"http://127.0.0.1:5000{users}"
    assert curl_url(env={"FLASK_RUN_PORT": "8123"}) == f"http://127.0.0.1:8123{users}"
    assert curl_url("--url", "https://cov.example.org/") == f"https://cov.example.org{users}"
    app.config["SERVER_NAME"] = "cov.internal:8080"
    assert curl_url(env={"FLASK_RUN_PORT": "8123"}) == f"http://cov.internal:8080{users}"
