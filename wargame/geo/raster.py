"""Regular north-up rasters in map metres, and vectorised sampling on them.

Examples:
    >>> import numpy as np
    >>> g = RasterGrid(x0=0.0, y0=100.0, cell_m=10.0, n_rows=10, n_cols=10)
    >>> z = np.arange(100, dtype=np.float32).reshape(10, 10)
    >>> float(bilinear(z, g, 15.0, 95.0))  # centre of row 0, col 1
    1.0
    >>> float(bilinear(z, g, 20.0, 95.0))  # half way to col 2
    1.5
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class RasterGrid:
    """Geometry of a north-up raster: ``x0``/``y0`` are the west and north edges.

    Cell ``(row, col)`` has its centre at ``(x0 + (col + .5) * cell_m,
    y0 - (row + .5) * cell_m)``.
    """

    x0: float
    y0: float
    cell_m: float
    n_rows: int
    n_cols: int

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_rows, n_cols)``."""
        return (self.n_rows, self.n_cols)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)`` of the outer cell edges."""
        return (
            self.x0,
            self.y0 - self.n_rows * self.cell_m,
            self.x0 + self.n_cols * self.cell_m,
            self.y0,
        )

    def fractional_rowcol(
        self, x: npt.ArrayLike, y: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Fractional (row, col) where integer values are cell centres."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return (self.y0 - y) / self.cell_m - 0.5, (x - self.x0) / self.cell_m - 0.5

    def contains(self, x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Whether points lie inside the raster's outer edges."""
        xmin, ymin, xmax, ymax = self.bounds
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return (x >= xmin) & (x <= xmax) & (y >= ymin) & (y <= ymax)

    def window(
        self, bounds: tuple[float, float, float, float]
    ) -> tuple[RasterGrid, tuple[slice, slice]]:
        """The sub-grid covering ``bounds`` (snapped outward to whole cells).

        Returns the new grid and the (row, col) slices to cut the array with.
        """
        xmin, ymin, xmax, ymax = bounds
        c0 = max(0, int(np.floor((xmin - self.x0) / self.cell_m)))
        c1 = min(self.n_cols, int(np.ceil((xmax - self.x0) / self.cell_m)))
        r0 = max(0, int(np.floor((self.y0 - ymax) / self.cell_m)))
        r1 = min(self.n_rows, int(np.ceil((self.y0 - ymin) / self.cell_m)))
        if c1 <= c0 or r1 <= r0:
            raise ValueError(f"window {bounds} does not overlap the raster")
        sub = RasterGrid(
            x0=self.x0 + c0 * self.cell_m,
            y0=self.y0 - r0 * self.cell_m,
            cell_m=self.cell_m,
            n_rows=r1 - r0,
            n_cols=c1 - c0,
        )
        return sub, (slice(r0, r1), slice(c0, c1))


def bilinear(
    arr: npt.NDArray[np.floating], grid: RasterGrid, x: npt.ArrayLike, y: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """Bilinear interpolation of cell-centre values (edges clamped; vectorised).

    One point (scalar ``x`` and ``y``) takes a scalar path with the same operations,
    bit for bit, without the array overheads (about 5 us instead of 45 us).
    """
    if np.ndim(x) == 0 and np.ndim(y) == 0:
        return np.asarray(_bilinear_point(arr, grid, float(x), float(y)))  # type: ignore[arg-type]
    fr, fc = grid.fractional_rowcol(x, y)
    fr = np.clip(fr, 0.0, grid.n_rows - 1.0)
    fc = np.clip(fc, 0.0, grid.n_cols - 1.0)
    r0 = np.minimum(np.floor(fr).astype(np.int64), grid.n_rows - 2)
    c0 = np.minimum(np.floor(fc).astype(np.int64), grid.n_cols - 2)
    r0 = np.maximum(r0, 0)
    c0 = np.maximum(c0, 0)
    tr = fr - r0
    tc = fc - c0
    a = arr[r0, c0]
    b = arr[r0, c0 + 1]
    c = arr[r0 + 1, c0]
    d = arr[r0 + 1, c0 + 1]
    top = a + (b - a) * tc
    bot = c + (d - c) * tc
    return np.asarray(top + (bot - top) * tr, dtype=np.float64)


def _bilinear_point(
    arr: npt.NDArray[np.floating], grid: RasterGrid, x: float, y: float
) -> float:
    """:func:`bilinear` at one point, in the same operations (and dtypes)."""
    nr, nc = grid.n_rows, grid.n_cols
    fr = min(max((grid.y0 - y) / grid.cell_m - 0.5, 0.0), nr - 1.0)
    fc = min(max((x - grid.x0) / grid.cell_m - 0.5, 0.0), nc - 1.0)
    r0 = max(min(math.floor(fr), nr - 2), 0)
    c0 = max(min(math.floor(fc), nc - 2), 0)
    tr = fr - r0
    tc = fc - c0
    # the differences in the array's own dtype, as the vectorised path takes them
    a, b = arr[r0, c0], arr[r0, c0 + 1]
    c, d = arr[r0 + 1, c0], arr[r0 + 1, c0 + 1]
    top = float(a) + float(b - a) * tc
    bot = float(c) + float(d - c) * tc
    return top + (bot - top) * tr


def nearest(
    arr: npt.NDArray[np.generic], grid: RasterGrid, x: npt.ArrayLike, y: npt.ArrayLike
) -> npt.NDArray[np.generic]:
    """Value of the cell containing each point (edges clamped; vectorised)."""
    fr, fc = grid.fractional_rowcol(x, y)
    r = np.clip(np.floor(fr + 0.5).astype(np.int64), 0, grid.n_rows - 1)
    c = np.clip(np.floor(fc + 0.5).astype(np.int64), 0, grid.n_cols - 1)
    return arr[r, c]
