"""Line of sight and viewsheds on the committed Middle Rhine map: geographic facts."""

import math

import numpy as np
import pytest
import shapely

import wargame
from wargame.geo import los as L


@pytest.fixture(scope="module")
def m():
    return wargame.load_map("rhine-remagen")


def test_erpeler_ley_sees_remagen_across_the_rhine(m):
    ley, remagen = m.place_xy("Erpeler Ley"), m.place_xy("Remagen")
    r = m.los(ley, remagen)
    assert r.visible and r.blocked_at is None and r.blocker is None
    assert 1_000 < r.distance_m < 1_600
    # the sight line crosses the river: some samples lie over Rhine water
    assert (r.profile["cover"] == "water").sum() > 10
    # and it looks down from the basalt cliff onto the town
    assert r.profile["sight_line_m"].iloc[0] > r.profile["sight_line_m"].iloc[-1] + 50
    assert m.los(m.hex_of_place("Erpeler Ley"), m.hex_of_place("Remagen")).visible


def test_erpeler_ley_ridge_hides_ohlenberg_from_remagen(m):
    remagen, ohlenberg = m.place_xy("Remagen"), m.place_xy("Ohlenberg")
    r = m.los(remagen, ohlenberg, obstacles=False)
    assert not r.visible and r.blocker.kind == "terrain"
    # the first blocking point is on the Erpeler Ley, right across the river
    ley = m.place_xy("Erpeler Ley")
    assert math.dist(r.blocked_at[:2], ley) < 200
    assert r.blocker.hex in [
        m.hex_of_place("Erpeler Ley"),
        *m.grid.neighbors(m.hex_of_place("Erpeler Ley")),
    ]
    ridge = m.elevation(*r.blocked_at[:2])
    assert ridge > m.elevation(*remagen) + 40
    assert "blocked: " in r.explain() and "terrain" in r.explain()


def test_woods_block_in_intervening_hex_but_not_in_the_targets_hex(m):
    # west of the map, near Bad Godesberg's Kottenforst edge: a clear hex a,
    # then 3 open hexes north, then hex b almost all woods, then hex c
    a = m.hex_at(lon=7.12409, lat=50.63013)
    qa, ra = m.grid.axial_of_label(a)
    b = m.grid.label_of(qa, ra - 4)
    c = m.grid.label_of(qa, ra - 5)
    assert m.hexes.loc[a, "share_woods"] == 0 and m.hexes.loc[b, "share_woods"] > 0.9
    assert m.hexes.loc[m.grid.line(a, b)[1:-1], "share_woods"].max() == 0
    to_b = m.los(a, b)
    assert to_b.visible  # woods in the target's own hex do not hide it
    assert (to_b.profile["cover"] == "woods").any()
    to_c = m.los(a, c)
    assert not to_c.visible and to_c.blocker == L.Blocker("woods", b)
    assert m.los(a, c, obstacles=False).visible  # the ground alone does not block


def test_equal_heights_give_symmetric_answers_on_the_map(m):
    rng = np.random.default_rng(11)
    t = L.terrain_of_map(m)
    xmin, ymin, xmax, ymax = m.bounds
    a = rng.uniform([xmin, ymin], [xmax, ymax], (300, 2))
    b = a + rng.normal(0, 1500, (300, 2))
    b = np.clip(b, [xmin, ymin], [xmax, ymax])
    ab = L.visible_many(t, a, b, 4.0, 4.0)
    ba = L.visible_many(t, b, a, 4.0, 4.0)
    assert (ab == ba).all() and 0 < ab.sum() < 300
    for k in range(0, 300, 60):
        assert m.los(tuple(a[k]), tuple(b[k]), 4.0, 4.0).visible == bool(ab[k])


def test_viewshed_contains_observer_and_excludes_valley_behind_ridge(m):
    ley = m.place_xy("Erpeler Ley")
    v = m.viewshed(ley, 3_000.0)
    assert v.is_valid and v.contains(shapely.Point(ley))
    assert v.contains(shapely.Point(m.place_xy("Remagen")))
    # Kasbach lies in the side valley behind the Ley's eastern ridge
    kasbach = m.place_xy("Kasbach")
    assert not v.buffer(50).contains(shapely.Point(kasbach))
    why = m.los(ley, kasbach, target_height_m=0.0, obstacles=False)
    assert not why.visible and why.blocker.kind == "terrain"
    # bare-earth R2 sweep: still hidden, and the map's raster form lines up
    bare = m.viewshed(ley, 3_000.0, obstacles=False, as_array=True)
    assert bare.visible.dtype == bool and bare.grid.cell_m == m.dem_grid.cell_m
    poly = bare.to_polygon()
    assert poly.contains(shapely.Point(ley)) and not poly.contains(
        shapely.Point(kasbach)
    )
    assert poly.area > v.area  # obstacles hide more
    assert shapely.Point(ley).buffer(3_100).contains(poly)
    ll = m.to_lonlat_geometry(v)
    assert 7.1 < ll.centroid.x < 7.5 and 50.4 < ll.centroid.y < 50.7


