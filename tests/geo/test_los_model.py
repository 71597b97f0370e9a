"""The LOS model on small synthetic terrains, checked against brute-force oracles."""

import math

import numpy as np
import pytest
import shapely

from wargame.geo import _los_kernels as K
from wargame.geo import los as L
from wargame.geo.los_oracle import oracle_pairs, oracle_viewshed
from wargame.geo.raster import RasterGrid
from wargame.geo.terrain import TERRAIN_CLASSES
from wargame.geo.viewshed import _bilinear_at, mask_to_polygon, viewshed_array

WOODS = TERRAIN_CLASSES.index("woods")
TOWN = TERRAIN_CLASSES.index("town")


def smooth_dem(rng, n, relief_m, power=1.6):
    """A random rolling landscape (spectral synthesis), 0..relief_m metres."""
    kx = np.fft.fftfreq(n)[:, None]
    ky = np.fft.fftfreq(n)[None, :]
    spec = np.fft.fft2(rng.normal(size=(n, n))) / (1e-3 + kx**2 + ky**2) ** power
    z = np.real(np.fft.ifft2(spec))
    return ((z - z.min()) / np.ptp(z) * relief_m).astype(np.float32)


@pytest.fixture(scope="module")
def rolling():
    """3 km x 3 km of 50 m DEM with 10 m woods and town patches."""
    rng = np.random.default_rng(7)
    z = smooth_dem(rng, 60, 120.0)
    blobs = smooth_dem(rng, 300, 1.0, power=1.2)
    cover = np.zeros((300, 300), np.uint8)
    cover[blobs > 0.72] = WOODS
    cover[blobs < 0.12] = TOWN
    return L.LOSTerrain.from_dem(z, cell_m=50.0, cover=cover, cover_cell_m=10.0)


def random_pairs(rng, terrain, n, margin=20.0):
    xmin, ymin, xmax, ymax = terrain.bounds
    a = rng.uniform(
        [xmin + margin, ymin + margin], [xmax - margin, ymax - margin], (n, 2)
    )
    b = rng.uniform(
        [xmin + margin, ymin + margin], [xmax - margin, ymax - margin], (n, 2)
    )
    return a, b


# --------------------------------------------------------------------------- #
# against the oracle                                                          #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("obstacles", [True, False])
def test_point_los_agrees_with_finely_sampled_oracle(rolling, obstacles):
    rng = np.random.default_rng(1)
    a, b = random_pairs(rng, rolling, 600)
    fast = L.visible_many(rolling, a, b, 2.5, 2.0, obstacles)
    ref = oracle_pairs(rolling, a, b, 2.5, 2.0, obstacles, step_m=0.5)
    assert 0.05 < ref.mean() < 0.95  # both answers occur
    assert (fast == ref).mean() >= 0.99


def test_fast_verdict_equals_full_profile_verdict(rolling):
    # the probes and the skipped cells are exact shortcuts of the sampled model
    rng = np.random.default_rng(2)
    a, b = random_pairs(rng, rolling, 300)
    fast = L.visible_many(rolling, a, b, 3.0, 1.0, True)
    for k in range(len(a)):
        r = L.line_of_sight(rolling, tuple(a[k]), tuple(b[k]), 3.0, 1.0, True)
        assert r.visible == fast[k]
        assert r.visible == (not r.profile["blocks"].any())


