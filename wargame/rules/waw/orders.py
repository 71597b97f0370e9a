"""World at War orders: which actions are legal now, and why not.

One reason function per action type (``why_not``), in game terms, and a
generator of every legal action (``legal_actions``) built from the same checks;
the tests hold the two to each other.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from wargame.engine import (
    Action,
    GameState,
    IllegalActionError,
    Unit,
)

from ._common import (
    _KIND_NAMES,
    BRIDGE_MP,
    LOAD_MP,
    STACK_LIMIT,
    _Queries,
    _Snap,
)
from .actions import (
    Activate,
    Assault,
    CallSupport,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    Hide,
    HoldSupport,
    IndirectFire,
    LayBridge,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
    RecoverBridge,
    SetMode,
)
from .catalog import (
    Mobility,
    Weapon,
)
from .combat import (
    IllegalFireError,
    check_fire_kind,
    effective_weapon,
    range_band,
)


class _Orders(_Queries):
    """Legality of actions (mixin of :class:`~.ruleset.WawRuleset`)."""

    # ------------------------------------------------------------------ #
    # legality: one reason function per action (check), mirrored by the
    # generator (legal_actions); tests hold the two to each other
    # ------------------------------------------------------------------ #
    def check(self, state: GameState, action: Action) -> None:
        """Raise :class:`IllegalActionError` saying why ``action`` is not allowed."""
        reason = self.why_not(state, action)
        if reason is not None:
            raise IllegalActionError(reason)

    def why_not(self, state: GameState, action: Action) -> str | None:
        """The reason an action is illegal now, in game terms (``None``: legal)."""
        if state.vars.get("over"):
            return "the game is over"
        handler = self._reasons.get(type(action))
        if handler is None:
            return f"{type(action).__name__} is not a World at War action"
        return handler(self, state, action)  # type: ignore[no-any-return]

    def _phase_reason(self, state: GameState, need: str) -> str | None:
        v = state.vars
        if need == "chit":
            return None if v.get("drawn") else "no formation chit awaits a decision"
        if need == "support":
            if v.get("support"):
                return None
            return "no fire support chit awaits a decision"
        if v.get("support"):
            sup = self.supports[v["support"]]
            return f"the fire support chit of {sup.name} was drawn: call or hold it"
        if v.get("drawn"):
            f = state.formations[v["drawn"]]
            return f"the chit of {f.name} was drawn: activate or defer it first"
        if need == "opp":
            return None if v.get("opp") else "there is no opportunity fire to decide"
        if v.get("opp"):
            m = state.units[v["opp"]]
            who = state.sides[self.enemy_of(m.side)].name
            return f"{who} is deciding on opportunity fire at {m.name}"
        if not v.get("active"):
            return "no formation is active"
        return None

    def _actor(self, state: GameState, uid: Any) -> tuple[Unit, str | None]:
        u = state.units.get(uid) if isinstance(uid, str) else None
        if u is None:
            return None, f"there is no unit {uid!r} in this game"  # type: ignore[return-value]
        active = state.vars.get("active")
        if u.formation != active:
            return u, (
                f"{u.name} is not in the active formation "
                f"({self._fname(state, active)})"
            )
        if u.destroyed:
            return u, f"{u.name} is destroyed"
        if u.position is None:
            return u, (
                f"{u.name} has not arrived yet (reinforcement, turn "
                f"{u.attrs.get('arrives')})"
            )
        if u.ops_complete:
            return u, f"{u.name} is Ops Complete"
        return u, None

    def _action_actor(self, state: GameState, uid: Any) -> tuple[Unit, str | None]:
        """The acting unit of the action phase, or why it cannot act."""
        r = self._phase_reason(state, "action")
        if r:
            return None, r  # type: ignore[return-value]
        return self._actor(state, uid)

    def _spotter(
        self, st: GameState, spotter: Any, side: Any
    ) -> tuple[Unit, str | None]:
        """The unit calling fire for ``side`` (before its line of sight), or why not."""
        sp = st.units.get(spotter) if isinstance(spotter, str) else None
        if sp is None:
            return None, f"there is no unit {spotter!r} in this game"  # type: ignore[return-value]
        i = self.info[sp.id]
        if sp.side != side or not (i.is_hq or i.is_recon):
            # WaW 1.3.4.3 / 1.3.4.4: HQs and recon units call the fire (mortars
            # and artillery alike).
            return (
                sp,
                f"{sp.name} cannot spot: only a friendly HQ or recon unit calls fire",
            )
        if sp.destroyed or sp.position is None or sp.carried_by is not None:
            return sp, f"{sp.name} is not on the map to spot"
        if sp.disrupted:
            return sp, f"{sp.name} is disrupted and cannot call fire"
        return sp, None

    def _terrain_text(self, h: str) -> str:
        if self.board.is_water(h):
            return "water: only at a bridge or ferry"
        return self.board.terrain[h]

    # -- chits ------------------------------------------------------------ #
    def _why_not_activate(self, state: GameState, a: Activate) -> str | None:
        r = self._phase_reason(state, "chit")
        if r:
            return r
        drawn = state.vars["drawn"]
        if a.formation != drawn:
            return (
                f"the drawn chit is {self._fname(state, drawn)}'s, not {a.formation!r}"
            )
        return None

    def _why_not_defer(self, state: GameState, a: Defer) -> str | None:
        r = self._why_not_activate(state, Activate(a.formation))
        if r:
            return r
        if a.formation in state.vars.get("deferred", ()):
            # ASSUMPTION: a formation may be deferred once per turn (the seed
            # sets no limit; this one guarantees the phase ends).
            return (
                f"{self._fname(state, a.formation)} was already deferred this turn; "
                "activate it now"
            )
        return None

    def _why_not_end(self, state: GameState, a: EndActivation) -> str | None:
        return self._phase_reason(state, "action")

    def _why_not_pass(self, state: GameState, a: Pass) -> str | None:
        return self._phase_reason(state, "opp")

    # -- movement --------------------------------------------------------- #
    def _why_not_move(self, state: GameState, a: Move) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        i = self.info[u.id]
        if i.is_hq:
            return (
                f"{u.name} is an HQ: it moves with a unit (with_hq) or on its own "
                "(move_hq)"
            )
        if u.carried_by is not None:
            c = state.units[u.carried_by]
            return f"{u.name} is aboard {c.name} and moves with it"
        if i.mobility == Mobility.NONE.value:
            return f"{u.name} cannot move by itself"
        return self._move_reason(self._snap(state), u, a.to, a.with_hq)

    def _move_reason(self, snap: _Snap, u: Unit, to: Any, with_hq: bool) -> str | None:
        st = snap.state
        if u.attrs.get("deployed"):
            return f"{u.name} has laid its bridge: take it up first"
        frm: str = u.position  # type: ignore[assignment]
        board = self.board
        if to not in board:
            return f"{to!r} is not a hex of the map"
        if to not in board.neighbors[frm]:
            return f"{to} is not adjacent to {u.name} at {frm}"
        # WaW 5.0: movement points, terrain and road costs (terrain chart);
        # deployed MTU-55 bridges (seed 000 bridge units).
        cost = self._enter_cost(st, u, frm, to)
        if cost == math.inf:
            return f"{u.name} cannot enter {to} ({self._terrain_text(to)})"
        left = self._mp(u) - self._spent(u)
        if cost > left:
            return f"{u.name} has {left:g} MP left; entering {to} costs {cost:g}"
        if snap.combat.get((to, self.enemy_of(u.side))):
            return f"{to} holds enemy units: assault it instead"
        if self.info[u.id].light_vehicle and to in st.vars.get("wrecks", ()):
            # WaW 1.3.4.2: light-armored and unarmored vehicles keep clear of
            # wreck markers (ASSUMPTION 48: they may not enter a wreck hex).
            return (
                f"{u.name} is a light-armored/unarmored vehicle and may not enter "
                f"the wreck hex {to} (WaW 1.3.4.2)"
            )
        # WaW Stacking: at most two units per hex, always.
        n = snap.count.get((to, u.side), 0) + (1 if self.info[u.id].counts else 0)
        if n > STACK_LIMIT:
            return f"stack at {to} would hold {n} units"
        acting = st.vars.get("acting")
        hq: Unit | None = None
        if with_hq:
            if acting == u.id:
                return f"{u.name} is already moving; its HQ can only join at the start"
            hq = self._hq_unit(st, u.formation)
            if hq is None or hq.destroyed or hq.position != frm:
                return f"{u.name} has no HQ of its formation in its hex ({frm})"
            if hq.ops_complete:
                return f"{hq.name} is Ops Complete"
        elif acting == u.id and st.vars.get("escort"):
            hq = st.units[st.vars["escort"]]
        if hq is not None:
            # WaW HQs: at most one HQ per hex.
            other = snap.hq.get(to)
            if other is not None and other.side == u.side and other.id != hq.id:
                return f"{to} already holds an HQ ({other.name})"
        return None

    def _why_not_move_hq(self, state: GameState, a: MoveHQ) -> str | None:
        u, r = self._action_actor(state, a.hq)
        if r:
            return r
        if not self.info[u.id].is_hq:
            return f"{u.name} is not an HQ"
        if state.vars.get("escort") == u.id:
            mover = state.units[state.vars["acting"]]
            return f"{u.name} is moving with {mover.name}"
        snap = self._snap(state)
        return self._move_hq_reason(snap, u, a.to)

    def _move_hq_reason(self, snap: _Snap, u: Unit, to: Any) -> str | None:
        # WaW HQ movement: from one friendly stack to another, within its MP.
        if not snap.combat.get((u.position, u.side)):  # type: ignore[arg-type]
            return f"{u.name} must start its move stacked with a friendly unit"
        if to not in self.board:
            return f"{to!r} is not a hex of the map"
        if to == u.position:
            return f"{u.name} is already at {to}"
        other = snap.hq.get(to)
        if other is not None:
            return f"{to} already holds an HQ ({other.name})"
        if not snap.combat.get((to, u.side)):
            return f"{u.name} must end its move with friendly units; {to} has none"
        if to not in self._hq_paths(snap, u):
            return f"{u.name} cannot reach {to} with {self._mp(u):g} MP"
        return None

    def _hq_destinations(self, snap: _Snap, hq: Unit) -> list[str]:
        here = hq.position
        if not snap.combat.get((here, hq.side)):  # type: ignore[arg-type]
            return []
        cands = sorted(
            h
            for (h, side), n in snap.combat.items()
            if side == hq.side and n and h != here and h not in snap.hq
        )
        if not cands:
            return []
        paths = self._hq_paths(snap, hq)
        return [h for h in cands if h in paths]

    # -- fire ------------------------------------------------------------- #
    def _why_not_fire(self, state: GameState, a: Fire) -> str | None:
        v = state.vars
        opp = bool(v.get("opp")) and not v.get("drawn")
        r = self._phase_reason(state, "opp" if opp else "action")
        if r:
            return r
        if opp:
            u = state.units.get(a.unit) if isinstance(a.unit, str) else None
            if u is None:
                return f"there is no unit {a.unit!r} in this game"
            mover = state.units[v["opp"]]
            if u.side == mover.side:
                who = state.sides[self.enemy_of(u.side)].name
                return (
                    f"{u.name} belongs to the moving side; opportunity fire is {who}'s"
                )
            if a.target != mover.id:
                return (
                    f"opportunity fire may only target {mover.name}, which just moved"
                )
            if u.destroyed:
                return f"{u.name} is destroyed"
            if u.position is None:
                return f"{u.name} has not arrived yet"
            if u.ops_complete:
                # WaW 6.1: units not marked Ops Complete may fire at enemy moves.
                return f"{u.name} is Ops Complete"
        else:
            u, r = self._actor(state, a.unit)
            if r:
                return r
        if self.info[u.id].is_hq:
            return f"{u.name} is an HQ: HQs do not fire, they lend leadership (with_hq)"
        if u.carried_by is not None:
            c = state.units[u.carried_by]
            return f"{u.name} is aboard {c.name}: infantry cannot fire from a carrier"
        if u.disrupted:
            # WaW 6.1: disrupted units may not fire.
            return f"{u.name} is disrupted and cannot fire"
        t = state.units.get(a.target) if isinstance(a.target, str) else None
        if t is None:
            return f"there is no unit {a.target!r} in this game"
        if t.side == u.side:
            return f"{t.name} is a friendly unit"
        if t.destroyed:
            return f"{t.name} is already destroyed"
        if t.position is None:
            return f"{t.name} has not arrived yet"
        if self.info[t.id].is_hq:
            # WaW HQ in combat: an HQ cannot be attacked directly.
            return f"{t.name} is an HQ and cannot be fired on"
        if t.carried_by is not None:
            return f"{t.name} is aboard {state.units[t.carried_by].name}: fire at it"
        moving = not opp and self._spent(u) > 0
        snap = self._snap(state)
        r = self._fire_reason(snap, u, t, a.weapon, a.with_hq, moving)
        if r or a.sw_target is None:
            return r
        return self._sw_target_reason(state, snap, u, a, moving, opp)

    def _sw_target_reason(
        self, state: GameState, snap: _Snap, u: Unit, a: Fire, moving: bool, opp: bool
    ) -> str | None:
        """WaW 1.3.5: an infantry platoon fires its SW together with its weapon.

        ASSUMPTION 45: the SW may also fire alone (``weapon="sw"``, the platoon's
        own weapon holds); either way it is the platoon's one fire action.
        """
        sw = self._sw(u)
        if sw is None:
            return f"{u.name} has no support weapon"
        if sw[0].attaches_to != "infantry":
            # WaW 1.3.5 tank SW: firing the ATGM takes the whole crew.
            return (
                f"{u.name} cannot fire its main gun and {sw[0].name} together: a "
                "tank firing its ATGM fires nothing else (WaW 1.3.5)"
            )
        if a.weapon == "sw":
            return "sw_target goes with a main weapon ('ap', 'he' or 'aa'), not 'sw'"
        t2 = state.units.get(a.sw_target) if isinstance(a.sw_target, str) else None
        if t2 is None:
            return f"there is no unit {a.sw_target!r} in this game"
        if opp and t2.id != state.vars.get("opp"):
            mover = state.units[state.vars["opp"]]
            return f"opportunity fire may only target {mover.name}"
        if t2.side == u.side:
            return f"{t2.name} is a friendly unit"
        if t2.destroyed or t2.position is None or t2.carried_by is not None:
            return f"{t2.name} cannot be fired on now"
        if self.info[t2.id].is_hq:
            return f"{t2.name} is an HQ and cannot be fired on"
        r = self._fire_reason(snap, u, t2, "sw", False, moving)
        return None if r is None else f"support weapon: {r}"

    def _fire_reason(
        self, snap: _Snap, u: Unit, t: Unit, weapon: Any, with_hq: bool, moving: bool
    ) -> str | None:
        if weapon not in _KIND_NAMES:
            return f"unknown weapon {weapon!r}: use 'ap', 'he', 'aa' or 'sw'"
        k = _KIND_NAMES[weapon]
        kind = weapon
        w: Weapon | None
        if weapon == "sw":
            # WaW 1.3.5: the attached support weapon fires as its own weapon.
            sw = self._sw(u)
            if sw is None:
                return f"{u.name} has no support weapon"
            k, kind, w = sw[0].name, sw[1], sw[2]
        else:
            w = getattr(self._side_vals(u), weapon)
        if w is None or w.fp == 0:
            return f"{u.name} has no {k} firepower"
        try:
            check_fire_kind(kind, self._target_type(t))
        except IllegalFireError as exc:
            return f"{u.name} cannot fire {k} at {t.name}: {exc}"
        if moving:
            if weapon == "sw" and self._sw(u)[0].attaches_to == "tank":  # type: ignore[index]
                # WaW 1.3.5 tank SW: the tank must be stationary to fire its ATGM
                # (ASSUMPTION 47: no MP spent this turn).
                return (
                    f"{u.name} has moved: {k} is fired only by a stationary tank "
                    "(WaW 1.3.5)"
                )
            # WaW 6.1.3: fire on the move needs underlined firepower, after at
            # most half the unit's movement points.
            if not w.fp_underlined:
                return (
                    f"{u.name} has moved and its {k} firepower is not underlined "
                    "(no fire on the move)"
                )
            mp, spent = self._mp(u), self._spent(u)
            if spent > mp / 2:
                return (
                    f"{u.name} has used {spent:g} of {mp:g} MP; fire on the move "
                    "allows at most half"
                )
        d = self.board.distance(u.position, t.position)  # type: ignore[arg-type]
        # WaW 1.3.4.5: against aircraft only AA fire keeps its whole range.
        w = effective_weapon(w, kind, self._target_type(t))
        try:
            # WaW 6.1: range counts neither hex; adjacent fire always allowed.
            range_band(
                d - 1, w.range, range_underlined=w.range_underlined, adjacent=d == 1
            )
        except IllegalFireError as exc:
            return f"{t.name} at {t.position} is out of {u.name}'s {k} range ({exc})"
        # WaW 6.1 / 7.0 (and the helicopter modes): the target must be in LOS.
        if not self._los(snap.state, u, u.position, t, t.position):  # type: ignore[arg-type]
            return f"{u.name} at {u.position} has no line of sight to {t.position}"
        if with_hq:
            return self._why_no_leader(snap, u)
        return None

    # -- assault, rally, transport --------------------------------------- #
    def _why_not_assault(self, state: GameState, a: Assault) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        if self.info[u.id].is_hq:
            return f"{u.name} is an HQ: HQs do not assault, they lend leadership"
        if u.carried_by is not None:
            return (
                f"{u.name} is aboard {state.units[u.carried_by].name}: dismount first"
            )
        if u.disrupted:
            # ASSUMPTION: disrupted units may not assault (as they may not fire).
            return f"{u.name} is disrupted and cannot assault"
        if self._side_vals(u).assault <= 0:
            return f"{u.name} has no assault dice"
        return self._assault_reason(self._snap(state), u, a.hex, a.with_hq)

    def _assault_reason(
        self, snap: _Snap, u: Unit, h: Any, with_hq: bool
    ) -> str | None:
        if h not in self.board:
            return f"{h!r} is not a hex of the map"
        if h not in self.board.neighbors[u.position]:  # type: ignore[index]
            return f"{h} is not adjacent to {u.name} at {u.position}"
        if not any(
            not self.info[x.id].is_helicopter
            for x in self._combatants(snap, h, self.enemy_of(u.side))
        ):
            # ASSUMPTION 43: helicopters are not assaulted (they fly; fire at them).
            return f"there is no enemy ground unit to assault at {h}"
        # ASSUMPTION: assaulting costs the MP of entering the defender's hex.
        cost = self._enter_cost(snap.state, u, u.position, h, assault=True)  # type: ignore[arg-type]
        if cost == math.inf:
            return f"{u.name} cannot enter {h} ({self._terrain_text(h)})"
        left = self._mp(u) - self._spent(u)
        if cost > left:
            return f"{u.name} has {left:g} MP left; assaulting into {h} costs {cost:g}"
        if with_hq:
            return self._why_no_leader(snap, u)
        return None

    def _why_not_rally(self, state: GameState, a: Rally) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        if self.info[u.id].is_hq:
            return f"{u.name} is an HQ and is never disrupted"
        if u.carried_by is not None:
            c = state.units[u.carried_by]
            return f"{u.name} rallies together with its carrier {c.name}"
        if not u.disrupted:
            return f"{u.name} is not disrupted"
        if state.vars.get("acting") == u.id:
            # ASSUMPTION: rallying is a unit's whole action.
            return f"{u.name} has already moved; rallying takes its whole action"
        return None

    def _why_not_mount(self, state: GameState, a: Mount) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        if u.carried_by is not None:
            return f"{u.name} is already aboard {state.units[u.carried_by].name}"
        if not self.info[u.id].is_infantry:
            return f"{u.name} is not infantry and cannot board a carrier"
        c = state.units.get(a.carrier) if isinstance(a.carrier, str) else None
        if c is None:
            return f"there is no unit {a.carrier!r} in this game"
        return self._mount_reason(state, u, c)

    def _mount_reason(self, state: GameState, u: Unit, c: Unit) -> str | None:
        # WaW 5.2: carriers (movement in a circle) carry one infantry platoon.
        if c.side != u.side or not self.info[c.id].is_carrier:
            return f"{c.name} is not a friendly carrier"
        if c.destroyed:
            return f"{c.name} is destroyed"
        if c.position != u.position:
            return f"{c.name} is at {c.position}, not in {u.name}'s hex {u.position}"
        p = self._passenger(state, c)
        if p is not None:
            return f"{c.name} already carries {p.name}"
        left = self._mp(c) - self._spent(c)
        if left < LOAD_MP:
            # ASSUMPTION 57: loading takes 1 MP of the carrier's movement.
            return f"{c.name} has {left:g} MP left; loading costs it {LOAD_MP:g}"
        return None

    def _why_not_dismount(self, state: GameState, a: Dismount) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        if u.carried_by is None:
            return f"{u.name} is not aboard a carrier"
        return self._dismount_reason(self._snap(state), u)

    def _dismount_reason(self, snap: _Snap, u: Unit) -> str | None:
        h: str = u.position  # type: ignore[assignment]
        if self.board.is_water(h):
            return f"{u.name} cannot dismount on the water at {h}"
        # WaW Stacking: carrier and passengers count as one; apart, as two.
        n = snap.count.get((h, u.side), 0) + 1
        if n > STACK_LIMIT:
            return f"stack at {h} would hold {n} units"
        return None

    def _why_not_indirect(self, state: GameState, a: IndirectFire) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._indirect_reason(self._snap(state), u, a.hex, a.spotter)

    def _indirect_reason(
        self, snap: _Snap, u: Unit, h: Any, spotter: Any
    ) -> str | None:
        """WaW 1.3.4.3: mortar fire at a hex seen by an HQ or a recon unit."""
        st = snap.state
        if not self.info[u.id].is_mortar:
            return f"{u.name} is not a mortar: only mortars fire indirectly"
        if u.carried_by is not None:
            return f"{u.name} is aboard {st.units[u.carried_by].name}"
        if u.disrupted:
            return f"{u.name} is disrupted and cannot fire"
        if self._spent(u) > 0:
            # ASSUMPTION 49: indirect fire needs a mortar that has not moved.
            return (
                f"{u.name} has moved this turn: mortars fire indirectly only in place"
            )
        if h not in self.board:
            return f"{h!r} is not a hex of the map"
        targets = [
            x
            for x in self._combatants(snap, h, self.enemy_of(u.side))
            if self._indirect_target(x)
        ]
        if not targets:
            return f"there is no enemy unit at {h} that mortar fire can hit"
        w = self._side_vals(u).he
        assert w is not None
        d = self.board.distance(u.position, h)  # type: ignore[arg-type]
        if d - 1 > w.range:
            # WaW 1.3.4.3: the mortar's range is underlined: a hard maximum.
            return f"{h} is beyond {u.name}'s range ({d - 1} > {w.range})"
        # WaW 1.3.4.3 / 1.3.4.4: HQs and recon units call the fire.
        sp, r = self._spotter(st, spotter, u.side)
        if r:
            return r
        if not self._los(st, sp, sp.position, targets[0], h):  # type: ignore[arg-type]
            return f"{h} is not in the line of sight of {sp.name} at {sp.position}"
        return None

    def _why_not_call(self, state: GameState, a: CallSupport) -> str | None:
        r = self._why_not_hold(state, a)
        if r:
            return r
        return self._call_reason(self._snap(state), self.supports[a.support], a)

    def _call_reason(self, snap: _Snap, sup: Any, a: CallSupport) -> str | None:
        st = snap.state
        h = a.hex
        if h not in self.board:
            return f"{h!r} is not a hex of the map"
        if a.smoke and not sup.smoke:
            return f"{sup.name} does not fire smoke"
        if a.smoke and not self._combatants(snap, h):
            # ASSUMPTION 54: smoke is laid on a hex holding units (to screen or
            # to blind them).
            return f"smoke goes on a hex with units; {h} has none"
        if not a.smoke and not self._support_targets(snap, sup, h):
            return f"there is no enemy unit at {h} that {sup.name} can hit"
        # WaW 1.3.4.4: HQs and recon units call artillery.
        sp, r = self._spotter(st, a.spotter, sup.side)
        if r:
            return r
        if not self._ground_los(st, sp.position, h):  # type: ignore[arg-type]
            return f"{h} is not in the line of sight of {sp.name} at {sp.position}"
        return None

    def _why_not_hold(
        self, state: GameState, a: HoldSupport | CallSupport
    ) -> str | None:
        # Calling the drawn chit needs what holding it needs, and more.
        r = self._phase_reason(state, "support")
        if r:
            return r
        if a.support != state.vars["support"]:
            return f"the drawn fire support chit is {state.vars['support']!r}"
        return None

    def _support_options(self, st: GameState) -> list[Action]:
        snap = self._snap(st)
        sup = self.supports[st.vars["support"]]
        spotters = [
            x
            for x in st.units.values()
            if x.side == sup.side
            and not x.destroyed
            and x.position is not None
            and x.carried_by is None
            and not x.disrupted
            and (self.info[x.id].is_hq or self.info[x.id].is_recon)
        ]
        hexes = sorted({h for (h, _side), n in snap.combat.items() if n})
        out: list[Action] = []
        for h in hexes:
            for sp in spotters:
                for smoke in (False, True) if sup.smoke else (False,):
                    a = CallSupport(sup.id, h, sp.id, smoke)
                    if self._call_reason(snap, sup, a) is None:
                        out.append(a)
        out.append(HoldSupport(sup.id))
        return out

    def _why_not_lay(self, state: GameState, a: LayBridge) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._lay_reason(u)

    def _lay_reason(self, u: Unit) -> str | None:
        # Seed 000 bridge units: the MTU-55 lays its span on a river/stream hex
        # for 2 MP.
        if not self.info[u.id].is_bridge_layer:
            return f"{u.name} is not a bridge layer"
        if u.attrs.get("deployed"):
            return f"{u.name} has already laid its bridge"
        if u.disrupted:
            # ASSUMPTION 56: a disrupted bridge layer cannot lay its bridge.
            return f"{u.name} is disrupted and cannot lay its bridge"
        h: str = u.position  # type: ignore[assignment]
        if not self._bridgeable(self.board, h):
            return (
                f"{u.name} is at {h} ({self.board.terrain[h]}), not on a river or "
                "stream hex: bridges are laid on water"
            )
        left = self._mp(u) - self._spent(u)
        if left < BRIDGE_MP:
            return f"{u.name} has {left:g} MP left; laying the bridge costs 2"
        return None

    def _why_not_recover(self, state: GameState, a: RecoverBridge) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._recover_reason(state, u)

    def _recover_reason(self, state: GameState, u: Unit) -> str | None:
        if not u.attrs.get("deployed"):
            return f"{u.name} has no bridge laid"
        if u.disrupted:
            return f"{u.name} is disrupted and cannot take its bridge up"
        others = [
            x
            for x in self._snap(state).units(u.position)  # type: ignore[arg-type]
            if x.id != u.id
        ]
        if others:
            # ASSUMPTION 56: not while units stand on the bridge.
            return f"{others[0].name} is on the bridge at {u.position}"
        left = self._mp(u) - self._spent(u)
        if left < BRIDGE_MP:
            return f"{u.name} has {left:g} MP left; taking the bridge up costs 2"
        return None

    def _why_not_hide(self, state: GameState, a: Hide) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._hide_reason(state, u)

    def _hide_reason(self, state: GameState, u: Unit) -> str | None:
        # WaW 6.1.5 hiding (procedure assumed, see _Queries._hidden).
        i = self.info[u.id]
        if i.is_hq or i.is_helicopter:
            return f"{u.name} cannot hide (HQs and helicopters do not)"
        if u.carried_by is not None:
            return f"{u.name} is aboard {state.units[u.carried_by].name}"
        if u.attrs.get("hiding"):
            return f"{u.name} is already hiding"
        if state.vars.get("acting") == u.id or self._spent(u) > 0:
            return f"{u.name} has moved this turn and cannot hide"
        h: str = u.position  # type: ignore[assignment]
        if self.board.defence_dice(h) <= 0:
            return f"{u.name} has no cover to hide in at {h} ({self.board.terrain[h]})"
        rec = self._recon_watching(state, u.side, h)
        if rec is not None:
            # WaW 1.3.4.4: units in the LOS of enemy recon cannot hide.
            return f"{u.name} is watched by {rec.name} and cannot hide (WaW 1.3.4.4)"
        return None

    def _why_not_set_mode(self, state: GameState, a: SetMode) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._set_mode_reason(u, a.mode)

    def _set_mode_reason(self, u: Unit, mode: Any) -> str | None:
        # WaW 9.0 (seed 000 Helicopters): two modes, one per side of the counter.
        if not self.info[u.id].is_helicopter:
            return f"{u.name} is not a helicopter: only helicopters have modes"
        if mode not in ("low", "high"):
            return f"unknown mode {mode!r}: use 'low' or 'high'"
        if u.attrs.get("mode", "low") == mode:
            return f"{u.name} is already in {mode} mode"
        if u.attrs.get("mode_set"):
            # ASSUMPTION 42: one change of mode per activation.
            return f"{u.name} has already changed mode this turn"
        return None

    _reasons: ClassVar[dict[type[Action], Any]] = {
        Activate: _why_not_activate,
        Defer: _why_not_defer,
        EndActivation: _why_not_end,
        Pass: _why_not_pass,
        Move: _why_not_move,
        MoveHQ: _why_not_move_hq,
        Fire: _why_not_fire,
        Assault: _why_not_assault,
        Rally: _why_not_rally,
        Mount: _why_not_mount,
        Dismount: _why_not_dismount,
        SetMode: _why_not_set_mode,
        IndirectFire: _why_not_indirect,
        Hide: _why_not_hide,
        CallSupport: _why_not_call,
        HoldSupport: _why_not_hold,
        LayBridge: _why_not_lay,
        RecoverBridge: _why_not_recover,
    }

    def _indirect_options(
        self, snap: _Snap, u: Unit, targets: list[Unit]
    ) -> list[Action]:
        st = snap.state
        spotters = [
            x
            for x in st.units.values()
            if x.side == u.side
            and not x.destroyed
            and x.position is not None
            and x.carried_by is None
            and not x.disrupted
            and (self.info[x.id].is_hq or self.info[x.id].is_recon)
        ]
        hexes = sorted({t.position for t in targets})  # type: ignore[type-var]
        out: list[Action] = []
        for h in hexes:
            for sp in spotters:
                if self._indirect_reason(snap, u, h, sp.id) is None:
                    out.append(IndirectFire(u.id, h, sp.id))  # type: ignore[arg-type]
        return out

    # -- the generator ---------------------------------------------------- #
    def legal_actions(self, state: GameState) -> list[Action]:
        """Every legal action of the side to decide, in a stable order."""
        v = state.vars
        if v.get("over"):
            return []
        if v.get("drawn"):
            f = v["drawn"]
            acts: list[Action] = [Activate(f)]
            if f not in v.get("deferred", ()):
                acts.append(Defer(f))
            return acts
        if v.get("support"):
            return self._support_options(state)
        if v.get("opp"):
            snap = self._snap(state)
            return [*self._opp_fire_options(snap, state.units[v["opp"]]), Pass()]
        if v.get("active"):
            return self._unit_actions(state)
        return []

    def _unit_actions(self, st: GameState) -> list[Action]:
        snap = self._snap(st)
        v = st.vars
        fid = v["active"]
        acting = v.get("acting")
        escort = v.get("escort")
        enemy = self.enemy_of(st.formations[fid].side)
        targets = [
            u
            for u in st.units.values()
            if u.side == enemy
            and not u.destroyed
            and u.position is not None
            and u.carried_by is None
            and u.id not in self.hq_ids
        ]
        out: list[Action] = []
        for uid in self.members[fid]:
            u = st.units[uid]
            if u.destroyed or u.ops_complete or u.position is None:
                continue
            i = self.info[uid]
            if i.is_hq:
                if escort != uid:
                    out += [MoveHQ(uid, h) for h in self._hq_destinations(snap, u)]
                continue
            if u.carried_by is not None:
                if self._dismount_reason(snap, u) is None:
                    out.append(Dismount(uid))
                continue
            here: str = u.position  # type: ignore[assignment]
            nbs = self.board.neighbors[here]
            if self._hide_reason(st, u) is None:
                out.append(Hide(uid))
            if i.is_bridge_layer:
                if self._lay_reason(u) is None:
                    out.append(LayBridge(uid))
                if self._recover_reason(st, u) is None:
                    out.append(RecoverBridge(uid))
            if i.is_mortar and not u.disrupted and self._spent(u) == 0:
                out += self._indirect_options(snap, u, targets)
            if i.is_helicopter:
                for mode in ("low", "high"):
                    if self._set_mode_reason(u, mode) is None:
                        out.append(SetMode(uid, mode))
            if i.mobility != Mobility.NONE.value:
                hq = snap.hq.get(here)
                may_escort = (
                    acting != uid
                    and hq is not None
                    and hq.formation == fid
                    and hq.id == st.formations[fid].hq
                    and not hq.ops_complete
                )
                for nb in nbs:
                    if self._move_reason(snap, u, nb, False) is None:
                        out.append(Move(uid, nb))
                        if may_escort and self._move_reason(snap, u, nb, True) is None:
                            out.append(Move(uid, nb, True))
            if not u.disrupted:
                out += self._fire_options(snap, u, targets, moving=self._spent(u) > 0)
                if self._side_vals(u).assault > 0:
                    lead = self._leader(snap, u) is not None
                    for nb in nbs:
                        if self._assault_reason(snap, u, nb, False) is None:
                            out.append(Assault(uid, nb))
                            if lead:
                                out.append(Assault(uid, nb, True))
            elif acting != uid:
                out.append(Rally(uid))
            if i.is_infantry:
                for c in snap.units(here):
                    if c.id != uid and self._mount_reason(st, u, c) is None:
                        out.append(Mount(uid, c.id))
        out.append(EndActivation())
        return out
