"""Issue #16 items 2 and 6: the map API refuses bad arguments, one rule for all.

Every message has the shape ``<function>: <argument>: <problem>; <fix>`` and is a
``ValueError`` (``MapArgumentError``); nothing is clamped, no ``OverflowError``,
``ProjError``, ``AttributeError`` or ``OSError`` escapes.
"""

import math
import pickle

import numpy as np
import pytest

import wargame.geo.maps as maps
from wargame.geo.maps import (
    HEX_SIZE_RANGE_M,
    MAX_HEIGHT_M,
    MAX_HEXES,
    MapArgumentError,
    Window,
    load_map,
)

X_FIX = "give metres in the map's CRS EPSG:32632 (x 365900–393300)"
Y_FIX = "give metres in the map's CRS EPSG:32632 (y 5584900–5617500)"
POINT_FIX = (
    "give a hex label like 'L12' or (x, y) in metres of the map's CRS EPSG:32632 "
    "(x 365900–393300, y 5584900–5617500)"
)
HEIGHT_FIX = "give metres above ground from 0 to 10000"
HEX_FIX = "give the distance between hex centres in metres, 10 to 10000"


@pytest.fixture(scope="module")
def m():
    return load_map()


@pytest.fixture(scope="module")
def ley(m):
    return m.place_xy("Erpeler Ley")


def _msg(fn, *args, **kw):
    with pytest.raises(MapArgumentError) as info:
        fn(*args, **kw)
    assert isinstance(info.value, ValueError)
    text = str(info.value)
    assert "\n" not in text and len(text) < 400
    return text


# --------------------------------------------------------------------------- #
# elevation: no more clamping, no strings or bools                            #
# --------------------------------------------------------------------------- #


def test_elevation_minus_inf_refused_not_clamped_to_the_edge(m, ley):
    assert _msg(m.elevation, -math.inf, ley[1]) == (
        f"Map.elevation: x: -inf is not a finite number; {X_FIX}"
    )


def test_elevation_1e308_refused_not_clamped_to_the_edge(m, ley):
    assert _msg(m.elevation, 1e308, ley[1]) == (
        f"Map.elevation: x: 1e+308 is off the map; {X_FIX}"
    )


def test_elevation_off_map_refused(m, ley):
    assert _msg(m.elevation, ley[0], 0) == (
        f"Map.elevation: y: 0 is off the map; {Y_FIX}"
    )


def test_elevation_nan_refused(m, ley):
    assert _msg(m.elevation, math.nan, ley[1]) == (
        f"Map.elevation: x: nan is not a finite number; {X_FIX}"
    )


def test_elevation_string_refused(m, ley):
    assert _msg(m.elevation, "376000", ley[1]) == (
        f"Map.elevation: x: '376000' is not a number (str); {X_FIX}"
    )


def test_elevation_true_refused(m, ley):
    assert _msg(m.elevation, True, ley[1]) == (
        f"Map.elevation: x: True is not a number (bool); {X_FIX}"
    )


def test_elevation_array_with_one_off_map_point_refused(m, ley):
    xs = np.array([ley[0], ley[0], 400_000.0])
    assert _msg(m.elevation, xs, np.full(3, ley[1])) == (
        f"Map.elevation: x: 400000 at index 2 is off the map; {X_FIX}"
    )
    assert _msg(m.elevation, [ley[0], math.inf], ley[1]) == (
        f"Map.elevation: x: inf at index 1 is not a finite number; {X_FIX}"
    )
    assert _msg(m.elevation, np.array(["a"]), ley[1]).startswith(
        "Map.elevation: x: holds <U1 values, not numbers"
    )


def test_elevation_arrays_of_different_shapes_refused(m, ley):
    assert _msg(m.elevation, [ley[0]] * 3, [ley[1]] * 2) == (
        "Map.elevation: x, y: shapes (3,) and (2,) differ; give arrays of one shape"
    )


def test_elevation_on_the_map_still_answers_scalars_and_arrays(m, ley):
    z = m.elevation(*ley)
    assert isinstance(z, float) and 100 < z < 300
    zs = m.elevation(np.array([ley[0], ley[0]]), np.array([ley[1], ley[1]]))
    assert zs.shape == (2,) and zs[0] == pytest.approx(z)
    assert m.elevation(np.float32(ley[0]), int(ley[1])) == pytest.approx(z, abs=0.5)


