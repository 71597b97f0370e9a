"""Shared pieces of the World at War policies: what a side sees, and values.

Nothing here is a rule: the numbers are the policies' own judgement (how much a
unit is worth, how much a result hurts), and every fact about the game comes
from the state or from the rule system's public helpers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import heapq
import itertools
import math
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from wargame.engine import Decision, GameState, RandomPolicy, Unit

from ..fire import opp_window
from ..reach import RankedPaths, Ranks
from ..unit_attrs import carried_by, disrupted

__all__ = ["SideView", "at", "expected_gain", "tiebreak", "unit_value", "waw_rules"]

#: What a counter is worth to a policy, by unit class (full strength).
CLASS_VALUE = {
    "armored": 3.0,
    "light_armored": 2.0,
    "infantry": 2.0,
    "recon": 1.5,
    "mortar": 1.5,
    "aa": 1.0,
    "unarmored_vehicle": 1.5,
    "hq": 2.5,
}
#: Share of a unit's value each result takes away.
RESULT_WEIGHT = {"disrupted": 0.25, "reduced": 0.5, "destroyed": 1.0}


def at(u: Unit) -> str:
    """The hex of a unit on the map (policies only look at units in play)."""
    return u.position  # type: ignore[return-value]


def waw_rules(decision: Decision) -> Any:
    """The decision's World at War rule system, or ``None`` for other systems."""
    rules = decision.rules
    if rules is None or not hasattr(rules, "shot_odds"):
        return None
    return rules


def tiebreak(decision: Decision, salt: str = "") -> float:
    """A number in [0, 1) from (seed, decision number): reproducible, no dice."""
    text = f"wargame-ai:{salt}:{decision.seed}:{decision.number}".encode()
    word = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")
    return word / 2**64


def fallback(decision: Decision, seed: int | None) -> Any:
    """The random choice policies make when they cannot read the rule system."""
    return RandomPolicy(seed).choose(decision)


def unit_value(rules: Any, state: GameState, u: Unit) -> float:
    """What ``u`` is worth (class, strength, and its passenger if any)."""
    return _value(rules, u, riders(state))


def riders(state: GameState) -> dict[str, list[Unit]]:
    """Carrier id -> the units in play aboard it (in the state's order)."""
    out: dict[str, list[Unit]] = {}
    for p in state.units.values():
        c = carried_by(p)
        if c is not None and not p.destroyed:
            out.setdefault(c, []).append(p)
    return out


def _value(rules: Any, u: Unit, aboard: dict[str, list[Unit]]) -> float:
    """:func:`unit_value` with the state's :func:`riders` at hand."""
    info = rules.unit_info(u.id)
    v = CLASS_VALUE.get(info.utype.unit_class.value, 1.0)
    if u.strength == "reduced":
        v *= 0.6
    if info.is_carrier:
        for p in aboard.get(u.id, ()):
            v += 0.5 * _value(rules, p, aboard)
    return v


def expected_gain(
    odds: dict[str, float], value: float, *, disrupted: bool, kill_vp: float = 0.0
) -> float:
    """Expected loss a shot inflicts: result odds times what each result costs.

    Examples:
        >>> expected_gain({"no effect": 0.5, "disrupted": 0.5, "reduced": 0.0,
        ...                "destroyed": 0.0}, 2.0, disrupted=False)
        0.25
    """
    dis = 0.0 if disrupted else RESULT_WEIGHT["disrupted"]
    return value * (
        dis * odds.get("disrupted", 0.0)
        + RESULT_WEIGHT["reduced"] * odds.get("reduced", 0.0)
        + RESULT_WEIGHT["destroyed"] * odds.get("destroyed", 0.0)
    ) + kill_vp * odds.get("destroyed", 0.0)


_memos: weakref.WeakKeyDictionary[Any, dict[str, dict[Any, Any]]] = (
    weakref.WeakKeyDictionary()
)


