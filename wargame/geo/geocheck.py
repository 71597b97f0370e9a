"""Argument checks for free points and paths on a map (one rule for all callers).

Every error is a :class:`~wargame.geo.maps.MapArgumentError` (a ``ValueError``)
of the shape ``<function>: <argument>: <problem>; <fix>``, naming the first bad
point by its index.

Examples:
    >>> from wargame.geo.maps import load_map
    >>> m = load_map()
    >>> path_on_map(m, "f", "path", [(376000, 5605000), (376100, 5605000)]).shape
    (2, 2)
    >>> try:
    ...     path_on_map(m, "f", "path", [(376000, 5605000)])
    ... except ValueError as exc:
    ...     print(exc)
    f: path: has 1 point; give at least 2 (x, y) points in metres
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from wargame.geo.measure import as_points

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map


def _err(fn: str, arg: str, problem: str) -> ValueError:
    from wargame.geo.maps import MapArgumentError

    return MapArgumentError(fn, arg, problem)


def points_on_map(m: Map, fn: str, arg: str, value: Any) -> npt.NDArray[np.float64]:
    """``(n, 2)`` finite points inside the map's bounds (one point: ``(1, 2)``)."""
    p = as_points(fn, arg, value)
    if p.ndim == 1:
        p = p.reshape(1, 2)
    if p.ndim != 2:
        raise _err(fn, arg, f"has shape {p.shape}; give an (n, 2) array of points")
    inside = m._inside(p[:, 0], p[:, 1])
    if not inside.all():
        i = int(np.argmin(inside))
        raise _err(
            fn,
            arg,
            f"point {i} ({p[i, 0]:.1f}, {p[i, 1]:.1f}) is off the map; {m._xy_fix()}",
        )
    return np.ascontiguousarray(p)


def path_on_map(m: Map, fn: str, arg: str, value: Any) -> npt.NDArray[np.float64]:
    """A path: at least two points on the map and a length above zero."""
    p = as_points(fn, arg, value)
    if p.ndim != 2:
        raise _err(
            fn, arg, f"has shape {p.shape}; give at least 2 (x, y) points in metres"
        )
    if len(p) < 2:
        word = "point" if len(p) == 1 else "points"
        raise _err(
            fn, arg, f"has {len(p)} {word}; give at least 2 (x, y) points in metres"
        )
    p = points_on_map(m, fn, arg, p)
    seg = np.hypot(*np.diff(p, axis=0).T)
    if not (seg > 0).any():
        raise _err(
            fn,
            arg,
            "has zero length (all its points are one point); give "
            "a path that goes somewhere",
        )
    return p


def positive(fn: str, arg: str, value: Any, *, allow_zero: bool = True) -> float:
    """A finite number >= 0 (or > 0), else the error naming ``arg``."""
    if isinstance(value, bool | np.bool_ | str | bytes):
        raise _err(fn, arg, f"{value!r:.40} is not a number; give metres")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise _err(fn, arg, f"{value!r:.40} is not a number; give metres") from None
    if not np.isfinite(v):
        raise _err(fn, arg, f"{value!r} is not a finite number; give metres")
    if v < 0 or (v == 0 and not allow_zero):
        want = "0 or more" if allow_zero else "more than 0"
        raise _err(
            fn,
            arg,
            f"{value!r} is negative{'' if allow_zero else ' or 0'}; "
            f"give metres, {want}",
        )
    return v
