from __future__ import annotations

import colorsys
import math
from bisect import bisect_right

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flask_coverage.svg import GRAPH_DEFAULTS, coverage_color, validate_graph_params
from flask_coverage.svg.color import HIGH_COLOR, LOW_COLOR, PALETTE, coverage_steps
from flask_coverage.svg.params import (
    BORDER_SIZE_RANGE,
    SIZE_RANGE,
    GraphOptions,
    validate_border_color,
)


def _hue(color):
    color = color.lstrip("#")
    if len(color) == 3:
        color = "".join(c * 2 for c in color)
    r, g, b = (int(color[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return colorsys.rgb_to_hsv(r, g, b)[0] * 360


@pytest.mark.parametrize("percent", [-10, 0, 35.5, 69.99, 70, float("nan"), -math.inf])
def test_low_end_is_exactly_red(percent):
    assert coverage_color(percent) == "#e05d44" == LOW_COLOR


@pytest.mark.parametrize("percent", [100, 100.0, 150, math.inf])
def test_high_end_is_exactly_green(percent):
    assert coverage_color(percent) == "#4c1" == HIGH_COLOR


def test_range_is_configurable():
    assert coverage_color(50, low=50, high=80) == LOW_COLOR
    assert coverage_color(80, low=50, high=80) == HIGH_COLOR
    assert coverage_color(65, low=50, high=80) in PALETTE
    # A degenerate range still answers with an end color, never divides by zero.
    assert coverage_color(90, low=90, high=90) == LOW_COLOR
    assert coverage_color(91, low=90, high=90) == HIGH_COLOR


def test_between_goes_red_orange_yellow_green():
    assert len(set(PALETTE)) == len(PALETTE)
    hues = [_hue(c) for c in PALETTE]
    assert hues == sorted(hues)
    assert _hue(LOW_COLOR) < hues[0] and hues[-1] < _hue(HIGH_COLOR)
    assert any(20 <= h < 40 for h in hues)  # orange
    assert any(40 <= h < 65 for h in hues)  # yellow


@settings(max_examples=200, deadline=None)
@given(st.floats(-50, 150), st.floats(-50, 150))
def test_hue_never_decreases(a, b):
    a, b = sorted((a, b))
    assert _hue(coverage_color(a)) <= _hue(coverage_color(b))
    assert coverage_color(a).startswith("#")


@pytest.mark.parametrize("kind", ["tree", "icicle", "sunburst"])
def test_defaults_per_kind(kind):
    params = validate_graph_params(kind)
    assert params == GraphOptions(kind, *GRAPH_DEFAULTS[kind], 1, "white")


def test_defaults_are_the_documented_ones():
    assert GRAPH_DEFAULTS == {"tree": (500, 500), "icicle": (700, 150), "sunburst": (300, 300)}


def test_accepts_query_strings_and_ints():
    params = validate_graph_params("tree", "16", 4000, "0", "#ABC")
    assert params == GraphOptions("tree", 16, 4000, 0, "#abc")
    assert validate_graph_params("icicle", border_size=20, border_color="RebeccaPurple").border_color == "rebeccapurple"
    assert validate_graph_params("icicle", border_color="#0a0B0c").border_color == "#0a0b0c"


MESSAGES = {
    "the graph kind must be one of: tree, icicle, sunburst",
    f"width must be an integer from {SIZE_RANGE[0]} to {SIZE_RANGE[1]}",
    f"height must be an integer from {SIZE_RANGE[0]} to {SIZE_RANGE[1]}",
    f"border_size must be an integer from {BORDER_SIZE_RANGE[0]} to {BORDER_SIZE_RANGE[1]}",
    "border_color must be a CSS color name, #rgb or #rrggbb",
}


@pytest.mark.parametrize(
    "args",
    [
        ("pie",),
        ("tree", "15"),
        ("tree", "4001"),
        ("tree", "-1"),
        ("tree", "+20"),
        ("tree", " 20"),
        ("tree", "20.0"),
        ("tree", "1e3"),
        ("tree", "\uff12\uff10"),  # fullwidth digits: int() would take them
        ("tree", "2_000"),
        ("tree", True),
        ("tree", 20.0),
        ("tree", None, "99999999999999999999"),
        ("tree", None, None, "21"),
        ("tree", None, None, None, "#abcd"),
        ("tree", None, None, None, "red;"),
        ("tree", None, None, None, '"><script>alert(1)</script>'),
        ("tree", None, None, None, "url(javascript:x)"),
        ("tree", None, None, None, "rgb(1,2,3)"),
        ("tree", None, None, None, "whit\u0435"),  # Cyrillic e
    ],
)
def test_rejects_bad_values(args):
    with pytest.raises(ValueError) as info:
        validate_graph_params(*args)
    assert str(info.value) in MESSAGES


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["width", "height", "border_size", "border_color", "kind"]), st.text(max_size=12))
def test_rejection_never_echoes_the_input(name, value):
    kwargs = {"kind": "tree", name: value}
    try:
        validate_graph_params(**kwargs)
    except ValueError as exc:
        assert str(exc) in MESSAGES
    else:
        assert value.isascii()


def test_border_color_validator_alone():
    assert validate_border_color(None) == "white"
    assert validate_border_color("Navy") == "navy"
    with pytest.raises(ValueError):
        validate_border_color("#12")


@pytest.mark.parametrize(
    ("low", "high"),
    [(70, 100), (0, 100), (50, 80), (70.5, 99.9), (100, 100), (0, 0), (90, 80), (-5, 200), (99.99, 100)],
)
def test_steps_give_the_color_of_every_hundredth(low, high):
    bounds, colors = coverage_steps(low, high)
    assert list(bounds) == sorted(set(bounds))
    for q in range(10001):
        assert colors[bisect_right(bounds, q)] == coverage_color(q / 100, low, high), q