@pytest.mark.parametrize(
    "heights",
    [
        {"woods": 20.0, "town": 10.0},  # 3 distinct heights with 0: 2-bit cells
        {"woods": 20.0, "town": 10.0, "orchard": 6.0, "park": 3.5, "wetland": 1.2},
    ],  # 6 distinct: 4-bit cells
)
def test_packed_cover_gives_the_same_tops_as_the_codes(heights):
    # the kernels read the cover packed; the profile reads the codes as they are:
    # every sample's top must agree bit for bit, also at the right edge, where a
    # packed row is padded (303 cells: not a multiple of 2 or 4)
    rng = np.random.default_rng(11)
    z = smooth_dem(rng, 61, 80.0)[:, :61]
    cover = rng.integers(0, len(TERRAIN_CLASSES), (305, 303)).astype(np.uint8)
    t = L.LOSTerrain.from_dem(z, cell_m=50.0, cover=cover, cover_cell_m=10.0)
    packed = t.kernel_args(heights)
    raw = t.profile_args(heights)
    assert packed[8].size == (4 if len(heights) == 2 else 16)  # the height table
    # the DEM is 3050 m wide, the cover 3030 m: beyond it the last column counts
    xmax, ymax = 3049.0, 3050.0 - 1e-6
    ends = [((5.0, 7.0), (xmax, 1500.0)), ((xmax, 3.0), (xmax, ymax))]
    ends += [tuple(map(tuple, rng.uniform(1.0, 3000.0, (2, 2)))) for _ in range(20)]
    for (px, py), (qx, qy) in ends:
        a = K.profile(*packed[:11], px, py, px, py, qx, qy, qx, qy, 2, 2, 2, 2, 5, 0)
        b = K.profile(*raw, px, py, px, py, qx, qy, qx, qy, 2, 2, 2, 2, 5, 0)
        assert np.array_equal(a[2], b[2])  # tops
        assert (a[2] > a[1]).any()  # some samples have obstacles


def test_r2_viewshed_agrees_with_exact_rays(rolling):
    z = rolling.dem
    for obs, cells in (((30, 30), (50.0, 50.0)), ((5.3, 52.8), (30.0, 45.0))):
        vis = viewshed_array(z, *cells, *obs, 2.5, 0.0)
        ref = oracle_viewshed(z, *cells, *obs, 2.5, 0.0, step_cells=0.1)
        assert 0.05 < ref.mean() < 0.95
        assert (vis == ref).mean() >= 0.98  # 99.7 % on the real SRTM tile (bench)
        assert vis[round(obs[0]), round(obs[1])]


def test_r2_viewshed_does_not_depend_on_how_rays_are_split(rolling):
    # every cell is decided by exactly one ray: cutting each sector's rays into
    # runs (as the threaded sweep does) must give the same raster bit for bit
    from wargame.geo.los import _kcurv
    from wargame.geo.viewshed import _MAX_STRIDE, _r2

    z = np.ascontiguousarray(rolling.dem, dtype=np.float32)
    kc = _kcurv(0.85714)
    for ro, co, maxd in ((30.0, 30.0, 0.0), (5.3, 52.8, 0.0), (41.0, 7.5, 900.0)):
        zeye = float(z[round(ro), round(co)]) + 2.5
        for stride in (1, 4, _MAX_STRIDE):
            one = _r2(z, 30.0, 45.0, ro, co, zeye, 0.0, kc, maxd, 1, stride, 0.5)
            assert 0.05 < one.mean() < 0.95
            for chunks in (2, 3, 8):
                split = _r2(
                    z, 30.0, 45.0, ro, co, zeye, 0.0, kc, maxd, chunks, stride, 0.5
                )
                assert np.array_equal(one, split)


def test_r2_viewshed_limits_to_max_distance():
    vis = viewshed_array(np.zeros((41, 41)), 50.0, 50.0, 20, 20, max_distance_m=500.0)
    rr, cc = np.mgrid[0:41, 0:41]
    inside = np.hypot(rr - 20, cc - 20) * 50.0 <= 500.0
    assert (vis == inside).all()


# --------------------------------------------------------------------------- #
# physics                                                                     #
# --------------------------------------------------------------------------- #


