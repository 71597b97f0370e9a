"""The map as World at War reads it: hex terrain, movement costs and line of sight.

:class:`WawBoard` copies what the rules ask many times per game (terrain class,
road, waterway, bridge/ferry flags, elevation, neighbours) out of
:attr:`wargame.geo.maps.Map.hexes` into plain dicts, once per map, and caches
movement costs.  Line of sight goes through :func:`_visible`, the only place the
rules ask the geo layer for LOS.

Examples:
    >>> import wargame
    >>> board = board_for(wargame.load_map(window="Remagen"))
    >>> board.terrain["Q11"], board.distance("Q11", "S11")
    ('town', 2)
    >>> board.move_cost("Q11", "R11", "tracked")   # along a minor road
    1.0
    >>> board.move_cost("R10", "R9", "foot")       # the Rhine: no bridge, no ferry
    inf
    >>> board.move_cost("S11", "T10", "foot")      # boarding the Remagen ferry
    2.0
"""

from __future__ import annotations

import copy
import heapq
import math
import weakref
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from .catalog import ROAD_CLASSES, Mobility, TerrainChart, terrain_chart
from .reach import Ranks, cheapest

__all__ = [
    "DEFAULT_LOS_HEIGHTS",
    "FERRY_BOARDING_COST",
    "LOS_TABLE_RANGE",
    "WawBoard",
    "board_for",
]

#: Range asked of the geo layer's hex LOS table (covers every direct-fire weapon
#: of the unit catalog at extended range; longer sight lines use the interim rule).
LOS_TABLE_RANGE = 20
#: Eye and target heights (m) of the sight lines unless a scenario sets
#: ``rules.los_observer_height_m`` / ``rules.los_target_height_m``: the geo layer's
#: defaults (``wargame.geo.los``: a standing soldier's eyes, a vehicle).
DEFAULT_LOS_HEIGHTS = (2.5, 2.0)

# ASSUMPTION (no ferry rule in the seeds; the terrain chart leaves it to scenario
# rules): a ground unit may enter a water hex crossed by a ferry line; entering
# one from land costs 2 MP and ends the unit's move (boarding); moving on from a
# ferry hex costs what the next hex costs.
FERRY_BOARDING_COST = 2.0

_INF = math.inf

_boards: weakref.WeakKeyDictionary[Any, WawBoard] = weakref.WeakKeyDictionary()
_los_state: weakref.WeakKeyDictionary[Any, dict[Any, Any]] = weakref.WeakKeyDictionary()


def board_for(game_map: Any, chart: TerrainChart | None = None) -> WawBoard:
    """The (cached) board of a map: one per map object per process."""
    board = _boards.get(game_map)
    if board is None or (chart is not None and board.chart is not chart):
        board = WawBoard(game_map, chart)
        if chart is None:
            _boards[game_map] = board
    return board


