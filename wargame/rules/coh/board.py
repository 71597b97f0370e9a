"""The map as Conflict of Heroes 2nd edition reads it: terrain by the centre dot,
hill levels from the DEM, move costs, facing and arcs, and the rulebook's line of
sight (CoH 2e §4.0, §5.0-5.3, §6.0-6.1, §11.0-11.4).

* **Terrain** (§4.0): the land cover under a hex's centre dot decides the whole hex
  (:meth:`wargame.geo.maps.Map.terrain_at`); ``data/terrain.toml`` maps each
  generic map class to a 2e type, with its sources.  A hex is a **road** hex if a
  map road of the chart's classes crosses it; a *road move* is a step between
  two road hexes that one such road joins across their common hexside (§5.0.1:
  "follow the roads from hex to hex").
* **Levels** (§11.0): ``floor((centre elevation - base) / level_height_m)``, base
  the lowest hex-centre elevation of the window; ``level_height_m`` is a rule
  option within the rulebook's 10-15 m (§4.0).  ASSUMPTION: levels stop at
  :data:`MAX_LEVEL`; the AtB boards have L0-L2 only, the Middle Rhine needs more.
* **Facing** (§5.1, §6.1): hexside ``f`` faces the neighbour in
  :data:`wargame.geo.hexgrid.AXIAL_DIRECTIONS` ``[f]`` (0 south-east, 1
  north-east, 2 north, 3 north-west, 4 south-west, 5 south); the front hexes are
  ``f - 1, f, f + 1``; the arc of fire is the 120° wedge through the centres of the
  front-left and front-right neighbours, boundary included (3, 5, 7 ... hexes at
  range 1, 2, 3; research/coh.md §1.5, §8 gap 8).
* **LOS**: see :meth:`CohBoard.los`.

Examples:
    >>> import wargame
    >>> m = wargame.load_map(hex_size_m=50, window={"place": "Sessenhausen",
    ...                      "width_m": 1250, "height_m": 1250})
    >>> b = board_for(m)
    >>> b.terrain["M13"], b.terrain["AA13"], b.level["E1"], b.level["H24"]
    ('stone_building', 'heavy_woods', 3, 0)
    >>> b.front_hexes("P13", 2)
    ['O13', 'P12', 'Q13']
    >>> b.move_extra("Q11", "Q12", "wheeled")   # along the village street
    0.0
    >>> b.move_extra("L13", "L14", "foot")      # up a level: the road does not help
    1.0
    >>> b.los("AA16", "AA13").clear             # into the wood ...
    True
    >>> print(b.los("AA16", "AA12").why)  # ... but not through it
    ... # doctest: +NORMALIZE_WHITESPACE
    heavy woods at AA13 (level-1 obstacle on level 0) blocks a level-0 target
    from level 0
"""

from __future__ import annotations

import copy
import itertools
import math
import weakref
from collections import deque
from collections.abc import Mapping
from typing import Any

import numpy as np
import shapely

from wargame.geo.hexgrid import AXIAL_DIRECTIONS, axial_line, column_letters

from ._sight import Sight, SightMixin, los_agreement
from ._terrain import MOBILITIES, TerrainChart, TerrainType, load_chart, terrain_chart

__all__ = [
    "LEVEL_HEIGHT_RANGE_M",
    "MAX_LEVEL",
    "CohBoard",
    "Sight",
    "board_for",
    "los_agreement",
    "terrain_chart",
]

#: The rulebook's rise per hill level, metres (CoH 2e §4.0 Hills, §11.0).
LEVEL_HEIGHT_RANGE_M = (10.0, 15.0)
#: The highest hill level (ASSUMPTION, module docstring).
MAX_LEVEL = 9

_road_link_cache: dict[tuple[Any, ...], frozenset[frozenset[str]]] = {}
_boards: weakref.WeakKeyDictionary[Any, dict[float, CohBoard]] = (
    weakref.WeakKeyDictionary()
)


