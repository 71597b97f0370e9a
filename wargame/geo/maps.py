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
import math
import numbers
import os
import re
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd
import shapely
from pyproj import Transformer

from wargame.geo.hexgrid import HexGrid, column_letters
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
    raise MapArgumentError(
        "load_map",
        "name",
        f"unknown map {name!r}; available maps: {', '.join(avail) or '(none found)'}",
    )


def cache_dir() -> Path:
    """Per-user cache folder (``$WARGAME_CACHE`` or the platform's cache dir)."""
    env = os.environ.get("WARGAME_CACHE")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("wargame"))


# --------------------------------------------------------------------------- #
# Checking arguments                                                          #
# --------------------------------------------------------------------------- #

#: Longest map name: map ids are short folder names (the shipped one has 13
#: characters); longer ones cannot be a map and overflow file-name limits.
MAX_NAME_CHARS = 100
#: Hex spacing accepted by :func:`load_map`, metres: from the landcover raster's
#: 10 m cell (smaller hexes sample nothing new) to 10 km (a few hexes per map).
HEX_SIZE_RANGE_M = (10.0, 10_000.0)
#: Most hexes a map may have: the whole shipped map at 50 m (the finest scale the
#: docs suggest without a window) is 414,002 hexes and peaks at 2.6 GB while its
#: attributes are computed (about 6 KB a hex), so 500,000 stays under ~3.5 GB.
MAX_HEXES = 500_000
#: Highest observer, target or obstacle height above ground, metres: above any
#: mast, tower or low-flying aircraft, and small enough for exact sight-line maths.
MAX_HEIGHT_M = 10_000.0
#: Longest place name looked up (the shipped map's longest is 27 characters).
MAX_PLACE_CHARS = 200
#: Longest hex label ("ABCD1234567": 4 letters and 7 digits cover any grid within
#: :data:`MAX_HEXES`); longer text is refused before it is parsed.
MAX_LABEL_CHARS = 16


class MapArgumentError(ValueError):
    """A bad argument to the map API: ``<function>: <argument>: <problem>; <fix>``.

    ``function``, ``argument`` and ``problem`` (the text after the argument) are
    kept, so a caller such as the scenario loader can name its own field instead.

    Examples:
        >>> e = MapArgumentError("Map.elevation", "x", "-inf is not a finite number")
        >>> str(e), e.argument
        ('Map.elevation: x: -inf is not a finite number', 'x')
    """

    def __init__(self, function: str, argument: str, problem: str) -> None:
        super().__init__(f"{function}: {argument}: {problem}")
        self.function = function
        self.argument = argument
        self.problem = problem

    def __reduce__(self) -> tuple[Any, ...]:  # picklable (batch workers)
        return (type(self), (self.function, self.argument, self.problem))


def _show(value: Any, limit: int = 40) -> str:
    """A value for a message: its repr, cut to about ``limit`` characters."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)  # 400000, not 400000.0
    text = repr(value)
    if len(text) > limit:
        text = f"{text[: limit - 10]}... ({len(text)} characters)"
    return text


def _pair(*values: Any) -> str:
    """Numbers for a message, as a tuple: ``(376115, 5605139.5)``."""
    return "(" + ", ".join(_show(v, 24) for v in values) + ")"


def _m(v: float) -> str:
    """Metres for a message: whole metres, or one decimal when not whole."""
    return f"{v:.1f}".removesuffix(".0")


def _number(fn: str, arg: str, value: Any, fix: str) -> float:
    """A real, finite number (not a bool or a string), as a float."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise MapArgumentError(
            fn, arg, f"{_show(value)} is not a number ({type(value).__name__}); {fix}"
        )
    try:
        v = float(value)
    except (OverflowError, ValueError):
        v = math.inf
    if not math.isfinite(v):
        raise MapArgumentError(fn, arg, f"{_show(value)} is not a finite number; {fix}")
    return v


def _scalar(fn: str, arg: str, value: Any, fix: str) -> float:
    """:func:`_number`, with a clear word for an array given where one is wanted."""
    if isinstance(value, np.ndarray | Sequence) and not isinstance(value, str | bytes):
        raise MapArgumentError(fn, arg, f"{_show(value)} is not a single number; {fix}")
    return _number(fn, arg, value, fix)


def _numbers(fn: str, arg: str, value: Any, fix: str, finite: bool = True) -> Any:
    """:func:`_number` for a number, or a float64 array of (finite) numbers."""
    if not isinstance(value, np.ndarray | Sequence) or isinstance(value, str | bytes):
        if not finite and isinstance(value, float | np.floating):
            return float(value)
        return _number(fn, arg, value, fix)
    try:
        a = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise MapArgumentError(
            fn, arg, f"{_show(value)} is not an array of numbers; {fix}"
        ) from None
    if a.dtype.kind not in "iuf":
        raise MapArgumentError(
            fn, arg, f"holds {a.dtype} values, not numbers ({_show(value)}); {fix}"
        )
    a = a.astype(np.float64)
    bad = ~np.isfinite(a)
    if finite and bad.any():
        i = np.unravel_index(int(np.argmax(bad)), a.shape)
        raise MapArgumentError(
            fn, arg, f"{_show(a[i])} at index {_index(i)} is not a finite number; {fix}"
        )
    return a


def _index(i: tuple[Any, ...]) -> str:
    return str(int(i[0])) if len(i) == 1 else str(tuple(int(k) for k in i))


def _in_range(
    fn: str, arg: str, v: Any, lo: float, hi: float, problem: str, fix: str
) -> None:
    """Refuse a number (or the first element of an array) outside ``lo``–``hi``."""
    if isinstance(v, np.ndarray):
        out = (v < lo) | (v > hi)
        if out.any():
            i = np.unravel_index(int(np.argmax(out)), v.shape)
            raise MapArgumentError(
                fn, arg, f"{_show(v[i])} at index {_index(i)} {problem}; {fix}"
            )
    elif not lo <= v <= hi:
        raise MapArgumentError(fn, arg, f"{_show(v)} {problem}; {fix}")


