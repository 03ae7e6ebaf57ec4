"""SVG writers: plain string building over the layouts, every name escaped.

Output is small on purpose: integer coordinates, a ``<path>`` per block,
one ``<g fill>`` group per color (blocks never overlap, so drawing order
within a level does not matter), stroke set once on the outer group, and no
script or style sheet at all.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import Callable, Iterable, Optional, Sequence

from .block import Block
from .color import NO_DATA_COLOR, coverage_steps
from .escape import link_prefix_attr, url_path, url_safe, xml_escape
from .hierarchy import FileRecord, Node, build_hierarchy
from .params import GraphOptions
from .partition import icicle, sunburst, sunburst_ticks
from .treemap import squarified_treemap

SVG_NS = "http://www.w3.org/2000/svg"


def format_percent(hits: int, lines: int) -> str:
    """Coverage as shown in titles: rounded down to two decimals
    (``"85.71%"``, like the report API), or ``"n/a"`` without lines."""
    if lines <= 0:
        return "n/a"
    q = hits * 10000 // lines
    return f"{q // 100}.{q % 100:02d}%"


def _num(value: float) -> str:
    # One decimal, no trailing ".0"; adding 0.0 turns -0.0 into 0.0.
    return f"{round(value, 1) + 0.0:g}"


class _Drawing:
    """Collects shapes grouped by fill color, then writes the document."""

    def __init__(self, options: GraphOptions) -> None:
        self.width = options.width
        self.height = options.height
        self.border_size = options.border_size
        self.border_color = xml_escape(options.border_color)
        link_prefix = options.link_prefix
        self.prefix = None if link_prefix is None else link_prefix_attr(link_prefix)
        self.suffix = xml_escape(options.link_suffix)
        #: Smallest block side, in pixels, drawn on its own; it always shows
        #: at least one pixel of its color inside its border.
        self.min_size = max(options.min_block_size, self.border_size + 1)
        # The shapes of each color, in the order of the scale (grey, for no lines, last).
        bounds, colors = coverage_steps(*options.color_range)
        self._bounds = bounds
        self._groups: dict[str, list[str]] = {color: [] for color in (*colors, NO_DATA_COLOR)}
        self._by_step = [self._groups[color] for color in colors]

    def _style(self, hits: int, lines: int) -> tuple[str, list[str]]:
        """The coverage text of a title and the group of its color."""
        if lines <= 0:
            return "n/a", self._groups[NO_DATA_COLOR]
        # The color follows the shown (rounded down) value, so a title reading 69.99% is never
        # colored as 70%.
        return format_percent(hits, lines), self._by_step[bisect_right(self._bounds, hits * 10000 // lines)]

    def _add_file(self, tag: str, attrs: str, node: Node) -> None:
        path = node.path
        if url_safe(path) is None:
            label, url = xml_escape(path), url_path(path)
        else:
            label = url = path
        text, group = self._style(node.hits, node.lines)
        if self.prefix is None:
            group.append(f"<{tag} {attrs}><title>{label} {text}</title></{tag}>")
        else:
            # target="_top": a graph embedded with <object> or <iframe> opens the file view as
            # the page itself (the file view refuses to be framed). SVG has no inherited target.
            group.append(
                f'<a href="{self.prefix}{url}{self.suffix}" target="_top">'
                f"<title>{label} {text}</title><{tag} {attrs}/></a>"
            )

    def add(self, tag: str, attrs: str, node: Node, folded: Optional[Sequence[Node]]) -> None:
        """Add the shape ``<tag attrs>`` for ``node``, or for its ``folded`` children."""
        if folded is None:
            if node.children is None:
                self._add_file(tag, attrs, node)
                return
            lines, hits, files = node.lines, node.hits, node.files
        else:
            lines = hits = files = 0
            for child in folded:
                lines += child.lines
                hits += child.hits
                files += child.files
        text, group = self._style(hits, lines)
        folder = f"{xml_escape(node.path)}/" if node.path else "/"
        noun = "file" if files == 1 else "files"
        group.append(f"<{tag} {attrs}><title>{folder} {files} {noun} {text}</title></{tag}>")

    def add_rects(self, blocks: Iterable[Block]) -> None:
        """Add the non-empty ``blocks`` as rectangles (``<path>``)."""
        add, add_file = self.add, self._add_file
        for x0, y0, x1, y1, node, folded in blocks:
            if x1 > x0 and y1 > y0:
                # h-width rather than H{x0}: never longer.
                attrs = f'd="M{x0} {y0}h{x1 - x0}v{y1 - y0}h{x0 - x1}z"'
                if folded is None and node.children is None:
                    add_file("path", attrs, node)
                else:
                    add("path", attrs, node, folded)

    def document(self) -> str:
        w, h = self.width, self.height
        parts = [f'<svg xmlns="{SVG_NS}" width="{w}" height="{h}" viewBox="0 0 {w} {h}">']
        if self.border_size:
            parts.append(f'<g stroke="{self.border_color}" stroke-width="{self.border_size}">')
        else:
            parts.append("<g>")
        for color, shapes in self._groups.items():
            if shapes:
                parts.append(f'<g fill="{color}">')
                parts.append("".join(shapes))
                parts.append("</g>")
        parts.append("</g></svg>")
        return "".join(parts)


def render_graph_svg(files: Iterable[FileRecord], options: GraphOptions) -> str:
    """The graph ``options.kind`` of ``files`` (``(path, lines, hits)`` records) as a standalone
    SVG document, drawn as ``options`` (from :func:`~flask_coverage.svg.params.validate_graph_params`) say.

    * ``tree``: the squarified treemap; each file is a block with area proportional to its
      tracked lines.
    * ``icicle``: the project on the top row, each folder level below, files last; widths
      proportional to summed tracked lines.
    * ``sunburst``: the icicle in polar form, centered, with the project as the center disc and
      one ring per level; angles proportional to summed tracked lines.

    Each block is colored by its coverage on ``color_range``, with a ``<title>`` "path
    coverage%"; with ``link_prefix`` each file block is wrapped in ``<a href="{link_prefix}{quoted
    path}{link_suffix}">`` (the suffix, e.g. a ``?token=`` query, is used as given, escaped; only
    the path is quoted).  With ``m = max(min_block_size, border_size + 1)``, a folder's trailing
    blocks smaller than ``m`` pixels (tree: ``m²`` px²; icicle: width; sunburst: outer rim) are
    folded into one block titled "folder/ N files coverage%".  Raises ``ValueError`` for an
    unknown kind or a ``link_prefix`` with a non-http(s) scheme.
    """
    draw = _DRAWERS.get(options.kind)
    if draw is None:
        raise ValueError("the graph kind must be one of: tree, icicle, sunburst")
    drawing = _Drawing(options)
    draw(drawing, files)
    return drawing.document()


def _draw_tree(drawing: _Drawing, files: Iterable[FileRecord]) -> None:
    min_area = drawing.min_size**2
    root = build_hierarchy(files, min_share=min_area / (drawing.width * drawing.height))
    drawing.add_rects(squarified_treemap(root, drawing.width, drawing.height, min_area=min_area))


def _draw_icicle(drawing: _Drawing, files: Iterable[FileRecord]) -> None:
    root = build_hierarchy(files, min_share=drawing.min_size / drawing.width)
    drawing.add_rects(icicle(root, drawing.width, drawing.height, min_width=drawing.min_size))


def _draw_sunburst(drawing: _Drawing, files: Iterable[FileRecord]) -> None:
    cx = drawing.width / 2
    cy = drawing.height / 2
    radius = min(cx, cy)
    root = build_hierarchy(files, min_share=drawing.min_size / sunburst_ticks(radius))

    def point(angle: float, r: float) -> str:
        t = math.radians(angle)
        return f"{_num(cx + r * math.sin(t))} {_num(cy - r * math.cos(t))}"

    for arc in sunburst(root, radius, min_arc=drawing.min_size):
        a0, a1, r0, r1, node, folded = arc
        if a1 <= a0:
            continue
        if r0 <= 0:
            drawing.add("circle", f'cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r1)}"', node, folded)
            continue
        o, i = _num(r1), _num(r0)
        if a1 - a0 >= 360:
            # A full ring: two half circles outwards, then the hole drawn the
            # other way round so the nonzero fill rule leaves it empty.
            d = (
                f"M{point(0, r1)}A{o} {o} 0 1 1 {point(180, r1)}A{o} {o} 0 1 1 {point(0, r1)}z"
                f"M{point(0, r0)}A{i} {i} 0 1 0 {point(180, r0)}A{i} {i} 0 1 0 {point(0, r0)}z"
            )
        else:
            large = 1 if a1 - a0 > 180 else 0
            d = (
                f"M{point(a0, r1)}A{o} {o} 0 {large} 1 {point(a1, r1)}"
                f"L{point(a1, r0)}A{i} {i} 0 {large} 0 {point(a0, r0)}z"
            )
        drawing.add("path", f'd="{d}"', node, folded)


# The drawing of each graph kind.
_DRAWERS: dict[str, Callable[[_Drawing, Iterable[FileRecord]], None]] = {
    "tree": _draw_tree,
    "icicle": _draw_icicle,
    "sunburst": _draw_sunburst,
}
