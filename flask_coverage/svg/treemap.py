"""Squarified treemap, nested by folder, in d3-hierarchy's shape.

:func:`squarify_row` picks the children of one row; :func:`_dice` and :func:`_slice` lay a row
out across or down its rectangle; :func:`squarified_treemap` walks the folders.  Rows are grown
with running sums, so each "does the next child improve the row?" test is O(1); with the children
already sorted by the hierarchy, the layout is linear in the number of laid-out nodes.  Edges are
rounded, not sizes: two neighbours share one float edge and so one rounded edge, so blocks never
overlap and never leave gaps.
"""

from __future__ import annotations

from typing import List, Tuple

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
            _dice(nodes, start, end, x0, y0, x1, y2, dx / row, blocks, pending)
            y0 = y2
        else:
            x2 = x1 if fills else x0 + dx * row / value
            _slice(nodes, start, end, x0, y0, x2, y1, dy / row, blocks, pending)
            x0 = x2
        value -= row
        start = end
    rest = nodes[start:]
    if small is not None:
        rest.append(small)
    if rest:
        blocks.append(Block(int(x0 + 0.5), int(y0 + 0.5), int(x1 + 0.5), int(y1 + 0.5), *folded_node(folder, rest)))


def _dice(
    nodes: list[Node],
    start: int,
    end: int,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    k: float,
    blocks: list[Block],
    pending: _Pending,
) -> None:
    """A row across the rectangle: ``nodes[start:end]`` side by side, each ``weight * k`` wide."""
    top, bottom = int(y0 + 0.5), int(y1 + 0.5)
    last = end - 1
    x = x0
    left = int(x + 0.5)
    for j in range(start, end):
        node = nodes[j]
        nx = x1 if j == last else x + node.weight * k
        right = int(nx + 0.5)
        if node.children is None:
            blocks.append(_block((left, top, right, bottom, node, None)))
        else:
            pending.append((node, x, y0, nx, y1))
        x = nx
        left = right


def _slice(
    nodes: list[Node],
    start: int,
    end: int,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    k: float,
    blocks: list[Block],
    pending: _Pending,
) -> None:
    """A column down the rectangle: ``nodes[start:end]`` one above the other, each ``weight * k`` tall."""
    left, right = int(x0 + 0.5), int(x1 + 0.5)
    last = end - 1
    y = y0
    top = int(y + 0.5)
    for j in range(start, end):
        node = nodes[j]
        ny = y1 if j == last else y + node.weight * k
        bottom = int(ny + 0.5)
        if node.children is None:
            blocks.append(_block((left, top, right, bottom, node, None)))
        else:
            pending.append((node, x0, y, x1, ny))
        y = ny
        top = bottom