def test_terrain_at_refuses_like_elevation(m, ley):
    assert _msg(m.terrain_at, math.inf, ley[1]) == (
        f"Map.terrain_at: x: inf is not a finite number; {X_FIX}"
    )
    assert _msg(m.terrain_at, 0.0, ley[1]) == (
        f"Map.terrain_at: x: 0 is off the map; {X_FIX}"
    )


def test_one_bounds_rule_for_every_point_method(m, ley):
    xmax = m.bounds[2]
    edge, beyond = (xmax, ley[1]), (xmax + 1.0, ley[1])
    # the edge itself is on the map for all of them ...
    m.elevation(*edge)
    m.terrain_at(*edge)
    m.hex_at_xy(*edge)
    assert m.los(ley, edge, obstacles=False).target == edge
    assert bool(m.contains_xy(*edge))
    # ... and one metre beyond it is off the map for all of them
    assert (
        _msg(m.elevation, *beyond)
        == f"Map.elevation: x: 393301 is off the map; {X_FIX}"
    )
    assert _msg(m.terrain_at, *beyond).startswith("Map.terrain_at: x: 393301 is off")
    assert _msg(m.hex_at_xy, *beyond).startswith("Map.hex_at_xy: x: 393301 is off")
    assert _msg(m.los, ley, beyond).startswith(
        f"Map.los: b: (393301, {beyond[1]}) is off the map; "
    )
    assert _msg(m.viewshed, beyond, 500.0).startswith("Map.viewshed: observer: (393301")
    assert not bool(m.contains_xy(*beyond))


# --------------------------------------------------------------------------- #
# hex_at / hex_at_xy / to_xy                                                  #
# --------------------------------------------------------------------------- #

LONLAT_FIX = (
    "give one WGS84 point on the map (about lon 7.101–7.498, lat 50.401–50.700)"
)


def test_hex_at_lon_list_refused_not_proj_error(m):
    assert _msg(m.hex_at, lon=[7.2, 7.3], lat=50.5) == (
        f"Map.hex_at: lon: [7.2, 7.3] is not a single number; {LONLAT_FIX}"
    )
    assert _msg(m.hex_at, lon=7.2, lat=np.array([50.5, 50.6])).startswith(
        "Map.hex_at: lat: array([50.5, 50.6]) is not a single number; "
    )


def test_hex_at_string_and_inf_refused(m):
    assert _msg(m.hex_at, lon="7.2", lat=50.5) == (
        f"Map.hex_at: lon: '7.2' is not a number (str); {LONLAT_FIX}"
    )
    assert _msg(m.hex_at, lon=math.inf, lat=50.5) == (
        f"Map.hex_at: lon: inf is not a finite number; {LONLAT_FIX}"
    )
    assert _msg(m.hex_at, lon=1e308, lat=50.5) == (
        f"Map.hex_at: lon: 1e+308 is not a longitude; {LONLAT_FIX}"
    )
    assert _msg(m.hex_at, lon=8.5, lat=50.5) == (
        f"Map.hex_at: lon, lat: (8.5, 50.5) is off the map; {LONLAT_FIX}"
    )


def test_hex_at_xy_bool_and_string_refused(m, ley):
    assert _msg(m.hex_at_xy, True, ley[1]) == (
        f"Map.hex_at_xy: x: True is not a number (bool); {X_FIX}"
    )
    assert _msg(m.hex_at_xy, "1", "2") == (
        f"Map.hex_at_xy: x: '1' is not a number (str); {X_FIX}"
    )


def test_to_xy_string_and_out_of_range_degrees_refused(m):
    fix = "give WGS84 degrees, lon -180–180 and lat -90–90"
    assert (
        _msg(m.to_xy, "a", 50.5) == f"Map.to_xy: lon: 'a' is not a number (str); {fix}"
    )
    assert _msg(m.to_xy, 7.2, 91) == f"Map.to_xy: lat: 91 is not a latitude; {fix}"
    x, y = m.to_xy([7.2, 7.4], [50.5, 50.6])  # arrays still convert
    assert len(x) == 2
    lon, lat = m.to_lonlat(x, y)
    assert np.allclose(lon, [7.2, 7.4]) and np.allclose(lat, [50.5, 50.6])
    assert _msg(m.to_lonlat, math.nan, 1.0).startswith(
        "Map.to_lonlat: x: nan is not a finite number"
    )


# --------------------------------------------------------------------------- #
# heights, radii, ranges, obstacles: sane bounds, no OverflowError            #
# --------------------------------------------------------------------------- #


