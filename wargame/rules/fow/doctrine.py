"""A doctrine player for fow-v3: fire and movement by the book of 1944–45.

It decides from its side's view only (:attr:`Decision.view`) and the rule
system's own helpers (shot plans, moves, the exact odds), one action at a time:

* **Movement Step**: advance toward the nearest objective the side does not
  hold, *from cover to cover*: a move is worth the metres it gains, more if it
  ends in concealing ground (a shooter's +1 to hit, research/fow.md §3.2), less
  for every hit the enemy teams that would see the platoon there could put on
  it (their dice and scores from the same rules the shot would use), and less
  for teams left out of command (§2.5).  A platoon **outgunned** where it
  stands in cover (the enemy's expected hits on it are more than
  :data:`OUTGUNNED` times its own on them) stays put, and so goes to ground if
  it does not fire either (§3.2: Gone to Ground needs no move and no shot).  A
  defender holds its ground and moves only into cover toward an objective it
  does not hold.
* **Shooting Step**: shoot the best target (expected teams destroyed, from the
  exact odds, plus a little for each hit toward Pinning Down, §3.6); an
  outgunned platoon in cover shoots only a shot worth :data:`WORTH_BREAKING_COVER`
  destroyed teams, else it keeps its Gone to Ground.
* **At the Double** (§2.3): the same score as the move, a little less, and
  never to within the platoon's direct range of an enemy team.
* **Assault Step**: assault when the odds favour it (more teams charge than
  the target has, the expected kills of :class:`~.ai.GreedyPolicy`, less the
  defensive fire it would meet, never into five expected hits), more readily a
  platoon on an objective; as the defender, counterattack or break off as the
  greedy player does.  A platoon that could assault shoots at ROF 1
  (``to_assault``, research §3.1) when the ROF 1 shot plus that assault beats
  the full-ROF shot.
* **Consolidation** (the winner of an assault, up to 4"): the end point's
  cover, less the enemy's expected hits there, plus the metres it gains
  toward an open objective (an attacker only); holding its ground scores the
  same where it stands, plus :data:`~.ai.NEXT_SCORE`.
* **Combined arms** (:mod:`.arms`, docs D1-D4): passengers ride until their
  transport is within 16" of an enemy team or an open objective, then get out
  (never back in); a transport with passengers aboard never ends a move within
  10" of an enemy team; an empty transport keeps 24" from the enemy; a battery
  with a target its spotter sees stays to bombard.
* ``Next`` (end the step) has :data:`~.ai.NEXT_SCORE`; bombardments, air
  strikes (the target with the best expected kills), At the Double and
  revealing an ambush (when an enemy team stands within its range, or in the
  last turn) are scored as :class:`~.ai.GreedyPolicy` scores them.

ASSUMPTION (documented in ``docs/rules/fow-v3.md``): the weights below are
judgement, tuned only so that the policy beats random play and plays both
shipped scenarios to the end; they are not from a source.

Examples:
    >>> from wargame.engine import Game, load_scenario
    >>> sc = load_scenario("fow_ockenfels_1945")
    >>> g = Game(sc, seed=3, policies={"us": DoctrinePolicy(), "de": DoctrinePolicy()})
    >>> for _ in range(12):
    ...     _ = g.step()
    >>> sorted({type(a).__name__ for a in g.actions})  # far from the enemy
    ['AtTheDouble', 'Move', 'Next']
"""

from __future__ import annotations

import math
from typing import Any

from wargame.engine import Point
from wargame.engine.policy import Decision, tie_break

from .ai import (
    DOUBLE_COST,
    NEXT_SCORE,
    OUT_OF_COMMAND,
    GreedyPolicy,
    _enemy_within,
    _route_m,
    _strays,
)
from .arms import (
    can_bombard,
    empty_transport_move,
    should_dismount,
    unsafe_for_passengers,
)
from .consolidate import Consolidate
from .dice import TO_BE_HIT, needed, p_success
from .double import AtTheDouble
from .going import concealed_in
from .hq import is_company_command
from .moves import command_radius_m
from .play import OBJECTIVE_IN
from .ruleset import Assault, BreakOff, Counterattack, Move, Next, Shoot
from .shooting import LONG_RANGE_IN, direct_weapon
from .transport import Dismount, Mount

__all__ = ["DoctrinePolicy"]

