"""World at War fire: direct fire, opportunity fire, indirect (mortar) fire.

Rule sections: WaW 6.1 (who fires, range counting neither hex, LOS), 6.1.1
(weapon reach), 6.1.3 (fire on the move), 6.1.5 (hiding), 6.2 (opportunity
fire: the window and who may fire), 1.3.4.3 (mortars, indirect fire), 1.3.4.4
(recon spotting), 1.3.4.5 (AA fire), 1.3.5 (support weapons, tank ATGMs), 7.0
(LOS), HQ in combat (leadership, the stack's HQ risk roll), 5.2 (transport
losses), 1.3.4.2 (wreck markers).  The shot and hit resolution here is shared by
assault (:mod:`.assault`) and off-map support (:mod:`.support`).

The opportunity-fire window is one state variable (``OPP_VAR``), read and set
only through the helpers below.
"""

from __future__ import annotations

from typing import Any

from wargame.engine import (
    Action,
    Change,
    GameState,
    RuleContext,
    Unit,
    state_change,
    unit_change,
    var_change,
)

from ._common import (
    _ALLOWED,
    _KIND_NAMES,
    _plural,
    _Queries,
    _Snap,
    _unit_event,
    _word,
)
from .actions import (
    Fire,
    IndirectFire,
    Pass,
)
from .catalog import (
    AttackKind,
    Weapon,
)
from .combat import (
    FRESH,
    FireResult,
    HitResult,
    IllegalFireError,
    check_fire_kind,
    effective_weapon,
    range_band,
    resolve_fire,
)
from .command import hq_stack_check
from .losses import atgm_expended, transport_losses
from .unit_attrs import carried_by, disrupted, ops_complete

# --------------------------------------------------------------------------- #
# The opportunity-fire window (WaW 6.2)                                        #
# --------------------------------------------------------------------------- #
#: The state variable of the window: the id of the unit that just moved (or
#: changed mode) while the other side decides whether to fire at it.
OPP_VAR = "opp"


def opp_window(state: GameState) -> str | None:
    """The id of the unit the opportunity-fire window is open on (None: closed)."""
    return state.vars.get(OPP_VAR) or None


def open_opp_window(mover: Unit) -> tuple[Change, ...]:
    """Changes opening the window on ``mover``: the opportunity phase."""
    return var_change(**{OPP_VAR: mover.id}) + state_change(phase="opportunity")


def close_opp_window() -> tuple[Change, ...]:
    """Changes closing the window: back to the action phase."""
    return clear_opp_window() + state_change(phase="action")


def clear_opp_window() -> tuple[Change, ...]:
    """The change clearing the window (turn start, clean-up, end: phase aside)."""
    return var_change(**{OPP_VAR: None})


