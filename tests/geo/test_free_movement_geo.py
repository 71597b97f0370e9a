"""Free movement on the real map (issue #19): point LOS, going along a path, reach.

Geographic facts on the committed Middle Rhine map and invariants of the point
rules; ``tests/geo/test_measure.py`` covers distances and the spatial index.
"""

import math

import numpy as np
import pytest
import shapely

import wargame
from wargame.geo import going
from wargame.geo.los import LOSTerrain
from wargame.geo.los_points import los_pairs, point_line_of_sight
from wargame.geo.maps import MapArgumentError


@pytest.fixture(scope="module")
def m():
    return wargame.load_map("rhine-remagen")


@pytest.fixture(scope="module")
def m50():
    return wargame.load_map("rhine-remagen", hex_size_m=50)


def _woods_pairs(m, n, seed, reach_m=2000.0):
    """n (observer, target) pairs: observers in woods, targets within reach_m."""
    rng = np.random.default_rng(seed)
    xmin, ymin, xmax, ymax = m.bounds
    obs = []
    while len(obs) < n:
        p = rng.uniform(
            (xmin + 2500, ymin + 2500), (xmax - 2500, ymax - 2500), (4 * n, 2)
        )
        obs.extend(p[m.terrain_at(p[:, 0], p[:, 1]) == "woods"].tolist())
    obs = np.array(obs[:n])
    ang = rng.uniform(0, 2 * np.pi, n)
    dist = rng.uniform(20, reach_m, n)
    tgt = obs + np.column_stack([np.sin(ang), np.cos(ang)]) * dist[:, None]
    return obs, tgt


# --------------------------------------------------------------------------- #
# point LOS                                                                   #
# --------------------------------------------------------------------------- #


def test_point_los_is_the_same_at_any_hex_size(m, m50):
    obs, tgt = _woods_pairs(m, 1000, seed=19)
    a150 = np.array(
        [
            m.los_points(tuple(a), tuple(b)).visible
            for a, b in zip(obs, tgt, strict=True)
        ]
    )
    a50 = np.array(
        [
            m50.los_points(tuple(a), tuple(b)).visible
            for a, b in zip(obs, tgt, strict=True)
        ]
    )
    assert (a150 == a50).all()
    # the vectorised call (diagonal of the all-pairs matrix) says the same
    v50 = np.array(
        [m50.los_pairs(a[None], b[None])[0, 0] for a, b in zip(obs, tgt, strict=True)]
    )
    assert (v50 == a150).all()
    # not a vacuous check: some of them see, most do not (woods all around) ...
    assert 5 <= a150.sum() <= 900
    # ... and the hex rule, which this replaces, depends on the hex size
    h150 = np.array(
        [
            m.los(tuple(a), tuple(b)).visible
            for a, b in zip(obs[:300], tgt[:300], strict=True)
        ]
    )
    h50 = np.array(
        [
            m50.los(tuple(a), tuple(b)).visible
            for a, b in zip(obs[:300], tgt[:300], strict=True)
        ]
    )
    assert (h150 != h50).sum() > 10
    # Map.los(hex_rule=False) is los_points
    r = m.los(tuple(obs[0]), tuple(tgt[0]), hex_rule=False)
    assert r.visible == a150[0]


def test_los_pairs_agrees_with_single_pairs_exactly(m):
    rng = np.random.default_rng(7)
    c = np.array(m.place_xy("Linz"))
    a = c + rng.uniform(-1200, 1200, (25, 2))
    b = c + rng.uniform(-1200, 1200, (30, 2))
    for kw in (
        {},
        {"standing_in": True},
        {"standing_in": (False, True)},
        {"obstacles": False},
        {"margin_m": 40.0},
    ):
        grid = m.los_pairs(a, b, 2.0, 2.5, **kw)
        single = np.array(
            [
                [m.los_points(tuple(x), tuple(y), 2.0, 2.5, **kw).visible for y in b]
                for x in a
            ]
        )
        assert (grid == single).all(), kw
    # max range: farther pairs are False, nearer ones unchanged
    full = m.los_pairs(a, b)
    lim = m.los_pairs(a, b, max_range_m=800.0)
    d = np.hypot(*(a[:, None, :] - b[None, :, :]).transpose(2, 0, 1))
    assert not lim[d > 800].any()
    assert (lim[d <= 800] == full[d <= 800]).all()