def test_r2_viewshed_window_is_the_full_rasters_window(rolling):
    z = rolling.dem
    full = viewshed_array(z, 50.0, 50.0, 31.4, 17.2, max_distance_m=900.0)
    w = viewshed_array(z, 50.0, 50.0, 31.4, 17.2, max_distance_m=900.0, window=True)
    h, wd = w.visible.shape
    assert (w.row0, w.col0) == (31 - 19, 0)  # 900 m = 18 cells, clipped at col 0
    assert full[w.row0 : w.row0 + h, w.col0 : w.col0 + wd].tolist() == (
        w.visible.tolist()
    )
    assert full.sum() == w.visible.sum() > 0  # nothing seen outside the window
    whole = viewshed_array(z, 50.0, 50.0, 31.4, 17.2, window=True)
    assert (whole.row0, whole.col0) == (0, 0)
    assert (whole.visible == viewshed_array(z, 50.0, 50.0, 31.4, 17.2)).all()


def test_bilinear_at_one_point_equals_the_vectorised_path(rolling):
    # bilinear at one point takes a scalar path (and viewshed_array a compiled copy)
    # (no array overheads): it must be the same number, bit for bit
    from wargame.geo.raster import bilinear

    z = np.ascontiguousarray(rolling.dem, dtype=np.float32)
    nr, nc = z.shape
    g = RasterGrid(0.0, float(nr), 1.0, nr, nc)
    rng = np.random.default_rng(5)
    rows = [*(rng.random(200) * (nr - 1)), *rng.integers(0, nr, 50), 0, nr - 1]
    cols = [*(rng.random(200) * (nc - 1)), *rng.integers(0, nc, 50), nc - 1, 0]
    xs = np.array(cols, float) + 0.5
    ys = nr - np.array(rows, float) - 0.5
    many = bilinear(z, g, xs, ys)
    for k in range(len(xs)):
        assert float(bilinear(z, g, float(xs[k]), float(ys[k]))) == many[k]
        # and viewshed_array's compiled copy of it
        assert (
            _bilinear_at(z, 0.0, float(nr), 1.0, float(xs[k]), float(ys[k]))
            == (many[k])
        )


def test_curvature_hides_ground_target_30_km_away_from_2_m_eye():
    flat = L.LOSTerrain.from_dem(np.zeros((4, 660), np.float32), cell_m=50.0)
    eye, y = (25.0, 100.0), 100.0
    assert not L.line_of_sight(flat, eye, (30_025.0, y), 2.0, 0.0).visible
    assert L.line_of_sight(
        flat, eye, (30_025.0, y), 2.0, 0.0, curvature_coeff=0.0
    ).visible
    # the geometric horizon of a 2 m eye with refraction: sqrt(2 h 2R / 0.85714)
    horizon = math.sqrt(2.0 * 2 * L.EARTH_RADIUS_M / L.CURVATURE_COEFF)
    assert 5_400 < horizon < 5_500
    assert L.line_of_sight(flat, eye, (25.0 + horizon - 100, y), 2.0, 0.0).visible
    assert not L.line_of_sight(flat, eye, (25.0 + horizon + 100, y), 2.0, 0.0).visible
    # the R2 sweep agrees
    vis = viewshed_array(np.zeros((3, 800)), 50.0, 50.0, 1, 0, 2.0, 0.0)
    seen = np.flatnonzero(vis[1]) * 50.0
    assert abs(seen.max() - horizon) < 100


def test_equal_heights_give_symmetric_answers(rolling):
    rng = np.random.default_rng(3)
    a, b = random_pairs(rng, rolling, 400)
    ab = L.visible_many(rolling, a, b, 2.0, 2.0)
    ba = L.visible_many(rolling, b, a, 2.0, 2.0)
    assert (ab == ba).all()
    # different heights: a higher observer sees more, never less
    hi = L.visible_many(rolling, a, b, 10.0, 2.0)
    assert (hi | ~ab).all() and hi.sum() > ab.sum()


