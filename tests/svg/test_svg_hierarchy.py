from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.svg.hierarchy import (
    EMPTY_FILE_WEIGHT,
    SmallFiles,
    build_hierarchy,
    iter_nodes,
)

segment = st.text(alphabet="ab/.", min_size=0, max_size=3)


@st.composite
def records(draw, max_size=30):
    paths = draw(st.lists(st.lists(segment, min_size=1, max_size=5).map("/".join), max_size=max_size))
    out = []
    for path in paths:
        lines = draw(st.integers(-2, 300))
        hits = draw(st.integers(-2, 310))
        out.append((path, lines, hits))
    return out


def _files(root):
    return [node for node, _ in iter_nodes(root) if node.children is None]


def _check_sums(root):
    for node, _ in iter_nodes(root):
        if node.children is None:
            assert node.weight == (node.lines or EMPTY_FILE_WEIGHT)
            assert node.files == 1
            continue
        parts = list(node.children) + ([node.small] if node.small is not None else [])
        assert node.lines == sum(c.lines for c in parts)
        assert node.hits == sum(c.hits for c in parts)
        assert node.weight == sum(c.weight for c in parts)
        assert node.files == sum(c.files for c in parts)
        weights = [c.weight for c in node.children]
        assert weights == sorted(weights, reverse=True)


def test_folders_sum_their_files():
    root = build_hierarchy([("src/a.py", 10, 5), ("src/b.py", 4, 4), ("README", 0, 0)])
    assert (root.lines, root.hits, root.files) == (14, 9, 3)
    assert root.weight == 14 + EMPTY_FILE_WEIGHT
    src = next(c for c in root.children if c.path == "src")
    assert (src.lines, src.hits, src.weight, src.files) == (14, 9, 14, 2)
    assert [c.path for c in src.children] == ["src/a.py", "src/b.py"]


def test_single_child_chains_fold():
    root = build_hierarchy([("a/b/c/x.py", 1, 1), ("a/b/c/y.py", 2, 1), ("z.py", 1, 0)])
    names = {c.name: c for c in root.children}
    assert set(names) == {"a/b/c", "z.py"}
    folded = names["a/b/c"]
    assert folded.path == "a/b/c"
    assert sorted(c.name for c in folded.children) == ["x.py", "y.py"]


def test_folder_with_a_single_file_folds_into_it():
    root = build_hierarchy([("a/b/only.py", 3, 2), ("top.py", 1, 1)])
    only = next(c for c in root.children if c.path == "a/b/only.py")
    assert only.children is None
    assert only.name == "a/b/only.py"


def test_root_is_never_folded():
    root = build_hierarchy([("src/pkg/a.py", 3, 2), ("src/pkg/b.py", 3, 2)])
    assert root.path == ""
    assert [c.name for c in root.children] == ["src/pkg"]


def test_zero_line_file_has_minimum_weight_and_counts():
    root = build_hierarchy([("empty.py", 0, 0), ("big.py", 1000, 10)])
    empty = next(c for c in root.children if c.path == "empty.py")
    assert empty.weight == EMPTY_FILE_WEIGHT > 0
    assert (empty.lines, empty.hits) == (0, 0)


def test_bad_counts_are_clamped():
    root = build_hierarchy([("a", -5, 3), ("b", 4, 9), ("c", 4, -1)])
    got = {c.path: (c.lines, c.hits) for c in root.children}
    assert got == {"a": (0, 0), "b": (4, 4), "c": (4, 0)}


def test_equivalent_folder_spellings_share_a_folder():
    root = build_hierarchy([("a//b/x", 1, 1), ("./a/b/y", 1, 1), ("/a/b/z", 1, 1)])
    (folder,) = root.children
    assert folder.path == "a/b"
    assert folder.files == 3


def test_deep_paths_do_not_recurse():
    depth = sys.getrecursionlimit() * 3
    path = "/".join(["d"] * depth) + "/f.py"
    root = build_hierarchy([(path, 5, 5), (path + "x", 5, 1)])
    assert root.files == 2
    assert max(d for _, d in iter_nodes(root)) == 2  # the chain folded into one node


def test_small_files_are_summed_into_their_folder():
    files = [("src/big.py", 1000, 900)] + [(f"src/s{i}.py", 1, 1) for i in range(50)] + [("src/e.py", 0, 0)]
    root = build_hierarchy(files, min_share=0.01)
    src = root.children[0]
    assert [c.path for c in src.children] == ["src/big.py"]
    assert isinstance(src.small, SmallFiles)
    assert (src.small.files, src.small.lines, src.small.hits) == (51, 50, 50)
    assert src.small.weight == 50 + EMPTY_FILE_WEIGHT
    assert src.small.path == "src"
    _check_sums(root)


def test_light_folders_are_summed_into_their_parent():
    files = [("src/big.py", 1000, 900), ("src/sub/a.py", 3, 1), ("src/sub/deep/b.py", 2, 2), ("src/s.py", 1, 1)]
    root = build_hierarchy(files, min_share=0.01)
    src = root.children[0]
    # No node for src/sub (5 lines, under 1 % of 1006): its files count in src's small files.
    assert [c.path for c in src.children] == ["src/big.py"]
    assert (src.small.files, src.small.lines, src.small.hits, src.small.weight) == (3, 6, 4, 6)
    assert (root.files, root.lines, root.hits) == (4, 1006, 904)
    _check_sums(root)


def test_a_folder_of_light_files_is_all_small():
    files = [("big.py", 10_000, 10)] + [(f"pkg/m{i}.py", 60, 30) for i in range(5)]
    root = build_hierarchy(files, min_share=0.01)  # 103 lines at least; pkg holds 300
    (pkg,) = (c for c in root.children if c.path == "pkg")
    assert pkg.children == []
    assert (pkg.small.files, pkg.small.lines, pkg.small.hits) == (5, 300, 150)


@settings(max_examples=150, deadline=None)
@given(records(), st.sampled_from([0.0, 0.01, 0.2]))
def test_totals_are_conserved(files, min_share):
    root = build_hierarchy(files, min_share=min_share)
    assert root.files == len(files)
    assert root.lines == sum(max(lines, 0) for _, lines, _ in files)
    _check_sums(root)
    if min_share == 0.0:
        assert sorted(n.path for n in _files(root)) == sorted(p for p, _, _ in files)
    for node, depth in iter_nodes(root):
        if depth and node.children is not None:
            assert len(node.children) != 1 or node.small is not None
