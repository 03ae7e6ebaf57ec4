"""Squarified treemap, nested by folder, in d3-hierarchy's shape.

:func:`squarify_row` picks the children of one row; :func:`dice` lays a row out across or down
its rectangle (and the partition a level); :func:`squarified_treemap` walks the folders.  Rows
are grown with running sums, so each "does the next child improve the row?" test is O(1); with
the children already sorted by the hierarchy, the layout is linear in the number of laid-out
nodes.  Edges are rounded, not sizes: two neighbours share one float edge and so one rounded
edge, so blocks never overlap and never leave gaps.
"""

from __future__ import annotations

from typing import Iterator, List, Tuple

from .block import Block, folded_node
from .hierarchy import Node

#: Target aspect ratio of the squarified rows (the golden ratio, as in d3).
GOLDEN_RATIO = (1 + 5**0.5) / 2

# A folder still to lay out, with its rectangle x0, y0, x1, y1.
_Pending = List[Tuple[Node, float, float, float, float]]
_block = Block._make


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
    if root.children is None:
        return [Block(0, 0, int(width + 0.5), int(height + 0.5), root, None)]
    blocks: list[Block] = []
    pending: _Pending = [(root, 0.0, 0.0, float(width), float(height))]
    while pending:
        folder, x0, y0, x1, y1 = pending.pop()
        _squarify(folder, x0, y0, x1, y1, min_area, ratio, blocks, pending)
    return blocks


def squarify_row(
    nodes: list[Node], start: int, dx: float, dy: float, value: float, ratio: float, limit: float
) -> tuple[int, int]:
    """The row that starts with ``nodes[start]`` in a ``dx`` by ``dy`` rectangle holding ``value``:
    ``(end, weight)``, the row being ``nodes[start:end]`` and ``weight`` its summed weight.

    The row grows while its worst aspect ratio (against ``ratio``) improves and the next node
    weighs at least ``limit``.  Nodes are sorted largest first, so the row's extremes are its
    first and last node, and each test is O(1).
    """
    alpha = max(dy / dx, dx / dy) / (value * ratio)
    first = row = nodes[start].weight
    beta = row * row * alpha
    worst = max(first / beta, beta / first)
    end = start + 1
    n = len(nodes)
    while end < n:
        w = nodes[end].weight
        if w < limit:
            break
        grown = row + w
        beta = grown * grown * alpha
        candidate = max(first / beta, beta / w)
        if candidate > worst:
            break
        worst = candidate
        row = grown
        end += 1
    return end, row


def _squarify(
    folder: Node,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    min_area: float,
    ratio: float,
    blocks: list[Block],
    pending: _Pending,
) -> None:
    """Lay out the children of ``folder`` in its rectangle, row by row: files go to ``blocks``,
    folders to ``pending``, the trailing children under ``min_area`` into one folded block."""
    nodes: list[Node] = folder.children  # type: ignore[assignment]
    small = folder.small
    n = len(nodes)
    value = folder.weight
    if x1 > x0 and y1 > y0:
        # px² per unit of weight is the same in every remaining sub-rectangle.
        limit = min_area * value / ((x1 - x0) * (y1 - y0))
    else:
        limit = float("inf")
    start = 0
    while start < n and nodes[start].weight >= limit and x1 > x0 and y1 > y0:
        dx = x1 - x0
        dy = y1 - y0
        end, row = squarify_row(nodes, start, dx, dy, value, ratio, limit)
        # The very last row takes the rectangle's far edge as is, so float drift never leaves a sliver.
        fills = end == n and small is None
        if dx < dy:
            y2 = y1 if fills else y0 + dy * row / value
            for node, x, nx in dice(nodes[start:end], x0, x1, dx / row):
                _place(node, x, y0, nx, y2, blocks, pending)
            y0 = y2
        else:
            x2 = x1 if fills else x0 + dx * row / value
            for node, y, ny in dice(nodes[start:end], y0, y1, dy / row):
                _place(node, x0, y, x2, ny, blocks, pending)
            x0 = x2
        value -= row
        start = end
    rest = nodes[start:]
    if small is not None:
        rest.append(small)
    if rest:
        blocks.append(Block(int(x0 + 0.5), int(y0 + 0.5), int(x1 + 0.5), int(y1 + 0.5), *folded_node(folder, rest)))


def dice(nodes: list[Node], x0: float, x1: float, k: float, fills: bool = True) -> Iterator[tuple[Node, float, float]]:
    """``nodes`` side by side along one axis from ``x0``, each ``weight * k`` long: each node with
    its two float edges, a node's far edge being its next neighbour's near edge.  With ``fills``
    the last node ends on ``x1`` as is, so float drift never leaves a sliver.  As d3's
    ``treemapDice``, the one row placement of the treemap (rows across and down) and the partition.
    """
    last = len(nodes) - 1 if fills else -1
    x = x0
    for i, node in enumerate(nodes):
        nx = x1 if i == last else x + node.weight * k
        yield node, x, nx
        x = nx


def _place(node: Node, x0: float, y0: float, x1: float, y1: float, blocks: list[Block], pending: _Pending) -> None:
    """A file's block (edges rounded) to ``blocks``, a folder with its float rectangle to ``pending``."""
    if node.children is None:
        blocks.append(_block((int(x0 + 0.5), int(y0 + 0.5), int(x1 + 0.5), int(y1 + 0.5), node, None)))
    else:
        pending.append((node, x0, y0, x1, y1))