def test_ridge_blocks_and_is_named_as_terrain():
    z = np.zeros((20, 60), np.float32)
    z[:, 30] = 40.0  # a north-south wall at x = 1525 m
    t = L.LOSTerrain.from_dem(z, cell_m=50.0)
    r = t_los = L.line_of_sight(t, (300.0, 500.0), (2700.0, 500.0))
    assert not r.visible and r.blocker.kind == "terrain"
    assert 1475 < r.blocked_at.x < 1575 and r.blocker.hex == t.label_at(
        r.blocked_at.x, 500
    )
    assert abs(r.blocked_at.distance_m - (r.blocked_at.x - 300.0)) < 1e-6
    assert t_los.profile["distance_m"].is_monotonic_increasing


def test_woods_block_in_intervening_hex_but_not_in_own_hexes():
    z = np.zeros((40, 40), np.float32)
    cover = np.zeros((200, 200), np.uint8)
    t0 = L.LOSTerrain.from_dem(z, cell_m=50.0, cover=cover, cover_cell_m=10.0)
    g = t0.hexgrid
    a, b, c = "B10", "F8", "I7"  # a straight hex line running east
    assert g.line(a, c)[4] == b and g.distance(a, c) == 7
    # woods filling hex b (and only b)
    xs = (np.arange(200) + 0.5) * 10.0
    ys = 2000.0 - (np.arange(200) + 0.5) * 10.0
    X, Y = np.meshgrid(xs, ys)
    in_b = g.index_at_xy(X, Y) == g.index_of(*g.axial_of_label(b))
    cover[in_b] = WOODS
    t = L.LOSTerrain.from_dem(z, cell_m=50.0, cover=cover, cover_cell_m=10.0)
    assert L.line_of_sight(t, a, b).visible  # woods in the target's own hex
    assert L.line_of_sight(t, b, a).visible  # ... and in the observer's own hex
    r = L.line_of_sight(t, a, c)
    assert not r.visible and r.blocker == L.Blocker("woods", b)
    assert L.line_of_sight(t, a, c, obstacles=False).visible
    assert L.line_of_sight(t, a, c, obstacles={"woods": 1.0}).visible  # low scrub
    assert not L.line_of_sight(t, a, c, 25.0, 2.0, obstacles={"woods": 30.0}).visible


# --------------------------------------------------------------------------- #
# hex tables and viewsheds                                                    #
# --------------------------------------------------------------------------- #


def test_table_equals_los_between_hex_centres(rolling):
    tab = L.hex_los_table(
        rolling, range_hexes=6, observer_height_m=3.0, target_height_m=1.0, cache=False
    )
    assert not tab.symmetric
    g = rolling.hexgrid
    rng = np.random.default_rng(4)
    labels = g.labels()
    checked = 0
    for _ in range(400):
        a = labels[rng.integers(len(labels))]
        near = g.range(a, 6)
        b = near[rng.integers(len(near))]
        los = L.line_of_sight(rolling, a, b, 3.0, 1.0)
        assert tab.visible(a, b) == los.visible, (a, b)
        checked += los.visible
    assert 20 < checked < 380
    with pytest.raises(ValueError, match="beyond this table's range"):
        tab.visible("A1", g.labels()[-1])


def _profile_verdicts(terrain, ip, iq, h_o, h_t, obstacles):
    """(P sees Q, Q sees P) for hex index pairs from every sample (no shortcut)."""
    g = terrain.hexgrid
    cx, cy = g.axial_to_xy(*g.axial_of_index(np.arange(g.n_hexes)))
    args = terrain.profile_args(terrain.heights_for(obstacles))
    kc = L._kcurv(L.CURVATURE_COEFF)
    out = []
    for a, b in zip(ip, iq, strict=True):
        if (cx[b], cy[b]) < (cx[a], cy[a]):  # the kernels' canonical order
            a, b, swap = b, a, True
        else:
            swap = False
        p, q = (cx[a], cy[a]), (cx[b], cy[b])
        _, _, top, _, l1, l2 = K.profile(
            *args, *p, *p, *q, *q, h_o, h_t, h_t, h_o, L.SAMPLE_STEP_M, kc
        )
        v1 = not (top[1:-1] > l1[1:-1]).any()  # a (the eye) sees b
        v2 = not (top[1:-1] > l2[1:-1]).any()
        out.append((v2, v1) if swap else (v1, v2))
    return np.array(out)


