"""Coverage graphs (SVG) and the file coverage view: ``{COVERAGE_GRAPH_URL_PREFIX}/...`` (sections 4, 5)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("coverage_graphs", __name__, template_folder="../templates")
