"""The fast paths of pagination: a list built once keeps its count and page statements, and the
page's bounds are written into the SQL when it runs (docs/architecture.md, "Fast paths")."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from flask_coverage import pagination
from flask_coverage.models import Repository
from flask_coverage.operations import add_org, add_repo
from flask_coverage.pagination import paginate
from flask_coverage.queries.lists import repositories_query


def test_a_list_with_parameters_reuses_its_statements_and_one_built_per_request_is_not_kept(app) -> None:
    with app.app_context():
        org = add_org("github", "acme")
        for name in ("a", "b", "c"):
            add_repo("github", "acme", name)
        built_once = repositories_query(org.id, reader_id=1)
        pages = []
        before = pagination._statements.cache_info()
        for number in (1, 2, 1):
            page = paginate(built_once.query, page=number, page_size=2, max_page_size=10, params=built_once.params)
            pages.append([row.id for row in page.items])
        after = pagination._statements.cache_info()
        # Three pages, one derivation: the other two found the statements kept.
        assert (after.misses - before.misses, after.hits - before.hits) == (1, 2)
        assert pages[0] == pages[2] and len(pages[0]) == 2 and len(pages[1]) == 1

        per_request = sa.select(Repository.id).where(Repository.owner_id == org.id).order_by(Repository.id)
        assert [row.id for row in paginate(per_request, page=1, page_size=2, max_page_size=10).items]
        assert pagination._statements.cache_info() == after


def test_the_page_bounds_are_written_into_the_sql_when_it_runs() -> None:
    # As parameters, PostgreSQL would plan a page anew each time (an unknown LIMIT); written in, the
    # text of a page asked for again is the same and its prepared plan is kept.
    query = sa.select(Repository.id).order_by(Repository.id)
    _, page = pagination._derive(query, None, None)
    compiled = page.compile(dialect=postgresql.dialect())
    assert {param.key for param in compiled.literal_execute_params} == {"page_limit", "page_offset"}
    assert "__[POSTCOMPILE_page_limit]" in str(compiled)