def test_los_height_too_large_for_a_float_refused_not_overflow(m, ley):
    target = m.place_xy("Remagen")
    assert _msg(m.los, ley, target, observer_height_m=10**400) == (
        "Map.los: observer_height_m: 100000000000000000000000000000... "
        f"(401 characters) is not a finite number; {HEIGHT_FIX}"
    )
    assert _msg(m.los, ley, target, target_height_m=1e308) == (
        f"Map.los: target_height_m: 1e+308 is out of range; {HEIGHT_FIX}"
    )
    assert _msg(m.los, ley, target, observer_height_m=MAX_HEIGHT_M + 1) == (
        f"Map.los: observer_height_m: 10001 is out of range; {HEIGHT_FIX}"
    )
    assert m.los(ley, target, observer_height_m=MAX_HEIGHT_M).visible


def test_height_true_refused(m, ley):
    assert _msg(m.los, ley, ley, observer_height_m=True) == (
        f"Map.los: observer_height_m: True is not a number (bool); {HEIGHT_FIX}"
    )
    assert _msg(m.viewshed, ley, 500.0, target_height_m="2").startswith(
        "Map.viewshed: target_height_m: '2' is not a number (str); "
    )


def test_los_point_with_inf_or_bool_refused(m, ley):
    assert _msg(m.los, (math.inf, 0.0), ley) == (
        f"Map.los: a[0]: inf is not a finite number; {POINT_FIX}"
    )
    assert _msg(m.los, ley, (ley[0], True)) == (
        f"Map.los: b[1]: True is not a number (bool); {POINT_FIX}"
    )
    assert _msg(m.los, ley, (1.0, 2.0, 3.0)) == (
        f"Map.los: b: (1.0, 2.0, 3.0) is not a hex label or an (x, y) point; "
        f"{POINT_FIX}"
    )


def test_viewshed_radius_too_large_refused_not_overflow(m, ley):
    fix = "give metres, more than 0 and at most 42585 (the map's diagonal)"
    assert _msg(m.viewshed, ley, 10**400).startswith(
        "Map.viewshed: radius_m: 100000000000000000000000000000... (401 characters) "
        "is not a finite number; "
    )
    assert _msg(m.viewshed, ley, 1e308) == (
        f"Map.viewshed: radius_m: 1e+308 is out of range; {fix}"
    )
    assert _msg(m.viewshed, ley, True) == (
        f"Map.viewshed: radius_m: True is not a number (bool); {fix}"
    )


def test_obstacle_height_too_large_refused(m, ley):
    assert _msg(m.los, ley, ley, obstacles={"woods": 10**400}).startswith(
        "Map.los: obstacles['woods']: 100000000000000000000000000000... "
    )
    assert _msg(m.los, ley, ley, obstacles={"woods": True}) == (
        f"Map.los: obstacles['woods']: True is not a number (bool); {HEIGHT_FIX}"
    )
    assert _msg(m.los, ley, ley, obstacles={"forest": 3.0}).startswith(
        "Map.los: obstacles: 'forest' is not a terrain class; give heights for clear"
    )
    assert _msg(m.los, ley, ley, obstacles="yes").startswith(
        "Map.los: obstacles: 'yes' is not True, False or a mapping; "
    )
    with pytest.raises(MapArgumentError, match=r"^Map.obstacle_heights_m: heights"):
        m.obstacle_heights_m = {"town": math.inf}
    assert m.obstacle_heights_m["town"] == 10.0  # unchanged


def test_range_hexes_bool_and_float_refused(m):
    fix = "give a whole number of hexes from 1 to 430 (the map's size)"
    here = m.hex_of_place("Remagen")
    assert _msg(m.hex_viewshed, here, range_hexes=True) == (
        f"Map.hex_viewshed: range_hexes: True is not a whole number; {fix}"
    )
    assert _msg(m.hex_los_table, range_hexes=2.5, cache=False) == (
        f"Map.hex_los_table: range_hexes: 2.5 is not a whole number; {fix}"
    )
    assert _msg(m.hex_los_table, range_hexes=10**400, cache=False).startswith(
        "Map.hex_los_table: range_hexes: 1000000000000000000000000000"
    )


# --------------------------------------------------------------------------- #
# place and label lookups                                                     #
# --------------------------------------------------------------------------- #


def test_place_lookup_with_a_number_refused_not_attribute_error(m):
    assert _msg(m.place_xy, 7) == (
        "Map.place_xy: name: 7 is not a string (int); give a place or peak name"
    )
    assert _msg(m.hex_of_place, None) == (
        "Map.hex_of_place: name: None is not a string (NoneType); "
        "give a place or peak name"
    )


