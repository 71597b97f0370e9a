"""Measurement in free space (issue #19): ground scales, spatial index, arcs, bases."""

import math

import numpy as np
import pytest

from wargame.geo.maps import MapArgumentError
from wargame.geo.measure import (
    GroundScale,
    PointIndex,
    base_contact,
    bases_overlap,
    bearing_deg,
    distance,
    in_arc,
)


def test_ground_scale_converts_and_rounds():
    s = GroundScale(25.0, "inch")
    assert s.to_units(150.0) == 6.0 and s.to_metres(6) == 150.0
    assert s.to_units(np.array([25.0, 50.0])).tolist() == [1.0, 2.0]
    # a range of 6.2" is 7" when ranges round up; 6" stays 6" despite float noise
    assert s.round_up(6.2) == 7.0 and s.round_up(s.to_units(0.1 * 3 * 500)) == 6.0
    assert s.round_nearest([2.49, 2.5, 3.5]).tolist() == [2.0, 3.0, 4.0]
    # 5 cm steps: a move of 3.2 steps is 3 steps to the nearest, 4 rounded up
    step = GroundScale(50.0, "5 cm step")
    assert step.round_nearest(step.to_units(160.0)) == 3.0
    assert step.round_up(step.to_units(160.0)) == 4.0
    assert s.round_up(7.0, step=2.0) == 8.0
    assert s.distance_units((0, 0), (0, 100)) == 4.0


@pytest.mark.parametrize("bad", [-1.0, 0.0, math.nan, math.inf, "25", True])
def test_ground_scale_refuses_a_bad_scale(bad):
    with pytest.raises(MapArgumentError) as e:
        GroundScale(bad, "inch")
    assert e.value.argument == "metres_per_unit"


def test_ground_scale_refuses_a_bad_unit_and_step():
    with pytest.raises(ValueError, match="unit"):
        GroundScale(25.0, "")
    with pytest.raises(ValueError, match="step"):
        GroundScale(25.0, "inch").round_up(3.0, step=-1)


def test_distance_and_bearing():
    assert distance((0, 0), (3, 4)) == 5.0
    d = distance(np.zeros((3, 1, 2)), np.ones((1, 4, 2)))
    assert d.shape == (3, 4) and np.allclose(d, math.sqrt(2))
    assert bearing_deg((0, 0), [(0, 1), (1, 0), (0, -1), (-1, 0)]).tolist() == [
        0.0,
        90.0,
        180.0,
        270.0,
    ]
    with pytest.raises(ValueError, match=r"b: nan at index \(1,\) is not a finite"):
        distance((0, 0), (1, math.nan))
    with pytest.raises(ValueError, match="shape"):
        distance((0, 0), (1, 2, 3))


def test_point_index_matches_brute_force():
    rng = np.random.default_rng(5)
    xy = rng.uniform(0, 2000, (500, 2))
    xy[:20] = xy[0]  # duplicates
    idx = PointIndex(xy)
    full = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    for d in (0.0, 35.0, 150.0, 3000.0):
        i, j = np.nonzero(np.triu(full <= d, k=1))
        assert idx.pairs_within(d).tolist() == np.column_stack([i, j]).tolist()
        for k in (0, 7, 499):
            want = np.flatnonzero(full[k] <= d)
            assert idx.within(xy[k], d).tolist() == want.tolist()
    # a query point anywhere, even outside the points' box
    p = np.array([-100.0, 1000.0])
    want = np.flatnonzero(np.hypot(*(xy - p).T) <= 300.0)
    assert idx.within(p, 300.0).tolist() == want.tolist()
    assert idx.nearest_within(p, 300.0) == int(np.argmin(np.hypot(*(xy - p).T)))
    assert idx.nearest_within((1e6, 1e6), 10.0) == -1
    # any cell size gives the same answers
    other = PointIndex(xy, cell_m=7.0)
    assert other.pairs_within(150.0).tolist() == idx.pairs_within(150.0).tolist()


def test_point_index_edge_cases_and_errors():
    assert len(PointIndex(np.zeros((0, 2)))) == 0
    assert PointIndex(np.zeros((0, 2))).within((0, 0), 5).tolist() == []
    assert PointIndex([(1.0, 1.0)]).pairs_within(5).shape == (0, 2)
    with pytest.raises(ValueError, match="xy: nan"):
        PointIndex([(0.0, 0.0), (math.nan, 1.0)])
    with pytest.raises(ValueError, match="d: -1"):
        PointIndex([(0.0, 0.0)]).within((0, 0), -1)
    with pytest.raises(ValueError, match="point: has shape"):
        PointIndex([(0.0, 0.0)]).within([(0, 0), (1, 1)], 1)


def test_arcs_and_the_front_half_plane():
    pts = [(0, 10), (10, 0), (-10, 0), (0, -10), (7, 7), (-7, -7.1), (0, 0)]
    front = in_arc((0, 0), 0.0, 90.0, pts).tolist()
    assert front == [True, True, True, False, True, False, True]
    # facing east with a 45° half-arc: the edges count
    assert in_arc((0, 0), 90.0, 45.0, [(10, 10), (10, 10.01), (10, -10)]).tolist() == [
        True,
        False,
        True,
    ]
    # a bearing beyond 360 or negative is taken modulo 360
    assert (
        in_arc((5, 5), -270.0, 30.0, [(15, 5)]).tolist()
        == in_arc((5, 5), 90.0, 30.0, [(15, 5)]).tolist()
        == [True]
    )
    assert in_arc((0, 0), 0.0, 180.0, [(0, -1)]).tolist() == [True]
    with pytest.raises(ValueError, match="half_angle_deg"):
        in_arc((0, 0), 0.0, 200.0, pts)
    with pytest.raises(ValueError, match="facing_deg"):
        in_arc((0, 0), math.nan, 90.0, pts)


def test_base_contact_and_overlap():
    # two 25 mm-radius bases at a 1:100 ground scale are 2.5 m discs
    assert base_contact((0, 0), 2.5, (5.0, 0), 2.5)
    assert not base_contact((0, 0), 2.5, (5.2, 0), 2.5)
    assert base_contact((0, 0), 2.5, (5.2, 0), 2.5, tol=0.25)
    assert not bases_overlap((0, 0), 2.5, (5.0, 0), 2.5)
    assert bases_overlap((0, 0), 2.5, (4.9, 0), 2.5)
    many = base_contact((0, 0), 1.0, [(1.5, 0), (3, 0)], np.array([0.5, 0.5]))
    assert many.tolist() == [True, False]
    with pytest.raises(ValueError, match="ra: "):
        base_contact((0, 0), -1.0, (1, 0), 1.0)
    with pytest.raises(ValueError, match=r"tol: -0\.1"):
        base_contact((0, 0), 1.0, (1, 0), 1.0, tol=-0.1)
