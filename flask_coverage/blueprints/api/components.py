"""The v2 API's components of a repository (``component_management`` of its ``codecov.yml``), in Codecov's
shape (docs/api.md). Their totals are read by :mod:`flask_coverage.queries.components`."""

from __future__ import annotations

from typing import Any

from ...codecov_yml.settings import commit_settings
from ...models import Commit, Repository
from ...queries.components import Component, commit_components, component_totals
from ...queries.lookups import queried_commit
from ...schemas.coverage import ComponentListQuerySchema, PaginatedComponentListSchema
from . import document, repo_get

document.tags["Components"] = "The components of a repository's codecov.yml, and the coverage of each."


@repo_get(
    "/components/",
    tag="Components",
    description="The components of the `codecov.yml` that applies to one commit (`sha`, else the tip of `branch`, "
    "else the tip of the default branch), in the order it declares them, each with its coverage in that commit "
    "(null for a component whose paths match no file).",
    query=ComponentListQuerySchema,
    response=PaginatedComponentListSchema,
    item=lambda found: component_body(*found),
)
def repos_components_list(repository: Repository, args: dict[str, Any]) -> list[tuple[Commit, Component]]:
    """List the components of a repository."""
    commit = queried_commit(repository, args)
    # The totals are read for the page's components only (item=).
    return [(commit, component) for component in commit_components(commit_settings(repository, commit).value, commit)]


def component_body(commit: Commit, component: Component) -> dict[str, Any]:
    """A ``ComponentSchema`` of ``component`` in ``commit``."""
    totals, _ = component_totals(commit, component)
    coverage = totals.coverage if totals.lines else None
    return {"component_id": component.component_id, "name": component.name, "coverage": coverage}
