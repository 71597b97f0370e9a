"""Loading maps: elevation, terrain layers and the hex grid with its attributes.

A map folder (see :mod:`wargame.geo.build`) lives under ``maps/`` in a checkout or
in the installed package. :func:`load_map` returns a :class:`Map` in UTM zone 32N
metres; WGS84 longitude/latitude appear only in ``to_lonlat``/``to_xy`` and the
``lon``/``lat`` columns of :attr:`Map.hexes`.

Examples:
    >>> import wargame
    >>> m = wargame.load_map("rhine-remagen")
    >>> m.hex_at(lon=7.2287, lat=50.5792) == m.hex_of_place("Remagen")
    True
    >>> m.hexes.loc[m.hex_of_place("Remagen"), "terrain"]
    'town'
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd
import shapely
from pyproj import Transformer

from wargame.geo.hexgrid import HexGrid
from wargame.geo.raster import RasterGrid, bilinear, nearest
from wargame.geo.terrain import ROAD_CLASSES, TERRAIN_CLASSES, WATERWAY_CLASSES

if TYPE_CHECKING:  # pragma: no cover
    import geopandas as gpd

# Bump when the hex-attribute computation changes: old cache entries are ignored.
HEX_ATTR_VERSION = 4
DEFAULT_WINDOW_M = (4000.0, 3000.0)
REBUILD_HINT = (
    "rebuild it with `wargame map build` (needs the raw inputs in shared/geodata)"
)


class MapDataError(ValueError):
    """A map file is missing, damaged, or not a wargame map."""


# --------------------------------------------------------------------------- #
# Where maps live                                                             #
# --------------------------------------------------------------------------- #


def maps_dirs() -> list[Path]:
    """Folders searched for maps, in order.

    ``$WARGAME_MAPS`` (``os.pathsep``-separated) first, then ``maps/`` of the source
    checkout this package was imported from, then the copy inside an installed wheel.
    """
    out: list[Path] = []
    env = os.environ.get("WARGAME_MAPS")
    if env:
        out += [Path(p) for p in env.split(os.pathsep) if p]
    pkg = Path(__file__).resolve().parents[1]
    out += [pkg.parent / "maps", pkg / "_data" / "maps"]
    return [p for p in out if p.is_dir()]


def available_maps() -> list[str]:
    """Names of the maps that can be loaded.

    Examples:
        >>> "rhine-remagen" in available_maps()
        True
    """
    names: set[str] = set()
    for d in maps_dirs():
        names.update(p.parent.name for p in d.glob("*/metadata.json"))
    return sorted(names)


def _find_map(name: str) -> Path:
    for d in maps_dirs():
        if (d / name / "metadata.json").is_file() or (d / name).is_dir():
            return d / name
    avail = available_maps()
    raise ValueError(
        f"unknown map {name!r}; available maps: {', '.join(avail) or '(none found)'}"
    )


def cache_dir() -> Path:
    """Per-user cache folder (``$WARGAME_CACHE`` or the platform's cache dir)."""
    env = os.environ.get("WARGAME_CACHE")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("wargame"))


# --------------------------------------------------------------------------- #
# Window                                                                      #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Window:
    """A rectangular cut of a map: around a named place or an explicit bbox.

    Examples:
        >>> Window(place="Remagen").width_m
        4000.0
    """

    place: str | None = None
    bbox: tuple[float, float, float, float] | None = None
    width_m: float = DEFAULT_WINDOW_M[0]
    height_m: float = DEFAULT_WINDOW_M[1]
    lonlat: bool = False

    @classmethod
    def coerce(cls, value: Any) -> Window | None:
        """Accept a Window, a place name, a bbox tuple or a mapping."""
        if value is None or isinstance(value, Window):
            return value
        if isinstance(value, str):
            return cls(place=value)
        if isinstance(value, dict):
            bbox = value.get("bbox")
            return cls(
                place=value.get("place"),
                bbox=tuple(bbox) if bbox is not None else None,  # type: ignore[arg-type]
                width_m=float(value.get("width_m", DEFAULT_WINDOW_M[0])),
                height_m=float(value.get("height_m", DEFAULT_WINDOW_M[1])),
                lonlat=bool(value.get("lonlat", False)),
            )
        if isinstance(value, Sequence) and len(value) == 4:
            return cls(bbox=tuple(float(v) for v in value))  # type: ignore[arg-type]
        raise ValueError(
            f"window must be a place name, a (xmin, ymin, xmax, ymax) bbox in metres, "
            f"a dict or a Window, not {value!r}"
        )


# --------------------------------------------------------------------------- #
# Loading helpers                                                             #
# --------------------------------------------------------------------------- #


def _read_checked(folder: Path, fname: str, meta: dict[str, Any]) -> bytes:
    path = folder / fname
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MapDataError(f"map file {path} is missing; {REBUILD_HINT}") from None
    expected = meta.get("sha256", {}).get(fname)
    if expected and hashlib.sha256(data).hexdigest() != expected:
        raise MapDataError(
            f"map file {path} is damaged (checksum mismatch); {REBUILD_HINT}"
        )
    return data


