"""The members of an organization: ``GET /{service}/{owner_username}/users/`` (docs/api.md)."""

from __future__ import annotations

from typing import Any

from ...models import OwnerRow
from ...pagination import Listing
from ...queries.lists import member_rows, members_count, members_query
from ...queries.lookups import member_org
from ...schemas.common import OwnerPathSchema
from ...schemas.users import PaginatedUserListSchema, UserListQuerySchema
from . import api_get


@api_get(
    "/<service>/<coverage_name:owner_username>/users/",
    tag="Users",
    description="The members of the organization, with the flags of their membership, ordered by username "
    "(case-insensitive). Only members of the organization (and the organization's own account) may list them; "
    "anyone else gets the same 404 as for an unknown owner.",
    auth="required",
    path=OwnerPathSchema,
    lookup=member_org,
    query=UserListQuerySchema,
    response=PaginatedUserListSchema,
    rows=member_rows,
)
def users_list(org: OwnerRow, args: dict[str, Any]) -> Listing:
    """List the members of an organization."""
    filters = {name: args.get(name) for name in ("activated", "is_admin", "search")}
    return Listing(members_query(org, **filters), count_query=members_count(org, **filters))