def _same_shape(fn: str, args: tuple[str, str], a: Any, b: Any) -> None:
    """Refuse two coordinate arrays whose shapes do not broadcast."""
    try:
        np.broadcast_shapes(np.shape(a), np.shape(b))
    except ValueError:
        raise MapArgumentError(
            fn,
            ", ".join(args),
            f"shapes {np.shape(a)} and {np.shape(b)} differ; give arrays of one shape",
        ) from None


def _obstacle_heights(
    fn: str, arg: str, heights: Mapping[Any, Any]
) -> dict[str, float]:
    """Heights by terrain class: known classes, 0 to :data:`MAX_HEIGHT_M` metres."""
    out: dict[str, float] = {}
    for name, h in heights.items():
        if not isinstance(name, str) or name not in TERRAIN_CLASSES:
            raise MapArgumentError(
                fn,
                arg,
                f"{_show(name)} is not a terrain class; give heights for "
                f"{', '.join(TERRAIN_CLASSES)}",
            )
        out[name] = _height(fn, f"{arg}[{name!r}]", h)
    return out


def _height(fn: str, arg: str, value: Any) -> float:
    """A height above ground: a number from 0 to :data:`MAX_HEIGHT_M` metres."""
    fix = f"give metres above ground from 0 to {MAX_HEIGHT_M:.0f}"
    v = _number(fn, arg, value, fix)
    _in_range(fn, arg, v, 0.0, MAX_HEIGHT_M, "is out of range", fix)
    return v


def _flag(fn: str, arg: str, value: Any) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise MapArgumentError(
            fn, arg, f"{_show(value)} is not True or False; give True or False"
        )
    return bool(value)


def _check_hex_size(fn: str, value: Any) -> float:
    lo, hi = HEX_SIZE_RANGE_M
    fix = f"give the distance between hex centres in metres, {lo:.0f} to {hi:.0f}"
    v = _number(fn, "hex_size_m", value, fix)
    _in_range(fn, "hex_size_m", v, lo, hi, "is out of range", fix)
    return v


def _check_text(fn: str, arg: str, value: Any, limit: int, fix: str) -> str:
    if not isinstance(value, str):
        raise MapArgumentError(
            fn, arg, f"{_show(value)} is not a string ({type(value).__name__}); {fix}"
        )
    if not value.strip():
        raise MapArgumentError(fn, arg, f"{_show(value)} is empty; {fix}")
    if len(value) > limit:
        raise MapArgumentError(
            fn, arg, f"{_show(value)} is too long (at most {limit} characters); {fix}"
        )
    return value


def _window_bbox(fn: str, arg: str, bbox: Any) -> tuple[float, float, float, float]:
    fix = "give [xmin, ymin, xmax, ymax] as four numbers"
    if (
        not isinstance(bbox, Sequence | np.ndarray)
        or isinstance(bbox, str | bytes)
        or len(bbox) != 4
    ):
        raise MapArgumentError(fn, arg, f"{_show(bbox)} is not four numbers; {fix}")
    xmin, ymin, xmax, ymax = (
        _number(fn, f"{arg}[{i}]", v, fix) for i, v in enumerate(bbox)
    )
    if not (xmin < xmax and ymin < ymax):
        raise MapArgumentError(
            fn,
            arg,
            f"{_pair(xmin, ymin, xmax, ymax)} is empty; give xmin < xmax and "
            "ymin < ymax",
        )
    return xmin, ymin, xmax, ymax


def _window_size(fn: str, arg: str, value: Any) -> float:
    fix = "give a width or height in metres, more than 0"
    v = _number(fn, arg, value, fix)
    if v <= 0:
        raise MapArgumentError(fn, arg, f"{_show(value)} is out of range; {fix}")
    return v