def _load_npz(folder: Path, fname: str, key: str, meta: dict[str, Any]) -> np.ndarray:
    import io

    data = _read_checked(folder, fname, meta)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return np.asarray(z[key])
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise MapDataError(
            f"map file {folder / fname} is unreadable ({exc}); {REBUILD_HINT}"
        ) from exc


def _load_geojson(
    folder: Path, fname: str, meta: dict[str, Any]
) -> tuple[list[dict[str, Any]], npt.NDArray[np.object_]]:
    """A layer file's feature properties and its geometries (shapely, same order)."""
    data = _read_checked(folder, fname, meta)
    try:
        text = gzip.decompress(data) if fname.endswith(".gz") else data
        feats = json.loads(text)["features"]
        props = [dict(f.get("properties") or {}) for f in feats]
        # GEOS reads the whole collection at once, far faster than one by one
        geoms = np.asarray(shapely.from_geojson(text).geoms, dtype=object)
        if len(geoms) != len(feats):  # pragma: no cover - empty geometries
            geoms = np.asarray(
                [shapely.from_geojson(json.dumps(f["geometry"])) for f in feats],
                dtype=object,
            )
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        shapely.errors.GEOSException,
    ) as exc:
        raise MapDataError(
            f"map file {folder / fname} is unreadable ({exc}); {REBUILD_HINT}"
        ) from exc
    return props, geoms


