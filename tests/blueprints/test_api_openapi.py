"""The OpenAPI document of the v2 API, and the users list driven from it by generated requests."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from openapi_spec_validator import validate
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from flask_coverage.auth import generate_token, hash_token
from flask_coverage.models import AccessToken, Membership, Owner, ServiceEnum
from flask_coverage.openapi import BEARER_AUTH, ApiDocument, error_responses
from flask_coverage.schemas.common import OwnerPathSchema
from flask_coverage.schemas.users import UserSchema
from flask_coverage.state import get_session

USERS_PATH = "/api/v2/{service}/{owner_username}/users/"
# No 500, and every status, content type, header and body as the document says.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def operations_by_id(document: dict) -> dict[str, dict]:
    return {operation["operationId"]: operation for path in document["paths"].values() for operation in path.values()}


def test_the_document_is_valid_openapi_3_and_describes_the_users_list(testapp) -> None:
    response = testapp.get("/api/v2/openapi.json", status=200)
    assert response.content_type == "application/json"
    document = response.json
    validate(document)
    assert document["openapi"].startswith("3.")

    operation = document["paths"][USERS_PATH]["get"]
    assert operation["operationId"] == "users_list"
    assert operation["tags"] == ["Users"]
    assert operation["security"] == [{BEARER_AUTH: []}]
    assert document["components"]["securitySchemes"][BEARER_AUTH] == {"type": "http", "scheme": "bearer"}
    parameters = {(parameter["in"], parameter["name"]): parameter for parameter in operation["parameters"]}
    assert set(parameters) == {
        ("path", "service"),
        ("path", "owner_username"),
        ("query", "activated"),
        ("query", "is_admin"),
        ("query", "page"),
        ("query", "page_size"),
        ("query", "search"),
    }
    assert parameters["path", "service"]["schema"] == {"$ref": "#/components/schemas/ServiceEnum"}
    assert parameters["query", "activated"]["schema"]["type"] == "boolean"
    assert parameters["query", "page"]["schema"] == {"type": "integer", "minimum": 1, "default": 1}
    assert parameters["query", "page_size"]["schema"]["minimum"] == 1
    assert set(operation["responses"]) == {"200", "400", "401", "404"}
    assert "WWW-Authenticate" in operation["responses"]["401"]["headers"]
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/PaginatedUserList"}


def test_the_components_have_the_user_fields_and_exactly_the_six_services(testapp) -> None:
    schemas = testapp.get("/api/v2/openapi.json").json["components"]["schemas"]
    assert schemas["ServiceEnum"]["enum"] == [
        "github",
        "gitlab",
        "bitbucket",
        "github_enterprise",
        "gitlab_enterprise",
        "bitbucket_server",
    ]
    assert [service.value for service in ServiceEnum] == schemas["ServiceEnum"]["enum"]
    user = schemas["User"]
    assert (
        set(user["required"])
        == set(user["properties"])
        == {
            "service",
            "username",
            "name",
            "activated",
            "is_admin",
            "email",
        }
    )
    assert user["properties"]["service"] == {"$ref": "#/components/schemas/ServiceEnum"}
    assert user["properties"]["name"] == {"type": "string", "nullable": True}
    assert user["properties"]["activated"] == {"type": "boolean"}
    page = schemas["PaginatedUserList"]
    assert {"count", "next", "previous", "results"} <= set(page["required"])
    assert page["properties"]["results"] == {"type": "array", "items": {"$ref": "#/components/schemas/User"}}
    assert page["properties"]["next"]["nullable"] is True


def test_the_document_follows_the_configured_prefix_and_mount_point(make_app, make_database_url) -> None:
    app = make_app(make_database_url(), COVERAGE_API_URL_PREFIX="/coverage/api/v2")
    client = app.test_client()
    assert client.get("/api/v2/openapi.json").status_code == 404
    document = client.get("/coverage/api/v2/openapi.json").json
    assert "/coverage/api/v2/{service}/{owner_username}/users/" in document["paths"]
    assert "servers" not in document
    mounted = client.get("/coverage/api/v2/openapi.json", base_url="http://localhost/tools").json
    assert mounted["servers"] == [{"url": "/tools"}]
    validate(mounted)


def test_other_methods_on_the_document_are_a_json_405(testapp) -> None:
    response = testapp.post("/api/v2/openapi.json", status=405)
    assert response.json == {"detail": 'Method "POST" not allowed.'}
    assert response.headers["Allow"] == "GET, HEAD, OPTIONS"


def test_an_endpoint_documents_itself_with_one_operation() -> None:
    # What api_get does for every v2 view: one (rule, method, operation) entry on the document.
    document = ApiDocument(title="t", version="2", tags={"Users": "People."})
    document.add(
        "/<service>/<coverage_name:owner_username>/people/<int:number>/",
        "get",
        {
            "operationId": "people_retrieve",
            "tags": ["Users"],
            "security": [{BEARER_AUTH: []}],
            "parameters": [
                {"in": "path", "schema": OwnerPathSchema},
                {"in": "path", "name": "number", "required": True, "schema": {"type": "integer"}},
            ],
            "responses": {
                "200": {"description": "One.", "content": {"application/json": {"schema": UserSchema}}},
                **error_responses(401, 404),
            },
        },
    )
    rendered = document.to_dict(url_prefix="/api/v2/")
    validate(rendered)
    operation = rendered["paths"]["/api/v2/{service}/{owner_username}/people/{number}/"]["get"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/User"
    }
    # Rendering twice gives the same document: the registered operation is not consumed.
    assert document.to_dict(url_prefix="/api/v2/") == rendered


@pytest.fixture
def acme_token(app) -> str:
    """Org ``acme`` (github) with 25 members of mixed flags, and the token of one of them."""
    session = get_session()
    org = Owner(service=ServiceEnum.github, username="acme", is_org=True)
    users = [
        Owner(service=ServiceEnum.github, username=f"user{i}", name=f"User {i}", email=f"u{i}@x.org" if i % 3 else None)
        for i in range(25)
    ]
    session.add_all(
        Membership(org=org, user=user, activated=i % 2 == 0, is_admin=i % 5 == 0) for i, user in enumerate(users)
    )
    token = generate_token()
    session.add(AccessToken(owner=users[0], name="ci", token_hash=hash_token(token)))
    session.commit()
    return token


def test_generated_requests_never_get_a_500_or_an_undocumented_response(app, acme_token) -> None:
    schema = schemathesis.openapi.from_wsgi("/api/v2/openapi.json", app)
    operation = schema[USERS_PATH]["GET"]
    headers = {"Authorization": f"Bearer {acme_token}"}
    statuses: set[int] = set()

    # Half of the requests name the real organization, so that pages, filters and searches answer 200s.
    def run(case, real: bool, checks: list) -> None:
        if real:
            case.path_parameters = {"service": "github", "owner_username": "acme"}
        statuses.add(case.call_and_validate(headers=headers, checks=checks).status_code)

    # Bounded: the whole test stays within a few seconds (each request also writes the token's last_used).
    bounded = settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))

    # The real organization's first page and an unknown owner are always among the examples.
    @bounded
    @given(case=operation.as_strategy(), real=st.booleans())
    @example(case=operation.Case(path_parameters={}, query={}), real=True)
    @example(case=operation.Case(path_parameters={"service": "github", "owner_username": "nobody"}), real=False)
    def positive(case, real: bool) -> None:
        run(case, real, [*CHECKS, ignored_auth])

    @bounded
    @given(case=operation.as_strategy(generation_mode=GenerationMode.NEGATIVE), real=st.booleans())
    def negative(case, real: bool) -> None:
        run(case, real, CHECKS)

    positive()
    negative()
    # Both the real organization's pages and unknown owners were reached (which 4xx the negative cases
    # get depends on the draw; every rule has its own test in test_api_users.py).
    assert {200, 404} <= statuses