def test_viewshed_with_obstacles_equals_los_to_cell_centres(m):
    ley = m.place_xy("Erpeler Ley")
    vis, grid = m.viewshed(ley, 1_500.0, as_array=True)
    rng = np.random.default_rng(12)
    rows = rng.integers(0, grid.n_rows, 60)
    cols = rng.integers(0, grid.n_cols, 60)
    for r_, c_ in zip(rows, cols, strict=True):
        x = grid.x0 + (c_ + 0.5) * grid.cell_m
        y = grid.y0 - (r_ + 0.5) * grid.cell_m
        if math.dist((x, y), ley) > 1_500:
            assert not vis[r_, c_]
            continue
        assert vis[r_, c_] == m.los(ley, (x, y), 2.5, 0.0).visible


def test_hex_table_equals_los_on_the_map(m):
    w = wargame.load_map("rhine-remagen", window="Remagen")
    tab = w.hex_los_table(range_hexes=20, cache=False)
    rng = np.random.default_rng(13)
    labels = w.grid.labels()
    seen = 0
    for _ in range(150):
        a = labels[rng.integers(len(labels))]
        near = w.grid.range(a, 20)
        b = near[rng.integers(len(near))]
        r = w.los(a, b)
        assert tab.visible(a, b) == r.visible, (a, b)
        seen += r.visible
    assert 5 < seen < 145
    hv = w.hex_viewshed(w.hex_of_place("Erpeler Ley"))
    assert sorted(hv.labels) == sorted(tab.visible_from(w.hex_of_place("Erpeler Ley")))
    assert w.hex_of_place("Remagen") in hv.labels
    assert hv.polygon.contains(shapely.Point(w.place_xy("Erpeler Ley")))


def test_los_plot_returns_a_figure(m):
    from matplotlib.figure import Figure

    r = m.los(m.place_xy("Remagen"), m.place_xy("Ohlenberg"), obstacles=False)
    fig = r.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert "blocked" in ax.get_title()
    assert any(
        "blocked by terrain" in t.get_text() for t in ax.get_legend().get_texts()
    )


def test_obstacle_heights_are_configurable_per_map_and_per_call(m):
    w = wargame.load_map("rhine-remagen")  # a map of our own: we change it
    remagen, kasbach = w.place_xy("Remagen"), w.place_xy("Kasbach")
    assert w.obstacle_heights_m == {"woods": 20.0, "town": 10.0}
    blocked_by_town = w.los(remagen, w.place_xy("Erpel"))
    assert not blocked_by_town.visible and blocked_by_town.blocker.kind == "town"
    assert w.los(remagen, w.place_xy("Erpel"), obstacles={"town": 0.0}).visible
    w.obstacle_heights_m = {"woods": 20.0, "town": 0.0}
    assert w.los(remagen, w.place_xy("Erpel")).visible
    with pytest.raises(ValueError, match=r"heights\['town'\]: -3 is out of range"):
        w.obstacle_heights_m = {"town": -3}
    assert not w.los(remagen, kasbach, obstacles=False).visible


def test_bad_input_on_the_map_raises_value_error_naming_the_argument(m):
    ley = m.place_xy("Erpeler Ley")
    with pytest.raises(ValueError, match=r"^Map.los: b: \(0, 0\) is off the map"):
        m.los(ley, (0.0, 0.0))
    with pytest.raises(ValueError, match="observer_height_m: -2 is out of range"):
        m.los(ley, m.place_xy("Remagen"), observer_height_m=-2.0)
    with pytest.raises(ValueError, match=r"radius_m: 0 is out of range; .*more than 0"):
        m.viewshed(ley, 0.0)
    with pytest.raises(
        ValueError, match=r"radius_m: 100000 is out of range; .*diagonal"
    ):
        m.viewshed(ley, 100_000.0)
    with pytest.raises(ValueError, match=r"observer: \(1, 2\) is off the map"):
        m.viewshed((1.0, 2.0), 1_000.0)
    with pytest.raises(ValueError, match="target_height_m: -1 is out of range"):
        m.viewshed(ley, 1_000.0, target_height_m=-1)
    with pytest.raises(ValueError, match="range_hexes: -1 is out of range"):
        m.hex_viewshed(m.hex_of_place("Remagen"), range_hexes=-1)
    with pytest.raises(ValueError, match=r"hex: .*not on this map"):
        m.hex_viewshed("ZZZ999")
