"""Each client finds the service's comment by its marker (``Provider.find_comment``), against the
recording fakes with the providers' comment lists as their API docs page them: GitHub's issue comments
(oldest first, ``per_page``/``page``, a ``Link`` header naming the last page), GitLab's notes
(``sort=desc``, ``X-Next-Page``), Bitbucket Cloud's comments (``sort=-created_on``, ``pagelen``, a
``next`` URL) and Bitbucket Server's pull request activities (newest first, ``start``/``limit``,
``isLastPage``/``nextPageStart``).

The case each test plays: a comment posted whose id the service never stored (the sender was killed,
or the answer lost), then a new sending: it finds that comment and edits it, so the pull has one."""

from __future__ import annotations

import re
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

import pytest
from fakes import FakeHost, Request
from test_bitbucket_server import REPO as SERVER_REPO
from test_bitbucket_server import server  # noqa: F401 - a fixture
from test_github import REPO as GITHUB_REPO
from test_github import github  # noqa: F401 - a fixture
from test_gitlab_bitbucket import bitbucket, gitlab, repository  # noqa: F401 - fixtures

from flask_coverage.feedback.comment import marked, marker
from flask_coverage.models import Repository, ServiceEnum
from flask_coverage.providers import COMMENT_PAGES, Provider

PAGE = 100


def query(request: Request) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(request.path).query).items()}


