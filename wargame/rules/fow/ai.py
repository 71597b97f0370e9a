"""A greedy player for fow-v3: the best expected result of each action now.

Decides from its side's view only (:attr:`Decision.view`), with the rule
system's own helpers for what it would roll:

* **Shoot**: the expected number of enemy teams destroyed, from the exact odds
  (:mod:`.odds`: each shooting team's dice and score, one hit's result against
  the target's first team in reach), plus a little for every expected hit (five
  hits Pin Down, research/fow.md §3.6);
* **Move** (attacker): metres gained toward the nearest objective its side does
  not hold, plus a bonus for ending in concealing ground (a shooter's +1 to hit,
  §3.2); a defender moves only into cover, toward an objective it does not hold;
* **Assault**: the expected number of enemy teams destroyed by the assault
  hits (each team that charges into contact, one die by its skill, against
  the target's first team: :mod:`.assault`, :mod:`.odds`), taken only when it
  favours the attacker: more teams charge than the target has;
* **Counterattack / BreakOff** (the defender): counterattack when its
  remaining teams in the fight outnumber the attacker's, else break off;
* **Consolidate** (the winner of an assault): as a move of up to 4" (metres
  toward an open objective, cover); holding its ground scores as ``Next``
  plus cover where it stands;
* **Shoot at ROF 1, ready to assault** (``to_assault``, :mod:`.rof`): the
  shot's score at ROF 1 plus the best assault it keeps open (the Assault
  score below, if positive); a full-ROF shot forgoes the assault;
* **Bombard** (high explosive): the same score as a shot, from the exact odds
  of ranging in, of a hit under the template and of one hit's result (top
  armour), over the enemy teams under the template; so it bombards when that
  beats every direct shot.  It never fires smoke (no score for it yet);
* **AirStrike** (Shooting Step item 10): the expected teams destroyed and
  hits of the strike (:func:`.air.strike_value`: exact per-die odds, top
  armour, the chance no anti-aircraft die drives the aircraft off), scored
  as a shot, so it attacks the target with the best expected kills;
* **At the Double**: as a move, but refused (-1) when an enemy team in its
  view stands within the platoon's longest direct range of the destination
  (it would give up its shots and be shot at with double dice);
* a platoon with a bombardment weapon and an enemy team in its view within
  that weapon's range does not move (-1): it stays to bombard;
* **Dismount**: a little more than ending the step (passengers get out, then
  move and fight); it never gets into a transport (**Mount** scores 0);
* **Reveal** (an ambush, the Starting Step): when an enemy team in its view
  stands within the platoon's longest direct range, or in the last turn
  (:func:`.ambush.should_reveal`);
* **Next** (end the step): a small fixed score, so a platoon with nothing worth
  doing stays (and, having neither moved nor shot, goes to ground).

Ties are broken by a tiny jitter from the game seed and the decision number, so
the same game gives the same choices.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np
import shapely

from wargame.engine import Point
from wargame.engine.policy import ScoredPolicy

from .air import AirStrike, strike_value
from .ambush import Reveal, should_reveal
from .artillery import (
    Bombard,
    bombard_plan,
    bombard_weapon,
    p_bombard_hit,
    p_ranged_in,
)
from .assault import assault_weapon, strike_score
from .consolidate import Consolidate
from .dice import p_success
from .double import AtTheDouble
from .going import concealed_in
from .moves import command_radius_m
from .odds import armour_pmf, save_pmf
from .ruleset import Assault, BreakOff, Counterattack, Move, Next, Shoot
from .shooting import direct_weapon
from .transport import Dismount

__all__ = ["GreedyPolicy"]

#: The score of ending the step (a move or a shot must beat it).
NEXT_SCORE = 0.05
#: Value of ending a move in concealing ground (woods, towns...).
COVER_BONUS = 0.3
#: Value of one expected hit besides the kills it brings (pinning).
HIT_VALUE = 0.1
#: Cost of each team a move leaves beyond the command distance (a column strung
#: out behind its leader; research/fow.md §2.5).
OUT_OF_COMMAND = 0.4
#: What moving At the Double costs over an ordinary move to the same point.
DOUBLE_COST = 0.02


def _route_m(rules: Any, view: Any, a: Point, b: Point) -> float:
    """How far ``b`` is from ``a`` on foot: straight if the line keeps out of
    the water, else by the nearest standing scenario bridge (so a platoon on
    the wrong bank heads for the bridge instead of along the bank)."""
    from .bridges import standing

    straight = math.hypot(b.x - a.x, b.y - a.y)
    if straight < 1.0 or not _wet(rules.map, a, b):
        return straight
    best = math.inf
    for br in standing(rules, view):
        (px, py), (qx, qy) = br.line
        length = math.hypot(qx - px, qy - py)
        on_deck = br.corridor.buffer(1.0).contains(shapely.Point(a.x, a.y))
        for (nx, ny), (fx, fy) in (((px, py), (qx, qy)), ((qx, qy), (px, py))):
            to_far = (
                math.hypot(fx - a.x, fy - a.y)
                if on_deck
                else math.hypot(nx - a.x, ny - a.y) + length
            )
            best = min(best, to_far + math.hypot(b.x - fx, b.y - fy))
    return best if math.isfinite(best) else straight * 3


def _wet(m: Any, a: Point, b: Point) -> bool:
    """Whether the straight line ``a``-``b`` crosses water (sampled every 10 m)."""
    known = _WET.setdefault(m, {})
    key = (round(a.x), round(a.y), round(b.x), round(b.y))
    got = known.get(key)
    if got is None:
        n = max(2, int(math.hypot(b.x - a.x, b.y - a.y) // 10))
        t = np.linspace(0.0, 1.0, n + 1)
        classes = m.terrain_at(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
        got = bool(np.any(np.asarray(classes, dtype=object) == "water"))
        if len(known) > 50_000:
            known.clear()
        known[key] = got
    return got


#: Lines known to cross water or not, per map (kept as long as the map lives).
_WET: weakref.WeakKeyDictionary[Any, dict[tuple[int, int, int, int], bool]] = (
    weakref.WeakKeyDictionary()
)


class GreedyPolicy(ScoredPolicy):
    """The action with the best expected result now (module docstring)."""

    def score(self, rules: Any, view: Any, a: Any, side: str) -> float:
        """The score of one legal action of ``side`` in its ``view``."""
        if isinstance(a, Shoot):
            return self._shot(rules, view, a) + (
                self.assault_after(rules, view, a) if a.to_assault else 0.0
            )
        if isinstance(a, Consolidate):
            return self._consolidate(rules, view, a, side)
        if isinstance(a, Move):
            return self._move(rules, view, a, side)
        if isinstance(a, Assault):
            return self._assault(rules, view, a)
        if isinstance(a, Counterattack | BreakOff):
            return self._choice(rules, view, a)
        if isinstance(a, Bombard):
            return self._bombard(rules, view, a)
        if isinstance(a, AtTheDouble):
            return self._double(rules, view, a, side)
        if isinstance(a, AirStrike):
            kills, hits = strike_value(rules, view, a.target)
            return kills + HIT_VALUE * hits
        if isinstance(a, Dismount):
            return NEXT_SCORE + 0.01
        if isinstance(a, Reveal):  # spring an ambush with a target in range
            return NEXT_SCORE + 0.01 if should_reveal(rules, view, a.unit) else 0.0
        if isinstance(a, Next):
            return NEXT_SCORE
        return 0.0

    def _shot(self, rules: Any, view: Any, a: Shoot) -> float:
        kills, hits = self.shot_odds(rules, view, a)
        return kills + HIT_VALUE * hits

    def shot_odds(self, rules: Any, view: Any, a: Shoot) -> tuple[float, float]:
        """``(expected teams destroyed, expected hits)`` of the shot ``a``."""
        u, t = view.units[a.unit], view.units[a.target]
        plan = rules.shot_plan(view, u, t, assaulting=a.to_assault)
        by_id = {m.id: m for m in t.models}
        kills = hits = 0.0
        for s in plan.shooters:
            expected = s.dice * float(p_success(s.to_hit))
            hits += expected
            target = by_id[s.targets[0]]
            tt = rules.team(target)
            w = s.weapon
            if tt.armour is not None:
                p = armour_pmf(tt.armour.front, w.anti_tank, w.firepower)["destroyed"]
            else:
                save = tt.save if tt.save is not None else 7
                p = save_pmf(save)["destroyed"]
            kills += expected * float(p)
        return kills, hits

    def _assault(self, rules: Any, view: Any, a: Assault, losses: float = 0.0) -> float:
        """Expected teams destroyed by the assault hits; -1 unless more teams
        charge than the target has (the assault must favour the attacker);
        ``losses``: the target's expected losses before it (a shot at ROF 1)."""
        u, t = view.units[a.unit], view.units[a.target]
        ends = rules.charge_plan(view, u, list(t.models))
        if len(ends) <= len(t.models) - losses:
            return -1.0
        p_hit = float(p_success(strike_score(str(u.attrs["skill"]))))
        first = t.models[0]
        tt = rules.team(first)
        by_id = {m.id: m for m in u.models}
        kills = 0.0
        for mid in ends:
            if tt.armour is not None:
                at, fp = assault_weapon(rules.team(by_id[mid]))
                p = armour_pmf(tt.armour.top, at, fp)["destroyed"]
            else:
                p = save_pmf(tt.save if tt.save is not None else 7)["destroyed"]
            kills += p_hit * float(p)
        return kills

    def assault_after(self, rules: Any, view: Any, a: Shoot) -> float:
        """The best assault score the platoon of ``a`` would have after
        shooting at ROF 1 (0 if none is worth it)."""
        kills, _ = self.shot_odds(rules, view, a)
        best = 0.0
        for t in view.units.values():
            if t.side != view.units[a.unit].side and rules._in_play(t):
                lost = kills if t.id == a.target else 0.0
                best = max(
                    best, self._assault(rules, view, Assault(a.unit, t.id), lost)
                )
        return best

    def _consolidate(self, rules: Any, view: Any, a: Consolidate, side: str) -> float:
        """A consolidation as a move (module docstring); holding its ground
        scores as ``Next`` plus cover where it stands."""
        if a.to is not None:
            return self._move(rules, view, Move(a.unit, a.to), side)
        here = view.units[a.unit].position
        assert isinstance(here, Point)
        cover = concealed_in(str(rules.map.terrain_at(here.x, here.y)))
        return NEXT_SCORE + (COVER_BONUS if cover else 0.0)

    def _choice(self, rules: Any, view: Any, a: Counterattack | BreakOff) -> float:
        """Counterattack when the platoon's teams outnumber the attacker's in
        the fight, else break off."""
        fight = view.vars["fight"]
        mine = len(view.units[a.unit].models)
        theirs = sum(
            len(view.units[p].models)
            for p in fight["strikers"]
            if rules._in_play(view.units[p])
        )
        counter = mine > theirs
        return 1.0 if counter == isinstance(a, Counterattack) else 0.0

    def _move(self, rules: Any, view: Any, a: Move, side: str) -> float:
        u = view.units[a.unit]
        here = u.position
        assert isinstance(here, Point)
        guns = [w.range_in for m in u.models if (w := bombard_weapon(rules.team(m)))]
        if guns and _enemy_within(rules, view, side, here, max(guns) * rules.scale):
            return -1.0  # a battery in range of the enemy stays to bombard
        open_goals = [
            p
            for name, (p, _) in rules.objectives.items()
            if view.control.get(name) != side
        ]
        gain = 0.0
        if open_goals:
            goal = min(open_goals, key=lambda p: _route_m(rules, view, here, p))
            before = _route_m(rules, view, here, goal)
            after = _route_m(rules, view, a.to, goal)
            gain = (before - after) / 100.0
        cover = (
            COVER_BONUS
            if concealed_in(str(rules.map.terrain_at(a.to.x, a.to.y)))
            else 0.0
        )
        posture = rules.scenario.posture(side) or "attack"
        if posture == "defend":  # hold; move only into cover, not away from a goal
            return cover if cover and gain >= 0 else -1.0
        return gain + cover - OUT_OF_COMMAND * _strays(rules, view, a)

    def _bombard(self, rules: Any, view: Any, a: Bombard) -> float:
        """Expected kills and hits of a bombardment (0 for smoke)."""
        if a.smoke:
            return 0.0
        why, plan = bombard_plan(rules, view, view.units[a.unit], a.at, wide=a.wide)
        if why is not None or plan is None:
            return 0.0
        p = float(
            p_ranged_in(plan.ranging) * p_bombard_hit(plan.to_hit, plan.size.reroll)
        )
        w = plan.weapon
        kills = 0.0
        for tid, mid in plan.under:
            m = next(x for x in view.units[tid].models if x.id == mid)
            tt = rules.team(m)
            if tt.armour is not None:
                k = armour_pmf(tt.armour.top, w.anti_tank, w.firepower)["destroyed"]
            else:
                k = save_pmf(tt.save if tt.save is not None else 7)["destroyed"]
            kills += p * float(k)
        return kills + HIT_VALUE * p * len(plan.under)

    def _double(self, rules: Any, view: Any, a: AtTheDouble, side: str) -> float:
        """A move At the Double: the move's score, unless enemies are near."""
        u = view.units[a.unit]
        ranges = [w.range_in for m in u.models if (w := direct_weapon(rules.team(m)))]
        reach = max(ranges, default=0.0) * rules.scale
        if _enemy_within(rules, view, side, a.to, reach):
            return -1.0
        move = self._move(rules, view, Move(a.unit, a.to, a.column), side)
        return move - DOUBLE_COST


def _strays(rules: Any, view: Any, a: Move) -> int:
    """How many teams the move ``a`` leaves out of command (a column only: a
    platoon moved as a body keeps its layout)."""
    if not a.column:
        return 0
    u = view.units[a.unit]
    _, ends, _ = rules.plan_move(view, u, a.to, True)
    lead = ends.get(u.models[0].id)
    if lead is None:
        return 0
    radius = command_radius_m(str(u.attrs["skill"]), rules._is_tank(u), rules.scale)
    return sum(
        1
        for k, (x, y) in ends.items()
        if k != u.models[0].id and math.hypot(x - lead[0], y - lead[1]) > radius
    )


def _enemy_within(rules: Any, view: Any, side: str, at: Point, reach: float) -> bool:
    """Whether an enemy team in the view stands within ``reach`` m of ``at``."""
    for t in view.units.values():
        if t.side == side or not rules._in_play(t):
            continue
        for m in t.models:
            p = m.position
            if isinstance(p, Point) and math.hypot(p.x - at.x, p.y - at.y) <= reach:
                return True
    return False
