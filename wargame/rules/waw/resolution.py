"""World at War resolution: what each legal action does, event by event.

Every state change is an event emitted through the engine's context, every die
comes from the game's generator through the pure rule functions of this
package, and each rule cites its section.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from wargame.engine import (
    Action,
    GameState,
    RuleContext,
    Unit,
    control_change,
    deck_change,
    state_change,
    unit_change,
    var_change,
)

from ._common import (
    _ALLOWED,
    _KIND_NAMES,
    BRIDGE_MP,
    LOAD_MP,
    STACK_LIMIT,
    _plural,
    _Queries,
    _Snap,
    _word,
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
    AttackKind,
)
from .combat import (
    FRESH,
    HitResult,
    assault_type,
    hit_result,
    resolve_assault,
    resolve_fire,
    resolve_support_fire,
)
from .command import Exposure, hq_move_check, hq_stack_check, morale_check, rally_check
from .losses import atgm_expended, transport_losses, unplaced_sw_loss

_HERE = object()  # _unit_event's default hex_to: the unit's own hex


def _unit_event(
    ctx: RuleContext, kind: str, u: Unit, *, hex_to: Any = _HERE, **kw: Any
) -> None:
    """Emit ``kind`` as an event of unit ``u``: its side, formation and id, and
    its hex as ``hex_to`` unless another one (or None) is given."""
    ctx.emit(
        kind,
        side=u.side,
        formation=u.formation,
        unit=u.id,
        hex_to=u.hex if hex_to is _HERE else hex_to,
        **kw,
    )


class _Resolution(_Queries):
    """Resolution of actions (mixin of :class:`~.ruleset.WawRuleset`)."""

    # ------------------------------------------------------------------ #
    # resolution
    # ------------------------------------------------------------------ #
    def apply(self, ctx: RuleContext, action: Action) -> None:
        """Resolve a legal action (call :meth:`check` first)."""
        before = frozenset(k for k, u in ctx.state.units.items() if u.destroyed)
        self._appliers[type(action)](self, ctx, action)
        self._after_losses(ctx, before)

    def _after_losses(self, ctx: RuleContext, before: frozenset[str]) -> None:
        """Wreck markers and the unplaced-SW roll for units lost in an action."""
        st = ctx.state
        lost = [u for k, u in st.units.items() if u.destroyed and k not in before]
        for u in lost:
            i = self.info[u.id]
            h = u.position
            wrecks = st.vars.get("wrecks", ())
            if (i.is_vehicle or i.is_hq) and isinstance(h, str) and h not in wrecks:
                # WaW 1.3.4.2 / HQ in combat (seed 000): a destroyed vehicle (or
                # HQ) leaves a wreck marker in its hex, one per hex (ASSUMPTION 48).
                _unit_event(
                    ctx,
                    "wreck",
                    u,
                    hex_to=h,
                    result="wreck",
                    detail=f"{u.name} burns at {h}: wreck marker placed",
                    changes=var_change(wrecks=tuple(sorted((*wrecks, h)))),
                )
        for u in lost:
            if self.info[u.id].is_infantry:
                self._unplaced_sw_roll(ctx, u)

    def _unplaced_sw_roll(self, ctx: RuleContext, dead: Unit) -> None:
        """WaW 1.3.5: an infantry platoon died while SWs are still unplaced.

        Roll a d6 (-1 per infantry platoon of the side lost after the first); on
        1 or less the enemy deletes one unplaced SW.  ASSUMPTION 46: SWs are
        attached to named units and "unplaced" until they first fire; the enemy
        deletes the one with the longest reach (ties: scenario order).
        """
        st = ctx.state
        side = dead.side
        unplaced = [
            u
            for u in st.units.values()
            if u.side == side
            and not u.destroyed
            and u.attrs.get("sw")
            and not u.attrs.get("sw_placed")
        ]
        if not unplaced:
            return
        n_lost = sum(
            1
            for u in st.units.values()
            if u.side == side and u.destroyed and self.info[u.id].is_infantry
        )
        chk = unplaced_sw_loss(ctx.rng, n_lost)
        changes: tuple[Any, ...] = ()
        what = "no SW lost"
        if chk.lost:
            victim = max(unplaced, key=lambda x: self._reach(self._sw(x)[2]))  # type: ignore[index]
            changes = unit_change(victim.id, sw=None, sw_placed=None)
            what = (
                f"{self.enemy_of(side)} removes the unplaced "
                f"{self.catalog[victim.attrs['sw']].name} of {victim.name}"
            )
        ctx.emit(
            "sw_loss",
            side=side,
            unit=dead.id,
            dice=(chk.die,),
            needed=1,
            result="SW lost" if chk.lost else "no loss",
            detail=(
                f"{dead.name} lost with SWs unplaced: d6 = {chk.die} "
                f"{chk.modifier:+d} ({n_lost} infantry platoons lost) = {chk.total}; "
                f"1 or less: {what}"
            ),
            changes=changes,
        )

    def _end_action(self, st: GameState, u: Unit) -> tuple[Any, ...]:
        """Changes that make ``u`` Ops Complete and close its action."""
        out: tuple[Any, ...] = ()
        if not u.destroyed:
            out += unit_change(u.id, ops_complete=True)
        if st.vars.get("acting") == u.id:
            out += var_change(acting=None, escort=None)
            esc = st.vars.get("escort")
            if esc and not st.units[esc].destroyed:
                out += unit_change(esc, ops_complete=True)
        return out

    def _finish_acting(self, ctx: RuleContext) -> None:
        st = ctx.state
        uid = st.vars.get("acting")
        if uid is None:
            return
        u = st.units[uid]
        esc = st.vars.get("escort")
        with_hq = f" with {st.units[esc].name}" if esc else ""
        ctx.emit(
            "ops_complete",
            side=u.side,
            formation=u.formation,
            unit=uid,
            hex_to=u.hex,
            result="Ops Complete",
            detail=f"{u.name} ends its move{with_hq} at {u.position}: Ops Complete",
            changes=self._end_action(st, u),
        )

    def _begin(self, ctx: RuleContext, u: Unit, *, command_check: bool = True) -> bool:
        """Start ``u``'s action: close the previous unit's, check command.

        Returns:
            False if the unit, out of command, failed its morale check.
        """
        st = ctx.state
        acting = st.vars.get("acting")
        if acting == u.id:
            return True
        if acting is not None:
            self._finish_acting(ctx)
        if command_check and not self.in_command(st, u):
            # ASSUMPTION (4.0 is a GAP): an out-of-command unit acts only if it
            # passes a morale check (WaW Morale: 2d6 <= morale); failing, it is
            # Ops Complete.
            morale = self._morale(st, u.formation)
            chk = morale_check(ctx.rng, morale)
            _unit_event(
                ctx,
                "command",
                u,
                dice=chk.dice,
                needed=morale,
                result="passed" if chk.passed else "failed",
                detail=(
                    f"{u.name} is out of command: morale 2d6 = {chk.total} vs "
                    f"{morale} or less: "
                    + ("it acts" if chk.passed else "it does nothing (Ops Complete)")
                ),
                changes=() if chk.passed else unit_change(u.id, ops_complete=True),
            )
            return chk.passed
        return True

    # -- chits ------------------------------------------------------------ #
    def _do_activate(self, ctx: RuleContext, a: Activate) -> None:
        st = ctx.state
        f = st.formations[a.formation]
        ctx.emit(
            "activate",
            side=f.side,
            formation=f.id,
            result="activated",
            detail=f"{f.name} is activated: its action phase begins",
            changes=var_change(drawn=None, active=f.id)
            + state_change(phase="action")
            + deck_change("aside", (*st.decks["aside"], f.id)),
        )

    def _do_defer(self, ctx: RuleContext, a: Defer) -> None:
        st = ctx.state
        f = st.formations[a.formation]
        ctx.emit(
            "defer",
            side=f.side,
            formation=f.id,
            result="deferred",
            detail=f"{f.name}'s chit goes back into the cup",
            changes=var_change(
                drawn=None, deferred=(*st.vars.get("deferred", ()), f.id)
            )
            + deck_change("cup", (*st.decks["cup"], f.id)),
        )

    def _do_end(self, ctx: RuleContext, a: EndActivation) -> None:
        st = ctx.state
        self._finish_acting(ctx)
        fid = st.vars["active"]
        f = st.formations[fid]
        ctx.emit(
            "activation_end",
            side=f.side,
            formation=fid,
            result="ended",
            detail=f"{f.name}'s action phase ends",
            changes=var_change(active=None) + state_change(phase="operations"),
        )

    def _do_pass(self, ctx: RuleContext, a: Pass) -> None:
        st = ctx.state
        mover = st.units[st.vars["opp"]]
        side = self.enemy_of(mover.side)
        ctx.emit(
            "pass",
            side=side,
            target=mover.id,
            result="no fire",
            detail=f"{st.sides[side].name} holds fire at {mover.name}",
            changes=var_change(opp=None) + state_change(phase="action"),
        )

    # -- movement --------------------------------------------------------- #
    def _do_move(self, ctx: RuleContext, a: Move) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        frm: str = u.position  # type: ignore[assignment]
        to = a.to
        board = self.board
        cost = self._enter_cost(st, u, frm, to)
        mp = self._mp(u)
        spent = self._spent(u) + cost
        note = ""
        if board.ferry_water(to) and not board.ferry_water(frm):
            spent = max(spent, mp)  # ASSUMPTION: boarding a ferry ends the move
            note = "; boards the ferry (move ends)"
        for x in list(st.units.values()):
            if (
                x.position == to
                and x.side != u.side
                and not x.destroyed
                and x.id in self.hq_ids
            ):
                # ASSUMPTION: an HQ left alone is destroyed when an enemy unit
                # enters its hex (HQs cannot be attacked, WaW HQ in combat);
                # logged before the move so no hex ever holds both sides.
                _unit_event(
                    ctx,
                    "hq_captured",
                    x,
                    hex_to=to,
                    result="destroyed",
                    detail=f"{x.name}, alone at {to}, is overrun by {u.name}",
                    changes=unit_change(x.id, strength="destroyed"),
                )
        changes: list[Any] = list(unit_change(u.id, position=to, mp=spent))
        changes += self._unhide(u)
        p = self._passenger(st, u)
        if p is not None:
            changes += unit_change(p.id, position=to)
        escort = st.vars.get("escort") if st.vars.get("acting") == u.id else None
        if a.with_hq:
            hq = self._hq_unit(st, u.formation)
            escort = hq.id if hq is not None else None
        if escort:
            changes += unit_change(escort, position=to)
            note += f"; {st.units[escort].name} moves with it"
        changes += var_change(acting=u.id, escort=escort)
        # WaW hex capture (RULES_NOTES 1.2 FOUND [B]): the last side to move
        # through a hex controls it.
        captured = st.control.get(to) != u.side
        if captured:
            changes += control_change(to, u.side)
        obj = [name for h, _vp, name in self.objectives if h == to]
        if captured and obj:
            note += f"; takes objective {obj[0]}"
        _unit_event(
            ctx,
            "move",
            u,
            hex_from=frm,
            hex_to=to,
            result="captured" if captured else "moved",
            detail=(
                f"{u.name} moves {frm} -> {to} ({cost:g} MP, "
                f"{max(mp - spent, 0):g} left){note}"
            ),
            changes=changes,
        )
        self._in_zone(ctx, st.units[u.id])
        self._offer_opportunity(ctx, st.units[u.id])

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
            changes=var_change(opp=mover.id) + state_change(phase="opportunity"),
        )

    def _do_move_hq(self, ctx: RuleContext, a: MoveHQ) -> None:
        st = ctx.state
        hq = st.units[a.hq]
        if not self._begin(ctx, hq, command_check=False):
            return
        snap = self._snap(st)
        cost, path = self._hq_paths(snap, hq)[a.to]
        frm: str = hq.position  # type: ignore[assignment]
        changes: list[Any] = list(unit_change(hq.id, position=a.to, mp=cost))
        changes += self._end_action(st, hq)
        for h in path[1:]:
            if st.control.get(h) != hq.side:
                changes += control_change(h, hq.side)
        _unit_event(
            ctx,
            "hq_move",
            hq,
            hex_from=frm,
            hex_to=a.to,
            result="moved",
            detail=(
                f"{hq.name} moves on its own {frm} -> {a.to} via "
                f"{' '.join(path[1:-1]) or '(adjacent)'} ({cost:g} MP)"
            ),
            changes=changes,
        )
        # WaW HQ movement: the risk roll, with the exposure of the path hexes.
        exposure = [self._exposure(snap, h, hq.side) for h in path]
        chk = hq_move_check(
            ctx.rng,
            start_end_adjacent=self.board.distance(frm, a.to) == 1,
            path_exposure=exposure,
            hq_state=self._ustate(hq),
        )
        mods = ", ".join(f"{r} {m:+d}" for r, m in chk.modifiers)
        word = _word(chk.before, chk.after)
        _unit_event(
            ctx,
            "hq_move_check",
            hq,
            hex_to=a.to,
            dice=(chk.die,) if chk.die is not None else None,
            needed=2,
            result=word,
            detail=(
                f"{hq.name} moved alone: d6 = {chk.die}"
                + (f" ({mods})" if mods else "")
                + f" = {chk.total}; 2 or less loses a step: {word}"
            ),
            changes=(
                unit_change(hq.id, strength=chk.after.strength.value)
                if chk.after != chk.before
                else ()
            ),
        )

    def _exposure(self, snap: _Snap, h: str, side: str) -> Exposure:
        """WaW HQ movement (b)/(c): is ``h`` in enemy LOS and weapon range?

        ASSUMPTION: "in range of their guns" = within the longest reach of any
        of the enemy unit's weapons (2x range unless underlined; adjacent always);
        "under cover" = terrain with defence dice.
        """
        for u in snap.state.units.values():
            if (
                u.side == side
                or u.destroyed
                or u.position is None
                or u.carried_by is not None
                or u.id in self.hq_ids
            ):
                continue
            d = self.board.distance(u.position, h)  # type: ignore[arg-type]
            reach = max((self._reach(w) for _k, w in self._weapons(u)), default=-1)
            if d == 0 or (d > 1 and d - 1 > reach) or (d > 1 and reach < 0):
                continue
            if self._high(u) or self._ground_los(snap.state, u.position, h):  # type: ignore[arg-type]
                return (
                    Exposure.COVER if self.board.defence_dice(h) > 0 else Exposure.OPEN
                )
        return Exposure.NONE

    # -- fire ------------------------------------------------------------- #
    def _do_fire(self, ctx: RuleContext, a: Fire) -> None:
        st = ctx.state
        opp = bool(st.vars.get("opp"))
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
        self._shot(ctx, u, st.units[a.target], a.weapon, lead, opp, moving, changes)
        if a.sw_target is None:
            return
        # WaW 1.3.5: the platoon's support weapon fires in the same action, at
        # the same or another target; the HQ's leadership counts for both shots
        # (seed 000, HQ in combat: the exception for infantry with an SW).
        t2 = st.units[a.sw_target]
        if t2.destroyed:
            _unit_event(
                ctx,
                "fire",
                u,
                target=t2.id,
                hex_from=u.hex,
                hex_to=None,
                result="no target",
                detail=f"{u.name}'s support weapon holds: {t2.name} is already gone",
            )
            return
        self._shot(ctx, u, t2, "sw", lead, opp, moving, [])

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
        affected, dead = self._hit(ctx, t, shot.result, by=u.name)
        if affected:
            self._hq_stack(ctx, t.position, t.side, dead)  # type: ignore[arg-type]

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

    # -- assault ---------------------------------------------------------- #
    def _do_assault(self, ctx: RuleContext, a: Assault) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        snap = self._snap(st)
        h = a.hex
        frm: str = u.position  # type: ignore[assignment]
        enemy = self.enemy_of(u.side)
        # ASSUMPTION 43: helicopters in the hex take no part in an assault.
        defenders = [
            x
            for x in self._combatants(snap, h, enemy)
            if not self.info[x.id].is_helicopter
        ]
        ai = self.info[u.id]
        kind = assault_type(
            attackers_are_vehicles=ai.utype.is_vehicle,
            defenders_are_infantry=all(self.info[d.id].is_infantry for d in defenders),
            defender_terrain_open=self.board.defence_dice(h) == 0,
        )
        changes: list[Any] = []
        lead = 0
        if a.with_hq:
            hq = self._leader(snap, u)
            assert hq is not None
            lead = self._leadership(hq)
            changes += unit_change(hq.id, lead_used=True)
        dlead = 0
        dhq = snap.hq.get(h)
        if (
            dhq is not None
            and dhq.side == enemy
            and not dhq.attrs.get("lead_used")
            and self._leadership(dhq) > 0
        ):
            # ASSUMPTION: a defending HQ lends its leadership to the defence if
            # it has not lent it yet this turn.
            dlead = self._leadership(dhq)
            changes += unit_change(dhq.id, lead_used=True)
        cost = self._enter_cost(st, u, frm, h, assault=True)
        changes += unit_change(u.id, mp=self._spent(u) + cost)
        changes += self._unhide(u)
        verb = "overruns" if kind.value == "overrun" else "assaults"
        _unit_event(
            ctx,
            "assault",
            u,
            target=h,
            hex_from=frm,
            hex_to=h,
            result=kind.value,
            detail=(
                f"{u.name} {verb} {h} held by "
                + ", ".join(d.name for d in defenders)
                + (f" (HQ leadership +{lead})" if lead else "")
            ),
            changes=changes,
        )
        res = resolve_assault(
            ctx.rng,
            [self._side_vals(u).assault],
            [self._side_vals(d).assault for d in defenders],
            attacker_leadership=lead,
            defender_leadership=dlead,
            kind=kind,
        )
        for who, roll, side_id in (
            (u.name, res.attacker, u.side),
            (" and ".join(d.name for d in defenders), res.defender, enemy),
        ):
            ctx.emit(
                "assault_roll",
                side=side_id,
                unit=u.id if side_id == u.side else None,
                target=h,
                hex_to=h,
                dice=roll.dice,
                needed=roll.to_hit,
                hits=roll.hits,
                result=_plural(roll.hits, "hit"),
                detail=(f"{who}: {len(roll.dice)} assault dice, hit on {roll.to_hit}+"),
            )
            if roll.allocation_dice:
                ctx.emit(
                    "allocation",
                    side=side_id,
                    target=h,
                    dice=roll.allocation_dice,
                    result="placed",
                    detail="odd hits placed on the enemy stack by d6",
                )
        # Results are simultaneous (FOUND [B]): hits on both stacks, then checks.
        d_aff = d_dead = False
        for d, n in zip(defenders, res.attacker.allocation, strict=True):
            if n:
                hr = hit_result(
                    n,
                    self._target_type(d),
                    "assault",
                    self._ustate(d),
                    one_sided=self.info[d.id].utype.one_sided,
                    fragile=self.info[d.id].is_bridge_layer,
                )
                aff, dead = self._hit(ctx, d, hr, by=f"{u.name}'s {kind.value}")
                d_aff, d_dead = d_aff or aff, d_dead or dead
        a_aff = a_dead = False
        if res.defender.allocation[0]:
            hr = hit_result(
                res.defender.allocation[0],
                self._target_type(u),
                "assault",
                self._ustate(u),
                one_sided=ai.utype.one_sided,
                fragile=ai.is_bridge_layer,
            )
            a_aff, a_dead = self._hit(ctx, u, hr, by="the defenders")
        if d_aff:
            self._hq_stack(ctx, h, enemy, d_dead)
        if a_aff:
            self._hq_stack(ctx, frm, u.side, a_dead)
        # FOUND [B]: the defender keeps the hex unless it took more hits than it
        # scored; otherwise it retreats one hex straight back or is destroyed.
        if u.destroyed:
            outcome = "attacker destroyed"
        elif res.defender_holds:
            outcome = "defender holds"
        else:
            self._retreat(ctx, frm, h, enemy)
            outcome = "defender driven out"
            # the attacker takes the hex, unless it is water with no bridge left
            # (an assaulted MTU-55 bridge that is gone: ASSUMPTION 56)
            if (
                not any(x.side == enemy for x in self._snap(st).units(h))
                and self._enter_cost(st, st.units[u.id], frm, h) != math.inf
            ):
                self._advance(ctx, u, h)
                outcome = "hex taken"
        _unit_event(
            ctx,
            "assault_result",
            u,
            target=h,
            result=outcome,
            detail=(
                f"{kind.value} on {h}: {res.attacker.hits} hits scored, "
                f"{res.defender.hits} taken: {outcome}"
            ),
            changes=self._end_action(st, u),
        )

    def _retreat(self, ctx: RuleContext, origin: str, h: str, side: str) -> None:
        """Defenders driven out of ``h`` retreat one hex straight back.

        FOUND [B]: "retreats one hex straight back along the assault path or is
        destroyed".  ASSUMPTION: destroyed when that hex is off the map,
        impassable for it, holds enemy units or a full stack; a defending HQ goes
        with the retreating units, or dies if none could retreat.
        """
        st = ctx.state
        dest = self.board.beyond(origin, h)
        retreated = False
        for d in self._combatants(self._snap(st), h, side):
            snap = self._snap(st)
            why = None
            if d.attrs.get("deployed"):
                # ASSUMPTION 56: a laid bridge cannot fall back; it is lost.
                why = "a laid bridge cannot move"
            elif dest is None:
                why = "the map edge"
            elif self.board.move_cost(h, dest, self.info[d.id].mobility) == math.inf:
                why = f"{dest} is impassable"
            elif any(x.side != side for x in snap.units(dest)):
                why = f"the enemy at {dest}"
            elif snap.count.get((dest, side), 0) + 1 > STACK_LIMIT:
                why = f"the full stack at {dest}"
            p = self._passenger(st, d)
            if why is None:
                changes: list[Any] = list(unit_change(d.id, position=dest))
                changes += self._unhide(d)
                if p is not None:
                    changes += unit_change(p.id, position=dest)
                if st.control.get(dest) != side:  # type: ignore[arg-type]
                    changes += control_change(dest, side)  # type: ignore[arg-type]
                ctx.emit(
                    "retreat",
                    side=side,
                    formation=d.formation,
                    unit=d.id,
                    hex_from=h,
                    hex_to=dest,
                    result="retreats",
                    detail=f"{d.name} falls back from {h} to {dest}",
                    changes=changes,
                )
                retreated = True
            else:
                changes = list(unit_change(d.id, strength="destroyed"))
                if p is not None:
                    changes += unit_change(p.id, strength="destroyed")
                ctx.emit(
                    "retreat",
                    side=side,
                    formation=d.formation,
                    unit=d.id,
                    hex_from=h,
                    result="destroyed",
                    detail=f"{d.name} cannot fall back ({why}) and is destroyed",
                    changes=changes,
                )
        snap = self._snap(st)
        hq = snap.hq.get(h)
        if hq is None or hq.side != side:
            return
        if retreated and dest not in snap.hq:
            ctx.emit(
                "retreat",
                side=side,
                formation=hq.formation,
                unit=hq.id,
                hex_from=h,
                hex_to=dest,
                result="retreats",
                detail=f"{hq.name} falls back with its units to {dest}",
                changes=unit_change(hq.id, position=dest),
            )
        else:
            ctx.emit(
                "retreat",
                side=side,
                formation=hq.formation,
                unit=hq.id,
                hex_from=h,
                result="destroyed",
                detail=f"{hq.name} is caught at {h} and destroyed",
                changes=unit_change(hq.id, strength="destroyed"),
            )

    def _advance(self, ctx: RuleContext, u: Unit, h: str) -> None:
        """ASSUMPTION: a successful assault takes the hex: the attacker moves in."""
        st = ctx.state
        frm = u.position
        changes: list[Any] = list(unit_change(u.id, position=h))
        p = self._passenger(st, u)
        if p is not None:
            changes += unit_change(p.id, position=h)
        if st.control.get(h) != u.side:
            changes += control_change(h, u.side)
        _unit_event(
            ctx,
            "advance",
            u,
            hex_from=frm,  # type: ignore[arg-type]
            hex_to=h,
            result="captured",
            detail=f"{u.name} advances into {h}",
            changes=changes,
        )

    # -- rally, transport ------------------------------------------------- #
    def _do_rally(self, ctx: RuleContext, a: Rally) -> None:
        st = ctx.state
        u = st.units[a.unit]
        self._begin(ctx, u, command_check=False)
        morale = self._morale(st, u.formation)
        hq = self._hq_unit(st, u.formation)
        lead = (
            self._leadership(hq)
            if hq is not None and not hq.destroyed and hq.position == u.position
            else 0
        )
        # WaW HQ leadership: subtracted from the rally roll of units in its hex.
        chk = rally_check(ctx.rng, morale, leadership=lead)
        changes: list[Any] = list(self._end_action(st, u))
        if chk.passed:
            changes += unit_change(u.id, disrupted=False)
            p = self._passenger(st, u)
            if p is not None and p.disrupted:
                # WaW 5.2: passengers rally with their carrier.
                changes += unit_change(p.id, disrupted=False)
        _unit_event(
            ctx,
            "rally",
            u,
            dice=chk.dice,
            needed=morale,
            result="rallied" if chk.passed else "still disrupted",
            detail=(
                f"{u.name} rallies: 2d6 = {sum(chk.dice)}"
                + (f" - leadership {lead}" if lead else "")
                + f" = {chk.total} vs morale {morale}"
            ),
            changes=changes,
        )

    def _do_mount(self, ctx: RuleContext, a: Mount) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        c = st.units[a.carrier]
        # ASSUMPTION 34: boarding is the platoon's action (Ops Complete); the
        # carrier may still move it this activation, with 1 MP less
        # (ASSUMPTION 57: loading costs the carrier 1 MP).
        _unit_event(
            ctx,
            "mount",
            u,
            target=c.id,
            result="aboard",
            detail=f"{u.name} boards {c.name} at {u.position}",
            changes=(
                *unit_change(u.id, carried_by=c.id),
                *unit_change(c.id, mp=self._spent(c) + LOAD_MP),
                *self._unhide(u),
                *self._end_action(st, u),
            ),
        )

    def _do_dismount(self, ctx: RuleContext, a: Dismount) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        c = st.units[u.carried_by]  # type: ignore[index]
        # ASSUMPTION 34: dismounting is the platoon's action (Ops Complete);
        # ASSUMPTION 57: it takes 1 MP of what the carrier has left.
        spent = min(self._spent(c) + LOAD_MP, self._mp(c))
        _unit_event(
            ctx,
            "dismount",
            u,
            target=c.id,
            result="dismounted",
            detail=f"{u.name} dismounts from {c.name} at {u.position}",
            changes=(
                *unit_change(u.id, carried_by=None),
                *unit_change(c.id, mp=spent),
                *self._end_action(st, u),
            ),
        )

    # -- off-map fire support (WaW 1.7 chits, clean-up markers) ----------- #
    def _do_call_support(self, ctx: RuleContext, a: CallSupport) -> None:
        """Off-map artillery / air support on a hex seen by a spotter.

        ASSUMPTIONS 51-54 (no artillery text in the seeds; the clean-up names
        the markers):
        one mission is used (the ammunition depletion marker); HE/AP fire
        attacks every enemy unit of the hex it may hit (not helicopters), each
        separately, as :func:`~.combat.resolve_support_fire`; the hex is then
        "In Zone" until the clean-up (enemy units entering it are attacked
        again); surviving units of the hex are under "Artillery Shock" (+1
        to-hit) until the clean-up.  Smoke instead places a smoke marker
        that blocks ground LOS (see ``_smoked``) for two clean-ups.
        """
        st = ctx.state
        sup = self.supports[a.support]
        sp = st.units[a.spotter]
        ammo = dict(st.vars.get("ammo", ()))
        left = ammo.get(sup.id, 0) - 1
        ammo[sup.id] = left
        changes: list[Any] = list(
            var_change(support=None, ammo=tuple(sorted(ammo.items())))
        )
        snap = self._snap(st)
        if a.smoke:
            smoke = dict(st.vars.get("smoke", ()))
            smoke[a.hex] = 2
            changes += var_change(smoke=tuple(sorted(smoke.items())))
            targets: list[Unit] = []
            what = "smoke"
        else:
            targets = self._support_targets(snap, sup, a.hex)
            zone = dict(st.vars.get("in_zone", ()))
            zone[a.hex] = sup.id
            changes += var_change(in_zone=tuple(sorted(zone.items())))
            what = sup.weapon.upper()
        ctx.emit(
            "support",
            side=sup.side,
            target=a.hex,
            hex_to=a.hex,
            result=what,
            detail=(
                f"{sup.name} fires {what} at {a.hex}, called by {sp.name} at "
                f"{sp.position}; {_plural(max(left, 0), 'mission')} left"
                + ("" if left > 0 else " (out of ammunition)")
            ),
            changes=changes,
        )
        for t in targets:
            self._support_shot(ctx, sup, st.units[t.id], why="barrage")
        if not a.smoke:
            for t in self._combatants(self._snap(st), a.hex, self.enemy_of(sup.side)):
                if not self.info[t.id].is_helicopter and not t.attrs.get("shock"):
                    _unit_event(
                        ctx,
                        "support",
                        t,
                        hex_to=a.hex,
                        result="artillery shock",
                        detail=f"{t.name} is under Artillery Shock until clean-up",
                        changes=unit_change(t.id, shock=True),
                    )

    def _support_shot(self, ctx: RuleContext, sup: Any, t: Unit, *, why: str) -> None:
        """One unit attacked by off-map fire support, event by event."""
        st = ctx.state
        if t.destroyed:
            return
        terrain = self.board.terrain[t.position]  # type: ignore[index]
        hidden = self._hidden(st, t)
        roll, res = resolve_support_fire(
            ctx.rng,
            sup.fp,
            sup.to_hit,
            self.info[t.id].utype,
            kind=sup.weapon,
            terrain_dice=self.board.defence_dice(t.position) + (1 if hidden else 0),  # type: ignore[arg-type]
            target_state=self._ustate(t),
        )
        ctx.emit(
            "support_fire" if why == "barrage" else "in_zone",
            side=sup.side,
            unit=None,
            target=t.id,
            hex_to=t.hex,
            dice=roll.attack_dice,
            needed=roll.fire.to_hit,
            hits=roll.hits,
            result=_plural(roll.hits, "hit"),
            detail=(
                f"{sup.name} ({why}): {sup.weapon.upper()} {roll.fire.firepower}d6 "
                f"at {t.name} ({t.position}, {terrain}), hit on {roll.fire.to_hit}+"
                + ("; hiding: +1 defence die" if hidden else "")
            ),
        )
        if roll.save_dice:
            _unit_event(
                ctx,
                "save",
                t,
                dice=roll.save_dice,
                needed=roll.defence.save,
                hits=roll.saves,
                result=f"{roll.saves} saved",
                detail=f"{t.name} saves with {roll.defence.dice} dice on "
                f"{roll.defence.save}+",
            )
        affected, dead = self._hit(ctx, t, res, by=sup.name)
        if affected:
            self._hq_stack(ctx, t.position, t.side, dead)  # type: ignore[arg-type]

    def _in_zone(self, ctx: RuleContext, u: Unit) -> None:
        """ASSUMPTION 52: an enemy unit entering an "In Zone" hex is attacked."""
        st = ctx.state
        zone = dict(st.vars.get("in_zone", ()))
        sid = zone.get(u.position)  # type: ignore[arg-type]
        if sid is None or u.destroyed or self.info[u.id].is_helicopter:
            return
        sup = self.supports[sid]
        if sup.side == u.side:
            return
        if (sup.weapon, self._target_type(u)) not in _ALLOWED:
            return
        self._support_shot(ctx, sup, u, why="in zone")

    def _do_hold_support(self, ctx: RuleContext, a: HoldSupport) -> None:
        sup = self.supports[a.support]
        ctx.emit(
            "support",
            side=sup.side,
            result="held",
            detail=f"{sup.name} holds its fire this time (no mission used)",
            changes=var_change(support=None),
        )

    # -- MTU-55 bridges (seed 000 bridge units) ------------------------- #
    def _do_lay(self, ctx: RuleContext, a: LayBridge) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        # Seed 000: laying the bridge costs 2 MP.  ASSUMPTION 56: it is the layer's
        # action (Ops Complete); the hex is crossable from the next move on.
        _unit_event(
            ctx,
            "bridge",
            u,
            result="laid",
            detail=(
                f"{u.name} lays its bridge at {u.position} (2 MP): crossing costs "
                "2 MP, 3 while the bridge is disrupted"
            ),
            changes=(
                *unit_change(u.id, deployed=True, mp=self._spent(u) + BRIDGE_MP),
                *self._end_action(st, u),
            ),
        )

    def _do_recover(self, ctx: RuleContext, a: RecoverBridge) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        # Seed 000: taking the bridge up costs 2 MP; the layer may move on.
        _unit_event(
            ctx,
            "bridge",
            u,
            result="taken up",
            detail=f"{u.name} takes its bridge up at {u.position} (2 MP)",
            changes=unit_change(u.id, deployed=None, mp=self._spent(u) + BRIDGE_MP)
            + var_change(acting=u.id, escort=None),
        )

    def _do_hide(self, ctx: RuleContext, a: Hide) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        # WaW 6.1.5 (ASSUMPTION 50 on the procedure, see _hidden): hiding is the
        # unit's action; it lasts until the unit moves, fires or assaults.
        _unit_event(
            ctx,
            "hide",
            u,
            result="hiding",
            detail=f"{u.name} hides at {u.position} ({self.board.terrain[u.hex]})",  # type: ignore[index]
            changes=(*unit_change(u.id, hiding=True), *self._end_action(st, u)),
        )

    def _do_set_mode(self, ctx: RuleContext, a: SetMode) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        # WaW 9.0: the helicopter turns its counter to the other mode side.
        # ASSUMPTION 42: changing mode costs no MP and is part of the helicopter's
        # action (it may still move and fire); popping up to high mode in enemy
        # sight and range opens opportunity fire like a move.
        _unit_event(
            ctx,
            "mode",
            u,
            result=a.mode,
            detail=(
                f"{u.name} goes to {a.mode} mode "
                + (
                    "(flying above the terrain)"
                    if a.mode == "high"
                    else "(nap of the earth)"
                )
            ),
            changes=unit_change(u.id, mode=None if a.mode == "low" else "high")
            + unit_change(u.id, mode_set=True)
            + var_change(acting=u.id, escort=None),
        )
        self._offer_opportunity(ctx, st.units[u.id])

    _appliers: ClassVar[dict[type[Action], Any]] = {
        Activate: _do_activate,
        Defer: _do_defer,
        EndActivation: _do_end,
        Pass: _do_pass,
        Move: _do_move,
        MoveHQ: _do_move_hq,
        Fire: _do_fire,
        Assault: _do_assault,
        Rally: _do_rally,
        Mount: _do_mount,
        Dismount: _do_dismount,
        SetMode: _do_set_mode,
        IndirectFire: _do_indirect,
        Hide: _do_hide,
        CallSupport: _do_call_support,
        HoldSupport: _do_hold_support,
        LayBridge: _do_lay,
        RecoverBridge: _do_recover,
    }