#: Numbers of the signatures of :meth:`SideView._sig` (never reused).
_SIG_NUMBERS = itertools.count()


def _memo(rules: Any) -> dict[str, dict[Any, Any]]:
    """What :class:`SideView` remembers between decisions (and games of the
    same units on the same board): pure functions of their keys, so play is
    the same without."""
    hit = _memos.get(rules)
    if hit is None:
        shared = getattr(rules, "_shared_memos", None)
        memos = shared() if shared is not None else {}
        hit = _memos[rules] = {
            k: memos.setdefault(f"ai_{k}", {}) for k in ("sigs", "threat", "firepower")
        }
    return hit


class SideView:
    """One side's picture of the game at a decision, built once per decision."""

    def __init__(self, decision: Decision, rules: Any) -> None:
        self.decision = decision
        self.rules = rules
        self.state: GameState = decision.state
        self.side = decision.side
        self.enemy = rules.enemy_of(self.side)
        self.board = rules.board
        st = self.state
        on_map = [
            u for u in st.units.values() if not u.destroyed and u.position is not None
        ]
        self.own = [u for u in on_map if u.side == self.side]
        self.foes = [u for u in on_map if u.side == self.enemy]
        #: enemy units that can be fired at (not HQs, not passengers)
        self.targets = [
            u
            for u in self.foes
            if carried_by(u) is None and not rules.unit_info(u.id).is_hq
        ]
        #: enemy units that can shoot (a threat to us next)
        self.shooters = [
            u for u in self.targets if not disrupted(u) and rules.weapon_reach(u) >= 0
        ]
        self.kill_vp = float(getattr(rules, "destroyed_vp", 0))
        self._values: dict[str, float] = {}
        self._threat: dict[tuple[str, str], float] = {}
        self._reach: dict[str, int] = {}
        self._sigs: dict[str, int] = {}
        self._riders: dict[str, list[Unit]] | None = None
        #: (shooter, its hex, its reach) for the enemy units that can shoot
        self.shooter_reach = [
            (e, str(e.position), self.reach(e)) for e in self.shooters
        ]

    def reach(self, u: Unit) -> int:
        """Cached :meth:`WawRuleset.weapon_reach`."""
        r = self._reach.get(u.id)
        if r is None:
            r = int(self.rules.weapon_reach(u))
            self._reach[u.id] = r
        return r

    def value(self, u: Unit) -> float:
        """Cached :func:`unit_value`."""
        v = self._values.get(u.id)
        if v is None:
            if self._riders is None:
                self._riders = riders(self.state)
            v = _value(self.rules, u, self._riders)
            self._values[u.id] = v
        return v

    def gain(self, odds: dict[str, float], target: Unit) -> float:
        """Expected damage of a shot with these odds at ``target``."""
        return expected_gain(
            odds, self.value(target), disrupted=disrupted(target), kill_vp=self.kill_vp
        )

    def shot(
        self,
        shooter: Unit,
        target: Unit,
        *,
        at: str | None = None,
        target_at: str | None = None,
    ) -> float:
        """Expected damage of the shooter's best shot (0 if it cannot fire)."""
        res = self.rules.shot_odds(
            self.state, shooter, target, at=at, target_at=target_at
        )
        if res is None:
            return 0.0
        return self.gain(res[1], target)

    def _sig(self, which: str) -> int:
        """A small number for what the shots of :meth:`threat` (``"shooters"``)
        or :meth:`firepower_at` (``"targets"``) read of the enemy units and the
        smoke, the same in every decision where these are the same; ``-1`` when
        a target hides (its hiding depends on more: not remembered)."""
        hit = self._sigs.get(which)
        if hit is not None:
            return hit
        smoke = self.state.vars.get("smoke")
        if which == "shooters":
            units = self.shooters
            facts: tuple[Any, ...] = tuple(
                (e.id, e.position, e.strength, e.attrs.get("sw"), e.attrs.get("mode"))
                for e in units
            )
        else:
            units = self.targets
            facts = (
                self.kill_vp,
                *(
                    (
                        t.id,
                        t.position,
                        t.strength,
                        disrupted(t),
                        t.attrs.get("mode"),
                        self.value(t),
                    )
                    for t in units
                ),
            )
        if any(t.attrs.get("hiding") for t in units):
            n = -1
        else:
            ids = _memo(self.rules)["sigs"]
            n = ids.get((which, repr(smoke), facts), -1)
            if n < 0:
                n = ids[(which, repr(smoke), facts)] = next(_SIG_NUMBERS)
        self._sigs[which] = n
        return n

    def threat(self, u: Unit, h: str) -> float:
        """Expected damage the enemy could do to ``u`` standing at ``h``.

        The sum over enemy units able to fire (in range and sight), each with its
        best weapon: a measure of how exposed the hex is.
        """
        key = (u.id, h)
        hit = self._threat.get(key)
        if hit is not None:
            return hit
        # the same numbers as in an earlier decision with the same shooters,
        # the same target and the same smoke (a pure function: remembered)
        sig = -1 if u.attrs.get("hiding") else self._sig("shooters")
        if sig >= 0:
            long_key = (
                sig,
                u.id,
                u.strength,
                disrupted(u),
                u.attrs.get("mode"),
                self.value(u),
                h,
            )
            memo = _memo(self.rules)["threat"]
            known: float | None = memo.get(long_key)
            if known is not None:
                self._threat[key] = known
                return known
        total = 0.0
        row, index = self.board.distance_row(h), self.board.index
        for e, pos, reach in self.shooter_reach:
            dist = row[index[pos]]
            if dist > 1 and dist - 1 > reach:
                continue
            res = self.rules.shot_odds(self.state, e, u, target_at=h)
            if res is not None:
                total += expected_gain(res[1], self.value(u), disrupted=disrupted(u))
        self._threat[key] = total
        if sig >= 0:
            memo[long_key] = total
        return total

    def firepower_at(self, u: Unit, h: str) -> float:
        """The best expected damage ``u`` could deal from ``h`` at a visible enemy."""
        best = 0.0
        reach = self.reach(u)
        if reach < 0:
            return 0.0
        sig = self._sig("targets")
        if sig >= 0:
            key = (
                sig,
                u.id,
                u.strength,
                u.attrs.get("sw"),
                u.attrs.get("mode"),
                reach,
                h,
            )
            memo = _memo(self.rules)["firepower"]
            hit = memo.get(key)
            if hit is not None:
                return hit  # type: ignore[no-any-return]
        row, index = self.board.distance_row(h), self.board.index
        for t in self.targets:
            dist = row[index[t.position]]
            if dist > 1 and dist - 1 > reach:
                continue
            best = max(best, self.shot(u, t, at=h))
        if sig >= 0:
            memo[key] = best
        return best

    def nearest(self, h: str, hexes: Sequence[str]) -> tuple[int, str | None]:
        """Distance to, and label of, the nearest of ``hexes``."""
        best: tuple[int, str | None] = (10**6, None)
        for x in hexes:
            cand = (self.board.distance(h, x), x)
            if cand < best:
                best = cand
        return best


