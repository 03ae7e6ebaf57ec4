"""The members of an organization: ``GET /{service}/{owner_username}/users/``, one member and its
activation, ``GET``/``PATCH .../users/{username}/`` (docs/api.md)."""

from __future__ import annotations

from typing import Any

from ...models import OwnerRow
from ...operations import set_member
from ...pagination import Listing
from ...queries.lists import member_rows, members_count, members_query
from ...queries.lookups import administered_member, member_org, org_member
from ...schemas.common import OwnerPathSchema
from ...schemas.users import (
    PaginatedUserListSchema,
    UserActivationSchema,
    UserListQuerySchema,
    UserPathSchema,
    UserSchema,
)
from . import api_get, endpoints


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


@api_get(
    "/<service>/<coverage_name:owner_username>/users/<coverage_name:username>/",
    tag="Users",
    description="One member of the organization (username case-insensitive), with the flags of its membership. "
    "Read as the members list is; anyone else, and a user who is not a member, gets the same 404.",
    auth="required",
    path=UserPathSchema,
    lookup=org_member,
    response=UserSchema,
)
def users_retrieve(member: Any, args: dict[str, Any]) -> Any:
    """One member of an organization."""
    return member


@endpoints.patch(
    "/<service>/<coverage_name:owner_username>/users/<coverage_name:username>/",
    tag="Users",
    description='Activate or deactivate a member of the organization (`{"activated": true}`), for the '
    "organization's admins (a 403 for its other members); answers the member as it now is. A user who is not a "
    "member of this organization gets the same 404 as an unknown one.",
    path=UserPathSchema,
    lookup=administered_member,
    body=UserActivationSchema,
    response=UserSchema,
    errors=(403,),
)
def users_partial_update(found: tuple[OwnerRow, Any], changes: dict[str, Any]) -> Any:
    """Activate or deactivate a member of an organization."""
    org, member = found
    membership = set_member(org.service, org.username, member.username, activated=changes["activated"])
    return {**member._asdict(), "activated": membership.activated}