def test_place_name_of_100000_characters_refused_and_not_echoed(m):
    assert _msg(m.place_xy, "x" * 100_000) == (
        "Map.place_xy: name: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (100002 characters) "
        "is too long (at most 200 characters); give a place or peak name"
    )


def test_unknown_place_names_close_matches(m):
    assert _msg(m.place_xy, "Remagn") == (
        "Map.place_xy: name: no place named 'Remagn' on map 'rhine-remagen'; "
        "did you mean Remagen, Reeg?"
    )


def test_hex_label_of_100000_digits_refused(m):
    fix = "give a hex label like 'L12' (columns A–HD, rows 1–218)"
    assert _msg(m.hex_center, "A" + "9" * 100_000) == (
        "Map.hex_center: label: 'A9999999999999999999999999999... (100003 "
        f"characters) is not a hex label; {fix}"
    )
    assert _msg(m.hex_polygon, "ZZ999") == (
        f"Map.hex_polygon: label: hex 'ZZ999' is not on this map; {fix}"
    )
    assert _msg(m.hex_polygons, ["A1", 7]) == (
        f"Map.hex_polygons: labels[1]: 7 is not a hex label; {fix}"
    )
    assert _msg(m.los, "L12", "nope").startswith(
        "Map.los: b: 'nope' is not a hex label"
    )


def test_layer_name_unhashable_refused(m):
    assert _msg(m.layer, ["roads"]).startswith(
        "Map.layer: layer: unknown layer ['roads']; give one of crossings"
    )


def test_map_argument_error_survives_pickling():
    e = MapArgumentError("Map.elevation", "x", "-inf is not a finite number; fix")
    back = pickle.loads(pickle.dumps(e))
    assert str(back) == str(e) and back.argument == "x" and back.problem == e.problem


# --------------------------------------------------------------------------- #
# load_map: refused before anything is built                                  #
# --------------------------------------------------------------------------- #


@pytest.fixture
def nothing_built(monkeypatch):
    """Fail the test if hex attributes are computed."""

    def boom(m):  # pragma: no cover - only called on a regression
        raise AssertionError("hex attributes were computed")

    monkeypatch.setattr(maps, "compute_hex_attributes", boom)


def test_map_name_of_100000_characters_refused_not_os_error(nothing_built):
    assert _msg(load_map, "a" * 100_000) == (
        "load_map: name: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (100002 characters) is not "
        "a map name (letters, digits, '.', '_', '-'; at most 100 characters); give "
        "one of: rhine-remagen"
    )
    assert _msg(load_map, "../maps").startswith(
        "load_map: name: '../maps' is not a map"
    )
    assert _msg(load_map, "rhine") == (
        "load_map: name: unknown map 'rhine'; available maps: rhine-remagen"
    )


@pytest.mark.parametrize("size", [1, 0.001, 0, -150, 5, 20_000])
def test_hex_size_out_of_range_refused_before_building(size, nothing_built):
    assert _msg(load_map, hex_size_m=size) == (
        f"load_map: hex_size_m: {size!r} is out of range; {HEX_FIX}"
    )


@pytest.mark.parametrize(
    ("size", "shown"), [(math.inf, "inf"), (math.nan, "nan"), (-math.inf, "-inf")]
)
def test_hex_size_not_finite_refused(size, shown, nothing_built):
    assert _msg(load_map, hex_size_m=size) == (
        f"load_map: hex_size_m: {shown} is not a finite number; {HEX_FIX}"
    )


def test_hex_size_true_or_string_refused(nothing_built):
    assert _msg(load_map, hex_size_m=True) == (
        f"load_map: hex_size_m: True is not a number (bool); {HEX_FIX}"
    )
    assert _msg(load_map, hex_size_m="150") == (
        f"load_map: hex_size_m: '150' is not a number (str); {HEX_FIX}"
    )


def test_too_many_hexes_refused_with_the_bound_before_building(nothing_built):
    assert HEX_SIZE_RANGE_M[0] == 10.0 and MAX_HEXES == 500_000
    assert _msg(load_map, hex_size_m=20) == (
        "load_map: hex_size_m: 20 m hexes on this 27.4 × 32.6 km map make 2,581,873 "
        "hexes, more than the limit of 500,000; give hexes of at least 46 m or a "
        "smaller window"
    )
    assert load_map(hex_size_m=46).grid.n_hexes <= MAX_HEXES  # the advice holds