def _level_height(value: Any) -> float:
    lo, hi = LEVEL_HEIGHT_RANGE_M
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(
            f"level_height_m: {value!r} is not a number; give metres per "
            f"hill level, {lo:g} to {hi:g}"
        )
    if not (math.isfinite(value) and lo <= value <= hi):
        raise ValueError(
            f"level_height_m: {value!r} is out of range; give metres per hill "
            f"level, {lo:g} to {hi:g} (CoH 2e §4.0: each level is a "
            "10-15 m rise)"
        )
    return float(value)


class CohBoard(SightMixin):
    """Per-hex CoH terrain, levels, moves and LOS of one map (window); see the module.

    Args:
        game_map: a :class:`wargame.geo.maps.Map`, best a window at 40-50 m hexes.
        level_height_m: metres per hill level (10-15).
        chart: the terrain chart (default: the shipped ``data/terrain.toml``).
    """

    def __init__(
        self,
        game_map: Any,
        *,
        level_height_m: float = 12.5,
        chart: TerrainChart | None = None,
    ) -> None:
        self.level_height_m = _level_height(level_height_m)
        self.chart = chart if chart is not None else load_chart()
        self.grid = game_map.grid
        self.hex_size_m = float(game_map.hex_size_m)
        h = game_map.hexes
        h = h[h["on_map"].astype(bool)]
        labels = [str(x) for x in h.index]
        #: playable hexes (§1.0: half hexes are not playable)
        self.labels: frozenset[str] = frozenset(labels)
        self._axial = {
            lab: (int(q), int(r))
            for lab, q, r in zip(labels, h["q"].tolist(), h["r"].tolist(), strict=True)
        }
        self._label_at = {v: k for k, v in self._axial.items()}
        self._nb = {
            lab: [
                self._label_at[(q + dq, r + dr)]
                for dq, dr in AXIAL_DIRECTIONS
                if (q + dq, r + dr) in self._label_at
            ]
            for lab, (q, r) in self._axial.items()
        }
        # the centre dot (§4.0, §11.0); edge hexes' centres may lie just off the map
        xmin, ymin, xmax, ymax = game_map.bounds
        xs = np.clip(h["x"].to_numpy(float), xmin, xmax)
        ys = np.clip(h["y"].to_numpy(float), ymin, ymax)
        generic = [str(c) for c in np.atleast_1d(game_map.terrain_at(xs, ys))]
        z = np.atleast_1d(np.asarray(game_map.elevation(xs, ys), dtype=float))
        #: generic map class under each centre dot
        self.generic: dict[str, str] = dict(zip(labels, generic, strict=True))
        #: ground elevation at each centre dot, metres
        self.elevation_m: dict[str, float] = dict(zip(labels, z.tolist(), strict=True))
        #: elevation of level 0: the window's lowest hex centre
        self.base_m = float(z.min()) if len(z) else 0.0
        lv = np.minimum(
            np.floor((z - self.base_m) / self.level_height_m + 1e-9), MAX_LEVEL
        )
        self.level: dict[str, int] = dict(
            zip(labels, lv.astype(int).tolist(), strict=True)
        )
        waterway = dict(zip(labels, h["waterway"].astype(object).tolist(), strict=True))
        shares = {
            c: dict(zip(labels, h[f"share_{c}"].astype(float).tolist(), strict=True))
            for c in ("woods", "town", "water")
        }
        deep = self._river_water(waterway)
        self.terrain: dict[str, str] = {}
        for lab in labels:
            rule = self.chart.generic[self.generic[lab]]
            tid = rule.type
            if rule.river_type is not None and lab in deep:
                tid = rule.river_type
            elif (
                rule.sparse_type is not None
                and rule.sparse_below_share is not None
                and shares[rule.map_class][lab] < rule.sparse_below_share
            ):
                tid = rule.sparse_type
            self.terrain[lab] = tid
        classes = set(self.chart.roads.classes)
        self.road: dict[str, bool] = {
            lab: v in classes
            for lab, v in zip(labels, h["road"].astype(object).tolist(), strict=True)
        }
        self._links = self._road_links(game_map, classes)
        self._los: dict[tuple[str, str], Sight] = {}
        #: within() answers per (hex, radius): geometry only, shared by copies
        self._within: dict[tuple[str, int], tuple[str, ...]] = {}
        #: front_hexes() answers per (hex, facing): geometry only, shared by copies
        self._front: dict[tuple[str, int], tuple[str, ...]] = {}
        #: move_extra() answers per (from, to, mobility); new for each copy
        self._move_extra: dict[tuple[str, str, str], float | None] = {}
        #: sight fans (Hidden.sight_fan) per (hex, facing, radius, smoke); new
        #: for each copy
        self._fans: dict[tuple[Any, ...], frozenset[str]] = {}

    # -- construction helpers ---------------------------------------------- #
    def _river_water(self, waterway: Mapping[str, Any]) -> set[str]:
        """Water hexes joined through water hexes to a river or canal line."""
        water = {lab for lab, g in self.generic.items() if g == "water"}
        todo = deque(lab for lab in water if waterway[lab] in ("river", "canal"))
        deep = set(todo)
        while todo:
            for nb in self._nb[todo.popleft()]:
                if nb in water and nb not in deep:
                    deep.add(nb)
                    todo.append(nb)
        return deep

    def _road_links(
        self, game_map: Any, classes: set[str]
    ) -> frozenset[frozenset[str]]:
        """Neighbour pairs one road of the chart's classes joins across their hexside.

        Cached per map file, window, grid and road classes (reading the road layer
        takes about a second; the links are plain labels)."""
        g = self.grid
        key = (
            str(getattr(game_map, "folder", id(game_map))),
            tuple(game_map.bounds),
            (g.x0, g.y0, g.size_m, g.n_cols, g.n_rows),
            tuple(sorted(classes)),
        )
        got = _road_link_cache.get(key)
        if got is None:
            got = self._read_road_links(game_map, classes)
            if len(_road_link_cache) >= 32:
                _road_link_cache.pop(next(iter(_road_link_cache)))
            _road_link_cache[key] = got
        return got

    def _read_road_links(
        self, game_map: Any, classes: set[str]
    ) -> frozenset[frozenset[str]]:
        roads = game_map.layer("roads")
        geoms = roads.loc[roads["class"].isin(classes), "geometry"].to_numpy()
        links: set[frozenset[str]] = set()
        if len(geoms) == 0:
            return frozenset()
        for part in shapely.get_parts(shapely.get_parts(geoms)):
            if part.geom_type != "LineString" or part.is_empty:
                continue
            xy = shapely.get_coordinates(shapely.segmentize(part, self.hex_size_m / 8))
            q, r = self.grid.xy_to_axial(xy[:, 0], xy[:, 1])
            cells = list(zip(q.tolist(), r.tolist(), strict=True))
            for c0, c1 in itertools.pairwise(cells):
                if c0 == c1:
                    continue
                path = axial_line(*c0, *c1)  # a corner cut between samples
                for p0, p1 in itertools.pairwise(path):
                    a, b = self._label_at.get(p0), self._label_at.get(p1)
                    if a is not None and b is not None:
                        links.add(frozenset((a, b)))
        return frozenset(links)

    def with_changes(self, hexes: Mapping[str, Mapping[str, Any]]) -> CohBoard:
        """A copy with some hexes changed (scenario overrides, test set-ups).

        Args:
            hexes: label -> ``{"terrain": <type id>, "level": <0-MAX_LEVEL>}`` (only
                the keys given change; roads stay as the map has them).

        Examples:
            >>> import wargame
            >>> b = board_for(wargame.load_map(hex_size_m=50, window={"place":
            ...     "Sessenhausen", "width_m": 1250, "height_m": 1250}))
            >>> b2 = b.with_changes({"P13": {"terrain": "heavy_woods"}})
            >>> b2.dm("P13"), b.dm("P13")
            (2, 0)
        """
        terrain, level = dict(self.terrain), dict(self.level)
        if not isinstance(hexes, Mapping):
            raise ValueError(f"hexes: {hexes!r} is not a mapping of hex -> changes")
        for lab, ch in hexes.items():
            self._check(lab, "hexes")
            if not isinstance(ch, Mapping):
                raise ValueError(f"hexes[{lab!r}]: {ch!r} is not a mapping of changes")
            for k, v in ch.items():
                if k == "terrain":
                    if v not in self.chart.types:
                        raise ValueError(
                            f"hexes[{lab!r}].terrain: {v!r} is not a terrain "
                            f"type; give one of {', '.join(self.chart.types)}"
                        )
                    terrain[lab] = v
                elif k == "level":
                    if (
                        isinstance(v, bool)
                        or not isinstance(v, int)
                        or not (0 <= v <= MAX_LEVEL)
                    ):
                        raise ValueError(
                            f"hexes[{lab!r}].level: {v!r} is not a whole "
                            f"number from 0 to {MAX_LEVEL}"
                        )
                    level[lab] = v
                else:
                    raise ValueError(
                        f"hexes[{lab!r}].{k}: unknown key; give terrain or level"
                    )
        new = copy.copy(self)
        new.terrain, new.level, new._los = terrain, level, {}
        new._move_extra = {}  # terrain and levels changed: costs are new
        new._fans = {}  # and so is the sight
        return new

    # -- hexes -------------------------------------------------------------- #
    def _check(self, label: Any, what: str = "hex") -> tuple[int, int]:
        got = self._axial.get(label) if isinstance(label, str) else None
        if got is None:
            g = self.grid
            raise ValueError(
                f"{what}: {label!r} is not a playable hex of this board (columns "
                f"A–{column_letters(g.n_cols - 1)}, rows 1–{g.n_rows}, "
                f"{len(self.labels)} playable hexes)"
            )
        return got

    def terrain_type(self, label: str) -> TerrainType:
        """The CoH terrain record of a hex (all the chart's fields and sources)."""
        try:
            return self.chart.types[self.terrain[label]]
        except (KeyError, TypeError):  # not a playable hex: _check says why
            self._check(label)
            raise

    def neighbors(self, label: str) -> list[str]:
        """The playable neighbours of a hex."""
        try:
            return list(self._nb[label])
        except (KeyError, TypeError):  # not a playable hex: _check says why
            self._check(label)
            raise

    def distance(self, a: str, b: str) -> int:
        """Hex distance."""
        try:
            qa, ra = self._axial[a]
            qb, rb = self._axial[b]
        except (KeyError, TypeError):  # not a playable hex: _check says why
            (qa, ra), (qb, rb) = self._check(a, "a"), self._check(b, "b")
        return (abs(qa - qb) + abs(ra - rb) + abs(qa + ra - qb - rb)) // 2

    def within(self, label: str, radius: int) -> list[str]:
        """Playable hexes within ``radius`` of a hex, itself included."""
        key: tuple[str, int] | None = (label, radius)
        got: tuple[str, ...] | None = None
        try:
            got = self._within[key]  # type: ignore[index]
        except KeyError:
            pass
        except TypeError:  # an unhashable label: _check below says why
            key = None
        if got is None:
            q, r = self._check(label)
            got = tuple(
                lab
                for dq in range(-radius, radius + 1)
                for dr in range(
                    max(-radius, -dq - radius), min(radius, radius - dq) + 1
                )
                if (lab := self._label_at.get((q + dq, r + dr))) is not None
            )
            if key is not None and isinstance(radius, int):
                self._within[key] = got
        return list(got)

    def direction(self, a: str, b: str) -> int | None:
        """Hexside (0-5, index into ``AXIAL_DIRECTIONS``) from ``a`` to neighbour ``b``.

        None if ``b`` is not a neighbour of ``a``.
        """
        (qa, ra), (qb, rb) = self._check(a, "a"), self._check(b, "b")
        d = (qb - qa, rb - ra)
        return AXIAL_DIRECTIONS.index(d) if d in AXIAL_DIRECTIONS else None

    # -- facing and arc of fire (§5.1, §6.1) -------------------------------- #
    @staticmethod
    def _facing(facing: Any) -> int:
        if (
            isinstance(facing, bool)
            or not isinstance(facing, int)
            or not 0 <= facing < 6
        ):
            raise ValueError(f"facing: {facing!r} is not a hexside; give 0 to 5")
        return facing

    def front_hexes(self, label: str, facing: int) -> list[str]:
        """The 3 front neighbours of a unit facing hexside ``facing`` (§5.1), sorted.

        The other 3 neighbours are its flank hexes (a backwards move, §5.2).
        """
        try:
            got = self._front.get((label, facing))
        except TypeError:  # unhashable: the checks below say why
            got = None
        if got is not None and type(facing) is int:
            return list(got)
        q, r = self._check(label)
        f = self._facing(facing)
        out = []
        for k in (f - 1, f, f + 1):
            dq, dr = AXIAL_DIRECTIONS[k % 6]
            if (lab := self._label_at.get((q + dq, r + dr))) is not None:
                out.append(lab)
        out.sort()
        self._front[(label, f)] = tuple(out)
        return out

    def in_arc(self, origin: str, facing: int | None, target: str) -> bool:
        """Whether ``target`` lies in the arc of fire of a unit at ``origin`` (§6.1).

        The arc is the front 3 hexes extended outward: every hex ``a·u + b·w`` with
        ``a, b >= 0``, ``u`` and ``w`` the front-left and front-right directions (the
        120° wedge through their centres, boundary included).  A unit's own hex is
        in its arc; a unit without a facing (``None``, e.g. hidden) has no arc.
        """
        try:
            qo, ro = self._axial[origin]
            qt, rt = self._axial[target]
        except (KeyError, TypeError):  # not a playable hex: _check says why
            (qo, ro), (qt, rt) = (
                self._check(origin, "origin"),
                self._check(target, "target"),
            )
        if (qo, ro) == (qt, rt):
            return True
        if facing is None:
            return False
        f = facing if type(facing) is int and 0 <= facing < 6 else self._facing(facing)
        (uq, ur), (wq, wr) = (
            AXIAL_DIRECTIONS[(f - 1) % 6],
            AXIAL_DIRECTIONS[(f + 1) % 6],
        )
        vq, vr = qt - qo, rt - ro
        det = uq * wr - ur * wq  # ±1: u, w span the hex lattice
        a = (vq * wr - vr * wq) * det
        b = (uq * vr - ur * vq) * det
        return a >= 0 and b >= 0

    # -- movement (§5.0, §11.0-11.1, §14) ------------------------------------ #
    def _neighbours(self, a: str, b: str) -> None:
        self._check(a, "a")
        self._check(b, "b")
        if b not in self._nb[a]:
            raise ValueError(f"{a} and {b} are not neighbouring hexes")

    def steep(self, a: str, b: str) -> bool:
        """Whether the hexside between neighbours changes 2 levels or more (§11.1)."""
        self._neighbours(a, b)
        return abs(self.level[b] - self.level[a]) >= 2

    def road_move(self, a: str, b: str) -> bool:
        """Whether the step from ``a`` to neighbour ``b`` follows a road (§5.0.1).

        Both hexes hold a road of the chart's classes and one such road crosses
        their common hexside (§14.2: units must follow the road hex to hex).
        """
        self._neighbours(a, b)
        return frozenset((a, b)) in self._links

    def move_extra(self, a: str, b: str, mobility: str) -> float | None:
        """Extra AP (over the unit's move cost) to enter neighbour ``b`` from ``a``.

        Terrain extra of ``b`` for ``"foot"``, ``"tracked"`` or ``"wheeled"``,
        negated (with the hex's restrictions) by a road move (§5.0.1, §14.2); plus
        +1 AP per level climbed, which roads do not negate (§11.0); up a steep
        hexside foot pays +2 AP in all and vehicles may not go (§11.1).  None: may
        not enter.  Not included: backwards moves (+1 AP, §5.2), cautious moves
        (§5.0.3), hidden moves (§10.1), and the unburdened-foot limit of water
        (:meth:`terrain_type` ``.unburdened_foot_only``).
        """
        key = (a, b, mobility)
        try:
            return self._move_extra[key]  # only checked answers are stored
        except (KeyError, TypeError):
            pass
        self._neighbours(a, b)
        if mobility not in MOBILITIES:
            raise ValueError(
                f"mobility {mobility!r} is unknown; give one of {', '.join(MOBILITIES)}"
            )
        got = self._move_extra[key] = self._move_extra_of(a, b, mobility)
        return got

    def _move_extra_of(self, a: str, b: str, mobility: str) -> float | None:
        extra = 0.0 if self.road_move(a, b) else self.terrain_type(b).extra_ap(mobility)
        if extra is None:
            return None
        up = self.level[b] - self.level[a]
        if up >= 2:  # §11.1 steep: +2 AP for foot, not accessible to vehicles
            return None if mobility != "foot" else extra + 2.0
        return extra + max(up, 0)

    # -- terrain effects ---------------------------------------------------- #
    def dm(self, label: str, *, he: bool = False, air_burst_soft: bool = False) -> int:
        """Terrain DM of a unit in the hex (§7.3).

        With ``he`` (mortar/artillery HE fire) and ``air_burst_soft`` (the unit's
        flank DR is red), air-burst terrain (heavy woods) gives no DM (§12.2).
        """
        t = self.terrain_type(label)
        return 0 if he and air_burst_soft and t.air_burst else t.dm

    def cover(self, label: str) -> bool:
        """Whether the hex is cover terrain (rally +1, hidden units, cautious moves)."""
        return self.terrain_type(label).cover

    def immobilisation_check(self, label: str) -> bool:
        """Whether a vehicle entering the hex checks for immobilisation (§14.5).

        ASSUMPTION: a road move negates this "hex restriction" too (§14.2); the
        caller skips the check when :meth:`road_move` is true.
        """
        return self.terrain_type(label).immobilisation_check

    def elevation_bonus(self, firer: str, target: str) -> tuple[int, int]:
        """``(+FP, +DM)`` for height (§11.2).

        +1 FP for a firer higher than its target, +1 DM for a target higher than
        its firer (not for off-board artillery, §12.3: the caller's business).
        """
        self._check(firer, "firer")
        self._check(target, "target")
        lf, lt = self.level[firer], self.level[target]
        return (1 if lf > lt else 0, 1 if lt > lf else 0)


def board_for(game_map: Any, *, level_height_m: float = 12.5) -> CohBoard:
    """The (cached) CoH board of a map: one per map object and level height.

    Examples:
        >>> try:
        ...     board_for(object(), level_height_m=20)
        ... except ValueError as exc:
        ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
        level_height_m: 20 is out of range; give metres per hill level, 10 to 15
        (CoH 2e §4.0: each level is a 10-15 m rise)
    """
    lh = _level_height(level_height_m)
    per_map = _boards.setdefault(game_map, {})
    board = per_map.get(lh)
    if board is None:
        board = per_map[lh] = CohBoard(game_map, level_height_m=lh)
    return board
