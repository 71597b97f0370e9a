"""The area a model can reach with a movement allowance over real going.

:func:`reach_polygon` lays a cost raster over the ground around the model
(``resolution_m`` cells, nearest cell of the 10 m land cover at each centre),
where each terrain class costs a factor per metre (1 = clear going, 2 = half
speed, ``None`` = impassable) and cells a road passes through cost the road's
factor instead (roads override the terrain they cross, also on bridges;
tunnels are left out, as they do not touch the surface in between). A
compiled Dijkstra search over 16 neighbours (the 8 adjacent cells and the 8
knight's moves) sums, for each move, its length times the mean factor of the
cells the move's straight line passes through; a diagonal move between two
impassable cells is refused. The reach is every cell whose cheapest cost from
the model's cell is at most the allowance, as a polygon of cells.

ASSUMPTIONS (``docs/free_movement.md``): distances on the 16-neighbour grid are
within 2.7 % of the straight line (never shorter); the model starts at its
cell's centre; linear features (streams, rail) cost nothing here: a rule
system that makes them obstacles checks :func:`~wargame.geo.going.features_crossed`
on the chosen path.

Examples:
    >>> from wargame.geo.maps import load_map
    >>> m = load_map()
    >>> costs = {"clear": 1, "park": 1, "orchard": 2, "wetland": None,
    ...          "woods": 2, "town": 1, "water": None}
    >>> p = reach_polygon(m, m.place_xy("Remagen"), 300.0, costs, {"primary": 0.5})
    >>> 0.05 < p.area / 1e6 < 0.6
    True
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import shapely
from numba import njit

from wargame.geo.geocheck import positive
from wargame.geo.raster import RasterGrid, nearest
from wargame.geo.terrain import ROAD_CLASSES, TERRAIN_CLASSES

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

#: Default cell size of the cost raster (m): the land-cover resolution.
REACH_RESOLUTION_M = 10.0
RESOLUTION_RANGE_M = (2.0, 200.0)
#: Largest cost raster searched (cells); a bigger reach asks for coarser cells.
MAX_REACH_CELLS = 4_000_000

# the 16 moves: (row, col) offsets
_MOVES = np.array(
    [
        (0, 1),
        (1, 0),
        (0, -1),
        (-1, 0),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
        (1, 2),
        (2, 1),
        (-1, 2),
        (-2, 1),
        (1, -2),
        (2, -1),
        (-1, -2),
        (-2, -1),
    ],
    dtype=np.int64,
)


@njit(cache=True, nogil=True)
def _search(cost, r0, c0, limit, res, moves):  # type: ignore[no-untyped-def]
    """Cheapest cost (metres of allowance) from (r0, c0) to every cell, <= limit."""
    nr, nc = cost.shape
    dist = np.full((nr, nc), np.inf)
    dist[r0, c0] = 0.0
    heap = [(0.0, r0 * nc + c0)]
    sq2 = math.sqrt(2.0)
    sq5 = math.sqrt(5.0)
    while heap:
        d, k = heapq.heappop(heap)
        r = k // nc
        c = k - r * nc
        if d > dist[r, c]:
            continue
        here = cost[r, c]
        for mi in range(moves.shape[0]):
            dr = moves[mi, 0]
            dc = moves[mi, 1]
            rr = r + dr
            cc = c + dc
            if rr < 0 or rr >= nr or cc < 0 or cc >= nc:
                continue
            there = cost[rr, cc]
            if not np.isfinite(there):
                continue
            if dr == 0 or dc == 0:
                step = 0.5 * res * (here + there)
            elif abs(dr) == 1 and abs(dc) == 1:
                if not (np.isfinite(cost[r, cc]) or np.isfinite(cost[rr, c])):
                    continue
                step = 0.5 * res * sq2 * (here + there)
            elif abs(dc) == 2:
                sc = dc // 2
                step = (
                    0.25
                    * res
                    * sq5
                    * (here + cost[r, c + sc] + cost[rr, c + sc] + there)
                )
            else:
                sr = dr // 2
                step = (
                    0.25
                    * res
                    * sq5
                    * (here + cost[r + sr, c] + cost[r + sr, cc] + there)
                )
            nd = d + step
            if nd <= limit and nd < dist[rr, cc]:
                dist[rr, cc] = nd
                heapq.heappush(heap, (nd, rr * nc + cc))
    return dist


def _err(fn: str, arg: str, problem: str) -> ValueError:
    from wargame.geo.maps import MapArgumentError

    return MapArgumentError(fn, arg, problem)


def _factors(
    fn: str, arg: str, table: Any, names: tuple[str, ...], complete: bool
) -> dict[str, float]:
    """A mapping of names to factors > 0 (None: impassable, as inf)."""
    if not isinstance(table, Mapping):
        raise _err(
            fn,
            arg,
            f"{table!r:.40} is not a mapping; give a factor per "
            f"class: {', '.join(names)}",
        )
    out: dict[str, float] = {}
    for k, v in table.items():
        if k not in names:
            raise _err(
                fn, arg, f"{k!r} is not a class; give factors for {', '.join(names)}"
            )
        if v is None:
            out[k] = math.inf
            continue
        out[k] = positive(fn, f"{arg}[{k!r}]", v, allow_zero=False)
    missing = [n for n in names if n not in out]
    if complete and missing:
        raise _err(
            fn,
            arg,
            f"has no factor for {', '.join(missing)}; give a "
            "factor (1 = clear going) or None (impassable) for every class",
        )
    return out


def _cover_codes(m: Map, grid: RasterGrid) -> Any:
    """Land-cover codes at the cell centres of ``grid`` (a slice when aligned)."""
    lc, lg = m._landcover
    c0 = (grid.x0 - lg.x0) / lg.cell_m
    r0 = (lg.y0 - grid.y0) / lg.cell_m
    if (
        grid.cell_m == lg.cell_m
        and c0 == int(c0)
        and r0 == int(r0)
        and r0 >= 0
        and r0 + grid.n_rows <= lg.n_rows
        and c0 >= 0
        and c0 + grid.n_cols <= lg.n_cols
    ):
        return lc[int(r0) : int(r0) + grid.n_rows, int(c0) : int(c0) + grid.n_cols]
    cx = grid.x0 + (np.arange(grid.n_cols) + 0.5) * grid.cell_m
    cy = grid.y0 - (np.arange(grid.n_rows) + 0.5) * grid.cell_m
    gx, gy = np.meshgrid(cx, cy)
    return nearest(lc, lg, gx, gy)


@njit(cache=True, nogil=True)
def _burn_lines(cost, xy, part, f, x0, y0, cell):  # type: ignore[no-untyped-def]
    """Lower ``cost`` to ``f[part]`` in every cell each line segment passes through.

    A supercover walk (Amanatides-Woo): the cells in order along the segment,
    edge-adjacent, so a road is 4-connected.
    """
    nr, nc = cost.shape
    for k in range(xy.shape[0] - 1):
        if part[k] != part[k + 1]:
            continue
        fx = (xy[k, 0] - x0) / cell
        fy = (y0 - xy[k, 1]) / cell
        gx = (xy[k + 1, 0] - x0) / cell
        gy = (y0 - xy[k + 1, 1]) / cell
        c = math.floor(fx)
        r = math.floor(fy)
        c1 = math.floor(gx)
        r1 = math.floor(gy)
        dx = gx - fx
        dy = gy - fy
        sc = 1 if dx > 0 else -1
        sr = 1 if dy > 0 else -1
        tdx = abs(1.0 / dx) if dx != 0 else np.inf
        tdy = abs(1.0 / dy) if dy != 0 else np.inf
        tmx = ((c + 1 - fx) if dx > 0 else (fx - c)) * tdx if dx != 0 else np.inf
        tmy = ((r + 1 - fy) if dy > 0 else (fy - r)) * tdy if dy != 0 else np.inf
        val = f[part[k]]
        for _ in range(abs(c1 - c) + abs(r1 - r) + 1):
            if 0 <= r < nr and 0 <= c < nc and val < cost[r, c]:
                cost[r, c] = val
            if r == r1 and c == c1:
                break
            if tmx < tmy:
                tmx += tdx
                c += sc
            else:
                tmy += tdy
                r += sr


def _burn_roads(m: Map, cost: Any, grid: RasterGrid, factors: dict[str, float]) -> None:
    """Lower ``cost`` to the road's factor in the cells each road passes through."""
    from wargame.geo.going import _line_index

    if not factors:
        return
    tree, geoms, df = _line_index(m, "roads")
    idx = tree.query(shapely.box(*grid.bounds))
    if not idx.size:
        return
    cls = df["class"].to_numpy()[idx]
    tun = df["tunnel"].to_numpy(dtype=bool)[idx]
    keep = np.isin(cls, list(factors)) & ~tun
    idx, cls = idx[keep], cls[keep]
    if not idx.size:
        return
    xy, k = shapely.get_coordinates(geoms[idx], return_index=True)
    f = np.array([factors[c] for c in cls])
    _burn_lines(cost, xy, k.astype(np.int64), f, grid.x0, grid.y0, grid.cell_m)


