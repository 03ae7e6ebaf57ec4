"""A folder tree of file coverage records, the input of every layout.

The tree is built iteratively (no recursion), so paths of any depth are fine.
With ``min_share``, only files big enough to be drawn become nodes, so a
request for a large repository spends its time on what ends up on screen.
"""

from __future__ import annotations

from collections import defaultdict
from operator import attrgetter, countOf, itemgetter, le
from typing import Iterable, List, Optional, Tuple

#: Layout weight of a file with no tracked lines: the weight of a one-line file,
#: so such a file still gets a block of its own (its coverage is "n/a").
EMPTY_FILE_WEIGHT = 1

#: One file record: ``(path, lines, hits)``; ``lines`` counts tracked lines
#: (hits + misses + partials), the coverage ratio is ``hits / lines``.
FileRecord = Tuple[str, int, int]

_by_path = attrgetter("path")
_by_weight = attrgetter("weight")
_lines_of = itemgetter(1)
_hits_of = itemgetter(2)


class Node:
    """A file, a folder, or the summed-up small files of a folder.

    * file: ``children is None``; ``path`` is the path it was given;
    * folder: ``children`` is a list of nodes, sorted by weight (largest
      first), ties by path; ``path`` is its normalized path (``""`` for the
      root); ``small`` is ``None`` or its small-files node;
    * small files of a folder (a :class:`SmallFiles`): ``children == []``,
      ``path`` is the folder's; it is the folder's ``small``, never one of
      its ``children``.

    ``name`` is the label relative to the parent (``"a/b"`` after folding a
    chain).  ``lines`` and ``hits`` are summed over the subtree, ``weight``
    is the layout value (``lines``, but at least :data:`EMPTY_FILE_WEIGHT`
    per file) and ``files`` the number of files in the subtree.
    """

    __slots__ = ("label", "path", "lines", "hits", "weight", "files", "children", "small")

    def __init__(
        self,
        path: str,
        lines: int,
        hits: int,
        weight: int,
        files: int,
        children: Optional[List[Node]],
        label: Optional[str] = None,
    ) -> None:
        self.label = label
        self.path = path
        self.lines = lines
        self.hits = hits
        self.weight = weight
        self.files = files
        self.children = children
        self.small: Optional[Node] = None

    @property
    def name(self) -> str:
        # Files compute it on demand: most never need one.
        return self.label if self.label is not None else self.path.rpartition("/")[2]

    @property
    def is_file(self) -> bool:
        return self.children is None

    def __repr__(self) -> str:
        kind = "file" if self.children is None else "folder"
        return f"<{type(self).__name__} {kind} {self.path!r} {self.hits}/{self.lines} files={self.files}>"


class SmallFiles(Node):
    """The small files of a folder, summed up (see ``min_share``): a node with
    the folder's path and no children, kept as the folder's ``small``."""

    __slots__ = ()


def _folder(name: str, path: str) -> Node:
    return Node(path, 0, 0, 0, 0, [], name)


def _find_folder(raw_dir: str, by_path: dict[str, Node], created: list[tuple[Node, Node]]) -> Node:
    """The folder for ``raw_dir``, creating it and its missing ancestors."""
    parts = raw_dir.split("/")
    if "" in parts or "." in parts:
        # Empty and "." segments ("a//b", "/a", "./a") name the same folder as "a/b".
        parts = [p for p in parts if p and p != "."]
        path = "/".join(parts)
    else:
        path = raw_dir
    folder = by_path.get(path)
    if folder is not None:
        return folder
    # Walk up to the nearest existing ancestor, then create downwards, so
    # `created` lists every (parent, folder) pair after its parent's pair.
    depth = len(parts)
    while "/".join(parts[: depth - 1]) not in by_path:
        depth -= 1
    for i in range(depth, len(parts) + 1):
        parent = by_path["/".join(parts[: i - 1])]
        child = _folder(parts[i - 1], "/".join(parts[:i]))
        parent.children.append(child)  # type: ignore[union-attr]
        by_path[child.path] = child
        created.append((parent, child))
    return by_path[path]


def _clamped(records: list[FileRecord]) -> list[FileRecord]:
    out = []
    for path, lines, hits in records:
        lines = max(lines, 0)
        out.append((path, lines, min(max(hits, 0), lines)))
    return out


