"""The map as Conflict of Heroes 2nd edition reads it: terrain by the centre
dot, hill levels from the DEM, move costs, facing and arcs, and the rulebook's
hex line of sight (CoH 2e §4.0, §5.0-5.3, §6.0-6.1, §11.0-11.4).

* **Terrain**: the land cover under a hex's centre dot decides the whole hex
  (§4.0); generic map classes map to 2e terrain in ``data/terrain.toml``.
* **Levels**: level = floor((centre elevation - the window's lowest centre) /
  level height), the level height a rule option within the rulebook's 10-15 m
  (§11.0; research/coh.md §1.1).  ASSUMPTION: levels are capped at 9; the AtB
  boards have L0-L2 only, the Middle Rhine needs more.
* **Facing**: hexside ``f`` points at the neighbour in
  :data:`wargame.geo.hexgrid.AXIAL_DIRECTIONS` ``[f]`` (0 south-east, 1
  north-east, 2 north, 3 north-west, 4 south-west, 5 south); the three front
  hexes are ``f - 1, f, f + 1`` (§5.1).  The arc of fire is the 120 degree
  wedge through the centres of the front-left and front-right neighbours,
  boundary included (§6.1; research §1.5, §8 gap 8).
* **LOS** (§6.0, §11.3, §11.4): centre dot to centre dot; an intervening hex
  whose obstacle height (its level, plus 1 for woods and buildings, plus its
  smoke) reaches the height that matters blocks: above both ends on one level,
  the target's level looking up, the firer's level looking down (so same-level
  hill hexes in between block: the plateau effect).  The hex right behind a
  woods or building obstacle is a blind spot to a higher firer (and, the other
  way round, a unit right behind one does not see up past it).  A line running
  along a hexside takes the less restrictive side (the line is tried 0.5 m to
  either side and is clear if either is).

Examples:
    >>> import wargame
    >>> b = board_for(wargame.load_map(hex_size_m=50, window={"place": "Etscheid",
    ...     "width_m": 1200, "height_m": 1000}))
    >>> b.terrain["N11"], b.terrain["E9"], b.distance("N11", "N13")
    ('stone_building', 'heavy_woods', 2)
    >>> b.front_hexes("N11", 2)
    ['M11', 'N10', 'O11']
"""

from __future__ import annotations

import math
import tomllib
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from wargame.geo.hexgrid import AXIAL_DIRECTIONS

__all__ = ["CohBoard", "Sight", "board_for", "los_agreement", "terrain_chart"]

_DATA = Path(__file__).with_name("data") / "terrain.toml"
#: The highest hill level (ASSUMPTION, module docstring).
MAX_LEVEL = 9
#: Half-width of the two lines tried for the hexside rule (m).
_HEXSIDE_EPS = 0.5


@lru_cache(maxsize=1)
def terrain_chart() -> dict[str, Any]:
    """``data/terrain.toml`` as a dict (types, generic, roads)."""
    with _DATA.open("rb") as f:
        return tomllib.load(f)


@dataclass(frozen=True)
class Sight:
    """A rulebook LOS answer that explains itself."""

    clear: bool
    blocked_at: str | None
    why: str


