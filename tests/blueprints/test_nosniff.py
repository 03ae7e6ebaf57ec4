"""Every answer of every blueprint of the service says ``X-Content-Type-Options: nosniff``."""

from __future__ import annotations

from typing import Any

from flask import Flask

from flask_coverage.blueprints import BLUEPRINT_NAMES

SHA = "a" * 40


def _urls(app: Flask) -> list[tuple[str, str]]:
    """(method, URL) for every rule of the service's blueprints, its arguments filled with plausible values."""
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint.split(".")[0] not in BLUEPRINT_NAMES:
            continue
        args: dict[str, Any] = {}
        for name in rule.arguments:
            converter = rule._converters[name]
            kind = type(converter).__name__.lower()
            if "any" in kind:
                args[name] = "gh" if "gh" in converter.items else sorted(converter.items)[0]  # type: ignore[attr-defined]
            elif "integer" in kind:
                args[name] = 1
            elif "path" in kind:
                args[name] = "pkg/mod.py"
            else:
                args[name] = SHA if name in ("sha", "commitid", "commit") else "acme"
        with app.test_request_context():
            from flask import url_for

            url = url_for(rule.endpoint, **args)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.append((method, url))
    return found


def test_every_answer_of_every_blueprint_says_nosniff(app: Flask, widgets: Any) -> None:
    client = app.test_client()
    urls = _urls(app)
    blueprints = {url.split("/")[1] for _, url in urls}
    assert len(urls) > 40 and {"api", "account", "_coverage", "upload", "gh"} <= blueprints
    statuses = set()
    for method, url in urls:
        response = client.open(url, method=method, data=b"{}", content_type="application/json")
        statuses.add(response.status_code)
        if response.status_code == 308:  # Werkzeug's redirect to the URL with a slash: before any blueprint
            continue
        assert response.headers.get("X-Content-Type-Options") == "nosniff", (method, url, response.status_code)
    # Successes, refusals, missing things and wrong methods alike.
    assert {200, 400, 404} <= statuses


def test_a_wrong_method_and_a_static_file_say_nosniff(app: Flask) -> None:
    client = app.test_client()
    assert client.delete("/api/v2/github/acme/").headers["X-Content-Type-Options"] == "nosniff"
    with client.get("/account/coverage-static/coverage.css") as static:
        assert static.status_code == 200 and static.headers["X-Content-Type-Options"] == "nosniff"


def test_the_host_apps_own_answers_are_left_alone(app: Flask) -> None:
    app.add_url_rule("/host", "host", lambda: "hello")
    assert "X-Content-Type-Options" not in app.test_client().get("/host").headers