def cells_polygon(mask: npt.NDArray[np.bool_], grid: RasterGrid) -> shapely.Geometry:
    """The union of the ``True`` cells of ``mask`` as one (Multi)Polygon.

    One box per run of cells in a row; the boxes are merged by a zero buffer
    (GEOS unions touching parts; ten times faster here than ``union_all``).

    Examples:
        >>> g = RasterGrid(0.0, 30.0, 10.0, 3, 3)
        >>> ring = np.ones((3, 3), bool); ring[1, 1] = False
        >>> p = cells_polygon(ring, g)
        >>> p.area, len(p.interiors), p.is_valid
        (800.0, 1, True)
    """
    pad = np.zeros((mask.shape[0], mask.shape[1] + 2), np.int8)
    pad[:, 1:-1] = mask
    dif = np.diff(pad, axis=1)
    r_on, c_on = np.nonzero(dif == 1)
    _, c_off = np.nonzero(dif == -1)
    if not r_on.size:
        return shapely.Polygon()
    cm = grid.cell_m
    boxes = shapely.box(
        grid.x0 + c_on * cm,
        grid.y0 - (r_on + 1) * cm,
        grid.x0 + c_off * cm,
        grid.y0 - r_on * cm,
    )
    return shapely.MultiPolygon(list(boxes)).buffer(0)


