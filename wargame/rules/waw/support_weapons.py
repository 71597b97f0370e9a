"""World at War support weapons not yet placed: the loss roll and the enemy's choice.

Rule section: WaW 1.3.5 (seed 000, "support weapons": an SW is placed when it
first fires; while some are unplaced, each infantry platoon lost gives a d6 roll,
-1 for each platoon lost before it; on 1 or less the enemy removes one unplaced
SW of its choice; the lost Sagger example).  Tank ATGMs follow the same rules of
placement and removal (seed 000, "tank support weapons").

The removals owed are one state variable (``SW_REMOVAL_VAR``): a tuple with the
id of the side whose SW is to go, once per removal owed, oldest first.  While it
is not empty the enemy of its first side decides (:class:`~.actions.RemoveSW`)
before anything else; the game then goes on where it was (an opportunity-fire
window, a move, an activation stay open).
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

from ._common import _Queries, _unit_event
from .actions import RemoveSW
from .losses import unplaced_sw_loss

#: The state variable of the removals owed: ``(side, ...)``, one entry per SW.
SW_REMOVAL_VAR = "sw_removal"


def sw_removals_owed(state: GameState) -> tuple[str, ...]:
    """The sides that owe the removal of an unplaced SW, one entry per SW.

    Examples:
        >>> from wargame.engine import Game
        >>> sw_removals_owed(Game.from_scenario("test_remagen").state)
        ()
    """
    return tuple(state.vars.get(SW_REMOVAL_VAR) or ())


class _SupportWeapons(_Queries):
    """Unplaced support weapons (mixin of :class:`~.ruleset.WawRuleset`)."""

    def _unplaced_sws(self, state: GameState, side: str) -> list[Unit]:
        """Living units of ``side`` carrying an SW that has not fired yet.

        ASSUMPTION 46: SWs are attached to named units; "unplaced" until their
        first shot (units still to arrive included; tank ATGMs too, seed 000).
        """
        return [
            u
            for u in state.units.values()
            if u.side == side
            and not u.destroyed
            and u.attrs.get("sw")
            and not u.attrs.get("sw_placed")
        ]

    def _sw_chooser(self, state: GameState) -> str | None:
        """The side choosing which unplaced SW goes (the owner's enemy), if any."""
        owed = sw_removals_owed(state)
        return self.enemy_of(owed[0]) if owed else None

    def _sw_removal_block(self, state: GameState) -> str | None:
        """Why any other action waits: an unplaced SW is to be removed first."""
        owed = sw_removals_owed(state)
        if not owed:
            return None
        loser, chooser = state.sides[owed[0]].name, self._sw_chooser(state)
        return (
            f"{state.sides[chooser].name} must first choose which unplaced support "  # type: ignore[index]
            f"weapon of {loser} is removed (RemoveSW, WaW 1.3.5)"
        )

    def _sw_removal_options(self, state: GameState) -> list[Action]:
        """WaW 1.3.5: the enemy may remove any one of the unplaced SWs."""
        owed = sw_removals_owed(state)
        return [RemoveSW(u.id) for u in self._unplaced_sws(state, owed[0])]

    def _why_not_remove_sw(self, state: GameState, a: RemoveSW) -> str | None:
        u = state.units.get(a.unit) if isinstance(a.unit, str) else None
        if u is None:
            return f"there is no unit {a.unit!r} in this game"
        owed = sw_removals_owed(state)
        if not owed:
            return (
                f"no unplaced support weapon is to be removed now: {u.name} keeps "
                "its own (WaW 1.3.5: only after an infantry platoon's loss roll)"
            )
        loser = owed[0]
        if u.side != loser:
            chooser = state.sides[self.enemy_of(loser)].name
            return (
                f"{u.name} is {chooser}'s own unit: {chooser} removes an unplaced "
                f"support weapon of {state.sides[loser].name} (WaW 1.3.5)"
            )
        if u.destroyed:
            return f"{u.name} is destroyed; its support weapon went with it (WaW 1.3.5)"
        sid = u.attrs.get("sw")
        if not sid:
            return f"{u.name} carries no support weapon (WaW 1.3.5)"
        if u.attrs.get("sw_placed"):
            return (
                f"{u.name}'s {self.catalog[sid].name} is already placed (it has "
                "fired): only unplaced support weapons are removed (WaW 1.3.5)"
            )
        return None

    def _do_remove_sw(self, ctx: RuleContext, a: RemoveSW) -> None:
        st = ctx.state
        u = st.units[a.unit]
        # (a choice is owed only while more unplaced SWs are left than owed, so
        # the next one owed still has a choice, see _unplaced_sw_rolls)
        owed = list(sw_removals_owed(st))
        side = owed.pop(0)
        chooser = st.sides[self.enemy_of(side)].name
        _unit_event(
            ctx,
            "sw_removed",
            u,
            result="SW removed",
            detail=(
                f"{chooser} removes the unplaced {self.catalog[u.attrs['sw']].name} "
                f"of {u.name} (WaW 1.3.5)"
            ),
            changes=unit_change(u.id, sw=None, sw_placed=None)
            + var_change(**{SW_REMOVAL_VAR: tuple(owed) or None}),
        )

    def _unplaced_sw_rolls(self, ctx: RuleContext, lost: list[Unit]) -> None:
        """WaW 1.3.5: the loss roll for each infantry platoon lost in an action.

        One d6 per platoon lost while its side still has unplaced SWs (not owed
        already), -1 for each infantry platoon of the side lost before it in the
        scenario, counted at that loss: platoons lost in one action roll one by
        one (in scenario order), -(k-1) for the k-th.  On 1 or less one more SW
        is owed; the enemy chooses which (:class:`~.actions.RemoveSW`), unless no
        choice is left (then it goes at once).
        """
        st = ctx.state
        gone = {u.id for u in lost}
        count: dict[str, int] = {}
        for u in st.units.values():
            if u.destroyed and u.id not in gone and self.info[u.id].is_infantry:
                count[u.side] = count.get(u.side, 0) + 1
        for dead in lost:
            if not self.info[dead.id].is_infantry:
                continue
            side = dead.side
            count[side] = count.get(side, 0) + 1
            n_lost = count[side]
            owed = sw_removals_owed(st)
            left = len(self._unplaced_sws(st, side)) - owed.count(side)
            if left <= 0:
                continue
            chk = unplaced_sw_loss(ctx.rng, n_lost)
            enemy = st.sides[self.enemy_of(side)].name
            changes: tuple[Any, ...] = ()
            what = "no SW lost"
            if chk.lost and left == 1:
                # no choice left: the last unplaced SW (and any owed) goes now
                victims = self._unplaced_sws(st, side)
                for v in victims:
                    changes += unit_change(v.id, sw=None, sw_placed=None)
                rest = tuple(s for s in owed if s != side)
                changes += var_change(**{SW_REMOVAL_VAR: rest or None})
                what = f"{enemy} removes the unplaced " + ", ".join(
                    f"{self.catalog[v.attrs['sw']].name} of {v.name}" for v in victims
                )
            elif chk.lost:
                changes = var_change(**{SW_REMOVAL_VAR: (*owed, side)})
                what = f"{enemy} chooses which of {left} unplaced SWs is removed"
            ctx.emit(
                "sw_loss",
                side=side,
                unit=dead.id,
                dice=(chk.die,),
                needed=1,
                result="SW lost" if chk.lost else "no loss",
                detail=(
                    f"{dead.name} lost with SWs unplaced: d6 = {chk.die} "
                    f"{chk.modifier:+d} ({n_lost} infantry platoons lost) = "
                    f"{chk.total}; 1 or less: {what}"
                ),
                changes=changes,
            )