def test_standing_in_only_adds_blockers(m):
    obs, tgt = _woods_pairs(m, 400, seed=3, reach_m=800.0)
    free = m.los_pairs(obs, tgt)
    stand = m.los_pairs(obs, tgt, standing_in=True)
    assert not (stand & ~free).any()  # hiding in a wood never reveals anything
    assert (free & ~stand).any()  # and it hides something


def test_point_los_explains_the_town_blocking_the_target(m):
    ley, remagen = m.place_xy("Erpeler Ley"), m.place_xy("Remagen")
    r = m.los_points(ley, remagen)
    assert not r.visible and r.blocker.kind == "town"
    # the houses next to the square, beyond the 15 m margin around the target
    assert 15 < r.distance_m - r.blocked_at.distance_m < 200
    assert m.terrain_at(r.blocked_at.x, r.blocked_at.y) == "town"
    assert m.los_points(ley, remagen, obstacles=False).visible
    # the hex rule ignores the whole 150 m hex around the square: visible
    assert m.los(ley, remagen).visible


def _strip_terrain(edge_m):
    """Flat ground, woods (20 m) from x = 0 to edge_m, 1 m land cover."""
    cover = np.zeros((100, 1000), np.uint8)
    cover[:, : int(edge_m)] = 4
    return LOSTerrain.from_dem(
        np.zeros((2, 20)), cell_m=50.0, cover=cover, cover_cell_m=1.0
    )


def test_margin_lets_a_model_at_the_wood_edge_see_out():
    t = _strip_terrain(100.0)
    target = (600.0, 50.0)
    for depth, sees in ((5.0, True), (12.0, True), (25.0, False), (60.0, False)):
        a = (100.0 - depth, 50.0)
        assert point_line_of_sight(t, a, target).visible is sees, depth
        # standing_in: the wood around the model counts right up to it
        assert point_line_of_sight(t, a, target, standing_in=True).visible is (
            depth < 10
        )
        assert point_line_of_sight(t, a, target, margin_m=30.0).visible is (depth < 30)


def test_margin_is_the_same_at_every_bearing():
    # woods everywhere: a 25 m line has samples at 8.33 m and 16.67 m, each
    # 8.33 m from one end; they are exempt exactly when the margin reaches them
    cover = np.full((500, 500), 4, np.uint8)
    t = LOSTerrain.from_dem(
        np.zeros((10, 10)), cell_m=50.0, cover=cover, cover_cell_m=1.0
    )
    c = np.array([250.0, 250.0])
    ends = c + 25.0 * np.array(
        [[math.sin(a), math.cos(a)] for a in np.radians(np.arange(0, 360, 7))]
    )
    assert los_pairs(t, c, ends, margin_m=8.5).all()
    assert not los_pairs(t, c, ends, margin_m=8.2).any()


# --------------------------------------------------------------------------- #
# going along a path                                                          #
# --------------------------------------------------------------------------- #

# Woods east of Bad Breisig's hinterland (Elsbach valley, east bank near
# Leubsdorf): a start in the wood, across the Elsbach to a minor road, then
# along that road.
WOOD = (389327.8, 5602867.5)
ROAD = (389258.7, 5603107.8)


def _wood_stream_road_path(m):
    roads = m.layer("roads")
    minor = roads[roads["class"] == "minor"].geometry.to_numpy()
    road = minor[np.argmin(shapely.distance(minor, shapely.Point(ROAD)))]
    s = road.project(shapely.Point(ROAD))
    end = min(s + 180.0, road.length) if s + 180.0 <= road.length else max(s - 180.0, 0)
    piece = shapely.ops.substring(road, s, end)
    return np.vstack([WOOD, shapely.get_coordinates(piece)]), piece.length


def _raster_classes(m, path, step=1.0):
    line = shapely.LineString(path)
    d = np.arange(step / 2, line.length, step)
    pts = shapely.get_coordinates(shapely.line_interpolate_point(line, d))
    return d, m.terrain_at(pts[:, 0], pts[:, 1])


