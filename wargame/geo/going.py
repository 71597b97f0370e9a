"""Going along a path on the real map: terrain crossed, linear features, slope.

All from the map's shipped vector layers and DEM, with shapely 2's vectorised
operations (``docs/free_movement.md``):

* :func:`terrain_along`: the generic terrain classes a path crosses, one row per
  stretch of one class (``class``, ``start_m``, ``end_m``, ``length_m``). From the
  terrain polygons (``terrain.geojson.gz``); where polygons of several classes
  overlap, the class drawn last in the land-cover raster wins (park < orchard <
  wetland < woods < town < water, the order of ``TERRAIN_CLASSES``), as in
  :meth:`Map.terrain_at`. Outside every polygon: ``clear``. The polygons are
  simplified by 5 m and parts under 400 m² are left out, so the stretches agree
  with the 10 m raster to within about a cell at each edge.
* :func:`features_crossed`: roads (by class), rail and waterways the path
  crosses, with the crossing point, and the stretches it travels *along* a road
  or rail line (within ``along_tol_m`` of it for at least ``4 * along_tol_m``;
  ASSUMPTION: 10 m, about a road's width plus the model's placing).
* :func:`slope_along`: grades from the DEM (bilinear, 50 m SRTM cells: slopes
  shorter than a cell are smoothed away).
* :func:`reach_polygon` (in :mod:`wargame.geo.reach`): the area reachable with a
  movement allowance.

Examples:
    >>> from wargame.geo.maps import load_map
    >>> m = load_map()
    >>> t = terrain_along(m, [(376000.0, 5605000.0), (376500.0, 5605000.0)])
    >>> list(t.columns), round(float(t["length_m"].sum()))
    (['class', 'start_m', 'end_m', 'length_m'], 500)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import shapely

from wargame.geo.geocheck import path_on_map, positive
from wargame.geo.reach import reach_polygon
from wargame.geo.terrain import TERRAIN_CLASSES

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

__all__ = [
    "ALONG_TOL_M",
    "SlopeAlong",
    "features_crossed",
    "reach_polygon",
    "slope_along",
    "terrain_along",
]

#: A path within this distance of a road or rail line runs along it (m).
ALONG_TOL_M = 10.0
# A stretch within the tolerance counts as "along" when at least this many
# tolerances long (a square crossing is 2 tolerances long; 4 is a crossing at
# under 30 degrees, which travels along the road as much as across it).
_ALONG_MIN = 4.0


def _cache(m: Map) -> dict[str, Any]:
    return m.__dict__.setdefault("_going_cache", {})  # type: ignore[no-any-return]


def _terrain_index(m: Map) -> tuple[shapely.STRtree, Any, npt.NDArray[np.int64]]:
    c = _cache(m)
    if "terrain" not in c:
        df = m.layer("terrain")
        geoms = np.asarray(df["geometry"].to_numpy(), dtype=object)
        codes = np.array([TERRAIN_CLASSES.index(k) for k in df["class"]], np.int64)
        shapely.prepare(geoms)
        c["terrain"] = (shapely.STRtree(geoms), shapely.boundary(geoms), codes)
    return c["terrain"]  # type: ignore[no-any-return]


def _segments(path: npt.NDArray[np.float64]) -> tuple[Any, Any, Any, Any]:
    """Non-degenerate segments: geometries, starts, unit vectors, lengths, offsets."""
    a, b = path[:-1], path[1:]
    length = np.hypot(*(b - a).T)
    keep = length > 0
    a, b, length = a[keep], b[keep], length[keep]
    segs = shapely.linestrings(np.stack([a, b], axis=1))
    start = np.concatenate([[0.0], np.cumsum(length)[:-1]])
    return segs, a, (b - a), (length, start)


def _t_on(a: Any, d: Any, seg: Any, xy: Any) -> Any:
    """Parameters in [0, 1] of points ``xy`` on segments ``seg`` (index arrays)."""
    dd = d[seg]
    t = ((xy - a[seg]) * dd).sum(axis=1) / (dd * dd).sum(axis=1)
    return np.clip(t, 0.0, 1.0)


def terrain_along(m: Map, path: npt.ArrayLike) -> pd.DataFrame:
    """The terrain classes along ``path`` (``(n, 2)`` map metres, n >= 2).

    One row per stretch of one class, in order from the path's first point:
    ``class`` (generic class), ``start_m``/``end_m`` (distance along the path),
    ``length_m``. Consecutive stretches of one class are merged, also across the
    path's vertices. See the module doc for the rule where polygons overlap.
    """
    cls, st, en = terrain_along_arrays(m, path)
    return pd.DataFrame({"class": cls, "start_m": st, "end_m": en, "length_m": en - st})


def terrain_along_arrays(
    m: Map, path: npt.ArrayLike
) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``(class, start_m, end_m)`` arrays of :func:`terrain_along`'s rows (for
    callers that ask about many paths: no frame is built)."""
    fn = "Map.terrain_along"
    p = path_on_map(m, fn, "path", path)
    tree, bounds, codes = _terrain_index(m)
    segs, a, d, (length, start) = _segments(p)
    ns = len(segs)
    # every place the path crosses a polygon's edge, as (segment, t)
    si, pi = tree.query(segs, predicate="intersects")
    cut_seg = [np.arange(ns), np.arange(ns)]
    cut_t = [np.zeros(ns), np.ones(ns)]
    if si.size:
        hits = shapely.intersection(segs[si], bounds[pi])
        xy, k = shapely.get_coordinates(hits, return_index=True)
        if len(xy):
            cut_seg.append(si[k])
            cut_t.append(_t_on(a, d, si[k], xy))
    cs = np.concatenate(cut_seg)
    ct = np.concatenate(cut_t)
    order = np.lexsort((ct, cs))
    cs, ct = cs[order], ct[order]
    same = cs[1:] == cs[:-1]
    lo_s, lo_t, hi_t = cs[:-1][same], ct[:-1][same], ct[1:][same]
    keep = hi_t > lo_t
    lo_s, lo_t, hi_t = lo_s[keep], lo_t[keep], hi_t[keep]
    mid = a[lo_s] + d[lo_s] * ((lo_t + hi_t) / 2)[:, None]
    code = np.zeros(len(mid), np.int64)
    qi, qp = tree.query(shapely.points(mid), predicate="within")
    np.maximum.at(code, qi, codes[qp])
    s0 = start[lo_s] + lo_t * length[lo_s]
    s1 = start[lo_s] + hi_t * length[lo_s]
    # merge runs of one class
    new = np.concatenate([[True], code[1:] != code[:-1]])
    first = np.flatnonzero(new)
    last = np.concatenate([first[1:] - 1, [len(code) - 1]])
    st, en = s0[first], s1[last]
    return np.asarray(TERRAIN_CLASSES, dtype=object)[code[first]], st, en


