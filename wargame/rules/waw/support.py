"""World at War off-map fire support: artillery and air support chits.

Rule sections: WaW 1.7 (support chits in the cup), 1.3.4.4 (HQs and recon units
call artillery), the clean-up markers (ammunition depletion, "In Zone",
"Artillery Shock", smoke); their procedure is assumed (ASSUMPTIONS 51-54: no
artillery text in the seeds).  Drawing the chits (and the chaos chits, 55) is
the sequence of play's (:mod:`.sequence`); the hits are resolved by
:mod:`.fire`.
"""

from __future__ import annotations

from typing import Any

from wargame.engine import (
    Action,
    GameState,
    RuleContext,
    Unit,
    unit_change,
    var_change,
)

from ._common import (
    _ALLOWED,
    Support,
    _plural,
    _Queries,
    _Snap,
    _unit_event,
)
from .actions import (
    CallSupport,
    HoldSupport,
)
from .combat import (
    resolve_support_fire,
)
from .unit_attrs import carried_by, disrupted


class _Support(_Queries):
    """Off-map fire support (mixin of :class:`~.ruleset.WawRuleset`)."""

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
            and carried_by(x) is None
            and not disrupted(x)
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

    def _support_targets(self, snap: _Snap, sup: Support, h: str) -> list[Unit]:
        """Enemy units at ``h`` the support's fire kind may hit (no helicopters)."""
        return [
            x
            for x in self._combatants(snap, h, self.enemy_of(sup.side))
            if (sup.weapon, self._target_type(x)) in _ALLOWED
            and not self.info[x.id].is_helicopter
        ]

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
        sid = zone.get(u.position)
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
