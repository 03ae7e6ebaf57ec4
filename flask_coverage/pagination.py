"""Page-number pagination of a SQL query: one ``COUNT`` and one ``LIMIT``/``OFFSET`` query per page.

The SQL half of every paginated list: it never reads the request and never loads more than one page
of rows. Its HTTP half, :func:`flask_coverage.blueprints.api.paginated`, reads ``page`` and
``page_size``, links the neighbour pages and dumps the envelope. A list is a query in a total order::

    query = sa.select(Upload.key, Upload.created_at).where(...).order_by(Upload.created_at, Upload.id)
    page = paginate(query, page=2, page_size=20, max_page_size=100)

A list of wide or joined rows pages its keys instead (a *deferred join*): ``query`` selects only
what one narrow index holds, and ``rows`` turns the page of keys (a subquery) into the rows to show,
so the rows skipped on the way to a far page are never read::

    def rows(keys: sa.Subquery) -> sa.Select:
        return sa.select(Owner.username, keys.c.is_admin).join(keys, keys.c.user_id == Owner.id).order_by(...)

    page = paginate(query, page=2, page_size=20, max_page_size=100, rows=rows)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Optional, Union

import sqlalchemy as sa

from .errors import NotFound
from .state import get_connection


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


class Listing(NamedTuple):
    """A list query with the values of its named parameters (``sa.bindparam``) and, optionally, a
    cheaper query of its number of rows. A list whose statements are built once, with parameters
    for what a request changes, keeps their SQL cache keys: a page then neither builds nor hashes SQL.
    Only the count and page statements of a list with ``params`` are kept (a query built per request,
    its values written in, has them derived anew)."""

    query: Union[sa.Select, list[Any]]
    params: Mapping[str, Any] = {}
    count_query: Optional[sa.Select] = None


Rows = Callable[[sa.Subquery], sa.Select]


def _derive(query: sa.Select, rows: Optional[Rows], count: Optional[sa.Select]) -> tuple[sa.Select, sa.Select]:
    # The count and page statements of a list query; the page's bounds are parameters.
    if count is None:
        # The statement a person would write, without a subquery for the database to flatten.
        count = query.with_only_columns(sa.func.count(), maintain_column_froms=True).order_by(None)
    # The bounds are written into the SQL when it runs (the compiled statement is still cached): a
    # page asked for again is then the same text, whose plan PostgreSQL keeps once psycopg has
    # prepared it; as parameters, an unknown LIMIT makes it plan the page anew each time.
    page = query.limit(sa.bindparam("page_limit", type_=sa.Integer, literal_execute=True)).offset(
        sa.bindparam("page_offset", type_=sa.Integer, literal_execute=True)
    )
    return count, page if rows is None else rows(page.subquery())


# The same, made once per query object (statements are immutable and hash by identity), for the
# lists that bring the same one again: those with parameters (``Listing.params``), whose statement is
# built once per combination of their filters. A statement built per request would only miss and push
# those out (benchmarks/bench_statement_cache.py).
_statements = functools.lru_cache(maxsize=64)(_derive)


def paginate(
    query: Union[sa.Select, list[Any]],
    *,
    page: int,
    page_size: int,
    max_page_size: int,
    rows: Optional[Rows] = None,
    count: Optional[sa.Select] = None,
    params: Mapping[str, Any] = {},
) -> Page:
    """Run page ``page`` of ``query``: a ``SELECT ... WHERE ...`` with a total ``ORDER BY`` (and no
    ``DISTINCT``, ``GROUP BY`` or ``LIMIT``: its rows are counted as ``count(*)`` of its ``FROM``).

    ``page_size`` is clamped to ``max_page_size``. With ``rows``, the page of ``query`` becomes a
    subquery and the items are the rows of ``rows(subquery)``, which must keep the page's order.
    ``count``, when given, is a cheaper query of the same number of rows; ``params`` are the values
    of the named parameters of the queries. ``query`` may also be a
    list of rows already read (a short aggregate, such as the coverage trend's bins), sliced here.
    Raises :class:`InvalidPage` for a page past the last one (page 1 always exists). Always runs
    exactly two queries (none for a list).
    """
    size = max(1, min(page_size, max_page_size))
    # Rows already read: a short result that costs as much to count as to read.
    if isinstance(query, list):
        if page > _page_count(len(query), size):
            raise InvalidPage()
        return Page(items=query[(page - 1) * size : page * size], number=page, size=size, count=len(query))
    # Plain statements run on the session's connection, without the ORM's execution steps.
    connection = get_connection()
    count_query, page_query = (_statements if params else _derive)(query, rows, count)
    total = connection.execute(count_query, params).scalar_one()
    # Checked before the page query, so a huge page number never reaches the database as an OFFSET.
    if page > _page_count(total, size):
        raise InvalidPage()
    bounds = {"page_limit": size, "page_offset": (page - 1) * size}
    items = list(connection.execute(page_query, {**params, **bounds}).all())
    return Page(items=items, number=page, size=size, count=total)
