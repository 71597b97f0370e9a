"""Line of sight between free points (models on the real map), without hexes.

The sight line, ground, obstacles, sampling and curvature are those of
:mod:`wargame.geo.los` (``docs/los.md``). Only the rule for the ground right
around the two models differs from the hex rule ("obstacles in the observer's
and the target's hex do not block"), which made one pair of points see or not
depending on the hex size the map was loaded with.

The rule for points (``docs/free_movement.md``)
-----------------------------------------------
* **Margin.** Obstacles (woods, town...) on the first and the last
  ``margin_m`` metres of the sight line do not block: a model sees out of, and
  is seen in, the patch it stands in when it is within ``margin_m`` of the
  patch's edge along the line. ASSUMPTION: ``POINT_MARGIN_M = 15 m``, one and a
  half cells of the 10 m land-cover raster: a model "at the edge of the wood"
  stands in the outermost cells of it, and where exactly the edge runs is known
  to about a cell. Ground (the DEM) blocks everywhere, as for hexes.
* **standing_in.** With ``standing_in=True`` an end has no margin: the area
  terrain it stands in counts right up to the model, so a model deep in woods
  is hidden by the woods around it and sees nothing out of them (what a rule
  system's concealment may want to know). One flag for both ends, or a pair
  ``(observer, target)``.
* Nothing depends on the hex grid: the same two points give the same answer
  whatever ``hex_size_m`` or window the map was loaded with (a test checks it).

:func:`los_pairs` answers all pairs of two sets of points at once (compiled,
in parallel), bit for bit as :func:`point_line_of_sight` does for each pair.

Examples:
    >>> import numpy as np
    >>> from wargame.geo.los import LOSTerrain
    >>> cover = np.zeros((40, 40), np.uint8); cover[:, 1:3] = 4  # woods, x 12.5–37.5
    >>> t = LOSTerrain.from_dem(np.zeros((10, 10)), cell_m=50.0, cover=cover)
    >>> a, b = (25.0, 250.0), (450.0, 250.0)  # a: 12.5 m inside the wood's edge
    >>> point_line_of_sight(t, a, b).visible
    True
    >>> point_line_of_sight(t, a, b, standing_in=True).visible
    False
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from wargame.geo import _los_point_kernels as PK
from wargame.geo.los import (
    _N_PROBES,
    CURVATURE_COEFF,
    DEFAULT_OBSERVER_HEIGHT_M,
    DEFAULT_TARGET_HEIGHT_M,
    SAMPLE_STEP_M,
    LOSResult,
    LOSTerrain,
    Obstacles,
    _kcurv,
    check_height,
    sight,
)

#: Obstacles this close to either end (along the sight line) do not block (m).
#: ASSUMPTION: 1.5 cells of the 10 m land-cover raster; see the module doc.
POINT_MARGIN_M = 15.0
#: Largest margin accepted (m): beyond it the "own patch" is no longer small.
MAX_MARGIN_M = 500.0

StandingIn = bool | tuple[bool, bool] | Sequence[bool]


def standing_flags(value: Any, fn: str = "los_points") -> tuple[bool, bool]:
    """``standing_in`` as ``(observer, target)`` flags; refuses anything else.

    Examples:
        >>> standing_flags(True), standing_flags((False, True))
        ((True, True), (False, True))
    """
    if isinstance(value, bool | np.bool_):
        return bool(value), bool(value)
    if (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and len(value) == 2
        and all(isinstance(v, bool | np.bool_) for v in value)
    ):
        return bool(value[0]), bool(value[1])
    raise _err(
        fn,
        "standing_in",
        f"{value!r:.40} is not True, False or a pair of them; give True, False "
        "or (observer, target)",
    )


def check_margin(value: Any, fn: str = "los_points") -> float:
    """The margin in metres: a finite number from 0 to :data:`MAX_MARGIN_M`."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if isinstance(value, bool) or not math.isfinite(v) or not 0 <= v <= MAX_MARGIN_M:
        raise _err(
            fn,
            "margin_m",
            f"{value!r:.40} is not a number of metres from 0 to {MAX_MARGIN_M:g}; "
            f"give metres (default {POINT_MARGIN_M:g})",
        )
    return v


def _err(fn: str, arg: str, problem: str) -> ValueError:
    from wargame.geo.maps import MapArgumentError

    return MapArgumentError(fn, arg, problem)


def _point(terrain: LOSTerrain, where: Any, what: str) -> tuple[float, float]:
    if isinstance(where, str):
        raise ValueError(
            f"{what} must be an (x, y) point in map metres, not the hex label "
            f"{where!r}; use Map.los for hexes"
        )
    p, _, _ = terrain.resolve(where, what)
    return p


