"""Build a compact map folder from the raw SRTM and OpenStreetMap inputs.

``wargame map build`` calls :func:`build_map`. The inputs are the files listed in
``REQUIRED_SOURCES`` below (the layout of ``shared/geodata``); the output is a folder
such as ``maps/rhine-remagen/`` holding, all in UTM zone 32N metres:

* ``dem.npz``: elevation on a regular grid (decimetres, int16), bilinear from SRTM3;
* ``landcover.npz``: a 10 m raster of generic terrain classes (see ``TERRAIN_CLASSES``);
* ``*.geojson.gz``: simplified terrain polygons, roads by class, rail, waterways,
  water crossings (bridges, ferries), named places and peaks;
* ``metadata.json``: CRS, bounds, cell sizes, sources, build parameters, file hashes;
* ``README.md`` and ``LICENSE-DATA`` (ODbL notice for the OSM-derived data).

The build is deterministic: the same inputs give byte-identical files. It writes into a
temporary folder next to the target and swaps it in only when everything succeeded, so
a failed build leaves the previous map untouched.

Rasterising needs ``rasterio`` (``pip install wargame[build]``); loading a built map
does not.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from pyproj import Transformer
from shapely.geometry import mapping, shape

from wargame.geo.terrain import (
    CROSSING_CODES,
    ROAD_CLASSES,
    TERRAIN_CLASSES,
    WATERWAY_CLASSES,
)

UTM32N = "EPSG:32632"

# Files of shared/geodata this build reads (relative to the source folder).
REQUIRED_SOURCES: dict[str, str] = {
    "dem": "dem/N50E007.hgt",
    "water": "osm/osm_water.geojson",
    "waterway": "osm/osm_waterway.geojson",
    "landcover": "osm/osm_landcover.geojson",
    "landuse": "osm/osm_landuse.geojson",
    "transportation": "osm/osm_transportation.geojson",
    "transportation_name": "osm/osm_transportation_name.geojson",
    "place": "osm/osm_place.geojson",
    "peak": "osm/osm_mountain_peak.geojson",
}

ATTRIBUTION = (
    "Elevation: NASA SRTM (public domain). Map data © OpenStreetMap contributors, "
    "ODbL 1.0. Place names: GeoNames, CC BY 4.0."
)

# OSM (OpenMapTiles schema) class/subclass -> generic terrain class. Later entries in
# TERRAIN_BURN_ORDER overwrite earlier ones where polygons overlap.
# keys: (class, subclass); looked up with a feature's, either of which may be None
LANDCOVER_MAP: dict[tuple[str | None, str | None], str] = {
    ("wood", "forest"): "woods",
    ("wood", "wood"): "woods",
    ("wood", None): "woods",
    ("farmland", "orchard"): "orchard",
    ("farmland", "vineyard"): "orchard",
    ("farmland", "plant_nursery"): "orchard",
    ("grass", "park"): "park",
    ("grass", "allotments"): "park",
    ("grass", "garden"): "park",
    ("grass", "golf_course"): "park",
    ("grass", "recreation_ground"): "park",
    ("grass", "village_green"): "park",
    ("wetland", None): "wetland",
    ("wetland", "marsh"): "wetland",
    ("wetland", "swamp"): "wetland",
    ("wetland", "reedbed"): "wetland",
    ("wetland", "wet_meadow"): "wetland",
}
LANDUSE_MAP: dict[str, str] = {
    "residential": "town",
    "commercial": "town",
    "industrial": "town",
    "retail": "town",
    "railway": "town",
    "military": "town",
    "hospital": "town",
    "school": "town",
    "college": "town",
    "university": "town",
    "cemetery": "park",
    "stadium": "park",
    "pitch": "park",
    "playground": "park",
    "zoo": "park",
    "theme_park": "park",
}
TERRAIN_BURN_ORDER = ("park", "orchard", "wetland", "woods", "town", "water")

# OpenMapTiles transportation class -> generic road class (None: not kept).
ROAD_MAP: dict[str, str] = {
    "motorway": "motorway",
    "trunk": "primary",
    "primary": "primary",
    "secondary": "secondary",
    "tertiary": "tertiary",
    "minor": "minor",
    "track": "track",
}
PLACE_CLASSES = ("town", "village", "suburb", "hamlet")


class BuildError(Exception):
    """A map build cannot proceed; the message is one line for the user."""


@dataclass(frozen=True)
class BuildParams:
    """Parameters of a map build (stored in the map's metadata)."""

    name: str = "rhine-remagen"
    title: str = "Middle Rhine: Remagen – Linz – Andernach"
    lonlat_box: tuple[float, float, float, float] = (7.10, 50.40, 7.50, 50.70)
    dem_cell_m: float = 50.0
    landcover_cell_m: float = 10.0
    simplify_m: float = 5.0
    road_simplify_m: float = 3.0
    min_polygon_area_m2: float = 400.0
    coord_decimals: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def check_sources(source: Path) -> list[str]:
    """Return what is missing or empty in a source folder (empty list if complete)."""
    problems: list[str] = []
    if not source.is_dir():
        return [f"source folder {source} does not exist"]
    for rel in REQUIRED_SOURCES.values():
        p = source / rel
        if not p.is_file():
            problems.append(f"missing {rel}")
        elif p.stat().st_size == 0:
            problems.append(f"empty {rel}")
    return problems


# --------------------------------------------------------------------------- #
# helpers                                                                      #
# --------------------------------------------------------------------------- #


def _read_geojson(path: Path) -> list[dict[str, Any]]:
    try:
        with path.open(encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise BuildError(f"cannot read {path}: {exc}") from exc
    feats = data.get("features") if isinstance(data, dict) else None
    if not isinstance(feats, list):
        raise BuildError(f"{path} is not a GeoJSON FeatureCollection")
    return feats


def _project(geoms: np.ndarray, transformer: Transformer) -> np.ndarray:
    def fn(coords: np.ndarray) -> np.ndarray:
        x, y = transformer.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(geoms, fn)


def _round(geoms: np.ndarray, decimals: int) -> np.ndarray:
    return shapely.transform(geoms, lambda c: np.round(c, decimals))


def _name(props: dict[str, Any]) -> str | None:
    n = props.get("name:latin") or props.get("name")
    return str(n) if n else None


def _write_gz_geojson(
    path: Path, features: Iterable[dict[str, Any]], decimals: int
) -> None:
    fc = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32632"}},
        "features": list(features),
    }
    text = json.dumps(fc, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    buf = io.BytesIO()
    # mtime=0 and no file name in the header: byte-identical output for same input
    with gzip.GzipFile(
        filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9
    ) as gz:
        gz.write(text.encode("utf-8"))
    path.write_bytes(buf.getvalue())


def _feature(geom: shapely.Geometry, props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Feature", "properties": props, "geometry": mapping(geom)}


def _save_npz(path: Path, **arrays: np.ndarray) -> None:
    # np.savez_compressed stores zip entries with the current time: write through a
    # ZipFile with a fixed date so builds are byte-identical.
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[key]))
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, buf.getvalue(), compresslevel=9)