#: Worth of ending a move in concealing ground (woods, towns, orchards...).
COVER = 0.6
#: Cost of each expected enemy hit on the platoon where a move ends.
EXPOSURE = 0.25
#: Outgunned: the enemy's expected hits on the platoon exceed its own on them
#: by this factor.
OUTGUNNED = 2.0
#: Expected teams destroyed that make an outgunned platoon give up its cover.
WORTH_BREAKING_COVER = 0.5
#: What a move costs a platoon outgunned in cover (it would rather stay).
HOLD = 0.4
#: Expected defensive-fire hits that stop a charge (five pin, research §4).
DEFENSIVE_FIRE_STOPS = 5.0


def _xy(p: Any) -> tuple[float, float]:
    assert isinstance(p, Point)
    return float(p.x), float(p.y)


#: Score of a company command team's move that ends with it joined to a platoon.
ESCORT_JOINED = 0.5


class DoctrinePolicy:
    """Cover-to-cover advance, best target, go to ground when outgunned."""

    def __init__(self) -> None:
        self._greedy = GreedyPolicy()
        self._battery: dict[str, bool] = {}

    def choose(self, decision: Decision) -> Any:
        """The best legal action by the doctrine's scores (module docstring)."""
        acts = list(decision.legal_actions)
        rules = decision.rules
        if rules is None or decision.view is None:
            return acts[0]
        view = decision.view()
        side = decision.side
        outgunned: dict[str, bool] = {}
        self._battery = {}
        self._warm(rules, view, side, acts)
        best, best_score = acts[0], -math.inf
        for i, a in enumerate(acts):
            unit = getattr(a, "unit", None)
            if isinstance(unit, str) and unit not in outgunned:
                outgunned[unit] = self._outgunned(rules, view, unit)
            if isinstance(a, Move):
                score = self._move(rules, view, a, side, outgunned[a.unit])
            elif isinstance(a, Shoot):
                score = self._greedy._shot(rules, view, a)
                if outgunned[a.unit] and score < WORTH_BREAKING_COVER:
                    score = min(score, NEXT_SCORE / 2)
                if a.to_assault:  # ROF 1, to keep the assault open (rof.py)
                    score += self._assault_after(rules, view, a)
            elif isinstance(a, Consolidate):
                score = self._consolidate(rules, view, a, side)
            elif isinstance(a, AtTheDouble):
                score = self._double(rules, view, a, side, outgunned[a.unit])
            elif isinstance(a, Assault):
                score = self._assault(rules, view, a)
            elif isinstance(a, Counterattack | BreakOff):
                score = self._greedy._choice(rules, view, a)
            elif isinstance(a, Dismount):  # before contact (arms.py)
                get_out = should_dismount(rules, view, a.unit, side)
                score = NEXT_SCORE + 0.01 if get_out else -1.0
            elif isinstance(a, Mount):
                score = -1.0  # once out, the passengers fight on foot
            elif isinstance(a, Next):
                score = NEXT_SCORE
            else:  # bombard, air strike, get in or out: as the greedy player
                score = self._greedy.score(rules, view, a, side)
            score += tie_break(decision, i)
            if score > best_score:
                best, best_score = a, score
        return best

    # -- what the enemy can do to a platoon ----------------------------------- #
    def _warm(self, rules: Any, view: Any, side: str, acts: list[Any]) -> None:
        """Learn at once (one compiled call per pair of heights) every look an
        enemy team could have at where the moves on offer would end."""
        ends: dict[float, list[tuple[float, float]]] = {}
        for a in acts:
            if isinstance(a, Move):
                eye = rules.team(view.units[a.unit].models[0]).eye_height_m
                ends.setdefault(eye, []).append((float(a.to.x), float(a.to.y)))
        if not ends:
            return
        shooters: dict[float, list[tuple[float, float]]] = {}
        reach = 0.0
        for e in view.units.values():
            if e.side == side or not rules._in_play(e):
                continue
            for m in e.models:
                t = rules.team(m)
                w = direct_weapon(t)
                if w is not None and isinstance(m.position, Point):
                    shooters.setdefault(t.eye_height_m, []).append(_xy(m.position))
                    reach = max(reach, w.range_in * rules.scale)
        for eye, pts in shooters.items():
            for tgt, where in ends.items():
                rules.sight.warm(pts, where, eye, tgt, max_range_m=reach)

    def _threat(
        self, rules: Any, view: Any, uid: str, at: tuple[float, float] | None = None
    ) -> float:
        """Expected hits the enemy teams in range and in sight could score on
        platoon ``uid`` if its command team stood at ``at`` (default: where it
        is), with the platoon's to-be-hit score there (Concealed in cover)."""
        u = view.units[uid]
        lead = u.models[0]
        here = _xy(lead.position)
        where = at or here
        eye = rules.team(lead).eye_height_m
        base = TO_BE_HIT[str(u.attrs["skill"])]
        concealed = concealed_in(str(rules.map.terrain_at(*where)))
        total = 0.0
        for e in view.units.values():
            if e.side == u.side or not rules._in_play(e):
                continue
            moved = bool(e.attrs.get("moved"))
            for m in e.models:
                if m.attrs.get("bailed") or m.attrs.get("bogged"):
                    continue
                t = rules.team(m)
                w = direct_weapon(t)
                if w is None or not isinstance(m.position, Point):
                    continue
                a = _xy(m.position)
                d = math.dist(a, where)
                if d > w.range_in * rules.scale:
                    continue
                if not rules.sight.sees(a, where, t.eye_height_m, eye):
                    continue
                rof = (w.rof_moving or 1) if moved else (w.rof or 0)
                score = needed(
                    base,
                    int(d > LONG_RANGE_IN * rules.scale) + int(concealed),
                )
                total += rof * float(p_success(score))
        return total

    def _punch(self, rules: Any, view: Any, uid: str) -> float:
        """Expected hits platoon ``uid`` could score now on its best target."""
        u = view.units[uid]
        best = 0.0
        for t in view.units.values():
            if t.side == u.side or not rules._in_play(t):
                continue
            plan = rules.shot_plan(view, u, t)
            best = max(
                best, sum(s.dice * float(p_success(s.to_hit)) for s in plan.shooters)
            )
        return best

    def _outgunned(self, rules: Any, view: Any, uid: str) -> bool:
        """In cover, and the enemy outshoots it there (module docstring)."""
        u = view.units.get(uid)
        if u is None or u.side is None or not u.models:
            return False
        if not isinstance(u.models[0].position, Point):
            return False
        here = _xy(u.models[0].position)
        if not concealed_in(str(rules.map.terrain_at(*here))):
            return False
        threat = self._threat(rules, view, uid)
        return threat > 0 and threat > OUTGUNNED * self._punch(rules, view, uid)

    def _double(
        self, rules: Any, view: Any, a: AtTheDouble, side: str, outgunned: bool
    ) -> float:
        """At the Double: the doctrine's score of the same move, a little less,
        and never to within the platoon's direct range of an enemy team (it
        would give up its shots and be shot at with double dice, §2.3)."""
        u = view.units[a.unit]
        ranges = [w.range_in for m in u.models if (w := direct_weapon(rules.team(m)))]
        if _enemy_within(
            rules, view, side, a.to, max(ranges, default=0.0) * rules.scale
        ):
            return -1.0
        move = Move(a.unit, a.to, a.column)
        return self._move(rules, view, move, side, outgunned) - DOUBLE_COST

    # -- assault ---------------------------------------------------------------- #
    def _assault(self, rules: Any, view: Any, a: Assault, losses: float = 0.0) -> float:
        """Assault when the odds favour it: the greedy player's expected teams
        destroyed (only if more teams charge than the target has), less the
        defensive fire the platoon would meet (the enemy's expected hits on it
        where it stands; five stop the charge, research §4), more if the target
        holds or contests an objective; ``losses``: the target's expected
        losses before it (the platoon's shot at ROF 1)."""
        score = self._greedy._assault(rules, view, a, losses)
        if score < 0:
            return score
        fire = self._threat(rules, view, a.unit)
        if fire >= DEFENSIVE_FIRE_STOPS:
            return -1.0
        t = view.units[a.target]
        reach = OBJECTIVE_IN * rules.scale
        on_goal = any(
            math.dist(_xy(m.position), _xy(p)) <= reach
            for p, _ in rules.objectives.values()
            for m in t.models
            if isinstance(m.position, Point)
        )
        return score - EXPOSURE * fire + (COVER if on_goal else 0.0)

    def _assault_after(self, rules: Any, view: Any, a: Shoot) -> float:
        """The best doctrine assault score open to ``a``'s platoon (0 if none
        is worth making)."""
        u = view.units[a.unit]
        kills, _ = self._greedy.shot_odds(rules, view, a)
        return max(
            [
                self._assault(
                    rules, view, Assault(a.unit, t.id), kills if t.id == a.target else 0
                )
                for t in view.units.values()
                if t.side != u.side and rules._in_play(t)
            ]
            + [0.0]
        )

    def _consolidate(self, rules: Any, view: Any, a: Consolidate, side: str) -> float:
        """The winner's consolidation (module docstring)."""
        u = view.units[a.unit]
        here = _xy(u.position)
        end = here if a.to is None else (float(a.to.x), float(a.to.y))
        cover = COVER if concealed_in(str(rules.map.terrain_at(*end))) else 0.0
        exposed = EXPOSURE * self._threat(rules, view, a.unit, end)
        gain = 0.0
        goals = [
            p
            for name, (p, _) in rules.objectives.items()
            if view.control.get(name) != side
        ]
        attack = (rules.scenario.posture(side) or "attack") != "defend"
        if a.to is not None and goals and attack:
            at = Point(*here)
            goal = min(goals, key=lambda p: _route_m(rules, view, at, p))
            gain = (
                _route_m(rules, view, at, goal) - _route_m(rules, view, a.to, goal)
            ) / 100.0
        hold = NEXT_SCORE if a.to is None else 0.0
        return gain + cover - exposed + hold

    # -- movement --------------------------------------------------------------- #
    def _move(
        self, rules: Any, view: Any, a: Move, side: str, outgunned: bool
    ) -> float:
        u = view.units[a.unit]
        here = u.position
        assert isinstance(here, Point)
        if is_company_command(u):
            return self._escort(rules, view, a, side)
        if unsafe_for_passengers(rules, view, a.unit, side, a.to):
            return -1.0  # not into assault reach with passengers aboard
        into_cover = concealed_in(str(rules.map.terrain_at(a.to.x, a.to.y)))
        end_cover = COVER if into_cover else 0.0
        back = empty_transport_move(rules, view, a.unit, side, a.to, end_cover)
        if back is not None:
            return back  # an empty transport keeps out of the fight
        if a.unit not in self._battery:
            self._battery[a.unit] = can_bombard(rules, view, a.unit)
        if self._battery[a.unit]:
            return -1.0  # a battery with a target its spotter sees stays to fire
        goals = [
            p
            for name, (p, _) in rules.objectives.items()
            if view.control.get(name) != side
        ]
        gain = 0.0
        if goals:
            goal = min(goals, key=lambda p: _route_m(rules, view, here, p))
            gain = (
                _route_m(rules, view, here, goal) - _route_m(rules, view, a.to, goal)
            ) / 100.0
        end = (float(a.to.x), float(a.to.y))
        cover = COVER if concealed_in(str(rules.map.terrain_at(*end))) else 0.0
        if (rules.scenario.posture(side) or "attack") == "defend":
            return cover if cover and gain > 0 else -1.0
        if outgunned:  # stay in cover: go to ground
            return -HOLD
        exposed = EXPOSURE * self._threat(rules, view, a.unit, end)
        return gain + cover - exposed - OUT_OF_COMMAND * _strays(rules, view, a)

    def _escort(self, rules: Any, view: Any, a: Move, side: str) -> float:
        """The company command team keeps with the nearest infantry platoon of
        its side, so that the platoon re-rolls its failed Motivation tests
        (hq.py): closing on its command team scores, ending within the
        platoon's command distance scores most, cover and exposure as for any
        move.  ASSUMPTION: the doctrine's own rule (no source says where a
        company commander stands)."""
        u = view.units[a.unit]
        here = u.position
        assert isinstance(here, Point)
        wards = [
            o
            for o in view.units.values()
            if o.side == side
            and o.id != u.id
            and not is_company_command(o)
            and rules._in_play(o)
            and o.models
            and isinstance(o.models[0].position, Point)
            and not rules._is_tank(o)
        ]
        end = (float(a.to.x), float(a.to.y))
        cover = COVER if concealed_in(str(rules.map.terrain_at(*end))) else 0.0
        exposed = EXPOSURE * self._threat(rules, view, a.unit, end)
        if not wards:
            return cover - exposed - HOLD

        def gap(o: Any, x: float, y: float) -> float:
            p = o.models[0].position
            return math.hypot(float(p.x) - x, float(p.y) - y)

        ward = min(wards, key=lambda o: gap(o, float(here.x), float(here.y)))
        reach = command_radius_m(str(ward.attrs["skill"]), False, rules.scale)
        before, after = gap(ward, float(here.x), float(here.y)), gap(ward, *end)
        joined = ESCORT_JOINED if after <= reach else 0.0
        return (before - after) / 100.0 + joined + cover - exposed
