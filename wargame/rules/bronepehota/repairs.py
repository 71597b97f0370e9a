"""Бронепехота 2008: repair by infantry (official rules §9.3; research §4).

(Named ``repairs`` so as not to shadow :func:`.damage.repair`, which the
package exports as ``repair``.)

* A soldier with Рм in his Св repairs a machine or a gun he touches, one
  damage a turn: its durability slider goes one cell back up (§9.3).
* Not while an enemy infantryman or machine touches him or the object
  (§9.3).
* Repairing takes the whole turn of the soldier: it is instead of his move,
  shot and melee, so a soldier who has done anything this turn — walked up to
  the object, say — repairs only next turn (§9.3 and its example).
* A pilot with Рм repairs his own machine from inside; the machine, with
  him, skips its turn (§9.3).
* Never above the top of the track (§9.3 note 1); a destroyed object is off
  the table and cannot be repaired (§9.3 note 2).

ASSUMPTION (docs page, 46): only his own side's machines and guns (an enemy's
is a target; a pilotless one can be boarded first, §9.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from wargame.engine import (
    Action,
    GameState,
    RuleContext,
    unit_change,
    var_change,
)
from wargame.engine.points import distance

from .actions import Fig
from .damage import repair
from .table import CONTACT_TOL_STEPS, Table

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import BronepehotaRuleset

#: What a repair uses up: every act of the soldier's turn (§9.3).
ALL_ACTS = ("move", "shoot", "gun", "melee", "board", "capture", "repair")


@dataclass(frozen=True)
class Repair(Action):
    """Soldier ``soldier`` of ``unit`` repairs one damage of the machine or
    gun ``target`` (a unit id) he touches, instead of all his acts (§9.3); a
    pilot names his machine's unit and model and the machine as ``target``."""

    type = "repair"
    unit: str
    soldier: str
    target: str


class Repairs(Table):
    """Repair by soldiers with Рм (the module docstring)."""

    def _object(self, state: GameState, uid: str) -> Fig | None:
        """The machine or gun of unit ``uid`` on the map."""
        u = state.units.get(uid)
        if u is None or u.destroyed or "durability" not in u.attrs:
            return None
        for m in u.models:
            if m.kind in ("machine", "gun") and hasattr(m.position, "x"):
                return self._fig(u, m)
        return None

    def _enemy_contact(self, state: GameState, side: str, f: Fig) -> list[Fig]:
        """Enemy infantrymen and machines touching figure ``f`` (§9.3)."""
        return [
            e
            for e in self._touching(state, side, self._pos(f), f.model.radius_m)
            if e.gun is None
        ]

    def repair_problem(self, state: GameState, f: Fig, target: str) -> str | None:
        """Why figure ``f`` (a soldier, or a pilot in his machine) may not
        repair ``target`` now (``None``: he may)."""
        who = f.soldier
        if who is None:
            return f"§9.3: {f.model.id} has no soldier to repair with"
        if not who.repairs:
            return f"§9.3: {f.model.id} has no Рм (repair) in his Св"
        t = self._object(state, target)
        if t is None:
            return f"§9.3: {target!r} is not a machine or gun on the map"
        if t.unit.side != f.unit.side:  # ASSUMPTION: his side's only
            return f"§9.3: {target} is the enemy's"
        if f.machine is not None and t.unit.id != f.unit.id:
            return f"§9.3: a pilot repairs only his own machine, not {target}"
        if f.infantry:
            gap = (
                distance(self._pos(f), self._pos(t))
                - f.model.radius_m
                - t.model.radius_m
            )
            if gap > CONTACT_TOL_STEPS * self.step_m:
                return (
                    f"§9.3: {f.model.id} does not touch {target} "
                    f"({gap / self.step_m:.2f} steps between them)"
                )
        gear = t.machine or t.gun
        top = 0 if gear is None else gear.durability_max
        if int(t.unit.attrs["durability"]) >= top:
            return f"§9.3 note 1: {target} is at the top of its track ({top})"
        for x in (f, t):
            near = self._enemy_contact(state, f.unit.side, x)
            if near:
                return f"§9.3: enemy {near[0].model.id} touches {x.model.id}"
        did = (
            tuple(state.vars.get("did", ()))
            if state.vars.get("current") == f.model.id
            else ()
        )
        if did:
            return (
                f"§9.3: {f.model.id} has acted this turn ({', '.join(did)}); a "
                "repair takes all his acts, so he repairs next turn"
            )
        return None

    def repair_actions(self, state: GameState, f: Fig) -> list[Action]:
        """The repairs figure ``f`` may make now (offered to the players)."""
        if f.soldier is None or not f.soldier.repairs:
            return []
        if f.machine is not None:
            ids = [f.unit.id]
        else:
            ids = [
                o.unit.id
                for o in self._figures(state)
                if (o.machine is not None or o.gun is not None)
                and o.unit.side == f.unit.side
            ]
        return [
            Repair(f.unit.id, f.model.id, uid)
            for uid in ids
            if self.repair_problem(state, f, uid) is None
        ]

    def apply_repair(self, ctx: RuleContext, side: str, action: Repair) -> None:
        """§9.3: one cell back up the track; the soldier's turn is over (a
        pilot's machine skips its turn)."""
        rules = cast("BronepehotaRuleset", self)
        st = ctx.state
        ch, _ = rules._begin(st, action.unit, action.soldier)
        t = self._object(st, action.target)
        assert t is not None
        gear = t.machine or t.gun
        assert gear is not None
        cell = repair(int(t.unit.attrs["durability"]), gear.durability_max)
        ctx.emit(
            "repair",
            side=side,
            unit=action.unit,
            target=t.model.id,
            result=f"{action.soldier} repairs {action.target}: durability {cell}",
            changes=ch
            + unit_change(t.unit.id, durability=cell)
            + var_change(did=list(ALL_ACTS)),
        )
        if st.units[action.unit].type in self.arm.machines:
            rules._end_unit(ctx, side, action.unit)
