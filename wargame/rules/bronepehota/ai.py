"""AI players for Бронепехота 2008: greedy and doctrine.

Both decide from their side's view (:attr:`Decision.view`) and the rule
system's public helpers (:meth:`~.table.Table.shot_dice`,
:meth:`~.table.Table.melee_strength`, :meth:`~.table.Table.visible_part`), with
the exact odds of :mod:`.odds`:

* **Shoot**: the expected value of the shot from :func:`~.odds.shot_pmf` (range
  roll, power dice against armour + Table 5 cover, §7.4): a soldier is worth
  :data:`SOLDIER_VALUE` when any damage kills him (§5.1); a machine
  :data:`MACHINE_VALUE` spread over its durability track, plus its pilot's
  chance to fail the survival test (Д6 above his Бр, §7.4 III) worth
  :data:`PILOT_VALUE`.
* **Move into contact** (a melee, §4.1 note, §8): P(win) from
  :func:`~.odds.melee_pmf` times the value of what it wins (a soldier, or the
  margin in damages to a machine, Table 7); a repelled attacker loses nothing.
* **Move**: steps gained toward the nearest objective its side does not hold,
  plus a bonus for ending in woods or a built-up area (the ground that hides a
  figure, Table 5).
* **Board** a pilotless machine (§9.1): the machine's worth,
  :data:`MACHINE_VALUE` times the part of its track left; a move that ends
  touching one the figure may board earns half of that.
* **Leave** (§4.3, offered only for a machine with nothing left to fight
  with): :data:`LEAVE_SCORE`, above ending the unit, so its pilot fights on
  foot.
* **Guns** (:mod:`.guns`): a shot with a gun is valued like any shot, with
  the gun's dice; a gun hit is worth :data:`GUN_VALUE` spread over its track;
  capturing an enemy gun is worth the part of its track left times
  :data:`GUN_VALUE`; a move that ends touching an unmanned gun of its side
  the soldier could fire earns :data:`CREW_BONUS`; a move with a mobile gun
  is valued as the soldier's move to where he ends.
* **Repair** (§9.3): one cell of the object's track, at its value.
* **EndSquad**: a small fixed score, so a figure with nothing worth doing
  stays.

:class:`DoctrinePolicy` plays the same odds with the doctrine of the research
notes' missions (research/bronepehota.md §5): it uses cover (more weight on
it), focuses fire on the weakest or most dangerous enemy (a bonus for a squad
with few soldiers left, a machine low on its track, a machine's weapons), keeps
pilots alive (a machine whose durability cell is in the lowest third backs off
from the nearest enemy and never charges), keeps a gun's crew at the gun (a
move that leaves a gun the soldier mans costs :data:`CREW_BONUS`), takes
objectives (a figure on an objective it holds stays there) and charges only at
even odds or better.

ASSUMPTION: the weights (:data:`SOLDIER_VALUE` ... :data:`HOLD_BONUS`) are a
choice, measured only by the balance runs (docs page, "Balance").  Ties are
broken by a tiny jitter from the game seed and the decision number, so the
same seed gives the same game.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from wargame.engine import Point
from wargame.engine.points import distance
from wargame.engine.policy import Decision, ScoredPolicy, tie_break

from .actions import Board, EndSquad, Fig, Leave, Move, Shoot, angle_off
from .ai_options import AIMED_COST, throw_value
from .dice import Dice
from .guns import Capture, MoveGun
from .melee import soldier_defence
from .odds import melee_pmf, shot_pmf
from .optional import AimedShot, Throw
from .repairs import Repair
from .shooting import visibility_of
from .table import CONTACT_TOL_STEPS, COVER, GUN_KEY, HOLD_STEPS

__all__ = ["DoctrinePolicy", "GreedyPolicy"]

#: ASSUMPTION: a soldier killed is worth 1.
SOLDIER_VALUE = 1.0
#: ASSUMPTION: a machine destroyed is worth four soldiers.
MACHINE_VALUE = 4.0
#: ASSUMPTION: a pilot killed (his machine frozen, §4.3) is worth three soldiers.
PILOT_VALUE = 3.0
#: The score of ending the unit's action (an act must beat it).
END_SCORE = 0.02
#: ASSUMPTION: a pilot getting out of a machine with nothing to fight with.
LEAVE_SCORE = 0.05
#: ASSUMPTION: a gun destroyed (or taken) is worth two soldiers.
GUN_VALUE = 2.0
#: ASSUMPTION: a soldier ending a move at an unmanned gun of his side he can
#: fire; doctrine: what leaving a gun he mans costs.
CREW_BONUS = 0.4
#: Value of a step gained toward an objective not held.
STEP_VALUE = 0.03
#: Value of ending a move in woods or a built-up area.
COVER_BONUS = 0.1
#: Doctrine: ending on (within 2 steps of) an objective; leaving one held.
HOLD_BONUS = 0.6
#: Doctrine: a machine backs off when its cell is in this lowest part of the track.
BACK_OFF_PART = 1 / 3
#: Ground classes that hide a figure (Table 5 by the map).
COVER_GROUND = ("woods", "town")


def _survival_death(armour: int) -> float:
    """P(a pilot of Бр ``armour`` dies in his Д6 survival test), §7.4 III."""
    return max(0, 6 - armour) / 6


class GreedyPolicy(ScoredPolicy):
    """The action with the best expected result now (module docstring)."""

    cover_weight = 1.0
    doctrine = False

    def choose(self, decision: Decision) -> Any:
        """:meth:`ScoredPolicy.choose` (the same scores, order and tie-breaks),
        with the view only read while its actions are scored, so that the
        rules answer questions about it once (issue 23, speed of play)."""
        acts = list(decision.legal_actions)
        rules = decision.rules
        if rules is None or decision.view is None or not hasattr(rules, "reading"):
            return super().choose(decision)
        view = decision.view()
        best, best_score = acts[0], float("-inf")
        with rules.reading(view):
            for i, a in enumerate(acts):
                score = self.score(rules, view, a, decision.side)
                score += tie_break(decision, i)
                if score > best_score:
                    best, best_score = a, score
        return best

    def score(self, rules: Any, view: Any, a: Any, side: str) -> float:
        """The score of one legal action of ``side`` in its ``view``."""
        if isinstance(a, Throw):  # §7.8 (ai_options.py)
            return throw_value(
                rules,
                view,
                a,
                side,
                self._value_of_damage,
                lambda t: self._focus(rules, view, t),
            )
        if isinstance(a, Shoot):
            return self._shot(rules, view, a)
        if isinstance(a, Move):
            return self._move(rules, view, a, side)
        if isinstance(a, Board):
            return self._board(rules, view, a.machine)
        if isinstance(a, Leave):
            return LEAVE_SCORE
        if isinstance(a, Capture):
            g = rules.gun_fig(view, a.gun)
            if g is None:
                return 0.0
            return float(GUN_VALUE * g.armour / g.gun.durability_max)
        if isinstance(a, MoveGun):
            return self._move_gun(rules, view, a, side)
        if isinstance(a, Repair):
            t = rules._object(view, a.target)
            if t is None:
                return 0.0
            gear = t.machine or t.gun
            worth = MACHINE_VALUE if t.machine is not None else GUN_VALUE
            return float(worth / gear.durability_max)
        if isinstance(a, EndSquad):
            return END_SCORE
        return 0.0

    def _board(self, rules: Any, view: Any, machine: str) -> float:
        """What taking the pilotless machine ``machine`` is worth (§9.1)."""
        m = rules.machine_model(view, machine)
        if m is None:
            return 0.0
        t = rules.fig(view, machine, m.id)
        return float(MACHINE_VALUE * t.armour / t.machine.durability_max)

    def _board_prospect(self, rules: Any, view: Any, f: Fig, to: Point) -> float:
        """Half the worth of a pilotless machine a move to ``to`` touches and
        ``f`` could board (§9.1); the boarding itself is the next act."""
        if f.machine is not None or f.soldier is None:
            return 0.0
        tol = CONTACT_TOL_STEPS * rules.step_m
        best = 0.0
        for o in rules.figures_of(view):
            if o.machine is None or o.soldier is not None:
                continue
            gap = distance(rules.position(o), to) - f.model.radius_m - o.model.radius_m
            if gap <= tol and f.soldier.rank >= o.machine.rank:
                best = max(best, 0.5 * self._board(rules, view, o.unit.id))
        return best

    def _move_gun(self, rules: Any, view: Any, a: MoveGun, side: str) -> float:
        """A move with a mobile gun: the soldier's move to where he ends."""
        f = rules.fig(view, a.unit, a.soldier)
        g = rules.gun_fig(view, a.gun)
        if g is None:
            return 0.0
        c, gp = rules._contact(f, g), rules.position(g)
        end = Point(c.x + a.to.x - gp.x, c.y + a.to.y - gp.y)
        score = self._move(rules, view, Move(a.unit, a.soldier, end, a.facing), side)
        if self.doctrine and f.model.id in rules.crew_of(view, g):
            score += CREW_BONUS  # he goes with the gun, he does not leave it
        return score

    def _gun_prospect(self, rules: Any, view: Any, f: Fig, to: Point) -> float:
        """:data:`CREW_BONUS` if a move to ``to`` ends touching an unmanned gun
        of the soldier's side that he could fire (§7.5)."""
        if not f.infantry or f.soldier is None:
            return 0.0
        for g in rules.guns_at(view, to, f.model.radius_m):
            if g.unit.side != f.unit.side or f.soldier.rank < g.gun.rank:
                continue
            crew = [c for c in rules.crew_of(view, g) if c != f.model.id]
            if not crew:
                return CREW_BONUS
        return 0.0

    # -- values ------------------------------------------------------------- #
    def _value_of_damage(self, t: Fig, pmf: tuple[Fraction, ...]) -> float:
        """Expected value of a damage distribution on figure ``t``."""
        p_any = float(1 - pmf[0])
        if t.gun is not None:  # a gun's track (§5.1), no pilot
            dmg = sum(min(k, t.armour) * float(p) for k, p in enumerate(pmf))
            return GUN_VALUE * dmg / t.gun.durability_max
        if t.machine is None:
            return SOLDIER_VALUE * p_any
        cell = t.armour
        dmg = sum(min(k, cell) * float(p) for k, p in enumerate(pmf))
        value = MACHINE_VALUE * dmg / t.machine.durability_max
        if t.soldier is not None:
            value += PILOT_VALUE * p_any * _survival_death(t.soldier.armour)
        return value

    def _focus(self, rules: Any, view: Any, t: Fig) -> float:
        """Doctrine's weight on a target (1 for the greedy player)."""
        return 1.0

    def _shot(self, rules: Any, view: Any, a: Shoot) -> float:
        f = rules.fig(view, a.unit, a.soldier)
        t = rules.fig(view, a.target, a.target_soldier)
        if a.weapon.startswith(GUN_KEY):  # a soldier with a gun (§7.5)
            dice = rules.gun_shot_dice(view, a.weapon)
        else:
            dice = rules.shot_dice(f, a.weapon)
        if dice is None:
            return 0.0
        rng, power = dice
        steps = distance(rules.position(f), rules.position(t)) / rules.step_m
        cover = COVER.get(visibility_of(rules.visible_part(f, t)))
        if cover is None:
            return 0.0
        aimed = isinstance(a, AimedShot)  # §11.1: range doubled, no move
        pmf = shot_pmf(rng, steps, power, t.armour, cover=cover, aimed=aimed)
        v = self._value_of_damage(t, pmf) * self._focus(rules, view, t)
        return v - AIMED_COST if aimed else v

    def _melee(self, rules: Any, f: Fig, t: Fig, at: Point) -> float:
        """Expected value of the melee ``f`` starts by touching ``t`` at ``at``."""
        b = rules.position(t)
        surprise = t.gun is None and angle_off(t.model.facing, b, at) > 90.0
        attack = rules.melee_strength(f)
        if not isinstance(attack, Dice):
            return 0.0
        if t.infantry:
            assert t.soldier is not None
            defence: Dice | int = soldier_defence(t.soldier.armour)
        else:
            defence = rules.melee_strength(t, surprised=surprise)
        pmf = melee_pmf(attack, defence, surprise=surprise)
        p_win = float(1 - pmf.get(0, Fraction(0)))
        if self.doctrine and p_win < 0.5:
            return -1.0
        if t.gun is not None:  # Table 7: the difference in damages
            dmg = sum(min(k, t.armour) * float(p) for k, p in pmf.items())
            return GUN_VALUE * dmg / t.gun.durability_max
        if t.machine is None:
            return SOLDIER_VALUE * p_win
        dmg = sum(min(k, t.armour) * float(p) for k, p in pmf.items())
        value = MACHINE_VALUE * dmg / t.machine.durability_max
        if t.soldier is not None:
            value += PILOT_VALUE * p_win * _survival_death(t.soldier.armour)
        return value * self._focus_melee(t)

    def _focus_melee(self, t: Fig) -> float:
        return 1.0

    def _move(self, rules: Any, view: Any, a: Move, side: str) -> float:
        f = rules.fig(view, a.unit, a.soldier)
        start, to = rules.position(f), a.to
        enemies = [
            e for e in rules.figures_of(view) if e.unit.side != side and not e.airborne
        ]
        if not f.airborne:
            tol = CONTACT_TOL_STEPS * rules.step_m
            touched = [
                e
                for e in enemies
                if distance(rules.position(e), to)
                <= f.model.radius_m + e.model.radius_m + tol
            ]
            if touched:
                t = min(touched, key=lambda e: distance(rules.position(e), to))
                return self._melee(rules, f, t, to) + self._board_prospect(
                    rules, view, f, to
                )
        held = rules.objective_control(view)
        goals = [p for k, (p, _) in rules.objectives.items() if held.get(k) != side]
        score = 0.0
        if goals:
            g = min(goals, key=lambda p: distance(start, p))
            score += STEP_VALUE * (distance(start, g) - distance(to, g)) / rules.step_m
        ground = rules.ground_at(to)
        if ground in COVER_GROUND:
            score += COVER_BONUS * self.cover_weight
        score += self._board_prospect(rules, view, f, to)
        score += self._gun_prospect(rules, view, f, to)
        return score + self._doctrine_move(rules, view, f, to, side, enemies)

    def _doctrine_move(
        self, rules: Any, view: Any, f: Fig, to: Point, side: str, enemies: list[Fig]
    ) -> float:
        return 0.0