class CohBoard:
    """Per-hex CoH terrain, levels and LOS of one map window (see module doc)."""

    def __init__(self, game_map: Any, level_height_m: float = 12.5) -> None:
        if (
            not isinstance(level_height_m, int | float)
            or not 10 <= level_height_m <= 15
        ):
            raise ValueError(
                f"level_height_m {level_height_m!r} is outside the rulebook's 10-15 m "
                "per hill level (CoH 2e §11.0)"
            )
        self.map = game_map
        self.grid = game_map.grid
        self.hex_size_m = float(game_map.hex_size_m)
        self.level_height_m = float(level_height_m)
        chart = terrain_chart()
        self.types: dict[str, dict[str, Any]] = chart["types"]
        h = game_map.hexes
        h = h[h["on_map"]]
        x0, y0, x1, y1 = game_map.bounds
        inside = (h["x"] >= x0) & (h["x"] <= x1) & (h["y"] >= y0) & (h["y"] <= y1)
        h = h[inside]
        labels = [str(x) for x in h.index]
        xs, ys = h["x"].to_numpy(float), h["y"].to_numpy(float)
        generic = game_map.terrain_at(xs, ys)
        elev = np.asarray(game_map.elevation(xs, ys), dtype=float)
        base = float(np.nanmin(elev)) if len(elev) else 0.0
        roads = set(chart["roads"]["classes"])
        self.labels: frozenset[str] = frozenset(labels)
        self.terrain: dict[str, str] = {}
        self.road: dict[str, bool] = {}
        self.level: dict[str, int] = {}
        self.elevation_m: dict[str, float] = {}
        for i, lab in enumerate(labels):
            t = str(chart["generic"][str(generic[i])]["type"])
            ww = h["waterway"].iloc[i]
            if t == "open" and isinstance(ww, str) and ww == "stream":
                t = "stream"
            elif t == "open" and isinstance(ww, str) and ww in ("river", "canal"):
                t = "deep_water"
            self.terrain[lab] = t
            rd = h["road"].iloc[i]
            self.road[lab] = isinstance(rd, str) and rd in roads
            lv = math.floor((elev[i] - base) / self.level_height_m)
            self.level[lab] = max(0, min(MAX_LEVEL, lv))
            self.elevation_m[lab] = float(elev[i])
        self._nb: dict[str, list[str]] = {}
        self._front: dict[tuple[str, int], list[str]] = {}
        self._axial: dict[str, tuple[int, int]] = {}
        self._label_at: dict[tuple[int, int], str] = {}
        self._xy: dict[str, tuple[float, float]] = {}
        for lab in labels:
            qa, ra = self.grid.axial_of_label(lab)
            self._axial[lab] = (int(qa), int(ra))
            self._label_at[(int(qa), int(ra))] = lab
            cx, cy = self.grid.center(lab)
            self._xy[lab] = (float(cx), float(cy))
        self._fvec = [self._facing_vec(f) for f in range(6)]
        self._los: dict[tuple[str, str], Sight] = {}
        self._paths: dict[tuple[str, str, float], list[str]] = {}
        self._within: dict[tuple[str, int], list[str]] = {}
        self._smoke_key: tuple[tuple[str, int], ...] = ()
        self._smoke_los: dict[tuple[str, str], Sight] = {}

    # -- geometry --------------------------------------------------------- #
    def neighbors(self, label: str) -> list[str]:
        """Playable neighbours of a hex."""
        got = self._nb.get(label)
        if got is None:
            got = [n for n in self.grid.neighbors(label) if n in self.labels]
            self._nb[label] = got
        return got

    def distance(self, a: str, b: str) -> int:
        """Hexes between two hexes (adjacent = 1)."""
        qa, ra = self._axial[a]
        qb, rb = self._axial[b]
        dq, dr = qa - qb, ra - rb
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def within(self, label: str, radius: int) -> list[str]:
        """Playable hexes within ``radius`` of ``label`` (itself included;
        cached, do not change the list)."""
        key = (label, radius)
        got = self._within.get(key)
        if got is None:
            got = self._within[key] = self._disc(label, radius)
        return got

    def _disc(self, label: str, radius: int) -> list[str]:
        q, r = self._axial[label]
        out = []
        for dq in range(-radius, radius + 1):
            for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
                lab = self._label_at.get((q + dq, r + dr))
                if lab is not None:
                    out.append(lab)
        return out

    def direction(self, a: str, b: str) -> int | None:
        """The hexside (0-5) from ``a`` to its neighbour ``b``, else ``None``."""
        qa, ra = self._axial[a]
        qb, rb = self._axial[b]
        d = (qb - qa, rb - ra)
        return AXIAL_DIRECTIONS.index(d) if d in AXIAL_DIRECTIONS else None

    def _vec(self, a: str, b: str) -> tuple[float, float]:
        xa, ya = self._xy[a]
        xb, yb = self._xy[b]
        return xb - xa, yb - ya

    def _facing_vec(self, facing: int) -> tuple[float, float]:
        dq, dr = AXIAL_DIRECTIONS[facing % 6]
        x, y = self.grid.axial_to_xy(np.array([dq]), np.array([dr]))
        x0, y0 = self.grid.axial_to_xy(np.array([0]), np.array([0]))
        return float(x[0] - x0[0]), float(y[0] - y0[0])

    def front_hexes(self, label: str, facing: int) -> list[str]:
        """The three front neighbours (§5.1), sorted."""
        key = (label, facing % 6)
        got = self._front.get(key)
        if got is not None:
            return got
        q, r = self._axial[label]
        out = []
        for f in (facing - 1, facing, facing + 1):
            dq, dr = AXIAL_DIRECTIONS[f % 6]
            lab = self._label_at.get((q + dq, r + dr))
            if lab is not None:
                out.append(lab)
        self._front[key] = sorted(out)
        return self._front[key]

    def in_arc(self, origin: str, facing: int | None, target: str) -> bool:
        """Whether ``target`` is in the arc of fire of a unit at ``origin``
        facing ``facing`` (§6.1; the unit's own hex is)."""
        if origin == target:
            return True
        if facing is None:
            return False
        vx, vy = self._vec(origin, target)
        fx, fy = self._fvec[facing % 6]
        cos = (vx * fx + vy * fy) / (math.hypot(vx, vy) * math.hypot(fx, fy))
        return cos >= 0.5 - 1e-9  # within 60 degrees either side

    def steep(self, a: str, b: str) -> bool:
        """Whether the hexside between two neighbours rises 2 levels or more (§11.1)."""
        return abs(self.level[b] - self.level[a]) >= 2

    # -- terrain effects -------------------------------------------------- #
    def move_extra(self, a: str, b: str, mobility: str) -> float | None:
        """Extra AP to enter neighbour ``b`` from ``a`` (§5.0, §5.0.1, §11.0-11.1,
        §14); ``None``: not allowed."""
        t = self.types[self.terrain[b]]
        key = {
            "foot": "foot_extra_ap",
            "tracked": "tracked_extra_ap",
            "wheeled": "wheeled_extra_ap",
        }.get(mobility, "foot_extra_ap")
        raw = t[key]
        along_road = self.road.get(a, False) and self.road.get(b, False)
        if self.terrain[b] == "deep_water" and not along_road:
            return None
        if raw == "no" and not along_road:
            return None
        extra = 0.0 if along_road or raw == "no" else float(raw)
        rise = self.level[b] - self.level[a]
        if rise >= 2:  # steep (§11.1): foot pays +2 in all, vehicles may not go up
            if mobility != "foot":
                return None
            extra += 2
        elif rise == 1:
            extra += 1  # uphill, not negated by roads (§11.0)
        return extra

    def dm(self, label: str, *, he: bool = False, air_burst_soft: bool = False) -> int:
        """Terrain DM of a unit in ``label`` (§7.3); HE air bursts in heavy woods
        take the woods DM from red-flank-DR units (§12.2)."""
        t = self.terrain[label]
        if he and air_burst_soft and t == "heavy_woods":
            return 0
        return int(self.types[t]["dm"])

    def cover(self, label: str) -> bool:
        """The cover column (rally, hidden units, cautious movement)."""
        return bool(self.types[self.terrain[label]]["cover"])

    def immobilisation_check(self, label: str) -> bool:
        """Whether a vehicle entering ``label`` checks for immobilisation (§14.5)."""
        return bool(self.types[self.terrain[label]]["immobilisation"])

    def elevation_bonus(self, firer: str, target: str) -> tuple[int, int]:
        """(+1 FP if the firer is higher, +1 DM if the target is higher) (§11.2)."""
        lf, lt = self.level[firer], self.level[target]
        return (1 if lf > lt else 0, 1 if lt > lf else 0)

    def obstacle_height(
        self, label: str, smoke: Mapping[str, int] | None = None
    ) -> int:
        """The hex's level plus its obstacle (woods/buildings 1) plus smoke."""
        t = self.types[self.terrain[label]]
        return (
            self.level[label]
            + int(t["obstacle_levels"])
            + int((smoke or {}).get(label, 0))
        )

    # -- line of sight ----------------------------------------------------- #
    def _between(self, a: str, b: str, offset: float) -> list[str]:
        """Hexes the centre line crosses, in order, ends excluded (cached)."""
        key = (a, b, offset)
        got = self._paths.get(key)
        if got is None:
            got = self._paths[key] = self._line(a, b, offset)
        return got

    def _line(self, a: str, b: str, offset: float) -> list[str]:
        xa, ya = self._xy[a]
        xb, yb = self._xy[b]
        length = math.hypot(xb - xa, yb - ya)
        nx, ny = (-(yb - ya) / length, (xb - xa) / length) if length else (0.0, 0.0)
        n = max(2, int(length / (self.hex_size_m / 12)) + 1)
        t = np.linspace(0.0, 1.0, n)
        xs = xa + (xb - xa) * t + nx * offset
        ys = ya + (yb - ya) * t + ny * offset
        q, r = self.grid.xy_to_axial(xs, ys)
        out: list[str] = []
        for qi, ri in zip(q.tolist(), r.tolist(), strict=True):
            lab = self._label_at.get((qi, ri), "")
            if lab in (a, b) or (out and out[-1] == lab):
                continue
            out.append(lab)
        return out

    def _judge(
        self, a: str, b: str, hexes: list[str], smoke: Mapping[str, int] | None
    ) -> Sight:
        la, lb = self.level[a], self.level[b]
        for i, h in enumerate(hexes):
            if not h:
                continue
            top = self.obstacle_height(h, smoke)
            if lb > la:
                limit, why = lb, f"the target's level {lb}"
            elif lb < la:
                limit, why = la, f"the firer's level {la}"
            else:
                limit, why = la + 1, f"above level {la}"
            if top >= limit:
                kind = self.terrain[h].replace("_", " ")
                smoke_h = (smoke or {}).get(h, 0)
                what = f"smoke +{smoke_h} at {h}" if smoke_h else f"{kind} at {h}"
                return Sight(False, h, f"{what} (height {top}) reaches {why} (§11.3)")
            obstacle = (
                int(self.types[self.terrain[h]]["obstacle_levels"])
                + int((smoke or {}).get(h, 0))
                > 0
            )
            if obstacle and la > lb and i == len(hexes) - 1 and top > lb:
                return Sight(
                    False,
                    h,
                    f"{b} is the blind spot behind the "
                    f"{self.terrain[h].replace('_', ' ')} at {h} (§11.4)",
                )
            if obstacle and lb > la and i == 0 and top > la:
                return Sight(
                    False,
                    h,
                    f"{a} is the blind spot behind the "
                    f"{self.terrain[h].replace('_', ' ')} at {h} (§11.4)",
                )
        return Sight(True, None, "clear")

    def los(
        self, a: str, b: str, extra_obstacles: Mapping[str, int] | None = None
    ) -> Sight:
        """The rulebook LOS between ``a`` and ``b`` (module docstring; it is
        symmetric, §6.0); cached unless ``extra_obstacles`` (hex -> added
        levels: smoke) is given."""
        if a == b:
            return Sight(True, None, "same hex")
        key = (a, b) if a < b else (b, a)
        if not extra_obstacles:
            got = self._los.get(key)
            if got is not None:
                return got
        p, q = key
        first = self._judge(p, q, self._between(p, q, _HEXSIDE_EPS), extra_obstacles)
        if not first.clear:
            other = self._judge(
                p, q, self._between(p, q, -_HEXSIDE_EPS), extra_obstacles
            )
            if other.clear:
                first = other  # along a hexside: the less restrictive side (§6.0)
        if not extra_obstacles:
            self._los[key] = first
        return first

    # -- smoke (CoH 2e §13) ------------------------------------------------ #
    def _paths_of(self, a: str, b: str) -> tuple[str, str, list[list[str]]]:
        p, q = (a, b) if a < b else (b, a)
        return p, q, [self._between(p, q, e) for e in (_HEXSIDE_EPS, -_HEXSIDE_EPS)]

    def smoke_los(self, a: str, b: str, smoke: Mapping[str, int]) -> Sight:
        """The LOS with smoke (hex -> total smoke DM) on the map (§13).

        Each DM of smoke is one obstacle level, so +2 smoke blocks sight through
        its hex (seeing into or out of it is fine); +1 smoke does not block on
        its own, but smoke passed adds up along the line: the +1 hex that
        brings it to 2 blocks what lies beyond.  ASSUMPTION: +1 smoke that has
        not yet added up to 2 is no obstacle at all, even to a unit looking up
        at a higher hex (the rule says +1 smoke does not block LOS).

        Examples:
            >>> import wargame
            >>> b = board_for(wargame.load_map(hex_size_m=50, window={
            ...     "place": "Etscheid", "width_m": 1200, "height_m": 1000}))
            >>> b.los("J3", "J7").clear
            True
            >>> b.smoke_los("J3", "J7", {"J5": 2}).blocked_at
            'J5'
            >>> b.smoke_los("J3", "J7", {"J5": 1}).clear
            True
            >>> b.smoke_los("J3", "J7", {"J4": 1, "J5": 1}).clear
            False
        """
        base = self.los(a, b)
        if not base.clear or not smoke or a == b:
            return base
        key = tuple(sorted(smoke.items()))
        if key != self._smoke_key:
            self._smoke_key, self._smoke_los = key, {}
        pair = (a, b) if a < b else (b, a)
        got = self._smoke_los.get(pair)
        if got is not None:
            return got
        p, q, paths = self._paths_of(a, b)
        first: Sight | None = None
        for path in paths:
            eff: dict[str, int] = {}
            acc = 0
            for h in path:
                s = int(smoke.get(h, 0))
                acc += s
                if s >= 2 or (s > 0 and acc >= 2):
                    eff[h] = s
            sight = self._judge(p, q, path, eff) if eff else base
            if sight.clear:
                first = sight
                break
            first = first or sight
        assert first is not None
        self._smoke_los[pair] = first
        return first

    def smoke_passed(self, a: str, b: str, smoke: Mapping[str, int]) -> int:
        """Smoke DM of the hexes a line of fire passes through, ends excluded
        (§13: +1 per +1 smoke passed; along a hexside the lesser side).

        >>> import wargame
        >>> b = board_for(wargame.load_map(hex_size_m=50, window={
        ...     "place": "Etscheid", "width_m": 1200, "height_m": 1000}))
        >>> b.smoke_passed("J3", "J7", {"J5": 1, "J7": 2})
        1
        """
        if not smoke or a == b:
            return 0
        _p, _q, paths = self._paths_of(a, b)
        return min(sum(int(smoke.get(h, 0)) for h in path if h) for path in paths)