def github_list(host: FakeHost) -> None:
    comments: dict[int, str] = host.state["comments"]

    @host.route("GET", r"/repos/acme/widgets/issues/(\d+)/comments")
    def listed(request: Request, match: re.Match[str]) -> Any:
        asked = query(request)
        size, page = int(asked.get("per_page", 30)), int(asked.get("page", 1))
        items = [{"id": key, "body": body} for key, body in sorted(comments.items())]  # oldest first
        last = max(1, -(-len(items) // size))
        link = f'<{host.url}/api/v3/repositories/1/issues/7/comments?per_page={size}&page={last}>; rel="last"'
        headers = {"Link": link} if last > 1 else {}
        return 200, items[(page - 1) * size : page * size], headers


def gitlab_list(host: FakeHost) -> None:
    comments: dict[int, str] = host.state["comments"]

    @host.route("GET", r"/projects/acme%2Fwidgets/merge_requests/3/notes")
    def listed(request: Request, match: re.Match[str]) -> Any:
        asked = query(request)
        assert (asked["sort"], asked["order_by"]) == ("desc", "created_at")
        size, page = int(asked["per_page"]), int(asked["page"])
        items = [{"id": key, "body": body, "system": False} for key, body in sorted(comments.items(), reverse=True)]
        more = page * size < len(items)
        return 200, items[(page - 1) * size : page * size], {"X-Next-Page": str(page + 1) if more else ""}


def bitbucket_list(host: FakeHost) -> None:
    comments: dict[int, str] = host.state["comments"]

    @host.route("GET", r"/repositories/acme/widgets/pullrequests/5/comments")
    def listed(request: Request, match: re.Match[str]) -> Any:
        asked = query(request)
        assert asked["sort"] == "-created_on"
        size, page = int(asked["pagelen"]), int(asked.get("page", 1))
        items = [{"id": key, "content": {"raw": body}} for key, body in sorted(comments.items(), reverse=True)]
        answer: dict[str, Any] = {"values": items[(page - 1) * size : page * size], "page": page, "pagelen": size}
        if page * size < len(items):
            answer["next"] = f"{host.url}/2.0/repositories/acme/widgets/pullrequests/5/comments?" + (
                f"sort=-created_on&pagelen={size}&page={page + 1}"
            )
        return 200, answer, {}


def server_list(host: FakeHost) -> None:
    comments: dict[int, dict[str, Any]] = host.state["comments"]

    @host.route("GET", r"/rest/api/1.0/projects/ACME/repos/widgets/pull-requests/12/activities")
    def listed(request: Request, match: re.Match[str]) -> Any:
        asked = query(request)
        size, start = int(asked["limit"]), int(asked["start"])
        items: list[dict[str, Any]] = []
        for key, comment in sorted(comments.items(), reverse=True):
            items.append({"id": 9000 + key, "action": "COMMENTED", "commentAction": "ADDED", "comment": comment})
            items.append({"id": 8000 + key, "action": "APPROVED"})  # other activities between them
        values = items[start : start + size]
        last = start + size >= len(items)
        answer: dict[str, Any] = {"values": values, "start": start, "limit": size, "size": len(values)}
        answer["isLastPage"] = last
        if not last:
            answer["nextPageStart"] = start + size
        return 200, answer, {}


def server_add(host: FakeHost, text: str) -> None:
    comments = host.state["comments"]
    key = max(comments, default=40) + 1
    comments[key] = {"id": key, "version": 0, "text": text}


def plain_add(host: FakeHost, text: str) -> None:
    comments = host.state["comments"]
    comments[max(comments, default=100) + 1] = text


#: Per provider: its fixture, the pull, the repository, its list route, how a user's comment is added,
#: and a comment's text as the fake keeps it.
CASES: dict[str, tuple[str, int, Callable[[], Repository], Callable[[FakeHost], None], Any, Any]] = {
    "github": ("github", 7, lambda: GITHUB_REPO, github_list, plain_add, lambda kept: kept),
    "gitlab": ("gitlab", 3, lambda: repository(ServiceEnum.gitlab), gitlab_list, plain_add, lambda kept: kept),
    "bitbucket": (
        "bitbucket",
        5,
        lambda: repository(ServiceEnum.bitbucket),
        bitbucket_list,
        plain_add,
        lambda kept: kept,
    ),
    "bitbucket_server": ("server", 12, lambda: SERVER_REPO, server_list, server_add, lambda kept: kept["text"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_comment_whose_id_was_lost_is_found_and_edited(request: pytest.FixtureRequest, name: str) -> None:
    fixture, pull, repo_of, lists, add, text = CASES[name]
    host: FakeHost
    client: Provider
    host, client = request.getfixturevalue(fixture)
    lists(host)
    repo = repo_of()
    for n in range(150):  # others' comments, more than a page; one quotes another pull's marker
        add(host, marked("LGTM", pull * 10) if n == 3 else f"comment {n}")
    assert client.find_comment(repo, pull, marker(pull)) is None  # a first post: none there
    lost = client.upsert_comment(repo, pull, marked("## Coverage 80%", pull), None)  # its id never stored
    for n in range(120):
        add(host, f"later {n}")
    host.requests.clear()
    found = client.find_comment(repo, pull, marker(pull))
    assert found == lost
    listed = [r for r in host.requests if r.method == "GET" and "/comments/" not in r.route]
    assert 1 <= len(listed) <= COMMENT_PAGES
    assert client.upsert_comment(repo, pull, marked("## Coverage 90%", pull), found) == lost
    ours = [key for key, kept in host.state["comments"].items() if marker(pull) in text(kept)]
    assert ours == [int(lost)] and text(host.state["comments"][int(lost)]).startswith("## Coverage 90%")
    assert len(host.state["comments"]) == 271  # one comment of ours, edited


@pytest.mark.parametrize("name", list(CASES))
def test_the_search_is_bounded(request: pytest.FixtureRequest, name: str) -> None:
    """A comment of ours buried under more than ``COMMENT_PAGES`` pages of others' is not looked for
    (the newest pages are read: on GitHub also its first page, which it reads to find the last)."""
    fixture, pull, repo_of, lists, add, _ = CASES[name]
    host, client = request.getfixturevalue(fixture)
    lists(host)
    repo = repo_of()
    for n in range(PAGE + 50):
        add(host, f"comment {n}")
    add(host, marked("## Coverage", pull))  # oldest-first index 150: page 2; newest first: far back
    for n in range((COMMENT_PAGES + 1) * PAGE):
        add(host, f"later {n}")
    host.requests.clear()
    assert client.find_comment(repo, pull, marker(pull)) is None
    assert len([r for r in host.requests if r.method == "GET"]) == COMMENT_PAGES
