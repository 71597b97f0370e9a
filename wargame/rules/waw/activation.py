"""World at War activation: chits, the acting unit, rally.

The Operations phase decisions on a drawn formation chit (Activate, Defer: WaW
1.7 / 3.0), the end of a formation's action phase (EndActivation), declining
opportunity fire (Pass, WaW 6.2: the window itself is in :mod:`.fire`), and
rallying (Rally: WaW Morale, HQ leadership).  Also what every action shares:
which phase awaits which decision, the acting unit (Ops Complete), and the
command check of a unit out of command (WaW 1.3.3 / 4.0).
"""

from __future__ import annotations

from typing import Any

from wargame.engine import (
    Action,
    GameState,
    RuleContext,
    Unit,
    deck_change,
    state_change,
    unit_change,
    var_change,
)

from ._common import (
    _Queries,
    _unit_event,
)
from .actions import (
    Activate,
    Defer,
    EndActivation,
    Pass,
    Rally,
)
from .command import morale_check, rally_check
from .fire import close_opp_window
from .replacement import HQ_PENDING
from .unit_attrs import carried_by, disrupted, ops_complete


class _Activation(_Queries):
    """Chits, the acting unit and rally (mixin of :class:`~.ruleset.WawRuleset`)."""

    # -- whose decision, which unit acts ------------------------------- #
    def _phase_reason(self, state: GameState, need: str) -> str | None:
        v = state.vars
        pending = v.get(HQ_PENDING)
        if pending:
            hq = state.units[pending[0]]
            return (
                f"{state.sides[hq.side].name} is choosing where {hq.name} comes "
                "back (WaW 1.3.3.3): replace it first"
            )
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
        m = self._opp_mover(state)
        if need == "opp":
            return None if m is not None else "there is no opportunity fire to decide"
        if m is not None:
            who = state.sides[self._opp_side(state)].name  # type: ignore[index]
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
        if ops_complete(u):
            return u, f"{u.name} is Ops Complete"
        return u, None

    def _action_actor(self, state: GameState, uid: Any) -> tuple[Unit, str | None]:
        """The acting unit of the action phase, or why it cannot act."""
        r = self._phase_reason(state, "action")
        if r:
            return None, r  # type: ignore[return-value]
        return self._actor(state, uid)

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
        if state.vars.get("drawn_deferred"):
            # ASSUMPTION 23: each chit may be deferred once per turn (the seed
            # sets no limit; this one guarantees the phase ends).  A NATO company
            # with two chits may defer each of them once.
            return (
                f"this chit of {self._fname(state, a.formation)} was already "
                "deferred this turn; activate it now"
            )
        return None

    def _why_not_end(self, state: GameState, a: EndActivation) -> str | None:
        return self._phase_reason(state, "action")

    def _why_not_pass(self, state: GameState, a: Pass) -> str | None:
        return self._phase_reason(state, "opp")

    def _why_not_rally(self, state: GameState, a: Rally) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        if self.info[u.id].is_hq:
            return f"{u.name} is an HQ and is never disrupted"
        if (carrier := carried_by(u)) is not None:
            c = state.units[carrier]
            return f"{u.name} rallies together with its carrier {c.name}"
        if not disrupted(u):
            return f"{u.name} is not disrupted"
        if state.vars.get("acting") == u.id:
            # ASSUMPTION: rallying is a unit's whole action.
            return f"{u.name} has already moved; rallying takes its whole action"
        return None

    def _chit_options(self, state: GameState) -> list[Action]:
        """Activate the drawn formation chit, or defer it (once per chit and turn)."""
        v = state.vars
        f = v["drawn"]
        acts: list[Action] = [Activate(f)]
        if not v.get("drawn_deferred"):
            acts.append(Defer(f))
        return acts

    # -- resolution ------------------------------------------------------- #
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

    def _do_activate(self, ctx: RuleContext, a: Activate) -> None:
        st = ctx.state
        f = st.formations[a.formation]
        ctx.emit(
            "activate",
            side=f.side,
            formation=f.id,
            result="activated",
            detail=f"{f.name} is activated: its action phase begins",
            changes=var_change(drawn=None, drawn_deferred=None, active=f.id)
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
        mover = self._opp_mover(st)
        side = self._opp_side(st)
        assert mover is not None and side is not None
        ctx.emit(
            "pass",
            side=side,
            target=mover.id,
            result="no fire",
            detail=f"{st.sides[side].name} holds fire at {mover.name}",
            changes=close_opp_window(),
        )

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
            if p is not None and disrupted(p):
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