def densify(
    xy: npt.NDArray[np.float64], start: npt.NDArray[np.int64], spacing_m: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Points every ``spacing_m`` (or closer) along polylines; vectorised.

    Args:
        xy: vertices of all parts, concatenated, shape (n, 2).
        start: index of each part's first vertex, plus ``n`` at the end.
        spacing_m: the largest gap between consecutive points.

    Returns:
        ``(points, part)``: the points (vertices included) and the part of each.

    Examples:
        >>> import numpy as np
        >>> pts, part = densify(np.array([[0.0, 0], [10, 0]]), np.array([0, 2]), 4.0)
        >>> np.round(pts[:, 0], 2).tolist(), part.tolist()
        ([0.0, 3.33, 6.67, 10.0], [0, 0, 0, 0])
    """
    n_parts = len(start) - 1
    if n_parts <= 0:
        return np.zeros((0, 2)), np.zeros(0, dtype=np.int64)
    part_of_vertex = np.repeat(np.arange(n_parts), np.diff(start))
    # segments join consecutive vertices of the same part
    same = part_of_vertex[1:] == part_of_vertex[:-1]
    a = xy[:-1][same]
    d = xy[1:][same] - a
    seg_part = part_of_vertex[:-1][same]
    k = np.maximum(np.ceil(np.hypot(d[:, 0], d[:, 1]) / spacing_m), 1).astype(np.int64)
    seg = np.repeat(np.arange(len(a)), k)
    t = (np.arange(len(seg)) - np.repeat(np.cumsum(k) - k, k)) / k[seg]
    pts = a[seg] + d[seg] * t[:, None]
    # add the last vertex of every part
    last = start[1:] - 1
    pts = np.concatenate([pts, xy[last]])
    part = np.concatenate([seg_part[seg], np.arange(n_parts)])
    return pts, part


# --------------------------------------------------------------------------- #
# The map                                                                     #
# --------------------------------------------------------------------------- #


class Map:
    """A built map: DEM, terrain, hex grid and per-hex attributes, in UTM 32N metres.

    Create it with :func:`load_map`.
    """

    def __init__(
        self,
        folder: Path,
        meta: dict[str, Any],
        hex_size_m: float = 150.0,
        window: Window | None = None,
    ) -> None:
        self.folder = folder
        self.meta = meta
        self.name: str = meta["name"]
        self.title: str = meta.get("title", self.name)
        self.crs: str = meta["crs"]
        self.hex_size_m = float(hex_size_m)
        self.window = window
        full = tuple(float(v) for v in meta["bounds"])
        self.full_bounds: tuple[float, float, float, float] = full  # type: ignore[assignment]
        self.bounds: tuple[float, float, float, float] = (
            self._window_bounds(window) if window is not None else self.full_bounds
        )
        self.grid = HexGrid.covering(self.bounds, self.hex_size_m)

    # -- coordinates -------------------------------------------------------- #
    @cached_property
    def _to_utm(self) -> Transformer:
        return Transformer.from_crs("EPSG:4326", self.crs, always_xy=True)

    @cached_property
    def _to_wgs84(self) -> Transformer:
        return Transformer.from_crs(self.crs, "EPSG:4326", always_xy=True)

    def to_xy(self, lon: npt.ArrayLike, lat: npt.ArrayLike) -> tuple[Any, Any]:
        """WGS84 longitude/latitude to map metres (vectorised).

        Examples:
            >>> m = load_map()
            >>> x, y = m.to_xy(7.25, 50.585)
            >>> round(x), round(y)
            (376115, 5605139)
        """
        return self._to_utm.transform(lon, lat)

    def to_lonlat(self, x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[Any, Any]:
        """Map metres to WGS84 longitude/latitude (vectorised)."""
        return self._to_wgs84.transform(x, y)

    def to_lonlat_geometry(self, geom: shapely.Geometry) -> shapely.Geometry:
        """Reproject a shapely geometry from map metres to lon/lat (for Leaflet)."""

        def fn(c: np.ndarray) -> np.ndarray:
            lon, lat = self._to_wgs84.transform(c[:, 0], c[:, 1])
            return np.column_stack([lon, lat])

        return shapely.transform(geom, fn)

    @property
    def lonlat_bounds(self) -> tuple[float, float, float, float]:
        """``(west, south, east, north)`` of the map's bounds in degrees."""
        xmin, ymin, xmax, ymax = self.bounds
        xs = np.array([xmin, xmax, xmin, xmax])
        ys = np.array([ymin, ymin, ymax, ymax])
        lon, lat = self.to_lonlat(xs, ys)
        return (float(lon.min()), float(lat.min()), float(lon.max()), float(lat.max()))

    def contains_xy(self, x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Whether points lie inside the map's bounds."""
        xmin, ymin, xmax, ymax = self.bounds
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return (x >= xmin) & (x <= xmax) & (y >= ymin) & (y <= ymax)

    def _bounds_text(self) -> str:
        xmin, ymin, xmax, ymax = self.bounds
        w, s, e, n = self.lonlat_bounds
        return (
            f"map {self.name!r} bounds: x {xmin:.0f}–{xmax:.0f} m, "
            f"y {ymin:.0f}–{ymax:.0f}"
            f" m (UTM 32N); about lon {w:.3f}–{e:.3f}, lat {s:.3f}–{n:.3f}"
        )

    # -- rasters ------------------------------------------------------------ #
    @cached_property
    def _full_dem(self) -> tuple[npt.NDArray[np.float32], RasterGrid]:
        d = self.meta["dem"]
        raw = _load_npz(self.folder, d["file"], d["array"], self.meta)
        z = raw.astype(np.float32) * np.float32(d.get("scale", 1.0))
        x0, y0 = d["origin"]
        g = RasterGrid(float(x0), float(y0), float(d["cell_m"]), *z.shape)
        return z, g

    @cached_property
    def _dem(self) -> tuple[npt.NDArray[np.float32], RasterGrid]:
        z, g = self._full_dem
        if self.window is None:
            return z, g
        sub, (rs, cs) = g.window(self.bounds)
        return np.ascontiguousarray(z[rs, cs]), sub

    @property
    def dem(self) -> npt.NDArray[np.float32]:
        """Elevation raster in metres (rows north to south), see :attr:`dem_grid`."""
        return self._dem[0]

    @property
    def dem_grid(self) -> RasterGrid:
        """Geometry of :attr:`dem`."""
        return self._dem[1]

    @cached_property
    def _landcover(self) -> tuple[npt.NDArray[np.uint8], RasterGrid]:
        d = self.meta["landcover"]
        a = _load_npz(self.folder, d["file"], d["array"], self.meta).astype(np.uint8)
        x0, y0 = d["origin"]
        g = RasterGrid(float(x0), float(y0), float(d["cell_m"]), *a.shape)
        if self.window is not None:
            g, (rs, cs) = g.window(self.bounds)
            a = np.ascontiguousarray(a[rs, cs])
        return a, g

    @property
    def landcover(self) -> npt.NDArray[np.uint8]:
        """Terrain-class raster (codes index ``TERRAIN_CLASSES``).

        Its geometry is :attr:`landcover_grid`.
        """
        return self._landcover[0]

    @property
    def landcover_grid(self) -> RasterGrid:
        """Geometry of :attr:`landcover`."""
        return self._landcover[1]

    def elevation(self, x: npt.ArrayLike, y: npt.ArrayLike) -> Any:
        """Ground elevation (m, bilinear) at map coordinates; vectorised.

        Examples:
            >>> m = load_map()
            >>> 180 < m.elevation(*m.to_xy(7.25, 50.585)) < 220  # Erpeler Ley
            True
        """
        z, g = self._full_dem
        out = bilinear(z, g, x, y)
        return float(out) if out.ndim == 0 else out

    def terrain_at(self, x: npt.ArrayLike, y: npt.ArrayLike) -> Any:
        """Generic terrain class (str) at map coordinates; vectorised."""
        a, g = self._landcover
        codes = nearest(a, g, x, y)
        names = np.asarray(TERRAIN_CLASSES, dtype=object)[codes]
        return str(names) if np.ndim(names) == 0 else names

    # -- vector layers -------------------------------------------------------- #
    def layer(self, layer: str) -> pd.DataFrame:
        """A vector layer as a DataFrame with a shapely ``geometry`` column.

        Layers: ``terrain``, ``roads``, ``rail``, ``waterways``, ``crossings``,
        ``road_names``, ``places``, ``peaks``.
        """
        if layer not in self.meta["layers"]:
            raise ValueError(
                f"unknown layer {layer!r}; layers: {', '.join(self.meta['layers'])}"
            )
        return self._layer_frames(layer)

    def _layer_frames(self, layer: str) -> pd.DataFrame:
        cache = self.__dict__.setdefault("_layer_cache", {})
        if layer not in cache:
            props, geoms = _load_geojson(
                self.folder, self.meta["layers"][layer], self.meta
            )
            if self.window is not None:  # clipped to the window's bounds
                box = shapely.box(*self.bounds)
                keep = np.flatnonzero(shapely.intersects(geoms, box))
                props = [props[i] for i in keep]
                geoms = shapely.intersection(geoms[keep], box)
            df = pd.DataFrame(props, index=pd.RangeIndex(len(props)))
            df["geometry"] = list(geoms)
            cache[layer] = df
        return cache[layer]

    def _lines(
        self, layer: str
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int8]]:
        """A line layer as flat arrays ``(xy, start, code)`` (see ``lines.npz``)."""
        cache = self.__dict__.setdefault("_lines_cache", {})
        if not cache:
            import io

            info = self.meta["lines"]
            data = _read_checked(self.folder, info["file"], self.meta)
            try:
                with np.load(io.BytesIO(data), allow_pickle=False) as z:
                    for k in z.files:
                        cache[k] = z[k]
            except (zipfile.BadZipFile, ValueError, OSError) as exc:
                raise MapDataError(
                    f"map file {self.folder / info['file']} is unreadable ({exc}); "
                    f"{REBUILD_HINT}"
                ) from exc
            for k in list(cache):
                if k.endswith(".xy"):
                    cache[k] = cache[k] * float(info.get("scale", 1.0))
        try:
            return cache[f"{layer}.xy"], cache[f"{layer}.start"], cache[f"{layer}.code"]
        except KeyError:
            raise MapDataError(
                f"map file {self.folder / self.meta['lines']['file']} lacks the layer "
                f"{layer!r}; {REBUILD_HINT}"
            ) from None

    @cached_property
    def terrain_polygons(self) -> dict[str, shapely.Geometry]:
        """Terrain class -> one (Multi)Polygon of that class (map metres)."""
        df = self.layer("terrain")
        return {
            str(c): shapely.union_all(g.to_numpy())
            for c, g in df.groupby("class")["geometry"]
        }

    @cached_property
    def places(self) -> pd.DataFrame:
        """Named places and peaks: ``name``, ``class``, ``x``, ``y``, ``ele``."""
        pl = self.layer("places")
        pk = self.layer("peaks")
        rows = [
            {
                "name": r["name"],
                "class": r["class"],
                "ele": np.nan,
                "x": r["geometry"].x,
                "y": r["geometry"].y,
            }
            for _, r in pl.iterrows()
        ] + [
            {
                "name": r["name"],
                "class": "peak",
                "ele": r["ele"],
                "x": r["geometry"].x,
                "y": r["geometry"].y,
            }
            for _, r in pk.iterrows()
            if isinstance(r["name"], str) and r["name"]
        ]
        return pd.DataFrame(rows, columns=["name", "class", "x", "y", "ele"])

    def place_xy(self, name: str) -> tuple[float, float]:
        """Map coordinates of a named place or peak (case-insensitive).

        Raises:
            ValueError: if no place has that name (with close matches).
        """
        return self._place_xy(self.places, name)

    def _place_xy(self, places: pd.DataFrame, name: str) -> tuple[float, float]:
        key = name.strip().casefold()
        hit = places[places["name"].str.casefold() == key]
        if hit.empty:
            import difflib

            close = difflib.get_close_matches(
                name, places["name"].dropna().tolist(), n=3
            )
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"no place named {name!r} on map {self.name!r}{hint}")
        # prefer towns over villages etc. when a name repeats
        order = {"town": 0, "suburb": 1, "village": 2, "peak": 3, "hamlet": 4}
        hit = hit.assign(_o=hit["class"].map(order).fillna(9)).sort_values("_o")
        return float(hit.iloc[0]["x"]), float(hit.iloc[0]["y"])

    def hex_of_place(self, name: str) -> str:
        """Label of the hex holding a named place or peak."""
        return self.hex_at_xy(*self.place_xy(name))

    # -- window --------------------------------------------------------------- #
    def _window_bounds(self, w: Window) -> tuple[float, float, float, float]:
        if w.bbox is not None:
            xmin, ymin, xmax, ymax = w.bbox
            if w.lonlat:
                t = Transformer.from_crs("EPSG:4326", self.crs, always_xy=True)
                xs, ys = t.transform([xmin, xmax, xmin, xmax], [ymin, ymin, ymax, ymax])
                xmin, xmax, ymin, ymax = min(xs), max(xs), min(ys), max(ys)
        elif w.place is not None:
            full_map = Map(self.folder, self.meta, self.hex_size_m)
            cx, cy = full_map.place_xy(w.place)
            xmin, xmax = cx - w.width_m / 2, cx + w.width_m / 2
            ymin, ymax = cy - w.height_m / 2, cy + w.height_m / 2
        else:
            raise ValueError("a window needs a place or a bbox")
        fx0, fy0, fx1, fy1 = self.full_bounds
        if not (xmin < xmax and ymin < ymax):
            raise ValueError(f"window bbox {w.bbox} is empty")
        cut = (max(xmin, fx0), max(ymin, fy0), min(xmax, fx1), min(ymax, fy1))
        if cut[0] >= cut[2] or cut[1] >= cut[3]:
            raise ValueError(
                f"window {(xmin, ymin, xmax, ymax)} lies outside the map "
                f"(bounds {self.full_bounds})"
            )
        return cut

    # -- hexes ---------------------------------------------------------------- #
    def hex_at_xy(self, x: float, y: float) -> str:
        """Label of the hex containing a point in map metres.

        Raises:
            ValueError: if the point is outside the map (the message names the
                bounds).
        """
        idx = int(self.grid.index_at_xy(x, y))
        if idx < 0 or not bool(self.contains_xy(x, y)):
            raise ValueError(
                f"point ({x:.0f}, {y:.0f}) is outside the hex grid; "
                f"{self._bounds_text()}"
            )
        q, r = self.grid.axial_of_index(idx)
        return self.grid.label_of(int(q), int(r))

    def hex_at(self, *, lon: float, lat: float) -> str:
        """Label of the hex containing a WGS84 point.

        Examples:
            >>> m = load_map()
            >>> m.hexes.loc[m.hex_at(lon=7.2287, lat=50.5792), "terrain"]
            'town'
        """
        x, y = self.to_xy(lon, lat)
        try:
            return self.hex_at_xy(float(x), float(y))
        except ValueError:
            raise ValueError(
                f"lon {lon}, lat {lat} is outside the hex grid; {self._bounds_text()}"
            ) from None

    def hex_center(self, label: str) -> tuple[float, float]:
        """Centre of a hex in map metres."""
        return self.grid.center(label)

    def hex_polygon(self, label: str) -> shapely.Polygon:
        """The hexagon of a hex label, in map metres."""
        return shapely.Polygon(self.grid.corners(label))

    def hex_polygons(
        self, labels: Sequence[str] | None = None
    ) -> npt.NDArray[np.object_]:
        """Hexagons of many labels (all hexes by default), vectorised."""
        if labels is None:
            q, r = self.grid.all_axial()
        else:
            qr = np.array([self.grid.axial_of_label(lab) for lab in labels]).reshape(
                -1, 2
            )
            q, r = qr[:, 0], qr[:, 1]
        cx, cy = self.grid.axial_to_xy(q, r)
        ang = np.deg2rad(60.0 * np.arange(7))
        rad = self.grid.radius_m
        xs = cx[:, None] + rad * np.cos(ang)[None, :]
        ys = cy[:, None] + rad * np.sin(ang)[None, :]
        return shapely.polygons(np.stack([xs, ys], axis=-1))

    @cached_property
    def hexes(self) -> pd.DataFrame:
        """Per-hex attributes, indexed by label (computed once, cached on disk).

        Columns: ``q``, ``r``, ``col``, ``row``, ``x``, ``y``, ``lon``, ``lat``,
        ``on_map`` (False for the few hexes of the rectangular label grid that lie
        wholly outside the map: not playable), ``terrain`` (dominant generic
        class), ``share_<class>`` for woods, town and water, ``elevation_m``
        (mean), ``elevation_min_m``, ``elevation_max_m``,
        ``road`` (best road class or None), ``rail``, ``waterway`` (biggest waterway
        class crossing the hex or None), ``river_crossing``, ``bridge`` (a road or
        rail bridge over water), ``rhine_bridge``, ``ferry``, ``place`` (nearest
        named place) and ``place_distance_m``.
        """
        return _load_or_compute_hexes(self)

    def hexes_gdf(self) -> gpd.GeoDataFrame:
        """:attr:`hexes` as a GeoPandas GeoDataFrame with hexagon geometries.

        Needs the optional ``geopandas`` dependency (``pip install wargame[geo]``).
        """
        try:
            import geopandas as gpd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "hexes_gdf() needs geopandas: pip install 'wargame[geo]'"
            ) from exc
        return gpd.GeoDataFrame(self.hexes, geometry=self.hex_polygons(), crs=self.crs)

    # -- line of sight (thin wrappers over wargame.geo.los / .viewshed) --------- #
    @property
    def obstacle_heights_m(self) -> dict[str, float]:
        """LOS obstacle height above ground per terrain class, metres (editable).

        Defaults: ``DEFAULT_OBSTACLE_HEIGHTS_M`` (woods 20 m, town 10 m; assumptions)
        updated by ``los.obstacle_heights_m`` in the map's metadata, if any. Assign a
        new dict to change them for this map; per call, pass ``obstacles={...}``.
        """
        if "_obstacle_heights_m" not in self.__dict__:
            from wargame.geo.terrain import DEFAULT_OBSTACLE_HEIGHTS_M

            meta = self.meta.get("los", {}).get("obstacle_heights_m", {})
            heights = {**DEFAULT_OBSTACLE_HEIGHTS_M, **meta}
            self.__dict__["_obstacle_heights_m"] = heights
        return self.__dict__["_obstacle_heights_m"]  # type: ignore[no-any-return]

    @obstacle_heights_m.setter
    def obstacle_heights_m(self, heights: dict[str, float]) -> None:
        from wargame.geo.los import _check_heights

        self.__dict__["_obstacle_heights_m"] = _check_heights(heights, TERRAIN_CLASSES)

    def los(
        self,
        a: str | tuple[float, float],
        b: str | tuple[float, float],
        observer_height_m: float = 2.5,
        target_height_m: float = 2.0,
        obstacles: bool | dict[str, float] = True,
    ) -> Any:
        """Line of sight from ``a`` to ``b`` (hex labels or ``(x, y)`` map metres).

        Returns a :class:`wargame.geo.los.LOSResult` (``visible``, ``blocked_at``,
        ``blocker``, ``profile``, ``plot()``); the model is documented in
        :mod:`wargame.geo.los`. Between hex labels it equals :meth:`hex_los_table`.

        Examples:
            >>> m = load_map()
            >>> m.los(m.place_xy("Erpeler Ley"), m.place_xy("Remagen")).visible
            True
        """
        from wargame.geo import los as _los

        terrain = _los.terrain_of_map(self)
        return _los.line_of_sight(
            terrain, a, b, observer_height_m, target_height_m, obstacles
        )

    def viewshed(
        self,
        observer: str | tuple[float, float],
        radius_m: float,
        observer_height_m: float = 2.5,
        target_height_m: float = 0.0,
        obstacles: bool | dict[str, float] = True,
        as_array: bool = False,
    ) -> Any:
        """Ground visible from ``observer`` within ``radius_m``, at DEM resolution.

        Returns a shapely (Multi)Polygon in map metres (``to_lonlat_geometry`` for
        Leaflet) or, with ``as_array=True``, a ``ViewshedRaster(visible, grid)``
        whose ``transform`` gives the affine coefficients. See
        :func:`wargame.geo.viewshed.map_viewshed`.
        """
        from wargame.geo import viewshed as _vs

        return _vs.map_viewshed(
            self,
            observer,
            radius_m,
            observer_height_m,
            target_height_m,
            obstacles,
            as_array,
        )

    def hex_viewshed(
        self,
        hex: str,
        range_hexes: int = 20,
        observer_height_m: float = 2.5,
        target_height_m: float = 2.0,
        obstacles: bool | dict[str, float] = True,
    ) -> Any:
        """Hexes seen from ``hex`` within ``range_hexes`` and their union polygon.

        Returns a :class:`wargame.geo.los.HexViewshed` (``labels``, ``polygon``);
        same answers as :meth:`los` between hex centres.
        """
        from wargame.geo import los as _los

        return _los.hex_viewshed(
            _los.terrain_of_map(self),
            hex,
            range_hexes,
            observer_height_m,
            target_height_m,
            obstacles,
        )

    def hex_los_table(
        self,
        range_hexes: int = 20,
        observer_height_m: float = 2.5,
        target_height_m: float = 2.0,
        obstacles: bool | dict[str, float] = True,
        cache: bool = True,
    ) -> Any:
        """Visibility of every hex pair within ``range_hexes`` (cached on disk).

        Returns a :class:`wargame.geo.los.HexLOSTable`: ``table.visible("L1",
        "M3")`` or ``table.visible_index(i, j)`` over index arrays.
        """
        from wargame.geo import los as _los

        return _los.hex_los_table(
            _los.terrain_of_map(self),
            range_hexes,
            observer_height_m,
            target_height_m,
            obstacles,
            cache=cache,
        )

    def __repr__(self) -> str:
        w = f", window={self.window}" if self.window else ""
        return (
            f"<Map {self.name!r}: {self.grid.n_hexes} hexes of {self.hex_size_m:g} m "
            f"({self.grid.n_cols} cols × {self.grid.n_rows} rows){w}>"
        )