def test_path_through_woods_across_a_stream_along_a_road(m):
    import shapely.ops

    path, road_len = _wood_stream_road_path(m)
    t = m.terrain_along(path)
    total = float(np.hypot(*np.diff(path, axis=0).T).sum())
    assert t["length_m"].sum() == pytest.approx(total)
    assert (t["start_m"].iloc[1:].to_numpy() == t["end_m"].iloc[:-1].to_numpy()).all()
    assert t["class"].iloc[0] == "woods" and t["length_m"].iloc[0] > 50
    # every class's length agrees with the 10 m land-cover raster sampled every metre
    _, raster = _raster_classes(m, path)
    for cls in set(t["class"]) | set(raster):
        vec = t.loc[t["class"] == cls, "length_m"].sum()
        ras = float((raster == cls).sum())
        assert abs(vec - ras) <= 15 + 0.05 * total, cls
    # linear features: the Elsbach crossed, then a stretch along the minor road
    f = m.features_crossed(path)
    stream = f[(f["kind"] == "waterway") & (f["how"] == "crosses")]
    assert list(stream["name"]) == ["Elsbach"] and list(stream["class"]) == ["stream"]
    x, y = stream[["x", "y"]].iloc[0]
    ww = m.layer("waterways")
    elsbach = ww[ww["name"] == "Elsbach"].geometry.to_numpy()
    assert shapely.distance(elsbach, shapely.Point(x, y)).min() < 0.5
    along = f[(f["how"] == "along") & (f["class"] == "minor")]
    assert along["length_m"].sum() == pytest.approx(road_len, abs=25.0)
    assert along["start_m"].min() > stream["start_m"].iloc[0]


def test_terrain_along_matches_the_raster_on_random_paths(m):
    rng = np.random.default_rng(11)
    xmin, ymin, xmax, ymax = m.bounds
    agree = total = 0.0
    for _ in range(60):
        p0 = rng.uniform((xmin + 1000, ymin + 1000), (xmax - 1000, ymax - 1000))
        path = np.vstack([p0, p0 + rng.uniform(-400, 400, (3, 2)).cumsum(axis=0)])
        t = m.terrain_along(path)
        d, raster = _raster_classes(m, path)
        k = np.searchsorted(t["end_m"].to_numpy(), d)
        agree += float((t["class"].to_numpy()[k] == raster).sum())
        total += len(d)
    assert agree / total > 0.95


def test_slope_from_remagen_up_the_erpeler_ley(m):
    # across the Rhine and up the basalt cliff: some 90 m of climb (SRTM smooths it)
    path = [m.place_xy("Remagen"), m.place_xy("Erpeler Ley")]
    s = m.slope_along(path)
    z0, z1 = m.elevation(*path[0]), m.elevation(*path[1])
    assert s.climb_m - s.descent_m == pytest.approx(z1 - z0, abs=1e-6)
    assert s.climb_m > 80 and s.max_uphill > 0.3
    assert s.max_grade == max(s.max_uphill, s.max_downhill)
    assert 0 < s.mean_grade < s.max_grade
    # over the Rhine itself the ground is flat
    flat = s.profile[(s.profile["distance_m"] > 400) & (s.profile["distance_m"] < 650)]
    assert flat["grade"].abs().max() < 0.05


# --------------------------------------------------------------------------- #
# reach                                                                       #
# --------------------------------------------------------------------------- #

COSTS = {
    "clear": 1.0,
    "park": 1.0,
    "orchard": 1.5,
    "wetland": 2.0,
    "woods": 2.0,
    "town": 1.0,
    "water": None,
}
ROADS = {
    "motorway": 0.5,
    "primary": 0.5,
    "secondary": 0.5,
    "tertiary": 0.5,
    "minor": 0.6,
    "track": 0.8,
}


def test_reach_is_a_disc_on_uniform_going(m):
    everywhere = dict.fromkeys(COSTS, 1.0)
    o = (380000.0, 5595000.0)
    p = m.reach_polygon(o, 500.0, everywhere)
    # 16-neighbour distances are at most 2.7 % long, never short
    assert p.area <= math.pi * 500**2 * 1.01
    assert p.area >= math.pi * (500 / 1.03) ** 2
    assert p.contains(shapely.Point(o))
    assert shapely.Point(o).buffer(500 / 1.03 - 10).difference(p).area < 1.0


def test_reach_respects_the_rhine_and_the_roads(m):
    remagen, ley = m.place_xy("Remagen"), m.place_xy("Erpeler Ley")
    base = m.reach_polygon(remagen, 1500.0, COSTS)
    assert not base.contains(shapely.Point(ley))  # no bridge at Remagen
    assert shapely.intersection(base, m.terrain_polygons["water"]).area < 5_000
    roads = m.reach_polygon(remagen, 1500.0, COSTS, ROADS)
    assert roads.area > 1.3 * base.area
    assert base.difference(roads).area < 1.0  # roads only ever help
    slow = m.reach_polygon(remagen, 1500.0, {**COSTS, "woods": 4.0})
    assert slow.difference(base).area < 1.0 and slow.area < base.area