class WawBoard:
    """Per-map data World at War reads many times (see the module docstring).

    Args:
        game_map: a :class:`wargame.geo.maps.Map` (a window is best).
        chart: the terrain effects chart (default: the shipped one).
    """

    def __init__(self, game_map: Any, chart: TerrainChart | None = None) -> None:
        self.map = game_map
        self.chart = chart if chart is not None else terrain_chart()
        grid = game_map.grid
        h = game_map.hexes
        if "on_map" in h.columns:
            # hexes of the label grid wholly outside the map are not playable
            h = h[h["on_map"].astype(bool)]
        labels = [str(x) for x in h.index]
        self.labels: tuple[str, ...] = tuple(labels)
        self.axial: dict[str, tuple[int, int]] = {
            lab: (int(q), int(r))
            for lab, q, r in zip(labels, h["q"].tolist(), h["r"].tolist(), strict=True)
        }
        self._label_of: dict[tuple[int, int], str] = {
            v: k for k, v in self.axial.items()
        }
        #: label -> its index in :attr:`labels` (the columns of distance rows)
        self.index: dict[str, int] = {lab: i for i, lab in enumerate(labels)}
        self._rows = _DistanceRows(self)
        self._seen: dict[tuple[str, str], bool] = {}  # visible(): its answers

        def column(name: str) -> list[Any]:
            return [None if _isna(v) else v for v in h[name].astype(object).tolist()]

        self.terrain: dict[str, str] = dict(zip(labels, column("terrain"), strict=True))
        self.road: dict[str, str | None] = dict(
            zip(labels, column("road"), strict=True)
        )
        self.waterway: dict[str, str | None] = dict(
            zip(labels, column("waterway"), strict=True)
        )
        self.bridge = {lab for lab, v in zip(labels, h["bridge"], strict=True) if v}
        self.ferry = {lab for lab, v in zip(labels, h["ferry"], strict=True) if v}
        self.elevation: dict[str, float] = {
            lab: float(v)
            for lab, v in zip(labels, h["elevation_m"].tolist(), strict=True)
        }
        self.neighbors: dict[str, tuple[str, ...]] = {
            lab: tuple(nb for nb in grid.neighbors(lab) if nb in self.axial)
            for lab in labels
        }
        self._road_rank = {c: i for i, c in enumerate(ROAD_CLASSES)}
        self._cost: dict[tuple[str, str, str], float] = {}
        self._reach: dict[
            tuple[Any, ...], Mapping[str, tuple[float, tuple[str, ...]]]
        ] = {}

    def with_changes(
        self,
        hexes: Mapping[str, Mapping[str, Any]] | None = None,
        chart: TerrainChart | None = None,
    ) -> WawBoard:
        """A copy with some hexes changed (scenario overrides) and/or another chart.

        Args:
            hexes: label -> ``{"terrain": ..., "road": ..., "bridge": bool,
                "ferry": bool}`` (only the keys given change).
            chart: a terrain effects chart to use instead.

        Line of sight is not affected: it is physical, from the map's DEM and
        obstacles (see :func:`_visible`).

        Examples:
            >>> import wargame
            >>> b = board_for(wargame.load_map(window="Remagen"))
            >>> b2 = b.with_changes({"R9": {"bridge": True}})
            >>> b.move_cost("R10", "R9", "foot"), b2.move_cost("R10", "R9", "foot")
            (inf, 1.0)
        """
        out = copy.copy(self)
        out.terrain = dict(self.terrain)
        out.road = dict(self.road)
        out.bridge = set(self.bridge)
        out.ferry = set(self.ferry)
        out._cost = {}
        out._reach = {}
        out.__dict__.pop("_adj", None)
        out.__dict__.pop("_radj", None)
        out.__dict__.pop("_ferry_water_set", None)
        if chart is not None:
            out.chart = chart
        for lab, ch in (hexes or {}).items():
            if "terrain" in ch:
                out.terrain[lab] = str(ch["terrain"])
            if "road" in ch:
                out.road[lab] = (
                    None if ch["road"] in (None, "none") else str(ch["road"])
                )
            for flag in ("bridge", "ferry"):
                if flag in ch:
                    target = getattr(out, flag)
                    if ch[flag]:
                        target.add(lab)
                    else:
                        target.discard(lab)
        return out

    # -- geometry ------------------------------------------------------------ #
    def __contains__(self, label: object) -> bool:
        return label in self.axial

    def distance(self, a: str, b: str) -> int:
        """Hex distance (1 for neighbours).

        Looked up in :meth:`distance_row` (one row per hex, built once).
        """
        return self._rows[a][self.index[b]]

    def distance_row(self, a: str) -> list[int]:
        """The hex distances from ``a`` to every hex, by :attr:`index` (cached).

        For loops that ask the distance from one hex to many:
        ``row[board.index[b]] == board.distance(a, b)``.

        Examples:
            >>> import wargame
            >>> b = board_for(wargame.load_map(window="Remagen"))
            >>> b.distance_row("Q11")[b.index["S11"]]
            2
        """
        return self._rows[a]

    def beyond(self, origin: str, through: str) -> str | None:
        """The hex one step past ``through`` on the line from ``origin`` (or None).

        Used for retreats "straight back along the assault path".
        """
        q1, r1 = self.axial[origin]
        q2, r2 = self.axial[through]
        return self._label_of.get((2 * q2 - q1, 2 * r2 - r1))

    def line(self, a: str, b: str) -> list[str]:
        """Hexes on the straight line from ``a`` to ``b``, both included.

        The same hexes as :meth:`wargame.geo.hexgrid.HexGrid.line` (Red Blob
        Games' interpolation with the same tie-break nudge) in plain Python,
        which is many times faster for single lines; off-map hexes are skipped.
        """
        q1, r1 = self.axial[a]
        q2, r2 = self.axial[b]
        n = (abs(q1 - q2) + abs(r1 - r2) + abs(q1 + r1 - q2 - r2)) // 2
        if n == 0:
            return [a]
        out = []
        for i in range(n + 1):
            t = i / n
            fq = (q1 + 1e-6) + (q2 - q1) * t
            fr = (r1 + 2e-6) + (r2 - r1) * t
            fs = -fq - fr
            q, r, s = round(fq), round(fr), round(fs)
            dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
            if dq > dr and dq > ds:
                q = -r - s
            elif dr > ds:
                r = -q - s
            lab = self._label_of.get((q, r))
            if lab is not None:
                out.append(lab)
        return out

    # -- terrain ------------------------------------------------------------- #
    def defence_dice(self, label: str) -> int:
        """Terrain (save) dice of a hex (WaW 6.1 via the terrain chart)."""
        return self.chart.defence_dice(self.terrain[label])

    def is_water(self, label: str) -> bool:
        """Open water, or a hex with a river/canal in it (hex-level crossing)."""
        return self.terrain[label] == "water" or self.waterway[label] in (
            "river",
            "canal",
        )

    def ferry_water(self, label: str) -> bool:
        """A water hex on a ferry line (boarding ends the move)."""
        return label in self.ferry and self.is_water(label)

    def move_cost(self, a: str, b: str, mobility: Mobility | str) -> float:
        """MP for a unit of ``mobility`` to move from hex ``a`` into adjacent ``b``.

        WaW 5.0 movement with the project's terrain chart (a GAP, see
        ``data/terrain.toml``) applied at hex level:

        * ASSUMPTION: hexes of the map record that a road crosses them, not the
          road's course, so moving between two road hexes is road movement, at
          the cost of the slower of the two road classes (roads replace terrain).
        * WaW rivers: a hex of open water, or one a river/canal runs through, can
          only be entered over a bridge in it (road cost, or 1 MP without a road)
          or by ferry (:data:`FERRY_BOARDING_COST`).  ASSUMPTION: the map has
          crossings per hex, not per hexside.
        * Streams add the chart's stream crossing unless the move is along a road
          (ASSUMPTION: roads cross streams on culverts or bridges).
        """
        mob = mobility.value if isinstance(mobility, Mobility) else str(mobility)
        key = (a, b, mob)
        cost = self._cost.get(key)
        if cost is None:
            cost = self._move_cost(a, b, mob)
            self._cost[key] = cost
        return cost

    def _move_cost(self, a: str, b: str, mob: str) -> float:
        chart = self.chart
        if mob == Mobility.AIR.value:
            return chart.movement_cost("clear", mob)
        ra, rb = self.road[a], self.road[b]
        if self.is_water(b):
            if b in self.bridge:
                # WaW: water crossed only at bridges ...
                if ra is not None and rb is not None:
                    return self._road_cost(ra, rb, b, mob)
                return 1.0
            if b in self.ferry:
                # ... or ferries.  ASSUMPTION: see FERRY_BOARDING_COST.
                return 1.0 if self.ferry_water(a) else FERRY_BOARDING_COST
            # WaW (terrain chart): rivers and open water are impassable otherwise.
            return _INF
        if ra is not None and rb is not None:
            return self._road_cost(ra, rb, b, mob)
        cost = chart.movement_cost(self.terrain[b], mob)
        if self.waterway[b] == "stream" and b not in self.bridge:
            cost += chart.movement_cost("clear", mob, crossing="stream") - (
                chart.movement_cost("clear", mob)
            )
        return cost

    def _road_cost(self, ra: str, rb: str, b: str, mob: str) -> float:
        worse = ra if self._road_rank[ra] >= self._road_rank[rb] else rb
        return self.chart.movement_cost(self.terrain[b], mob, road=worse)

    def reachable(
        self,
        start: str,
        mobility: Mobility | str,
        mp: float,
        blocked: Iterable[str] = (),
        enter: Mapping[str, float] | None = None,
    ) -> Mapping[str, tuple[float, tuple[str, ...]]]:
        """Cheapest paths from ``start`` within ``mp`` (Dijkstra; cached).

        Args:
            start: the starting hex.
            mobility: movement class.
            mp: movement points available.
            blocked: hexes that may not be entered (enemy-occupied).
            enter: hexes whose entry cost replaces the chart's this game
                (deployed MTU-55 bridges: WaW bridge units).

        Returns:
            ``hex -> (cost, path)`` with the path from ``start`` (included) to the
            hex; equal costs are settled in label order, so results are
            reproducible.
        """
        mob = mobility.value if isinstance(mobility, Mobility) else str(mobility)
        blocked_set = frozenset(blocked)
        enter_items = frozenset((enter or {}).items())
        key = (start, mob, mp, blocked_set, enter_items)
        hit = self._reach.get(key)
        if hit is not None:
            return hit
        if start in self.index:
            # the same search on hexes numbered in label order (faster)
            ranked = self._ranked(mob, enter)
            out: Mapping[str, tuple[float, tuple[str, ...]]] = cheapest(
                ranked[0], ranked[1], start, mp, blocked_set, ranked[2]
            )
            if len(self._reach) > 4096:
                self._reach.clear()
            self._reach[key] = out
            return out
        adj = self.steps(mob, enter)
        ferry = self._ferry_water
        dist: dict[str, float] = {start: 0.0}
        prev: dict[str, str] = {}
        heap: list[tuple[float, str]] = [(0.0, start)]
        # settled hexes, and the blocked ones (never entered: skipped alike)
        closed: set[str] = set(blocked_set)
        closed.discard(start)
        order: list[str] = []
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            cost, here = pop(heap)
            if here in closed:
                continue
            closed.add(here)
            order.append(here)
            if here != start and here in ferry and prev[here] not in ferry:
                continue  # boarding a ferry ends the move
            for nb, step in adj[here]:
                if nb in closed:
                    continue
                c = cost + step
                if c > mp:
                    continue
                old = dist.get(nb)
                if old is None or c < old or (c == old and here < prev[nb]):
                    dist[nb] = c
                    prev[nb] = here
                    push(heap, (c, nb))
        out = _Paths(start, order, dist, prev)
        if len(self._reach) > 4096:
            self._reach.clear()
        self._reach[key] = out
        return out

    def ranks(self) -> Ranks:
        """The hexes numbered in label order (built once per board).

        Examples:
            >>> import wargame
            >>> b = board_for(wargame.load_map(window="Remagen"))
            >>> r = b.ranks()
            >>> list(r.names) == sorted(b.labels), r.names[r.id_of["Q11"]]
            (True, 'Q11')
        """
        ranks: Ranks | None = self.__dict__.get("_ranks")
        if ranks is None:
            ranks = self.__dict__["_ranks"] = Ranks(self.labels)
        return ranks

    def _ranked(
        self, mob: str, enter: Mapping[str, float] | None
    ) -> tuple[Ranks, list[tuple[tuple[int, float], ...]], frozenset[int]]:
        """The hexes numbered in label order, :meth:`steps` by number and the
        ferry water hexes by number (cached per class and ``enter``)."""
        ranks = self.ranks()
        cache: dict[Any, Any] = self.__dict__.setdefault("_radj", {})
        key = (mob, frozenset(enter.items()) if enter else None)
        hit = cache.get(key)
        if hit is None:
            if len(cache) > 256:
                cache.clear()
            ferry = frozenset(ranks.id_of[h] for h in self._ferry_water)
            hit = cache[key] = (ranks, ranks.adjacency(self.steps(mob, enter)), ferry)
        return hit

    def steps(
        self, mobility: Mobility | str, enter: Mapping[str, float] | None = None
    ) -> Mapping[str, tuple[tuple[str, float], ...]]:
        """Enterable neighbours of every hex with their MP, in neighbour order.

        ``enter`` gives entry costs that replace the chart's (as in
        :meth:`reachable`); without it the answer is cached per class.

        Examples:
            >>> import wargame
            >>> b = board_for(wargame.load_map(window="Remagen"))
            >>> dict(b.steps("foot")["S11"])["T10"]    # boarding the ferry
            2.0
        """
        mob = mobility.value if isinstance(mobility, Mobility) else str(mobility)
        adj = self._adjacency(mob)
        if enter:
            adj = dict(adj)
            for h in {nb for x in enter for nb in self.neighbors.get(x, ())}:
                adj[h] = tuple(
                    (nb, enter.get(nb, self.move_cost(h, nb, mob)))
                    for nb in self.neighbors[h]
                    if enter.get(nb, self.move_cost(h, nb, mob)) != _INF
                )
        return adj

    def _adjacency(self, mob: str) -> dict[str, tuple[tuple[str, float], ...]]:
        """Enterable neighbours of every hex with their costs (cached per class)."""
        cache: dict[str, dict[str, tuple[tuple[str, float], ...]]] = (
            self.__dict__.setdefault("_adj", {})
        )
        adj = cache.get(mob)
        if adj is None:
            adj = {}
            for h, nbs in self.neighbors.items():
                steps = ((nb, self.move_cost(h, nb, mob)) for nb in nbs)
                adj[h] = tuple((nb, c) for nb, c in steps if c != _INF)
            cache[mob] = adj
        return adj

    @property
    def _ferry_water(self) -> frozenset[str]:
        hit = self.__dict__.get("_ferry_water_set")
        if hit is None:
            hit = frozenset(h for h in self.ferry if self.is_water(h))
            self.__dict__["_ferry_water_set"] = hit
        return hit

    # -- line of sight ------------------------------------------------------- #
    #: Eye and target heights (m) of the sight lines, or None for the geo layer's
    #: defaults (2.5 m and 2.0 m); a scenario sets them with ``rules.los_*``.
    los_heights: tuple[float, float] | None = None

    def visible(self, a: str, b: str) -> bool:
        """LOS between two hexes (see :func:`_visible`; remembered per board)."""
        key = (a, b)
        hit = self._seen.get(key)
        if hit is None:
            hit = self._seen[key] = _visible(self.map, a, b, heights=self.los_heights)
        return hit

    def visible_from(self, a: str) -> frozenset[str] | None:
        """The hexes within :data:`LOS_TABLE_RANGE` that ``a`` sees (the same
        answers as :meth:`visible`), or None while the map has no LOS table.

        Examples:
            >>> import wargame
            >>> b = board_for(wargame.load_map(window="Remagen"))
            >>> seen = b.visible_from("N17")
            >>> seen is None or all(b.visible("N17", h) for h in sorted(seen)[:20])
            True
        """
        per_map = _los_state.setdefault(self.map, {})
        cache = per_map.setdefault(self.los_heights, {})
        table = _los_table(self.map, LOS_TABLE_RANGE, cache, self.los_heights)
        if table is None:
            return None
        seen = cache.get(("from", a))
        if seen is None:
            seen = cache[("from", a)] = frozenset(table.visible_from(a))
        return seen  # type: ignore[no-any-return]

    def with_los(self, observer_height_m: float, target_height_m: float) -> WawBoard:
        """A copy whose sight lines use these eye and target heights.

        Examples:
            >>> import wargame
            >>> b = board_for(wargame.load_map(window="Remagen"))
            >>> b.with_los(10.0, 2.0).los_heights, b.los_heights
            ((10.0, 2.0), None)
        """
        out = copy.copy(self)
        out.los_heights = (float(observer_height_m), float(target_height_m))
        out._seen = {}
        return out


