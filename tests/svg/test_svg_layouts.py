from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.svg.hierarchy import SmallFiles, build_hierarchy, iter_nodes
from flask_coverage.svg.partition import icicle, partition, sunburst, sunburst_ticks
from flask_coverage.svg.treemap import squarified_treemap

# Heavy-tailed sizes: mostly small files, a few large ones, some empty.
line_counts = st.one_of(st.just(0), st.integers(1, 20), st.integers(1, 5000))


@st.composite
def records(draw, max_size=40):
    folders = draw(st.lists(st.sampled_from(["", "a", "a/b", "a/b/c", "d", "d/e/f/g"]), min_size=1, max_size=max_size))
    out = []
    for i, folder in enumerate(folders):
        lines = draw(line_counts)
        hits = draw(st.integers(0, lines))
        out.append((f"{folder}/f{i}.py" if folder else f"f{i}.py", lines, hits))
    return out


sizes = st.integers(16, 120)


def _accounted(items):
    """Count how many times each file is covered by an item: its own, or a
    folded one (which covers the whole subtrees of its nodes).  Files summed
    into a ``small`` node count under ``"<small>"``."""
    seen = Counter()
    for item in items:
        if item.folded is None:
            if item.node.children is None:
                seen[item.node.path] += 1
            continue
        for node in item.folded:
            if isinstance(node, SmallFiles):
                seen["<small>"] += node.files
                continue
            for sub, _ in iter_nodes(node):
                if sub.children is None:
                    seen[sub.path] += 1
                elif sub.small is not None:
                    seen["<small>"] += sub.small.files
    return seen


def _paint(blocks, width, height):
    """Pixel coverage count of the non-empty blocks."""
    grid = [[0] * width for _ in range(height)]
    for b in blocks:
        assert 0 <= b.x0 <= b.x1 <= width
        assert 0 <= b.y0 <= b.y1 <= height
        for y in range(b.y0, b.y1):
            row = grid[y]
            for x in range(b.x0, b.x1):
                row[x] += 1
    return grid


@settings(max_examples=100, deadline=None)
@given(records(), sizes, sizes, st.sampled_from([0.0, 1.0, 4.0, 30.0]))
def test_treemap_tiles_the_canvas(files, width, height, min_area):
    root = build_hierarchy(files)
    blocks = squarified_treemap(root, width, height, min_area=min_area)
    # Every pixel is covered exactly once: inside, no overlap, no gap.
    grid = _paint(blocks, width, height)
    assert all(cell == 1 for row in grid for cell in row)
    # Every file is in exactly one block, its own or a folded one.
    seen = _accounted(blocks)
    assert sorted(seen.elements()) == sorted(p for p, _, _ in files)
    # Own blocks are sized by weight, up to half a pixel on each edge.
    scale = width * height / root.weight
    for b in blocks:
        if b.folded is None:
            w, h = b.x1 - b.x0, b.y1 - b.y0
            assert abs(w * h - b.node.weight * scale) <= w + h + 1


@settings(max_examples=80, deadline=None)
@given(records(), sizes, sizes, st.sampled_from([0.01, 0.1]))
def test_treemap_with_small_files_summed(files, width, height, min_share):
    root = build_hierarchy(files, min_share=min_share)
    min_area = min_share * width * height
    blocks = squarified_treemap(root, width, height, min_area=min_area)
    grid = _paint(blocks, width, height)
    assert all(cell == 1 for row in grid for cell in row)
    seen = _accounted(blocks)
    assert sum(seen.values()) == len(files)
    for b in blocks:
        if b.folded is None:
            # What is drawn on its own is not smaller than asked (edge rounding aside).
            w, h = b.x1 - b.x0, b.y1 - b.y0
            assert w * h + w + h + 1 >= min_area


def _drawn(blocks):
    """What a block shows: its rectangle, and the files, lines and hits it stands for."""
    out = []
    for b in blocks:
        nodes = [b.node] if b.folded is None else b.folded
        sums = (sum(n.files for n in nodes), sum(n.lines for n in nodes), sum(n.hits for n in nodes))
        out.append((b.x0, b.y0, b.x1, b.y1, *sums))
    return sorted(out)


