"""Physical line of sight on the real terrain: points, hexes and a hex LOS table.

The model (also in ``docs/los.md``)
-----------------------------------
* **Sight line.** From the observer's eye (ground + ``observer_height_m``, default
  2.5 m) to the target (ground + ``target_height_m``, default 2.0 m), straight in
  3-D, with earth curvature and standard refraction applied as GDAL's viewshed does:
  every point at distance ``d`` from the observer is lowered by
  ``curvature_coeff * d**2 / (2 * R)`` (``curvature_coeff = 0.85714``, i.e. a
  refraction coefficient of 1/7; ``R = 6378137 m``, the WGS84 semi-major axis).
  Equivalently the sight line sags below the chord by
  ``k * d * (D - d)``, ``k = curvature_coeff / (2 R)``, over a line of length ``D``.
* **Sampling.** The line is tested at ``n - 1`` evenly spaced interior points,
  ``n = ceil(D / SAMPLE_STEP_M - 1e-6)`` with ``SAMPLE_STEP_M = 10 m`` (the
  land-cover resolution; an assumption chosen so that ≥ 99.7 % of hex pairs on the
  shipped map agree with a 0.5 m-step oracle, see ``benchmarks/bench_los.py``; the
  millionth of a step keeps coordinate rounding from adding a sample to a line
  whose length is a whole number of steps). The endpoints are never tested.
  Both ends of a pair are put in a canonical order (smaller x, then y, first)
  before sampling, so ``los(a, b)`` and ``los(b, a)``
  test the very same points.
* **Ground** is the bilinear interpolation of the DEM (50 m SRTM cells on the
  shipped map), edges clamped — the same as :meth:`Map.elevation`.
* **Obstacles** stand on the ground with a height per terrain class of the 10 m
  land-cover raster (nearest cell): by default woods 20 m and built-up ("town")
  10 m (``DEFAULT_OBSTACLE_HEIGHTS_M``; assumptions, not survey data),
  configurable per map (``Map.obstacle_heights_m`` or ``los.obstacle_heights_m``
  in the map's metadata) and per call (``obstacles={"woods": 15}`` overrides the
  named classes, ``obstacles=False`` turns them off).
* **Own hexes.** Obstacles in the observer's hex and in the target's hex do not
  block (the board-game convention: terrain in *intervening* hexes blocks). For a
  point that is not a hex centre, "its hex" is the hex that contains it. Ground
  (the DEM) blocks everywhere.
* **Blocked** when at any sample the ground, or the obstacle top, is strictly above
  the sight line. ``blocked_at`` is the first such sample seen from the observer.

The hex LOS table (:class:`HexLOSTable`) and :func:`line_of_sight` between two hex
centres run the same compiled sampling code, so they always agree.

Examples:
    >>> import numpy as np
    >>> flat = LOSTerrain.from_dem(np.zeros((40, 40), np.float32), cell_m=50.0)
    >>> line_of_sight(flat, (100.0, 1000.0), (1900.0, 1000.0)).visible
    True
    >>> hill = flat.dem.copy(); hill[:, 20] = 30.0
    >>> res = line_of_sight(LOSTerrain.from_dem(hill, cell_m=50.0),
    ...                     (100.0, 1000.0), (1900.0, 1000.0))
    >>> res.visible, res.blocker.kind
    (False, 'terrain')
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
import numpy.typing as npt
import pandas as pd
import shapely

from wargame.geo import _los_kernels as K
from wargame.geo.hexgrid import SQRT3, HexGrid, axial_range
from wargame.geo.raster import RasterGrid
from wargame.geo.terrain import DEFAULT_OBSTACLE_HEIGHTS_M, TERRAIN_CLASSES

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from wargame.geo.maps import Map

# WGS84 semi-major axis, as GDAL's viewshed takes it from the raster's SRS.
EARTH_RADIUS_M = 6_378_137.0
# GDAL's recommended curvature coefficient for visible light: 1 - 1/7 (refraction).
CURVATURE_COEFF = 0.85714
# Sample spacing along sight lines (assumption: the 10 m land-cover resolution).
SAMPLE_STEP_M = 10.0
DEFAULT_OBSERVER_HEIGHT_M = 2.5  # assumption: a standing soldier's eyes
DEFAULT_TARGET_HEIGHT_M = 2.0  # assumption: a vehicle or standing soldier
DEFAULT_RANGE_HEXES = 20
# Probes tried before the exact cell march (a tuning knob; it changes no answer).
_N_PROBES = 8
# ... in the table, after the near probes: midpoint and quarters (eighths cost
# more than the march they save there, about 5 % of the table's time)
_TABLE_PROBES = 4
# Sectors of the ring around each hex where the table's first probes fall, each
# with a lower bound of the top (``_near_plan``; a tuning knob, no answer changes).
_NEAR_SECTORS = 32
# Bump when the model or the table format changes: cached tables are rebuilt.
LOS_MODEL_VERSION = 2  # 2: n = ceil(D / step - 1e-6)

Point = tuple[float, float]
Where = str | tuple[float, float] | Sequence[float]
Obstacles = bool | Mapping[str, float]
# The leading arguments of the compiled kernels (``LOSTerrain._geo_args``,
# ``profile_args``, ``kernel_args``), element by element, so that mypy can check
# calls that pass more arguments after them.
_F32 = npt.NDArray[np.float32]
_GeoArgs = tuple[_F32, float, float, float, npt.NDArray[np.uint8], float, float, float]
_ProfileArgs = tuple[*_GeoArgs, npt.NDArray[np.float64], bool, float]
_KernelArgs = tuple[*_ProfileArgs, Any, Any, Any]


# --------------------------------------------------------------------------- #
# Terrain                                                                     #
# --------------------------------------------------------------------------- #


def _check_heights(
    heights: Mapping[str, float], classes: Sequence[str]
) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, h in heights.items():
        if name not in classes:
            raise ValueError(
                f"obstacles: unknown terrain class {name!r}; "
                f"classes: {', '.join(classes)}"
            )
        try:
            hv = float(h)
        except (TypeError, ValueError):
            raise ValueError(
                f"obstacles: height of {name!r} must be a number of metres, not {h!r}"
            ) from None
        if not math.isfinite(hv) or hv < 0:
            raise ValueError(
                f"obstacles: height of {name!r} must be a finite number >= 0 m, "
                f"got {h!r}"
            )
        out[name] = hv
    return out


def _block_max(a: npt.NDArray[np.float32], b: int) -> npt.NDArray[np.float32]:
    """Maximum of each ``b`` x ``b`` block of ``a`` (the last ones may be smaller).

    >>> _block_max(np.arange(12, dtype=np.float32).reshape(3, 4), 2).tolist()
    [[5.0, 7.0], [9.0, 11.0]]
    """
    nr, nc = a.shape
    p = np.full((-(-nr // b) * b, -(-nc // b) * b), -np.inf, a.dtype)
    p[:nr, :nc] = a
    return p.reshape(p.shape[0] // b, b, p.shape[1] // b, b).max(axis=(1, 3))


def _up_float32(a: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """``a`` as float32, each value rounded up (an upper bound stays one)."""
    f = a.astype(np.float32)
    low = f.astype(np.float64) < a
    f[low] = np.nextafter(f[low], np.float32(np.inf))
    return np.ascontiguousarray(f)


@dataclass(eq=False)
class LOSTerrain:
    """Everything the LOS kernels need: DEM, land cover, obstacle heights, hexes.

    Build one from a map with :func:`terrain_of_map` (what the ``Map`` methods do)
    or from bare arrays with :meth:`from_dem` (tests, synthetic studies).

    Args:
        dem: elevation in metres, rows north to south.
        dem_grid: geometry of ``dem``.
        cover: land-cover codes indexing ``classes`` (rows north to south).
        cover_grid: geometry of ``cover``.
        hexgrid: the hex grid that defines "own hex" for the obstacle exemption.
        obstacle_heights_m: obstacle height above ground per class name.
        classes: class names of the cover codes.
        ident: a short identity used in cache keys (the arrays are hashed in).
    """

    dem: npt.NDArray[np.float32]
    dem_grid: RasterGrid
    cover: npt.NDArray[np.uint8]
    cover_grid: RasterGrid
    hexgrid: HexGrid
    obstacle_heights_m: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_OBSTACLE_HEIGHTS_M)
    )
    classes: tuple[str, ...] = TERRAIN_CLASSES
    ident: str = "terrain"
    _cache: dict[Any, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.dem = np.ascontiguousarray(self.dem, dtype=np.float32)
        self.cover = np.ascontiguousarray(self.cover, dtype=np.uint8)
        if self.dem.ndim != 2 or min(self.dem.shape) < 2:
            raise ValueError(
                f"dem must be a 2-D array of at least 2 x 2, got {self.dem.shape}"
            )
        if self.dem.shape != self.dem_grid.shape:
            raise ValueError(
                f"dem shape {self.dem.shape} != dem_grid {self.dem_grid.shape}"
            )
        if self.cover.shape != self.cover_grid.shape:
            raise ValueError(
                f"cover shape {self.cover.shape} != cover_grid {self.cover_grid.shape}"
            )
        if not np.isfinite(self.dem).all():
            raise ValueError("dem holds NaN or infinite values; fill voids first")
        self.obstacle_heights_m = _check_heights(self.obstacle_heights_m, self.classes)

    @classmethod
    def from_dem(
        cls,
        dem: npt.ArrayLike,
        cell_m: float,
        *,
        x0: float = 0.0,
        y0: float | None = None,
        cover: npt.ArrayLike | None = None,
        cover_cell_m: float | None = None,
        hex_size_m: float = 150.0,
        obstacle_heights_m: Mapping[str, float] | None = None,
    ) -> LOSTerrain:
        """A terrain from bare arrays (``y0`` defaults to ``rows * cell_m``).

        ``cover`` (codes of :data:`~wargame.geo.terrain.TERRAIN_CLASSES`) must cover
        the same extent as the DEM; without it there are no obstacles. The hex grid
        is :meth:`HexGrid.covering` the DEM's extent.

        Examples:
            >>> t = LOSTerrain.from_dem(np.zeros((10, 20)), cell_m=50.0)
            >>> t.dem_grid.bounds, t.hexgrid.n_hexes > 0
            ((0.0, 0.0, 1000.0, 500.0), True)
        """
        z = np.asarray(dem, dtype=np.float32)
        if z.ndim != 2:
            raise ValueError(f"dem must be 2-D, got shape {z.shape}")
        top = float(z.shape[0] * cell_m) if y0 is None else float(y0)
        dg = RasterGrid(float(x0), top, float(cell_m), *z.shape)
        if cover is None:
            cov = np.zeros((1, 1), np.uint8)
            cg = RasterGrid(
                dg.x0, dg.y0, max(dg.bounds[2] - dg.x0, dg.y0 - dg.bounds[1]), 1, 1
            )
        else:
            cov = np.asarray(cover, dtype=np.uint8)
            cc = (
                float(cover_cell_m)
                if cover_cell_m
                else cell_m * z.shape[1] / cov.shape[1]
            )
            cg = RasterGrid(dg.x0, dg.y0, cc, *cov.shape)
        hg = HexGrid.covering(dg.bounds, hex_size_m)
        heights = dict(
            DEFAULT_OBSTACLE_HEIGHTS_M
            if obstacle_heights_m is None
            else obstacle_heights_m
        )
        return cls(z, dg, cov, cg, hg, heights)

    # -- derived, cached ------------------------------------------------------ #
    def heights_for(self, obstacles: Obstacles) -> dict[str, float] | None:
        """Obstacle heights for a call's ``obstacles`` argument (None: off)."""
        if obstacles is True:
            hs = dict(self.obstacle_heights_m)
        elif obstacles is False or obstacles is None:
            return None
        elif isinstance(obstacles, Mapping):
            hs = {**self.obstacle_heights_m, **_check_heights(obstacles, self.classes)}
        else:
            raise ValueError(
                "obstacles must be True, False or a mapping of terrain class to height"
                f" in metres, not {obstacles!r}"
            )
        hs = {k: v for k, v in hs.items() if v > 0}
        return hs or None

    def _oh(self, heights: dict[str, float] | None) -> npt.NDArray[np.float64]:
        oh = np.zeros(256, np.float64)
        for name, h in (heights or {}).items():
            oh[self.classes.index(name)] = h
        return oh

    def _bounds(self, heights: dict[str, float] | None) -> tuple[Any, Any, Any]:
        key = ("bounds", tuple(sorted((heights or {}).items())))
        if key not in self._cache:
            ub, obm = K.cell_bounds(
                *self._geo_args(), self._oh(heights), heights is not None
            )
            # float32 rounded up (still upper bounds): half the memory traffic of
            # the march, whose time goes mostly into these loads
            ub, obm = _up_float32(ub), _up_float32(obm)
            uc = _block_max(ub, K._COARSE)
            self._cache[key] = (
                (self.dem, np.ascontiguousarray(self.dem.T)),
                (ub, np.ascontiguousarray(ub.T), uc, np.ascontiguousarray(uc.T)),
                (obm, np.ascontiguousarray(obm.T)),
            )
        return self._cache[key]  # type: ignore[no-any-return]

    def _packed_cover(
        self, heights: dict[str, float] | None
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
        """The cover as indices into a small table of distinct obstacle heights.

        Packed 2 bits a cell for up to 4 distinct heights (the default woods and
        town heights and 0: a quarter of the bytes; the sight-line samples' hottest
        instruction waits for this array), 4 bits for up to 16, else the codes and
        the per-code table as they are. Rows are padded with copies of their last
        cell (see ``_los_kernels._cover_code``). Same heights per sample, bit for
        bit.
        """
        key = ("packed", tuple(sorted((heights or {}).items())))
        if key not in self._cache:
            oh = self._oh(heights)
            vals = np.unique(oh)
            if heights is None:  # the kernels never read it
                packed, hv = np.zeros((1, 1), np.uint8), np.zeros(4)
            elif vals.size > 16:
                packed, hv = self.cover, oh
            else:
                bits = 2 if vals.size <= 4 else 4
                lut = np.searchsorted(vals, oh).astype(np.uint8)
                packed = K.pack_cover(np.ascontiguousarray(self.cover), lut, bits)
                hv = np.zeros(1 << bits)
                hv[: vals.size] = vals
            self._cache[key] = (np.ascontiguousarray(packed), hv)
        return self._cache[key]  # type: ignore[no-any-return]

    def _geo_args(self) -> _GeoArgs:
        dg, cg = self.dem_grid, self.cover_grid
        return (self.dem, dg.x0, dg.y0, dg.cell_m, self.cover, cg.x0, cg.y0, cg.cell_m)

    def kernel_args(self, heights: dict[str, float] | None) -> _KernelArgs:
        """Leading arguments of the compiled kernels for these obstacle heights.

        The cover is packed (:meth:`_packed_cover`); ``profile``, which reports
        land-cover codes, takes :meth:`profile_args` instead.
        """
        Zs, Us, Os = self._bounds(heights)
        packed, hv = self._packed_cover(heights)
        dg, cg = self.dem_grid, self.cover_grid
        return (
            self.dem,
            dg.x0,
            dg.y0,
            dg.cell_m,
            packed,
            cg.x0,
            cg.y0,
            cg.cell_m,
            hv,
            heights is not None,
            self.hexgrid.size_m / 2.0,
            Zs,
            Us,
            Os,
        )

    def profile_args(self, heights: dict[str, float] | None) -> _ProfileArgs:
        """Leading arguments of ``profile``: the cover codes as they are."""
        return (
            *self._geo_args(),
            self._oh(heights),
            heights is not None,
            self.hexgrid.size_m / 2.0,
        )

    def fingerprint(self) -> str:
        """A hash of the arrays, grids and obstacle heights (for cache keys)."""
        if "fp" not in self._cache:
            h = hashlib.sha256()
            h.update(self.dem.tobytes())
            h.update(self.cover.tobytes())
            h.update(
                repr(
                    (self.dem_grid, self.cover_grid, self.hexgrid, self.classes)
                ).encode()
            )
            self._cache["fp"] = h.hexdigest()[:24]
        return str(self._cache["fp"])

    # -- points and hexes ------------------------------------------------------ #
    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """Extent in which points are accepted: the DEM's outer edges."""
        return self.dem_grid.bounds

    def own_hex_center(self, x: float, y: float) -> Point:
        """Centre of the hex containing (x, y) (on or off the grid)."""
        q, r = self.hexgrid.xy_to_axial(x, y)
        cx, cy = self.hexgrid.axial_to_xy(q, r)
        return float(cx), float(cy)

    def label_at(self, x: float, y: float) -> str | None:
        """Label of the hex containing (x, y), or None off the grid."""
        q, r = self.hexgrid.xy_to_axial(x, y)
        if not bool(self.hexgrid.in_bounds(q, r)):
            return None
        return self.hexgrid.label_of(int(q), int(r))

    def resolve(self, where: Where, what: str) -> tuple[Point, Point, str | None]:
        """A hex label or (x, y) -> (point, own hex centre, hex label)."""
        if isinstance(where, str):
            try:
                c = self.hexgrid.center(where)
            except ValueError as exc:
                raise ValueError(f"{what}: {exc}") from None
            return c, c, where.strip().upper()
        try:
            x, y = (float(v) for v in where)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise ValueError(
                f"{what} must be a hex label like 'L12' or an (x, y) pair in map "
                f"metres, not {where!r}"
            ) from None
        xmin, ymin, xmax, ymax = self.bounds
        if not (
            math.isfinite(x)
            and math.isfinite(y)
            and xmin <= x <= xmax
            and ymin <= y <= ymax
        ):
            raise ValueError(
                f"{what} ({x:.0f}, {y:.0f}) is outside the map: "
                f"x {xmin:.0f}–{xmax:.0f}, y {ymin:.0f}–{ymax:.0f} m"
            )
        return (x, y), self.own_hex_center(x, y), self.label_at(x, y)


def terrain_of_map(m: Map) -> LOSTerrain:
    """The :class:`LOSTerrain` of a map (cached on the map; follows its heights)."""
    heights = dict(m.obstacle_heights_m)
    cached = m.__dict__.get("_los_terrain")
    if cached is not None and cached.obstacle_heights_m == heights:
        return cached  # type: ignore[no-any-return]
    t = LOSTerrain(
        m.dem,
        m.dem_grid,
        m.landcover,
        m.landcover_grid,
        m.grid,
        heights,
        ident=f"{m.name}",
    )
    sha = m.meta.get("sha256", {})
    t._cache["fp"] = (
        hashlib.sha256(
            json.dumps(
                {
                    "map": m.name,
                    "dem": sha.get(m.meta["dem"]["file"]),
                    "cover": sha.get(m.meta["landcover"]["file"]),
                    "bounds": [round(b, 3) for b in m.bounds],
                    "hex": m.hex_size_m,
                },
                sort_keys=True,
            ).encode()
        ).hexdigest()[:24]
        if sha
        else t.fingerprint()
    )
    m.__dict__["_los_terrain"] = t
    return t


def check_height(value: float, name: str) -> float:
    """A height above ground in metres: finite and >= 0, else ``ValueError``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number of metres, not {value!r}") from None
    if not math.isfinite(v) or v < 0:
        raise ValueError(
            f"{name} must be a finite height >= 0 m above ground, got {value!r}"
        )
    return v


def _kcurv(curvature_coeff: float) -> float:
    return float(curvature_coeff) / (2.0 * EARTH_RADIUS_M)


# --------------------------------------------------------------------------- #
# One sight line                                                              #
# --------------------------------------------------------------------------- #


class BlockPoint(NamedTuple):
    """Where a sight line is first blocked, seen from the observer."""

    x: float
    y: float
    distance_m: float


class Blocker(NamedTuple):
    """What blocks: ``"terrain"`` (the ground itself) or an obstacle class."""

    kind: str
    hex: str | None


@dataclass
class LOSResult:
    """The answer of :func:`line_of_sight`, able to explain itself.

    Attributes:
        visible: whether the target can be seen.
        observer, target: the two points in map metres.
        observer_hex, target_hex: their hex labels (None off the grid).
        distance_m: horizontal distance between them.
        blocked_at: first blocking point seen from the observer, or None.
        blocker: what blocks there and in which hex, or None.
        profile: one row per sample: ``distance_m`` (from the observer), ``x``,
            ``y``, ``ground_m``, ``obstacle_top_m`` (ground + obstacle where one
            counts, else ground), ``sight_line_m`` (the sight line's elevation,
            curvature included), ``cover`` (terrain class), ``blocks``.
        observer_height_m, target_height_m: heights above ground used.
    """

    visible: bool
    observer: Point
    target: Point
    observer_hex: str | None
    target_hex: str | None
    distance_m: float
    blocked_at: BlockPoint | None
    blocker: Blocker | None
    profile: pd.DataFrame = field(repr=False)
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M

    def explain(self) -> str:
        """One sentence saying what the line does and why.

        Examples:
            >>> t = LOSTerrain.from_dem(np.zeros((10, 10)), cell_m=50.0)
            >>> line_of_sight(t, (50, 250), (450, 250)).explain()[:24]
            'visible: 400 m from (50,'
        """
        where = f"({self.observer[0]:.0f}, {self.observer[1]:.0f})" + (
            f" [{self.observer_hex}]" if self.observer_hex else ""
        )
        to = f"({self.target[0]:.0f}, {self.target[1]:.0f})" + (
            f" [{self.target_hex}]" if self.target_hex else ""
        )
        head = f"{self.distance_m:.0f} m from {where} to {to}"
        if self.visible:
            return f"visible: {head}"
        assert self.blocked_at is not None and self.blocker is not None
        return (
            f"blocked: {head}; first blocked by {self.blocker.kind} at "
            f"{self.blocked_at.distance_m:.0f} m ({self.blocked_at.x:.0f}, "
            f"{self.blocked_at.y:.0f})"
            + (f" in hex {self.blocker.hex}" if self.blocker.hex else "")
        )

    def __bool__(self) -> bool:
        return self.visible

    def plot(self, ax: Any = None, title: str | None = None) -> Figure:
        """Terrain profile chart: ground, obstacles, sight line, blocking point.

        Returns the matplotlib ``Figure`` (drawn on ``ax`` if given).
        """
        if ax is None:
            from matplotlib.figure import Figure as _Figure

            fig = _Figure(figsize=(8, 3.2), layout="constrained")
            ax = fig.subplots()
        else:
            fig = ax.figure
        p = self.profile
        d = p["distance_m"].to_numpy()
        g = p["ground_m"].to_numpy()
        top = p["obstacle_top_m"].to_numpy()
        low = min(float(g.min()), float(p["sight_line_m"].min())) - 5.0
        ax.fill_between(d, low, g, color="#b59b6d", lw=0, label="ground")
        obst = top > g
        if obst.any():
            colors = {"woods": "#3f7f3a", "town": "#a05a5a"}
            for cls in pd.unique(p.loc[obst, "cover"]):
                sel = obst & (p["cover"].to_numpy() == cls)
                ax.fill_between(
                    d,
                    g,
                    top,
                    where=sel,
                    color=colors.get(cls, "#777777"),
                    lw=0,
                    step="mid",
                    label=str(cls),
                )
        ax.plot(
            d,
            p["sight_line_m"],
            color="#1f4e9c" if self.visible else "#c0392b",
            lw=1.5,
            label="sight line",
        )
        ax.plot([0.0], [p["sight_line_m"].iloc[0]], "o", color="black", ms=4)
        ax.plot([d[-1]], [p["sight_line_m"].iloc[-1]], "s", color="black", ms=4)
        if self.blocked_at is not None and self.blocker is not None:
            i = int(np.argmin(np.abs(d - self.blocked_at.distance_m)))
            ax.plot(
                [d[i]],
                [max(top[i], g[i])],
                "x",
                color="#c0392b",
                ms=10,
                mew=2,
                label=f"blocked by {self.blocker.kind}",
            )
        ax.set_xlabel("distance from observer (m)")
        ax.set_ylabel("elevation (m)")
        ax.set_xlim(0.0, max(float(d[-1]), 1.0))
        ax.set_ylim(bottom=low)
        ax.set_title(
            title
            or ("visible" if self.visible else "blocked")
            + f": {self.observer_hex or 'observer'} → {self.target_hex or 'target'}"
        )
        ax.legend(loc="best", fontsize="small")
        return fig


def _ordered(a: Point, b: Point) -> bool:
    """True if a comes first in the canonical pair order (x, then y)."""
    return a[0] < b[0] or (a[0] == b[0] and a[1] <= b[1])


def line_of_sight(
    terrain: LOSTerrain,
    a: Where,
    b: Where,
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
    *,
    curvature_coeff: float = CURVATURE_COEFF,
    step_m: float = SAMPLE_STEP_M,
) -> LOSResult:
    """Line of sight from ``a`` (observer) to ``b`` (target); see the module doc.

    Args:
        terrain: the terrain (``terrain_of_map(m)`` for a map).
        a: the observer: a hex label (its centre) or ``(x, y)`` in map metres.
        b: the target, likewise.
        observer_height_m: eye height above ground (>= 0).
        target_height_m: target height above ground (>= 0).
        obstacles: True (the terrain's heights), False, or a mapping of class
            name to height overriding the named classes.
        curvature_coeff: 0.85714 (GDAL's default) or 0 for a flat earth.
        step_m: sample spacing; keep the default for answers equal to the table.

    Raises:
        ValueError: a point off the map, a bad label, a negative height.

    Examples:
        >>> t = LOSTerrain.from_dem(np.zeros((10, 10)), cell_m=50.0)
        >>> r = line_of_sight(t, (50, 250), (450, 250))
        >>> r.visible, r.blocked_at, list(r.profile.columns)[:4]
        (True, None, ['distance_m', 'x', 'y', 'ground_m'])
    """
    h_o = check_height(observer_height_m, "observer_height_m")
    h_t = check_height(target_height_m, "target_height_m")
    if not (step_m > 0):
        raise ValueError(f"step_m must be > 0 m, got {step_m!r}")
    pa, ca, la = terrain.resolve(a, "a (observer)")
    pb, cb, lb = terrain.resolve(b, "b (target)")
    heights = terrain.heights_for(obstacles)
    kc = _kcurv(curvature_coeff)
    return sight(terrain, (pa, ca, la), (pb, cb, lb), h_o, h_t, heights, step_m, kc)


def sight(
    terrain: LOSTerrain,
    a: tuple[Point, Point, str | None],
    b: tuple[Point, Point, str | None],
    h_o: float,
    h_t: float,
    heights: dict[str, float] | None,
    step_m: float,
    kc: float,
    inr: float | None = None,
) -> LOSResult:
    """:func:`line_of_sight` of checked arguments: verdict, profile, explanation.

    ``a``/``b``: (point, centre of its exempt zone, hex label). ``inr``: the
    exempt zones' inradius (default the terrain's own hexes; free points give
    their own, see :mod:`wargame.geo.los_points`).
    """
    (pa, ca, la), (pb, cb, lb) = a, b
    kargs = terrain.kernel_args(heights)
    pargs = terrain.profile_args(heights)
    if inr is not None:
        kargs = (*kargs[:10], float(inr), *kargs[11:])
        pargs = (*pargs[:10], float(inr))
    f64 = np.float64
    visible = bool(
        K.pairs_visible(
            *kargs,
            np.array([pa[0]], f64),
            np.array([pa[1]], f64),
            np.array([ca[0]], f64),
            np.array([ca[1]], f64),
            np.array([pb[0]], f64),
            np.array([pb[1]], f64),
            np.array([cb[0]], f64),
            np.array([cb[1]], f64),
            h_o,
            h_t,
            float(step_m),
            kc,
            _N_PROBES,
        )[0]
    )
    # the full profile, in canonical order, then seen from the observer
    fwd = _ordered(pa, pb)
    (p, pc), (q, qc) = ((pa, ca), (pb, cb)) if fwd else ((pb, cb), (pa, ca))
    tt, ground, top, code, l1, l2 = K.profile(
        *pargs,
        p[0],
        p[1],
        pc[0],
        pc[1],
        q[0],
        q[1],
        qc[0],
        qc[1],
        h_o,
        h_t,
        h_t,
        h_o,
        float(step_m),
        kc,
    )
    line = l1 if fwd else l2
    D = math.hypot(q[0] - p[0], q[1] - p[1])
    xs = p[0] + (q[0] - p[0]) * tt
    ys = p[1] + (q[1] - p[1]) * tt
    dist = D * tt
    blocks = top > line
    blocks[0] = blocks[-1] = False
    if not fwd:
        xs, ys, ground, top, code, line, blocks = (
            v[::-1] for v in (xs, ys, ground, top, code, line, blocks)
        )
        dist = D - dist[::-1]
    names = np.asarray(
        terrain.classes + ("?",) * (256 - len(terrain.classes)), dtype=object
    )
    prof = pd.DataFrame(
        {
            "distance_m": dist,
            "x": xs,
            "y": ys,
            "ground_m": ground,
            "obstacle_top_m": top,
            "sight_line_m": line,
            "cover": names[code],
            "blocks": blocks,
        }
    )
    blocked_at = blocker = None
    hits = np.flatnonzero(blocks)
    if not visible and hits.size:
        i = int(hits[0])
        kind = "terrain" if ground[i] > line[i] else str(names[code[i]])
        blocked_at = BlockPoint(float(xs[i]), float(ys[i]), float(dist[i]))
        blocker = Blocker(kind, terrain.label_at(float(xs[i]), float(ys[i])))
    return LOSResult(
        visible=visible,
        observer=pa,
        target=pb,
        observer_hex=la,
        target_hex=lb,
        distance_m=D,
        blocked_at=blocked_at,
        blocker=blocker,
        profile=prof,
        observer_height_m=h_o,
        target_height_m=h_t,
    )


def visible_many(
    terrain: LOSTerrain,
    observers: npt.ArrayLike,
    targets: npt.ArrayLike,
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
    *,
    curvature_coeff: float = CURVATURE_COEFF,
    step_m: float = SAMPLE_STEP_M,
) -> npt.NDArray[np.bool_]:
    """Vectorised :func:`line_of_sight` verdicts for ``(n, 2)`` arrays of points.

    Each point's own hex is the hex containing it. Points are not bounds-checked
    beyond finiteness (points off the DEM see clamped edge elevations).

    Examples:
        >>> t = LOSTerrain.from_dem(np.zeros((10, 10)), cell_m=50.0)
        >>> visible_many(t, [[50, 250]], [[450, 250]]).tolist()
        [True]
    """
    h_o = check_height(observer_height_m, "observer_height_m")
    h_t = check_height(target_height_m, "target_height_m")
    a = np.asarray(observers, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(targets, dtype=np.float64).reshape(-1, 2)
    if a.shape != b.shape:
        raise ValueError(f"observers {a.shape} and targets {b.shape} differ in shape")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("observers and targets must be finite coordinates")
    g = terrain.hexgrid
    ac = np.column_stack(g.axial_to_xy(*g.xy_to_axial(a[:, 0], a[:, 1])))
    bc = np.column_stack(g.axial_to_xy(*g.xy_to_axial(b[:, 0], b[:, 1])))
    kargs = terrain.kernel_args(terrain.heights_for(obstacles))
    cols = [
        np.ascontiguousarray(v)
        for v in (
            a[:, 0],
            a[:, 1],
            ac[:, 0],
            ac[:, 1],
            b[:, 0],
            b[:, 1],
            bc[:, 0],
            bc[:, 1],
        )
    ]
    ax, ay, acx, acy, bx, by, bcx, bcy = cols  # each one by name, for mypy
    kc = _kcurv(curvature_coeff)
    return K.pairs_visible(  # type: ignore[no-any-return]
        *kargs,
        ax,
        ay,
        acx,
        acy,
        bx,
        by,
        bcx,
        bcy,
        h_o,
        h_t,
        float(step_m),
        kc,
        _N_PROBES,
    )


# --------------------------------------------------------------------------- #
# Hex polygons with exactly shared vertices                                  #
# --------------------------------------------------------------------------- #


def hexes_union(grid: HexGrid, q: npt.ArrayLike, r: npt.ArrayLike) -> shapely.Geometry:
    """Union of axial hexes as one (Multi)Polygon, fast and without slivers.

    Neighbouring hexes get bit-identical shared corners (computed from an integer
    corner lattice), so a coverage union is exact.

    Examples:
        >>> g = HexGrid(0.0, 0.0, 150.0, 5, 5)
        >>> round(hexes_union(g, [0, 1], [0, 0]).area / (g.size_m ** 2 * SQRT3 / 2))
        2
    """
    q = np.asarray(q, dtype=np.int64).ravel()
    r = np.asarray(r, dtype=np.int64).ravel()
    if q.size == 0:
        return shapely.MultiPolygon()
    half = grid.radius_m / 2.0
    hh = grid.radius_m * SQRT3 / 2.0
    # corners counter-clockwise from east, in lattice units
    kx = np.array([2, 1, -1, -2, -1, 1, 2])
    ky = np.array([0, -1, -1, 0, 1, 1, 0])
    X = (3 * q)[:, None] + kx[None, :]
    Y = (2 * r + q)[:, None] + ky[None, :]
    xs = grid.x0 + half * X
    ys = grid.y0 - hh * Y
    polys = shapely.polygons(np.stack([xs, ys], axis=-1))
    return shapely.coverage_union_all(polys)


# --------------------------------------------------------------------------- #
# Hex viewshed                                                                #
# --------------------------------------------------------------------------- #


class HexViewshed(NamedTuple):
    """Hexes visible from an observer hex, and their union polygon."""

    observer: str
    labels: list[str]
    polygon: shapely.Geometry


def check_range_hexes(range_hexes: int, grid: HexGrid) -> int:
    """A hex range: a whole number from 1 to the grid's size, else ``ValueError``."""
    if isinstance(range_hexes, bool) or not isinstance(range_hexes, int | np.integer):
        raise ValueError(
            f"range_hexes must be a whole number of hexes, not {range_hexes!r}"
        )
    limit = grid.n_cols + grid.n_rows
    if not 1 <= range_hexes <= limit:
        raise ValueError(
            f"range_hexes must be between 1 and {limit} (the map's size in hexes), "
            f"got {range_hexes}"
        )
    return int(range_hexes)


def hex_viewshed(
    terrain: LOSTerrain,
    hex: str,
    range_hexes: int = DEFAULT_RANGE_HEXES,
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
) -> HexViewshed:
    """Hexes within ``range_hexes`` whose centres the centre of ``hex`` sees.

    Same model and sampling as :func:`line_of_sight` between hex centres and as
    :class:`HexLOSTable`. The observer's own hex is included.

    Examples:
        >>> t = LOSTerrain.from_dem(np.zeros((40, 40)), cell_m=50.0)
        >>> v = hex_viewshed(t, "G7", range_hexes=2)
        >>> len(v.labels), v.polygon.geom_type
        (19, 'Polygon')
    """
    g = terrain.hexgrid
    if not isinstance(hex, str):
        raise ValueError(f"hex must be a hex label like 'L12', not {hex!r}")
    (cx, cy), _, label = terrain.resolve(hex, "hex")
    rng = check_range_hexes(range_hexes, g)
    q0, r0 = g.axial_of_label(label or hex)
    cells = np.array(axial_range(q0, r0, rng), dtype=np.int64)
    ok = g.in_bounds(cells[:, 0], cells[:, 1]) & ~(
        (cells[:, 0] == q0) & (cells[:, 1] == r0)
    )
    cells = cells[ok]
    tx, ty = g.axial_to_xy(cells[:, 0], cells[:, 1])
    obs = np.column_stack([np.full(len(tx), cx), np.full(len(tx), cy)])
    vis = visible_many(
        terrain,
        obs,
        np.column_stack([tx, ty]),
        observer_height_m,
        target_height_m,
        obstacles,
    )
    qv = np.concatenate([[q0], cells[vis, 0]])
    rv = np.concatenate([[r0], cells[vis, 1]])
    labels = [g.label_of(int(a), int(b)) for a, b in zip(qv, rv, strict=True)]
    return HexViewshed(label or hex, labels, hexes_union(g, qv, rv))


# --------------------------------------------------------------------------- #
# The hex LOS table                                                           #
# --------------------------------------------------------------------------- #


def _half_offsets(rng: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Axial offsets within ``rng`` with dq > 0, or dq == 0 and dr > 0."""
    cells = np.array(axial_range(0, 0, rng), dtype=np.int64)
    keep = (cells[:, 0] > 0) | ((cells[:, 0] == 0) & (cells[:, 1] > 0))
    cells = cells[keep]
    return np.ascontiguousarray(cells[:, 0]), np.ascontiguousarray(cells[:, 1])


class HexLOSTable:
    """Visibility of every ordered hex pair within a range, as bits; O(1) lookups.

    Build it with :func:`hex_los_table` (or ``Map.hex_los_table``), which caches
    it on disk. Pairs farther apart than ``range_hexes`` are not in the table.

    Attributes:
        grid: the hex grid.
        range_hexes: the largest hex distance stored.
        params: the model parameters the table was built with.
        key: the cache key (map, terrain and parameters).
    """

    def __init__(
        self,
        grid: HexGrid,
        range_hexes: int,
        fwd: npt.NDArray[np.uint8],
        bwd: npt.NDArray[np.uint8] | None,
        params: dict[str, Any],
        key: str,
    ) -> None:
        self.grid = grid
        self.range_hexes = int(range_hexes)
        self.params = params
        self.key = key
        self._fwd = fwd
        self._bwd = fwd if bwd is None else bwd
        self.symmetric = bwd is None
        dq, dr = _half_offsets(self.range_hexes)
        R = self.range_hexes
        # lut[dq + R, dr + R] = k + 1 for half offset k, -(k + 1) for its negative
        lut = np.zeros((2 * R + 1, 2 * R + 1), np.int32)
        k = np.arange(dq.size, dtype=np.int32) + 1
        lut[dq + R, dr + R] = k
        lut[-dq + R, -dr + R] = -k
        self._lut = lut
        self._labels: list[str] | None = None

    def __repr__(self) -> str:
        return (
            f"<HexLOSTable {self.grid.n_hexes} hexes, range {self.range_hexes}, "
            f"{self.nbytes / 1e6:.1f} MB, key {self.key}>"
        )

    @property
    def nbytes(self) -> int:
        """Bytes held by the bit arrays."""
        return int(self._fwd.nbytes + (0 if self.symmetric else self._bwd.nbytes))

    def _index(self, label: str, what: str) -> int:
        try:
            q, r = self.grid._checked(label)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        return int(self.grid.index_of(q, r))

    def visible(self, a: str, b: str) -> bool:
        """Whether hex ``a`` sees hex ``b`` (labels).

        Raises:
            ValueError: a bad label, or hexes farther apart than the range.
        """
        i = self._index(a, "a")
        j = self._index(b, "b")
        return bool(self.visible_index(np.array([i]), np.array([j]))[0])

    def in_range(self, i: npt.ArrayLike, j: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Whether index pairs are within the table's range (vectorised)."""
        qi, ri = self.grid.axial_of_index(i)
        qj, rj = self.grid.axial_of_index(j)
        dq, dr = qj - qi, rj - ri
        return np.asarray(
            (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2 <= self.range_hexes
        )

    def visible_index(
        self, i: npt.ArrayLike, j: npt.ArrayLike
    ) -> npt.NDArray[np.bool_]:
        """Vectorised lookup over hex index arrays (``col * n_rows + row``).

        A hex sees itself. Raises ``ValueError`` if any pair is out of range.
        """
        i = np.asarray(i, dtype=np.int64)
        j = np.asarray(j, dtype=np.int64)
        n = self.grid.n_hexes
        if ((i < 0) | (i >= n) | (j < 0) | (j >= n)).any():
            raise ValueError(f"hex indices must be in 0..{n - 1}")
        qi, ri = self.grid.axial_of_index(i)
        qj, rj = self.grid.axial_of_index(j)
        dq, dr = qj - qi, rj - ri
        R = self.range_hexes
        far = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2 > R
        if far.any():
            raise ValueError(
                f"{int(far.sum())} pair(s) are more than {R} hexes apart, beyond this "
                "table's range; build a table with a larger range_hexes"
            )
        code = self._lut[dq + R, dr + R]
        same = code == 0
        k = np.abs(code) - 1
        row = np.where(code > 0, i, j)
        bits = np.where(code > 0, self._fwd[row, k >> 3], self._bwd[row, k >> 3])
        out = ((bits >> (k & 7)) & 1).astype(bool)
        out[same] = True
        return out

    def visible_from(self, a: str) -> list[str]:
        """Labels of the hexes within range that ``a`` sees (``a`` included)."""
        i = self._index(a, "a")
        q, r = self.grid.axial_of_index(i)
        cells = np.array(axial_range(int(q), int(r), self.range_hexes), dtype=np.int64)
        ok = self.grid.in_bounds(cells[:, 0], cells[:, 1])
        cells = cells[ok]
        j = self.grid.index_of(cells[:, 0], cells[:, 1])
        vis = self.visible_index(np.full(j.shape, i), j)
        return [self.grid.label_of(int(a_), int(b_)) for a_, b_ in cells[vis]]

    def n_visible_pairs(self) -> int:
        """Number of ordered pairs (different hexes) marked visible."""
        pc = np.unpackbits(self._fwd).sum() + np.unpackbits(self._bwd).sum()
        return int(pc)

    # -- storage ----------------------------------------------------------------- #
    def save(self, path: Path) -> None:
        """Write atomically (temp file + rename) with a checksum of the bits."""
        path.parent.mkdir(parents=True, exist_ok=True)
        bwd = None if self.symmetric else self._bwd
        arrays: dict[str, Any] = {
            "key": np.array(self.key),
            "params": np.array(json.dumps(self.params, sort_keys=True)),
            "grid": np.array(
                [
                    self.grid.x0,
                    self.grid.y0,
                    self.grid.size_m,
                    self.grid.n_cols,
                    self.grid.n_rows,
                ],
                np.float64,
            ),
            "range": np.array(self.range_hexes),
            "fwd": self._fwd,
            "checksum": np.array(_checksum(self._fwd, bwd)),
        }
        if bwd is not None:
            arrays["bwd"] = bwd
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, **arrays)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    @classmethod
    def load(cls, path: Path, key: str, grid: HexGrid) -> HexLOSTable:
        """Read a saved table; ``ValueError`` if its key, shape or checksum is off."""
        with np.load(path, allow_pickle=False) as z:
            if str(z["key"]) != key:
                raise ValueError("cache key mismatch")
            g = z["grid"]
            if (g[3], g[4]) != (grid.n_cols, grid.n_rows):
                raise ValueError("grid mismatch")
            rng = int(z["range"])
            fwd = np.ascontiguousarray(z["fwd"])
            bwd = np.ascontiguousarray(z["bwd"]) if "bwd" in z.files else None
            if str(z["checksum"]) != _checksum(fwd, bwd):
                raise ValueError("checksum mismatch")
            params = json.loads(str(z["params"]))
        nbytes = (_half_offsets(rng)[0].size + 7) // 8
        if fwd.shape != (grid.n_hexes, nbytes) or (
            bwd is not None and bwd.shape != fwd.shape
        ):
            raise ValueError("table shape mismatch")
        return cls(grid, rng, fwd, bwd, params, key)


def _checksum(fwd: np.ndarray, bwd: np.ndarray | None) -> str:
    h = hashlib.sha256(fwd.tobytes())
    if bwd is not None:
        h.update(bwd.tobytes())
    return h.hexdigest()


def build_hex_los_table(
    terrain: LOSTerrain,
    range_hexes: int = DEFAULT_RANGE_HEXES,
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
    *,
    curvature_coeff: float = CURVATURE_COEFF,
) -> HexLOSTable:
    """Compute the table for every hex pair within ``range_hexes`` (no cache).

    Each unordered pair is traced once for both directions (exact whatever the
    heights); with equal heights only one bit array is kept.
    """
    h_o = check_height(observer_height_m, "observer_height_m")
    h_t = check_height(target_height_m, "target_height_m")
    g = terrain.hexgrid
    rng = check_range_hexes(range_hexes, g)
    heights = terrain.heights_for(obstacles)
    params = _table_params(rng, h_o, h_t, heights, curvature_coeff)
    key = _table_key(terrain, params)
    q, r = g.all_axial()
    cx, cy = g.axial_to_xy(q, r)
    dq, dr = _half_offsets(rng)
    n = g.n_hexes
    order = np.arange(n)
    kargs = terrain.kernel_args(heights)
    kc = _kcurv(curvature_coeff)
    cx, cy = np.ascontiguousarray(cx), np.ascontiguousarray(cy)
    near = _near_plan(terrain, heights, kargs, cx, cy, dq, dr, h_o, h_t, kc)
    # dynamic scheduling: a thread slowed by another process does not hold up
    # the other one at the end
    with numba.parallel_chunksize(16):
        fwd, bwd = K.table(
            *kargs,
            cx,
            cy,
            g.n_cols,
            g.n_rows,
            dq,
            dr,
            h_o,
            h_t,
            SAMPLE_STEP_M,
            kc,
            _TABLE_PROBES,
            order,
            *near,
        )
    return HexLOSTable(g, rng, fwd, None if h_o == h_t else bwd, params, key)


def _near_plan(
    terrain: LOSTerrain,
    heights: dict[str, float] | None,
    kargs: tuple[Any, ...],
    cx: npt.NDArray[np.float64],
    cy: npt.NDArray[np.float64],
    dq: npt.NDArray[np.int64],
    dr: npt.NDArray[np.int64],
    h_o: float,
    h_t: float,
    kcurv: float,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Near-ring bounds for the table: ``(bounds, ksec, kpar)`` (see ``K.table``).

    With obstacles on, the table's first probes are the samples next to each end
    (``K._NEAR_SAMPLE`` steps out), where woods or a town beside a hex block most
    sight lines. For a pair of ``n`` samples that sample lies ``_NEAR_SAMPLE * D /
    n`` from the hex centre, in the direction of the other hex: for every pair
    long enough that this is outside both hexes, inside a thin ring around the
    hex. The ring is cut into ``_NEAR_SECTORS`` sectors (widened by a micro-radian
    and boxed, plus a centimetre) and ``K.near_bounds`` bounds the top from below
    in each sector's box, once per hex. A pair whose bounds lie above both sight
    lines at both samples is blocked both ways, as the probes would find: exact,
    and no terrain is read. ``bounds[s, i]``: sector ``s`` of hex ``i`` (a last
    row of -inf: no bound). Per offset ``ksec`` holds the two sectors and
    whether the row's hex comes first in the canonical order, ``kpar`` the
    fraction of the way to the other hex, the earth's bulge and the two lines'
    share of the heights at both samples. The bounds hold for
    the offsets' nominal lengths, up to rounding far below the margins; a pair in
    the other order than its offset's (never seen) gets no bound.
    """
    g = terrain.hexgrid
    nsec = _NEAR_SECTORS
    near, step = K._NEAR_SAMPLE, SAMPLE_STEP_M
    rc = g.size_m / 2.0 / K.COS30 + K._EPS_M  # a hex's circumradius
    r_hi = near * step + 0.01
    # pairs of at least nmin samples (D > (nmin - 1) step): the sample is more
    # than r_lo from its hex centre and farther than rc from the other one
    nmin = math.ceil((r_hi + rc) / step) + 1
    r_lo = near * step * (nmin - 1) / nmin - 0.01
    x0, y0 = g.axial_to_xy(0, 0)
    ox, oy = g.axial_to_xy(dq, dr)
    ox, oy = ox - x0, oy - y0
    D = np.hypot(ox, oy)
    x = D / step - K._N_TOL
    n = np.ceil(x).astype(np.int64)  # as K._n_steps: the same for every such pair
    # ... unless x is so near a whole number that the rounding of coordinates
    # could tip it (never seen; then no bound)
    sure = np.abs(x - np.round(x)) > 1e-7
    canon = (ox > 0) | ((ox == 0) & (oy >= 0))  # the row's hex is P
    ksec = np.zeros((dq.size, 3), np.int64)
    ksec[:, 2] = canon
    si = near / n  # fraction of the way from the row's hex: its sample...
    sj = 1.0 - si  # ... and the other hex's
    kpar = np.empty((dq.size, 8))
    for c, s in ((0, si), (4, sj)):
        d = D * s
        kpar[:, c] = s
        kpar[:, c + 1] = kcurv * d * (D - d)
        # line 1 has the eye at P, line 2 the target height at P
        w = np.where(canon, 1.0 - s, s)  # weight of P's height at this sample
        kpar[:, c + 2] = h_o * w + h_t * (1.0 - w)
        kpar[:, c + 3] = h_t * w + h_o * (1.0 - w)
    if heights is None or r_lo <= rc:  # no obstacles or the sample is inside a hex
        return np.full((1, g.n_hexes), -np.inf, np.float32), ksec, kpar
    tau = 2.0 * math.pi
    boxes = np.empty((nsec, 4))
    for sec in range(nsec):
        ta, tb = tau * sec / nsec - 1e-6, tau * (sec + 1) / nsec + 1e-6
        angles = [ta, tb] + [
            a * math.pi / 2 for a in range(5) if ta < a * math.pi / 2 < tb
        ]
        px = [rad * math.cos(a) for a in angles for rad in (r_lo, r_hi)]
        py = [rad * math.sin(a) for a in angles for rad in (r_lo, r_hi)]
        boxes[sec] = min(px) - 0.01, max(px) + 0.01, min(py) - 0.01, max(py) + 0.01
    use = (n >= nmin) & sure
    for c, (vx, vy) in enumerate(((ox, oy), (-ox, -oy))):  # towards the other hex
        sector = np.floor(np.arctan2(vy, vx) / tau * nsec).astype(np.int64) % nsec
        ksec[:, c] = np.where(use, sector, nsec)
    # per terrain and obstacle heights (all else here is fixed per terrain), like
    # the march's cell bounds: tables for other eye heights reuse it
    key = ("near", tuple(sorted(heights.items())), nsec)
    if key not in terrain._cache:
        terrain._cache[key] = K.near_bounds(*kargs[:9], cx, cy, boxes)
    return terrain._cache[key], ksec, kpar


def _table_params(
    rng: int,
    h_o: float,
    h_t: float,
    heights: dict[str, float] | None,
    curvature_coeff: float,
) -> dict[str, Any]:
    return {
        "version": LOS_MODEL_VERSION,
        "range_hexes": rng,
        "observer_height_m": h_o,
        "target_height_m": h_t,
        "obstacles": dict(sorted(heights.items())) if heights else None,
        "step_m": SAMPLE_STEP_M,
        "curvature_coeff": float(curvature_coeff),
        "earth_radius_m": EARTH_RADIUS_M,
    }


def _table_key(terrain: LOSTerrain, params: dict[str, Any]) -> str:
    ident = {
        "terrain": terrain.fingerprint(),
        "params": params,
        "grid": [
            terrain.hexgrid.x0,
            terrain.hexgrid.y0,
            terrain.hexgrid.size_m,
            terrain.hexgrid.n_cols,
            terrain.hexgrid.n_rows,
        ],
    }
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:24]


def hex_los_table(
    terrain: LOSTerrain,
    range_hexes: int = DEFAULT_RANGE_HEXES,
    observer_height_m: float = DEFAULT_OBSERVER_HEIGHT_M,
    target_height_m: float = DEFAULT_TARGET_HEIGHT_M,
    obstacles: Obstacles = True,
    *,
    cache: bool | Path = True,
    curvature_coeff: float = CURVATURE_COEFF,
) -> HexLOSTable:
    """The hex LOS table, from the per-user cache when a valid copy is there.

    ``cache`` is True (``wargame.geo.maps.cache_dir() / "los"``), False, or a
    folder. A cached file whose key, shape or checksum does not match is rebuilt,
    never trusted; writes are atomic; a read-only cache is not an error.

    Examples:
        >>> t = LOSTerrain.from_dem(np.zeros((30, 30)), cell_m=50.0)
        >>> tab = hex_los_table(t, range_hexes=3, cache=False)
        >>> tab.visible("A1", "C2"), tab.symmetric
        (True, False)
    """
    h_o = check_height(observer_height_m, "observer_height_m")
    h_t = check_height(target_height_m, "target_height_m")
    rng = check_range_hexes(range_hexes, terrain.hexgrid)
    heights = terrain.heights_for(obstacles)
    params = _table_params(rng, h_o, h_t, heights, curvature_coeff)
    key = _table_key(terrain, params)
    path: Path | None = None
    if cache is not False:
        from wargame.geo.maps import cache_dir

        folder = cache_dir() / "los" if cache is True else Path(cache)  # type: ignore[arg-type]
        path = folder / f"{terrain.ident}-r{rng}-{key}.npz"
        if path.is_file():
            with contextlib.suppress(Exception):  # damaged: rebuilt, never trusted
                return HexLOSTable.load(path, key, terrain.hexgrid)
    table = build_hex_los_table(
        terrain, rng, h_o, h_t, obstacles, curvature_coeff=curvature_coeff
    )
    if path is not None:
        # a read-only cache is not an error: we just recompute next time
        with contextlib.suppress(OSError):
            table.save(path)
    return table
