"""Absolute URLs come from ``COVERAGE_PUBLIC_URL``, never from a forged ``Host`` (issue 26, F10); without
it, from the request's host, which trusted hosts bound (docs/deployment.md). Passes on Flask 2.3 and 3.1."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import flask
import pytest
import webtest
from flask import Request

from flask_coverage import CoverageService, operations

SHA = "d" * 40
FORGED = {"HTTP_HOST": "evil.example"}


def _absolute_urls(app: flask.Flask, environ: dict[str, str], mount: str = "") -> list[str]:
    """Every absolute URL of an upload's answers, a v4 PUT URL and a page link, asked with ``environ``."""
    with app.app_context():
        operations.add_org("github", "acme")
        repository = operations.add_repo("github", "acme", "widgets")
        token = repository.upload_token
    client = webtest.TestApp(app, extra_environ=environ)
    query = urlencode({"commit": SHA, "token": token, "branch": "main"})
    report = b"SF:a.py\nDA:1,1\nend_of_record\nSF:b.py\nDA:1,0\nend_of_record\n"
    answer = client.post(f"{mount}/upload/v2?{query}", report, headers={"Content-Type": "text/plain"})
    put_url = client.post(f"{mount}/upload/v4?{query}", b"").text.split()[1]
    totals = client.get(f"{mount}/api/v2/github/acme/repos/widgets/totals/?page_size=1").json
    return [answer.text.split("\n")[1], put_url, totals["commit_file_url"], totals["next"]]


def test_absolute_urls_start_with_the_public_url_whatever_the_host(make_app, make_database_url) -> None:
    app = make_app(make_database_url(), COVERAGE_PUBLIC_URL="https://coverage.example.com/ci/")
    urls = _absolute_urls(app, FORGED)
    assert all(url.startswith("https://coverage.example.com/ci/") for url in urls), urls
    assert urls[0] == f"https://coverage.example.com/ci/gh/acme/widgets/commit/{SHA}"
    assert urls[1].startswith("https://coverage.example.com/ci/upload/put?signature=")
    assert urls[3] == "https://coverage.example.com/ci/api/v2/github/acme/repos/widgets/totals/?page_size=1&page=2"
    assert not any("evil" in url for url in urls)


def test_the_public_url_replaces_the_mount_point_too(make_app, make_database_url) -> None:
    app = make_app(make_database_url(), COVERAGE_PUBLIC_URL="https://coverage.example.com/ci")
    urls = _absolute_urls(app, {**FORGED, "SCRIPT_NAME": "/internal"}, mount="/internal")
    assert all(url.startswith("https://coverage.example.com/ci/") and "internal" not in url for url in urls), urls


def test_without_it_the_requests_host_and_mount_point(make_app, make_database_url) -> None:
    app = make_app(make_database_url())
    urls = _absolute_urls(app, {"HTTP_HOST": "cov.example.org", "SCRIPT_NAME": "/app"}, mount="/app")
    assert all(url.startswith("http://cov.example.org/app/") for url in urls), urls


class _TrustedRequest(Request):
    trusted_hosts = ["coverage.example.com"]


def _trusting(app: flask.Flask, how: str) -> None:
    if how == "TRUSTED_HOSTS":
        app.config["TRUSTED_HOSTS"] = ["coverage.example.com"]
    else:
        app.request_class = _TrustedRequest


@pytest.mark.parametrize("how", ["request class", "TRUSTED_HOSTS"])
def test_trusted_hosts_refuse_a_forged_host(make_app, make_database_url, how: str) -> None:
    if how == "TRUSTED_HOSTS" and "TRUSTED_HOSTS" not in flask.Flask.default_config:
        pytest.skip("Flask before 3.1 has no TRUSTED_HOSTS setting: the request class does it (the other case)")
    app = make_app(make_database_url())
    _trusting(app, how)
    with app.app_context():
        operations.add_org("github", "acme")
        token = operations.add_repo("github", "acme", "widgets").upload_token
    query = urlencode({"commit": SHA, "token": token})
    forged = webtest.TestApp(app, extra_environ=FORGED)
    answer: Any = forged.post(f"/upload/v4?{query}", b"", status=400)
    assert "upload/put" not in answer.text
    trusted = webtest.TestApp(app, extra_environ={"HTTP_HOST": "coverage.example.com"})
    assert (
        trusted.post(f"/upload/v4?{query}", b"").text.split()[1].startswith("http://coverage.example.com/upload/put?")
    )


@pytest.mark.parametrize("value", ["coverage.example.com", "ftp://x.example", "https://x.example/?a=1", "https://"])
def test_a_public_url_that_is_not_one_is_refused_at_start(value: str) -> None:
    app = flask.Flask("bad")
    app.config["COVERAGE_PUBLIC_URL"] = value
    with pytest.raises(ValueError, match="COVERAGE_PUBLIC_URL"):
        CoverageService(app)
