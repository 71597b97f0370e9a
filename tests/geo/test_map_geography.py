"""Geographic facts checked on the committed Rhine map (and its raw inputs)."""

import json
from pathlib import Path

import numpy as np
import pytest
import shapely
import shapely.ops
from shapely.geometry import shape

import wargame

GEODATA = Path(__file__).resolve().parents[3] / "shared" / "geodata"


@pytest.fixture(scope="module")
def m():
    return wargame.load_map("rhine-remagen")


def test_map_covers_the_study_box_with_tens_of_thousands_of_hexes(m):
    xmin, ymin, xmax, ymax = m.bounds
    assert 27_000 < xmax - xmin < 29_500 and 32_000 < ymax - ymin < 34_000
    assert 40_000 < len(m.hexes) < 50_000
    assert m.crs == "EPSG:32632"
    assert set(m.hexes["terrain"].unique()) >= {"clear", "woods", "town", "water"}


def test_rhine_centreline_runs_through_water_hexes(m):
    ww = m.layer("waterways")
    rhine = ww[(ww["class"] == "river") & (ww["name"] == "Rhein")]
    line = shapely.ops.linemerge(shapely.union_all(rhine["geometry"].to_numpy()))
    assert line.length > 35_000  # the Rhine crosses the whole map
    pts = np.vstack(
        [
            shapely.get_coordinates(shapely.segmentize(g, 100))
            for g in shapely.get_parts(line)
        ]
    )
    labels = {m.hex_at_xy(x, y) for x, y in pts}
    terr = m.hexes.loc[sorted(labels), "terrain"]
    assert (terr == "water").mean() > 0.97


@pytest.mark.parametrize(
    ("lon", "lat"),
    [
        (7.2373, 50.5801),  # between Remagen and Erpel
        (7.2122, 50.6361),  # off Bad Honnef
        (7.3150, 50.5002),  # between Bad Breisig and Bad Hönningen
        (7.4100, 50.4440),  # at Andernach
    ],
)
def test_points_in_the_rhine_are_water_hexes(m, lon, lat):
    assert m.terrain_at(*m.to_xy(lon, lat)) == "water"
    assert m.hexes.loc[m.hex_at(lon=lon, lat=lat), "terrain"] == "water"


def test_rhine_hexes_lie_at_50_to_62_m(m):
    ww = m.layer("waterways")
    rhine = ww[(ww["class"] == "river") & (ww["name"] == "Rhein")]
    pts = np.vstack(
        [shapely.get_coordinates(shapely.segmentize(g, 100)) for g in rhine["geometry"]]
    )
    labels = sorted({m.hex_at_xy(x, y) for x, y in pts})
    h = m.hexes.loc[labels]
    wet = h[h["share_water"] >= 0.9]
    assert len(wet) > 250
    assert wet["elevation_m"].between(50, 62).all(), wet["elevation_m"].describe()
    # and the river falls downstream (Andernach, south, is higher than Bad Honnef)
    south = wet[wet["y"] < wet["y"].quantile(0.1)]["elevation_min_m"].median()
    north = wet[wet["y"] > wet["y"].quantile(0.9)]["elevation_min_m"].median()
    assert south > north


@pytest.mark.parametrize(
    ("lon", "lat", "where"),
    [
        (7.2600, 50.6600, "Siebengebirge"),
        (7.1300, 50.4800, "Ahr hills south of Bad Neuenahr"),
        (7.3600, 50.5300, "Westerwald slopes east of Bad Hönningen"),
        (7.3700, 50.4700, "forest above Hammerstein"),
    ],
)
def test_interiors_of_large_woods_are_woods_hexes(m, lon, lat, where):
    lab = m.hex_at(lon=lon, lat=lat)
    assert m.hexes.loc[lab, "terrain"] == "woods", where
    assert m.hexes.loc[lab, "share_woods"] > 0.9


@pytest.mark.parametrize(
    "town", ["Remagen", "Linz", "Sinzig", "Bad Breisig", "Andernach"]
)
def test_town_centres_are_town_hexes(m, town):
    lab = m.hex_of_place(town)
    assert m.hexes.loc[lab, "terrain"] == "town"
    assert m.hexes.loc[lab, "place"] == town


