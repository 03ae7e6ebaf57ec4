"""The endpoint framework of the JSON APIs: each endpoint declared once, with its schemas and its lookup.

:class:`Endpoints` declares a blueprint's ``GET`` endpoints (:meth:`Endpoints.get`) and ``PATCH`` ones
(:meth:`Endpoints.patch`): it reads the credentials, loads the path and query (or body) by their
schemas, calls the lookup and the view, pages or dumps what the view returns, and writes the endpoint's
OpenAPI operation from the same objects. Here too are its HTTP halves: :func:`bearer_user` (the v2
API's ``Authorization: Bearer``), :func:`load_query` and :func:`load_body` (a 400 naming each bad
argument), :func:`paginated` (the page envelope around :func:`flask_coverage.pagination.paginate`) and
:func:`json_routes` (a route per path answering its declared methods, a JSON 405 for the others).
The v2 API (``blueprints/api``) and the legacy API (``blueprints/legacy.py``) declare their endpoints
with it; docs/architecture.md says how to add one.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Optional, TypeVar

import sqlalchemy as sa
from flask import Blueprint, Response, current_app, jsonify, request
from marshmallow import Schema, ValidationError, fields

from .errors import CoverageError, InvalidInput, NotFound, Unauthorized
from .models import Owner
from .openapi import BEARER_AUTH, ApiDocument, error_responses
from .pagination import Listing, paginate
from .schemas.common import PaginatedSchema
from .state import call_hook, reads_without_transaction
from .urls import page_url

F = TypeVar("F", bound=Callable[..., Any])

#: Routed to the views only to answer them with a JSON 405 instead of the host app's error page.
REFUSED_METHODS = ["POST", "PUT", "PATCH", "DELETE"]
#: The largest JSON body a write endpoint reads.
MAX_BODY_BYTES = 64 * 1024


# The OpenAPI security of each ``auth``; ``{}`` is "or no token at all".
_SECURITY: dict[str, list[dict[str, list[str]]]] = {
    "required": [{BEARER_AUTH: []}],
    "optional": [{BEARER_AUTH: []}, {}],
}


class Endpoints:
    """Declares the JSON endpoints of one blueprint, each once: see :meth:`get`.

    ``authenticate(required)`` reads the request's credentials (``None`` when none are sent and
    ``required`` is false; an ``Unauthorized`` for bad ones); ``route(rule)`` registers a view on the
    blueprint; ``document``, if given, receives each endpoint's OpenAPI operation; ``not_found`` is
    the message of the 404 for a path value the path schema refuses (``None``: the schema's message).
    """

    def __init__(
        self,
        *,
        authenticate: Callable[[bool], Optional[Owner]],
        route: Callable[..., Callable[[Callable[..., Any]], Any]],
        document: Optional[ApiDocument] = None,
        not_found: Optional[str] = None,
    ) -> None:
        self.authenticate = authenticate
        self.route = route
        self.document = document
        self.not_found = not_found

    def get(
        self,
        rule: str,
        *,
        lookup: Callable[..., Any],
        response: type[Schema],
        path: Optional[type[Schema]] = None,
        query: Optional[type[Schema]] = None,
        auth: Optional[str] = None,
        rows: Optional[Callable[[sa.Subquery], sa.Select]] = None,
        item: Optional[Callable[[Any], Any]] = None,
        headers: Optional[dict[str, str]] = None,
        errors: tuple[int, ...] = (),
        tag: str = "",
        description: str = "",
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Declare a ``GET`` endpoint at ``rule``: route, authenticate, validate, inject, dump, document.

        A request is answered in this order, so that nothing about a resource the caller may not
        see leaks through a different status:

        1. ``auth``: ``"required"`` reads the credentials (a 401 without them), ``"optional"`` reads
           them when sent (bad ones are still a 401), ``None`` reads none; the user (or ``None``) goes on.
        2. ``path`` loads the URL's arguments (a value it refuses, such as an unknown service, is a
           404); without it they go on as the URL has them.
        3. ``lookup(user, **path_arguments)`` returns what the URL names, or raises the 404.
        4. ``query`` loads the query string (a 400 naming each bad argument); ``{}`` without it.
        5. ``view(found, args)`` returns the body: an object ``response`` dumps; for a
           ``PaginatedSchema`` response, a ``select`` in a total order paginated by ``args`` (``rows``
           as for :func:`flask_coverage.pagination.paginate`, ``item`` makes a row into a result) or a
           :class:`~flask_coverage.pagination.Listing` (the select with its parameters' values and a
           cheaper count); or a ready
           :class:`~flask.Response`.
           ``headers`` are added to the answer.

        With a ``document``, the OpenAPI operation is written from the same objects: its
        ``operationId`` is the view's name, its ``summary`` the first line of the view's docstring (without
        its period), its ``tag`` and ``description`` as given; the parameters of ``path`` and ``query``,
        the 200 body of ``response``, the security of ``auth``, and the error responses the steps can
        answer plus ``errors``.
        """
        path_schema = path() if path else None
        query_schema = query() if query else None
        response_schema = response()
        pages = isinstance(response_schema, PaginatedSchema)

        def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
            if self.document is not None:
                summary = (view.__doc__ or "").strip().split("\n")[0].rstrip(".")
                operation = {
                    "operationId": view.__name__,
                    "tags": [tag],
                    "summary": summary,
                    "description": description,
                }
                self.document.add(rule, "get", _operation(operation, path, query, response, auth, errors))

            @functools.wraps(view)
            def endpoint(**values: str) -> Any:
                # A list only reads: without a transaction, it saves PostgreSQL two round trips.
                with reads_without_transaction() if pages else contextlib.nullcontext():
                    user, found = self._found(auth, path_schema, lookup, values)
                    args = load_query(query_schema) if query_schema is not None else {}
                    result = view(found, args)
                    if pages:
                        listing = result if isinstance(result, Listing) else Listing(result)
                        result = jsonify(paginated(response_schema, listing, args, rows=rows, item=item))
                    elif not isinstance(result, Response):
                        result = jsonify(response_schema.dump(result))
                    result.headers.update(headers or {})
                    if user is not None:
                        # Read with credentials, so possibly private: no shared cache may keep it.
                        result.headers.setdefault("Cache-Control", "private, no-store")
                    return result

            return self.route(rule)(endpoint)

        return decorator

    def patch(
        self,
        rule: str,
        *,
        lookup: Callable[..., Any],
        body: type[Schema],
        response: type[Schema],
        path: Optional[type[Schema]] = None,
        errors: tuple[int, ...] = (),
        tag: str = "",
        description: str = "",
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Declare a ``PATCH`` endpoint at ``rule`` (beside its ``GET``): the steps of :meth:`get` with
        credentials required, the JSON body loaded by ``body`` in place of the query (a 400 naming each bad
        field, before anything is changed), and ``view(found, changes)`` returning what ``response`` dumps.
        Its ``route`` takes the method: ``route(rule, "PATCH")``."""
        path_schema = path() if path else None
        body_schema = body()
        response_schema = response()

        def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
            if self.document is not None:
                summary = (view.__doc__ or "").strip().split("\n")[0].rstrip(".")
                named = {"operationId": view.__name__, "tags": [tag], "summary": summary, "description": description}
                operation = _operation(named, path, None, response, "required", (400, *errors))
                operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
                operation["responses"]["400"]["description"] = "The body is not valid; `errors` names each field."
                self.document.add(rule, "patch", operation)

            @functools.wraps(view)
            def endpoint(**values: str) -> Any:
                user, found = self._found("required", path_schema, lookup, values)
                result = jsonify(response_schema.dump(view(found, load_body(body_schema))))
                result.headers["Cache-Control"] = "private, no-store"
                return result

            return self.route(rule, "PATCH")(endpoint)

        return decorator

    def _found(
        self, auth: Optional[str], path_schema: Optional[Schema], lookup: Callable[..., Any], values: dict[str, str]
    ) -> tuple[Optional[Owner], Any]:
        """Steps 1 to 3 of :meth:`get`: the caller, and what the URL names for it (or the 401 or the 404)."""
        user = self.authenticate(auth == "required") if auth else None
        arguments: dict[str, Any] = values
        if path_schema is not None:
            try:
                arguments = path_schema.load(values)
            except ValidationError as error:
                raise NotFound(self.not_found or _first_message(error.messages)) from None
        return user, lookup(user, **arguments)


def _first_message(messages: Any) -> str:
    while not isinstance(messages, str):
        messages = next(iter(messages.values() if isinstance(messages, dict) else messages))
    return messages


def _operation(
    operation: dict[str, Any],
    path: Optional[type[Schema]],
    query: Optional[type[Schema]],
    response: type[Schema],
    auth: Optional[str],
    errors: tuple[int, ...],
) -> dict[str, Any]:
    """The OpenAPI operation of an endpoint :meth:`Endpoints.get` declares."""
    statuses = {404, *errors}
    statuses.update(status for status, used in ((400, query), (401, auth)) if used)
    parameters = [{"in": where, "schema": schema} for where, schema in (("path", path), ("query", query)) if schema]
    return {
        **operation,
        **({"security": _SECURITY[auth]} if auth else {}),
        "parameters": parameters,
        "responses": {
            "200": {
                # The first line of the response schema's docstring.
                "description": (response.__doc__ or "").strip().split("\n")[0],
                "content": {"application/json": {"schema": response}},
            },
            **error_responses(*sorted(statuses)),
        },
    }


def bearer_user(*, required: bool = True) -> Optional[Owner]:
    """The user of the request's ``Authorization: Bearer <token>``, via the ``verify_token`` hook.

    Raises :class:`~flask_coverage.errors.Unauthorized` for a malformed header or a token the hook denies, and for a
    missing header when ``required``.
    """
    header = request.headers.get("Authorization")
    if header is None:
        if required:
            raise Unauthorized("Authentication credentials were not provided.")
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        raise Unauthorized("Invalid token header. Expected 'Authorization: Bearer <token>'.")
    user = call_hook("verify_token", token)
    if user is None:
        raise Unauthorized("Invalid token.")
    return user


def load_query(schema: Schema) -> dict[str, Any]:
    """The request's query arguments loaded by ``schema``; else ``InvalidInput`` (a 400) naming each bad one."""
    # A list argument is repeated (?names=a&names=b); every other one is read once.
    args = {
        key: request.args.getlist(key) if isinstance(schema.fields.get(key), fields.List) else value
        for key, value in request.args.items()
    }
    try:
        return schema.load(args)
    except ValidationError as error:
        messages = error.messages if isinstance(error.messages, dict) else {"_query": error.messages}
        errors = {key: list(dict.fromkeys(_flat(value))) for key, value in messages.items()}
        raise InvalidInput("Invalid query parameters.", errors=errors) from None


def load_body(schema: Schema) -> dict[str, Any]:
    """The request's JSON object loaded by ``schema``; else ``InvalidInput`` (a 400) naming each bad field."""
    if (request.content_length or 0) > MAX_BODY_BYTES:
        raise InvalidInput(f"The body is larger than {MAX_BODY_BYTES} bytes.")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise InvalidInput("The body must be a JSON object.")
    try:
        return schema.load(data)
    except ValidationError as error:
        messages = error.messages if isinstance(error.messages, dict) else {"_body": error.messages}
        raise InvalidInput("Invalid body.", errors={key: _flat(value) for key, value in messages.items()}) from None


def _flat(messages: Any) -> list[str]:
    # A list argument's messages come per item ({index: [...]}): one list of messages per argument.
    if isinstance(messages, dict):
        return [message for value in messages.values() for message in _flat(value)]
    return [str(message) for message in messages] if isinstance(messages, list) else [str(messages)]


def page_of(
    listing: Listing, args: dict[str, Any], rows: Optional[Callable[[sa.Subquery], sa.Select]] = None
) -> tuple[list[Any], dict[str, Any]]:
    """The rows of page ``args["page"]`` (of ``args["page_size"]`` rows) of ``listing``, and the
    envelope's ``count``, ``next``, ``previous`` (absolute links of the neighbour pages) and
    ``total_pages``. ``listing`` and ``rows`` are as for :func:`flask_coverage.pagination.paginate`; a
    page past the last is ``InvalidPage`` (a 404)."""
    page = paginate(
        listing.query,
        page=args["page"],
        page_size=args["page_size"],
        max_page_size=current_app.config["COVERAGE_MAX_PAGE_SIZE"],
        rows=rows,
        count=listing.count_query,
        params=listing.params,
    )
    envelope = {
        "count": page.count,
        "next": page_url(page.next_number),
        "previous": page_url(page.previous_number),
        "total_pages": page.total_pages,
    }
    return page.items, envelope


def paginated(
    schema: Schema,
    listing: Listing,
    args: dict[str, Any],
    rows: Optional[Callable[[sa.Subquery], sa.Select]] = None,
    item: Optional[Callable[[Any], Any]] = None,
) -> dict[str, Any]:
    """:func:`page_of` dumped by ``schema``, a ``PaginatedSchema`` whose ``results`` dump the rows
    (``item``, if given, makes each row into what ``results`` dump)."""
    items, envelope = page_of(listing, args, rows)
    return schema.dump({**envelope, "results": items if item is None else [item(row) for row in items]})


def json_routes(bp: Blueprint) -> Callable[..., Callable[[F], F]]:
    """A ``route(rule, method="GET")`` decorator for ``bp``'s views, as :class:`Endpoints` takes it: one URL
    rule per path, answering each declared method with its view, ``HEAD`` as ``GET``, ``OPTIONS`` with the
    ``Allow`` of the declared methods and any other method with a JSON 405."""
    views: dict[str, dict[str, Callable[..., Any]]] = {}

    def route(rule: str, method: str = "GET") -> Callable[[F], F]:
        def decorator(view: F) -> F:
            if rule not in views:
                views[rule] = {}
                methods = ["GET", "OPTIONS", *REFUSED_METHODS]
                bp.add_url_rule(
                    rule, view_func=_by_method(view, views[rule]), methods=methods, provide_automatic_options=False
                )
            views[rule][method] = view
            return view

        return decorator

    return route


def _by_method(first: F, views: dict[str, Callable[..., Any]]) -> F:
    """The view of one URL rule (named as ``first``, its first declared view): ``views[method]``; ``OPTIONS``
    answers their ``Allow``, a method without a view a 405."""

    @functools.wraps(first)
    def dispatch(**kwargs: Any) -> Any:
        allow = ", ".join([*("GET", "HEAD", "OPTIONS"), *(method for method in views if method != "GET")])
        if request.method == "OPTIONS":
            return Response(status=200, headers={"Allow": allow})
        view = views.get("GET" if request.method == "HEAD" else request.method)
        if view is None:
            raise CoverageError(f'Method "{request.method}" not allowed.', status=405, headers={"Allow": allow})
        return view(**kwargs)

    return dispatch  # type: ignore[return-value]
