"""Squarified treemap, nested by folder.

Rows are grown with running sums, so each "does the next child improve the
row?" test is O(1); with the children already sorted by the hierarchy, the
layout is linear in the number of laid-out nodes.  Edges are rounded, not
sizes: two neighbours share one float edge and so one rounded edge, so blocks
never overlap and never leave gaps.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple, Optional, Sequence

from .hierarchy import Node

#: Target aspect ratio of the squarified rows (the golden ratio, as in d3).
GOLDEN_RATIO = (1 + 5**0.5) / 2


class Block(NamedTuple):
    """One drawn rectangle, edges rounded to whole pixels.

    ``folded is None``: the block is the file ``node``.  Otherwise it stands
    for ``folded``, the trailing (smallest) children of the folder ``node``,
    too small to be drawn one by one.  A block may round to zero width or
    height; it is then not drawn, but its files are still listed here.
    """

    x0: int
    y0: int
    x1: int
    y1: int
    node: Node
    folded: Optional[Sequence[Node]]


_block = Block._make


def _tail(folder: Node, rest: list[Node], x0: float, y0: float, x1: float, y1: float) -> Block:
    edges = (int(x0 + 0.5), int(y0 + 0.5), int(x1 + 0.5), int(y1 + 0.5))
    if len(rest) == 1 and rest[0].children is None:
        return Block(*edges, rest[0], None)
    return Block(*edges, folder, rest)


def squarified_treemap(
    root: Node,
    width: float,
    height: float,
    *,
    min_area: float = 1.0,
    ratio: float = GOLDEN_RATIO,
) -> list[Block]:
    """Lay out the files of ``root`` in the canvas ``0..width x 0..height``.

    Promises: every file of the tree is in exactly one returned block (its
    own or a folded one); blocks are inside the canvas, do not overlap, and
    together cover it; a block's area is its weight's share of the canvas up
    to the rounding of its four edges (at most half a pixel each).  A
    folder's trailing children whose share is under ``min_area`` square
    pixels, and its ``small`` node, are folded into one block (one file alone
    keeps its own block).
    """
    return list(iter_squarified_treemap(root, width, height, min_area=min_area, ratio=ratio))


def iter_squarified_treemap(
    root: Node,
    width: float,
    height: float,
    *,
    min_area: float = 1.0,
    ratio: float = GOLDEN_RATIO,
) -> Iterator[Block]:
    """Yield the blocks of :func:`squarified_treemap` one by one (a renderer
    that writes each block at once keeps none of them in memory)."""
    if root.children is None:
        yield _tail(root, [root], 0.0, 0.0, width, height)
        return
    stack = [(root, 0.0, 0.0, float(width), float(height))]
    while stack:
        folder, x0, y0, x1, y1 = stack.pop()
        nodes: list[Node] = folder.children  # type: ignore[assignment]
        small = folder.small
        n = len(nodes)
        value = folder.weight
        i0 = 0
        if x1 > x0 and y1 > y0:
            # px² per unit of weight is the same in every remaining sub-rectangle.
            limit = min_area * value / ((x1 - x0) * (y1 - y0))
        else:
            limit = float("inf")
        while i0 < n:
            first = nodes[i0].weight
            dx = x1 - x0
            dy = y1 - y0
            if first < limit or dx <= 0 or dy <= 0:
                break
            # Children are sorted largest first: the row's extremes are its
            # first and last child, so its worst aspect ratio is O(1) to get.
            alpha = max(dy / dx, dx / dy) / (value * ratio)
            row = first
            beta = row * row * alpha
            worst = max(first / beta, beta / first)
            i1 = i0 + 1
            while i1 < n:
                w = nodes[i1].weight
                if w < limit:
                    break
                grown = row + w
                beta = grown * grown * alpha
                candidate = max(first / beta, beta / w)
                if candidate > worst:
                    break
                worst = candidate
                row = grown
                i1 += 1
            last = i1 - 1
            # The very last row takes the rectangle's far edge as is, so float
            # drift never leaves a sliver.
            fills = i1 == n and small is None
            if dx < dy:
                # A row across the top, as wide as the rectangle.
                y2 = y1 if fills else y0 + dy * row / value
                top, bottom = int(y0 + 0.5), int(y2 + 0.5)
                k = dx / row
                x = x0
                left = int(x + 0.5)
                for j in range(i0, i1):
                    node = nodes[j]
                    nx = x1 if j == last else x + node.weight * k
                    right = int(nx + 0.5)
                    if node.children is None:
                        yield _block((left, top, right, bottom, node, None))
                    else:
                        stack.append((node, x, y0, nx, y2))
                    x = nx
                    left = right
                y0 = y2
            else:
                # A column down the left side, as tall as the rectangle.
                x2 = x1 if fills else x0 + dx * row / value
                left, right = int(x0 + 0.5), int(x2 + 0.5)
                k = dy / row
                y = y0
                top = int(y + 0.5)
                for j in range(i0, i1):
                    node = nodes[j]
                    ny = y1 if j == last else y + node.weight * k
                    bottom = int(ny + 0.5)
                    if node.children is None:
                        yield _block((left, top, right, bottom, node, None))
                    else:
                        stack.append((node, x0, y, x2, ny))
                    y = ny
                    top = bottom
                x0 = x2
            value -= row
            i0 = i1
        rest = nodes[i0:]
        if small is not None:
            rest.append(small)
        if rest:
            yield _tail(folder, rest, x0, y0, x1, y1)
