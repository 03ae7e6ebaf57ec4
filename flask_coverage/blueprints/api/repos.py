"""The v2 API of owners, repositories, commits, branches and pulls, in Codecov's shapes (docs/api.md).

Its views join :data:`flask_coverage.blueprints.api.bp`; the SQL is in :mod:`flask_coverage.queries.lists`.
Who reads what is ``auth``'s rule (docs/architecture.md): public repositories without a token, private ones
by the users the git host lets read them; anything unknown or not visible gets the same 404.
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify
from sqlalchemy import Row

from ...codecov_yml.settings import commit_settings
from ...feedback.outbox import report_of
from ...models import Branch, Commit, Owner, OwnerRow, Repository, ServiceEnum
from ...queries.lists import (
    branches_query,
    commit_rows,
    commits_query,
    owners_query,
    pull_row,
    pull_rows,
    pulls_query,
    repositories_query,
    repository_row,
    repository_rows,
)
from ...queries.lookups import any_owner, owner_with_user, readable_branch, readable_commit, readable_pull, signed_in
from ...schemas.common import CommitPathSchema, OwnerPathSchema, PaginationQuerySchema, ServicePathSchema
from ...schemas.report import report_json
from ...schemas.repos import (
    BranchDetailSchema,
    BranchPathSchema,
    BranchSchema,
    CommitDetailSchema,
    CommitFeedbackSchema,
    CommitListQuerySchema,
    CommitSchema,
    CommitYamlSchema,
    OwnerSchema,
    PaginatedBranchListSchema,
    PaginatedCommitListSchema,
    PaginatedOwnerListSchema,
    PaginatedPullListSchema,
    PaginatedRepositoryListSchema,
    PullPathSchema,
    PullSchema,
    RepositoryListQuerySchema,
    RepositorySchema,
    repository_body,
)
from . import api_get, document, repo_get

document.tags.update(
    {
        "Owners": "Users and organizations.",
        "Repos": "The repositories of an owner.",
        "Commits": "The commits of a repository with coverage.",
        "Branches": "The branches of a repository and their tips.",
        "Pulls": "The pull requests of a repository and their coverage.",
    }
)


def commit_detail_json(commit: Commit) -> list[str]:
    """A commit with its report (``CommitDetailSchema``) as JSON text, the report written file by file."""
    head = current_app.json.dumps(_COMMIT_SCHEMA.dump(commit))
    return [head[:-1], ', "report": {', *report_json(commit), "}}"]


@api_get(
    # The services by name: any other one-segment path stays the catch-all's 404, not a redirect to "/".
    f"/<any({', '.join(service.value for service in ServiceEnum)}):service>/",
    tag="Owners",
    description="The caller's own account and the organizations it is a member of, on the service, by "
    "username (case-insensitive).",
    auth="required",
    path=ServicePathSchema,
    lookup=signed_in,
    query=PaginationQuerySchema,
    response=PaginatedOwnerListSchema,
)
def owners_list(found: tuple[Owner, ServiceEnum], args: dict[str, Any]) -> Any:
    """The owners the caller has access to."""
    return owners_query(*found)


@api_get(
    "/<service>/<coverage_name:owner_username>/",
    tag="Owners",
    description="The service, username and name of a user or an organization.",
    auth="optional",
    path=OwnerPathSchema,
    lookup=any_owner,
    response=OwnerSchema,
)
def owners_retrieve(owner: OwnerRow, args: dict[str, Any]) -> OwnerRow:
    """One owner."""
    return owner


@api_get(
    "/<service>/<coverage_name:owner_username>/repos/",
    tag="Repos",
    description="The repositories of an owner by name (case-insensitive), each with the totals of the tip of its "
    "default branch (null before the first upload there). Private repositories are listed only for those who may "
    "read them: the users the git host lets read them (for a repository the host does not know, the owner and "
    "its activated members).",
    auth="optional",
    path=OwnerPathSchema,
    lookup=owner_with_user,
    query=RepositoryListQuerySchema,
    response=PaginatedRepositoryListSchema,
    rows=repository_rows,
    item=repository_body,
)
def repos_list(found: tuple[OwnerRow, int], args: dict[str, Any]) -> Any:
    """The repositories of an owner."""
    owner, reader = found
    names = {name: args.get(name) for name in ("active", "names", "search")}
    return repositories_query(owner.id, reader_id=reader, **names)


@repo_get(
    "/",
    tag="Repos",
    description="One repository with the totals of the tip of its default branch.",
    response=RepositorySchema,
)
def repos_retrieve(repository: Repository, args: dict[str, Any]) -> Response:
    """One repository."""
    return jsonify(repository_body(repository_row(repository)))


@repo_get(
    "/commits/",
    tag="Commits",
    description="The commits of a repository (of one branch with `branch`), newest first.",
    query=CommitListQuerySchema,
    response=PaginatedCommitListSchema,
    rows=commit_rows,
)
def commits_list(repository: Repository, args: dict[str, Any]) -> Any:
    """The commits of a repository."""
    return commits_query(repository, branch=args.get("branch"))


@repo_get(
    "/commits/<sha>/",
    tag="Commits",
    description="One commit (full sha or a unique prefix of at least 7 hex digits) with its totals and its "
    "report (as the report endpoint's).",
    path=CommitPathSchema,
    lookup=readable_commit,
    response=CommitDetailSchema,
)
def commits_retrieve(commit: Commit, args: dict[str, Any]) -> Response:
    """One commit with its report."""
    return Response(commit_detail_json(commit), mimetype="application/json")


@repo_get(
    "/commits/<sha>/yaml/",
    tag="Commits",
    description="The codecov.yml that applies to a commit: its own (read from the git mirror or the provider), "
    "else the repository's stored YAML, merged over the defaults; and the error of its own file when it was "
    "ignored as invalid.",
    path=CommitPathSchema,
    lookup=readable_commit,
    response=CommitYamlSchema,
)
def commits_yaml_retrieve(commit: Commit, args: dict[str, Any]) -> dict[str, Any]:
    """The codecov.yml of a commit."""
    settings = commit_settings(commit.repository, commit)
    return {"source": settings.source, "error": settings.error, "yaml": settings.value}


@repo_get(
    "/commits/<sha>/feedback/",
    tag="Commits",
    description="What was sent to the provider for a commit: each status (and the pull's comment) with its "
    "state, description, when it was sent and the last error; and the feedback still owed (due when, attempts, "
    "last error).",
    path=CommitPathSchema,
    lookup=readable_commit,
    response=CommitFeedbackSchema,
)
def commits_feedback_retrieve(commit: Commit, args: dict[str, Any]) -> dict[str, Any]:
    """The feedback of a commit."""
    report = report_of(commit.id)
    return {"pending": report.pending, "sent": report.sent}


@repo_get(
    "/branches/",
    tag="Branches",
    description="The branches of a repository, by name.",
    query=PaginationQuerySchema,
    response=PaginatedBranchListSchema,
)
def branches_list(repository: Repository, args: dict[str, Any]) -> Any:
    """The branches of a repository."""
    return branches_query(repository)


@repo_get(
    "/branches/<coverage_name:name>/",
    tag="Branches",
    description="One branch (its name may hold /) with its tip commit, its totals and its report.",
    path=BranchPathSchema,
    lookup=readable_branch,
    response=BranchDetailSchema,
)
def branches_retrieve(branch: Branch, args: dict[str, Any]) -> Response:
    """One branch with its tip."""
    head = current_app.json.dumps(_BRANCH_SCHEMA.dump(branch))
    return Response(
        [head[:-1], ', "head_commit": ', *commit_detail_json(branch.head), "}"], mimetype="application/json"
    )


_BRANCH_SCHEMA = BranchSchema()
_COMMIT_SCHEMA = CommitSchema()


@repo_get(
    "/pulls/",
    tag="Pulls",
    description="The pull requests of a repository, newest (highest number) first, with the totals of their base "
    "and head commits.",
    query=PaginationQuerySchema,
    response=PaginatedPullListSchema,
    rows=pull_rows,
)
def pulls_list(repository: Repository, args: dict[str, Any]) -> Any:
    """The pull requests of a repository."""
    return pulls_query(repository)


@repo_get(
    "/pulls/<pullid>/",
    tag="Pulls",
    description="One pull request with the totals of its base and head commits.",
    path=PullPathSchema,
    lookup=readable_pull,
    response=PullSchema,
)
def pulls_retrieve(row: Any, args: dict[str, Any]) -> Row:
    """One pull request."""
    return pull_row(row[0])
