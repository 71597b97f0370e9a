"""Brute-force reference answers for line of sight: slow, simple, independent.

These functions re-implement the LOS model of :mod:`wargame.geo.los` with plain
numpy and none of the compiled kernels' shortcuts: one finely sampled ray per
target (default every 0.5 m, or every 0.1 cell), the ground from
:func:`wargame.geo.raster.bilinear`, obstacles from
:func:`wargame.geo.raster.nearest` and the "own hex" test by
:meth:`HexGrid.xy_to_axial` (cube rounding) instead of the kernels' hexagon
inequalities. The test suite compares the fast code with them on small DEMs, and
``benchmarks/bench_los.py`` reports the agreement on the real map.

Examples:
    >>> import numpy as np
    >>> from wargame.geo.los import LOSTerrain
    >>> t = LOSTerrain.from_dem(np.zeros((10, 10)), cell_m=50.0)
    >>> oracle_los(t, (50.0, 250.0), (450.0, 250.0))
    True
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from wargame.geo.los import (
    CURVATURE_COEFF,
    DEFAULT_OBSERVER_HEIGHT_M,
    DEFAULT_TARGET_HEIGHT_M,
    EARTH_RADIUS_M,
    LOSTerrain,
    Obstacles,
)
from wargame.geo.raster import RasterGrid, bilinear, nearest


class _Ray:
    """One sampled sight line: where the samples are and what stands there."""

    def __init__(
        self,
        terrain: LOSTerrain,
        a: tuple[float, float],
        b: tuple[float, float],
        observer_height_m: float,
        target_height_m: float,
        curvature_coeff: float,
    ) -> None:
        self.terrain = terrain
        self.ax, self.ay = map(float, a)
        self.bx, self.by = map(float, b)
        self.D = math.hypot(self.bx - self.ax, self.by - self.ay)
        self.k = curvature_coeff / (2.0 * EARTH_RADIUS_M)
        zg = terrain.dem_grid
        self.z_eye = float(bilinear(terrain.dem, zg, self.ax, self.ay))
        self.z_eye += observer_height_m
        self.z_tgt = float(bilinear(terrain.dem, zg, self.bx, self.by))
        self.z_tgt += target_height_m

    def samples(
        self, step_m: float, model_samples: bool = False
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
        """``(d, t)``: distances and fractions of the samples (``None``: none).

        Every ``step_m`` metres, or (``model_samples``) at the point model's own
        ``t = i / n``, ``n = ceil(D / step_m - 1e-6)``.
        """
        if model_samples:
            n = math.ceil(self.D / step_m - 1e-6)
            if n < 2:
                return None
            t = np.arange(1, n) / n
            return t * self.D, t
        if step_m >= self.D:
            return None
        d = np.arange(step_m, self.D - 1e-9, step_m)
        return d, d / self.D

    def xy(
        self, t: npt.NDArray[np.float64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The map points of the samples."""
        return self.ax + (self.bx - self.ax) * t, self.ay + (self.by - self.ay) * t

    def obstacle_heights(
        self,
        obstacles: Obstacles,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.float64] | None:
        """Obstacle height at each sample (``None``: no obstacles count)."""
        terrain = self.terrain
        heights = terrain.heights_for(obstacles)
        if not heights:
            return None
        codes = nearest(terrain.cover, terrain.cover_grid, x, y).astype(np.int64)
        oh = np.zeros(256)
        for name, h in heights.items():
            oh[terrain.classes.index(name)] = h
        return oh[codes]  # type: ignore[no-any-return]

    def clear(
        self,
        d: npt.NDArray[np.float64],
        t: npt.NDArray[np.float64],
        top: npt.NDArray[np.float64],
    ) -> bool:
        """Whether no sample's top reaches the sight line (with curvature)."""
        line = self.z_eye + (self.z_tgt - self.z_eye) * t - self.k * d * (self.D - d)
        return not bool((top > line).any())


def oracle_los(
    terrain: LOSTerrain,
    a: tuple[float, float],
    b: tuple[float, float],
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
    *,
    step_m: float = 0.5,
    curvature_coeff: float = CURVATURE_COEFF,
) -> bool:
    """Whether ``a`` sees ``b`` by one ray sampled every ``step_m`` metres."""
    ray = _Ray(terrain, a, b, observer_height_m, target_height_m, curvature_coeff)
    got = ray.samples(step_m)
    if got is None:
        return True
    d, t = got
    x, y = ray.xy(t)
    top = bilinear(terrain.dem, terrain.dem_grid, x, y)
    oh = ray.obstacle_heights(obstacles, x, y)
    if oh is not None:
        g = terrain.hexgrid
        qa, ra = g.xy_to_axial(ray.ax, ray.ay)
        qb, rb = g.xy_to_axial(ray.bx, ray.by)
        qs, rs = g.xy_to_axial(x, y)
        own = ((qs == qa) & (rs == ra)) | ((qs == qb) & (rs == rb))
        top = top + np.where(own, 0.0, oh)
    return ray.clear(d, t, top)