# --------------------------------------------------------------------------- #
# hex attributes                                                              #
# --------------------------------------------------------------------------- #


def _cache_key(m: Map) -> str:
    ident = {
        "v": HEX_ATTR_VERSION,
        "map": m.name,
        "sha": m.meta.get("sha256", {}),
        "hex": m.hex_size_m,
        "bounds": [round(b, 3) for b in m.bounds],
    }
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:24]


def _load_or_compute_hexes(m: Map) -> pd.DataFrame:
    key = _cache_key(m)
    path = cache_dir() / "hexes" / f"{m.name}-{m.hex_size_m:g}m-{key}.npz"
    if path.is_file():
        try:
            return _frame_from_npz(path, key)
        except Exception:
            pass
    df = compute_hex_attributes(m)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _frame_to_npz(df, path, key)
    except OSError:
        pass  # a read-only cache is not an error: we just recompute next time
    return df


_STR_COLS = ("terrain", "road", "waterway", "place")


def _frame_to_npz(df: pd.DataFrame, path: Path, key: str) -> None:
    arrays: dict[str, np.ndarray] = {
        "__key__": np.array(key),
        "label": df.index.to_numpy(str),
    }
    for c in df.columns:
        s = df[c]
        if c in _STR_COLS:
            arrays[c] = s.astype(object).where(s.notna(), "").to_numpy(dtype=str)
        else:
            arrays[c] = s.to_numpy()
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    try:
        # allow_pickle=True is the default, given so mypy does not match **arrays to it
        np.savez(tmp, allow_pickle=True, **arrays)
        os.replace(tmp if tmp.endswith(".npz") else tmp + ".npz", path)
    finally:
        for t in (tmp, tmp + ".npz"):
            if os.path.exists(t):
                os.remove(t)