class DoctrinePolicy(GreedyPolicy):
    """The greedy odds played with doctrine (module docstring)."""

    cover_weight = 3.0
    doctrine = True

    def _focus(self, rules: Any, view: Any, t: Fig) -> float:
        """Finish the weakest, strike the most dangerous: a squad with few
        soldiers left, a machine low on its track or carrying many weapons."""
        if t.gun is not None:  # a gun that fires at us
            return 1.2 + 0.3 * bool(rules.crew_of(view, t))
        if t.machine is None:
            left = sum(m.kind == "soldier" for m in t.unit.models)
            return 1.0 + 0.5 * (1 - left / 6)
        low = 1 - t.armour / t.machine.durability_max
        guns = len(t.unit.attrs.get("loadout", ()))
        return 1.2 + 0.5 * low + 0.1 * guns

    def _focus_melee(self, t: Fig) -> float:
        return 1.2 if t.machine is not None else 1.0

    def _doctrine_move(
        self, rules: Any, view: Any, f: Fig, to: Point, side: str, enemies: list[Fig]
    ) -> float:
        start = rules.position(f)
        score = 0.0
        low = f.machine is not None and (
            f.armour <= BACK_OFF_PART * f.machine.durability_max
        )
        if low and enemies:  # keep the pilot alive: back off from the nearest
            near = min(enemies, key=lambda e: distance(rules.position(e), start))
            p = rules.position(near)
            gain = (distance(to, p) - distance(start, p)) / rules.step_m
            return 0.1 * float(gain)
        if f.infantry and f.soldier is not None:  # keep a gun's crew at it
            for g in rules.guns_at(view, start, f.model.radius_m):
                mans = g.unit.side == side and f.model.id in rules.crew_of(view, g)
                if mans and g not in rules.guns_at(view, to, f.model.radius_m):
                    score -= CREW_BONUS
        hold = HOLD_STEPS * rules.step_m
        for p, _ in rules.objectives.values():
            was, now = distance(start, p) <= hold, distance(to, p) <= hold
            if now and not was:
                score += HOLD_BONUS
            elif was and not now:
                score -= HOLD_BONUS
        return score