def point_line_of_sight(
    terrain: LOSTerrain,
    a: Sequence[float],
    b: Sequence[float],
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
    *,
    standing_in: StandingIn = False,
    margin_m: float = POINT_MARGIN_M,
    curvature_coeff: float = CURVATURE_COEFF,
    step_m: float = SAMPLE_STEP_M,
) -> LOSResult:
    """Line of sight from point ``a`` (observer) to point ``b`` by the point rule.

    Returns a :class:`~wargame.geo.los.LOSResult`: ``visible``, the first
    blocking point and what blocks there (``blocked_at``, ``blocker``), the
    ``profile`` (its ``obstacle_top_m`` leaves out the exempt margins) and
    ``plot()``. ``observer_hex``/``target_hex`` name the hexes holding the
    points, for information only: they play no part in the answer.

    Raises:
        ValueError: a point off the terrain, a hex label, a bad height, margin
            or ``standing_in``.
    """
    h_o = check_height(observer_height_m, "observer_height_m")
    h_t = check_height(target_height_m, "target_height_m")
    r = check_margin(margin_m, "point_line_of_sight")
    sa, sb = standing_flags(standing_in, "point_line_of_sight")
    if not (step_m > 0):
        raise ValueError(f"step_m must be > 0 m, got {step_m!r}")
    pa = _point(terrain, a, "a (observer)")
    pb = _point(terrain, b, "b (target)")
    c = PK.centres(
        np.array([pa[0]]),
        np.array([pa[1]]),
        np.array([pb[0]]),
        np.array([pb[1]]),
        r,
        sa,
        sb,
    )
    ca = (float(c[0, 0]), float(c[1, 0]))
    cb = (float(c[2, 0]), float(c[3, 0]))
    heights = terrain.heights_for(obstacles)
    return sight(
        terrain,
        (pa, ca, terrain.label_at(*pa)),
        (pb, cb, terrain.label_at(*pb)),
        h_o,
        h_t,
        heights,
        float(step_m),
        _kcurv(curvature_coeff),
        inr=r,
    )


def los_pairs(
    terrain: LOSTerrain,
    a_xy: npt.ArrayLike,
    b_xy: npt.ArrayLike,
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    max_range_m: float | None = None,
    obstacles: Obstacles = True,
    *,
    standing_in: StandingIn = False,
    margin_m: float = POINT_MARGIN_M,
    curvature_coeff: float = CURVATURE_COEFF,
    step_m: float = SAMPLE_STEP_M,
) -> npt.NDArray[np.bool_]:
    """``out[i, j]``: the model at ``a_xy[i]`` sees the one at ``b_xy[j]``.

    ``a_xy`` is ``(n, 2)``, ``b_xy`` ``(m, 2)``; pairs farther apart than
    ``max_range_m`` are False without being traced. Same answers as
    :func:`point_line_of_sight` pair by pair (the same compiled test and exempt
    zones). Points are checked to be finite and on the terrain.

    Examples:
        >>> from wargame.geo.los import LOSTerrain
        >>> t = LOSTerrain.from_dem(np.zeros((10, 10)), cell_m=50.0)
        >>> los_pairs(t, [(50, 250)], [(450, 250), (60, 250)], max_range_m=100).tolist()
        [[False, True]]
    """
    fn = "los_pairs"
    h_o = check_height(observer_height_m, "observer_height_m")
    h_t = check_height(target_height_m, "target_height_m")
    r = check_margin(margin_m, fn)
    sa, sb = standing_flags(standing_in, fn)
    a = _pairs_arg(terrain, fn, "a_xy", a_xy)
    b = _pairs_arg(terrain, fn, "b_xy", b_xy)
    if max_range_m is None:
        rng = math.inf
    else:
        try:
            rng = float(max_range_m)
        except (TypeError, ValueError):
            rng = math.nan
        if isinstance(max_range_m, bool) or not (rng >= 0) or math.isnan(rng):
            raise _err(
                fn,
                "max_range_m",
                f"{max_range_m!r:.40} is not metres >= 0; give "
                "metres or None (no limit)",
            )
    kargs = terrain.kernel_args(terrain.heights_for(obstacles))
    return PK.grid_visible(  # type: ignore[no-any-return]
        *kargs[:10],
        r,
        *kargs[11:],
        np.ascontiguousarray(a[:, 0]),
        np.ascontiguousarray(a[:, 1]),
        np.ascontiguousarray(b[:, 0]),
        np.ascontiguousarray(b[:, 1]),
        h_o,
        h_t,
        float(step_m),
        _kcurv(curvature_coeff),
        _N_PROBES,
        rng,
        sa,
        sb,
    )


def _pairs_arg(terrain: LOSTerrain, fn: str, arg: str, value: Any) -> Any:
    from wargame.geo.measure import as_points

    p = as_points(fn, arg, value)
    if p.ndim == 1:
        p = p.reshape(1, 2)
    if p.ndim != 2:
        raise _err(fn, arg, f"has shape {p.shape}; give an (n, 2) array of points")
    xmin, ymin, xmax, ymax = terrain.bounds
    out = (p[:, 0] < xmin) | (p[:, 0] > xmax) | (p[:, 1] < ymin) | (p[:, 1] > ymax)
    if out.any():
        i = int(np.argmax(out))
        raise _err(
            fn,
            arg,
            f"point {i} ({p[i, 0]:.0f}, {p[i, 1]:.0f}) is off the map; give points "
            f"within x {xmin:.0f}–{xmax:.0f}, y {ymin:.0f}–{ymax:.0f} m",
        )
    return p
