"""GitHub's webhook payloads as GitHub sends them, every field its description requires
(``@octokit/openapi``'s ``webhook-*`` schemas: tests/providers/test_account_hooks.py checks them)."""

from __future__ import annotations

from typing import Any

API = "https://api.github.com"
WEB = "https://github.com"
STAMP = "2026-11-28T12:00:00Z"


def user(login: str, user_id: int, kind: str = "User") -> dict[str, Any]:
    """An account (``simple-user``): a user, or an organization as an owner (``kind="Organization"``)."""
    url = f"{API}/users/{login}"
    return {
        "login": login,
        "id": user_id,
        "node_id": f"U_{user_id}",
        "type": kind,
        "site_admin": False,
        "gravatar_id": "",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{user_id}?v=4",
        "url": url,
        "html_url": f"{WEB}/{login}",
        **{
            f"{part}_url": f"{url}/{part}"
            for part in ("followers", "organizations", "received_events", "repos", "subscriptions")
        },
        "events_url": f"{url}/events{{/privacy}}",
        "following_url": f"{url}/following{{/other_user}}",
        "gists_url": f"{url}/gists{{/gist_id}}",
        "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
    }


def organization(login: str, org_id: int) -> dict[str, Any]:
    """An organization (``organization-simple-webhooks``)."""
    url = f"{API}/orgs/{login}"
    return {
        "login": login,
        "id": org_id,
        "node_id": f"O_{org_id}",
        "url": url,
        "description": "",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{org_id}?v=4",
        **{f"{part}_url": f"{url}/{part}" for part in ("repos", "events", "hooks", "issues")},
        "members_url": f"{url}/members{{/member}}",
        "public_members_url": f"{url}/public_members{{/member}}",
    }


_TEMPLATED = {
    "archive": "/{archive_format}{/ref}",
    "assignees": "{/user}",
    "blobs": "/git/blobs{/sha}",
    "branches": "{/branch}",
    "collaborators": "{/collaborator}",
    "comments": "{/number}",
    "commits": "{/sha}",
    "compare": "/compare/{base}...{head}",
    "contents": "/{+path}",
    "git_commits": "/git/commits{/sha}",
    "git_refs": "/git/refs{/sha}",
    "git_tags": "/git/tags{/sha}",
    "issue_comment": "/issues/comments{/number}",
    "issue_events": "/issues/events{/number}",
    "issues": "{/number}",
    "keys": "{/key_id}",
    "labels": "{/name}",
    "milestones": "{/number}",
    "notifications": "{?since,all,participating}",
    "pulls": "{/number}",
    "releases": "{/id}",
    "statuses": "/{sha}",
    "trees": "/git/trees{/sha}",
}
_PLAIN = "contributors deployments downloads events forks hooks languages merges stargazers subscribers"
_PLAIN += " subscription tags teams"


def repository(
    owner: dict[str, Any], name: str, repo_id: int, *, private: bool, branch: str = "main"
) -> dict[str, Any]:
    """A repository (``repository-webhooks``) of ``owner`` (:func:`user`)."""
    full_name = f"{owner['login']}/{name}"
    url = f"{API}/repos/{full_name}"
    urls = {f"{part}_url": url + "/" + part.split("_")[-1] + suffix for part, suffix in _TEMPLATED.items()}
    urls.update({f"{part}_url": f"{url}/{part}" for part in _PLAIN.split()})
    urls["archive_url"] = url + "/{archive_format}{/ref}"
    return {
        "id": repo_id,
        "node_id": f"R_{repo_id}",
        "name": name,
        "full_name": full_name,
        "private": private,
        "owner": owner,
        "html_url": f"{WEB}/{full_name}",
        "description": "",
        "fork": False,
        "url": url,
        **urls,
        "created_at": STAMP,
        "updated_at": STAMP,
        "pushed_at": STAMP,
        "git_url": f"git://github.com/{full_name}.git",
        "ssh_url": f"git@github.com:{full_name}.git",
        "clone_url": f"{WEB}/{full_name}.git",
        "svn_url": f"{WEB}/{full_name}",
        "homepage": "",
        "mirror_url": "",
        "language": "Python",
        "license": {
            "key": "mit",
            "name": "MIT License",
            "spdx_id": "MIT",
            "url": f"{API}/licenses/mit",
            "node_id": "L",
        },
        "size": 1,
        "stargazers_count": 0,
        "watchers_count": 0,
        "watchers": 0,
        "forks_count": 0,
        "forks": 0,
        "open_issues_count": 0,
        "open_issues": 0,
        "has_issues": True,
        "has_projects": True,
        "has_downloads": True,
        "has_wiki": True,
        "has_pages": False,
        "archived": False,
        "disabled": False,
        "default_branch": branch,
    }


def listed(item: dict[str, Any]) -> dict[str, Any]:
    """A repository as an installation's lists name it."""
    return {key: item[key] for key in ("id", "node_id", "name", "full_name", "private")}


def installation(account: dict[str, Any], installation_id: int = 42, selection: str = "selected") -> dict[str, Any]:
    """An installation of the App (``installation``) on ``account``."""
    return {
        "id": installation_id,
        "app_id": 1,
        "app_slug": "coverage",
        "target_id": account["id"],
        "target_type": account["type"],
        "account": account,
        "single_file_name": "",
        "repository_selection": selection,
        "access_tokens_url": f"{API}/app/installations/{installation_id}/access_tokens",
        "html_url": f"{WEB}/settings/installations/{installation_id}",
        "repositories_url": f"{API}/installation/repositories",
        "events": ["installation", "member", "membership", "organization", "repository"],
        "permissions": {"metadata": "read", "members": "read", "statuses": "write", "pull_requests": "write"},
        "created_at": STAMP,
        "updated_at": STAMP,
        "suspended_by": user("admin", 9),
        "suspended_at": STAMP,
    }


def team(org: dict[str, Any], name: str = "core", team_id: int = 77) -> dict[str, Any]:
    url = f"{API}/organizations/{org['id']}/team/{team_id}"
    return {
        "name": name,
        "id": team_id,
        "node_id": f"T_{team_id}",
        "slug": name,
        "description": "",
        "privacy": "closed",
        "notification_setting": "notifications_enabled",
        "url": url,
        "html_url": f"{WEB}/orgs/{org['login']}/teams/{name}",
        "members_url": url + "/members{/member}",
        "repositories_url": url + "/repos",
        "permission": "pull",
    }


def membership(org: dict[str, Any], member: dict[str, Any], role: str = "member") -> dict[str, Any]:
    return {
        "url": f"{API}/orgs/{org['login']}/memberships/{member['login']}",
        "state": "active",
        "role": role,
        "organization_url": org["url"],
        "user": member,
    }


SENDER = user("octocat", 5)


def event(action: str, **fields: Any) -> dict[str, Any]:
    """An event sent to the App: its action, its sender, its installation, and ``fields``."""
    return {"action": action, "sender": SENDER, "installation": {"id": 42, "node_id": "I_42"}, **fields}
