"""Coverage graphs as SVG: layouts, color scale and writers (no Flask here); see docs/svg.md."""

from __future__ import annotations

from .color import coverage_color
from .hierarchy import Node, build_hierarchy
from .params import (
    GRAPH_DEFAULTS,
    GRAPH_KINDS,
    GraphOptions,
    validate_border_color,
    validate_graph_params,
)
from .writer import render_graph_svg

__all__ = [
    "GRAPH_DEFAULTS",
    "GRAPH_KINDS",
    "GraphOptions",
    "Node",
    "build_hierarchy",
    "coverage_color",
    "render_graph_svg",
    "validate_border_color",
    "validate_graph_params",
]
