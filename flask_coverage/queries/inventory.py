"""What the operator lists and inspects: owners, an organization's members, repositories with their
tokens, and what deleting an owner would take with it (the ``list-*`` and ``show-repo`` commands).

Every function returns plain values (dicts of columns) for the CLI to print as text or JSON; none
checks who asks: the operator sees everything, private repositories and tokens included.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Optional

import sqlalchemy as sa

from ..lines import Totals
from ..models import AccessToken, Branch, Commit, Membership, Owner, Pull, Repository, ServiceEnum, utc_iso
from ..state import execute

_REPOSITORY_COUNT = (
    sa.select(sa.func.count(Repository.id))
    .where(Repository.owner_id == Owner.id, Repository.deleted.is_(False))
    .scalar_subquery()
)
# An organization's members, or the organizations a user is a member of.
_MEMBERSHIP_COUNT = (
    sa.select(sa.func.count(Membership.id))
    .where(sa.or_(Membership.org_id == Owner.id, Membership.user_id == Owner.id))
    .scalar_subquery()
)


def _plain(value: Any) -> Any:
    if isinstance(value, ServiceEnum):
        return value.value
    return utc_iso(value) if isinstance(value, dt.datetime) else value


def _row(mapping: Any) -> dict[str, Any]:
    return {key: _plain(value) for key, value in dict(mapping).items()}


def list_owners(service: Optional[ServiceEnum] = None) -> list[dict[str, Any]]:
    """Every user and organization (of ``service`` if given), by service and name: their kind, names,
    repositories (not deleted) and memberships (an organization's members, a user's organizations)."""
    query = sa.select(
        Owner.service,
        Owner.username,
        sa.case((Owner.is_org, "organization"), else_="user").label("kind"),
        Owner.name,
        Owner.email,
        _REPOSITORY_COUNT.label("repositories"),
        _MEMBERSHIP_COUNT.label("memberships"),
    ).order_by(Owner.service, sa.func.lower(Owner.username))
    if service is not None:
        query = query.where(Owner.service == service)
    return [_row(row) for row in execute(query).mappings()]


def list_members(org: Owner) -> list[dict[str, Any]]:
    """The members of organization ``org`` by username, with their membership's ``activated`` and ``admin``."""
    query = (
        sa.select(Owner.username, Owner.name, Owner.email, Membership.activated, Membership.is_admin.label("admin"))
        .join(Membership, Membership.user_id == Owner.id)
        .where(Membership.org_id == org.id)
        .order_by(sa.func.lower(Owner.username))
    )
    return [_row(row) for row in execute(query).mappings()]


def list_repositories(
    service: Optional[ServiceEnum] = None, owner: Optional[Owner] = None, *, deleted: bool = False
) -> list[dict[str, Any]]:
    """The repositories (of ``service``, of ``owner``, the deleted ones only if asked), by owner and name,
    with their settings and the coverage of their default branch's tip (``None`` before an upload there)."""
    query = (
        sa.select(
            Owner.service,
            Owner.username.label("owner"),
            Repository.name,
            Repository.private,
            Repository.active,
            Repository.deleted,
            Repository.branch,
            Repository.language,
            Commit.hits,
            Commit.misses,
            Commit.partials,
            Commit.lines,
        )
        .join(Owner, Owner.id == Repository.owner_id)
        .outerjoin(Branch, sa.and_(Branch.repository_id == Repository.id, Branch.name == Repository.branch))
        .outerjoin(Commit, Commit.id == Branch.head_commit_id)
        .order_by(Owner.service, sa.func.lower(Owner.username), sa.func.lower(Repository.name))
    )
    if service is not None:
        query = query.where(Owner.service == service)
    if owner is not None:
        query = query.where(Repository.owner_id == owner.id)
    if not deleted:
        query = query.where(Repository.deleted.is_(False))
    rows = []
    for row in execute(query):
        item = _row(row._mapping)
        for name in ("hits", "misses", "partials", "lines"):
            del item[name]
        item["coverage"] = None if row.lines is None else Totals.of(row).coverage
        rows.append(item)
    return rows


def show_repository(repository: Repository) -> dict[str, Any]:
    """Everything the operator may want of one repository: its path in the web URLs, its settings, its
    upload and graph tokens (as the legacy settings API shows them to admins), what it holds, and its
    default branch's tip."""
    owner = repository.owner
    counts = execute(
        sa.select(
            sa.select(sa.func.count(Commit.id)).where(Commit.repository_id == repository.id).scalar_subquery(),
            sa.select(sa.func.count(Branch.id)).where(Branch.repository_id == repository.id).scalar_subquery(),
            sa.select(sa.func.count(Pull.id)).where(Pull.repository_id == repository.id).scalar_subquery(),
        )
    ).one()
    tip = execute(
        sa.select(Commit)
        .join(Branch, Branch.head_commit_id == Commit.id)
        .where(Branch.repository_id == repository.id, Branch.name == repository.branch)
    ).scalar_one_or_none()
    return {
        "path": f"{owner.service.short}/{owner.username}/{repository.name}",
        "service": owner.service.value,
        "owner": owner.username,
        "name": repository.name,
        "private": repository.private,
        "active": repository.active,
        "deleted": repository.deleted,
        "branch": repository.branch,
        "language": repository.language,
        "upload_token": repository.upload_token,
        "graph_token": repository.image_token,
        "created_at": _plain(repository.created_at),
        "commits": counts[0],
        "branches": counts[1],
        "pulls": counts[2],
        "tip": None if tip is None else {"sha": tip.sha, "coverage": Totals.of(tip).coverage, "files": tip.files},
    }


def owner_holdings(owner: Owner) -> dict[str, int]:
    """What deleting ``owner`` would delete with it: its repositories (deleted ones too), memberships and
    access tokens."""
    counts = execute(
        sa.select(
            sa.select(sa.func.count(Repository.id)).where(Repository.owner_id == owner.id).scalar_subquery(),
            sa.select(sa.func.count(Membership.id))
            .where(sa.or_(Membership.org_id == owner.id, Membership.user_id == owner.id))
            .scalar_subquery(),
            sa.select(sa.func.count(AccessToken.id)).where(AccessToken.owner_id == owner.id).scalar_subquery(),
        )
    ).one()
    return {"repositories": counts[0], "memberships": counts[1], "access_tokens": counts[2]}
