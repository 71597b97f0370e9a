"""Hex maths against Red Blob Games' hex guide (redblobgames.com/grids/hexagons)."""

import itertools
import math

import numpy as np
import pytest

from wargame.geo.hexgrid import (
    AXIAL_DIRECTIONS,
    HexGrid,
    axial_distance,
    axial_line,
    axial_range,
    axial_ring,
    axial_to_offset,
    column_index,
    column_letters,
    cube_round,
    offset_to_axial,
)


def test_distance_known_values_from_guide():
    # guide, "Distances": cube (0,0,0) to (3,-1,-2)... distance = max(|dq|,|dr|,|ds|)
    assert axial_distance(0, 0, 3, -1) == 3
    assert axial_distance(0, 0, -2, -1) == 3
    assert axial_distance(1, -3, -2, 2) == 5
    assert axial_distance(4, 4, 4, 4) == 0


def test_distance_equals_max_abs_cube_difference():
    rng = np.random.default_rng(1)
    for q1, r1, q2, r2 in rng.integers(-30, 30, size=(200, 4)):
        s1, s2 = -q1 - r1, -q2 - r2
        expect = max(abs(q1 - q2), abs(r1 - r2), abs(s1 - s2))
        assert axial_distance(q1, r1, q2, r2) == expect


def test_neighbors_are_the_six_guide_directions():
    assert set(AXIAL_DIRECTIONS) == {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}
    for dq, dr in AXIAL_DIRECTIONS:
        assert axial_distance(0, 0, dq, dr) == 1


def test_ring_and_range_sizes_from_guide():
    # guide, "Rings": a ring of radius N has 6N hexes; "Range": 3N(N+1)+1 hexes
    for n in range(0, 7):
        assert len(axial_range(2, -1, n)) == 3 * n * (n + 1) + 1
        ring = axial_ring(2, -1, n)
        assert len(ring) == (6 * n if n else 1)
        assert all(axial_distance(2, -1, q, r) == n for q, r in ring)
        assert len(set(ring)) == len(ring)


def test_line_draw_matches_guide_example():
    # guide, "Line drawing": N+1 hexes, each step one neighbour further
    line = axial_line(0, 0, 4, -2)
    assert line[0] == (0, 0) and line[-1] == (4, -2)
    assert len(line) == axial_distance(0, 0, 4, -2) + 1
    for (q1, r1), (q2, r2) in itertools.pairwise(line):
        assert axial_distance(q1, r1, q2, r2) == 1
    # straight along an axis
    assert axial_line(0, 0, 0, 3) == [(0, 0), (0, 1), (0, 2), (0, 3)]


def test_cube_round_keeps_the_constraint():
    rng = np.random.default_rng(2)
    fq, fr = rng.uniform(-20, 20, 500), rng.uniform(-20, 20, 500)
    q, r = cube_round(fq, fr)
    # the rounded hex is the one whose centre is nearest (in cube space)
    fs = -fq - fr
    d = np.maximum.reduce([abs(q - fq), abs(r - fr), abs(-q - r - fs)])
    assert (d <= 2 / 3 + 1e-9).all()


def test_odd_q_offset_conversions_from_guide():
    # guide, "Offset coordinates", odd-q: col = q; row = r + (q - (q&1)) / 2
    q, r = offset_to_axial(3, 4)
    assert (int(q), int(r)) == (3, 3)
    q, r = offset_to_axial(2, 4)
    assert (int(q), int(r)) == (2, 3)
    rng = np.random.default_rng(3)
    cols, rows = rng.integers(0, 300, 100), rng.integers(0, 300, 100)
    back = axial_to_offset(*offset_to_axial(cols, rows))
    assert (back[0] == cols).all() and (back[1] == rows).all()


def test_flat_top_pixel_layout_from_guide():
    # guide, flat-topped "hex to pixel": x = size*3/2*q, y = size*sqrt(3)*(r + q/2)
    g = HexGrid(x0=0.0, y0=0.0, size_m=150.0, n_cols=10, n_rows=10)
    size = g.radius_m
    x, y = g.axial_to_xy(2, 1)
    assert math.isclose(float(x), size * 1.5 * 2)
    assert math.isclose(float(y), -size * math.sqrt(3) * (1 + 1))  # y points north here
    # neighbours are one hex size apart, centre to centre
    for dq, dr in AXIAL_DIRECTIONS:
        nx, ny = g.axial_to_xy(5 + dq, 5 + dr)
        cx, cy = g.axial_to_xy(5, 5)
        assert math.isclose(math.hypot(nx - cx, ny - cy), 150.0)


def test_point_to_hex_round_trip_and_hex_shape():
    g = HexGrid(x0=1000.0, y0=5000.0, size_m=150.0, n_cols=30, n_rows=30)
    rng = np.random.default_rng(4)
    q, r = rng.integers(0, 20, 300), rng.integers(-5, 15, 300)
    x, y = g.axial_to_xy(q, r)
    # points within the inscribed circle (75 m) belong to the hex
    ang, rad = rng.uniform(0, 2 * np.pi, 300), rng.uniform(0, 74.9, 300)
    q2, r2 = g.xy_to_axial(x + rad * np.cos(ang), y + rad * np.sin(ang))
    assert (q2 == q).all() and (r2 == r).all()
    # points just outside the circumradius never do
    q3, r3 = g.xy_to_axial(x + 87.0 * np.cos(ang), y + 87.0 * np.sin(ang))
    assert ((q3 != q) | (r3 != r)).all()


def test_labels_like_the_board_game():
    assert [column_letters(i) for i in (0, 25, 26, 51, 52)] == [
        "A",
        "Z",
        "AA",
        "AZ",
        "BA",
    ]
    assert column_index("BA") == 52
    g = HexGrid(x0=0.0, y0=0.0, size_m=150.0, n_cols=40, n_rows=40)
    # seed 000, HQ movement: "L1 and M1" are adjacent hexes
    assert "M1" in g.neighbors("L1")
    assert g.distance("L1", "M1") == 1
    for c in range(0, 39):
        for row in (1, 2, 17):
            a = f"{column_letters(c)}{row}"
            b = f"{column_letters(c + 1)}{row}"
            assert g.distance(a, b) == 1
    assert g.labels()[:3] == ["A1", "A2", "A3"]
    assert g.label_of(*g.axial_of_label("AB17")) == "AB17"


def test_bad_labels_are_rejected_clearly():
    g = HexGrid(x0=0.0, y0=0.0, size_m=150.0, n_cols=5, n_rows=5)
    with pytest.raises(ValueError, match="bad hex label"):
        g.axial_of_label("12L")
    with pytest.raises(ValueError, match="not on this map"):
        g.neighbors("Z99")


def test_covering_grid_covers_every_point():
    bounds = (500.0, 1000.0, 4321.0, 3900.0)
    g = HexGrid.covering(bounds, 150.0)
    rng = np.random.default_rng(5)
    x = rng.uniform(bounds[0], bounds[2], 5000)
    y = rng.uniform(bounds[1], bounds[3], 5000)
    assert (g.index_at_xy(x, y) >= 0).all()
    corners_x = [bounds[0], bounds[2], bounds[0], bounds[2]]
    corners_y = [bounds[1], bounds[1], bounds[3], bounds[3]]
    assert (g.index_at_xy(corners_x, corners_y) >= 0).all()