def _line_index(m: Map, layer: str) -> tuple[shapely.STRtree, Any, pd.DataFrame]:
    c = _cache(m)
    key = f"lines:{layer}"
    if key not in c:
        df = m.layer(layer)
        geoms = np.asarray(df["geometry"].to_numpy(), dtype=object)
        c[key] = (shapely.STRtree(geoms), geoms, df)
    return c[key]  # type: ignore[no-any-return]


def _intervals(lo: Any, hi: Any) -> list[tuple[float, float]]:
    """Union of intervals (sorted, touching ones merged)."""
    out: list[tuple[float, float]] = []
    for s, e in sorted(zip(lo.tolist(), hi.tolist(), strict=True)):
        if out and s <= out[-1][1] + 1e-6:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


_KINDS = (("roads", "road"), ("rail", "rail"), ("waterways", "waterway"))
_COLUMNS = [
    "kind",
    "class",
    "how",
    "start_m",
    "end_m",
    "length_m",
    "x",
    "y",
    "bridge",
    "name",
]


def features_crossed(
    m: Map, path: npt.ArrayLike, along_tol_m: float = ALONG_TOL_M
) -> pd.DataFrame:
    """Roads, rail and waterways the path crosses or runs along, in path order.

    Columns: ``kind`` (``road``, ``rail``, ``waterway``), ``class`` (road class,
    ``rail``, or ``river``/``canal``/``stream``), ``how`` (``crosses`` at a
    point, or ``along`` for a stretch; only roads and rail have stretches),
    ``start_m``/``end_m``/``length_m`` along the path (a crossing has length 0),
    ``x``/``y`` (the crossing point, or where the stretch begins), ``bridge``
    (a road or rail piece on a bridge; for a waterway, whether a bridge of the
    map's ``crossings`` layer lies within ``along_tol_m`` of the crossing) and
    ``name`` (waterways' names where the map has one).

    A crossing inside a stretch along a feature of the same kind and class is
    not listed again (the path follows that road).
    """
    out = pd.DataFrame(features_crossed_rows(m, path, along_tol_m), columns=_COLUMNS)
    return out.reset_index(drop=True)