class _Fire(_Queries):
    """Fire of every kind (mixin of :class:`~.ruleset.WawRuleset`)."""

    # -- the opportunity-fire window ----------------------------------- #
    def _opp_mover(self, state: GameState) -> Unit | None:
        """The unit the opportunity-fire window is open on, if it is open."""
        uid = opp_window(state)
        return None if uid is None else state.units[uid]

    def _opp_side(self, state: GameState) -> str | None:
        """The side that may fire in the open window: the mover's enemy."""
        mover = self._opp_mover(state)
        return None if mover is None else self.enemy_of(mover.side)

    def _opp_fire_options(self, snap: _Snap, mover: Unit) -> list[Action]:
        """WaW 6.2: who may fire at a unit that just moved, and how."""
        if mover.destroyed or carried_by(mover) is not None:
            return []
        side = self.enemy_of(mover.side)
        out: list[Action] = []
        for u in snap.state.units.values():
            if (
                u.side != side
                or u.destroyed
                or u.position is None
                or ops_complete(u)
                or disrupted(u)
                or carried_by(u) is not None
                or u.id in self.hq_ids
            ):
                continue
            out += self._fire_options(snap, u, [mover], moving=False, opp=True)
        return out

    def _opp_window_options(self, state: GameState) -> list[Action]:
        """Every opportunity fire at the unit that just moved, then Pass."""
        snap = self._snap(state)
        mover = self._opp_mover(state)
        assert mover is not None
        return [*self._opp_fire_options(snap, mover), Pass()]

    def _offer_opportunity(self, ctx: RuleContext, mover: Unit) -> None:
        """WaW 6.2: an enemy move in LOS and range may draw opportunity fire.

        ASSUMPTION (the 6.2 text is not in the seeds): after each hex a unit
        enters, every enemy unit that is not Ops Complete, not disrupted and has it
        in LOS and range may fire at it as in 6.1 (no moving-target modifier),
        one shot at a time and each then Ops Complete, until the other side
        passes or no one can fire; a moving unit disrupted by it stops.
        """
        st = ctx.state
        options = self._opp_fire_options(self._snap(st), mover)
        if not options:
            return
        side = self.enemy_of(mover.side)
        firers = list(dict.fromkeys(o.unit for o in options))  # type: ignore[attr-defined]
        ctx.emit(
            "opportunity",
            side=side,
            target=mover.id,
            hex_to=mover.hex,
            result=f"{_plural(len(firers), 'unit')} may fire",
            detail=(
                f"{mover.name} moved into {mover.position} in sight and range of "
                + ", ".join(st.units[f].name for f in firers)
            ),
            changes=open_opp_window(mover),
        )

    # -- direct fire: reasons, options ------------------------------------ #
    def _why_not_fire(self, state: GameState, a: Fire) -> str | None:
        v = state.vars
        opp = opp_window(state) is not None and not v.get("drawn")
        r = self._phase_reason(state, "opp" if opp else "action")
        if r:
            return r
        if opp:
            u = state.units.get(a.unit) if isinstance(a.unit, str) else None
            if u is None:
                return f"there is no unit {a.unit!r} in this game"
            mover = self._opp_mover(state)
            assert mover is not None
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
            if ops_complete(u):
                # WaW 6.1: units not marked Ops Complete may fire at enemy moves.
                return f"{u.name} is Ops Complete"
        else:
            u, r = self._actor(state, a.unit)
            if r:
                return r
        if self.info[u.id].is_hq:
            return f"{u.name} is an HQ: HQs do not fire, they lend leadership (with_hq)"
        if (carrier := carried_by(u)) is not None:
            c = state.units[carrier]
            return f"{u.name} is aboard {c.name}: infantry cannot fire from a carrier"
        if disrupted(u):
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
        if (carrier := carried_by(t)) is not None:
            return f"{t.name} is aboard {state.units[carrier].name}: fire at it"
        sw = self._sw(u) if a.weapon == "sw" else None
        if sw is not None and sw[0].attaches_to == "infantry":
            # WaW 6.1 / 1.3.5: an infantry platoon uses its SW only together with
            # its own weapon, in one Fire; never on its own.
            return (
                f"{u.name} cannot fire its {sw[0].name} alone: an infantry platoon "
                "fires its support weapon together with its own weapon, in the same "
                "Fire (sw_target) (WaW 6.1, 1.3.5)"
            )
        moving = not opp and self._spent(u) > 0
        snap = self._snap(state)
        r = self._fire_reason(snap, u, t, a.weapon, a.with_hq, moving)
        if r or a.sw_target is None:
            return r
        return self._sw_target_reason(state, snap, u, a, moving, opp)

    def _sw_target_reason(
        self, state: GameState, snap: _Snap, u: Unit, a: Fire, moving: bool, opp: bool
    ) -> str | None:
        """WaW 6.1 / 1.3.5: an infantry platoon fires its SW with its own weapon.

        Only in its formation's action phase and only in the same Fire as the
        platoon's own weapon (at the same target or another); a platoon that fires
        without it is Ops Complete, so the SW is lost for that phase.  ASSUMPTION
        45: never alone, never in opportunity fire (the action-phase sentence is
        about infantry platoons; tank ATGMs fire alone, also in opportunity fire).
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
        if opp:
            # WaW 6.1 / 1.3.5: the SW fires in the formation's action phase only.
            return (
                f"{u.name} cannot fire its {sw[0].name} in opportunity fire: an "
                "infantry platoon fires its support weapon with its own weapon in "
                "its formation's action phase (WaW 6.1, 1.3.5)"
            )
        if a.weapon == "sw":
            return "sw_target goes with a main weapon ('ap', 'he' or 'aa'), not 'sw'"
        t2 = state.units.get(a.sw_target) if isinstance(a.sw_target, str) else None
        if t2 is None:
            return f"there is no unit {a.sw_target!r} in this game"
        if t2.side == u.side:
            return f"{t2.name} is a friendly unit"
        if t2.destroyed or t2.position is None or carried_by(t2) is not None:
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

    def _fire_options(
        self,
        snap: _Snap,
        u: Unit,
        targets: list[Unit],
        *,
        moving: bool,
        opp: bool = False,
    ) -> list[Action]:
        """Every legal Fire of ``u`` at ``targets`` (fast mirror of _fire_reason).

        ``opp``: opportunity fire (no infantry support weapon, WaW 6.1 / 1.3.5).
        """
        weapons = self._weapons(u)
        if moving:
            if self._spent(u) > self._mp(u) / 2:
                return []
            weapons = [(k, w) for k, w in weapons if w.fp_underlined]
        if not weapons:
            return []
        lead = self._leader(snap, u) is not None
        out: list[Action] = []
        here: str = u.position  # type: ignore[assignment]
        sw = self._sw(u)
        infantry_sw = sw is not None and sw[0].attaches_to == "infantry"
        sw_targets: list[str] = []
        row, index = self.board.distance_row(here), self.board.index
        for t in targets:
            d = row[index[t.position]]  # type: ignore[index]
            seen: bool | None = None
            # the weapons that may fire at this target type, with their reach
            # (WaW 1.3.4.5: only AA fire keeps its whole range against aircraft)
            for kind, _real, reach, underlined, _t, _sw in self._shot_plan(
                u, self._target_type(t)
            ):
                if moving and not underlined:
                    continue
                if d > 1 and d - 1 > reach:
                    continue
                if seen is None:
                    # _los with the distance known (WaW 6.1, 7.0, 9.0, smoke)
                    seen = (
                        d <= 1
                        or self._high(u)
                        or self._high(t)
                        or (
                            self.board.visible(here, t.position)  # type: ignore[arg-type]
                            and not self._smoked(snap.state, here, t.position)  # type: ignore[arg-type]
                        )
                    )
                if not seen:
                    break
                if kind == "sw" and infantry_sw:
                    # WaW 6.1 / 1.3.5: an infantry SW never fires alone and not
                    # in opportunity fire; it joins a Fire of the platoon's own
                    # weapon (below), at the same target or another.
                    if not opp:
                        sw_targets.append(t.id)
                    continue
                out.append(Fire(u.id, t.id, kind))
                if lead:
                    out.append(Fire(u.id, t.id, kind, True))
        if sw_targets:
            out += [
                Fire(o.unit, o.target, o.weapon, o.with_hq, t2)  # type: ignore[attr-defined]
                for o in list(out)
                for t2 in sw_targets
            ]
        return out

    # -- indirect (mortar) fire ------------------------------------------- #
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
        if (carrier := carried_by(u)) is not None:
            return f"{u.name} is aboard {st.units[carrier].name}"
        if disrupted(u):
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

    def _indirect_target(self, x: Unit) -> bool:
        """ASSUMPTION 49: indirect (HE) fire hits what HE may hit, not helicopters."""
        tt = self._target_type(x)
        return ("he", tt) in _ALLOWED and not self.info[x.id].is_helicopter

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
            and carried_by(x) is None
            and not disrupted(x)
            and (self.info[x.id].is_hq or self.info[x.id].is_recon)
        ]
        hexes = sorted({t.position for t in targets})  # type: ignore[type-var]
        out: list[Action] = []
        for h in hexes:
            for sp in spotters:
                if self._indirect_reason(snap, u, h, sp.id) is None:
                    out.append(IndirectFire(u.id, h, sp.id))  # type: ignore[arg-type]
        return out

    # -- resolution: shots, hits, losses ---------------------------------- #
    def _do_fire(self, ctx: RuleContext, a: Fire) -> None:
        """WaW 6.1: one Fire, then the unit is Ops Complete (so an infantry SW not
        fired with it is lost for the phase, 1.3.5); with ``sw_target`` the
        platoon's weapon and SW are one attack (ASSUMPTION 45, below)."""
        st = ctx.state
        opp = opp_window(st) is not None
        u = st.units[a.unit]
        if not opp and not self._begin(ctx, u):
            return
        moving = not opp and self._spent(u) > 0
        changes: list[Any] = list(self._end_action(st, u))
        lead = 0
        if a.with_hq:
            hq = self._leader(self._snap(st), u)
            assert hq is not None
            lead = self._leadership(hq)
            changes += unit_change(hq.id, lead_used=True)
        t = st.units[a.target]
        if a.sw_target is None:
            self._shot(ctx, u, t, a.weapon, lead, opp, moving, changes)
            return
        # WaW 6.1 / 1.3.5: the platoon's weapon and its support weapon are one
        # attack, at the same or another target; the HQ's leadership counts for
        # both (seed 000, HQ in combat: the exception for infantry with an SW).
        # ASSUMPTION 45: two shots, both rolled (weapon first) before either
        # result lands; the SW's result then lands on what is left of its target
        # (void if the first shot destroyed it), and the HQ of each stack hit
        # makes one risk roll for the whole attack.
        t2 = st.units[a.sw_target]
        sw_name = self._sw(u)[0].name  # type: ignore[index]
        first = self._roll_shot(ctx, u, t, a.weapon, lead, opp, moving, changes)
        second = self._roll_shot(ctx, u, t2, "sw", lead, opp, moving, [])
        stacks: dict[tuple[str, str], bool] = {}
        for target, shot, by in (
            (t, first, u.name),
            (t2, second, f"{u.name}'s {sw_name}"),
        ):
            where = (str(st.units[target.id].position), target.side)
            affected, dead = self._land_shot(ctx, st.units[target.id], shot, by=by)
            if affected:
                stacks[where] = stacks.get(where, False) or dead
        for (h, side), dead in stacks.items():
            self._hq_stack(ctx, h, side, dead)

    def _do_indirect(self, ctx: RuleContext, a: IndirectFire) -> None:
        """WaW 1.3.4.3: mortar fire out of its own sight, called by a spotter.

        Resolved "like off-map artillery" with the counter's HE firepower and
        to-hit.  ASSUMPTION 49 (the artillery rules are not in the seeds): every
        enemy unit in the hex that HE fire may hit (not full armor, not
        helicopters) is attacked separately; the underlined range gives no
        range modifier; terrain dice save as usual.  The mortar is then Ops
        Complete; the spotter is not affected and acts as usual.
        """
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        sp = st.units[a.spotter]
        snap = self._snap(st)
        targets = [
            x
            for x in self._combatants(snap, a.hex, self.enemy_of(u.side))
            if self._indirect_target(x)
        ]
        _unit_event(
            ctx,
            "indirect_fire",
            u,
            target=a.hex,
            hex_from=u.hex,
            hex_to=a.hex,
            result=f"{_plural(len(targets), 'target')}",
            detail=(
                f"{u.name} fires indirectly at {a.hex} called by {sp.name} at "
                f"{sp.position}: " + ", ".join(t.name for t in targets)
            ),
            changes=self._end_action(st, u),
        )
        for t in targets:
            if st.units[t.id].destroyed:
                continue
            self._shot(ctx, u, st.units[t.id], "he", 0, False, False, [], True)

    def _shot(
        self,
        ctx: RuleContext,
        u: Unit,
        t: Unit,
        weapon: str,
        lead: int,
        opp: bool,
        moving: bool,
        changes: list[Any],
        indirect: bool = False,
    ) -> None:
        """One shot of ``u`` with ``weapon`` at ``t`` (WaW 6.1), event by event."""
        shot = self._roll_shot(ctx, u, t, weapon, lead, opp, moving, changes, indirect)
        affected, dead = self._land_shot(ctx, ctx.state.units[t.id], shot, by=u.name)
        if affected:
            self._hq_stack(ctx, t.position, t.side, dead)  # type: ignore[arg-type]

    def _roll_shot(
        self,
        ctx: RuleContext,
        u: Unit,
        t: Unit,
        weapon: str,
        lead: int,
        opp: bool,
        moving: bool,
        changes: list[Any],
        indirect: bool = False,
    ) -> FireResult:
        """Roll one shot (its fire and save events); the result is not applied."""
        attacker = self.info[u.id].utype
        attacker_state = self._ustate(u)
        weapon_name = _KIND_NAMES.get(weapon, weapon)
        sw = self._sw(u) if weapon == "sw" else None
        if sw is not None:
            # WaW 1.3.5: the support weapon fires with its own counter values.
            attacker, kind, weapon_name = sw[0], AttackKind(sw[1]), sw[0].name
            attacker_state = FRESH
        else:
            kind = AttackKind(weapon)
        d = self.board.distance(u.position, t.position)  # type: ignore[arg-type]
        terrain = self.board.terrain[t.position]  # type: ignore[index]
        notes: list[str] = []
        # WaW 6.1.5: a hiding target rolls an extra defence die (see _hidden).
        st = ctx.state
        hidden = self._hidden(st, t)
        if hidden:
            notes.append(f"{t.name} is hiding: +1 defence die")
        changes = [*changes, *self._unhide(st.units[u.id])]
        if sw is not None and not u.attrs.get("sw_placed"):
            # WaW 1.3.5: an SW is placed on the map when it first fires.
            changes += unit_change(u.id, sw_placed=True)
            notes.append(f"{sw[0].name} placed")
        shot = resolve_fire(
            ctx.rng,
            attacker,
            self.info[t.id].utype,
            range_hexes=d - 1,
            terrain=terrain,
            kind=kind,
            moving=moving,
            attacker_state=attacker_state,
            target_state=self._ustate(t),
            leadership=lead,
            concealment_dice=1 if hidden else 0,
            adjacent=d == 1,
            chart=self.chart,
            attacker_mode=None if sw is not None else u.attrs.get("mode"),
            # ASSUMPTION 53: a unit under Artillery Shock fires at to-hit +1.
            extra_to_hit=(("artillery shock", 1),) if u.attrs.get("shock") else (),
        )
        plan, roll = shot.plan, shot.roll
        if sw is not None and sw[0].attaches_to == "tank" and atgm_expended(roll):
            # WaW 1.3.5 tank SW: a shot without a hit means the missiles are gone.
            changes += unit_change(u.id, sw=None, sw_placed=None)
            notes.append(f"no hit: {sw[0].name} out of missiles")
        mods = [f"{r} {m:+d}" for r, m in plan.fire.to_hit_modifiers]
        if lead:
            mods.append(f"HQ leadership +{lead} dice")
        if plan.fire.firepower_lost:
            mods.append(f"to-hit over 6: -{plan.fire.firepower_lost} dice")
        how = (
            "opportunity fire" if opp else ("fires on the move" if moving else "fires")
        )
        if indirect:
            how = "fires indirectly"
        _unit_event(
            ctx,
            "fire",
            u,
            target=t.id,
            hex_from=u.hex,
            hex_to=t.hex,
            dice=roll.attack_dice,
            needed=plan.fire.to_hit,
            hits=roll.hits,
            result=_plural(roll.hits, "hit"),
            detail=(
                f"{u.name} {how}: {weapon_name} {plan.fire.firepower}d6 "
                f"at {t.name} ({t.position}, {terrain}, range {d - 1}, "
                f"{plan.band.value}), hit on {plan.fire.to_hit}+"
                + (f" [{'; '.join(mods)}]" if mods else "")
                + (f"; {'; '.join(notes)}" if notes else "")
            ),
            changes=changes,
        )
        if roll.save_dice:
            sv = plan.defence
            what = (
                f"{sv.armor_dice} armor + {sv.terrain_dice} terrain"
                if sv.armored
                else f"{sv.terrain_dice} terrain"
            )
            _unit_event(
                ctx,
                "save",
                t,
                dice=roll.save_dice,
                needed=sv.save,
                hits=roll.saves,
                result=f"{roll.saves} saved",
                detail=f"{t.name} saves with {what} dice on {sv.save}+",
            )
        return shot

    def _land_shot(
        self, ctx: RuleContext, t: Unit, shot: FireResult, *, by: str
    ) -> tuple[bool, bool]:
        """Apply a rolled shot to ``t`` as it is now (see :meth:`_hit`).

        A shot rolled before another result landed on the same target (the
        weapon and SW of one attack, ASSUMPTION 45) acts on what is left: its net
        hits are applied to the target's present state, and are void if the
        target is already destroyed.
        """
        res = shot.result
        now = self._ustate(t)
        if now != res.before:
            if now.destroyed:
                _unit_event(
                    ctx,
                    "hit",
                    t,
                    hits=res.net_hits,
                    result="void",
                    detail=(
                        f"{t.name} is already destroyed: the "
                        f"{_plural(res.net_hits, 'net hit')} from {by} are void"
                    ),
                )
                return False, False
            res = shot.plan.hit_result(res.net_hits, now)
        return self._hit(ctx, t, res, by=by)

    def _hit(
        self, ctx: RuleContext, t: Unit, hit: HitResult, *, by: str
    ) -> tuple[bool, bool]:
        """Apply a hit result (and its knock-on to passengers).

        Returns:
            (the stack was disrupted or lost steps, a unit of it was destroyed).
        """
        st = ctx.state
        v = st.vars
        word = _word(hit.before, hit.after)
        affected = hit.after != hit.before
        changes: list[Any] = []
        if affected:
            changes += unit_change(
                t.id, strength=hit.after.strength.value, disrupted=hit.after.disrupted
            )
        stopped = hit.after.destroyed or (
            hit.after.disrupted and not hit.before.disrupted
        )
        if t.id == v.get("acting") and stopped:
            # ASSUMPTION: a moving unit disrupted (or destroyed) by opportunity
            # fire stops; its action is over.
            changes += var_change(acting=None, escort=None)
            if not hit.after.destroyed:
                changes += unit_change(t.id, ops_complete=True)
            esc = v.get("escort")
            if esc:
                changes += unit_change(esc, ops_complete=True)
        _unit_event(
            ctx,
            "hit",
            t,
            hits=hit.net_hits,
            result=word,
            detail=(
                f"{t.name} takes {_plural(hit.net_hits, 'net hit')} from {by}: {word}"
            ),
            changes=changes,
        )
        dead = hit.after.destroyed
        p = self._passenger(st, t)
        if p is not None and affected:
            # WaW 5.2: what happens to the carrier happens (maybe) to its cargo.
            tl = transport_losses(
                ctx.rng,
                carrier_before=hit.before,
                carrier_after=hit.after,
                passengers=self._ustate(p),
            )
            pch: list[Any] = []
            if tl.after != tl.before:
                pch += unit_change(
                    p.id, strength=tl.after.strength.value, disrupted=tl.after.disrupted
                )
            pword = _word(tl.before, tl.after)
            if hit.after.destroyed and not tl.after.destroyed:
                pch += unit_change(p.id, carried_by=None)
                pword += ", bails out"
            roll = ""
            if tl.die is not None:
                roll = f"d6 = {tl.die} ({'even' if tl.die % 2 == 0 else 'odd'}): "
            _unit_event(
                ctx,
                "passengers",
                p,
                dice=(tl.die,) if tl.die is not None else None,
                result=pword,
                detail=f"{p.name} aboard {t.name} ({tl.carrier_effect}): {roll}{pword}",
                changes=pch,
            )
            dead = dead or tl.after.destroyed
        return affected, dead

    def _hq_stack(
        self, ctx: RuleContext, h: str, side: str, unit_destroyed: bool
    ) -> None:
        """WaW HQ in combat: the HQ of a stack that was hit may lose a step."""
        st = ctx.state
        snap = self._snap(st)
        hq = snap.hq.get(h)
        if hq is None or hq.side != side:
            return
        alive = any(x.side == side and x.id not in self.hq_ids for x in snap.units(h))
        chk = hq_stack_check(
            ctx.rng,
            unit_destroyed=unit_destroyed,
            stack_destroyed=not alive,
            hq_state=self._ustate(hq),
        )
        word = _word(chk.before, chk.after)
        changes: tuple[Any, ...] = ()
        if chk.after != chk.before:
            changes = unit_change(hq.id, strength=chk.after.strength.value)
            if chk.after.destroyed and st.vars.get("escort") == hq.id:
                changes += var_change(escort=None)
        if chk.die is None:
            detail = f"{hq.name} dies with its stack"
        else:
            mods = ", ".join(f"{r} {m:+d}" for r, m in chk.modifiers)
            detail = (
                f"{hq.name}'s stack was hit: d6 = {chk.die}"
                + (f" ({mods})" if mods else "")
                + f" = {chk.total}; 1 or less hits the HQ: {word}"
            )
        ctx.emit(
            "hq_stack_check",
            side=side,
            formation=hq.formation,
            unit=hq.id,
            hex_to=h,
            dice=(chk.die,) if chk.die is not None else None,
            needed=1,
            result=word,
            detail=detail,
            changes=changes,
        )

    def _after_losses(self, ctx: RuleContext, before: frozenset[str]) -> None:
        """Wreck markers and the unplaced-SW roll for units lost in an action."""
        st = ctx.state
        lost = [u for k, u in st.units.items() if u.destroyed and k not in before]
        for u in lost:
            i = self.info[u.id]
            h = u.position
            wrecks = st.vars.get("wrecks", ())
            if (i.is_vehicle or i.is_hq) and isinstance(h, str) and h not in wrecks:
                # WaW 1.3.4.2: destroyed vehicles leave a wreck marker, light-
                # armored and unarmored ones too (the section's last line); HQ in
                # combat (seed 000): a destroyed HQ leaves one if the hex has none.
                # The marker bars no one from the hex (no seed text says so).
                # ASSUMPTION 48: one marker per hex; helicopters and infantry
                # leave none; the marker has no other effect in play.
                _unit_event(
                    ctx,
                    "wreck",
                    u,
                    hex_to=h,
                    result="wreck",
                    detail=f"{u.name} burns at {h}: wreck marker placed",
                    changes=var_change(wrecks=tuple(sorted((*wrecks, h)))),
                )
        # WaW 1.3.5: each infantry platoon lost may cost an unplaced SW.
        self._unplaced_sw_rolls(ctx, lost)
