"""Бронепехота 2008: pilots getting out of their machines and soldiers taking
pilotless ones (official rules §4.3, §9.1; seed 002 §1.6, §2.3, §3.2 note 3).

* A machine without a pilot — he got out or was killed — freezes where it is:
  it neither moves nor shoots (seed §1.6, §4.2-4.3) and defends in melee with
  its armour alone (Table 6).
* A pilot moves once a turn, like any infantryman: with his machine (that is
  the machine's move) or out of it on foot, never both (§4.3).  Getting out,
  his figure is set down touching the machine; a flier lands first, on the
  spot, which its lost pilot makes it do anyway (§4.3).
* The first player to bring an infantryman into contact with a pilotless
  machine may make him its pilot if his rank is at least the machine's (§9.1
  and its note, §2.3).  The machine's armlist passes to that player with the
  durability and ammunition tracks as they are; it is his unit and fights from
  the next turn (§9.1).  The new pilot leaves his squad (§3.2 note 3).

ASSUMPTIONS where the text is silent (numbered on the docs page, 28-36):

* getting out is the pilot's move: a machine that has moved this turn cannot
  be left this turn, and one that has shot can (§4.3 forbids two moves only);
* the pilot out walks at most his Ск from the point where he was set down,
  touching the machine, and does nothing more this turn; his own squad takes
  him back (a squad wiped out comes back with him alone);
* leaving ends the machine's unit's turn (a pilotless machine cannot act);
* a machine touched by an enemy infantryman cannot be boarded: he was first
  (as §9.2 says of guns);
* boarding ends the soldier's acts this turn; the machine, even his own side's,
  fights from the next turn (§9.1's "next turn" for every boarding).

Guns and their capture (§9.2) are in :mod:`.guns`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from wargame.engine import (
    GameState,
    IllegalActionError,
    Model,
    Point,
    unit_change,
)
from wargame.engine.points import bearing, check_on_map, distance, offset

from .actions import Fig
from .damage import can_pilot
from .shooting import spend_ammo
from .table import CONTACT_TOL_STEPS, Table

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import BronepehotaRuleset


class Crew(Table):
    """Pilots getting out and soldiers boarding (the module docstring)."""

    # -- who, where --------------------------------------------------------- #
    @staticmethod
    def home_squad(pilot_id: str) -> str:
        """The squad a pilot came from: his figure id is ``<squad id>.<n>``
        (§3.2 note 3; the scenario's ``pilot``)."""
        return pilot_id.rpartition(".")[0]

    def machine_model(self, state: GameState, uid: str) -> Model | None:
        """The machine figure of unit ``uid`` on the map, if it is one."""
        u = state.units.get(uid)
        if u is None or u.destroyed or u.type not in self.arm.machines:
            return None
        return next(
            (
                m
                for m in u.models
                if m.kind == "machine" and isinstance(m.position, Point)
            ),
            None,
        )

    def _pilot_on_foot(self, f: Fig, at: Point, facing: float | None) -> Model:
        pilot = f.unit.attrs["pilot"]
        return Model(
            pilot["id"],
            "soldier",
            position=at,
            facing=facing,
            radius_m=self.radius_m,
            attrs={"squad": pilot["squad"], "n": pilot["n"]},
        )

    def _set_down_problem(
        self, state: GameState, at: Point, f: Fig, r: float
    ) -> str | None:
        """Why a soldier's base cannot be set down at ``at`` beside machine ``f``."""
        try:
            check_on_map(at, self.map, "to")
        except ValueError as exc:
            return str(exc)
        if str(self.map.terrain_at([at.x], [at.y])[0]) == "water":
            return "§4.1 (map): the point is in water, deeper than a step"
        for o in self._figures(state):
            if o.model.id == f.model.id or o.airborne:
                continue
            p = self._pos(o)
            if distance(p, at) < r + o.model.radius_m - 1e-6:
                return f"the base would stand on {o.model.id} at ({p.x:.1f}, {p.y:.1f})"
        return None

    def leave_problem(
        self,
        state: GameState,
        f: Fig,
        to: Point,
        facing: float | None = None,
        did: tuple[str, ...] = (),
    ) -> str | None:
        """Why the pilot of machine figure ``f`` may not get out and go to ``to``
        (``None``: he may); ``did``: the machine's acts this turn."""
        if f.machine is None or f.soldier is None:
            return f"§4.3: {f.model.id} is not a machine with a pilot"
        if "move" in did:  # ASSUMPTION: getting out is the pilot's one move
            return (
                f"§4.3: {f.unit.id} has moved this turn; its pilot moves once a "
                "turn, with the machine or on foot, never both"
            )
        centre = self._pos(f)
        touch = f.model.radius_m + self.radius_m
        d = distance(centre, to)
        tol = CONTACT_TOL_STEPS * self.step_m
        if d < touch - 1e-6:
            return (
                f"§4.3: ({to.x:.1f}, {to.y:.1f}) is under the machine; the pilot "
                f"is set down touching it, {touch / self.step_m:.2f} steps from "
                "its centre"
            )
        k = touch / d
        out = Point(centre.x + (to.x - centre.x) * k, centre.y + (to.y - centre.y) * k)
        why = self._set_down_problem(state, out, f, self.radius_m)
        if why is not None:
            return f"§4.3: set down at ({out.x:.1f}, {out.y:.1f}): {why}"
        if d <= touch + tol:
            return None
        # ASSUMPTION: he walks on from where he was set down, as an infantryman
        walker = self._fig(
            state.units[self.home_squad(f.unit.attrs["pilot"]["id"])],
            self._pilot_on_foot(f, out, facing),
        )
        why = cast("BronepehotaRuleset", self).move_problem(state, walker, to, facing)
        return None if why is None else f"§4.3, then on foot: {why}"

    def board_problem(self, state: GameState, f: Fig, machine: str) -> str | None:
        """Why figure ``f`` may not board the machine of unit ``machine``
        (``None``: he may)."""
        if f.machine is not None or f.soldier is None:
            return (
                f"§9.1: only an infantryman boards a machine; {f.model.id} is a machine"
            )
        m = self.machine_model(state, machine)
        if m is None:
            return f"§9.1: {machine!r} is not a machine on the map"
        t = self._fig(state.units[machine], m)
        assert t.machine is not None
        if t.soldier is not None:
            return (
                f"§9.1: {machine} has a pilot "
                f"({state.units[machine].attrs['pilot']['id']}); only a pilotless "
                "machine can be boarded"
            )
        a, b = self._pos(f), self._pos(t)
        gap = distance(a, b) - f.model.radius_m - m.radius_m
        if gap > CONTACT_TOL_STEPS * self.step_m:
            return (
                f"§9.1: {f.model.id} at ({a.x:.1f}, {a.y:.1f}) does not touch "
                f"{machine} at ({b.x:.1f}, {b.y:.1f}) ({gap / self.step_m:.2f} steps "
                "between the bases)"
            )
        if not can_pilot(f.soldier.rank, t.machine.rank):
            return (
                f"§9.1 note, §2.3: {f.model.id} has rank {f.soldier.rank}, below "
                f"{t.machine.name}'s rank {t.machine.rank}"
            )
        first = [
            e
            for e in self._touching(state, f.unit.side, b, m.radius_m)
            if e.machine is None
        ]
        if first:  # ASSUMPTION: the enemy touching it was first (as §9.2)
            return (
                f"§9.1: enemy infantryman {first[0].model.id} touches {machine}; "
                "he was first"
            )
        return None

    def can_fight(self, state: GameState, f: Fig) -> bool:
        """Whether machine ``f`` still has a weapon to fight with: a ranged one
        with ammunition for a shot (§7.7) or a melee weapon (Table 6)."""
        for key in f.unit.attrs.get("loadout", ()):
            w = self._weapon(f, key)
            if w is None:
                continue
            if w.melee:
                return True
            if w.power is None:
                continue
            if not self.limited_ammo:
                return True
            try:
                spend_ammo(int(f.unit.attrs["ammo"]), w.power)
            except IllegalActionError:
                continue
            return True
        return False

    def leave_points(self, state: GameState, f: Fig) -> list[Point]:
        """Where the AI and the views offer a pilot to get out: touching the
        machine on the side away from the nearest enemy, else behind it, to
        its right or left (a sample; any legal point is accepted)."""
        centre = self._pos(f)
        enemies = [e for e in self._figures(state) if e.unit.side != f.unit.side]
        heads: list[float] = []
        if enemies:
            near = min(enemies, key=lambda e: distance(centre, self._pos(e)))
            heads.append((bearing(self._pos(near), centre)) % 360.0)
        face = f.model.facing or 0.0
        heads += [(face + d) % 360.0 for d in (180.0, 90.0, 270.0)]
        touch = f.model.radius_m + self.radius_m + 0.01
        for h in heads:
            p = offset(centre, h, touch)
            p = Point(round(p.x, 2), round(p.y, 2))
            if self.leave_problem(state, f, p) is None:
                return [p]
        return []

    # -- the changes -------------------------------------------------------- #
    def leave_changes(
        self, state: GameState, f: Fig, to: Point, facing: float | None
    ) -> tuple[tuple[Any, ...], Model]:
        """§4.3: the machine pilotless, the pilot on foot at ``to`` back in his
        squad (which comes back if it was wiped out); his figure."""
        a = self._pos(f)
        face = facing if facing is not None else bearing(a, to)
        man = self._pilot_on_foot(f, to, round(face % 360.0, 1))
        home = state.units[self.home_squad(man.id)]
        models = (*home.models, man)
        ch = unit_change(f.unit.id, pilot=None)
        ch += unit_change(home.id, models=models, position=models[0].position)
        if home.destroyed:
            ch += unit_change(home.id, strength="full")
        return ch, man

    def board_changes(self, state: GameState, f: Fig, machine: str) -> tuple[Any, ...]:
        """§9.1: ``f`` out of his squad, the machine's pilot; an enemy machine
        passes to his side (its tracks untouched); it fights next turn."""
        src = f.unit
        left = tuple(x for x in src.models if x.id != f.model.id)
        ch = unit_change(src.id, models=left)
        if left:
            ch += unit_change(src.id, position=left[0].position)
        else:
            ch += unit_change(src.id, strength="destroyed")
        pilot = {
            "id": f.model.id,
            "squad": str(f.model.attrs["squad"]),
            "n": int(f.model.attrs["n"]),
        }
        ch += unit_change(machine, pilot=pilot, acted=True)
        if state.units[machine].side != src.side:
            ch += unit_change(machine, side=src.side, formation=src.formation)
        return ch