def oracle_point_los(
    terrain: LOSTerrain,
    a: tuple[float, float],
    b: tuple[float, float],
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
    *,
    standing_in: tuple[bool, bool] = (False, False),
    margin_m: float = 15.0,
    step_m: float = 0.5,
    model_samples: bool = False,
    curvature_coeff: float = CURVATURE_COEFF,
) -> bool:
    """The point rule of :mod:`wargame.geo.los_points` by one plain numpy ray.

    Obstacles count except within ``margin_m`` of an end (by distance along
    the line, a plain comparison: none of the kernels' shifted hexagons) whose
    ``standing_in`` flag is False. Sampled every ``step_m``, or, with
    ``model_samples=True``, at the model's own samples ``t = i / n``, ``n =
    ceil(D / step_m - 1e-6)`` (then it answers the very same sampled model).

    Examples:
        >>> import numpy as np
        >>> from wargame.geo.los import LOSTerrain
        >>> t = LOSTerrain.from_dem(np.zeros((10, 10)), cell_m=50.0)
        >>> oracle_point_los(t, (50.0, 250.0), (450.0, 250.0))
        True
    """
    ray = _Ray(terrain, a, b, observer_height_m, target_height_m, curvature_coeff)
    got = ray.samples(step_m, model_samples)
    if got is None:
        return True
    d, t = got
    x, y = ray.xy(t)
    top = bilinear(terrain.dem, terrain.dem_grid, x, y)
    oh = ray.obstacle_heights(obstacles, x, y)
    if oh is not None:
        D = ray.D
        exempt = ((d <= margin_m) & (not standing_in[0])) | (
            (D - d <= margin_m) & (not standing_in[1])
        )
        top = top + np.where(exempt, 0.0, oh)
    return ray.clear(d, t, top)


def oracle_pairs(
    terrain: LOSTerrain,
    observers: npt.ArrayLike,
    targets: npt.ArrayLike,
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
    *,
    step_m: float = 0.5,
    curvature_coeff: float = CURVATURE_COEFF,
) -> npt.NDArray[np.bool_]:
    """:func:`oracle_los` for ``(n, 2)`` arrays of observers and targets."""
    a = np.asarray(observers, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(targets, dtype=np.float64).reshape(-1, 2)
    return np.array(
        [
            oracle_los(
                terrain,
                tuple(p),
                tuple(q),
                observer_height_m,
                target_height_m,
                obstacles,
                step_m=step_m,
                curvature_coeff=curvature_coeff,
            )
            for p, q in zip(a, b, strict=True)
        ],
        dtype=bool,
    )


def oracle_viewshed(
    dem: npt.ArrayLike,
    cell_x_m: float,
    cell_y_m: float,
    obs_row: float,
    obs_col: float,
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = 0.0,
    *,
    rows: npt.ArrayLike | None = None,
    cols: npt.ArrayLike | None = None,
    step_cells: float = 0.1,
    curvature_coeff: float = CURVATURE_COEFF,
) -> npt.NDArray[np.bool_]:
    """Exact-ray visibility of DEM cell centres (no obstacles).

    For each target cell (all, or the given ``rows``/``cols``), one ray from the
    observer to the cell centre is sampled every ``step_cells`` cells (in index
    space) on the bilinear DEM; the target is the cell's own value plus
    ``target_height_m``. Returns a boolean raster (all cells) or a 1-D array.

    Examples:
        >>> z = np.zeros((5, 5)); z[:, 3] = 9.0
        >>> oracle_viewshed(z, 10.0, 10.0, 2, 0)[2].tolist()
        [True, True, True, True, False]
    """
    z = np.asarray(dem, dtype=np.float32)
    nr, nc = z.shape
    g = RasterGrid(0.0, float(nr), 1.0, nr, nc)  # index space: x = col + .5

    def zat(r: np.ndarray, c: np.ndarray) -> np.ndarray:
        return bilinear(z, g, c + 0.5, nr - r - 0.5)

    k = curvature_coeff / (2.0 * EARTH_RADIUS_M)
    z_eye = float(zat(np.array(obs_row), np.array(obs_col))) + observer_height_m
    full = rows is None
    if full:
        rr, cc = np.mgrid[0:nr, 0:nc]
        rr, cc = rr.ravel(), cc.ravel()
    else:
        rr = np.asarray(rows, dtype=np.int64).ravel()
        cc = np.asarray(cols, dtype=np.int64).ravel()
    out = np.zeros(rr.size, dtype=bool)
    for i in range(rr.size):
        dr = rr[i] - obs_row
        dc = cc[i] - obs_col
        L = math.hypot(dr, dc)
        D = math.hypot(dr * cell_y_m, dc * cell_x_m)
        if step_cells >= L:
            out[i] = True
            continue
        zt = float(z[rr[i], cc[i]]) + target_height_m
        t = np.arange(step_cells, L - 1e-9, step_cells) / L
        zs = zat(obs_row + dr * t, obs_col + dc * t)
        d = D * t
        line = z_eye + (zt - z_eye) * t - k * d * (D - d)
        out[i] = not bool((zs > line).any())
    return out.reshape(nr, nc) if full else out
