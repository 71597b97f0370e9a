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
    STACK_LIMIT,
    _Queries,
    _Snap,
)
from .actions import (
    Activate,
    Assault,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
)
from .catalog import (
    Mobility,
    Weapon,
)
from .combat import (
    IllegalFireError,
    check_fire_kind,
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
        r = self._phase_reason(state, "action")
        if r:
            return r
        u, r = self._actor(state, a.unit)
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
        frm: str = u.position  # type: ignore[assignment]
        board = self.board
        if to not in board:
            return f"{to!r} is not a hex of the map"
        if to not in board.neighbors[frm]:
            return f"{to} is not adjacent to {u.name} at {frm}"
        # WaW 5.0: movement points, terrain and road costs (terrain chart).
        cost = board.move_cost(frm, to, self.info[u.id].mobility)
        if cost == math.inf:
            return f"{u.name} cannot enter {to} ({self._terrain_text(to)})"
        left = self._mp(u) - self._spent(u)
        if cost > left:
            return f"{u.name} has {left:g} MP left; entering {to} costs {cost:g}"
        if snap.combat.get((to, self.enemy_of(u.side))):
            return f"{to} holds enemy units: assault it instead"
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
        r = self._phase_reason(state, "action")
        if r:
            return r
        u, r = self._actor(state, a.hq)
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
        return self._fire_reason(self._snap(state), u, t, a.weapon, a.with_hq, moving)

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
        try:
            # WaW 6.1: range counts neither hex; adjacent fire always allowed.
            range_band(
                d - 1, w.range, range_underlined=w.range_underlined, adjacent=d == 1
            )
        except IllegalFireError as exc:
            return f"{t.name} at {t.position} is out of {u.name}'s {k} range ({exc})"
        # WaW 6.1 / 7.0: the target must be in line of sight.
        if d > 1 and not self.board.visible(u.position, t.position):  # type: ignore[arg-type]
            return f"{u.name} at {u.position} has no line of sight to {t.position}"
        if with_hq:
            return self._why_no_leader(snap, u)
        return None

    # -- assault, rally, transport --------------------------------------- #
    def _why_not_assault(self, state: GameState, a: Assault) -> str | None:
        r = self._phase_reason(state, "action")
        if r:
            return r
        u, r = self._actor(state, a.unit)
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
        if not snap.combat.get((h, self.enemy_of(u.side))):
            return f"there is no enemy unit to assault at {h}"
        # ASSUMPTION: assaulting costs the MP of entering the defender's hex.
        cost = self.board.move_cost(u.position, h, self.info[u.id].mobility)  # type: ignore[arg-type]
        if cost == math.inf:
            return f"{u.name} cannot enter {h} ({self._terrain_text(h)})"
        left = self._mp(u) - self._spent(u)
        if cost > left:
            return f"{u.name} has {left:g} MP left; assaulting into {h} costs {cost:g}"
        if with_hq:
            return self._why_no_leader(snap, u)
        return None

    def _why_not_rally(self, state: GameState, a: Rally) -> str | None:
        r = self._phase_reason(state, "action")
        if r:
            return r
        u, r = self._actor(state, a.unit)
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
        r = self._phase_reason(state, "action")
        if r:
            return r
        u, r = self._actor(state, a.unit)
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
        return None

    def _why_not_dismount(self, state: GameState, a: Dismount) -> str | None:
        r = self._phase_reason(state, "action")
        if r:
            return r
        u, r = self._actor(state, a.unit)
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
    }

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