def _write_lines_npz(
    path: Path,
    layers: dict[str, tuple[list[dict[str, Any]], Callable[[dict[str, Any]], int]]],
) -> None:
    """Write line layers as flat arrays, for fast hex attributes.

    Per layer: vertex coordinates in whole decimetres (``<layer>.xy``), the first
    vertex of each part (``<layer>.start``, one entry more than parts) and a class
    code per part (``<layer>.code``).
    """
    arrays: dict[str, np.ndarray] = {}
    for name, (feats, code_of) in layers.items():
        xy: list[np.ndarray] = []
        codes: list[int] = []
        for f in feats:
            g = f["geometry"]
            parts = (
                [g["coordinates"]] if g["type"] == "LineString" else g["coordinates"]
            )
            if g["type"] not in ("LineString", "MultiLineString"):
                continue
            for part in parts:
                if len(part) >= 2:
                    xy.append(np.asarray(part, dtype=np.float64)[:, :2])
                    codes.append(code_of(f["properties"]))
        lengths = np.array([len(a) for a in xy], dtype=np.int64)
        arrays[f"{name}.xy"] = (
            np.round(np.concatenate(xy) * 10).astype(np.int64)
            if xy
            else np.zeros((0, 2), dtype=np.int64)
        )
        arrays[f"{name}.start"] = np.concatenate([[0], np.cumsum(lengths)])
        arrays[f"{name}.code"] = np.asarray(codes, dtype=np.int8)
    _save_npz(path, **arrays)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def utm_bounds_inside(
    lonlat_box: tuple[float, float, float, float], step_m: float = 100.0
) -> tuple[float, float, float, float]:
    """The largest UTM 32N rectangle (snapped inward to ``step_m``) in a lon/lat box.

    Examples:
        >>> b = utm_bounds_inside((7.10, 50.40, 7.50, 50.70))
        >>> [round(v / 1000, 1) for v in b]
        [365.9, 5584.9, 393.3, 5617.5]
    """
    lon0, lat0, lon1, lat1 = lonlat_box
    t = Transformer.from_crs("EPSG:4326", UTM32N, always_xy=True)
    n = 201
    lons = np.linspace(lon0, lon1, n)
    lats = np.linspace(lat0, lat1, n)
    wx, _ = t.transform(np.full(n, lon0), lats)
    ex, _ = t.transform(np.full(n, lon1), lats)
    _, sy = t.transform(lons, np.full(n, lat0))
    _, ny = t.transform(lons, np.full(n, lat1))
    xmin = math.ceil(float(np.max(wx)) / step_m) * step_m
    xmax = math.floor(float(np.min(ex)) / step_m) * step_m
    ymin = math.ceil(float(np.max(sy)) / step_m) * step_m
    ymax = math.floor(float(np.min(ny)) / step_m) * step_m
    return (xmin, ymin, xmax, ymax)