def features_crossed_rows(
    m: Map, path: npt.ArrayLike, along_tol_m: float = ALONG_TOL_M
) -> list[dict[str, Any]]:
    """The rows of :func:`features_crossed` as plain dicts, in path order
    (for callers that read a few fields of many paths: no frame is built)."""
    fn = "Map.features_crossed"
    p = path_on_map(m, fn, "path", path)
    tol = positive(fn, "along_tol_m", along_tol_m, allow_zero=False)
    segs, a, d, (length, start) = _segments(p)
    rows: list[dict[str, Any]] = []
    bridges = None
    for layer, kind in _KINDS:
        tree, geoms, df = _line_index(m, layer)
        si, gi = tree.query(segs, predicate="dwithin", distance=tol)
        if not si.size:
            continue
        cls = df["class"].to_numpy()
        along: dict[str, list[tuple[float, float]]] = {}
        if kind != "waterway":
            pieces = shapely.intersection(segs[si], shapely.buffer(geoms[gi], tol))
            parts, k = shapely.get_parts(pieces, return_index=True)
            parts_xy = [shapely.get_coordinates(g) for g in parts]
            lo_hi: dict[str, tuple[list[float], list[float]]] = {}
            for g_xy, kk in zip(parts_xy, k, strict=True):
                if len(g_xy) < 2:
                    continue
                s = int(si[kk])
                t = _t_on(a, d, np.full(len(g_xy), s), g_xy)
                lo_hi.setdefault(str(cls[gi[kk]]), ([], []))
                lo_hi[str(cls[gi[kk]])][0].append(start[s] + t.min() * length[s])
                lo_hi[str(cls[gi[kk]])][1].append(start[s] + t.max() * length[s])
            for c, (lo, hi) in lo_hi.items():
                spans = [
                    iv
                    for iv in _intervals(np.array(lo), np.array(hi))
                    if iv[1] - iv[0] >= _ALONG_MIN * tol
                ]
                along[c] = spans
                for s0, s1 in spans:
                    x, y = _at(p, s0)
                    rows.append(
                        {
                            "kind": kind,
                            "class": c,
                            "how": "along",
                            "start_m": s0,
                            "end_m": s1,
                            "length_m": s1 - s0,
                            "x": x,
                            "y": y,
                            "bridge": _bridge_along(df, tree, geoms, p, s0, s1, c),
                            "name": None,
                        }
                    )
        hits = shapely.intersection(segs[si], geoms[gi])
        xy, k = shapely.get_coordinates(hits, return_index=True)
        if not len(xy):
            continue
        s_idx = si[k]
        dist = start[s_idx] + _t_on(a, d, s_idx, xy) * length[s_idx]
        seen: set[tuple[str, float]] = set()
        for (x, y), dd, kk in zip(xy, dist, k, strict=True):
            g = int(gi[kk])
            c = str(cls[g])
            if any(s0 - 1e-6 <= dd <= s1 + 1e-6 for s0, s1 in along.get(c, [])):
                continue
            key = (c, round(float(dd), 1))
            if key in seen:  # one crossing, two touching pieces
                continue
            seen.add(key)
            if kind == "waterway":
                if bridges is None:
                    bridges = _bridges(m)
                bridged = bool(
                    len(
                        bridges.query(
                            shapely.points(x, y), predicate="dwithin", distance=tol
                        )
                    )
                )
                name = df["name"].iloc[g]
                name = name if isinstance(name, str) else None
            else:
                bridged, name = bool(df["bridge"].iloc[g]), None
            rows.append(
                {
                    "kind": kind,
                    "class": c,
                    "how": "crosses",
                    "start_m": float(dd),
                    "end_m": float(dd),
                    "length_m": 0.0,
                    "x": float(x),
                    "y": float(y),
                    "bridge": bridged,
                    "name": name,
                }
            )
    # in path order, ties by kind (a stable sort, as the frame's was)
    return sorted(rows, key=lambda r: (r["start_m"], r["kind"]))


def _bridges(m: Map) -> shapely.STRtree:
    c = _cache(m)
    if "bridges" not in c:
        df = m.layer("crossings")
        g = df.loc[df["kind"] != "ferry", "geometry"].to_numpy()
        c["bridges"] = shapely.STRtree(np.asarray(g, dtype=object))
    return c["bridges"]  # type: ignore[no-any-return]