# --------------------------------------------------------------------------- #
# bad input                                                                   #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "path, words",
    [
        ([(376000.0, 5605000.0)], "has 1 point"),
        ([(376000.0, 5605000.0), (math.nan, 5605000.0)], "not a finite number"),
        ([(376000.0, 5605000.0), (376000.0, math.inf)], "not a finite number"),
        (
            [(376000.0, 5605000.0), (0.0, 5605000.0)],
            "point 1 (0.0, 5605000.0) is off the map",
        ),
        ([(376000.0, 5605000.0)] * 2, "zero length"),
        ("L12", "not an array of (x, y) points"),
    ],
)
def test_bad_paths_are_refused_with_the_reason(m, path, words):
    for fn in (m.terrain_along, m.features_crossed, m.slope_along):
        with pytest.raises(MapArgumentError) as e:
            fn(path)
        assert e.value.argument == "path" and words in str(e.value)


def test_bad_reach_and_los_arguments(m):
    o = m.place_xy("Remagen")
    with pytest.raises(ValueError, match="allowance: -5 is negative"):
        m.reach_polygon(o, -5, COSTS)
    with pytest.raises(ValueError, match="has no factor for water"):
        m.reach_polygon(o, 100, {k: 1.0 for k in COSTS if k != "water"})
    with pytest.raises(ValueError, match=r"cost_per_class\['woods'\]: -1"):
        m.reach_polygon(o, 100, {**COSTS, "woods": -1})
    rhine = (375073.0, 5604658.0)  # mid-river at Remagen
    assert m.terrain_at(*rhine) == "water"
    with pytest.raises(ValueError, match=r"origin: .* stands in water"):
        m.reach_polygon(rhine, 100, COSTS)
    with pytest.raises(ValueError, match=r"origin: .* is off the map"):
        m.reach_polygon((0.0, 0.0), 100, COSTS)
    with pytest.raises(ValueError, match=r"a_xy: point 1 .* is off the map"):
        m.los_pairs([o, (0.0, 0.0)], [o])
    with pytest.raises(ValueError, match=r"b_xy: .* not a finite number"):
        m.los_pairs([o], [(math.nan, 1.0)])
    with pytest.raises(ValueError, match="standing_in"):
        m.los_points(o, o, standing_in="yes")
    with pytest.raises(ValueError, match="margin_m"):
        m.los_points(o, o, margin_m=-1)
    with pytest.raises(ValueError, match="a: 'L12' is a hex label"):
        m.los_points("L12", o)
    with pytest.raises(ValueError, match="max_range_m"):
        m.los_pairs([o], [o], max_range_m=-3)


def test_going_module_reexports_reach(m):
    assert going.reach_polygon is wargame.geo.reach.reach_polygon


def test_point_los_agrees_with_the_brute_force_oracle(m):
    from wargame.geo.los import terrain_of_map
    from wargame.geo.los_oracle import oracle_point_los

    t = terrain_of_map(m)
    obs, tgt = _woods_pairs(m, 300, seed=23, reach_m=2000.0)
    rng = np.random.default_rng(2)
    # half of the observers out in the open too
    xmin, ymin, xmax, ymax = m.bounds
    obs[::2] = rng.uniform(
        (xmin + 2500, ymin + 2500), (xmax - 2500, ymax - 2500), (150, 2)
    )
    tgt[::2] = obs[::2] + rng.uniform(-700, 700, (150, 2))
    for stand in ((False, False), (True, False)):
        fast = np.array(
            [
                m.los_points(tuple(a), tuple(b), standing_in=stand).visible
                for a, b in zip(obs, tgt, strict=True)
            ]
        )
        slow = np.array(
            [
                oracle_point_los(
                    t,
                    tuple(a),
                    tuple(b),
                    standing_in=stand,
                    step_m=10.0,
                    model_samples=True,
                )
                for a, b in zip(obs, tgt, strict=True)
            ]
        )
        assert (fast == slow).mean() >= 0.999
        assert 5 < fast.sum() < 290  # both answers occur