def moving(u: Unit) -> bool:
    """Whether the unit has spent movement points this turn (fire on the move)."""
    return float(u.attrs.get("mp", 0.0)) > 0


def fire_gain(view: SideView, action: Any) -> float:
    """Expected damage of one legal Fire action (its weapon, moving or not).

    HQ leadership (``with_hq``) adds dice; it is counted as a small bonus.
    """
    st = view.state
    u, t = st.units[action.unit], st.units[action.target]
    opp = opp_window(st) is not None
    res = view.rules.shot_odds(
        st, u, t, weapons=(action.weapon,), moving=not opp and moving(u)
    )
    if res is None:
        return 0.0
    g = view.gain(res[1], t)
    sw_target = getattr(action, "sw_target", None)
    if sw_target is not None:
        # WaW 1.3.5: the support weapon fires in the same action
        t2 = st.units[sw_target]
        sw = view.rules.shot_odds(st, u, t2, weapons=("sw",), moving=False)
        if sw is not None:
            g += view.gain(sw[1], t2)
    return g * (1.15 if action.with_hq else 1.0)


def sw_removal_choice(view: SideView, acts: Sequence[Any]) -> Any:
    """Which unplaced enemy support weapon to remove (WaW 1.3.5: our choice).

    The one that could hurt the side's units most now (the best expected damage
    of its shot at any of them, exact odds); SWs with no shot now (out of sight
    or range, not arrived yet) and ties go by the weapon's strength: firepower x
    hit chance x reach; then the carrier's id.
    """
    st, rules = view.state, view.rules
    mine = [
        u for u in view.own if carried_by(u) is None and not rules.unit_info(u.id).is_hq
    ]

    def score(a: Any) -> tuple[float, float, str]:
        """(-threat now, -strength, id): the smallest is removed."""
        u = st.units[a.unit]
        now = 0.0
        if isinstance(u.position, str) and carried_by(u) is None:
            for t in mine:
                res = rules.shot_odds(st, u, t, weapons=("sw",))
                if res is not None:
                    now = max(now, view.gain(res[1], t))
        sw = rules.catalog[u.attrs["sw"]]
        power = 0.0
        for w in (sw.full.ap, sw.full.aa):
            if w is not None and w.fp > 0:
                power = max(power, w.fp * (7 - w.to_hit) / 6 * w.reach)
        return (-now, -power, str(a.unit))

    return min(acts, key=score)


