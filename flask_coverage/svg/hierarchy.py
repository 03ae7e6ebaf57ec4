"""A folder tree of file coverage records, the input of every layout.

The tree is built in flat passes, without recursion (paths of any depth are fine): one pass over
the records sums them per directory, one pass over the folders, deepest first, sums each folder
into its parent. With ``min_share``, files and whole folders too light to be drawn never become
nodes: they are summed into their folder's ``small`` node, so a request for a large repository
spends its time on what ends up on screen.
"""

from __future__ import annotations

from operator import attrgetter, itemgetter, le
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


def _normal_dir(raw_dir: str) -> str:
    return "/".join(part for part in raw_dir.split("/") if part and part != ".")


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
    * a file or folder whose weight is under ``min_share`` of the root's
      weight is not a node of its own: it is summed into its parent folder's
      ``small`` node (layouts fold such blocks anyway, see ``min_area`` and
      ``min_extent``); with the default ``0.0`` every file and folder is a node;
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
    folders = _sum_by_directory(records)
    normal = False
    if not _link_parents(folders):
        # "a//b", "./a/b" and "/a/b" are one folder "a/b".
        normal = True
        folders = _merge_spellings(folders)
        _link_parents(folders)
    # Files that get a node (a file of one line or none weighs EMPTY_FILE_WEIGHT, never more).
    heavy = records if min_weight <= EMPTY_FILE_WEIGHT else [r for r in records if r[1] >= min_weight]
    kids: dict[str, list[Node]] = {}
    for path, lines, hits in heavy:
        folder = path.rpartition("/")[0]
        if normal:
            folder = _normal_dir(folder)
        weight = lines or EMPTY_FILE_WEIGHT
        sums = folders[folder]
        sums.kept_lines += lines
        sums.kept_hits += hits
        sums.kept_weight += weight
        sums.kept_files += 1
        node = Node(path, lines, hits, weight, 1, None)
        siblings = kids.get(folder)
        if siblings is None:
            kids[folder] = [node]
        else:
            siblings.append(node)
    return _folder_nodes(folders, kids, min_weight)


class _FolderSums:
    """A folder while the tree is built: the sums of its subtree (at first of its own files), the
    same of what in it gets a node of its own (``kept_*``), and its parent's sums."""

    __slots__ = (
        "lines",
        "hits",
        "weight",
        "files",
        "kept_lines",
        "kept_hits",
        "kept_weight",
        "kept_files",
        "parent",
    )

    def __init__(self, lines: int = 0, hits: int = 0, weight: int = 0, files: int = 0) -> None:
        self.lines = lines
        self.hits = hits
        self.weight = weight
        self.files = files
        self.kept_lines = self.kept_hits = self.kept_weight = self.kept_files = 0
        self.parent: Optional[_FolderSums] = None


def _sum_by_directory(records: list[FileRecord]) -> dict[str, _FolderSums]:
    """The sums of each directory's files, directories as spelled in the paths: the one pass
    over every record, hence the plain loop."""
    folders: dict[str, _FolderSums] = {}
    get = folders.get
    for path, lines, hits in records:
        raw_dir = path.rpartition("/")[0]
        sums = get(raw_dir)
        if sums is None:
            folders[raw_dir] = _FolderSums(lines, hits, lines or EMPTY_FILE_WEIGHT, 1)
        else:
            sums.lines += lines
            sums.hits += hits
            sums.weight += lines or EMPTY_FILE_WEIGHT
            sums.files += 1
    return folders


def _link_parents(folders: dict[str, _FolderSums]) -> bool:
    """Point each folder's sums to its parent's, adding the root and the folders that hold only folders.

    Returns ``False`` (the links are then unusable) if a directory is spelled with an empty or
    ``"."`` segment (``"/a"``, ``"a//b"``, ``"a/"``, ``"./a"``): each segment is checked once,
    when its folder is linked.
    """
    folders.setdefault("", _FolderSums())
    for path, sums in list(folders.items()):
        while path:
            path, slash, name = path.rpartition("/")
            if not name or name == "." or (slash and not path):
                return False
            parent = folders.get(path)
            if parent is not None:
                sums.parent = parent
                break
            parent = folders[path] = _FolderSums()
            sums.parent = parent
            sums = parent
    return True


def _merge_spellings(folders: dict[str, _FolderSums]) -> dict[str, _FolderSums]:
    merged: dict[str, _FolderSums] = {}
    for path, sums in folders.items():
        into = merged.setdefault(_normal_dir(path), _FolderSums())
        into.lines += sums.lines
        into.hits += sums.hits
        into.weight += sums.weight
        into.files += sums.files
    return merged


def _folder_nodes(folders: dict[str, _FolderSums], kids: dict[str, list[Node]], min_weight: float) -> Node:
    """Sum every folder into its parent and make the folders that get a node; returns the root.

    ``kids`` holds the file nodes of each folder; folder nodes are added as they are made.
    """
    # A folder's path sorts after its parent's ("a" < "a/b"): in reverse order, every folder is
    # complete before it is added to its parent, and the root ("") comes last.
    node = Node("", 0, 0, 0, 0, [], "")  # replaced by the root
    for path in sorted(folders, reverse=True):
        sums = folders[path]
        lines, hits, weight, count, parent = sums.lines, sums.hits, sums.weight, sums.files, sums.parent
        if parent is not None:
            parent.lines += lines
            parent.hits += hits
            parent.weight += weight
            parent.files += count
            if weight < min_weight:
                continue
            parent.kept_lines += lines
            parent.kept_hits += hits
            parent.kept_weight += weight
            parent.kept_files += count
        folder, _, name = path.rpartition("/")
        children = kids.pop(path, [])
        node = Node(path, lines, hits, weight, count, children, name)
        if sums.kept_files < count:
            node.small = SmallFiles(
                path,
                lines - sums.kept_lines,
                hits - sums.kept_hits,
                weight - sums.kept_weight,
                count - sums.kept_files,
                [],
                "",
            )
        if len(children) > 1:
            _sort_and_fold(children)
        elif children:
            _fold(children, 0)
        if parent is not None:
            siblings = kids.get(folder)
            if siblings is None:
                kids[folder] = [node]
            else:
                siblings.append(node)
    return node


def _sort_and_fold(children: list[Node]) -> None:
    """Order ``children`` (weight, largest first; ties by path), then fold each single-child
    folder into its child. Children are folded themselves already, so one step is enough."""
    # Two stable sorts: by path, then by weight.
    children.sort(key=_by_path)
    children.sort(key=_by_weight, reverse=True)
    for i in range(len(children)):
        _fold(children, i)


def _fold(children: list[Node], i: int) -> None:
    child = children[i]
    grandchildren = child.children
    if grandchildren is not None and len(grandchildren) == 1 and child.small is None:
        only = grandchildren[0]
        only.label = f"{child.name}/{only.name}"
        children[i] = only


def iter_nodes(root: Node) -> Iterable[tuple[Node, int]]:
    """Yield ``(node, depth)`` for every node in ``children``, parents before
    children (the root has depth 0; ``small`` nodes are not yielded)."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        if node.children is not None:
            stack.extend((child, depth + 1) for child in reversed(node.children))
