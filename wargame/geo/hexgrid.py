"""Flat-topped hex grid maths in map metres (Red Blob Games' cube/axial model).

Coordinates
-----------
* **axial** ``(q, r)`` with the implied cube coordinate ``s = -q - r``;
* **offset** ``(col, row)`` in the "odd-q" layout (odd columns are shoved half a hex
  south), used only for printed labels;
* **labels** like the board game's: column letters then a 1-based row number
  (``A1``, ``L12``, ``AB7``). Row 1 is the northernmost row, column ``A`` the
  westernmost. Adjacent columns with the same row number are always neighbours,
  e.g. ``L1`` and ``M1``.

``size_m`` is the distance between the centres of two neighbouring hexes (the
flat-to-flat width of a hex); the circumradius is ``size_m / sqrt(3)``.

Every function here is vectorised over numpy arrays where it makes sense and does
not know about terrain or rules.

Examples:
    >>> g = HexGrid(x0=0.0, y0=0.0, size_m=150.0, n_cols=20, n_rows=10)
    >>> "M1" in g.neighbors("L1")
    True
    >>> g.distance("A1", "C2")
    2
    >>> sorted(g.neighbors("B2"))
    ['A2', 'A3', 'B1', 'B3', 'C2', 'C3']
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SQRT3 = math.sqrt(3.0)

# Axial directions of a flat-topped grid, clockwise from "north-east" when y points
# down (Red Blob Games: axial_direction_vectors).
AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, 0),
    (-1, 1),
    (0, 1),
)

_LABEL_RE = re.compile(r"^([A-Z]+)(\d+)$")


def column_letters(col: int) -> str:
    """Spreadsheet-style column letters for a 0-based column index.

    Examples:
        >>> [column_letters(i) for i in (0, 11, 12, 25, 26, 27, 701, 702)]
        ['A', 'L', 'M', 'Z', 'AA', 'AB', 'ZZ', 'AAA']
    """
    if col < 0:
        raise ValueError(f"column index must be >= 0, got {col}")
    out = ""
    n = col + 1
    while n > 0:
        n, rem = divmod(n - 1, 26)
        out = chr(65 + rem) + out
    return out


def column_index(letters: str) -> int:
    """Inverse of :func:`column_letters`.

    Examples:
        >>> [column_index(c) for c in ("A", "Z", "AA", "AAA")]
        [0, 25, 26, 702]
    """
    n = 0
    for ch in letters:
        if not "A" <= ch <= "Z":
            raise ValueError(f"bad column letters {letters!r}")
        n = n * 26 + (ord(ch) - 64)
    return n - 1


# --------------------------------------------------------------------------- #
# Pure axial / cube maths (no layout)                                          #
# --------------------------------------------------------------------------- #


def axial_distance(q1: int, r1: int, q2: int, r2: int) -> int:
    """Hex distance between two axial coordinates.

    Examples:
        >>> axial_distance(0, 0, 3, -1)
        3
    """
    dq, dr = q1 - q2, r1 - r2
    return int((abs(dq) + abs(dr) + abs(dq + dr)) // 2)


def cube_round(
    fq: npt.ArrayLike, fr: npt.ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Round fractional axial coordinates to the nearest hex (vectorised).

    Examples:
        >>> q, r = cube_round([0.4, 1.6], [0.3, -0.5])
        >>> q.tolist(), r.tolist()
        ([1, 2], [0, -1])
    """
    fq = np.asarray(fq, dtype=np.float64)
    fr = np.asarray(fr, dtype=np.float64)
    fs = -fq - fr
    q = np.round(fq)
    r = np.round(fr)
    s = np.round(fs)
    dq = np.abs(q - fq)
    dr = np.abs(r - fr)
    ds = np.abs(s - fs)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    q = np.where(fix_q, -r - s, q)
    r = np.where(fix_r, -q - s, r)
    return q.astype(np.int64), r.astype(np.int64)