def _frame_from_npz(path: Path, key: str) -> pd.DataFrame:
    with np.load(path, allow_pickle=False) as z:
        if str(z["__key__"]) != key:
            raise ValueError("cache key mismatch")
        cols = {k: z[k] for k in z.files if k not in ("__key__", "label")}
        labels = z["label"]
    data: dict[str, Any] = {}
    for c in _COLUMN_ORDER:
        v = cols[c]
        if c in _STR_COLS:
            obj = v.astype(object)
            obj[v == ""] = None
            data[c] = obj
        else:
            data[c] = v
    df = pd.DataFrame(data, index=pd.Index(labels.astype(object), name="label"))
    return _with_dtypes(df)


_COLUMN_ORDER = (
    "q",
    "r",
    "col",
    "row",
    "x",
    "y",
    "lon",
    "lat",
    "on_map",
    "terrain",
    "share_woods",
    "share_town",
    "share_water",
    "elevation_m",
    "elevation_min_m",
    "elevation_max_m",
    "road",
    "rail",
    "waterway",
    "river_crossing",
    "bridge",
    "rhine_bridge",
    "ferry",
    "place",
    "place_distance_m",
)


def _with_dtypes(df: pd.DataFrame) -> pd.DataFrame:
    df["terrain"] = pd.Categorical(df["terrain"], categories=list(TERRAIN_CLASSES))
    df["road"] = pd.Categorical(df["road"], categories=list(ROAD_CLASSES), ordered=True)
    df["waterway"] = pd.Categorical(df["waterway"], categories=list(WATERWAY_CLASSES))
    return df