def build_hierarchy(files: Iterable[FileRecord], *, min_share: float = 0.0) -> Node:
    """Build the folder tree of ``files`` and return its root (path ``""``).

    Promises:

    * every record counts as one file (records are not merged, even with
      equal paths); ``lines < 0`` counts as 0 and ``hits`` is clamped to
      ``0..lines``;
    * folders sum ``lines``, ``hits``, ``weight`` and ``files`` of their
      subtree, so the root holds the project totals;
    * a file whose weight is under ``min_share`` of the root's weight is not
      a node of its own: it is summed into its folder's ``small`` node
      (layouts fold such files anyway, see ``min_area`` and ``min_extent``);
      with the default ``0.0`` every file is a node;
    * a folder below the root with a single child (and no small files) is
      folded into that child, whose name becomes ``"folder/child"``; chains
      fold all the way down;
    * children are ordered by weight, largest first, ties by path.
    """
    records = files if isinstance(files, list) else list(files)
    all_lines = list(map(_lines_of, records))
    all_hits = list(map(_hits_of, records))
    # 0 <= hits <= lines for all (so lines >= 0 too), checked with C-level passes.
    if records and (min(all_hits) < 0 or not all(map(le, all_hits, all_lines))):
        records = _clamped(records)
        all_lines = list(map(_lines_of, records))
    min_weight = min_share * (sum(all_lines) + all_lines.count(0) * EMPTY_FILE_WEIGHT)
    del all_lines, all_hits

    groups: defaultdict[str, list[FileRecord]] = defaultdict(list)
    for record in records:
        groups[record[0].rpartition("/")[0]].append(record)

    root = _folder("", "")
    by_path: dict[str, Node] = {"": root}
    created: list[tuple[Node, Node]] = []
    for raw_dir, group in groups.items():
        folder = _find_folder(raw_dir, by_path, created)
        # Sums with C-level passes: Python-level work per file is kept for
        # the files that become nodes.
        line_sum = sum(map(_lines_of, group))
        hit_sum = sum(map(_hits_of, group))
        weight = line_sum + countOf(map(_lines_of, group), 0) * EMPTY_FILE_WEIGHT
        folder.lines += line_sum
        folder.hits += hit_sum
        folder.weight += weight
        folder.files += len(group)
        kept = group
        if min_weight > EMPTY_FILE_WEIGHT:
            kept = [r for r in group if r[1] >= min_weight]
            if len(kept) < len(group):
                # Kept files have more than one line: their weight is their lines.
                kept_lines = sum(map(_lines_of, kept))
                small = folder.small
                if small is None:
                    # Several raw directories ("a", "./a") can share one folder.
                    small = folder.small = SmallFiles(folder.path, 0, 0, 0, 0, [], "")
                small.lines += line_sum - kept_lines
                small.hits += hit_sum - sum(map(_hits_of, kept))
                small.weight += weight - kept_lines
                small.files += len(group) - len(kept)
        folder.children.extend(  # type: ignore[union-attr]
            [Node(path, lines, hits, lines or EMPTY_FILE_WEIGHT, 1, None) for path, lines, hits in kept]
        )
    _sum_and_sort(root, created)
    _fold_chains(root)
    return root


def _sum_and_sort(root: Node, created: list[tuple[Node, Node]]) -> None:
    # `created` has parents before children: walking it backwards finishes a
    # folder's totals before they are added to its parent.
    for parent, folder in reversed(created):
        parent.lines += folder.lines
        parent.hits += folder.hits
        parent.weight += folder.weight
        parent.files += folder.files
    for folder in (root, *(folder for _, folder in created)):
        children = folder.children
        # Two stable sorts: by weight (largest first), ties by path.
        children.sort(key=_by_path)  # type: ignore[union-attr]
        children.sort(key=_by_weight, reverse=True)  # type: ignore[union-attr]


def _fold_chains(root: Node) -> None:
    stack = [root]
    while stack:
        children: list[Node] = stack.pop().children  # type: ignore[assignment]
        for i, child in enumerate(children):
            grandchildren = child.children
            while grandchildren is not None and len(grandchildren) == 1 and child.small is None:
                only = grandchildren[0]
                only.label = f"{child.name}/{only.name}"
                child = only
                grandchildren = child.children
            children[i] = child
            if grandchildren:
                stack.append(child)


def iter_nodes(root: Node) -> Iterable[tuple[Node, int]]:
    """Yield ``(node, depth)`` for every node in ``children``, parents before
    children (the root has depth 0; ``small`` nodes are not yielded)."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        if node.children is not None:
            stack.extend((child, depth + 1) for child in reversed(node.children))