@pytest.mark.parametrize("obstacles", [True, False])
def test_whole_table_equals_every_sample_evaluated(rolling, obstacles):
    # every pair of the table, both directions, against the sampled model with
    # no shortcut at all: the near-ring bounds, probes and cell march are exact
    tab = L.hex_los_table(
        rolling,
        6,
        observer_height_m=3.0,
        target_height_m=1.5,
        obstacles=obstacles,
        cache=False,
    )
    g = rolling.hexgrid
    dq, dr = L._half_offsets(6)
    i = np.repeat(np.arange(g.n_hexes), dq.size)
    q, r = g.axial_of_index(i)
    j = g.index_of(q + np.tile(dq, g.n_hexes), r + np.tile(dr, g.n_hexes))
    i, j = i[j >= 0], j[j >= 0]
    ref = _profile_verdicts(rolling, i, j, 3.0, 1.5, obstacles)
    got = np.column_stack([tab.visible_index(i, j), tab.visible_index(j, i)])
    assert i.size > 10_000 and 0.1 < ref.mean() < 0.9
    assert np.array_equal(got, ref)


def test_near_ring_bounds_are_below_the_samples_they_stand_for(rolling):
    # the table's first test: per hex and ring sector, a lower bound of the top
    # at the sample next to the hex; check it against that sample's real top for
    # every pair it serves, and that it is not vacuous
    g = rolling.hexgrid
    heights = rolling.heights_for(True)
    kargs = rolling.kernel_args(heights)
    cx, cy = g.axial_to_xy(*g.axial_of_index(np.arange(g.n_hexes)))
    dq, dr = L._half_offsets(6)
    kc = L._kcurv(L.CURVATURE_COEFF)
    nb, ksec, kpar = L._near_plan(rolling, heights, kargs, cx, cy, dq, dr, 2, 2, kc)
    assert nb.shape == (L._NEAR_SECTORS + 1, g.n_hexes)
    assert np.isneginf(nb[-1]).all() and np.isfinite(nb[:-1]).all()
    args = rolling.profile_args(heights)
    rng = np.random.default_rng(5)
    tight = []
    for _ in range(300):
        i = int(rng.integers(g.n_hexes))
        k = int(rng.integers(dq.size))
        q, r = g.axial_of_index(np.array([i]))
        j = int(g.index_of(q + dq[k], r + dr[k])[0])
        if j < 0 or ksec[k, 0] == L._NEAR_SECTORS:  # off the map; too short
            continue
        p, o = (cx[i], cy[i]), (cx[j], cy[j])
        t, _, top, _, _, _ = K.profile(*args, *p, *p, *o, *o, 2, 2, 2, 2, 10.0, kc)
        n = t.size - 1
        # every pair of an offset has the offset's sample count (model 2)
        assert kpar[k, 0] == 10 / n, (i, j)
        for hexi, s, idx in ((i, ksec[k, 0], 10), (j, ksec[k, 1], n - 10)):
            assert nb[s, hexi] <= top[idx], (hexi, s)
            tight.append(top[idx] - nb[s, hexi])
    assert len(tight) > 300 and np.median(tight) < 25.0