def compute_hex_attributes(m: Map) -> pd.DataFrame:
    """Compute :attr:`Map.hexes` from the map's rasters and vector layers."""
    g = m.grid
    n = g.n_hexes
    q, r = g.all_axial()
    x, y = g.axial_to_xy(q, r)
    lon, lat = m.to_lonlat(x, y)
    col, row = np.divmod(np.arange(n), g.n_rows)

    # sample lattice inside each hex: terrain shares and elevation stats
    off = g.sample_offsets(4)
    sx = (x[:, None] + off[None, :, 0]).ravel()
    sy = (y[:, None] + off[None, :, 1]).ravel()
    k = off.shape[0]
    xmin, ymin, xmax, ymax = m.bounds
    lc, lcg = m._landcover
    codes = nearest(lc, lcg, np.clip(sx, xmin, xmax), np.clip(sy, ymin, ymax))
    codes = codes.astype(np.int64).reshape(n, k)
    nclass = len(TERRAIN_CLASSES)
    # Edge hexes are partly outside the map: count only the samples inside it.
    # Hexes wholly outside (corners of the rectangular label grid, the last hex of
    # odd columns) take the attributes of the nearest map edge and are flagged
    # `on_map = False`: rule systems must not play on them.
    inside = m.contains_xy(sx, sy).reshape(n, k)
    # inside is 2-D, so any(axis=1) is an array (numpy's stubs allow a scalar)
    on_map = cast("npt.NDArray[np.bool_]", inside.any(axis=1))
    weights = np.where(on_map[:, None], inside, True)
    cell = np.repeat(np.arange(n) * nclass, k) + codes.ravel()
    counts = np.bincount(cell, weights=weights.ravel(), minlength=n * nclass)
    shares = counts.reshape(n, nclass) / weights.sum(axis=1)[:, None]
    # dominant class; ties go to the class listed later (water > town > woods ...)
    dominant = (nclass - 1) - np.argmax(shares[:, ::-1], axis=1)
    # elevation: a coarser lattice (37 points, ~21 m apart) suits the 50 m DEM
    eoff = g.sample_offsets(3)
    ex = (x[:, None] + eoff[None, :, 0]).ravel()
    ey = (y[:, None] + eoff[None, :, 1]).ravel()
    ein = m.contains_xy(ex, ey).reshape(n, -1) | ~on_map[:, None]
    ex, ey = np.clip(ex, xmin, xmax), np.clip(ey, ymin, ymax)
    z, zg = m._full_dem
    elev = np.where(ein, bilinear(z, zg, ex, ey).reshape(n, -1), np.nan)
    zc = bilinear(z, zg, np.clip(x, xmin, xmax), np.clip(y, ymin, ymax))
    elev_all = np.concatenate([elev, zc[:, None]], axis=1)

    spacing = g.size_m / 6.0

    def best_code(layer: str, worst: int) -> npt.NDArray[np.int64]:
        """Lowest class code of the lines crossing each hex (``worst`` if none)."""
        xy, start, code = m._lines(layer)
        best = np.full(n, worst, dtype=np.int64)
        pts, part = densify(xy, start, spacing)
        hidx = g.index_at_xy(pts[:, 0], pts[:, 1])
        ok = hidx >= 0
        np.minimum.at(best, hidx[ok], code.astype(np.int64)[part[ok]])
        return best

    def flag(layer: str, codes: Sequence[int] | None = None) -> npt.NDArray[np.bool_]:
        """Whether lines of the layer (of the given codes) cross each hex."""
        xy, start, code = m._lines(layer)
        out = np.zeros(n, dtype=bool)
        pts, part = densify(xy, start, spacing)
        keep = (
            np.ones(len(pts), dtype=bool)
            if codes is None
            else np.isin(code[part], codes)
        )
        hidx = g.index_at_xy(pts[keep, 0], pts[keep, 1])
        out[hidx[hidx >= 0]] = True
        return out

    road_rank = best_code("roads", len(ROAD_CLASSES))
    ww_rank = best_code("waterways", len(WATERWAY_CLASSES))
    road = np.array([*ROAD_CLASSES, None], dtype=object)[road_rank]
    waterway = np.array([*WATERWAY_CLASSES, None], dtype=object)[ww_rank]

    cc = {c: i for i, c in enumerate(m.meta["lines"]["crossing_codes"])}
    rail = flag("rail")
    bridge = flag("crossings", [cc["bridge"], cc["rhine_bridge"]])
    rhine_bridge = flag("crossings", [cc["rhine_bridge"]])
    ferry = flag("crossings", [cc["ferry"]])

    # nearest named settlement (not peaks)
    pl = m.layer("places")
    if len(pl):
        px = np.array([p.x for p in pl["geometry"]])
        py = np.array([p.y for p in pl["geometry"]])
        names = pl["name"].to_numpy(dtype=object)
        best = np.zeros(n, dtype=np.int64)
        bestd = np.full(n, np.inf)
        for i in range(len(px)):
            d2 = (x - px[i]) ** 2 + (y - py[i]) ** 2
            better = d2 < bestd
            best[better] = i
            bestd[better] = d2[better]
        place = names[best]
        place_d = np.sqrt(bestd)
    else:
        place = np.full(n, None, dtype=object)
        place_d = np.full(n, np.nan)

    ti = {c: TERRAIN_CLASSES.index(c) for c in ("woods", "town", "water")}
    df = pd.DataFrame(
        {
            "q": q,
            "r": r,
            "col": col,
            "row": row + 0,
            "x": x,
            "y": y,
            "lon": np.asarray(lon),
            "lat": np.asarray(lat),
            "on_map": on_map,
            "terrain": np.asarray(TERRAIN_CLASSES, dtype=object)[dominant],
            "share_woods": shares[:, ti["woods"]],
            "share_town": shares[:, ti["town"]],
            "share_water": shares[:, ti["water"]],
            "elevation_m": np.nanmean(elev_all, axis=1),
            "elevation_min_m": np.nanmin(elev_all, axis=1),
            "elevation_max_m": np.nanmax(elev_all, axis=1),
            "road": road,
            "rail": rail,
            "waterway": waterway,
            "river_crossing": ww_rank < len(WATERWAY_CLASSES),
            "bridge": bridge,
            "rhine_bridge": rhine_bridge,
            "ferry": ferry,
            "place": place,
            "place_distance_m": place_d,
        },
        index=pd.Index(g.labels(), name="label", dtype=object),
    )
    return _with_dtypes(df[list(_COLUMN_ORDER)])