# --------------------------------------------------------------------------- #
# Window                                                                      #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Window:
    """A rectangular cut of a map: around a named place or an explicit bbox.

    Give either ``place`` (with ``width_m`` × ``height_m`` around it) or ``bbox``
    (``(xmin, ymin, xmax, ymax)`` in map metres, or in degrees with
    ``lonlat=True``). Field types are checked here, sizes against the map by
    :func:`load_map`.

    Examples:
        >>> Window(place="Remagen").width_m
        4000.0
        >>> try:
        ...     Window(place="Remagen", width_m=float("inf"))
        ... except ValueError as exc:
        ...     print(exc)  # doctest: +ELLIPSIS
        Window: width_m: inf is not a finite number; give a width or height in metres...
    """

    place: str | None = None
    bbox: tuple[float, float, float, float] | None = None
    width_m: float = DEFAULT_WINDOW_M[0]
    height_m: float = DEFAULT_WINDOW_M[1]
    lonlat: bool = False

    def __post_init__(self) -> None:
        fn = "Window"
        if (self.place is None) == (self.bbox is None):
            raise MapArgumentError(
                fn,
                "place, bbox",
                "gives both a place and a bbox; give only one"
                if self.place is not None
                else "a window needs a place or a bbox; give one of them",
            )
        if self.place is not None:
            _check_text(
                fn, "place", self.place, MAX_PLACE_CHARS, "give a place or peak name"
            )
        if self.bbox is not None:
            object.__setattr__(self, "bbox", _window_bbox(fn, "bbox", self.bbox))
        object.__setattr__(self, "width_m", _window_size(fn, "width_m", self.width_m))
        object.__setattr__(
            self, "height_m", _window_size(fn, "height_m", self.height_m)
        )
        object.__setattr__(self, "lonlat", _flag(fn, "lonlat", self.lonlat))

    @classmethod
    def coerce(
        cls, value: Any, fn: str = "load_map", arg: str = "window"
    ) -> Window | None:
        """Accept a Window, a place name, a bbox tuple or a mapping.

        Bad values raise :class:`MapArgumentError` naming ``fn`` and the field
        under ``arg`` (``window.width_m``); nothing is silently ignored.

        Examples:
            >>> Window.coerce({"place": "Linz", "width_m": 2000}).width_m
            2000.0
            >>> try:
            ...     Window.coerce({"place": "Linz", "widht_m": 2000})
            ... except ValueError as exc:
            ...     print(exc)
            load_map: window.widht_m: unknown key; give only place, bbox, width_m, ...
        """
        if value is None or isinstance(value, Window):
            return value
        try:
            if isinstance(value, str):
                return cls(place=value)
            if isinstance(value, dict):
                keys = ("place", "bbox", "width_m", "height_m", "lonlat")
                for k in value:
                    if k not in keys:
                        raise MapArgumentError(
                            fn,
                            f"{arg}.{str(k)[:40]}",
                            f"unknown key; give only {', '.join(keys)}",
                        )
                if value.get("bbox") is not None:
                    for k in ("width_m", "height_m"):
                        if k in value:
                            raise MapArgumentError(
                                fn,
                                f"{arg}.{k}",
                                "applies only to a window around a place; "
                                "give the size through the bbox",
                            )
                elif value.get("lonlat"):
                    raise MapArgumentError(
                        fn,
                        f"{arg}.lonlat",
                        "applies only to a bbox; leave it out for a place",
                    )
                return cls(
                    place=value.get("place"),
                    bbox=value.get("bbox"),
                    width_m=value.get("width_m", DEFAULT_WINDOW_M[0]),
                    height_m=value.get("height_m", DEFAULT_WINDOW_M[1]),
                    lonlat=value.get("lonlat", False),
                )
            if isinstance(value, Sequence | np.ndarray) and not isinstance(
                value, bytes
            ):
                return cls(bbox=value)  # type: ignore[arg-type]
        except MapArgumentError as exc:
            if exc.function == fn:
                raise
            raise MapArgumentError(fn, f"{arg}.{exc.argument}", exc.problem) from None
        raise MapArgumentError(
            fn,
            arg,
            f"{_show(value)} is not a window; give a place name, a (xmin, ymin, "
            "xmax, ymax) bbox in metres, a dict or a Window",
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
        self.hex_size_m = _check_hex_size("load_map", hex_size_m)
        if window is not None and not isinstance(window, Window):
            raise MapArgumentError(
                "Map", "window", f"{_show(window)} is not a Window; use load_map"
            )
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

        A conversion: points off the map are converted too; degrees must be
        finite numbers, longitude -180–180 and latitude -90–90.

        Examples:
            >>> m = load_map()
            >>> x, y = m.to_xy(7.25, 50.585)
            >>> round(x), round(y)
            (376115, 5605139)
        """
        fn, fix = "Map.to_xy", "give WGS84 degrees, lon -180–180 and lat -90–90"
        lo = _numbers(fn, "lon", lon, fix)
        la = _numbers(fn, "lat", lat, fix)
        _in_range(fn, "lon", lo, -180.0, 180.0, "is not a longitude", fix)
        _in_range(fn, "lat", la, -90.0, 90.0, "is not a latitude", fix)
        _same_shape(fn, ("lon", "lat"), lo, la)
        return self._to_utm.transform(lon, lat)

    def to_lonlat(self, x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[Any, Any]:
        """Map metres to WGS84 longitude/latitude (vectorised).

        A conversion: points off the map are converted too; metres must be finite
        numbers.

        Examples:
            >>> m = load_map()
            >>> lon, lat = m.to_lonlat(376115.0, 5605139.0)
            >>> round(lon, 3), round(lat, 3)
            (7.25, 50.585)
        """
        fn, fix = "Map.to_lonlat", f"give metres in the map's CRS {self.crs}"
        xv = _numbers(fn, "x", x, fix)
        yv = _numbers(fn, "y", y, fix)
        _same_shape(fn, ("x", "y"), xv, yv)
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
        return self._lonlat_envelope(self.bounds)

    def _lonlat_envelope(
        self, bounds: tuple[float, float, float, float]
    ) -> tuple[float, float, float, float]:
        xmin, ymin, xmax, ymax = bounds
        xs = np.array([xmin, xmax, xmin, xmax])
        ys = np.array([ymin, ymin, ymax, ymax])
        lon, lat = self._to_wgs84.transform(xs, ys)
        return (float(lon.min()), float(lat.min()), float(lon.max()), float(lat.max()))

    def contains_xy(self, x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Whether points lie inside the map's bounds (NaN and ±inf: False).

        The bounds are the one rule of every point argument of the map API: ``x``
        from ``xmin`` to ``xmax`` and ``y`` from ``ymin`` to ``ymax``, edges
        included.

        Examples:
            >>> m = load_map()
            >>> m.contains_xy([376115.0, 0.0], 5605139.0).tolist()
            [True, False]
        """
        fn, fix = "Map.contains_xy", f"give metres in the map's CRS {self.crs}"
        xv = _numbers(fn, "x", x, fix, finite=False)
        yv = _numbers(fn, "y", y, fix, finite=False)
        _same_shape(fn, ("x", "y"), xv, yv)
        return self._inside(xv, yv)

    def _inside(self, x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """:meth:`contains_xy` without the argument checks (internal callers)."""
        xmin, ymin, xmax, ymax = self.bounds
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return (x >= xmin) & (x <= xmax) & (y >= ymin) & (y <= ymax)

    # -- argument checks (one rule for every public method) ------------------ #
    def _xy_fix(self, axes: str = "xy") -> str:
        xmin, ymin, xmax, ymax = self.bounds
        ranges = {"x": f"x {_m(xmin)}–{_m(xmax)}", "y": f"y {_m(ymin)}–{_m(ymax)}"}
        inside = ", ".join(ranges[a] for a in axes)
        return f"give metres in the map's CRS {self.crs} ({inside})"

    def _point_fix(self) -> str:
        xmin, ymin, xmax, ymax = self.bounds
        return (
            f"give a hex label like 'L12' or (x, y) in metres of the map's CRS "
            f"{self.crs} (x {_m(xmin)}–{_m(xmax)}, y {_m(ymin)}–{_m(ymax)})"
        )

    def _coord(
        self, fn: str, arg: str, value: Any, axis: str, *, many: bool = True
    ) -> Any:
        """One coordinate (or an array of them): a finite number on the map."""
        xmin, ymin, xmax, ymax = self.bounds
        lo, hi = (xmin, xmax) if axis == "x" else (ymin, ymax)
        fix = self._xy_fix(axis)
        v = _numbers(fn, arg, value, fix) if many else _scalar(fn, arg, value, fix)
        _in_range(fn, arg, v, lo, hi, "is off the map", fix)
        return v

    def _xy(self, fn: str, x: Any, y: Any, *, many: bool = True) -> tuple[Any, Any]:
        xv = self._coord(fn, "x", x, "x", many=many)
        yv = self._coord(fn, "y", y, "y", many=many)
        _same_shape(fn, ("x", "y"), xv, yv)
        return xv, yv

    def _where(self, fn: str, arg: str, where: Any) -> str | tuple[float, float]:
        """A hex label (checked) or an ``(x, y)`` point on the map."""
        if isinstance(where, str):
            return self._label(fn, arg, where)
        fix = self._point_fix()
        try:
            ndim = np.ndim(where)
        except ValueError:  # a ragged sequence such as (1.0, [[1.0]])
            ndim = -1
        if (
            not isinstance(where, Sequence | np.ndarray)
            or isinstance(where, bytes)
            or ndim != 1
            or len(where) != 2
        ):
            raise MapArgumentError(
                fn, arg, f"{_show(where)} is not a hex label or an (x, y) point; {fix}"
            )
        x = _number(fn, f"{arg}[0]", where[0], fix)
        y = _number(fn, f"{arg}[1]", where[1], fix)
        if not bool(self._inside(x, y)):
            raise MapArgumentError(fn, arg, f"{_pair(x, y)} is off the map; {fix}")
        return (x, y)

    def _label(self, fn: str, arg: str, label: Any) -> str:
        """A hex label of this map's grid, upper-cased."""
        g = self.grid
        fix = (
            "give a hex label like 'L12' (columns A–"
            f"{column_letters(g.n_cols - 1)}, rows 1–{g.n_rows})"
        )
        if not isinstance(label, str) or len(label) > MAX_LABEL_CHARS:
            raise MapArgumentError(fn, arg, f"{_show(label)} is not a hex label; {fix}")
        try:
            q, r = g.axial_of_label(label)
        except ValueError:
            raise MapArgumentError(
                fn, arg, f"{_show(label)} is not a hex label; {fix}"
            ) from None
        if not bool(g.in_bounds(q, r)):
            raise MapArgumentError(
                fn, arg, f"hex {_show(label)} is not on this map; {fix}"
            )
        return label.strip().upper()

    def _range_hexes(self, fn: str, value: Any) -> int:
        limit = self.grid.n_cols + self.grid.n_rows
        fix = f"give a whole number of hexes from 1 to {limit} (the map's size)"
        if isinstance(value, bool | np.bool_) or not isinstance(
            value, numbers.Integral
        ):
            raise MapArgumentError(
                fn, "range_hexes", f"{_show(value)} is not a whole number; {fix}"
            )
        n = int(value)
        if not 1 <= n <= limit:
            raise MapArgumentError(
                fn, "range_hexes", f"{_show(value)} is out of range; {fix}"
            )
        return n

    def _radius(self, fn: str, value: Any) -> float:
        xmin, ymin, xmax, ymax = self.bounds
        diag = math.hypot(xmax - xmin, ymax - ymin)
        fix = f"give metres, more than 0 and at most {diag:.0f} (the map's diagonal)"
        v = _number(fn, "radius_m", value, fix)
        if not 0 < v <= diag:
            raise MapArgumentError(
                fn, "radius_m", f"{_show(value)} is out of range; {fix}"
            )
        return v

    def _obstacles(self, fn: str, value: Any) -> bool | dict[str, float]:
        """``True``, ``False`` or a mapping of terrain class to a height."""
        if isinstance(value, bool | np.bool_):
            return bool(value)
        if not isinstance(value, Mapping):
            raise MapArgumentError(
                fn,
                "obstacles",
                f"{_show(value)} is not True, False or a mapping; give True, False "
                "or heights by terrain class, e.g. {'woods': 20.0}",
            )
        return _obstacle_heights(fn, "obstacles", value)

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

        Points must be finite numbers on the map (see :meth:`contains_xy`); else
        :class:`MapArgumentError` names the argument and the map's range.

        Examples:
            >>> m = load_map()
            >>> 180 < m.elevation(*m.to_xy(7.25, 50.585)) < 220  # Erpeler Ley
            True
            >>> try:
            ...     m.elevation(float("-inf"), 5605139.0)
            ... except ValueError as exc:
            ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
            Map.elevation: x: -inf is not a finite number;
            give metres in the map's CRS EPSG:32632 (x 365900–393300)
        """
        xv, yv = self._xy("Map.elevation", x, y)
        z, g = self._full_dem
        out = bilinear(z, g, xv, yv)
        return float(out) if out.ndim == 0 else out

    def terrain_at(self, x: npt.ArrayLike, y: npt.ArrayLike) -> Any:
        """Generic terrain class (str) at map coordinates; vectorised.

        Points are checked as in :meth:`elevation`.

        Examples:
            >>> load_map().terrain_at(*load_map().to_xy(7.2287, 50.5792))
            'town'
        """
        xv, yv = self._xy("Map.terrain_at", x, y)
        a, g = self._landcover
        codes = nearest(a, g, xv, yv)
        names = np.asarray(TERRAIN_CLASSES, dtype=object)[codes]
        return str(names) if np.ndim(names) == 0 else names

    # -- vector layers -------------------------------------------------------- #
    def layer(self, layer: str) -> pd.DataFrame:
        """A vector layer as a DataFrame with a shapely ``geometry`` column.

        Layers: ``terrain``, ``roads``, ``rail``, ``waterways``, ``crossings``,
        ``road_names``, ``places``, ``peaks``.
        """
        if not isinstance(layer, str) or layer not in self.meta["layers"]:
            raise MapArgumentError(
                "Map.layer",
                "layer",
                f"unknown layer {_show(layer)}; give one of "
                f"{', '.join(self.meta['layers'])}",
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
            MapArgumentError: (a ``ValueError``) if no place has that name (with
                close matches) or ``name`` is not a short string.
        """
        return self._place_xy(self.places, name, "Map.place_xy", "name")

    def _place_xy(
        self, places: pd.DataFrame, name: Any, fn: str, arg: str
    ) -> tuple[float, float]:
        _check_text(fn, arg, name, MAX_PLACE_CHARS, "give a place or peak name")
        key = name.strip().casefold()
        hit = places[places["name"].str.casefold() == key]
        if hit.empty:
            import difflib

            close = difflib.get_close_matches(
                name, places["name"].dropna().tolist(), n=3
            )
            hint = (
                f"did you mean {', '.join(close)}?"
                if close
                else "Map.places lists the names"
            )
            raise MapArgumentError(
                fn, arg, f"no place named {_show(name)} on map {self.name!r}; {hint}"
            )
        # prefer towns over villages etc. when a name repeats
        order = {"town": 0, "suburb": 1, "village": 2, "peak": 3, "hamlet": 4}
        hit = hit.assign(_o=hit["class"].map(order).fillna(9)).sort_values("_o")
        return float(hit.iloc[0]["x"]), float(hit.iloc[0]["y"])

    def hex_of_place(self, name: str) -> str:
        """Label of the hex holding a named place or peak (remembered per map:
        scenarios ask it again for every game)."""
        memo: dict[str, str] = self.__dict__.setdefault("_hex_of_place_memo", {})
        if isinstance(name, str) and name in memo:
            return memo[name]
        fn = "Map.hex_of_place"
        x, y = self._place_xy(self.places, name, fn, "name")
        label = self._hex_label_at(fn, "name", x, y)
        memo[name] = label
        return label

    # -- window --------------------------------------------------------------- #
    def _window_bounds(self, w: Window) -> tuple[float, float, float, float]:
        """The window's bounds, checked against the whole map (``load_map`` errors).

        A bbox in metres must lie inside the map. A bbox in degrees must lie inside
        the map's lon/lat envelope; its metre envelope is then cut to the map (a
        degree box is not a metre box). A place window may not be wider or taller
        than the map; near an edge it is cut to the map.
        """
        fn = "load_map"
        fx0, fy0, fx1, fy1 = self.full_bounds
        if w.bbox is not None:
            xmin, ymin, xmax, ymax = w.bbox
            if w.lonlat:
                west, south, east, north = self._lonlat_envelope(self.full_bounds)
                if not (
                    west <= xmin and xmax <= east and south <= ymin and ymax <= north
                ):
                    raise MapArgumentError(
                        fn,
                        "window.bbox",
                        f"{_pair(*w.bbox)} reaches outside the map; give a box "
                        f"inside lon {west:.4f}–{east:.4f}, lat {south:.4f}–"
                        f"{north:.4f}",
                    )
                xs, ys = self._to_utm.transform(
                    [xmin, xmax, xmin, xmax], [ymin, ymin, ymax, ymax]
                )
                xmin, xmax = max(min(xs), fx0), min(max(xs), fx1)
                ymin, ymax = max(min(ys), fy0), min(max(ys), fy1)
            elif not (fx0 <= xmin and xmax <= fx1 and fy0 <= ymin and ymax <= fy1):
                where = (
                    "lies outside the map"
                    if xmin >= fx1 or xmax <= fx0 or ymin >= fy1 or ymax <= fy0
                    else "reaches outside the map"
                )
                raise MapArgumentError(
                    fn,
                    "window.bbox",
                    f"{_pair(*w.bbox)} {where}; give a box inside x "
                    f"{_m(fx0)}–{_m(fx1)}, y {_m(fy0)}–{_m(fy1)} "
                    f"(metres in {self.crs})",
                )
            return (xmin, ymin, xmax, ymax)
        assert w.place is not None  # Window checks that one of them is given
        for arg, size, most in (
            ("window.width_m", w.width_m, fx1 - fx0),
            ("window.height_m", w.height_m, fy1 - fy0),
        ):
            if size > most:
                raise MapArgumentError(
                    fn,
                    arg,
                    f"{_show(size)} is larger than the map; give metres, more than "
                    f"0 and at most {_m(most)}",
                )
        full_map = Map(self.folder, self.meta)  # places do not depend on hexes
        cx, cy = self._place_xy(full_map.places, w.place, fn, "window.place")
        xmin, xmax = cx - w.width_m / 2, cx + w.width_m / 2
        ymin, ymax = cy - w.height_m / 2, cy + w.height_m / 2
        return (max(xmin, fx0), max(ymin, fy0), min(xmax, fx1), min(ymax, fy1))

    # -- hexes ---------------------------------------------------------------- #
    def hex_at_xy(self, x: float, y: float) -> str:
        """Label of the hex containing a point in map metres.

        Raises:
            MapArgumentError: (a ``ValueError``) if ``x`` or ``y`` is not a finite
                number on the map (the message gives the map's range).

        Examples:
            >>> m = load_map()
            >>> m.hex_at_xy(376115.0, 5605139.0)
            'CB83'
        """
        xv, yv = self._xy("Map.hex_at_xy", x, y, many=False)
        return self._hex_label_at("Map.hex_at_xy", "x, y", xv, yv)

    @cached_property
    def full_grid(self) -> HexGrid:
        """The hex grid of the whole map at this map's hex size (a window has its
        own grid, anchored at the window's corner: its labels differ)."""
        if self.window is None:
            return self.grid
        return HexGrid.covering(self.full_bounds, self.hex_size_m)

    def full_map_label(self, label: str) -> tuple[str, bool]:
        """The label the whole map gives the place of a window's hex: the
        whole-map hex holding this hex's centre, and whether the two hexes are
        the same (the grids line up there) or only overlap.

        A window anchors its own grid at its north-west corner, so its labels
        start at A1; this says where a window's hex lies in the labels of the
        whole map (as World at War's map and ``wargame los`` on the whole map
        name it).

        Examples:
            >>> w = load_map(window="Remagen")
            >>> w.full_map_label(w.hex_of_place("Remagen"))
            ('BP87', False)
            >>> m = load_map()
            >>> m.full_map_label("CB83")
            ('CB83', True)
        """
        if self.window is None:
            self.grid.center(label)  # a KeyError names a label not on the map
            return label, True
        x, y = self.grid.center(label)
        full = self.full_grid
        q, r = full.axial_of_index(int(full.index_at_xy(x, y)))
        name = full.label_of(int(q), int(r))
        fx, fy = full.center(name)
        return name, math.hypot(fx - x, fy - y) < 1.0

    def _hex_label_at(self, fn: str, arg: str, x: float, y: float) -> str:
        idx = int(self.grid.index_at_xy(x, y))
        if idx < 0:  # pragma: no cover - the grid covers the map's bounds
            raise MapArgumentError(
                fn, arg, f"{_pair(x, y)} is outside the hex grid; {self._xy_fix()}"
            )
        q, r = self.grid.axial_of_index(idx)
        return self.grid.label_of(int(q), int(r))

    def hex_at(self, *, lon: float, lat: float) -> str:
        """Label of the hex containing a WGS84 point.

        Raises:
            MapArgumentError: (a ``ValueError``) if ``lon``/``lat`` is not one finite
                number or the point is off the map (the message gives its range).

        Examples:
            >>> m = load_map()
            >>> m.hexes.loc[m.hex_at(lon=7.2287, lat=50.5792), "terrain"]
            'town'
        """
        fn = "Map.hex_at"
        w, s, e, n = self.lonlat_bounds
        fix = (
            f"give one WGS84 point on the map (about lon {w:.3f}–{e:.3f}, "
            f"lat {s:.3f}–{n:.3f})"
        )
        lo = _scalar(fn, "lon", lon, fix)
        la = _scalar(fn, "lat", lat, fix)
        _in_range(fn, "lon", lo, -180.0, 180.0, "is not a longitude", fix)
        _in_range(fn, "lat", la, -90.0, 90.0, "is not a latitude", fix)
        xy = self._to_utm.transform(lo, la)
        x, y = float(xy[0]), float(xy[1])
        if not bool(self._inside(x, y)):
            raise MapArgumentError(
                fn, "lon, lat", f"{_pair(lo, la)} is off the map; {fix}"
            )
        return self._hex_label_at(fn, "lon, lat", x, y)

    def hex_center(self, label: str) -> tuple[float, float]:
        """Centre of a hex in map metres."""
        return self.grid.center(self._label("Map.hex_center", "label", label))

    def hex_polygon(self, label: str) -> shapely.Polygon:
        """The hexagon of a hex label, in map metres."""
        lab = self._label("Map.hex_polygon", "label", label)
        return shapely.Polygon(self.grid.corners(lab))

    def hex_polygons(
        self, labels: Sequence[str] | None = None
    ) -> npt.NDArray[np.object_]:
        """Hexagons of many labels (all hexes by default), vectorised."""
        if labels is None:
            q, r = self.grid.all_axial()
        else:
            if isinstance(labels, str) or not isinstance(labels, Sequence | np.ndarray):
                raise MapArgumentError(
                    "Map.hex_polygons",
                    "labels",
                    f"{_show(labels)} is not a list of hex labels; give a list "
                    "such as ['L12', 'M3']",
                )
            checked = [
                self._label("Map.hex_polygons", f"labels[{i}]", lab)
                for i, lab in enumerate(labels)
            ]
            qr = np.array([self.grid.axial_of_label(lab) for lab in checked])
            qr = qr.reshape(-1, 2)
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
        fn = "Map.obstacle_heights_m"
        if not isinstance(heights, Mapping):
            raise MapArgumentError(
                fn,
                "heights",
                f"{_show(heights)} is not a mapping; give heights by terrain class, "
                "e.g. {'woods': 20.0}",
            )
        self.__dict__["_obstacle_heights_m"] = _obstacle_heights(fn, "heights", heights)

    def los(
        self,
        a: str | tuple[float, float],
        b: str | tuple[float, float],
        observer_height_m: float = 2.5,
        target_height_m: float = 2.0,
        obstacles: bool | dict[str, float] = True,
        hex_rule: bool = True,
        standing_in: bool | tuple[bool, bool] = False,
        margin_m: float = 15.0,
    ) -> Any:
        """Line of sight from ``a`` to ``b`` (hex labels or ``(x, y)`` map metres).

        Returns a :class:`wargame.geo.los.LOSResult` (``visible``, ``blocked_at``,
        ``blocker``, ``profile``, ``plot()``); the model is documented in
        :mod:`wargame.geo.los`. Between hex labels it equals :meth:`hex_los_table`.
        ``hex_rule=False``: the rule for free points instead (:meth:`los_points`;
        a label stands for its hex's centre), with ``standing_in`` and
        ``margin_m`` (unused with the hex rule).

        Examples:
            >>> m = load_map()
            >>> m.los(m.place_xy("Erpeler Ley"), m.place_xy("Remagen")).visible
            True
        """
        from wargame.geo import los as _los

        fn = "Map.los"
        pa, pb = self._where(fn, "a", a), self._where(fn, "b", b)
        if not _flag(fn, "hex_rule", hex_rule):
            xa, xb = (self._center_on_map(p) for p in (pa, pb))
            return self.los_points(
                xa,
                xb,
                observer_height_m,
                target_height_m,
                obstacles,
                standing_in,
                margin_m,
            )
        h_o = _height(fn, "observer_height_m", observer_height_m)
        h_t = _height(fn, "target_height_m", target_height_m)
        obs = self._obstacles(fn, obstacles)
        terrain = _los.terrain_of_map(self)
        return _los.line_of_sight(terrain, pa, pb, h_o, h_t, obs)

    def los_points(
        self,
        a: tuple[float, float],
        b: tuple[float, float],
        observer_height_m: float = 2.5,
        target_height_m: float = 2.0,
        obstacles: bool | dict[str, float] = True,
        standing_in: bool | tuple[bool, bool] = False,
        margin_m: float = 15.0,
    ) -> Any:
        """Line of sight between two free points, with no hex rule.

        Obstacles within ``margin_m`` of either end along the sight line do not
        block (a model sees out of the patch it stands in near its edge);
        ``standing_in=True`` (or per end, ``(observer, target)``) removes that
        margin. The same points give the same answer at any hex size. See
        :mod:`wargame.geo.los_points` and ``docs/free_movement.md``.

        Examples:
            >>> m = load_map()
            >>> ley, remagen = m.place_xy("Erpeler Ley"), m.place_xy("Remagen")
            >>> m.los_points(ley, remagen, obstacles=False).visible
            True
            >>> r = m.los_points(ley, remagen)  # the town's houses hide the square
            >>> r.visible, r.blocker.kind, round(r.distance_m - r.blocked_at.distance_m)
            (False, 'town', 70)
        """
        from wargame.geo import los as _los
        from wargame.geo import los_points as _lp

        fn = "Map.los_points"
        pa, pb = self._xy_point(fn, "a", a), self._xy_point(fn, "b", b)
        h_o = _height(fn, "observer_height_m", observer_height_m)
        h_t = _height(fn, "target_height_m", target_height_m)
        obs = self._obstacles(fn, obstacles)
        return _lp.point_line_of_sight(
            _los.terrain_of_map(self),
            pa,
            pb,
            h_o,
            h_t,
            obs,
            standing_in=_lp.standing_flags(standing_in, fn),
            margin_m=_lp.check_margin(margin_m, fn),
        )

    def los_pairs(
        self,
        a_xy: npt.ArrayLike,
        b_xy: npt.ArrayLike,
        observer_height_m: float = 2.5,
        target_height_m: float = 2.0,
        max_range_m: float | None = None,
        obstacles: bool | dict[str, float] = True,
        standing_in: bool | tuple[bool, bool] = False,
        margin_m: float = 15.0,
    ) -> npt.NDArray[np.bool_]:
        """``(n, m)`` booleans: the point ``a_xy[i]`` sees ``b_xy[j]`` (compiled).

        The rule of :meth:`los_points`, pair for pair the same answers; pairs
        farther apart than ``max_range_m`` are False. See
        :func:`wargame.geo.los_points.los_pairs`.

        Examples:
            >>> m = load_map()
            >>> ley, rem = m.place_xy("Erpeler Ley"), m.place_xy("Remagen")
            >>> v = m.los_pairs([ley], [rem, ley], max_range_m=2000, obstacles=False)
            >>> v.tolist()
            [[True, True]]
        """
        from wargame.geo import los as _los
        from wargame.geo import los_points as _lp

        fn = "Map.los_pairs"
        a = self._xy_array(fn, "a_xy", a_xy)
        b = self._xy_array(fn, "b_xy", b_xy)
        h_o = _height(fn, "observer_height_m", observer_height_m)
        h_t = _height(fn, "target_height_m", target_height_m)
        obs = self._obstacles(fn, obstacles)
        return _lp.los_pairs(
            _los.terrain_of_map(self),
            a,
            b,
            h_o,
            h_t,
            max_range_m,
            obs,
            standing_in=_lp.standing_flags(standing_in, fn),
            margin_m=_lp.check_margin(margin_m, fn),
        )

    # -- free movement: going along a path (wargame.geo.going, .reach) ------- #
    def terrain_along(self, path: npt.ArrayLike) -> pd.DataFrame:
        """Terrain classes along a path, one row per stretch of one class.

        Columns ``class``, ``start_m``, ``end_m``, ``length_m``; ``path`` is
        ``(n, 2)`` map metres, n >= 2. See :func:`wargame.geo.going.terrain_along`.
        """
        from wargame.geo import going

        return going.terrain_along(self, path)

    def features_crossed(
        self, path: npt.ArrayLike, along_tol_m: float = 10.0
    ) -> pd.DataFrame:
        """Roads, rail and waterways a path crosses or runs along (with points).

        See :func:`wargame.geo.going.features_crossed` for the columns.
        """
        from wargame.geo import going

        return going.features_crossed(self, path, along_tol_m)

    def slope_along(self, path: npt.ArrayLike, step_m: float = 10.0) -> Any:
        """Grades along a path from the DEM: a :class:`wargame.geo.going.SlopeAlong`."""
        from wargame.geo import going

        return going.slope_along(self, path, step_m)

    def reach_polygon(
        self,
        origin: tuple[float, float],
        allowance: float,
        cost_per_class: Mapping[str, float | None],
        road_cost: Mapping[str, float] | None = None,
        resolution_m: float = 10.0,
    ) -> shapely.Geometry:
        """Ground reachable within a movement allowance (metres of clear going).

        See :func:`wargame.geo.reach.reach_polygon`.
        """
        from wargame.geo import reach

        return reach.reach_polygon(
            self, origin, allowance, cost_per_class, road_cost, resolution_m
        )

    def _center_on_map(self, where: str | tuple[float, float]) -> tuple[float, float]:
        """A point, or a hex's centre moved onto the map (edge hexes stick out)."""
        if not isinstance(where, str):
            return where
        cx, cy = self.grid.center(where)
        xmin, ymin, xmax, ymax = self.bounds
        return (min(max(cx, xmin), xmax), min(max(cy, ymin), ymax))

    def _xy_point(self, fn: str, arg: str, where: Any) -> tuple[float, float]:
        """An ``(x, y)`` point on the map (no hex labels)."""
        if isinstance(where, str):
            raise MapArgumentError(
                fn, arg, f"{_show(where)} is a hex label; {self._xy_fix()}, as (x, y)"
            )
        p = self._where(fn, arg, where)
        assert not isinstance(p, str)
        return p

    def _xy_array(self, fn: str, arg: str, value: Any) -> npt.NDArray[np.float64]:
        """An ``(n, 2)`` array of points on the map (one point: ``(1, 2)``)."""
        from wargame.geo.geocheck import points_on_map

        return points_on_map(self, fn, arg, value)

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

        fn = "Map.viewshed"
        where = self._where(fn, "observer", observer)
        if isinstance(where, str):
            # An edge hex's centre may lie just past the map: look from the
            # nearest point of the map (a small radius would otherwise miss
            # the elevation raster altogether).
            cx, cy = self.grid.center(where)
            xmin, ymin, xmax, ymax = self.bounds
            inside = (min(max(cx, xmin), xmax), min(max(cy, ymin), ymax))
            if inside != (cx, cy):
                where = inside
        r = self._radius(fn, radius_m)
        h_o = _height(fn, "observer_height_m", observer_height_m)
        h_t = _height(fn, "target_height_m", target_height_m)
        obs = self._obstacles(fn, obstacles)
        return _vs.map_viewshed(
            self, where, r, h_o, h_t, obs, _flag(fn, "as_array", as_array)
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

        fn = "Map.hex_viewshed"
        label = self._label(fn, "hex", hex)
        rng = self._range_hexes(fn, range_hexes)
        h_o = _height(fn, "observer_height_m", observer_height_m)
        h_t = _height(fn, "target_height_m", target_height_m)
        obs = self._obstacles(fn, obstacles)
        return _los.hex_viewshed(_los.terrain_of_map(self), label, rng, h_o, h_t, obs)

    def hex_los_table(
        self,
        range_hexes: int = 20,
        observer_height_m: float = 2.5,
        target_height_m: float = 2.0,
        obstacles: bool | dict[str, float] = True,
        cache: bool | str | os.PathLike[str] = True,
    ) -> Any:
        """Visibility of every hex pair within ``range_hexes`` (cached on disk).

        Returns a :class:`wargame.geo.los.HexLOSTable`: ``table.visible("L1",
        "M3")`` or ``table.visible_index(i, j)`` over index arrays.
        """
        from wargame.geo import los as _los

        fn = "Map.hex_los_table"
        rng = self._range_hexes(fn, range_hexes)
        h_o = _height(fn, "observer_height_m", observer_height_m)
        h_t = _height(fn, "target_height_m", target_height_m)
        obs = self._obstacles(fn, obstacles)
        if not isinstance(cache, bool | str | os.PathLike):
            raise MapArgumentError(
                fn,
                "cache",
                f"{_show(cache)} is not True, False or a folder; give one of them",
            )
        folder = cache if isinstance(cache, bool) else Path(cache)
        return _los.hex_los_table(
            _los.terrain_of_map(self), rng, h_o, h_t, obs, cache=folder
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
    _check_hex_count(m)  # a Map made without load_map: still bounded
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
    inside = m._inside(sx, sy).reshape(n, k)
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
    ein = m._inside(ex, ey).reshape(n, -1) | ~on_map[:, None]
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

    Every argument is checked before anything is built: ``name`` (a short map
    id), ``hex_size_m`` (:data:`HEX_SIZE_RANGE_M`), the ``window`` (types, inside
    the map, no larger than it) and the number of hexes (:data:`MAX_HEXES`).

    Raises:
        MapArgumentError: (a ``ValueError``) a bad argument, in the shape
            ``load_map: <argument>: <problem>; <fix>`` (``window.bbox``, ...).
        MapDataError: a map file is missing or damaged (names the file).

    Examples:
        >>> m = load_map("rhine-remagen", hex_size_m=50, window="Linz")
        >>> m.grid.n_hexes < 6000
        True
        >>> try:
        ...     load_map(hex_size_m=1)
        ... except ValueError as exc:
        ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
        load_map: hex_size_m: 1 is out of range;
        give the distance between hex centres in metres, 10 to 10000
    """
    fn = "load_map"
    if (
        not isinstance(name, str)
        or len(name) > MAX_NAME_CHARS
        or not _NAME_RE.match(name)
    ):
        raise MapArgumentError(
            fn,
            "name",
            f"{_show(name)} is not a map name (letters, digits, '.', '_', '-'; at "
            f"most {MAX_NAME_CHARS} characters); give one of: "
            f"{', '.join(available_maps()) or '(no maps found)'}",
        )
    size = _check_hex_size(fn, hex_size_m)
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
    m = Map(folder, meta, hex_size_m=size, window=Window.coerce(window, fn, "window"))
    _check_hex_count(m)
    return m


def _check_hex_count(m: Map) -> None:
    """Refuse a grid of more than :data:`MAX_HEXES` hexes (before any is built)."""
    n = m.grid.n_hexes
    if n <= MAX_HEXES:
        return
    bounds = m.bounds
    xmin, ymin, xmax, ymax = bounds
    # the smallest whole-metre hex within the limit (the count falls with size)
    least = math.ceil(math.sqrt((xmax - xmin) * (ymax - ymin) / (MAX_HEXES * 0.866)))
    while HexGrid.covering(bounds, least).n_hexes > MAX_HEXES:
        least += 1
    what = "window" if m.window is not None else "map"
    raise MapArgumentError(
        "load_map",
        "hex_size_m",
        f"{m.hex_size_m:g} m hexes on this {(xmax - xmin) / 1000:.1f} × "
        f"{(ymax - ymin) / 1000:.1f} km {what} make {n:,} hexes, more than the "
        f"limit of {MAX_HEXES:,}; give hexes of at least {least} m or a smaller "
        "window",
    )
