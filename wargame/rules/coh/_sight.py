"""The rulebook's line of sight on a CoH board (CoH 2e §6.0, §11.3, §11.4, §13.0).

:class:`SightMixin` gives :class:`~wargame.rules.coh.board.CohBoard` its
:meth:`~SightMixin.los`; the hexes a sight line crosses come from
:mod:`._hexlos`.  :func:`los_agreement` compares it with the map's physical LOS.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._hexlos import positions
from ._terrain import TerrainChart

__all__ = ["Sight", "SightMixin", "los_agreement"]


@dataclass(frozen=True)
class Sight:
    """A rulebook LOS answer that explains itself (as the geo layer's ``LOSResult``).

    ``blocked_at`` is the blocking hex (None if clear); ``why`` says what blocks.
    """

    clear: bool
    blocked_at: str | None
    why: str


#: The one clear answer (most sight lines are clear; the LOS cache shares it).
CLEAR = Sight(True, None, "clear")


class SightMixin:
    """LOS for a board with per-hex ``terrain`` and ``level`` (see ``CohBoard``)."""

    chart: TerrainChart
    labels: frozenset[str]
    terrain: dict[str, str]
    level: dict[str, int]
    _axial: dict[str, tuple[int, int]]
    _label_at: dict[tuple[int, int], str]
    _nb: dict[str, list[str]]
    _los: dict[tuple[str, str], Sight]

    def _check(self, label: Any, what: str = "hex") -> tuple[int, int]:
        raise NotImplementedError

    def within(self, label: str, radius: int) -> list[str]:
        raise NotImplementedError

    def distance(self, a: str, b: str) -> int:
        raise NotImplementedError

    def los(
        self, a: str, b: str, extra_obstacles: Mapping[str, int] | None = None
    ) -> Sight:
        """Rulebook LOS between hex centres; symmetric; units never block (§6.0).

        Every intervening hex the centre-to-centre line crosses counts (exact hexagon
        geometry, :mod:`._hexlos`); along a hexside the less restrictive of the two
        hexes counts.  A hex's obstacle height is its level plus its type's obstacle
        levels (woods, buildings: 1, §11.3) plus ``extra_obstacles`` (hex -> levels,
        e.g. smoke: each smoke DM is one level, §13.0; the caller decides which smoke
        blocks).  With firer level F and target level T:

        * ``F != T``: blocked by any obstacle ``>= max(F, T)`` (§11.3; a bare hill hex
          as high as the higher end blocks: the plateau effect);
        * ``F == T``: blocked by woods, buildings or smoke ``>= F`` (§6.0; the
          hex-16 example of §11.4) or by ground higher than F.  ASSUMPTION: bare
          ground at the same level does not block (units on one plateau see each
          other).
        * **blind spot** (§11.4): a lower unit directly behind an obstacle that rises
          above it is out of LOS of the higher unit (and the other way).  A clear
          hill hex makes none for a unit looking down its own slope.  ASSUMPTION:
          "directly behind" is the last position before the lower hex, "its own
          slope" that the ground never rises from the higher unit to that hex, and
          the obstacle must stand above the lower hex's level.

        Cached per ``(a, b)`` unless ``extra_obstacles`` is given.

        Examples:
            >>> import wargame
            >>> from wargame.rules.coh.board import board_for
            >>> b = board_for(wargame.load_map(hex_size_m=50, window={"place":
            ...     "Sessenhausen", "width_m": 1250, "height_m": 1250}))
            >>> b.los("AA16", "AA12").clear, b.los("AA12", "AA16").clear
            (False, False)
            >>> smoke = {"AA15": 2}  # a +2 smoke counter is a level-2 obstacle (§13.0)
            >>> print(b.los("AA16", "AA14", extra_obstacles=smoke).why)
            ... # doctest: +NORMALIZE_WHITESPACE
            smoke at AA15 (level-2 obstacle on level 0) blocks a level-0 target
            from level 0
        """
        if extra_obstacles is None:
            key = (a, b)
            try:
                got = self._los.get(key)  # only checked pairs are stored
            except TypeError:  # an unhashable hex: _check says why
                got = None
            if got is not None:
                return got
        self._check(a, "a")
        self._check(b, "b")
        if extra_obstacles is None:
            got = self._los.get(key)
            if got is None:
                got = self._los[key] = self._sight(a, b, {})
            return got
        extra = {}
        for h, v in extra_obstacles.items():
            self._check(h, "extra_obstacles")
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(
                    f"extra_obstacles[{h!r}]: {v!r} is not a whole number "
                    "of levels >= 0"
                )
            extra[h] = v
        return self._sight(a, b, extra)

    # -- smoke (CoH 2e §13) ------------------------------------------------ #
    def smoke_los(self, a: str, b: str, smoke: Mapping[str, int]) -> Sight:
        """The LOS with smoke (hex -> total smoke DM) on the map (§13).

        Each DM of smoke is one obstacle level, so +2 smoke blocks sight through
        its hex (seeing into or out of it is fine); +1 smoke does not block on
        its own, but smoke passed adds up along the line: the +1 hex that brings
        it to 2 blocks what lies beyond.  ASSUMPTION: +1 smoke that has not yet
        added up to 2 is no obstacle at all, even to a unit looking up at a
        higher hex (the rule says +1 smoke does not block LOS).
        """
        base = self.los(a, b)
        if not base.clear or not smoke or a == b:
            return base
        key = tuple(sorted(smoke.items()))
        cache = self.__dict__.setdefault("_smoke_cache", {})
        if cache.get("key") != key:
            cache.clear()
            cache["key"] = key
        pair = (a, b) if a < b else (b, a)
        got = cache.get(pair)
        if got is not None:
            return got  # type: ignore[no-any-return]
        eff: dict[str, int] = {}
        acc = 0
        for cells, _side in self._line(pair[0], pair[1]):
            if not cells:
                continue
            n = min(int(smoke.get(h, 0)) for h in cells)
            acc += n
            for h in cells:
                v = int(smoke.get(h, 0))
                if v >= 2 or (v > 0 and acc >= 2):
                    eff[h] = v
        sight = self.los(a, b, extra_obstacles=eff) if eff else base
        cache[pair] = sight
        return sight

    def smoke_passed(self, a: str, b: str, smoke: Mapping[str, int]) -> int:
        """Smoke DM of the hexes a line of fire passes through, ends excluded
        (§13: +1 per +1 smoke passed; along a hexside the lesser side)."""
        if not smoke or a == b:
            return 0
        return sum(
            min(int(smoke.get(h, 0)) for h in cells)
            for cells, _side in self._line(a, b)
            if cells
        )

    def _top(self, h: str, extra: Mapping[str, int]) -> tuple[int, bool]:
        """Obstacle height of a hex and whether something stands on its ground."""
        stand = self.chart.types[self.terrain[h]].obstacle_levels + extra.get(h, 0)
        return self.level[h] + stand, stand > 0

    def _what(self, h: str, extra: Mapping[str, int]) -> str:
        top, stand = self._top(h, extra)
        if not stand:
            return f"level-{self.level[h]} hill at {h}"
        name = self.chart.types[self.terrain[h]].name
        if self.chart.types[self.terrain[h]].obstacle_levels == 0:
            name = "smoke"
        return f"{name} at {h} (level-{top} obstacle on level {self.level[h]})"

    def _line(self, a: str, b: str) -> list[tuple[list[str], bool]]:
        """Intervening positions from ``a`` to ``b``: hexes (off-board None dropped)
        and whether the position is a hexside run.  Computed in one orientation for
        both directions, so that LOS is exactly symmetric."""
        (qa, ra), (qb, rb) = self._axial[a], self._axial[b]
        v = (qb - qa, rb - ra)
        flip = v < (-v[0], -v[1])
        (oq, orr), (dq, dr) = ((qb, rb), (-v[0], -v[1])) if flip else ((qa, ra), v)
        seq = []
        for p in positions(dq, dr):
            got = [self._label_at.get((oq + cq, orr + cr)) for cq, cr in p.cells]
            cells = [c for c in got if c is not None]
            if p.along_hexside and len(cells) < len(got):
                cells = []  # an off-board side of a hexside run is the less restrictive
            seq.append((cells, p.along_hexside))
        return seq[::-1] if flip else seq

    def _sight(self, a: str, b: str, extra: Mapping[str, int]) -> Sight:
        if a == b:
            return CLEAR
        f, t = self.level[a], self.level[b]
        high = max(f, t)
        seq = self._line(a, b)

        def blocks(h: str) -> bool:
            top, stand = self._top(h, extra)
            if f != t:
                return top >= high
            return top >= f if stand else self.level[h] > f

        for cells, side in seq:
            if cells and all(blocks(h) for h in cells):
                h = min(cells, key=lambda c: self._top(c, extra))  # least restrictive
                why = f"{self._what(h, extra)} blocks a level-{t} target from level {f}"
                if not self._top(h, extra)[1] and self.level[h] == high:
                    why += " (plateau effect)"
                if side:
                    why += f" (along the hexside {' / '.join(cells)}: both sides block)"
                return Sight(False, h, why)
        if f != t and seq:
            hi, lo = (a, b) if f > t else (b, a)
            run = seq if hi == a else seq[::-1]
            cells, side = run[-1]
            if (
                cells
                and all(c in self._nb[lo] for c in cells)
                and all(self._blind(h, hi, lo, run, extra) for h in cells)
            ):
                h = min(cells, key=lambda c: self._top(c, extra))
                return Sight(
                    False,
                    h,
                    f"blind spot: {lo} (level {self.level[lo]}) lies "
                    f"directly behind {self._what(h, extra)} seen from "
                    f"{hi} (level {self.level[hi]})",
                )
        return CLEAR

    def _blind(
        self,
        h: str,
        hi: str,
        lo: str,
        run: list[tuple[list[str], bool]],
        extra: Mapping[str, int],
    ) -> bool:
        """Whether obstacle hex ``h`` (last before ``lo``) makes ``lo`` a blind spot."""
        top, stand = self._top(h, extra)
        if top <= self.level[lo]:
            return False
        if stand:
            return True
        ground = [
            self.level[hi],
            *(min(self.level[c] for c in cells) for cells, _ in run if cells),
        ]
        return any(later > earlier for earlier, later in itertools.pairwise(ground))


def los_agreement(
    board: SightMixin,
    game_map: Any,
    pairs: int = 500,
    seed: int | np.random.Generator = 0,
    max_range: int = 12,
) -> dict[str, float]:
    """How often the rulebook LOS agrees with the map's physical LOS.

    Draws ``pairs`` random hex pairs 2 to ``max_range`` hexes apart and compares
    :meth:`CohBoard.los` with :meth:`wargame.geo.maps.Map.los` (its default eye,
    target and obstacle heights).  Returns ``pairs`` and the fractions ``agree``,
    ``rule_clear_phys_blocked`` and ``rule_blocked_phys_clear``.
    """
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise ValueError(f"pairs: {pairs!r} is not a whole number >= 1")
    if isinstance(max_range, bool) or not isinstance(max_range, int) or max_range < 2:
        raise ValueError(
            f"max_range: {max_range!r} is not a whole number of hexes >= 2"
        )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    labels = sorted(board.labels)
    counts = {"agree": 0, "rule_clear_phys_blocked": 0, "rule_blocked_phys_clear": 0}
    done = 0
    for _ in range(pairs * 20):
        if done == pairs:
            break
        a = labels[int(rng.integers(len(labels)))]
        far: Iterable[str] = (
            h for h in board.within(a, max_range) if board.distance(a, h) >= 2
        )
        options = sorted(far)
        if not options:
            continue
        b = options[int(rng.integers(len(options)))]
        rule = board.los(a, b).clear
        phys = bool(game_map.los(a, b).visible)
        done += 1
        if rule == phys:
            counts["agree"] += 1
        elif rule:
            counts["rule_clear_phys_blocked"] += 1
        else:
            counts["rule_blocked_phys_clear"] += 1
    if done == 0:
        raise ValueError(
            "los_agreement: the board has no hex pairs 2 or more hexes apart"
        )
    return {"pairs": float(done), **{k: v / done for k, v in counts.items()}}
