"""Loading, transporting and unloading units, and towing (CoH 2e §14.5,
§16-17; research/coh.md §1.9).

* A vehicle carries one foot unit or tows one gun; a German Rifle and an LMG
  may ride together, being one squad (§17.0).  Every vehicle may transport
  (``can_transport``).
* **Load** / **Unload** are group actions of the vehicle and the units getting
  on or off, in the vehicle's hex, costing those units' open-ground move cost
  (§17.0; fig. 28: a PaK38 unloads for 4 AP).  Units with a marker that stops
  their moves (Pinned, Stunned) do not load or unload under their own power.
  Unloaded units face the way their owner chooses (default: the vehicle's).
* Transported units (attr ``carried_by``, the vehicle's id; always in its hex)
  move and face with the vehicle, which pays its own move cost with all its
  bonus moves (:mod:`.movement`), as a group: riders not yet spent take part
  in the move's payment (:meth:`Vehicles.with_riders`); they may not fire,
  pivot, hide or move on their own (:meth:`Vehicles.vehicle_action_problem`).
* Fire at the vehicle's hex rolls against each unit in it: transported units at
  their flank DR with the hex's DM, and +2 DM on an APC (§16.1, §17.1).  Units
  of a destroyed vehicle are set down in its hex facing its way (§17.1), once
  the attack is over (so they keep the APC's +2 for it).
* Towing (§14.5): a vehicle may take an immobilised or stunned vehicle of its
  side in tow with a Load action (wheeled ones by any vehicle, tracked ones by
  tracked vehicles only, which then make no bonus moves); a vehicle
  immobilised by terrain that is unhooked outside "!" terrain may move again;
  one immobilised by a hit marker stays so.
* A firefight may set riders up on their vehicles: ``carried_by`` (the
  vehicle's id) instead of a position; riders of a reinforcement vehicle enter
  with it.
* ASSUMPTION: riders are ground units of their hex for control (§2.5.2): a
  truck carrying a squad claims what the squad would.

Examples:
    >>> from wargame.engine import Game
    >>> g = Game.from_scenario("coh_tanks_ridge", seed=1)
    >>> [u.attrs.get("carried_by") for u in g.state.units.values()
    ...  if u.type == "su_rifles_41"]
    ['su-t34-1', 'su-t34-2']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from wargame.engine import GameState, RuleContext, Unit, unit_change
from wargame.engine.scenario import shown

from ._core import Mixin
from .actions import Load, Unload

__all__ = ["SQUAD_PAIR", "Transport", "capacity_problem"]

#: The German Rifle and LMG ride together: one squad (CoH 2e §17.0).
SQUAD_PAIR = ("de_lmg34", "de_rifles_41")


def capacity_problem(carrier: Any, loads: Sequence[Any]) -> str | None:
    """Why a vehicle of type ``carrier`` may not carry unit types ``loads``
    together (``None``: it may, CoH 2e §14.5, §17.0).

    >>> from wargame.rules.coh.catalog import unit_type
    >>> truck, rifle = unit_type("de_opel_blitz"), unit_type("de_rifles_41")
    >>> capacity_problem(truck, [rifle, unit_type("de_lmg34")]) is None
    True
    >>> capacity_problem(truck, [rifle, rifle])  # doctest: +ELLIPSIS
    'a vehicle carries one foot unit or tows one gun...'
    """
    if carrier.kind != "vehicle" or not carrier.can_transport:
        return f"{carrier.name} does not transport units (§17.0)"
    towed = [t for t in loads if t.kind == "vehicle"]
    if towed:
        # ASSUMPTION: a vehicle in tow is the towing vehicle's one load.
        if len(loads) > 1:
            return "a vehicle in tow is the whole load (§14.5, §17.0)"
        if towed[0].mobility == "tracked" and carrier.mobility != "tracked":
            return "only tracked vehicles tow tracked vehicles (§14.5)"
        return None
    if len(loads) <= 1 or tuple(sorted(t.id for t in loads)) == SQUAD_PAIR:
        return None
    return (
        "a vehicle carries one foot unit or tows one gun (a German Rifle and an "
        "LMG together) (§17.0)"
    )


class Transport(Mixin):
    """Mixin: Load, Unload, riders at set-up and units of destroyed vehicles."""

    board: Any
    specs: dict[str, Any]
    riders: dict[str, str]

    # -- set-up ------------------------------------------------------------- #
    def read_riders(self) -> list[str]:
        """Riders of the firefight (``carried_by``), checked (problem lines)."""
        s = self.scenario
        problems: list[str] = []
        self.riders = {}
        loads: dict[str, list[Any]] = {}
        for i, raw in enumerate(s.units):
            vid = raw.get("carried_by")
            uid = str(raw.get("id"))
            if vid is None or uid not in self.specs:
                continue
            where = f"units[{i}].carried_by"
            sp, v = self.specs[uid], self.specs.get(str(vid))
            why: str | None = None
            if v is None:
                why = f"{shown(vid)} is not a unit of this firefight"
            elif v.side != sp.side or v.id == uid:
                why = f"{shown(vid)} is not another unit of {sp.side}"
            elif sp.type.kind != "foot":
                why = "only foot units and guns ride at set-up (§17.0)"
            elif sp.hidden:
                why = "a rider is not hidden (seed 003 §10.0 #2)"
            else:
                why = capacity_problem(v.type, [*loads.get(v.id, []), sp.type])
            if why is not None or v is None:
                problems.append(s.problem(where, str(why)))
                continue
            loads.setdefault(v.id, []).append(sp.type)
            self.riders[uid] = v.id
            self.specs[uid] = replace(sp, hex=v.hex, facing=v.facing)
        return problems

    # -- shared ----------------------------------------------------------- #
    def _open_cost(self, u: Unit) -> int:
        """The unit's move cost on open ground (§17.0): printed cost plus its
        marker's move AP.  ASSUMPTION: a vehicle in tow costs its printed move
        cost to hook up or unhook."""
        base = int(self.specs[u.id].type.move_cost)
        if self.is_vehicle(u.id):
            return base
        m = self.marker(u)
        return base + (int(m.move_ap) if m is not None else 0)

    def towable(self, u: Unit) -> bool:
        """An immobilised or stunned vehicle may be towed (§14.5).

        ASSUMPTION: only those: the rule names no other vehicle in tow."""
        if not self.is_vehicle(u.id):
            return False
        m = self.marker(u)
        return bool(u.attrs.get("immobilised")) or (m is not None and m.no_move)

    def _group(
        self, state: GameState, side: str, ids: Sequence[str], verb: str
    ) -> tuple[str | None, Unit | None, list[Unit]]:
        if len(ids) < 2:
            return f"name the vehicle, then the units that {verb}", None, []
        if len(set(ids)) != len(ids):
            return "a unit is named twice", None, []
        us = [state.units.get(x) for x in ids]
        if any(u is None or u.side != side or u.destroyed or u.hex is None for u in us):
            return f"{side} {verb}s only its own units on the map", None, []
        v, riders = us[0], us[1:]
        assert v is not None
        if not self.is_vehicle(v.id) or not self.specs[v.id].type.can_transport:
            return f"{v.name} is not a vehicle that transports (§17.0)", None, []
        m = self.marker(v)
        # ASSUMPTION: a Stunned vehicle takes no part in a group action (§15.2).
        if m is not None and m.rally_only:
            return (
                f"{v.name} is {m.name}: it takes no action but rally (§15.2)",
                None,
                [],
            )
        return None, v, [r for r in riders if r is not None]

    def _own_power(self, r: Unit, verb: str) -> str | None:
        m = self.marker(r)
        if not self.is_vehicle(r.id) and m is not None and (m.no_move or m.rally_only):
            return (
                f"{r.name} is {m.name}: it may not {verb} under its own power (§17.0)"
            )
        return None

    # -- legality --------------------------------------------------------- #
    def load_problem(
        self, state: GameState, side: str, a: Load
    ) -> tuple[str | None, int]:
        """Why a load is illegal (``None``) and its AP cost (§17.0, §14.5)."""
        why, v, riders = self._group(state, side, a.units, "load")
        if why is not None or v is None:
            return why, 0
        if v.attrs.get("carried_by"):
            return f"{v.name} is itself transported", 0
        for r in riders:
            if r.hex != v.hex:
                return f"{r.name} is not in {v.name}'s hex {v.hex} (§17.0)", 0
            if r.attrs.get("carried_by"):
                return f"{r.name} is transported already", 0
            if self.cargo(state, r.id):
                return f"{r.name} carries units itself", 0
            if self.is_vehicle(r.id) and not self.towable(r):
                return (
                    f"{r.name} may be towed only when immobilised or stunned (§14.5)",
                    0,
                )
            why = self._own_power(r, "load")
            if why:
                return why, 0
        have = [self.specs[x.id].type for x in self.cargo(state, v.id)]
        why = capacity_problem(
            self.specs[v.id].type, have + [self.specs[r.id].type for r in riders]
        )
        if why:
            return why, 0
        return None, max(self._open_cost(r) for r in riders)

    def unload_problem(
        self, state: GameState, side: str, a: Unload
    ) -> tuple[str | None, int]:
        """Why an unload is illegal (``None``) and its AP cost (§17.0)."""
        if a.facing is not None and not (
            isinstance(a.facing, int) and 0 <= a.facing <= 5
        ):
            return f"facing {a.facing!r} is not a hexside 0-5 (§5.1)", 0
        why, v, riders = self._group(state, side, a.units, "unload")
        if why is not None or v is None:
            return why, 0
        for r in riders:
            if r.attrs.get("carried_by") != v.id:
                return f"{r.name} is not on {v.name}", 0
            why = self._own_power(r, "unload")
            if why:
                return why, 0
        return None, max(self._open_cost(r) for r in riders)

    def transport_options(self, state: GameState, side: str, pays: Any) -> list[Any]:
        """Each load of one unit (or the German squad pair, or a tow) onto each
        vehicle in its hex, and each unload of one or all of a vehicle's units."""
        out: list[Any] = []
        mine = [
            u
            for u in state.units.values()
            if u.side == side and not u.destroyed and u.hex is not None
        ]
        for v in mine:
            if not self.is_vehicle(v.id) or v.attrs.get("carried_by"):
                continue
            on = self.cargo(state, v.id)
            if on:
                cands_u: list[tuple[str, ...]] = [(v.id, r.id) for r in on]
                if len(on) > 1:
                    cands_u.append((v.id, *sorted(r.id for r in on)))
                for ids in cands_u:
                    out += self._offer(state, side, pays, Unload, ids)
            here = [
                u
                for u in mine
                if u.hex == v.hex and u.id != v.id and not u.attrs.get("carried_by")
            ]
            cands: list[tuple[str, ...]] = [(v.id, u.id) for u in here]
            lmgs = sorted(u.id for u in here if u.type == SQUAD_PAIR[0])
            rifles = sorted(u.id for u in here if u.type == SQUAD_PAIR[1])
            if lmgs and rifles and not on:
                cands.append((v.id, *sorted((lmgs[0], rifles[0]))))
            for ids in cands:
                out += self._offer(state, side, pays, Load, ids)
        return out

    def _offer(
        self, state: GameState, side: str, pays: Any, cls: Any, ids: tuple[str, ...]
    ) -> list[Any]:
        fn = self.load_problem if cls is Load else self.unload_problem
        problem, cost = fn(state, side, cls(ids))
        if problem is not None:
            return []
        return [
            cls(ids, pay)
            for pay in pays(state, side, ids)
            if self.pay_problem(state, side, ids, pay, cost) is None
        ]

    # -- resolution ------------------------------------------------------- #
    def do_transport(self, ctx: RuleContext, side: str, a: Load | Unload) -> None:
        """Pay, then put the units on (or take them off) the vehicle."""
        st = ctx.state
        if isinstance(a, Load):
            problem, cost = self.load_problem(st, side, a)
        else:
            problem, cost = self.unload_problem(st, side, a)
        assert problem is None, problem
        self.reveal_actors(ctx, a.units, "loads" if isinstance(a, Load) else "unloads")
        self.pay(ctx, side, a.units, a.pay, cost, a.type)
        v = st.units[a.units[0]]
        for rid in a.units[1:]:
            r = st.units[rid]
            if isinstance(a, Load):
                tow = self.is_vehicle(rid)
                ctx.emit(
                    "load",
                    side=side,
                    unit=rid,
                    target=v.id,
                    hex_to=v.hex,
                    detail=f"{r.name} "
                    + ("is taken in tow (§14.5)" if tow else "gets on (§17.0)"),
                    changes=unit_change(rid, carried_by=v.id, facing=v.facing),
                )
            else:
                face = a.facing if a.facing is not None else v.facing
                self._set_down(ctx, r, v, face, "gets off (§17.0)")

    def _set_down(
        self, ctx: RuleContext, r: Unit, v: Unit, facing: int | None, why: str
    ) -> None:
        ch = unit_change(r.id, carried_by=None, facing=facing)
        # ASSUMPTION: "towed out of the immobilising terrain" = unhooked in a
        # hex without "!"; a hit marker's immobilisation stays (§14.5).
        if (
            r.attrs.get("immobilised") == "terrain"
            and v.hex is not None
            and not self.board.immobilisation_check(v.hex)
        ):
            ch += unit_change(r.id, immobilised=None)
            why += "; towed out of the bad ground, it may move again (§14.5)"
        ctx.emit(
            "unload",
            side=r.side,
            unit=r.id,
            target=v.id,
            hex_to=v.hex,
            detail=f"{r.name} {why}",
            changes=ch,
        )

    def settle_cargo(self, ctx: RuleContext) -> None:
        """Units of a destroyed vehicle are set down facing its way (§17.1)."""
        st = ctx.state
        for r in list(st.units.values()):
            by = r.attrs.get("carried_by")
            if not by or r.destroyed:
                continue
            v = st.units.get(str(by))
            if v is not None and v.destroyed:
                self._set_down(ctx, r, v, v.facing, "survives its vehicle (§17.1)")
