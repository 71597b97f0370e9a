"""Measurement in free space: distances, ground scales, a spatial index, arcs, bases.

Everything here works in map metres (UTM 32N on the shipped maps) and knows
nothing of a map's extent: :class:`~wargame.geo.maps.Map` checks that points lie
on the map, these functions only that they are finite numbers.

* :class:`GroundScale`: metres per table unit (inches, "5 cm steps") and the
  rounding a rule system applies to a measured distance.
* :func:`distance`: vectorised Euclidean distance.
* :class:`PointIndex`: a uniform-grid spatial index (compiled with numba) for
  "who is within d" over hundreds of models.
* :func:`bearing_deg`, :func:`in_arc`: facings and fire arcs. **Angles are compass
  bearings**: 0° = map north (+y), 90° = east (+x), clockwise.
* :func:`base_contact`, :func:`bases_overlap`: round bases as discs.

Examples:
    >>> s = GroundScale(25.0, "inch")   # ASSUMPTION of a rule system: 1" = 25 m
    >>> s.to_units(150.0), s.round_up(s.to_units(151.0))
    (6.0, 7.0)
    >>> distance((0, 0), (3, 4))
    5.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

# Relative slack of the rounding helpers: a distance that is a whole number of
# units but for float rounding (6.000000000001") still rounds up to 6, not 7.
ROUND_TOL = 1e-9


def _fail(fn: str, arg: str, problem: str) -> ValueError:
    # the map's error type (a ValueError naming function and argument); imported
    # lazily so that this module stays light
    from wargame.geo.maps import MapArgumentError

    return MapArgumentError(fn, arg, problem)


def _finite_number(fn: str, arg: str, value: Any, *, positive: bool = False) -> float:
    if isinstance(value, bool | np.bool_ | str | bytes):
        raise _fail(fn, arg, f"{value!r} is not a number; give metres")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise _fail(fn, arg, f"{value!r} is not a number; give metres") from None
    if not math.isfinite(v):
        raise _fail(fn, arg, f"{value!r} is not a finite number; give metres")
    if v < 0 or (positive and v == 0):
        want = "more than 0" if positive else "0 or more"
        raise _fail(fn, arg, f"{value!r} is negative or zero; give {want}")
    return v


def _finite_real(fn: str, arg: str, value: Any) -> float:
    """A finite number of any sign (bearings)."""
    if isinstance(value, bool | np.bool_ | str | bytes):
        raise _fail(fn, arg, f"{value!r} is not a number; give degrees")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise _fail(fn, arg, f"{value!r} is not a number; give degrees") from None
    if not math.isfinite(v):
        raise _fail(fn, arg, f"{value!r} is not a finite number; give degrees")
    return v


def as_points(fn: str, arg: str, value: Any, *, min_points: int = 0) -> Any:
    """``value`` as a float64 array of shape ``(..., 2)`` of finite coordinates.

    Raises ``MapArgumentError`` (a ``ValueError``) naming ``arg`` and the first bad
    element.

    Examples:
        >>> as_points("f", "xy", [(0, 1), (2, 3)]).shape
        (2, 2)
    """
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail(
            fn, arg, f"{value!r:.60} is not an array of (x, y) points in metres"
        ) from None
    if a.ndim == 0 or a.shape[-1] != 2:
        raise _fail(fn, arg, f"has shape {a.shape}; give (x, y) points, shape (n, 2)")
    bad = ~np.isfinite(a)
    if bad.any():
        i = np.unravel_index(int(np.argmax(bad)), a.shape)
        raise _fail(
            fn,
            arg,
            f"{float(a[i])!r} at index {tuple(int(k) for k in i)} is not a "
            "finite number; give metres",
        )
    if a.ndim >= 2 and a.shape[0] < min_points:
        raise _fail(fn, arg, f"has {a.shape[0]} points; give at least {min_points}")
    return a


# --------------------------------------------------------------------------- #
# Ground scale                                                                #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class GroundScale:
    """How many map metres one table unit stands for, and rounding to units.

    A rule system (or a scenario, as an option) declares its scale; the choice
    is an ASSUMPTION of that rule system, documented there.

    Args:
        metres_per_unit: ground metres per table unit (> 0).
        unit: the unit's name for messages, e.g. ``"inch"``, ``"5 cm step"``.

    Examples:
        >>> s = GroundScale(50.0, "5 cm step")
        >>> s.to_metres(3), s.to_units(125.0), s.round_nearest(2.5)
        (150.0, 2.5, 3.0)
    """

    metres_per_unit: float
    unit: str = "unit"

    def __post_init__(self) -> None:
        v = _finite_number(
            "GroundScale", "metres_per_unit", self.metres_per_unit, positive=True
        )
        object.__setattr__(self, "metres_per_unit", v)
        if not isinstance(self.unit, str) or not self.unit.strip():
            raise _fail(
                "GroundScale",
                "unit",
                f"{self.unit!r} is not a unit name; give a name such as 'inch'",
            )

    def to_units(self, metres: npt.ArrayLike) -> Any:
        """Metres to table units (vectorised; a float for a number)."""
        out = np.asarray(metres, dtype=np.float64) / self.metres_per_unit
        return float(out) if out.ndim == 0 else out

    def to_metres(self, units: npt.ArrayLike) -> Any:
        """Table units to metres (vectorised; a float for a number)."""
        out = np.asarray(units, dtype=np.float64) * self.metres_per_unit
        return float(out) if out.ndim == 0 else out

    def round_up(self, units: npt.ArrayLike, step: float = 1.0) -> Any:
        """Round up to a whole multiple of ``step`` units (ranges: 6.2" is 7").

        A value within a billionth (relative) of a multiple counts as that
        multiple, so float noise never adds a unit.

        Examples:
            >>> GroundScale(25.0, "inch").round_up([6.0, 6.2, 6.000000000001])
            array([6., 7., 6.])
        """
        st = _finite_number("GroundScale.round_up", "step", step, positive=True)
        u = np.asarray(units, dtype=np.float64) / st
        out = np.ceil(u - ROUND_TOL * np.maximum(np.abs(u), 1.0)) * st
        return float(out) if out.ndim == 0 else out

    def round_nearest(self, units: npt.ArrayLike, step: float = 1.0) -> Any:
        """Round to the nearest multiple of ``step``; halves round up (2.5 -> 3).

        Examples:
            >>> GroundScale(25.0, "inch").round_nearest([2.49, 2.5, 3.4])
            array([2., 3., 3.])
        """
        st = _finite_number("GroundScale.round_nearest", "step", step, positive=True)
        u = np.asarray(units, dtype=np.float64) / st
        out = np.floor(u + 0.5 + ROUND_TOL * np.maximum(np.abs(u), 1.0)) * st
        return float(out) if out.ndim == 0 else out

    def distance_units(self, a: npt.ArrayLike, b: npt.ArrayLike) -> Any:
        """:func:`distance` between ``a`` and ``b`` in table units (unrounded)."""
        return self.to_units(distance(a, b))


# --------------------------------------------------------------------------- #
# Distances, bearings, arcs, bases                                            #
# --------------------------------------------------------------------------- #


def distance(a: npt.ArrayLike, b: npt.ArrayLike) -> Any:
    """Euclidean distance in metres between points; broadcasts ``(..., 2)`` arrays.

    Examples:
        >>> distance([[0, 0], [1, 1]], (4, 5)).round(3).tolist()
        [6.403, 5.0]
    """
    pa = as_points("distance", "a", a)
    pb = as_points("distance", "b", b)
    d = np.hypot(pa[..., 0] - pb[..., 0], pa[..., 1] - pb[..., 1])
    return float(d) if np.ndim(d) == 0 else d


def bearing_deg(a: npt.ArrayLike, b: npt.ArrayLike) -> Any:
    """Compass bearing from ``a`` to ``b``: 0° north (+y), 90° east, in [0, 360).

    Examples:
        >>> bearing_deg((0, 0), [(0, 10), (10, 0), (0, -1)]).tolist()
        [0.0, 90.0, 180.0]
    """
    pa = as_points("bearing_deg", "a", a)
    pb = as_points("bearing_deg", "b", b)
    d = np.degrees(np.arctan2(pb[..., 0] - pa[..., 0], pb[..., 1] - pa[..., 1]))
    out = np.mod(d, 360.0)
    out = np.where(out >= 360.0, 0.0, out)
    return float(out) if np.ndim(out) == 0 else out


def in_arc(
    origin: npt.ArrayLike,
    facing_deg: float,
    half_angle_deg: float,
    points: npt.ArrayLike,
) -> npt.NDArray[np.bool_]:
    """Which ``points`` lie in the arc of ``half_angle_deg`` either side of a facing.

    ``facing_deg`` is a compass bearing (0° north, clockwise). The edges count
    as inside; ``half_angle_deg=90`` is the front half-plane (points exactly
    abeam are in front), 180 everything. A point at the origin itself is inside.

    Examples:
        >>> in_arc((0, 0), 0.0, 90.0, [(0, 5), (5, 0), (1, -1)]).tolist()
        [True, True, False]
        >>> in_arc((0, 0), 90.0, 45.0, [(5, 4), (5, 6)]).tolist()
        [True, False]
    """
    fn = "in_arc"
    o = as_points(fn, "origin", origin)
    p = as_points(fn, "points", points)
    f = _finite_real(fn, "facing_deg", facing_deg)  # any bearing, modulo 360
    h = _finite_number(fn, "half_angle_deg", half_angle_deg)
    if h > 180.0:
        raise _fail(fn, "half_angle_deg", f"{half_angle_deg!r} is over 180; give 0–180")
    dx = p[..., 0] - o[..., 0]
    dy = p[..., 1] - o[..., 1]
    rad = math.radians(f)
    ux, uy = math.sin(rad), math.cos(rad)
    # cos(angle off the facing) >= cos(h), by dot products (no wrap-around issues)
    dot = dx * ux + dy * uy
    r = np.hypot(dx, dy)
    ch = math.cos(math.radians(h))
    tol = 1e-12 * np.maximum(r, 1.0)
    out: npt.NDArray[np.bool_] = (r == 0.0) | (dot >= ch * r - tol)
    return np.asarray(out, dtype=bool)


def base_contact(
    a: npt.ArrayLike,
    ra: npt.ArrayLike,
    b: npt.ArrayLike,
    rb: npt.ArrayLike,
    tol: float = 0.0,
) -> Any:
    """Whether round bases (discs of radius ``ra``, ``rb`` m) touch or overlap.

    In contact when the centres are at most ``ra + rb + tol`` apart; broadcasts
    like :func:`distance`. ``tol`` (m, >= 0) is the rule system's slack for
    "touching" (models are never placed exactly).

    Examples:
        >>> base_contact((0, 0), 0.5, [(1.05, 0), (1.2, 0)], 0.5, tol=0.1).tolist()
        [True, False]
        >>> bool(base_contact((0, 0), 0.5, (1.2, 0), 0.5))
        False
    """
    fn = "base_contact"
    t = _finite_number(fn, "tol", tol)
    r1 = _radii(fn, "ra", ra)
    r2 = _radii(fn, "rb", rb)
    out = np.asarray(distance(a, b)) <= r1 + r2 + t
    return bool(out) if out.ndim == 0 else out


def bases_overlap(
    a: npt.ArrayLike, ra: npt.ArrayLike, b: npt.ArrayLike, rb: npt.ArrayLike
) -> Any:
    """Whether round bases overlap (centres strictly closer than ``ra + rb``).

    Examples:
        >>> bases_overlap((0, 0), 0.5, [(1.0, 0), (0.9, 0)], 0.5).tolist()
        [False, True]
    """
    r1 = _radii("bases_overlap", "ra", ra)
    r2 = _radii("bases_overlap", "rb", rb)
    out = np.asarray(distance(a, b)) < r1 + r2
    return bool(out) if out.ndim == 0 else out


def _radii(fn: str, arg: str, value: Any) -> Any:
    r = np.asarray(value, dtype=np.float64)
    if not np.isfinite(r).all() or (r < 0).any():
        raise _fail(
            fn,
            arg,
            f"{value!r:.60} holds a negative or non-finite radius; give metres >= 0",
        )
    return r


# --------------------------------------------------------------------------- #
# Spatial index                                                               #
# --------------------------------------------------------------------------- #


@njit(cache=True, nogil=True)
def _grid_within(xs, ys, order, starts, gx0, gy0, cell, ncx, ncy, px, py, d):  # type: ignore[no-untyped-def]
    d2 = d * d
    c0 = max(math.floor((px - d - gx0) / cell), 0)
    c1 = min(math.floor((px + d - gx0) / cell), ncx - 1)
    r0 = max(math.floor((py - d - gy0) / cell), 0)
    r1 = min(math.floor((py + d - gy0) / cell), ncy - 1)
    out = np.empty(xs.size, np.int64)
    k = 0
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            cid = r * ncx + c
            for j in range(starts[cid], starts[cid + 1]):
                i = order[j]
                ddx = xs[i] - px
                ddy = ys[i] - py
                if ddx * ddx + ddy * ddy <= d2:
                    out[k] = i
                    k += 1
    res = out[:k].copy()
    res.sort()
    return res


@njit(cache=True, nogil=True)
def _grid_pairs(xs, ys, order, starts, gx0, gy0, cell, ncx, ncy, d):  # type: ignore[no-untyped-def]
    n = xs.size
    d2 = d * d
    cap = 4 * n + 16
    out = np.empty((cap, 2), np.int64)
    k = 0
    span = math.ceil(d / cell)
    for i in range(n):
        px = xs[i]
        py = ys[i]
        ci = min(max(math.floor((px - gx0) / cell), 0), ncx - 1)
        ri = min(max(math.floor((py - gy0) / cell), 0), ncy - 1)
        for r in range(max(ri - span, 0), min(ri + span, ncy - 1) + 1):
            for c in range(max(ci - span, 0), min(ci + span, ncx - 1) + 1):
                cid = r * ncx + c
                for jj in range(starts[cid], starts[cid + 1]):
                    j = order[jj]
                    if j <= i:
                        continue
                    ddx = xs[j] - px
                    ddy = ys[j] - py
                    if ddx * ddx + ddy * ddy <= d2:
                        if k == cap:
                            cap *= 2
                            bigger = np.empty((cap, 2), np.int64)
                            bigger[:k] = out[:k]
                            out = bigger
                        out[k, 0] = i
                        out[k, 1] = j
                        k += 1
    return out[:k].copy()


class PointIndex:
    """A spatial index of ``n`` points (a uniform grid of cells, compiled).

    Args:
        xy: ``(n, 2)`` finite coordinates in metres (copied).
        cell_m: the grid's cell size; by default about two points a cell over
            the points' bounding box (queries are exact for any cell size).

    Examples:
        >>> idx = PointIndex([(0, 0), (3, 4), (100, 0)])
        >>> idx.within((0, 0), 5.0).tolist()
        [0, 1]
        >>> idx.pairs_within(5.0).tolist()
        [[0, 1]]
    """

    def __init__(self, xy: npt.ArrayLike, cell_m: float | None = None) -> None:
        fn = "PointIndex"
        a = as_points(fn, "xy", xy)
        if a.ndim != 2:
            raise _fail(fn, "xy", f"has shape {a.shape}; give an (n, 2) array")
        self.xy: npt.NDArray[np.float64] = np.ascontiguousarray(a)
        self._x = np.ascontiguousarray(a[:, 0])
        self._y = np.ascontiguousarray(a[:, 1])
        n = len(a)
        if n:
            x0, y0 = float(a[:, 0].min()), float(a[:, 1].min())
            w = float(a[:, 0].max()) - x0
            h = float(a[:, 1].max()) - y0
        else:
            x0 = y0 = w = h = 0.0
        if cell_m is None:
            cell = max(math.sqrt(max(w * h, 1.0) * 2.0 / max(n, 1)), w / 2048, h / 2048)
            cell = max(cell, 1e-3)
        else:
            cell = _finite_number(fn, "cell_m", cell_m, positive=True)
        self.cell_m = cell
        self._g = (x0, y0)
        self._ncx = int(w // cell) + 1
        self._ncy = int(h // cell) + 1
        if self._ncx * self._ncy > 4 * n + 4_000_000:
            raise _fail(
                fn,
                "cell_m",
                f"{cell:g} m makes too many cells for these "
                "points; give a larger cell or leave the default",
            )
        ci = np.floor((self._x - x0) / cell).astype(np.int64).clip(0, self._ncx - 1)
        ri = np.floor((self._y - y0) / cell).astype(np.int64).clip(0, self._ncy - 1)
        cid = ri * self._ncx + ci
        self._order = np.argsort(cid, kind="stable").astype(np.int64)
        counts = np.bincount(cid, minlength=self._ncx * self._ncy)
        self._starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

    def __len__(self) -> int:
        return len(self.xy)

    def _args(
        self,
    ) -> tuple[Any, Any, Any, Any, float, float, float, int, int]:
        return (
            self._x,
            self._y,
            self._order,
            self._starts,
            self._g[0],
            self._g[1],
            self.cell_m,
            self._ncx,
            self._ncy,
        )

    def within(self, point: Sequence[float] | npt.ArrayLike, d: float) -> Any:
        """Sorted indices of the points at most ``d`` metres from ``point``."""
        fn = "PointIndex.within"
        p = as_points(fn, "point", point)
        if p.shape != (2,):
            raise _fail(fn, "point", f"has shape {p.shape}; give one (x, y) point")
        dd = _finite_number(fn, "d", d)
        return _grid_within(*self._args(), float(p[0]), float(p[1]), dd)

    def pairs_within(self, d: float) -> Any:
        """All pairs ``(i, j)``, ``i < j``, at most ``d`` m apart, shape ``(k, 2)``.

        Sorted by ``i``, then ``j``.
        """
        dd = _finite_number("PointIndex.pairs_within", "d", d)
        out = _grid_pairs(*self._args(), dd)
        if len(out):
            out = out[np.lexsort((out[:, 1], out[:, 0]))]
        return out

    def nearest_within(self, point: Sequence[float] | npt.ArrayLike, d: float) -> int:
        """Index of the nearest point at most ``d`` away, or -1 (ties: lowest)."""
        idx = self.within(point, d)
        if not len(idx):
            return -1
        p = np.asarray(point, dtype=np.float64)
        dist = np.hypot(self._x[idx] - p[0], self._y[idx] - p[1])
        return int(idx[int(np.argmin(dist))])