def test_fine_hexes_in_a_window_are_still_allowed():
    w = load_map(hex_size_m=20, window="Linz")
    assert w.grid.n_hexes < MAX_HEXES


def test_hexes_of_a_map_made_without_load_map_are_bounded(m, nothing_built):
    big = maps.Map(m.folder, m.meta, hex_size_m=20)
    with pytest.raises(MapArgumentError, match=r"^load_map: hex_size_m: 20 m hexes"):
        big.hexes  # noqa: B018


def test_window_width_inf_refused(nothing_built):
    assert _msg(load_map, window={"place": "Linz", "width_m": math.inf}) == (
        "load_map: window.width_m: inf is not a finite number; give a width or "
        "height in metres, more than 0"
    )


def test_window_width_1e9_refused_not_the_whole_map(nothing_built):
    assert _msg(load_map, window={"place": "Linz", "width_m": 1e9}) == (
        "load_map: window.width_m: 1000000000 is larger than the map; give metres, "
        "more than 0 and at most 27400"
    )
    assert _msg(load_map, window={"place": "Linz", "height_m": 40_000}) == (
        "load_map: window.height_m: 40000 is larger than the map; give metres, "
        "more than 0 and at most 32600"
    )


def test_window_bbox_inf_refused(nothing_built):
    assert _msg(load_map, window={"bbox": [-math.inf, 5599600, math.inf, 5603300]}) == (
        "load_map: window.bbox[0]: -inf is not a finite number; give [xmin, ymin, "
        "xmax, ymax] as four numbers"
    )
    assert _msg(
        load_map, window={"bbox": [7.2, 50.5, math.inf, 50.6], "lonlat": True}
    ).startswith("load_map: window.bbox[2]: inf is not a finite number")


def test_window_bbox_off_or_partly_off_the_map_refused(nothing_built):
    fix = "give a box inside x 365900–393300, y 5584900–5617500 (metres in EPSG:32632)"
    assert _msg(load_map, window=(0, 0, 1000, 1000)) == (
        f"load_map: window.bbox: (0, 0, 1000, 1000) lies outside the map; {fix}"
    )
    assert _msg(load_map, window=(360000, 5599600, 376400, 5603300)) == (
        "load_map: window.bbox: (360000, 5599600, 376400, 5603300) reaches outside "
        f"the map; {fix}"
    )
    assert _msg(load_map, window=(376400, 5599600, 370000, 5603300)) == (
        "load_map: window.bbox: (376400, 5599600, 370000, 5603300) is empty; give "
        "xmin < xmax and ymin < ymax"
    )
    assert _msg(
        load_map, window={"bbox": [8.2, 50.5, 8.3, 50.6], "lonlat": True}
    ).startswith(
        "load_map: window.bbox: (8.2, 50.5, 8.3, 50.6) reaches outside the map"
    )


def test_window_place_as_a_number_refused_not_attribute_error(nothing_built):
    assert _msg(load_map, window={"place": 7}) == (
        "load_map: window.place: 7 is not a string (int); give a place or peak name"
    )


def test_window_unknown_key_refused_not_ignored(nothing_built):
    assert _msg(load_map, window={"place": "Linz", "widht_m": 2000}) == (
        "load_map: window.widht_m: unknown key; give only place, bbox, width_m, "
        "height_m, lonlat"
    )
    assert _msg(load_map, window={"bbox": [1, 2, 3, 4], "width_m": 5}).startswith(
        "load_map: window.width_m: applies only to a window around a place"
    )
    assert _msg(load_map, window={}) == (
        "load_map: window.place, bbox: a window needs a place or a bbox; give one "
        "of them"
    )
    assert _msg(load_map, window=7).startswith("load_map: window: 7 is not a window")


def test_window_checks_its_fields_when_made_directly():
    assert _msg(Window, place="Linz", height_m=-1) == (
        "Window: height_m: -1 is out of range; give a width or height in metres, "
        "more than 0"
    )
    assert _msg(Window, bbox=(1, 2, 3)).startswith("Window: bbox: (1, 2, 3) is not")


def test_good_windows_still_load():
    a = load_map(window={"bbox": [370000, 5599600, 376400, 5603300]})
    assert a.bounds == (370000.0, 5599600.0, 376400.0, 5603300.0)
    b = load_map(window={"bbox": [7.2, 50.5, 7.3, 50.6], "lonlat": True})
    assert b.grid.n_hexes > 1000
