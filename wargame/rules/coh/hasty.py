"""Hasty defences (CoH 2e §18.1.3; research/coh.md §1.11): see
:mod:`.fortifications` for the rules as played and their assumptions.

:meth:`HastyDefences.lose_hasty` is the one way a hasty defence counter is
taken off (a unit that moves, pivots or hides): movement, Rapid Deployment,
pivots and hiding all call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wargame.engine import GameState, RuleContext, unit_change

from ._core import Mixin
from .actions import HastyDefence

__all__ = ["HASTY_COST", "HastyDefences"]

#: A hasty defence costs 7 AP (§18.1.3).
HASTY_COST = 7
#: What counts as water for hasty defences and trenches (ASSUMPTION: streams too).
WATER = ("stream", "deep_water")


class HastyDefences(Mixin):
    """Mixin: preparing and losing hasty defences."""

    board: Any
    specs: dict[str, Any]

    def lose_hasty(self, ctx: RuleContext, uids: Sequence[str], why: str) -> None:
        """A unit that moves, pivots or hides loses its hasty defence (§18.1.3)."""
        st = ctx.state
        for uid in uids:
            u = st.units[uid]
            if not u.attrs.get("hasty"):
                continue
            ctx.emit(
                "fortification",
                side=u.side,
                unit=uid,
                result="hasty defence lost",
                detail=f"{u.name} {why}: its hasty defence is removed (§18.1.3)",
                changes=unit_change(uid, hasty=None),
                visible_to=(u.side,) if u.hidden else None,
            )

    # -- hasty defence -------------------------------------------------------- #
    def hasty_problem(
        self, state: GameState, side: str, a: HastyDefence
    ) -> tuple[str | None, int]:
        """Why a hasty defence is illegal (``None``) and its cost (7 AP, §18.1.3)."""
        us = [state.units.get(x) for x in a.units]
        if not us or any(
            u is None or u.side != side or u.destroyed or u.hex is None for u in us
        ):
            return f"{side} digs in only with its own units on the map", 0
        if len(set(a.units)) != len(a.units):
            return "a unit is named twice", 0
        for u in us:
            assert u is not None and u.hex is not None
            if self.specs[u.id].type.kind != "foot":
                return f"{u.name} is no foot unit: only foot units dig in (§18.1.3)", 0
            if u.attrs.get("hasty"):
                return f"{u.name} has a hasty defence already (one each, §18.1.3)", 0
            if self.board.terrain[u.hex] in WATER:
                return f"no hasty defence in water ({u.hex}, §18.1.3)", 0
            m = self.marker(u)
            if m is not None and m.rally_only:
                return f"{u.name} is {m.name}: it may only rally (§7.5)", 0
        if len(us) > 1 and not self.group_ok([u.hex for u in us if u and u.hex]):
            return "a group hasty defence needs contiguous units (seed 003 §9.2)", 0
        return None, HASTY_COST

    def hasty_options(self, state: GameState, side: str) -> list[HastyDefence]:
        """A hasty defence for each foot unit that may prepare one, each way it
        may pay."""
        out: list[HastyDefence] = []
        for u in state.units.values():
            if u.side != side or u.destroyed or u.hex is None or u.attrs.get("hasty"):
                continue
            for pay in self.pays(state, side, (u.id,)):
                a = HastyDefence((u.id,), pay)
                if self.why_not(state, a) is None:
                    out.append(a)
        return out

    def do_hasty(self, ctx: RuleContext, side: str, a: HastyDefence) -> None:
        """Pay, put a hasty defence on each unit, then any mine goes off."""
        st = ctx.state
        problem, cost = self.hasty_problem(st, side, a)
        assert problem is None, problem
        self.reveal_actors(ctx, a.units, "prepares a hasty defence")
        self.pay(ctx, side, a.units, a.pay, cost, "hasty defence")
        for uid in a.units:
            ctx.emit(
                "fortification",
                side=side,
                unit=uid,
                hex_to=st.units[uid].hex,
                result="hasty defence",
                detail="prepares a hasty defence: +1 DM all round (§18.1.3)",
                changes=unit_change(uid, hasty=True),
            )
        for uid in a.units:
            u = st.units[uid]
            if not u.destroyed and u.hex is not None:
                self.mines_go_off(ctx, uid, u.hex)