@settings(max_examples=100, deadline=None)
@given(records(), sizes, sizes, st.integers(0, 80))
def test_summing_what_is_too_small_changes_nothing_drawn(files, width, height, k):
    full = build_hierarchy(files)
    # Halfway between two whole weights, so that float rounding cannot tip a file or folder.
    min_share = (k + 0.5) / max(full.weight, 1)
    min_area = min_share * width * height
    summed = build_hierarchy(files, min_share=min_share)
    drawn = _drawn(squarified_treemap(summed, width, height, min_area=min_area))
    assert drawn == _drawn(squarified_treemap(full, width, height, min_area=min_area))
    slices = icicle(summed, width, height, min_width=min_share * width)
    assert _drawn(slices) == _drawn(icicle(full, width, height, min_width=min_share * width))


def test_treemap_zero_line_file_is_visible():
    root = build_hierarchy([("big.py", 500, 400), ("empty/__init__.py", 0, 0), ("mid.py", 40, 0)])
    blocks = squarified_treemap(root, 100, 100)
    empty = next(b for b in blocks if b.node.path == "empty/__init__.py")
    assert empty.folded is None
    assert empty.x1 > empty.x0 and empty.y1 > empty.y0


def test_treemap_of_nothing_is_empty():
    assert squarified_treemap(build_hierarchy([]), 100, 100) == []


def test_treemap_is_squarified():
    root = build_hierarchy([(f"f{i}", 100, 0) for i in range(100)])
    blocks = squarified_treemap(root, 500, 500)
    worst = max(max(b.x1 - b.x0, b.y1 - b.y0) / min(b.x1 - b.x0, b.y1 - b.y0) for b in blocks)
    assert worst < 3


@settings(max_examples=100, deadline=None)
@given(records(), sizes, sizes, st.sampled_from([1.0, 3.0]))
def test_icicle_levels_partition_their_parent(files, width, height, min_width):
    root = build_hierarchy(files)
    blocks = icicle(root, width, height, min_width=min_width)
    assert blocks[0].node is root
    assert (blocks[0].x0, blocks[0].x1, blocks[0].y0) == (0, width, 0)
    for b in blocks:
        assert 0 <= b.x0 <= b.x1 <= width and 0 <= b.y0 <= b.y1 <= height
    assert max(b.y1 for b in blocks) == height
    # Slices of one row never overlap.
    by_row = {}
    for b in blocks:
        by_row.setdefault(b.y0, []).append((b.x0, b.x1))
    for spans in by_row.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    # The children of a folder (and its folded tail) cover exactly its span.
    for b in blocks:
        if b.folded is None and b.node.children:
            below = [c for c in blocks if c.y0 == b.y1 and b.x0 <= c.x0 and c.x1 <= b.x1]
            assert sum(c.x1 - c.x0 for c in below) == b.x1 - b.x0
    seen = _accounted(blocks)
    assert sorted(seen.elements()) == sorted(p for p, _, _ in files)
    scale = width / root.weight
    for b in blocks:
        if b.folded is None:
            assert abs((b.x1 - b.x0) - b.node.weight * scale) <= 1


@settings(max_examples=100, deadline=None)
@given(records(), st.integers(8, 400))
def test_sunburst_angles_are_proportional_and_sum_to_360(files, radius):
    root = build_hierarchy(files)
    arcs = sunburst(root, radius)
    assert arcs[0].node is root
    assert (arcs[0].a0, arcs[0].a1, arcs[0].r0) == (0, 360, 0)
    tick = 360 / sunburst_ticks(radius)
    ring = [a for a in arcs if a.r0 == arcs[0].r1]
    if root.children:
        assert sum(a.a1 - a.a0 for a in ring) == pytest.approx(360)
    for a in arcs:
        assert 0 <= a.a0 <= a.a1 <= 360
        assert a.r1 <= radius + 1e-9
        if a.folded is None:
            assert abs((a.a1 - a.a0) - a.node.weight / root.weight * 360) <= tick + 1e-9
    seen = _accounted(arcs)
    assert sorted(seen.elements()) == sorted(p for p, _, _ in files)


def test_partition_folds_trailing_narrow_children():
    files = [("src/big.py", 1000, 1000)] + [(f"src/t{i}.py", 1, 0) for i in range(20)]
    root = build_hierarchy(files)
    slices = partition(root, 100, min_extent=2)
    folded = [s for s in slices if s.folded is not None]
    assert len(folded) == 1
    assert sum(n.files for n in folded[0].folded) == 20
    assert folded[0].x1 == 100


def test_deep_tree_layouts_do_not_recurse():
    files = [("/".join(f"d{i}" for i in range(depth)) + "/f.py", 10, 5) for depth in range(1, 3000, 7)]
    root = build_hierarchy(files)
    assert squarified_treemap(root, 50, 50)
    assert icicle(root, 50, 50)
    assert sunburst(root, 25)