class _DistanceRows(dict[str, list[int]]):
    """``label -> distances to every hex by index``, each row computed on first
    use from the axial coordinates (numpy, then plain ints)."""

    def __init__(self, board: WawBoard) -> None:
        super().__init__()
        qr = np.array([board.axial[lab] for lab in board.labels], dtype=np.int64)
        self._q = qr[:, 0] if len(qr) else np.zeros(0, dtype=np.int64)
        self._r = qr[:, 1] if len(qr) else np.zeros(0, dtype=np.int64)
        self._axial = board.axial

    def __missing__(self, a: str) -> list[int]:
        q, r = self._axial[a]
        dq, dr = self._q - q, self._r - r
        row: list[int] = ((np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2).tolist()
        self[a] = row
        return row


class _Paths(Mapping[str, tuple[float, tuple[str, ...]]]):
    """``hex -> (cost, path)`` of :meth:`WawBoard.reachable`; paths built on demand."""

    __slots__ = ("_dist", "_order", "_paths", "_prev", "_start")

    def __init__(
        self,
        start: str,
        order: list[str],
        dist: dict[str, float],
        prev: dict[str, str],
    ) -> None:
        self._start = start
        self._order = order
        self._dist = dist
        self._prev = prev
        self._paths: dict[str, tuple[str, ...]] = {start: (start,)}

    def __getitem__(self, h: str) -> tuple[float, tuple[str, ...]]:
        if h not in self._dist or (h != self._start and h not in self._prev):
            raise KeyError(h)
        return self._dist[h], self._path(h)

    def _path(self, h: str) -> tuple[str, ...]:
        hit = self._paths.get(h)
        if hit is None:
            hit = (*self._path(self._prev[h]), h)
            self._paths[h] = hit
        return hit

    def __contains__(self, h: object) -> bool:
        return h in self._dist and (h == self._start or h in self._prev)

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)