_boards: weakref.WeakKeyDictionary[Any, dict[float, CohBoard]] = (
    weakref.WeakKeyDictionary()
)


def board_for(game_map: Any, *, level_height_m: float = 12.5) -> CohBoard:
    """The (cached) board of a map window at a level height."""
    per = _boards.setdefault(game_map, {})
    b = per.get(float(level_height_m))
    if b is None:
        b = CohBoard(game_map, level_height_m)
        per[float(level_height_m)] = b
    return b


def los_agreement(
    board: CohBoard, game_map: Any, pairs: int = 500, seed: int = 0, max_range: int = 12
) -> dict[str, float]:
    """How often the rulebook LOS agrees with the physical LOS (eyes 2 m above
    the ground, the map's woods and town heights) on random hex pairs."""
    rng = np.random.default_rng(seed)
    labels = sorted(board.labels)
    agree = rc_pb = rb_pc = n = 0
    tries = 0
    while n < pairs and tries < pairs * 20:
        tries += 1
        a, b = (labels[int(i)] for i in rng.integers(0, len(labels), 2))
        d = board.distance(a, b)
        if not 2 <= d <= max_range:
            continue
        n += 1
        rule = board.los(a, b).clear
        phys = bool(
            game_map.los(a, b, observer_height_m=2.0, target_height_m=2.0).visible
        )
        agree += rule == phys
        rc_pb += rule and not phys
        rb_pc += phys and not rule
    n = max(n, 1)
    return {
        "pairs": float(n),
        "agree": agree / n,
        "rule_clear_phys_blocked": rc_pb / n,
        "rule_blocked_phys_clear": rb_pc / n,
    }