def mode_gain(view: SideView, u: Unit, mode: str) -> float:
    """Best expected damage a helicopter could do from where it is in ``mode``.

    WaW 9.0: each side of the counter has its own firepower and (by the rules'
    LOS for helicopters) its own line of sight; the odds come from the rules.
    """
    other = dataclasses.replace(
        u, attrs={**u.attrs, "mode": None if mode == "low" else mode}
    )
    return max((view.shot(other, t) for t in view.targets), default=0.0)


def area_gain(
    view: SideView, firepower: int, to_hit: int, weapon: str, h: str
) -> float:
    """Expected damage of indirect or off-map fire on hex ``h`` (all its units)."""
    odds = view.rules.area_fire_odds(
        view.state, firepower, to_hit, weapon, h, view.side
    )
    return sum(view.gain(p, t) for t, p in odds)


def indirect_gain(view: SideView, action: Any) -> float:
    """Expected damage of a mortar's IndirectFire action (WaW 1.3.4.3)."""
    u = view.state.units[action.unit]
    he = view.rules.side_values(u).he
    if he is None:
        return 0.0
    return area_gain(view, he.fp, he.to_hit, "he", action.hex)


def support_choice(view: SideView, acts: Sequence[Any], threshold: float) -> Any:
    """Call the drawn fire support on the best hex, or hold it (save the ammo).

    The spotter does not change the result; the first legal one is used.
    """
    rules = view.rules
    calls = [
        a for a in acts if getattr(a, "type", "") == "call_support" and not a.smoke
    ]
    hold = next(a for a in acts if getattr(a, "type", "") == "hold_support")
    if not calls:
        return hold
    sup = rules.supports[hold.support]
    gains: dict[str, float] = {}
    best: tuple[float, str] | None = None
    for a in calls:
        if a.hex not in gains:
            gains[a.hex] = area_gain(view, sup.fp, sup.to_hit, sup.weapon, a.hex)
            cand = (gains[a.hex], a.hex)
            if best is None or cand[0] > best[0] + 1e-12:
                best = cand
    if best is None or best[0] < threshold:
        return hold
    return next(a for a in calls if a.hex == best[1])