def axial_line(q1: int, r1: int, q2: int, r2: int) -> list[tuple[int, int]]:
    """Hexes on the straight line between two hexes, both ends included.

    Uses Red Blob Games' linear interpolation with a small nudge (1e-6) so that
    lines running exactly along hex edges break ties consistently.

    Examples:
        >>> axial_line(0, 0, 3, 0)
        [(0, 0), (1, 0), (2, 0), (3, 0)]
    """
    n = axial_distance(q1, r1, q2, r2)
    if n == 0:
        return [(q1, r1)]
    eps_q, eps_r = 1e-6, 2e-6
    t = np.arange(n + 1) / n
    fq = (q1 + eps_q) + (q2 - q1) * t
    fr = (r1 + eps_r) + (r2 - r1) * t
    qq, rr = cube_round(fq, fr)
    return list(zip(qq.tolist(), rr.tolist(), strict=True))


def axial_ring(q: int, r: int, radius: int) -> list[tuple[int, int]]:
    """Hexes at exactly ``radius`` steps from ``(q, r)`` (6 × radius of them).

    Examples:
        >>> len(axial_ring(0, 0, 2)), axial_ring(0, 0, 0)
        (12, [(0, 0)])
    """
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    if radius == 0:
        return [(q, r)]
    dq, dr = AXIAL_DIRECTIONS[4]
    cq, cr = q + dq * radius, r + dr * radius
    out: list[tuple[int, int]] = []
    for i in range(6):
        for _ in range(radius):
            out.append((cq, cr))
            cq += AXIAL_DIRECTIONS[i][0]
            cr += AXIAL_DIRECTIONS[i][1]
    return out


def axial_range(q: int, r: int, radius: int) -> list[tuple[int, int]]:
    """All hexes within ``radius`` steps of ``(q, r)`` (3r² + 3r + 1 of them).

    Examples:
        >>> len(axial_range(0, 0, 3))
        37
    """
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    out = []
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            out.append((q + dq, r + dr))
    return out