# --------------------------------------------------------------------------- #
# the build                                                                    #
# --------------------------------------------------------------------------- #


def read_hgt(path: Path) -> tuple[np.ndarray, tuple[float, float, float]]:
    """Read an SRTM ``.hgt`` tile.

    Returns:
        ``(elevation, (west, north, cell_deg))`` with elevation as float32 metres,
        rows from north to south, voids as NaN, and the lon/lat of the outer edge of
        the north-west cell.
    """
    raw = path.read_bytes()
    n = round(math.sqrt(len(raw) // 2))
    if n * n * 2 != len(raw) or n not in (1201, 3601):
        raise BuildError(
            f"{path} is not an SRTM tile: {len(raw)} bytes, expected 1201² or 3601²"
            " big-endian int16 values"
        )
    stem = path.stem.upper()
    try:
        lat = int(stem[1:3]) * (1 if stem[0] == "N" else -1)
        lon = int(stem[4:7]) * (1 if stem[3] == "E" else -1)
    except ValueError as exc:
        raise BuildError(f"{path}: cannot read the tile corner from its name") from exc
    z = np.frombuffer(raw, dtype=">i2").reshape(n, n).astype(np.float32)
    z[z <= -32767] = np.nan
    cell = 1.0 / (n - 1)
    # .hgt samples are cell centres on whole degrees: the NW sample is at (lon, lat+1)
    return z, (lon - cell / 2, lat + 1 + cell / 2, cell)


def build_map(
    source: Path,
    out_root: Path,
    params: BuildParams | None = None,
    log: Callable[[str], None] = print,
    post: Callable[[Path], dict[str, Any]] | None = None,
) -> Path:
    """Build a map folder from raw inputs; returns the folder written.

    ``post``, if given, is called with the finished (still temporary) folder before
    it is swapped in, may add files (e.g. the terrain picture) and returns entries to
    merge into ``metadata.json``; checksums then cover its files too.

    Raises:
        BuildError: if inputs are missing or unreadable (nothing is written then).
    """
    params = params or BuildParams()
    problems = check_sources(source)
    if problems:
        raise BuildError(
            f"source folder {source} is incomplete: " + "; ".join(problems)
        )
    try:
        import rasterio  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BuildError(
            "building a map needs rasterio: pip install 'wargame[build]'"
        ) from exc

    out_root.mkdir(parents=True, exist_ok=True)
    target = out_root / params.name
    tmp = Path(tempfile.mkdtemp(prefix=f".{params.name}.", dir=out_root))
    tmp.chmod(0o755)
    try:
        _build_into(source, tmp, params, log)
        if post is not None:
            extra = post(tmp)
            meta = json.loads((tmp / "metadata.json").read_text(encoding="utf-8"))
            meta.update(extra)
            _write_metadata(tmp, meta)
        if target.exists():
            old = out_root / f".{params.name}.old"
            if old.exists():
                shutil.rmtree(old)
            target.rename(old)
            tmp.rename(target)
            shutil.rmtree(old)
        else:
            tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _build_into(
    source: Path, out: Path, params: BuildParams, log: Callable[[str], None]
) -> None:
    from rasterio import features as rfeatures
    from rasterio.transform import from_origin
    from rasterio.warp import Resampling, reproject

    bounds = utm_bounds_inside(params.lonlat_box)
    xmin, ymin, xmax, ymax = bounds
    to_utm = Transformer.from_crs("EPSG:4326", UTM32N, always_xy=True)
    dec = params.coord_decimals

    # ---- DEM --------------------------------------------------------------- #
    log(f"DEM: {REQUIRED_SOURCES['dem']} -> {params.dem_cell_m:g} m UTM 32N grid")
    src_z, (west, north, cell_deg) = read_hgt(source / REQUIRED_SOURCES["dem"])
    dc = params.dem_cell_m
    dem_w = round((xmax - xmin) / dc)
    dem_h = round((ymax - ymin) / dc)
    dem = np.full((dem_h, dem_w), np.nan, dtype=np.float32)
    reproject(
        source=src_z,
        destination=dem,
        src_transform=from_origin(west, north, cell_deg, cell_deg),
        src_crs="EPSG:4326",
        src_nodata=np.nan,
        dst_transform=from_origin(xmin, ymax, dc, dc),
        dst_crs=UTM32N,
        dst_nodata=np.nan,
        resampling=Resampling.bilinear,
    )
    if np.isnan(dem).any():
        raise BuildError(
            f"the DEM has {int(np.isnan(dem).sum())} void cells inside the map box"
        )
    dem_dm = np.round(dem * 10.0).astype(np.int16)
    _save_npz(out / "dem.npz", elevation_dm=dem_dm)

    # ---- terrain polygons -> vector layer + 10 m raster --------------------- #
    log("terrain: woods, town, water, wetland, orchard, park")
    by_class: dict[str, list[shapely.Geometry]] = {c: [] for c in TERRAIN_BURN_ORDER}
    for ft in _read_geojson(source / REQUIRED_SOURCES["landcover"]):
        p = ft.get("properties") or {}
        cls = LANDCOVER_MAP.get((p.get("class"), p.get("subclass")))
        if cls and ft.get("geometry"):
            by_class[cls].append(shape(ft["geometry"]))
    for ft in _read_geojson(source / REQUIRED_SOURCES["landuse"]):
        p = ft.get("properties") or {}
        cls = LANDUSE_MAP.get(p.get("class") or "")
        if cls and ft.get("geometry"):
            by_class[cls].append(shape(ft["geometry"]))
    for ft in _read_geojson(source / REQUIRED_SOURCES["water"]):
        if ft.get("geometry"):
            by_class["water"].append(shape(ft["geometry"]))

    clip = shapely.box(xmin, ymin, xmax, ymax)
    lc = params.landcover_cell_m
    lc_w = round((xmax - xmin) / lc)
    lc_h = round((ymax - ymin) / lc)
    lc_transform = from_origin(xmin, ymax, lc, lc)
    landcover = np.zeros((lc_h, lc_w), dtype=np.uint8)  # 0 = clear
    terrain_feats: list[dict[str, Any]] = []
    stats: dict[str, Any] = {"terrain_km2": {}}
    for cls in TERRAIN_BURN_ORDER:
        geoms = np.array(by_class[cls], dtype=object)
        if len(geoms) == 0:
            continue
        geoms = shapely.make_valid(_project(geoms, to_utm))
        merged = shapely.intersection(shapely.union_all(geoms), clip)
        code = TERRAIN_CLASSES.index(cls)
        rfeatures.rasterize(
            [(merged, code)],
            out=landcover,
            transform=lc_transform,
            merge_alg=rfeatures.MergeAlg.replace,
        )
        simple = shapely.simplify(merged, params.simplify_m, preserve_topology=True)
        parts = [
            g
            for g in shapely.get_parts(simple)
            if g.geom_type == "Polygon" and g.area >= params.min_polygon_area_m2
        ]
        rounded = _round(np.array(parts, dtype=object), dec)
        parts = [g for g in shapely.make_valid(rounded) if not g.is_empty]
        parts.sort(key=lambda g: (round(g.bounds[0], 1), round(g.bounds[1], 1)))
        for g in parts:
            terrain_feats.append(_feature(g, {"class": cls}))
        area = float(shapely.area(merged)) / 1e6
        stats["terrain_km2"][cls] = round(area, 2)
        log(f"  {cls}: {len(parts)} polygons, {area:.1f} km²")
    _save_npz(out / "landcover.npz", terrain=landcover)
    _write_gz_geojson(out / "terrain.geojson.gz", terrain_feats, dec)

    # ---- waterways ------------------------------------------------------- #
    log("waterways")
    ww_feats: list[dict[str, Any]] = []
    ww_geoms: list[shapely.Geometry] = []
    for ft in _read_geojson(source / REQUIRED_SOURCES["waterway"]):
        p = ft.get("properties") or {}
        cls = p.get("class")
        if cls not in WATERWAY_CLASSES or p.get("brunnel") == "tunnel":
            continue
        g = _project(np.array([shape(ft["geometry"])], dtype=object), to_utm)[0]
        g = shapely.intersection(g, clip)
        if g.is_empty:
            continue
        g = _round(np.array([shapely.simplify(g, params.road_simplify_m)]), dec)[0]
        ww_geoms.append(g)
        ww_feats.append(_feature(g, {"class": cls, "name": _name(p)}))
    _write_gz_geojson(out / "waterways.geojson.gz", ww_feats, dec)
    water_union = shapely.union_all(
        [
            shape(f["geometry"])
            for f in terrain_feats
            if f["properties"]["class"] == "water"
        ]
    )
    waterway_union = shapely.union_all(ww_geoms)

    # ---- roads, rail, bridges, ferries ----------------------------------- #
    log("roads, rail, bridges, ferries")
    road_feats: list[dict[str, Any]] = []
    rail_feats: list[dict[str, Any]] = []
    crossing_feats: list[dict[str, Any]] = []
    for ft in _read_geojson(source / REQUIRED_SOURCES["transportation"]):
        p = ft.get("properties") or {}
        cls = p.get("class")
        geom = ft.get("geometry")
        if not geom or geom.get("type") not in ("LineString", "MultiLineString"):
            continue
        is_rail = cls == "rail"
        road_cls = ROAD_MAP.get(cls or "")
        if cls != "ferry" and not is_rail and road_cls is None:
            continue
        g = _project(np.array([shape(geom)], dtype=object), to_utm)[0]
        g = shapely.intersection(g, clip)
        if g.is_empty:
            continue
        g = _round(np.array([shapely.simplify(g, params.road_simplify_m)]), dec)[0]
        bridge = p.get("brunnel") == "bridge"
        tunnel = p.get("brunnel") == "tunnel"
        if cls == "ferry":
            crossing_feats.append(
                _feature(g, {"kind": "ferry", "crosses": "Rhein", "road": None})
            )
            continue
        props = {
            "class": "rail" if is_rail else road_cls,
            "bridge": bridge,
            "tunnel": tunnel,
        }
        (rail_feats if is_rail else road_feats).append(_feature(g, props))
        if bridge and (g.intersects(water_union) or g.intersects(waterway_union)):
            crosses = "Rhein" if _crosses_rhine(g, terrain_feats) else "stream"
            crossing_feats.append(
                _feature(
                    g,
                    {
                        "kind": "bridge",
                        "crosses": crosses,
                        "road": "rail" if is_rail else road_cls,
                    },
                )
            )

    def key(f: dict[str, Any]) -> tuple[Any, ...]:
        return (
            str(f["properties"]),
            json.dumps(f["geometry"]["coordinates"][:1], default=str),
        )

    road_feats.sort(key=key)
    rail_feats.sort(key=key)
    crossing_feats.sort(key=key)
    _write_gz_geojson(out / "roads.geojson.gz", road_feats, dec)
    _write_gz_geojson(out / "rail.geojson.gz", rail_feats, dec)
    _write_gz_geojson(out / "crossings.geojson.gz", crossing_feats, dec)

    def crossing_code(p: dict[str, Any]) -> int:
        if p["kind"] == "ferry":
            return CROSSING_CODES.index("ferry")
        rhine = p["crosses"] == "Rhein"
        return CROSSING_CODES.index("rhine_bridge" if rhine else "bridge")

    _write_lines_npz(
        out / "lines.npz",
        {
            "roads": (road_feats, lambda p: ROAD_CLASSES.index(p["class"])),
            "rail": (rail_feats, lambda p: 0),
            "waterways": (ww_feats, lambda p: WATERWAY_CLASSES.index(p["class"])),
            "crossings": (crossing_feats, crossing_code),
        },
    )
    n_br = sum(f["properties"]["kind"] == "bridge" for f in crossing_feats)
    n_fe = len(crossing_feats) - n_br
    stats.update(
        road_pieces=len(road_feats),
        rail_pieces=len(rail_feats),
        water_bridges=n_br,
        ferries=n_fe,
        rhine_bridges=sum(
            f["properties"]["crosses"] == "Rhein"
            and f["properties"]["kind"] == "bridge"
            for f in crossing_feats
        ),
    )
    log(
        f"  {len(road_feats)} road pieces, {len(rail_feats)} rail, "
        f"{n_br} water bridges, {n_fe} ferries"
    )

    # road names (refs) as their own layer, for labels
    name_feats: list[dict[str, Any]] = []
    for ft in _read_geojson(source / REQUIRED_SOURCES["transportation_name"]):
        p = ft.get("properties") or {}
        if not ft.get("geometry"):
            continue
        nm, ref = _name(p), p.get("ref")
        if not (nm or ref):
            continue
        g = _project(np.array([shape(ft["geometry"])], dtype=object), to_utm)[0]
        g = shapely.intersection(g, clip)
        if g.is_empty:
            continue
        g = _round(np.array([shapely.simplify(g, 10.0)]), dec)[0]
        name_feats.append(
            _feature(g, {"class": p.get("class"), "name": nm, "ref": ref})
        )
    name_feats.sort(key=key)
    _write_gz_geojson(out / "road_names.geojson.gz", name_feats, dec)

    # ---- places and peaks ---------------------------------------------------- #
    log("places and peaks")
    place_feats: list[dict[str, Any]] = []
    for ft in _read_geojson(source / REQUIRED_SOURCES["place"]):
        p = ft.get("properties") or {}
        nm = _name(p)
        if p.get("class") not in PLACE_CLASSES or not nm:
            continue
        lon, lat = ft["geometry"]["coordinates"][:2]
        x, y = to_utm.transform(lon, lat)
        if not (xmin <= x <= xmax and ymin <= y <= ymax):
            continue
        place_feats.append(
            {
                "type": "Feature",
                "properties": {"class": p["class"], "name": nm},
                "geometry": {
                    "type": "Point",
                    "coordinates": [round(x, dec), round(y, dec)],
                },
            }
        )
    place_feats.sort(
        key=lambda f: (f["properties"]["name"], f["geometry"]["coordinates"])
    )
    _write_gz_geojson(out / "places.geojson.gz", place_feats, dec)
    peak_feats: list[dict[str, Any]] = []
    for ft in _read_geojson(source / REQUIRED_SOURCES["peak"]):
        p = ft.get("properties") or {}
        lon, lat = ft["geometry"]["coordinates"][:2]
        x, y = to_utm.transform(lon, lat)
        if not (xmin <= x <= xmax and ymin <= y <= ymax):
            continue
        ele = p.get("ele")
        peak_feats.append(
            {
                "type": "Feature",
                "properties": {"name": _name(p), "ele": float(ele) if ele else None},
                "geometry": {
                    "type": "Point",
                    "coordinates": [round(x, dec), round(y, dec)],
                },
            }
        )
    peak_feats.sort(
        key=lambda f: (str(f["properties"]["name"]), f["geometry"]["coordinates"])
    )
    _write_gz_geojson(out / "peaks.geojson.gz", peak_feats, dec)

    # ---- metadata, README, licence ------------------------------------------ #
    meta = {
        "format": "wargame-map",
        "format_version": 1,
        "name": params.name,
        "title": params.title,
        "crs": UTM32N,
        "bounds": [xmin, ymin, xmax, ymax],
        "lonlat_box": list(params.lonlat_box),
        "dem": {
            "file": "dem.npz",
            "array": "elevation_dm",
            "scale": 0.1,
            "cell_m": dc,
            "shape": [dem_h, dem_w],
            "origin": [xmin, ymax],
            "vertical_datum": "EGM96 geoid (SRTM)",
        },
        "landcover": {
            "file": "landcover.npz",
            "array": "terrain",
            "cell_m": lc,
            "shape": [lc_h, lc_w],
            "origin": [xmin, ymax],
            "classes": list(TERRAIN_CLASSES),
        },
        "layers": {
            "terrain": "terrain.geojson.gz",
            "waterways": "waterways.geojson.gz",
            "roads": "roads.geojson.gz",
            "rail": "rail.geojson.gz",
            "crossings": "crossings.geojson.gz",
            "road_names": "road_names.geojson.gz",
            "places": "places.geojson.gz",
            "peaks": "peaks.geojson.gz",
        },
        "road_classes": list(ROAD_CLASSES),
        "lines": {
            "file": "lines.npz",
            "scale": 0.1,
            "crossing_codes": list(CROSSING_CODES),
        },
        "sources": dict(REQUIRED_SOURCES.items()),
        "attribution": ATTRIBUTION,
        "build": {k: v for k, v in asdict(params).items() if k != "extra"},
        "stats": {
            **stats,
            "places": len(place_feats),
            "peaks": len(peak_feats),
            "elevation_m": [round(float(dem.min()), 1), round(float(dem.max()), 1)],
        },
    }
    (out / "LICENSE-DATA").write_text(LICENSE_TEXT, encoding="utf-8")
    (out / "README.md").write_text(_readme(meta), encoding="utf-8")
    _write_metadata(out, meta)


def _write_metadata(out: Path, meta: dict[str, Any]) -> None:
    files = sorted(
        p.name for p in out.iterdir() if p.is_file() and p.name != "metadata.json"
    )
    meta["sha256"] = {f: _sha256(out / f) for f in files}
    (out / "metadata.json").write_text(
        json.dumps(meta, indent=2, ensure_ascii=False, sort_keys=True) + "\n",
        encoding="utf-8",
    )


def _readme(meta: dict[str, Any]) -> str:
    xmin, ymin, xmax, ymax = meta["bounds"]
    st = meta["stats"]
    terr = "\n".join(
        f"| {c} | {st['terrain_km2'].get(c, 0.0):.1f} |" for c in TERRAIN_BURN_ORDER
    )
    b = meta["build"]
    w_km, h_km = (xmax - xmin) / 1000, (ymax - ymin) / 1000
    return f"""# Map `{meta["name"]}`: {meta["title"]}

Built by `wargame map build` from the raw inputs in `shared/geodata` (SRTM3 v2.1
tile N50E007 and an OpenStreetMap extract of 2021-08, OpenMapTiles schema). Do not
edit these files by hand: rebuild them.

- **Area**: UTM zone 32N (EPSG:32632), x {xmin:.0f}–{xmax:.0f} m, y
  {ymin:.0f}–{ymax:.0f} m, i.e. {w_km:.1f} km × {h_km:.1f} km: the largest UTM
  rectangle inside lon
  {meta["lonlat_box"][0]}–{meta["lonlat_box"][2]} E, lat
  {meta["lonlat_box"][1]}–{meta["lonlat_box"][3]} N. Both banks of the Rhine from
  Königswinter / Bad Honnef (north) past Remagen, Linz, Sinzig and Bad Breisig to
  Andernach and Neuwied (south); the Ahr valley (west); Siebengebirge and Westerwald
  edge (east).
- **Elevation** (`dem.npz`): SRTM3 resampled bilinearly to a {b["dem_cell_m"]:g} m
  grid, stored in decimetres; {st["elevation_m"][0]:.0f}–{st["elevation_m"][1]:.0f}
  m above the EGM96 geoid. SRTM3 smooths summits: sharp peaks read 10–30 m below
  their surveyed height.
- **Terrain** (`landcover.npz`, a {b["landcover_cell_m"]:g} m class raster, and
  `terrain.geojson.gz`, polygons simplified by {b["simplify_m"]:g} m, parts under
  {b["min_polygon_area_m2"]:g} m² dropped). Generic classes, later ones drawn over
  earlier:

  | class | km² | made from OSM |
  |---|---|---|
{_indent_table(terr)}

  `clear` is everything else (farmland, meadow, grass, unmapped).
- **Roads** (`roads.geojson.gz`): motorway, primary (incl. trunk), secondary,
  tertiary, minor, track; `bridge`/`tunnel` flags; {st["road_pieces"]} pieces.
  Paths, service roads and footways are left out. **Rail**: `rail.geojson.gz`.
- **Waterways** (`waterways.geojson.gz`): river, canal and stream lines (tunnelled
  parts left out). **Crossings** (`crossings.geojson.gz`): {st["water_bridges"]}
  road/rail bridges over water ({st["rhine_bridges"]} pieces of the one Rhine
  bridge, the B 256 Raiffeisenbrücke at Neuwied) and {st["ferries"]} Rhine ferries.
- **Names**: {st["places"]} places (towns, villages, suburbs, hamlets) and
  {st["peaks"]} peaks with heights (`places.geojson.gz`, `peaks.geojson.gz`); road
  names and refs (`road_names.geojson.gz`).
- **Picture** (`terrain.png`): hillshade, terrain colours, water, roads, rail and
  names in Web Mercator rows for `ipyleaflet.ImageOverlay`; the map looks like a map
  offline.
- `metadata.json`: CRS, bounds, grids, sources, build parameters and SHA-256
  checksums that the loader verifies.

GeoJSON files here carry coordinates in UTM 32N metres (a `crs` member says so), not
WGS84.

## Licences
{ATTRIBUTION} The OSM-derived files are a derived database under the ODbL 1.0
(share-alike): see `LICENSE-DATA`.
"""


_TERRAIN_SOURCES = {
    "park": "parks, gardens, allotments, cemeteries, pitches",
    "orchard": "orchards, vineyards, plant nurseries",
    "wetland": "wetland, marsh, swamp, reedbed",
    "woods": "forest, wood",
    "town": "residential, commercial, industrial, retail, railway land",
    "water": "rivers, lakes, riverbanks",
}


def _indent_table(rows: str) -> str:
    out = []
    for line in rows.splitlines():
        cls = line.split("|")[1].strip()
        out.append(f"  {line} {_TERRAIN_SOURCES.get(cls, '')} |")
    return "\n".join(out)


def _crosses_rhine(g: shapely.Geometry, terrain_feats: list[dict[str, Any]]) -> bool:
    for f in terrain_feats:
        if f["properties"]["class"] != "water":
            continue
        poly = shape(f["geometry"])
        # a Rhine crossing spans the big river polygon (the Rhine is ~300 m wide
        # here); bridges over harbours or side arms touch it only briefly
        if poly.area > 5e6 and g.intersection(poly).length > 150.0:
            return True
    return False


LICENSE_TEXT = """\
Licences of the data in this map folder
=======================================

Elevation (dem.npz): derived from NASA SRTM3 v2.1 (public domain).

Terrain polygons, land-cover raster, roads, rail, waterways, crossings, places and
peaks (terrain.geojson.gz, landcover.npz, roads.geojson.gz, rail.geojson.gz,
waterways.geojson.gz, crossings.geojson.gz, road_names.geojson.gz, places.geojson.gz,
peaks.geojson.gz): derived from OpenStreetMap data.
© OpenStreetMap contributors. This derived database is made available under the
Open Database License (ODbL) 1.0: https://opendatacommons.org/licenses/odbl/1-0/
You are free to copy, distribute, transmit and adapt it, as long as you credit
OpenStreetMap and its contributors. If you alter or build upon it, you may distribute
the result only under the same licence.

The terrain picture (terrain.png) is a produced work made from the above.
Attribution: Elevation: NASA SRTM (public domain). Map data © OpenStreetMap
contributors, ODbL 1.0. Place names: GeoNames, CC BY 4.0.
"""
