"""Page-number pagination of a SQL query: one ``COUNT`` and one ``LIMIT``/``OFFSET`` query per page.

Used by every paginated list of the API; it never loads more than one page of rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import parse_qsl, quote, urlencode

import sqlalchemy as sa
from flask import request

from .errors import NotFound
from .state import get_session


class InvalidPage(NotFound):
    """A page number past the last page."""

    def __init__(self) -> None:
        super().__init__("Invalid page.")


def _page_count(count: int, size: int) -> int:
    return max(1, -(-count // size))


@dataclass(frozen=True)
class Page:
    """One page of results: its rows, its number and size, and the number of results on all pages."""

    items: list[Any]
    number: int
    size: int
    count: int

    @property
    def total_pages(self) -> int:
        """The number of pages; an empty list still has its (empty) first page."""
        return _page_count(self.count, self.size)

    @property
    def next_number(self) -> Optional[int]:
        return self.number + 1 if self.number < self.total_pages else None

    @property
    def previous_number(self) -> Optional[int]:
        return self.number - 1 if self.number > 1 else None


def paginate(query: sa.Select, *, page: int, page_size: int, max_page_size: int) -> Page:
    """Run page ``page`` of ``query`` (which must have a total ``ORDER BY``).

    ``page_size`` is clamped to ``max_page_size``. Raises :class:`InvalidPage` for a page past the
    last one (page 1 always exists). Always runs exactly two queries.
    """
    size = max(1, min(page_size, max_page_size))
    session = get_session()
    count_query = sa.select(sa.func.count()).select_from(query.order_by(None).subquery())
    count = session.execute(count_query).scalar_one()
    # Checked before the page query, so a huge page number never reaches the database as an OFFSET.
    if page > _page_count(count, size):
        raise InvalidPage()
    items = list(session.execute(query.limit(size).offset((page - 1) * size)).all())
    return Page(items=items, number=page, size=size, count=count)


def page_url(number: Optional[int]) -> Optional[str]:
    """The absolute URL of the current request with its ``page`` argument set to ``number``.

    Every other query argument is kept as it was; ``None`` stays ``None`` (no such page).
    """
    if number is None:
        return None
    pairs = parse_qsl(request.query_string.decode("utf-8", "replace"), keep_blank_values=True)
    # Replaced in place, so neighbour links differ from the request in one spot only.
    args = [(key, str(number) if key == "page" else value) for key, value in pairs]
    if all(key != "page" for key, _ in pairs):
        args.append(("page", str(number)))
    # Werkzeug's base_url holds the decoded path; a URI needs it encoded again (names may hold "%" or "é").
    path = quote(request.script_root + request.path, safe="/!$&'()*+,;=:@~")
    return f"{request.host_url.rstrip('/')}{path}?{urlencode(args)}"