def replace_hq_choice(view: SideView, acts: Sequence[Any]) -> Any:
    """Where a destroyed HQ comes back (WaW 1.3.3.3: the owner's choice).

    The hex that puts the most units of its formation within the reduced HQ's
    command range; ties: the least exposed stack (the enemy's expected damage
    on the units there, which would risk the HQ), then the label.
    """
    st = view.state
    rules = view.rules
    options = [a for a in acts if getattr(a, "type", "") == "replace_hq"]
    hq = st.units[options[0].hq]
    reach = int(rules.unit_info(hq.id).utype.side(True).command_range or 0)
    members = [
        u
        for u in view.own
        if u.formation == hq.formation
        and u.id != hq.id
        and not rules.unit_info(u.id).is_hq
        and carried_by(u) is None
    ]
    d = view.board.distance

    def rank(a: Any) -> tuple[int, float, str]:
        covered = sum(1 for u in members if d(at(u), a.hex) <= reach)
        exposure = sum(view.threat(u, a.hex) for u in members if at(u) == a.hex)
        return (-covered, exposure, a.hex)

    return min(options, key=rank)


class CheapScore:
    """A move score known for every hex of the board at once: ``values[k]``
    for the hex ``ranks.names[k]`` (label order); call it with a label."""

    __slots__ = ("ranks", "table", "values")

    def __init__(self, ranks: Ranks, values: Any) -> None:
        self.ranks = ranks
        #: the scores as a numpy array, by hex number
        self.values = values
        #: the same as Python floats
        self.table: list[float] = values.tolist()

    def score(self, h: str) -> float:
        """The score of hex ``h``."""
        return self.table[self.ranks.id_of[h]]


def _top_ranked(
    paths: RankedPaths, here: str, cheap: CheapScore, shortlist: int
) -> list[tuple[float, str]]:
    """The ``shortlist`` best hexes of ``paths`` but ``here`` by ``cheap``
    (ties: label), best first: what ``heapq.nsmallest`` gives on the list of
    ``(score, hex)`` by ``(-score, hex)``, found with numpy."""
    ids = paths.ids()
    ids = ids[ids != cheap.ranks.id_of[here]]
    vals = cheap.values[ids]
    n = len(ids)
    if n > shortlist:
        # the hexes scoring at least the shortlist-th best (ties included)
        cut = np.partition(vals, n - shortlist)[n - shortlist]
        keep = vals >= cut
        ids, vals = ids[keep], vals[keep]
    ranked = sorted(zip((-vals).tolist(), ids.tolist(), strict=True))[:shortlist]
    names, table = cheap.ranks.names, cheap.table
    return [(table[k], names[k]) for _v, k in ranked]


def best_destination(
    view: SideView,
    u: Unit,
    score: Any,
    *,
    costly: Any = None,
    keep: float = 0.0,
    shortlist: int = 8,
) -> tuple[float, str, tuple[str, ...]]:
    """The reachable hex with the best score (ties: fewer MP, then label).

    Args:
        view: the side's view.
        u: the unit to move.
        score: ``h -> float``, cheap (cover, distances...).
        costly: optional ``h -> float`` added to ``score`` but only for the
            ``shortlist`` best hexes by ``score`` (and the unit's own hex):
            exposure and firepower need line of sight and odds.
        keep: bonus for staying where it is (against dithering).
        shortlist: how many hexes get the costly term.

    Returns:
        ``(score, hex, path)``; the path starts at the unit's hex.
    """
    paths = view.rules.paths(view.state, u)
    here = at(u)
    cheap = getattr(score, "__self__", None)
    if (
        costly is not None
        and isinstance(cheap, CheapScore)
        and isinstance(paths, RankedPaths)
        and cheap.ranks is paths.ranks
    ):
        top = _top_ranked(paths, here, cheap, shortlist)
        cands = [(s + costly(h), h) for s, h in top]
        stay = score(here) + costly(here) + keep
    elif costly is not None:
        cands = [(score(h), h) for h in paths if h != here]
        top = heapq.nsmallest(shortlist, cands, key=lambda x: (-x[0], x[1]))
        cands = [(s + costly(h), h) for s, h in top]
        stay = score(here) + costly(here) + keep
    else:
        cands = [(score(h), h) for h in paths if h != here]
        stay = score(here) + keep
    best: tuple[float, float, str, tuple[str, ...]] = (stay, 0.0, here, (here,))
    for s, h in cands:
        cost, path = paths[h]
        if s > best[0] + 1e-9 or (
            abs(s - best[0]) <= 1e-9 and (cost, h) < (best[1], best[2])
        ):
            best = (s, cost, h, path)
    return best[0], best[2], best[3]


