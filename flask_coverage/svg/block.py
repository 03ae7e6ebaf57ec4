"""The drawn rectangle every rectangular layout returns (treemap, icicle)."""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence

from .hierarchy import Node


class Block(NamedTuple):
    """One drawn rectangle, edges rounded to whole pixels.

    ``folded is None``: the block is ``node`` (a file, or a folder in an
    icicle).  Otherwise it stands for ``folded``, the trailing (smallest)
    children of the folder ``node``, too small to be drawn one by one.  A
    block may round to zero width or height; it is then not drawn, but its
    files are still listed here.
    """

    x0: int
    y0: int
    x1: int
    y1: int
    node: Node
    folded: Optional[Sequence[Node]]


def folded_node(folder: Node, rest: list[Node]) -> tuple[Node, Optional[list[Node]]]:
    """``(node, folded)`` of the one shape that stands for ``rest``, the trailing children of
    ``folder`` too small to be drawn one by one: a single file keeps a shape of its own."""
    if len(rest) == 1 and rest[0].children is None:
        return rest[0], None
    return folder, rest
