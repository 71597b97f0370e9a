"""Бронепехота 2008: grenades (§7.8) and blast weapons (§7.4 IV), optional
rules ``grenades`` and ``blasts`` (:mod:`.options`).

* A blast (§7.4 IV): a hit by a weapon with "взрыв: N шг. - XДY" on its sheet
  attacks every soldier and machine, friend or foe, within N steps of the
  target with the blast dice, each resolved on its own: power dice against
  armour, a damaged machine's pilot testing survival (§7.4 II-III).
* A grenade (§7.8): instead of his personal weapon an infantryman throws one
  at a target; Д6 is how many steps toward the target it bursts, and all
  within 1 step of the burst take 1Д20 (the grenade's blast).  A 1 catches the
  thrower himself.

ASSUMPTIONS (docs, numbered):

* "within N steps" is measured from the blast's centre to the nearest edge of
  a figure's base, exactly N included;
* the target of a blast weapon takes the shot's own power dice and not the
  blast's too: the blast is for the others around it;
* the blast dice face bare armour: Table 5's cover is what a shooter sees, and
  the blast comes from the centre;
* a blast catches the figures at the level of its centre: one on the ground
  spares a flier in the air, a flier's own hit spares those on the ground; a
  grenade is thrown only at a figure on the ground;
* a grenade is thrown under the conditions of a shot (§7.3): a target in the
  front half-circle, at least partly seen, the thrower touching no enemy; it
  is his one shot this turn (§7.6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from wargame.engine import (
    Action,
    GameState,
    IllegalActionError,
    Point,
    RuleContext,
    var_change,
)
from wargame.engine.points import distance

from .actions import Fig, angle_off
from .shooting import (
    GRENADE_BLAST,
    GRENADE_RANGE,
    Blast,
    damage_from,
    grenade_burst,
    in_blast,
)
from .table import Table

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import BronepehotaRuleset

__all__ = ["GRENADE_OFFER_STEPS", "Grenades", "Throw"]

#: ASSUMPTION: a throw is offered at enemies within 6 steps and a half (a Д6
#: burst at 6 reaches them); any other target is accepted too.
GRENADE_OFFER_STEPS = 6.5


@dataclass(frozen=True)
class Throw(Action):
    """Infantryman ``soldier`` of ``unit`` throws a grenade at the enemy figure
    ``target_soldier`` of ``target`` (§7.8, option ``grenades``)."""

    type = "throw"
    unit: str
    soldier: str
    target: str
    target_soldier: str


class Grenades(Table):
    """Grenades and blasts (the module docstring)."""

    options: frozenset[str]

    def _rs(self) -> BronepehotaRuleset:
        return cast("BronepehotaRuleset", self)

    def throw_problem(
        self, state: GameState, f: Fig, tid: str, tmid: str
    ) -> str | None:
        """Why figure ``f`` may not throw a grenade at ``tmid`` (``None``: it may)."""
        if "grenades" not in self.options:
            return "§7.8: grenades are an optional rule this scenario does not play"
        if f.machine is not None:
            return "§7.8: only infantrymen throw grenades"
        try:
            t = self.fig(state, tid, tmid)
        except IllegalActionError as exc:
            return str(exc)
        if t.unit.side == f.unit.side:
            return f"{tmid} is a friend"
        if t.airborne:
            return f"§7.8: {tmid} is in the air (ASSUMPTION: grenades hit the ground)"
        a, b = self._pos(f), self._pos(t)
        if self._touching(state, f.unit.side, a, f.model.radius_m):
            return f"§7.3: {f.model.id} touches an enemy (in melee) and may not throw"
        if angle_off(f.model.facing, a, b) > 90.0 + 1e-9:
            return f"§7.3: {tmid} is outside {f.model.id}'s field of view (behind)"
        if self.visible_part(f, t) == 0.0:
            return f"§7.3: {f.model.id} cannot see {tmid} (no line of fire)"
        return None

    def throw_actions(self, state: GameState, f: Fig) -> list[Action]:
        """The throws offered to infantryman ``f`` (enemies within
        :data:`GRENADE_OFFER_STEPS`)."""
        if "grenades" not in self.options or f.machine is not None:
            return []
        try:
            self._rs()._turn_to_act(state, f.unit.id, f.model.id, "shoot")
        except IllegalActionError:
            return []
        a = self._pos(f)
        out: list[Action] = []
        for e in self._figures(state):
            if e.unit.side == f.unit.side:
                continue
            if distance(a, self._pos(e)) > GRENADE_OFFER_STEPS * self.step_m:
                continue
            if self.throw_problem(state, f, e.unit.id, e.model.id) is None:
                out.append(Throw(f.unit.id, f.model.id, e.unit.id, e.model.id))
        return out

    def check_throw(self, state: GameState, action: Throw) -> None:
        """Raise :class:`IllegalActionError` unless ``action`` is legal now."""
        f = self._rs()._turn_to_act(state, action.unit, action.soldier, "shoot")
        why = self.throw_problem(state, f, action.target, action.target_soldier)
        if why is not None:
            raise IllegalActionError(f"{f.model.id} cannot throw a grenade: {why}")

    def burst_point(self, a: Point, b: Point, face: int) -> Point:
        """Where a grenade from ``a`` at ``b`` bursts on a Д6 of ``face`` (§7.8)."""
        s = self.step_m
        x, y = grenade_burst((a.x / s, a.y / s), (b.x / s, b.y / s), face)
        return Point(round(x * s, 2), round(y * s, 2))

    def caught(
        self, state: GameState, centre: Point, blast: Blast, *, airborne: bool
    ) -> list[Fig]:
        """The figures a blast at ``centre`` attacks (§7.4 IV, §7.8), nearest first."""
        out = []
        for g in self._figures(state):
            if g.airborne != airborne:
                continue
            edge = max(0.0, distance(centre, self._pos(g)) - g.model.radius_m)
            if in_blast(edge / self.step_m, blast):
                out.append(g)
        return sorted(out, key=lambda g: distance(centre, self._pos(g)))

    def _throw(self, ctx: RuleContext, side: str, action: Throw) -> None:
        """§7.8: the throw, the Д6 burst point and the blast there."""
        rs = self._rs()
        st = ctx.state
        ch, did = rs._begin(st, action.unit, action.soldier)
        f = self.fig(st, action.unit, action.soldier)
        t = self.fig(st, action.target, action.target_soldier)
        a, b = self._pos(f), self._pos(t)
        ctx.emit(
            "grenade",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            point_from=a,
            point_to=b,
            changes=ch + var_change(did=[*did, "shoot"]),
            detail=f"grenade at {distance(a, b) / self.step_m:.2f} steps",
        )
        face = ctx.roll(
            1,
            sides=GRENADE_RANGE.sides,
            kind="range",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            detail="grenade: steps toward the target",
        )[0]
        self._blast(ctx, side, f.unit.id, self.burst_point(a, b, face), GRENADE_BLAST)
        self._actor_gone(ctx, side, f.unit.id)

    def _actor_gone(self, ctx: RuleContext, side: str, uid: str) -> None:
        """The acting unit wiped out by its own blast is done (§3.2)."""
        if ctx.state.units[uid].destroyed and ctx.state.vars.get("active") == uid:
            self._rs()._end_unit(ctx, side, uid)

    def _blast(
        self,
        ctx: RuleContext,
        side: str,
        uid: str,
        centre: Point,
        blast: Blast,
        *,
        airborne: bool = False,
        spare: str | None = None,
    ) -> None:
        """Every figure within the blast takes its dice, one by one (§7.4 II-IV);
        ``spare``: the shot's target (it took the shot's own power)."""
        rs = self._rs()
        hit = [
            g
            for g in self.caught(ctx.state, centre, blast, airborne=airborne)
            if g.model.id != spare
        ]
        ctx.emit(
            "blast",
            side=side,
            unit=uid,
            point_to=centre,
            hits=len(hit),
            result=f"{blast}: {len(hit)} caught",
        )
        for g in hit:
            now = ctx.state
            try:
                t = self.fig(now, g.unit.id, g.model.id)
            except IllegalActionError:
                continue  # already gone (a pilot on foot of a machine destroyed)
            armour = t.armour
            pf = ctx.roll(
                blast.power.count,
                sides=blast.power.sides,
                kind="power",
                side=side,
                unit=uid,
                target=t.model.id,
                needed=armour + 1,
                detail=f"blast {blast.power}",
            )
            dmg = damage_from(blast.power, pf, armour)
            if t.machine is None or dmg == 0:
                ctx.emit(
                    "shot",
                    side=side,
                    unit=uid,
                    target=t.model.id,
                    point_from=centre,
                    point_to=self._pos(t),
                    hits=dmg,
                    result="destroyed by the blast"
                    if dmg
                    else f"armour {armour} holds",
                    changes=rs._kill(now, t.unit.id, t.model.id) if dmg else (),
                )
            else:
                rs._hurt_machine(ctx, side, t, dmg, "shot")

    def after_hit(
        self, ctx: RuleContext, side: str, f: Fig, weapon: str, at: Point, t: Fig
    ) -> None:
        """§7.4 IV: a hit by a blast weapon (option ``blasts``) blasts round ``at``."""
        if "blasts" not in self.options or f.machine is None:
            return
        w = self._weapon(f, weapon)
        if w is None or w.blast is None:
            return
        self._blast(
            ctx, side, f.unit.id, at, w.blast, airborne=t.airborne, spare=t.model.id
        )
        self._actor_gone(ctx, side, f.unit.id)
