"""Pioneers and flamethrowers (CoH 2e §19.0-19.1; research/coh.md §1.11).

* A flamethrower (:class:`~.actions.Flame`) fires with 2 FP, red or blue as the
  target needs, at range 1 at most (no long range); the adjacent +3 and the
  close-combat modifier apply; it always hits the flank DR and every defence
  modifier (terrain, smoke, fortifications, elevation, hasty defence) is
  ignored.  ASSUMPTION: a hit marker's changes to the target's DR are no
  "defence modifier" and still count, as do the firer's marker FP changes.
* A hull-mounted flamethrower fires in the front arc only; a turret-mounted one
  may fire outside it for +1 AP (§19.1; the turret rule of :mod:`.fire`).
* ASSUMPTION: a flamethrower fires alone (no firegroup), and a firefight may
  take it away (``[[units]] flamethrower = false``, as Firefight 1 does).
* Pioneers' smoke is in :mod:`.mortars`; pioneers and mines in
  :mod:`.fortifications`.
"""

from __future__ import annotations

from typing import Any

from wargame.engine import GameState, Unit

from ._core import Mixin
from .actions import Fire, Flame
from .fire import FireMath
from .fire_terms import marker_dr, marker_fp, range_fp

__all__ = ["FLAME_FP", "Pioneers"]

#: A flamethrower's FP, red or blue (§19.1).
FLAME_FP = 2


class Pioneers(Mixin):
    """Mixin: flamethrower attacks."""

    board: Any
    specs: dict[str, Any]

    def has_flamethrower(self, uid: str) -> bool:
        """Whether a unit may fire a flamethrower now (the counter has one and
        the firefight has not taken it away)."""
        have = bool(self.specs[uid].type.flamethrower)
        return bool(self.unit_option(uid, "flamethrower", have))

    def flame_problem(
        self, state: GameState, side: str, a: Flame
    ) -> tuple[str | None, int]:
        """Why a flamethrower attack is illegal (``None``) and its cost."""
        if len(a.units) != 1:
            return "a flamethrower fires alone (ASSUMPTION: no firegroup)", 0
        u = state.units.get(a.units[0])
        if u is None or u.side != side or u.destroyed or u.hex is None:
            return f"{side} fires only with its own units on the map", 0
        if not self.has_flamethrower(u.id):
            return f"{u.name} has no flamethrower (CoH 2e §19.1)", 0
        if a.hex in self.board.labels and self.board.distance(u.hex, a.hex) > 1:
            return f"a flamethrower reaches 1 hex, not {a.hex} (§19.1)", 0
        fire = Fire(a.units, a.hex, a.pay, a.caps)
        problem, cost = self.fire_problem(state, side, fire)
        if problem is not None:
            return str(problem), 0
        ut = self.specs[u.id].type
        outside = (
            self.board.distance(u.hex, a.hex) == 1
            and not self.all_round(u)
            and not self.board.in_arc(u.hex, u.facing, a.hex)
        )
        if outside and ut.kind == "vehicle" and not ut.flamethrower_turret:
            return f"{u.name}'s hull flamethrower fires to the front only (§19.1)", 0
        return None, int(cost)

    def flame_math(self, leader: Unit, target: Unit, d: int) -> FireMath | None:
        """FP and DV of a flamethrower attack at distance ``d`` (§19.1): the
        fire-math building blocks of :mod:`.fire_terms` without long range
        and with every defence modifier left out."""
        ut, tt = self.specs[leader.id].type, self.specs[target.id].type
        colour = tt.dr_colour(True)
        fp = FLAME_FP
        terms = [f"flamethrower {colour} FP {FLAME_FP} (§19.1)"]
        for add, why in (
            marker_fp(self.marker(leader), colour),
            range_fp(crewed=bool(ut.crewed), reach=1, d=d, long_range=False),
        ):
            if why:
                fp += add
                terms.append(why)
        dv = int(tt.dr_flank)
        dvt = [f"flank DR {dv}"]
        mod, why = marker_dr(self.marker(target), True)
        if why:
            dv += mod
            dvt.append(why)
        dvt.append("every defence modifier ignored (§19.1)")
        return FireMath(fp, dv, True, tuple(terms), tuple(dvt))

    def flame_options(self, state: GameState, side: str) -> list[Flame]:
        """Each flamethrower at its own hex (close combat) and each adjacent
        hex with a seen or possible enemy."""
        out: list[Flame] = []
        for u in state.units.values():
            if u.side != side or u.destroyed or u.hex is None:
                continue
            if not self.has_flamethrower(u.id):
                continue
            for h in [u.hex, *self.board.neighbors(u.hex)]:
                for pay in self.pays(state, side, (u.id,)):
                    a = Flame((u.id,), h, pay)
                    if self.why_not(state, a) is None:
                        out.append(a)
        return out