def test_peak_hexes_reach_close_to_the_surveyed_heights(m):
    # SRTM3 cells are ~60 x 93 m here and average the summit; resampling to the 50 m
    # grid smooths a little more, and OSM peak points can sit tens of metres off the
    # top. So summits read low by ~5 m typically and up to ~35 m on sharp ones
    # (Drachenfels, Nastberg); a peak point on a slope can read high. Tolerance: every
    # named peak within 40 m, the median within 10 m.
    pk = m.layer("peaks")
    pk = pk[pk["ele"].notna()]
    err = []
    for _, r in pk.iterrows():
        lab = m.hex_at_xy(r["geometry"].x, r["geometry"].y)
        err.append(m.hexes.loc[lab, "elevation_max_m"] - r["ele"])
    err = np.array(err)
    assert len(err) > 50
    assert np.abs(err).max() < 40
    assert np.median(np.abs(err)) < 10
    assert np.median(err) < 0  # smoothing lowers summits


def test_named_heights(m):
    # The Erpeler Ley plateau above Erpel is ~190-200 m; the Rhine below it ~53 m.
    ley = m.hex_of_place("Erpeler Ley")
    nb = [ley, *m.grid.neighbors(ley)]
    assert 170 < m.hexes.loc[nb, "elevation_max_m"].max() < 215
    # Großer Ölberg, highest of the Siebengebirge: 460 m surveyed, ~440 m in SRTM3
    assert 420 < m.hexes.loc[m.hex_of_place("Großer Ölberg"), "elevation_max_m"] < 465
    lo, hi = m.dem.min(), m.dem.max()
    assert 44 < lo < 52 and 560 < hi < 645


def test_crossings_of_the_rhine(m):
    h = m.hexes
    # the one Rhine bridge in the box: the B 256 at Neuwied
    rb = h[h["rhine_bridge"]]
    assert len(rb) > 0
    assert (rb["lat"].between(50.41, 50.43) & rb["lon"].between(7.44, 7.47)).all()
    # ten ferries cross the Rhine
    cr = m.layer("crossings")
    assert (cr["kind"] == "ferry").sum() == 10
    assert h["ferry"].sum() >= 10
    assert h["bridge"].sum() > h["rhine_bridge"].sum()


def test_roads_by_class(m):
    h = m.hexes
    # the A 61 runs through the west of the map
    assert (h["road"] == "motorway").sum() > 200
    assert h.loc[m.hex_of_place("Remagen"), "road"] in (
        "primary",
        "secondary",
        "tertiary",
        "minor",
    )
    counts = h["road"].value_counts()
    assert counts["track"] > counts["primary"]


def test_elevation_is_bilinear_and_vectorised(m):
    x, y = m.to_xy(7.25, 50.585)
    z = m.elevation(np.array([x, x + 10]), np.array([y, y]))
    assert z.shape == (2,)
    g = m.dem_grid
    # at a cell centre the value is the cell's own
    cx, cy = g.x0 + 100.5 * g.cell_m, g.y0 - 200.5 * g.cell_m
    assert m.elevation(cx, cy) == pytest.approx(float(m.dem[200, 100]), abs=1e-4)
    mid = m.elevation(cx + g.cell_m / 2, cy)
    assert mid == pytest.approx(float(m.dem[200, 100] + m.dem[200, 101]) / 2, abs=1e-3)


def test_lonlat_round_trip(m):
    x, y = m.to_xy([7.2, 7.4], [50.5, 50.6])
    lon, lat = m.to_lonlat(x, y)
    assert np.allclose(lon, [7.2, 7.4]) and np.allclose(lat, [50.5, 50.6])


def test_hex_polygon_contains_its_centre_and_has_the_right_area(m):
    lab = m.hex_of_place("Linz")
    poly = m.hex_polygon(lab)
    cx, cy = m.hex_center(lab)
    assert poly.contains(shapely.Point(cx, cy))
    assert poly.area == pytest.approx(np.sqrt(3) / 2 * 150**2, rel=1e-6)
    assert m.hex_at_xy(*poly.representative_point().coords[0]) == lab