def _isna(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _visible(
    game_map: Any,
    a: str,
    b: str,
    *,
    range_hexes: int = LOS_TABLE_RANGE,
    heights: tuple[float, float] | None = None,
) -> bool:
    """Line of sight between two hex centres: the rules' single door to LOS.

    WaW 7.0 (LOS) is not in the seeds (RULES_NOTES 1.3).  When the geo layer
    offers ``Map.hex_los_table`` (the physical LOS over the DEM with woods and
    buildings as obstacles), its ``visible(a, b)`` answers.  Until then, and for
    sight lines longer than ``range_hexes``, an INTERIM rule answers:

    ASSUMPTION (interim, until the LOS issue lands): a sight line is blocked when a
    hex strictly between the two (on ``grid.line(a, b)``) has terrain that blocks
    LOS in the terrain chart (woods, town) or a mean elevation higher than both
    end hexes.  Adjacent hexes always see each other.

    ``heights`` are the eye and target heights of the table's sight lines (None:
    the geo layer's defaults); the interim rule does not use them.

    Results are cached per map and heights.
    """
    if a == b:
        return True
    per_map = _los_state.get(game_map)
    if per_map is None:
        per_map = {}
        _los_state[game_map] = per_map
    cache = per_map.setdefault(heights, {})
    key = (a, b)
    hit = cache.get(key)
    if hit is not None:
        return bool(hit)
    table = _los_table(game_map, range_hexes, cache, heights)
    if table is not None and board_for(game_map).distance(a, b) <= range_hexes:
        # one vectorised lookup per observer hex, then set membership
        seen_from = cache.get(("from", a))
        if seen_from is None:
            seen_from = frozenset(table.visible_from(a))
            cache[("from", a)] = seen_from
        seen = b in seen_from
    else:
        seen = _interim_visible(game_map, a, b)
    cache[key] = seen
    return seen


def _los_table(
    game_map: Any,
    range_hexes: int,
    cache: dict[Any, Any],
    heights: tuple[float, float] | None = None,
) -> Any:
    key = ("table", range_hexes)
    if key not in cache:
        maker = getattr(game_map, "hex_los_table", None)
        if maker is None:
            cache[key] = None
        elif heights is None:
            cache[key] = maker(range_hexes=range_hexes)
        else:
            cache[key] = maker(
                range_hexes=range_hexes,
                observer_height_m=heights[0],
                target_height_m=heights[1],
            )
    return cache[key]


def _interim_visible(game_map: Any, a: str, b: str) -> bool:
    # ASSUMPTION (interim LOS rule, see _visible): intervening woods/town block;
    # so does an intervening hex higher than both ends.
    board = board_for(game_map)
    line = board.line(a, b)
    top = max(board.elevation[a], board.elevation[b])
    chart = board.chart
    for h in line[1:-1]:
        terrain = board.terrain.get(h)
        if terrain is None:
            continue
        if chart.terrain[terrain].blocks_los or board.elevation[h] > top:
            return False
    return True
