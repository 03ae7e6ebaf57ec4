"""Top-down partition of the tree (icicle) and its polar form (sunburst).

The root spans the whole extent on level 0; each folder's children share its
extent on the next level in proportion to their weight, laid out by the
treemap's :func:`~.treemap.dice` (as d3's partition).  Like the treemap,
edges are rounded (to pixels, or to angle ticks for the sunburst), so slices
of one level never overlap nor leave gaps.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Optional, Sequence

from .block import Block, folded_node
from .hierarchy import Node
from .treemap import dice


class Slice(NamedTuple):
    """One slice of the partition: ``x0..x1`` on the extent, at ``depth``.

    ``folded is None``: the slice is ``node`` (a file or folder).  Otherwise it
    stands for ``folded``, the trailing (smallest) children of the folder
    ``node``, too narrow to be drawn one by one.
    """

    x0: int
    x1: int
    depth: int
    node: Node
    folded: Optional[Sequence[Node]]


def partition(root: Node, extent: int, *, min_extent: float = 1.0) -> list[Slice]:
    """Partition ``0..extent`` among the tree's nodes, level by level.

    Promises: the root is the slice ``0..extent`` at depth 0; the slices
    just below a node exactly cover its extent, each sized by its weight's
    share up to the rounding of its two edges (half a unit each); a node's
    trailing children whose share is under ``min_extent``, and its ``small``
    node, are folded into one slice (one file alone keeps its own slice);
    that slice may round to nothing, and is still listed.  Any other slice
    that rounds to nothing is left out with its whole subtree; with
    ``min_extent >= 1`` that never happens, so every file is in exactly one
    slice (its own or a folded one).  Parents come before their children.
    """
    slices = [Slice(0, extent, 0, root, None)]
    stack = [(root, 0.0, float(extent), 0)]
    while stack:
        node, x0, x1, depth = stack.pop()
        children = node.children or []
        small = node.small
        if not children and small is None:
            continue
        k = (x1 - x0) / node.weight
        limit = min_extent / k if k > 0 else float("inf")
        depth += 1
        end = next((i for i, child in enumerate(children) if child.weight < limit), len(children))
        nx = x0  # where the folded slice starts if no child is drawn
        # The last child takes the far edge as is, unless small or narrow ones follow.
        for child, x, nx in dice(children[:end], x0, x1, k, fills=end == len(children) and small is None):
            r0 = int(x + 0.5)
            r1 = int(nx + 0.5)
            # Rounding is monotone: an empty slice has only empty descendants.
            if r1 > r0:
                slices.append(Slice(r0, r1, depth, child, None))
                if child.children is not None:
                    stack.append((child, x, nx, depth))
        rest = children[end:]
        if small is not None:
            rest.append(small)
        if rest:
            slices.append(Slice(int(nx + 0.5), int(x1 + 0.5), depth, *folded_node(node, rest)))
    return slices


def _levels(slices: Sequence[Slice]) -> int:
    # Only levels with something to draw get a row (or ring).
    return max(s.depth for s in slices if s.x1 > s.x0) + 1


def icicle(root: Node, width: int, height: int, *, min_width: float = 1.0) -> list[Block]:
    """The partition as rectangles: the root is the top row, each level one
    row below, all rows of equal height (edges rounded to whole pixels).

    Same promises as :func:`partition`, with ``x`` in ``0..width`` and the
    rows filling ``0..height``.
    """
    slices = partition(root, width, min_extent=min_width)
    levels = _levels(slices)
    # Integer rounding of k * height / levels: the last edge is exactly `height`.
    ys = [(2 * k * height + levels) // (2 * levels) for k in range(levels + 1)]
    return [Block(s.x0, ys[s.depth], s.x1, ys[s.depth + 1], s.node, s.folded) for s in slices]


class Arc(NamedTuple):
    """One ring segment of the sunburst.

    Angles are in degrees, clockwise from twelve o'clock, ``0 <= a0 < a1 <=
    360``; radii in pixels, ``r0 == 0`` only for the root (the center disc).
    ``node`` and ``folded`` mean what they mean for :class:`Slice`.
    """

    a0: float
    a1: float
    r0: float
    r1: float
    node: Node
    folded: Optional[Sequence[Node]]


def sunburst_ticks(radius: float) -> int:
    """Angle ticks of a sunburst of ``radius``: about one per pixel of its rim."""
    return max(16, round(2 * math.pi * radius))


def sunburst(root: Node, radius: float, *, min_arc: float = 1.0) -> list[Arc]:
    """The partition in polar form: the root is the center disc, each level
    one ring further out, all of equal width; angles are proportional to
    weight.  A file (and a folded slice) reaches out to the rim from its
    ring, so a few deep folders do not stick out of the circle as thin spikes
    (docs/svg.md); folders keep to their ring.

    Angles are rounded to :func:`sunburst_ticks` steps, so neighbours share an
    exact edge and the children of a node cover exactly its angle (the root
    covers 360 degrees).  ``min_arc`` is the smallest rim length, in pixels,
    drawn on its own; smaller trailing children fold as in :func:`partition`.
    """
    ticks = sunburst_ticks(radius)
    slices = partition(root, ticks, min_extent=min_arc)
    ring = radius / _levels(slices)
    # Multiply before dividing: the full circle is then exactly 360.
    return [
        Arc(
            s.x0 * 360 / ticks,
            s.x1 * 360 / ticks,
            s.depth * ring,
            radius if s.folded is not None or s.node.children is None else (s.depth + 1) * ring,
            s.node,
            s.folded,
        )
        for s in slices
    ]