def reach_polygon(
    m: Map,
    origin: tuple[float, float],
    allowance: float,
    cost_per_class: Mapping[str, float | None],
    road_cost: Mapping[str, float] | None = None,
    resolution_m: float = REACH_RESOLUTION_M,
) -> shapely.Geometry:
    """The ground reachable from ``origin`` within ``allowance`` metres of going.

    Args:
        m: the map.
        origin: the model's ``(x, y)`` in map metres.
        allowance: the movement allowance in metres of clear going (>= 0).
        cost_per_class: a factor (> 0) per metre for every terrain class of
            ``TERRAIN_CLASSES``, or ``None`` for impassable.
        road_cost: factors by road class (``ROAD_CLASSES``) overriding the
            terrain where those roads run; classes left out are not roads here.
        resolution_m: the cost raster's cell size (2–200 m).

    Returns a shapely (Multi)Polygon of whole cells in map metres (the model's
    own cell at least). Raises ``MapArgumentError`` naming a bad argument, or
    when the model stands in impassable terrain.
    """
    fn = "reach_polygon"
    ox, oy = m._xy_point(fn, "origin", origin)
    allow = positive(fn, "allowance", allowance)
    costs = _factors(fn, "cost_per_class", cost_per_class, TERRAIN_CLASSES, True)
    roads = _factors(fn, "road_cost", road_cost or {}, ROAD_CLASSES, False)
    roads = {k: v for k, v in roads.items() if math.isfinite(v)}
    res = positive(fn, "resolution_m", resolution_m, allow_zero=False)
    lo, hi = RESOLUTION_RANGE_M
    if not lo <= res <= hi:
        raise _err(
            fn,
            "resolution_m",
            f"{resolution_m!r} is out of range; give metres from {lo:g} to {hi:g}",
        )
    cheapest = min(list(costs.values()) + list(roads.values()))
    radius = (allow / cheapest if math.isfinite(cheapest) else 0.0) + 2 * res
    xmin, ymin, xmax, ymax = m.bounds
    # cells aligned on the map's corner, so that one point always gets one cell
    c0 = max(math.floor((ox - radius - xmin) / res), 0)
    c1 = min(math.ceil((ox + radius - xmin) / res), math.ceil((xmax - xmin) / res))
    r0 = max(math.floor((ymax - (oy + radius)) / res), 0)
    r1 = min(math.ceil((ymax - (oy - radius)) / res), math.ceil((ymax - ymin) / res))
    nr, nc = max(r1 - r0, 1), max(c1 - c0, 1)
    if nr * nc > MAX_REACH_CELLS:
        raise _err(
            fn,
            "resolution_m",
            f"{res:g} m cells make {nr * nc:,} cells for "
            f"this allowance, over {MAX_REACH_CELLS:,}; give coarser cells",
        )
    grid = RasterGrid(xmin + c0 * res, ymax - r0 * res, res, nr, nc)
    codes = _cover_codes(m, grid)
    lut = np.array([costs[c] for c in TERRAIN_CLASSES])
    cost = lut[codes]
    cost = np.ascontiguousarray(cost)
    _burn_roads(m, cost, grid, roads)
    orow = min(int((grid.y0 - oy) // res), nr - 1)
    ocol = min(int((ox - grid.x0) // res), nc - 1)
    if not math.isfinite(cost[orow, ocol]):
        cls = TERRAIN_CLASSES[int(codes[orow, ocol])]
        raise _err(
            fn,
            "origin",
            f"({ox:.0f}, {oy:.0f}) stands in {cls}, impassable "
            "by cost_per_class; give a point on passable ground",
        )
    dist = _search(np.ascontiguousarray(cost), orow, ocol, allow, res, _MOVES)
    return cells_polygon(dist <= allow, grid)