#: Extra cost (MP) a policy counts for boarding a ferry: the move ends there.
FERRY_DELAY_MP = 4.0
_travel: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], dict[str, float]]] = (
    weakref.WeakKeyDictionary()
)


def travel_map(
    board: Any,
    goal: str,
    mobility: str,
    enter: dict[str, float] | None = None,
) -> dict[str, float]:
    """Movement points from every hex to ``goal`` over several turns.

    Dijkstra over the board's movement costs (rivers only at bridges and
    ferries), counting :data:`FERRY_DELAY_MP` more for boarding a ferry;
    enemy units are ignored.  ``enter`` gives entry costs that replace the
    board's (the side's deployed MTU-55 bridges).  Cached per board, goal,
    mobility and ``enter``.
    """
    per_board = _travel.setdefault(board, {})
    key = (goal, mobility, tuple(sorted((enter or {}).items())))
    hit = per_board.get(key)
    if hit is not None:
        return hit
    dist: dict[str, float] = {goal: 0.0}
    heap: list[tuple[float, str]] = [(0.0, goal)]
    cost = board.move_cost
    ferry = board.ferry_water
    while heap:
        c, here = heapq.heappop(heap)
        if c > dist.get(here, math.inf):
            continue
        for nb in board.neighbors[here]:
            step = (
                enter[here] if enter and here in enter else cost(nb, here, mobility)
            )  # moving from nb into here
            if step == math.inf:
                continue
            if ferry(here) and not ferry(nb):
                step += FERRY_DELAY_MP
            nc = c + step
            if nc < dist.get(nb, math.inf):
                dist[nb] = nc
                heapq.heappush(heap, (nc, nb))
    per_board[key] = dist
    return dist


_crossings: weakref.WeakKeyDictionary[Any, tuple[str, ...]] = (
    weakref.WeakKeyDictionary()
)


def crossing_hexes(board: Any) -> tuple[str, ...]:
    """Water hexes with land on two opposite sides: one MTU-55 span bridges them."""
    hit = _crossings.get(board)
    if hit is None:
        out = []
        for h in board.labels:
            if not board.is_water(h):
                continue
            for nb in board.neighbors[h]:
                far = board.beyond(nb, h)
                if far and not board.is_water(nb) and not board.is_water(far):
                    out.append(h)
                    break
        hit = tuple(out)
        _crossings[board] = hit
    return hit


def side_bridges(view: SideView) -> dict[str, float]:
    """The side's deployed bridges as entry costs (seed 000: 2 MP, 3 disrupted)."""
    return {
        u.position: (3.0 if disrupted(u) else 2.0)  # type: ignore[misc]
        for u in view.state.units.values()
        if u.side == view.side and u.attrs.get("deployed") and not u.destroyed
    }


_cover: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()


def cover_map(board: Any) -> dict[str, int]:
    """Terrain defence dice of every hex of a board (cached per board)."""
    hit = _cover.get(board)
    if hit is None:
        hit = {h: int(board.defence_dice(h)) for h in board.labels}
        _cover[board] = hit
    return hit
