"""The map build (on small synthetic inputs) and clear errors for bad input."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import wargame
from wargame.cli import main
from wargame.geo.build import REQUIRED_SOURCES, BuildError, BuildParams, build_map
from wargame.geo.maps import MapDataError, load_map

REPO = Path(__file__).resolve().parents[2]
BOX = (7.20, 50.50, 7.30, 50.60)


def _fc(features):
    return {"type": "FeatureCollection", "features": features}


def _poly(lon0, lat0, lon1, lat1, **props):
    ring = [[lon0, lat0], [lon1, lat0], [lon1, lat1], [lon0, lat1], [lon0, lat0]]
    return {
        "type": "Feature",
        "properties": props,
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }


def _line(coords, **props):
    return {
        "type": "Feature",
        "properties": props,
        "geometry": {"type": "LineString", "coordinates": coords},
    }


def _point(lon, lat, **props):
    return {
        "type": "Feature",
        "properties": props,
        "geometry": {"type": "Point", "coordinates": [lon, lat]},
    }


@pytest.fixture
def source(tmp_path):
    """A tiny synthetic source folder with the layout of shared/geodata."""
    src = tmp_path / "geodata"
    (src / "dem").mkdir(parents=True)
    (src / "osm").mkdir()
    # SRTM tile: 100 m plain, a river valley at 50 m along lon 7.25, a 300 m hill
    n = 1201
    lon = 7 + np.arange(n) / (n - 1)
    lat = 51 - np.arange(n) / (n - 1)
    glon, glat = np.meshgrid(lon, lat)
    z = 100 + 50 * np.minimum(np.abs(glon - 7.25) / 0.01, 1) - 50
    z += 200 * np.exp(-(((glon - 7.28) / 0.01) ** 2 + ((glat - 50.58) / 0.006) ** 2))
    z.astype(">i2").tofile(src / "dem" / "N50E007.hgt")
    osm = src / "osm"
    osm.joinpath("osm_water.geojson").write_text(
        json.dumps(_fc([_poly(7.245, 50.45, 7.255, 50.65, **{"class": "river"})]))
    )
    osm.joinpath("osm_waterway.geojson").write_text(
        json.dumps(
            _fc(
                [
                    _line(
                        [[7.25, 50.45], [7.25, 50.65]],
                        **{"class": "river", "brunnel": None, "name:latin": "Rhein"},
                    ),
                    _line(
                        [[7.21, 50.55], [7.245, 50.55]],
                        **{"class": "stream", "brunnel": None, "name:latin": "Bach"},
                    ),
                ]
            )
        )
    )
    osm.joinpath("osm_landcover.geojson").write_text(
        json.dumps(
            _fc(
                [
                    _poly(
                        7.26,
                        50.52,
                        7.29,
                        50.54,
                        **{"class": "wood", "subclass": "forest"},
                    )
                ]
            )
        )
    )
    osm.joinpath("osm_landuse.geojson").write_text(
        json.dumps(_fc([_poly(7.21, 50.57, 7.23, 50.58, **{"class": "residential"})]))
    )
    osm.joinpath("osm_transportation.geojson").write_text(
        json.dumps(
            _fc(
                [
                    _line(
                        [[7.205, 50.56], [7.295, 50.56]],
                        **{"class": "primary", "brunnel": None},
                    ),
                    _line(
                        [[7.243, 50.56], [7.257, 50.56]],
                        **{"class": "primary", "brunnel": "bridge"},
                    ),
                    _line(
                        [[7.24, 50.53], [7.26, 50.53]],
                        **{"class": "ferry", "brunnel": None},
                    ),
                    _line(
                        [[7.22, 50.51], [7.22, 50.59]],
                        **{"class": "rail", "brunnel": None},
                    ),
                ]
            )
        )
    )
    osm.joinpath("osm_transportation_name.geojson").write_text(
        json.dumps(
            _fc(
                [
                    _line(
                        [[7.205, 50.56], [7.295, 50.56]],
                        **{"class": "primary", "ref": "B 9"},
                    )
                ]
            )
        )
    )
    osm.joinpath("osm_place.geojson").write_text(
        json.dumps(
            _fc(
                [
                    _point(7.22, 50.575, **{"class": "town", "name:latin": "Testburg"}),
                    _point(
                        7.27, 50.53, **{"class": "village", "name:latin": "Waldheim"}
                    ),
                ]
            )
        )
    )
    osm.joinpath("osm_mountain_peak.geojson").write_text(
        json.dumps(
            _fc(
                [
                    _point(
                        7.28,
                        50.58,
                        **{"class": "peak", "name:latin": "Testberg", "ele": 300.0},
                    )
                ]
            )
        )
    )
    return src


def test_build_from_synthetic_inputs_gives_the_right_hexes(
    source, tmp_path, monkeypatch
):
    out = tmp_path / "maps"
    params = BuildParams(name="testmap", lonlat_box=BOX)
    build_map(source, out, params, log=lambda s: None)
    folder = out / "testmap"
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["crs"] == "EPSG:32632"
    assert set(meta["sha256"]) >= {"dem.npz", "landcover.npz", "roads.geojson.gz"}
    monkeypatch.setenv("WARGAME_MAPS", str(out))
    assert "testmap" in wargame.available_maps()
    m = load_map("testmap")
    h = m.hexes
    assert h.loc[m.hex_at(lon=7.25, lat=50.51), "terrain"] == "water"
    assert h.loc[m.hex_at(lon=7.275, lat=50.53), "terrain"] == "woods"
    assert h.loc[m.hex_of_place("Testburg"), "terrain"] == "town"
    assert h.loc[m.hex_at(lon=7.275, lat=50.53), "place"] == "Waldheim"
    assert h.loc[m.hex_at(lon=7.21, lat=50.56), "road"] == "primary"
    assert h.loc[m.hex_at(lon=7.25, lat=50.56), "bridge"]
    assert h.loc[m.hex_at(lon=7.25, lat=50.53), "ferry"]
    assert h.loc[m.hex_at(lon=7.22, lat=50.55), "rail"]
    assert h.loc[m.hex_at(lon=7.23, lat=50.55), "river_crossing"]
    assert h.loc[m.hex_at(lon=7.23, lat=50.55), "waterway"] == "stream"
    # the DEM was reprojected, not invented: valley floor 50 m, hill ~300 m
    assert m.elevation(*m.to_xy(7.25, 50.52)) == pytest.approx(50, abs=4)
    peak = h.loc[m.hex_of_place("Testberg"), "elevation_max_m"]
    assert 280 < peak < 301


def test_build_is_deterministic(source, tmp_path):
    params = BuildParams(name="testmap", lonlat_box=BOX)
    a = build_map(source, tmp_path / "a", params, log=lambda s: None)
    b = build_map(source, tmp_path / "b", params, log=lambda s: None)
    for f in sorted(a.iterdir()):
        assert f.read_bytes() == (b / f.name).read_bytes(), f.name


def test_build_with_missing_input_writes_nothing(source, tmp_path):
    (source / REQUIRED_SOURCES["landcover"]).unlink()
    out = tmp_path / "maps"
    with pytest.raises(BuildError, match=r"missing osm/osm_landcover\.geojson"):
        build_map(source, out, BuildParams(name="testmap", lonlat_box=BOX))
    assert not (out / "testmap").exists()


def test_failed_rebuild_keeps_the_previous_map(source, tmp_path):
    out = tmp_path / "maps"
    params = BuildParams(name="testmap", lonlat_box=BOX)
    build_map(source, out, params, log=lambda s: None)
    before = {p.name: p.read_bytes() for p in (out / "testmap").iterdir()}
    (source / REQUIRED_SOURCES["place"]).write_text("{not json")
    with pytest.raises(BuildError, match="cannot read"):
        build_map(source, out, params, log=lambda s: None)
    after = {p.name: p.read_bytes() for p in (out / "testmap").iterdir()}
    assert before == after
    assert sorted(p.name for p in out.iterdir()) == ["testmap"]  # no leftovers


def test_cli_build_with_missing_source_exits_2_with_one_line(tmp_path, capsys):
    out = tmp_path / "maps"
    code = main(
        ["map", "build", "--source", str(tmp_path / "nowhere"), "--out", str(out)]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "does not exist" in err and "Traceback" not in err
    assert not out.exists() or not any(out.iterdir())


def test_cli_build_with_incomplete_source_names_what_is_missing(source, tmp_path):
    (source / REQUIRED_SOURCES["dem"]).unlink()
    out = tmp_path / "maps"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "wargame.cli",
            "map",
            "build",
            "--source",
            str(source),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0
    assert "missing dem/N50E007.hgt" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (out / "rhine-remagen").exists()


def test_cli_map_info(capsys):
    assert main(["map", "info"]) == 0
    out = capsys.readouterr().out
    assert "rhine-remagen" in out and "EPSG:32632" in out and "woods" in out


def test_unknown_map_lists_the_available_ones():
    with pytest.raises(
        ValueError, match=r"unknown map 'rhine'; available maps: .*rhine-remagen"
    ):
        load_map("rhine")


def test_hex_at_outside_the_map_names_the_bounds():
    m = load_map()
    with pytest.raises(
        ValueError,
        match=r"^Map.hex_at: lon, lat: \(8.5, 50.5\) is off the map; .*lon 7.101",
    ):
        m.hex_at(lon=8.5, lat=50.5)
    with pytest.raises(
        ValueError, match=r"^Map.hex_at_xy: x: 0 is off the map; .*x 365900"
    ):
        m.hex_at_xy(0, 0)


def test_bad_window_and_hex_size():
    with pytest.raises(ValueError, match="no place named 'Atlantis'"):
        load_map(window="Atlantis")
    with pytest.raises(ValueError, match="did you mean Remagen"):
        load_map(window="Remagn")
    with pytest.raises(ValueError, match="outside the map"):
        load_map(window=(0, 0, 1000, 1000))
    with pytest.raises(ValueError, match=r"^load_map: hex_size_m: 0 is out of range"):
        load_map(hex_size_m=0)


@pytest.fixture
def map_copy(tmp_path, monkeypatch):
    dst = tmp_path / "maps" / "rhine-remagen"
    shutil.copytree(REPO / "maps" / "rhine-remagen", dst)
    monkeypatch.setenv("WARGAME_MAPS", str(dst.parent))
    monkeypatch.setenv("WARGAME_CACHE", str(tmp_path / "cache"))
    return dst


def test_missing_map_file_is_named_with_how_to_rebuild(map_copy):
    (map_copy / "dem.npz").unlink()
    m = load_map()
    with pytest.raises(
        MapDataError, match=r"dem.npz is missing; rebuild it with `wargame map build`"
    ):
        _ = m.dem


def test_corrupt_map_file_is_named(map_copy):
    data = bytearray((map_copy / "landcover.npz").read_bytes())
    data[100:110] = b"0123456789"
    (map_copy / "landcover.npz").write_bytes(bytes(data))
    with pytest.raises(MapDataError, match=r"landcover.npz is damaged"):
        _ = load_map().hexes


def test_corrupt_metadata_is_named(map_copy):
    (map_copy / "metadata.json").write_text("{broken")
    with pytest.raises(MapDataError, match=r"metadata.json is damaged"):
        load_map()


def test_damaged_hex_cache_is_rebuilt_not_trusted(map_copy, tmp_path):
    h1 = load_map().hexes
    cached = list((tmp_path / "cache" / "hexes").glob("*.npz"))
    assert len(cached) == 1
    cached[0].write_bytes(b"garbage")
    h2 = load_map().hexes
    assert h1.equals(h2)
    # and the second load of a good cache gives the same frame
    assert load_map().hexes.equals(h1)
