"""Coverage graphs as SVG: layouts, color scale and writers (no Flask here)."""

from __future__ import annotations

from .color import coverage_color
from .hierarchy import Node, build_hierarchy
from .params import (
    GRAPH_DEFAULTS,
    GRAPH_KINDS,
    GraphParams,
    validate_border_color,
    validate_graph_params,
)
from .writer import render_graph_svg, render_icicle_svg, render_sunburst_svg, render_tree_svg

__all__ = [
    "GRAPH_DEFAULTS",
    "GRAPH_KINDS",
    "GraphParams",
    "Node",
    "build_hierarchy",
    "coverage_color",
    "render_graph_svg",
    "render_icicle_svg",
    "render_sunburst_svg",
    "render_tree_svg",
    "validate_border_color",
    "validate_graph_params",
]
