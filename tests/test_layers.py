"""The package's layers, read from its imports: no blueprint imports another, and the service layer
imports neither the HTTP layer nor the schemas (docs/architecture.md, "The layers")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "flask_coverage"

#: Modules (and packages, with everything in them) that speak HTTP or shape its bodies.
HTTP = ("blueprints", "endpoints", "request_args", "http_errors", "outage", "logging", "csrf")
SCHEMAS = ("schemas", "openapi")
#: The layers below them: what the blueprints, the CLI and Python callers build on.
SERVICE = (
    "auth",
    "sync",
    "identifiers",
    "queries",
    "operations",
    "ingest",
    "upload_urls",
    "urls",
    "sources",
    "git_mirror",
    "git_mirror",
    "providers",
    "codecov_yml",
    "feedback",
    "pagination",
    "lines",
    "inflate",
    "parsers",
    "models",
    "state",
    "errors",
    "svg",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports (resolved, absolute)."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                # "from . import cli" names a module: count each imported name that is one.
                targets.add(base)
                targets.update(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        found[name] = {target for target in targets if target.startswith("flask_coverage.")}
    return found


def _top(module: str) -> str:
    """The package member a module belongs to: ``queries`` for ``flask_coverage.queries.lists``."""
    return module.split(".")[1] if module.count(".") else ""


def _blueprint(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "blueprints" else None


IMPORTS = _imports()


def test_the_import_graph_is_read() -> None:
    # The rules below are only as good as the graph: it must see the imports it is about.
    assert "flask_coverage.queries.repositories" in IMPORTS["flask_coverage.queries.lookups"]
    assert "flask_coverage.blueprints.upload.codecov_cli" in IMPORTS["flask_coverage.blueprints.upload"]
    assert _blueprint("flask_coverage.blueprints.api.repos") == "api"


@pytest.mark.parametrize("module", sorted(name for name in IMPORTS if _blueprint(name)))
def test_no_blueprint_imports_another_blueprint(module: str) -> None:
    others = {target for target in IMPORTS[module] if _blueprint(target) not in (None, _blueprint(module))}
    assert not others, f"{module} imports {sorted(others)}"


@pytest.mark.parametrize("module", sorted(name for name in IMPORTS if _top(name) in SERVICE))
def test_the_service_layer_imports_no_http_or_schema_module(module: str) -> None:
    above = {target for target in IMPORTS[module] if _top(target) in HTTP + SCHEMAS}
    assert not above, f"{module} imports {sorted(above)}"


@pytest.mark.parametrize("module", sorted(name for name in IMPORTS if _top(name) == "codecov_yml"))
def test_the_codecov_yml_imports_nothing_of_what_reads_it(module: str) -> None:
    # Uploads, feedback, pages, the API and the CLI read the codecov.yml: it sits below all of them.
    readers = {target for target in IMPORTS[module] if _top(target) in ("ingest", "feedback", "cli", *HTTP, *SCHEMAS)}
    assert not readers, f"{module} imports {sorted(readers)}"


def test_every_module_has_a_layer() -> None:
    # A new top-level module must be placed in one of the lists above (or be the extension's own).
    known = {*HTTP, *SCHEMAS, *SERVICE, "", "extension", "cli", "demo"}
    assert {_top(name) for name in IMPORTS} <= known


@pytest.mark.parametrize("module", sorted(name for name in IMPORTS if _top(name) == "feedback"))
def test_feedback_imports_no_blueprint(module: str) -> None:
    # The statuses and the comment are sent from a thread or the CLI, with no request: the pages and
    # the APIs build on feedback/, never the other way round.
    blueprints = {target for target in IMPORTS[module] if _top(target) == "blueprints"}
    assert not blueprints, f"{module} imports {sorted(blueprints)}"