# --------------------------------------------------------------------------- #
# entry point                                                                 #
# --------------------------------------------------------------------------- #

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def load_map(
    name: str = "rhine-remagen",
    hex_size_m: float = 150.0,
    window: Window
    | str
    | tuple[float, float, float, float]
    | dict[str, Any]
    | None = None,
) -> Map:
    """Load a built map.

    Args:
        name: map name (see :func:`available_maps`).
        hex_size_m: centre-to-centre hex spacing in metres (150 m for World at War;
            e.g. 50 m for skirmish rule systems, best with a ``window``).
        window: cut a sub-map: a place name (a 4 × 3 km box around it), a
            ``(xmin, ymin, xmax, ymax)`` bbox in map metres, a dict with ``place``
            or ``bbox`` and ``width_m``/``height_m`` (``lonlat=True`` for a bbox in
            degrees), or a :class:`Window`.

    Raises:
        ValueError: unknown map (lists the available ones) or a bad window.
        MapDataError: a map file is missing or damaged (names the file).

    Examples:
        >>> m = load_map("rhine-remagen", hex_size_m=50, window="Linz")
        >>> m.grid.n_hexes < 6000
        True
    """
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(
            f"bad map name {name!r}; available maps: {', '.join(available_maps())}"
        )
    if not (isinstance(hex_size_m, int | float) and hex_size_m > 0):
        raise ValueError(
            f"hex_size_m must be a positive number of metres, not {hex_size_m!r}"
        )
    folder = _find_map(name)
    meta_path = folder / "metadata.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MapDataError(f"map file {meta_path} is missing; {REBUILD_HINT}") from None
    except (ValueError, OSError) as exc:
        raise MapDataError(
            f"map file {meta_path} is damaged ({exc}); {REBUILD_HINT}"
        ) from exc
    if not isinstance(meta, dict) or meta.get("format") != "wargame-map":
        raise MapDataError(
            f"{meta_path} is not a wargame map metadata file; {REBUILD_HINT}"
        )
    for k in ("name", "crs", "bounds", "dem", "landcover", "layers"):
        if k not in meta:
            raise MapDataError(f"{meta_path} lacks the field {k!r}; {REBUILD_HINT}")
    return Map(folder, meta, hex_size_m=hex_size_m, window=Window.coerce(window))