def test_window_cuts_a_small_finer_submap(m):
    w = wargame.load_map("rhine-remagen", hex_size_m=50, window="Linz")
    xmin, ymin, xmax, ymax = w.bounds
    assert xmax - xmin == pytest.approx(4000) and ymax - ymin == pytest.approx(3000)
    assert 5000 < len(w.hexes) < 6000
    assert w.hexes.loc[w.hex_of_place("Linz"), "terrain"] == "town"
    # the window agrees with the full map where they overlap
    x, y = w.place_xy("Linz")
    assert w.elevation(x, y) == pytest.approx(m.elevation(x, y))
    assert w.dem.shape[0] in (60, 61) and w.dem.shape[1] in (80, 81)
    with pytest.raises(ValueError, match=r"x: .* is off the map"):
        w.hex_at_xy(x + 5000, y)


def test_hexes_gdf_has_polygons():
    gpd = pytest.importorskip("geopandas")
    w = wargame.load_map(window="Remagen")
    gdf = w.hexes_gdf()
    assert isinstance(gdf, gpd.GeoDataFrame)
    assert len(gdf) == len(w.hexes)
    assert gdf.crs.to_epsg() == 32632
    assert gdf.geometry.iloc[0].geom_type == "Polygon"


@pytest.mark.skipif(
    not GEODATA.is_dir(), reason="raw inputs (../shared/geodata) absent"
)
def test_woods_and_water_agree_with_the_raw_osm_polygons(m):
    """Compare the committed map with what it was made from."""
    rng = np.random.default_rng(7)
    lc = json.loads((GEODATA / "osm" / "osm_landcover.geojson").read_text())
    woods = [
        shape(f["geometry"])
        for f in lc["features"]
        if f["properties"]["class"] == "wood"
    ]
    big = sorted(woods, key=lambda g: -g.area)[:40]
    hits = total = 0
    for poly in big:
        core = m.to_lonlat_geometry(
            shapely.buffer(
                shapely.transform(
                    poly, lambda c: np.column_stack(m.to_xy(c[:, 0], c[:, 1]))
                ),
                -120,
            )
        )
        if core.is_empty:
            continue
        pts = shapely.points(
            rng.uniform(*core.bounds[::2], 200), rng.uniform(*core.bounds[1::2], 200)
        )
        pts = pts[shapely.contains(core, pts)]
        for p in pts[:10]:
            x, y = m.to_xy(p.x, p.y)
            if not m.contains_xy(x, y):
                continue
            total += 1
            hits += m.hexes.loc[m.hex_at_xy(x, y), "terrain"] == "woods"
    assert total > 100
    assert hits / total > 0.97


def test_a_window_hex_names_its_place_on_the_whole_map():
    """A window's grid starts at A1 at its own corner; every window hex also
    names the whole map's hex holding its centre (exact where the grids line
    up, else the nearest of the overlapping ones): Remagen's hex is BP87 on
    the whole map in either labelling."""
    import math

    from wargame.render.geojson import hex_info_html

    full = wargame.load_map()
    w = wargame.load_map(window="Remagen")
    here = w.hex_of_place("Remagen")
    assert here != full.hex_of_place("Remagen")
    assert w.full_map_label(here) == (full.hex_of_place("Remagen"), False)
    radius = w.hex_size_m / math.sqrt(3)
    for label in w.hexes.index[::37]:
        name, same = w.full_map_label(label)
        (x, y), (fx, fy) = w.grid.center(label), full.grid.center(name)
        assert math.hypot(fx - x, fy - y) <= radius + 1e-6
        assert full.hex_at_xy(x, y) == name
        assert same == (math.hypot(fx - x, fy - y) < 1.0)
    assert full.full_map_label("CB83") == ("CB83", True)
    panel = hex_info_html(w, here)
    assert f"<b>{here}</b>" in panel and "≈ BP87 on the whole map" in panel
    assert "on the whole map" not in hex_info_html(full, "CB83")
