"""Endpoints.get, the one declaration of a JSON endpoint, on a blueprint of its own."""

from __future__ import annotations

from typing import Any, Optional

import pytest
from flask import Blueprint, Flask, jsonify, request
from marshmallow import EXCLUDE, Schema, fields, validate

from flask_coverage.endpoints import Endpoints
from flask_coverage.errors import CoverageError, Forbidden, NotFound, Unauthorized
from flask_coverage.http_errors import handle_errors
from flask_coverage.openapi import ApiDocument


class PathSchema(Schema):
    """The path."""

    name = fields.String(required=True, validate=validate.Length(max=8, error="Too long."))


class QuerySchema(Schema):
    """The query."""

    class Meta:
        unknown = EXCLUDE

    n = fields.Integer(load_default=1)


class ThingSchema(Schema):
    """A thing and its number."""

    name = fields.String()
    n = fields.Integer()


def authenticate(required: bool) -> Optional[str]:
    user = request.headers.get("X-User")
    if user is None and required:
        raise Unauthorized("Who are you?")
    if user == "bad":
        raise Unauthorized("Bad credentials.")
    return user


def lookup(user: Optional[str], name: str) -> str:
    if name == "hidden" or (name == "secret" and user != "alice"):
        raise NotFound("Not here.")
    if name == "admin" and user != "root":
        raise Forbidden("Not for you.")
    return name


@pytest.fixture
def client_and_document(app: Flask) -> tuple[Any, ApiDocument]:
    bp = Blueprint("things", __name__)
    handle_errors(bp, lambda error: jsonify(message=str(error)))
    document = ApiDocument(title="t", version="1")
    endpoints = Endpoints(authenticate=authenticate, route=bp.get, document=document)

    @endpoints.get(
        "/things/<name>",
        tag="Things",
        description="A thing.",
        auth="optional",
        path=PathSchema,
        lookup=lookup,
        query=QuerySchema,
        response=ThingSchema,
        headers={"Cache-Control": "no-store"},
        errors=(403,),
    )
    def things_retrieve(name: str, args: dict[str, Any]) -> dict[str, Any]:
        """One thing."""
        return {"name": name, "n": args["n"], "ignored": True}

    app.register_blueprint(bp)
    return app.test_client(), document


def test_the_view_gets_what_was_loaded_and_its_result_is_dumped(client_and_document) -> None:
    client, _ = client_and_document
    response = client.get("/things/box?n=3&other=x")
    assert response.status_code == 200
    assert response.json == {"name": "box", "n": 3}
    assert response.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    ("url", "headers", "status", "message"),
    [
        # Bad credentials come first, whatever else is wrong.
        ("/things/toolongname?n=x", {"X-User": "bad"}, 401, "Bad credentials."),
        # Then the path: a value the schema refuses is a 404 with the schema's message.
        ("/things/toolongname?n=x", {}, 404, "Too long."),
        # Then the lookup: missing and hidden are the same 404, before the query is read.
        ("/things/hidden?n=x", {}, 404, "Not here."),
        ("/things/secret?n=x", {"X-User": "bob"}, 404, "Not here."),
        ("/things/admin?n=x", {"X-User": "bob"}, 403, "Not for you."),
        # Then the query.
        ("/things/secret?n=x", {"X-User": "alice"}, 400, "Invalid query parameters."),
    ],
)
def test_each_step_answers_in_order(client_and_document, url, headers, status, message) -> None:
    client, _ = client_and_document
    response = client.get(url, headers=headers)
    assert (response.status_code, response.json["message"]) == (status, message)


def test_the_operation_is_written_from_the_same_objects(client_and_document) -> None:
    _, document = client_and_document
    operation = document.to_dict(url_prefix="/")["paths"]["/things/{name}"]["get"]
    assert operation["operationId"] == "things_retrieve"
    assert operation["security"] == [{"bearerAuth": []}, {}]
    assert {(p["in"], p["name"]) for p in operation["parameters"]} == {("path", "name"), ("query", "n")}
    assert sorted(operation["responses"]) == ["200", "400", "401", "403", "404"]
    assert operation["responses"]["200"]["description"] == "A thing and its number."


def test_a_views_coverage_error_is_answered_with_its_status_and_headers(app: Flask) -> None:
    bp = Blueprint("raising", __name__)
    handle_errors(bp, lambda error: jsonify(message=str(error)))

    @bp.get("/raise")
    def raising() -> Any:
        raise CoverageError("Slow down.", status=429, headers={"Retry-After": "1"})

    app.register_blueprint(bp)
    response = app.test_client().get("/raise")
    assert (response.status_code, response.json, response.headers["Retry-After"]) == (
        429,
        {"message": "Slow down."},
        "1",
    )
