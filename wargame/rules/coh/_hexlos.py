"""Which hexes a centre-to-centre sight line crosses, by exact hexagon geometry.

CoH 2e §6.0: LOS runs from centre dot to centre dot and is blocked if any part of
it crosses any part of a blocking hex; a line running exactly along the edge
between two hexes takes the less restrictive of the two.  So the question is not
the hex line of :func:`wargame.geo.hexgrid.axial_line` (one hex per step) but
every hexagon the segment meets:

* **crossed**: the segment passes through the hexagon's interior;
* **along a hexside**: the segment runs along an edge shared by two hexes (both
  touch it only on their boundary) - reported as one position holding the pair;
* a hexagon the segment only touches in one corner point is not crossed.
  ASSUMPTION: a line through a corner grazes that hex no more than a line along
  a hexside does, and the rule gives the less restrictive side there too.

The geometry depends only on the offset between the two hexes, so it is computed
once per offset, in hex-radius units (circumradius 1) on a flat-topped grid laid
out as :class:`wargame.geo.hexgrid.HexGrid` does (y to the north).

Examples:
    >>> [p.cells for p in positions(3, 0)]   # along an axis: two hexes in between
    [((1, 0),), ((2, 0),)]
    >>> p, = positions(1, 1)                  # hexside run between two neighbours
    >>> p.along_hexside, sorted(p.cells)
    (True, [(0, 1), (1, 0)])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from wargame.geo.hexgrid import AXIAL_DIRECTIONS, axial_distance, axial_line

__all__ = ["Position", "positions"]

_SQRT3 = math.sqrt(3.0)
#: Distance from a hex centre to its edges (circumradius 1).
_APOTHEM = _SQRT3 / 2.0
#: Outward normals of the six edges of a flat-topped hex (30° + k·60°).
_NORMALS = np.array(
    [
        [math.cos(math.radians(30 + 60 * k)), math.sin(math.radians(30 + 60 * k))]
        for k in range(6)
    ]
)
#: Tolerance (hex radii) between "inside", "on the boundary" and "outside".
_EPS = 1e-7
#: Shortest boundary contact counted as running along a hexside (edges are 1 long).
_MIN_RUN = 0.1


@dataclass(frozen=True)
class Position:
    """One place along the line: a crossed hex, or the two hexes of a hexside run.

    ``t`` is the fraction of the way from the first hex (0) to the second (1);
    ``cells`` are axial offsets from the first hex.
    """

    t: float
    cells: tuple[tuple[int, int], ...]
    along_hexside: bool


def _xy(q: npt.ArrayLike, r: npt.ArrayLike) -> npt.NDArray[np.float64]:
    q = np.asarray(q, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    return np.stack([1.5 * q, -_SQRT3 * (r + q / 2.0)], axis=-1)


def _clip(
    centres: npt.NDArray[np.float64], d: npt.NDArray[np.float64], apothem: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Parametric interval ``[t0, t1]`` of the segment ``0 -> d`` inside each hexagon
    of the given apothem (Cyrus-Beck clipping), and its length (radii)."""
    k = len(centres)
    t0 = np.zeros(k)
    t1 = np.ones(k)
    empty = np.zeros(k, dtype=bool)
    # inside edge i: n_i . (t d - c) <= a   <=>   t (n_i . d) <= a + n_i . c
    num = apothem + centres @ _NORMALS.T
    den = _NORMALS @ d
    for i in range(6):
        if den[i] > 1e-12:
            t1 = np.minimum(t1, num[:, i] / den[i])
        elif den[i] < -1e-12:
            t0 = np.maximum(t0, num[:, i] / den[i])
        else:
            empty |= num[:, i] < 0
    length = np.where(empty, 0.0, np.maximum(0.0, t1 - t0)) * float(np.hypot(*d))
    return t0, t1, length


@lru_cache(maxsize=8192)
def positions(dq: int, dr: int) -> tuple[Position, ...]:
    """The hexes a line from hex ``(0, 0)`` to hex ``(dq, dr)`` crosses, in order.

    The two end hexes are left out (they are the firer's and the target's, not
    intervening, §6.0).  Neighbouring hexes have nothing in between.
    """
    if axial_distance(0, 0, dq, dr) <= 1:
        return ()
    near = {
        (q + ddq, r + ddr)
        for q, r in axial_line(0, 0, dq, dr)
        for ddq, ddr in ((0, 0), *AXIAL_DIRECTIONS)
    }
    near -= {(0, 0), (dq, dr)}
    cells = sorted(near)
    qr = np.array(cells, dtype=np.float64)
    centres = _xy(qr[:, 0], qr[:, 1])
    d = _xy(dq, dr)
    _, _, inner = _clip(centres, d, _APOTHEM - _EPS)
    o0, o1, outer = _clip(centres, d, _APOTHEM + _EPS)
    out: list[Position] = []
    runs: dict[tuple[float, float], list[tuple[int, int]]] = {}
    for i, cell in enumerate(cells):
        if inner[i] > _EPS:
            out.append(Position(float((o0[i] + o1[i]) / 2), (cell,), False))
        elif outer[i] >= _MIN_RUN:
            runs.setdefault(
                (round(float(o0[i]), 6), round(float(o1[i]), 6)), []
            ).append(cell)
    for (t0, t1), pair in runs.items():
        out.append(Position((t0 + t1) / 2, tuple(sorted(pair)), True))
    out.sort(key=lambda p: p.t)
    return tuple(out)