def test_table_lookup_vectorised_and_symmetric_with_equal_heights(rolling):
    tab = L.hex_los_table(
        rolling, range_hexes=5, observer_height_m=2.0, target_height_m=2.0, cache=False
    )
    assert tab.symmetric
    g = rolling.hexgrid
    i = np.arange(g.n_hexes)
    q, r = g.axial_of_index(i)
    j = g.index_of(q + 2, r - 1)
    ok = j >= 0
    v1 = tab.visible_index(i[ok], j[ok])
    v2 = tab.visible_index(j[ok], i[ok])
    assert (v1 == v2).all() and 0 < v1.mean() < 1
    assert tab.visible_index([3], [3]).tolist() == [True]
    hv = L.hex_viewshed(
        rolling, "E5", range_hexes=5, observer_height_m=2.0, target_height_m=2.0
    )
    assert sorted(hv.labels) == sorted(tab.visible_from("E5"))
    union = shapely.union_all([shapely.Polygon(g.corners(lab)) for lab in hv.labels])
    assert abs(hv.polygon.area - union.area) < 1e-3 * union.area


def test_table_cache_is_rebuilt_when_damaged(tmp_path, rolling):
    tab = L.hex_los_table(rolling, range_hexes=3, cache=tmp_path)
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].suffix == ".npz"  # no temp files left
    again = L.hex_los_table(rolling, range_hexes=3, cache=tmp_path)
    assert np.array_equal(again._fwd, tab._fwd)
    # flip bits: the checksum catches it and the table is rebuilt, not trusted
    with np.load(files[0]) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["fwd"] = arrays["fwd"] ^ 0xFF
    np.savez(files[0], **arrays)
    assert np.array_equal(
        L.hex_los_table(rolling, range_hexes=3, cache=tmp_path)._fwd, tab._fwd
    )
    files[0].write_bytes(b"not a zip file")
    assert np.array_equal(
        L.hex_los_table(rolling, range_hexes=3, cache=tmp_path)._fwd, tab._fwd
    )
    # another key (other heights) is another file
    L.hex_los_table(rolling, range_hexes=3, observer_height_m=5.0, cache=tmp_path)
    assert len(list(tmp_path.iterdir())) == 2


def test_mask_to_polygon_follows_cell_edges():
    rng = np.random.default_rng(5)
    mask = rng.random((30, 40)) < 0.4
    g = RasterGrid(1000.0, 5000.0, 10.0, 30, 40)
    poly = mask_to_polygon(mask, g)
    assert poly.is_valid and poly.area == pytest.approx(mask.sum() * 100.0)
    rr, cc = np.nonzero(mask)
    pts = shapely.points(g.x0 + (cc + 0.5) * 10, g.y0 - (rr + 0.5) * 10)
    assert shapely.contains(poly, pts).all()
    rr, cc = np.nonzero(~mask)
    pts = shapely.points(g.x0 + (cc + 0.5) * 10, g.y0 - (rr + 0.5) * 10)
    assert not shapely.contains(poly, pts).any()


# --------------------------------------------------------------------------- #
# bad input                                                                   #
# --------------------------------------------------------------------------- #


def test_bad_input_names_the_argument(rolling):
    with pytest.raises(ValueError, match=r"b \(target\).*outside the map"):
        L.line_of_sight(rolling, (100.0, 100.0), (1e6, 100.0))
    with pytest.raises(ValueError, match=r"observer_height_m must be .*>= 0"):
        L.line_of_sight(rolling, (100.0, 100.0), (900.0, 100.0), -1.0)
    with pytest.raises(ValueError, match="target_height_m"):
        L.line_of_sight(rolling, (100.0, 100.0), (900.0, 100.0), 2.0, float("nan"))
    with pytest.raises(ValueError, match=r"a \(observer\): .*not on this map"):
        L.line_of_sight(rolling, "ZZ99", (900.0, 100.0))
    with pytest.raises(ValueError, match="unknown terrain class 'forest'"):
        L.line_of_sight(
            rolling, (100.0, 100.0), (900.0, 100.0), obstacles={"forest": 9}
        )
    with pytest.raises(ValueError, match="range_hexes must be between 1"):
        L.hex_los_table(rolling, range_hexes=0, cache=False)
    with pytest.raises(ValueError, match=r"observer .*outside the DEM"):
        viewshed_array(rolling.dem, 50.0, 50.0, -3, 4)