def _bridge_along(
    df: pd.DataFrame, tree: Any, geoms: Any, p: Any, s0: float, s1: float, c: str
) -> bool:
    """Whether the stretch runs along a bridge piece of that class."""
    line = shapely.line_interpolate_point(
        shapely.linestrings(p), np.linspace(s0, s1, 9)
    )
    idx = tree.query(line, predicate="dwithin", distance=ALONG_TOL_M)[1]
    sel = df.iloc[np.unique(idx)]
    return bool(((sel["class"] == c) & sel["bridge"].astype(bool)).any())


def _at(p: npt.NDArray[np.float64], s: float) -> tuple[float, float]:
    pt = shapely.line_interpolate_point(shapely.linestrings(p), s)
    return float(shapely.get_x(pt)), float(shapely.get_y(pt))


@dataclass(frozen=True)
class SlopeAlong:
    """Grades along a path (rise over run, 0.1 = 10 %), from the DEM.

    Attributes:
        max_grade: steepest absolute grade over one sample step.
        max_uphill, max_downhill: steepest climb and steepest descent (>= 0).
        mean_grade: length-weighted mean absolute grade.
        climb_m, descent_m: total height gained and lost.
        profile: ``distance_m``, ``x``, ``y``, ``ground_m`` per sample and the
            ``grade`` of the step that ends there (0 at the first sample).
    """

    max_grade: float
    max_uphill: float
    max_downhill: float
    mean_grade: float
    climb_m: float
    descent_m: float
    profile: pd.DataFrame


def slope_along(m: Map, path: npt.ArrayLike, step_m: float = 10.0) -> SlopeAlong:
    """Grades along ``path`` sampled every ``step_m`` (or less) on every segment.

    Every vertex of the path is a sample; ground is the bilinear DEM
    (:meth:`Map.elevation`).

    Examples:
        >>> from wargame.geo.maps import load_map
        >>> m = load_map()
        >>> s = slope_along(m, [m.place_xy("Remagen"), m.place_xy("Erpeler Ley")])
        >>> s.climb_m > 80, s.max_uphill > 0.3
        (True, True)
    """
    xy, z, dist, grade, run = _grades(m, path, step_m)
    rise = np.diff(z)
    prof = pd.DataFrame(
        {
            "distance_m": dist,
            "x": xy[:, 0],
            "y": xy[:, 1],
            "ground_m": z,
            "grade": np.concatenate([[0.0], grade]),
        }
    )
    total = float(run.sum())
    return SlopeAlong(
        max_grade=float(np.abs(grade).max()),
        max_uphill=float(max(grade.max(), 0.0)),
        max_downhill=float(max(-grade.min(), 0.0)),
        mean_grade=float((np.abs(grade) * run).sum() / total),
        climb_m=float(rise[rise > 0].sum()),
        descent_m=float(-rise[rise < 0].sum()),
        profile=prof,
    )


def grades_along(
    m: Map, path: npt.ArrayLike, step_m: float = 10.0
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``(distance_m, grade)`` of :func:`slope_along`'s profile as arrays (the
    grade of the step ending at each sample, 0 at the first)."""
    _, _, dist, grade, _ = _grades(m, path, step_m)
    return dist, np.concatenate([[0.0], grade])


def _grades(
    m: Map, path: npt.ArrayLike, step_m: float
) -> tuple[Any, Any, Any, Any, Any]:
    """Samples ``xy``, ground ``z``, distance along, the grade and the length
    of each step."""
    fn = "Map.slope_along"
    p = path_on_map(m, fn, "path", path)
    st = positive(fn, "step_m", step_m, allow_zero=False)
    pts = [p[:1]]
    for a, b in itertools.pairwise(p):
        n = max(int(np.ceil(np.hypot(*(b - a)) / st - 1e-9)), 1)
        t = np.arange(1, n + 1)[:, None] / n
        pts.append(a + (b - a) * t)
    xy = np.concatenate(pts)
    z = np.asarray(m.elevation(xy[:, 0], xy[:, 1]), dtype=np.float64)
    run = np.hypot(*np.diff(xy, axis=0).T)
    rise = np.diff(z)
    ok = run > 0
    grade = np.zeros_like(run)
    grade[ok] = rise[ok] / run[ok]
    dist = np.concatenate([[0.0], np.cumsum(run)])
    return xy, z, dist, grade, run