def offset_to_axial(
    col: npt.ArrayLike, row: npt.ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Odd-q offset (col, row) to axial (q, r)."""
    col = np.asarray(col, dtype=np.int64)
    row = np.asarray(row, dtype=np.int64)
    return col, row - (col - (col & 1)) // 2


def axial_to_offset(
    q: npt.ArrayLike, r: npt.ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Axial (q, r) to odd-q offset (col, row)."""
    q = np.asarray(q, dtype=np.int64)
    r = np.asarray(r, dtype=np.int64)
    return q, r + (q - (q & 1)) // 2


# --------------------------------------------------------------------------- #
# A grid laid over map metres                                                 #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class HexGrid:
    """A bounded flat-topped hex grid in a metric CRS.

    Args:
        x0: easting of the centre of hex ``A1`` (the north-west hex), metres.
        y0: northing of the centre of hex ``A1``, metres.
        size_m: centre-to-centre distance of neighbouring hexes, metres.
        n_cols: number of columns (west to east).
        n_rows: number of rows (north to south).

    Hexes are numbered ``index = col * n_rows + row`` for array work.
    """

    x0: float
    y0: float
    size_m: float
    n_cols: int
    n_rows: int

    def __post_init__(self) -> None:
        if not self.size_m > 0:
            raise ValueError(f"hex size must be > 0 m, got {self.size_m}")
        if self.n_cols <= 0 or self.n_rows <= 0:
            raise ValueError("a hex grid needs at least one column and one row")

    # -- geometry constants ------------------------------------------------ #
    @property
    def radius_m(self) -> float:
        """Circumradius (centre to corner), metres."""
        return self.size_m / SQRT3

    @property
    def col_spacing_m(self) -> float:
        """East-west distance between neighbouring columns, metres."""
        return 1.5 * self.radius_m

    @property
    def n_hexes(self) -> int:
        """Number of hexes in the grid."""
        return self.n_cols * self.n_rows

    @classmethod
    def covering(
        cls, bounds: tuple[float, float, float, float], size_m: float
    ) -> HexGrid:
        """The smallest grid whose hexes cover every point of ``bounds``.

        ``bounds`` is ``(xmin, ymin, xmax, ymax)`` in metres. Hex ``A1`` is centred on
        the north-west corner, so hexes along the edges are partly outside (like the
        half hexes at a board game's map edge) and every point of the map lies in a
        hex.

        Examples:
            >>> g = HexGrid.covering((0, 0, 3000, 3000), 150)
            >>> g.n_cols, g.n_rows
            (24, 21)
            >>> bool(g.index_at_xy(3000, 0) >= 0) and bool(g.index_at_xy(0, 3000) >= 0)
            True
        """
        xmin, ymin, xmax, ymax = bounds
        if not (xmax > xmin and ymax > ymin):
            raise ValueError(f"bounds {bounds} are empty")
        rad = size_m / SQRT3
        # the last column must reach the east edge within half a radius (there every
        # y is covered); the last row of even columns within half a hex of the south
        n_cols = max(1, math.ceil((xmax - xmin - rad / 2) / (1.5 * rad) - 1e-9) + 1)
        n_rows = max(1, math.ceil((ymax - ymin - size_m / 2) / size_m - 1e-9) + 1)
        return cls(x0=xmin, y0=ymax, size_m=size_m, n_cols=n_cols, n_rows=n_rows)

    # -- axial <-> metres -------------------------------------------------- #
    def axial_to_xy(
        self, q: npt.ArrayLike, r: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Centre of axial hexes in map metres (vectorised)."""
        q = np.asarray(q, dtype=np.float64)
        r = np.asarray(r, dtype=np.float64)
        rad = self.radius_m
        x = self.x0 + rad * 1.5 * q
        y = self.y0 - rad * SQRT3 * (r + q / 2.0)
        return x, y

    def xy_to_axial(
        self, x: npt.ArrayLike, y: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Axial hex containing each point (vectorised; no bounds check)."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        rad = self.radius_m
        px = (x - self.x0) / rad
        py = (self.y0 - y) / rad
        fq = (2.0 / 3.0) * px
        fr = (-1.0 / 3.0) * px + (SQRT3 / 3.0) * py
        return cube_round(fq, fr)

    # -- indices ----------------------------------------------------------- #
    def in_bounds(self, q: npt.ArrayLike, r: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Whether axial hexes belong to this grid."""
        col, row = axial_to_offset(q, r)
        return (col >= 0) & (col < self.n_cols) & (row >= 0) & (row < self.n_rows)

    def index_of(self, q: npt.ArrayLike, r: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Hex index ``col * n_rows + row`` (-1 where off the grid)."""
        col, row = axial_to_offset(q, r)
        ok = (col >= 0) & (col < self.n_cols) & (row >= 0) & (row < self.n_rows)
        return np.where(ok, col * self.n_rows + row, -1)

    def index_at_xy(self, x: npt.ArrayLike, y: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Hex index containing each point (-1 off the grid), by arithmetic."""
        q, r = self.xy_to_axial(x, y)
        return self.index_of(q, r)

    def axial_of_index(
        self, index: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Axial coordinates of hex indices."""
        index = np.asarray(index, dtype=np.int64)
        col, row = np.divmod(index, self.n_rows)
        return offset_to_axial(col, row)

    def all_axial(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Axial coordinates of every hex, in index order."""
        return self.axial_of_index(np.arange(self.n_hexes))

    # -- labels ------------------------------------------------------------ #
    def label_of(self, q: int, r: int) -> str:
        """Printed label (``"L12"``) of an axial hex."""
        col, row = axial_to_offset(q, r)
        return f"{column_letters(int(col))}{int(row) + 1}"

    def labels(self) -> list[str]:
        """Labels of every hex in index order."""
        letters = [column_letters(c) for c in range(self.n_cols)]
        rows = [str(r + 1) for r in range(self.n_rows)]
        return [c + r for c in letters for r in rows]

    def axial_of_label(self, label: str) -> tuple[int, int]:
        """Axial coordinates of a printed label (not bounds-checked)."""
        m = _LABEL_RE.match(label.strip().upper()) if isinstance(label, str) else None
        if m is None:
            raise ValueError(
                f"bad hex label {label!r}: expected column letters then a row number,"
                " e.g. 'L12'"
            )
        col = column_index(m.group(1))
        row = int(m.group(2)) - 1
        q, r = offset_to_axial(col, row)
        return int(q), int(r)

    def contains_label(self, label: str) -> bool:
        """Whether a label names a hex of this grid."""
        try:
            q, r = self.axial_of_label(label)
        except ValueError:
            return False
        return bool(self.in_bounds(q, r))

    def _checked(self, label: str) -> tuple[int, int]:
        q, r = self.axial_of_label(label)
        if not self.in_bounds(q, r):
            raise ValueError(
                f"hex {label!r} is not on this map (columns A–"
                f"{column_letters(self.n_cols - 1)}, rows 1–{self.n_rows})"
            )
        return q, r

    # -- label-level conveniences -------------------------------------------- #
    def center(self, label: str) -> tuple[float, float]:
        """Centre of a hex in map metres."""
        x, y = self.axial_to_xy(*self._checked(label))
        return float(x), float(y)

    def corners(self, label: str) -> npt.NDArray[np.float64]:
        """The 6 corners (x, y) of a hex, counter-clockwise from the east corner."""
        cx, cy = self.center(label)
        ang = np.deg2rad(60.0 * np.arange(6))
        return np.column_stack(
            [cx + self.radius_m * np.cos(ang), cy + self.radius_m * np.sin(ang)]
        )

    def neighbors(self, label: str) -> list[str]:
        """Labels of the on-grid neighbours of a hex."""
        q, r = self._checked(label)
        out = []
        for dq, dr in AXIAL_DIRECTIONS:
            if self.in_bounds(q + dq, r + dr):
                out.append(self.label_of(q + dq, r + dr))
        return out

    def distance(self, a: str, b: str) -> int:
        """Hex distance between two labels."""
        return axial_distance(*self._checked(a), *self._checked(b))

    def line(self, a: str, b: str) -> list[str]:
        """Labels on the straight hex line from ``a`` to ``b`` (both included)."""
        return [
            self.label_of(q, r)
            for q, r in axial_line(*self._checked(a), *self._checked(b))
        ]

    def ring(self, label: str, radius: int) -> list[str]:
        """On-grid hexes at exactly ``radius`` from a hex."""
        return self._on_grid(axial_ring(*self._checked(label), radius))

    def range(self, label: str, radius: int) -> list[str]:
        """On-grid hexes within ``radius`` of a hex (itself included)."""
        return self._on_grid(axial_range(*self._checked(label), radius))

    def _on_grid(self, cells: Iterable[tuple[int, int]]) -> list[str]:
        return [self.label_of(q, r) for q, r in cells if self.in_bounds(q, r)]

    def iter_labels(self) -> Iterator[str]:
        """Iterate over all labels in index order."""
        yield from self.labels()

    def sample_offsets(self, per_side: int = 4) -> npt.NDArray[np.float64]:
        """Offsets (dx, dy) of a regular sample lattice filling one hex.

        A small hexagonal lattice with ``per_side`` rings around the centre, spaced
        ``size_m / (2 * per_side + 1)`` apart, all strictly inside the hex; used to
        summarise rasters (terrain shares, mean and max elevation) per hex.

        Examples:
            >>> HexGrid(0, 0, 150, 1, 1).sample_offsets(4).shape
            (61, 2)
        """
        step = self.size_m / (2 * per_side + 1)
        pts = axial_range(0, 0, per_side)
        q = np.array([p[0] for p in pts], dtype=np.float64)
        r = np.array([p[1] for p in pts], dtype=np.float64)
        # a pointy lattice of spacing `step` (rotated relative to the big hexes)
        dx = step * (q + r / 2.0)
        dy = -step * (SQRT3 / 2.0) * r
        return np.column_stack([dx, dy])
