"""Rally (CoH 2e §7.6, §7.6.1; group rally, seed 003 §9.13).

A rally costs 5 AP/CAP once for the unit or group; each unit rolls 2d6 plus
its bonus (+1 in cover, +1 per un-hit friendly unit in the hex) against its
marker's rally number.  The rolls are made first and land together, after a
Luck! window (card #12, :mod:`.luck`) if one opens.
"""

from __future__ import annotations

from wargame.engine import GameState, RuleContext, Unit, unit_change

from ._core import RALLY_COST, Mixin
from .actions import Rally
from .attack_rolls import PlanEntry

__all__ = ["Rallying"]


class Rallying(Mixin):
    """Mixin: rally legality, rolls and results."""

    def rally_problem(
        self, state: GameState, side: str, a: Rally
    ) -> tuple[str | None, int]:
        """Why a rally is illegal (``None``) and its cost (5, §7.6, §9.13)."""
        us = [state.units.get(x) for x in a.units]
        if not us or any(
            u is None or u.side != side or u.destroyed or u.hex is None for u in us
        ):
            return f"{side} rallies only its own units on the map", 0
        for u in us:
            assert u is not None and u.hex is not None
            m = self.marker(u)
            if m is None:
                return f"{u.name} has no hit marker to rally from (§7.6)", 0
            if m.rally is None:
                return (
                    f"{u.name}'s {m.name} marker cannot be rallied (No Rally, §15.2)",
                    0,
                )
            if self.enemy_in(state, u.hex, side):
                return f"{u.name} may not rally with an enemy in its hex (§7.6)", 0
        if len(us) > 1 and not self.group_ok([u.hex for u in us if u and u.hex]):
            return "a group rally needs contiguous units (seed 003 §9.13)", 0
        return None, RALLY_COST

    def remove_marker(self, ctx: RuleContext, u: Unit, detail: str) -> None:
        """A rallied unit's marker goes back to the pile (§7.6): its face-down
        kind is cleared in an event its owner alone sees, the rest in public."""
        if u.attrs.get("hit"):
            ctx.emit(
                "rally",
                side=u.side,
                unit=u.id,
                detail="the marker goes back to the pile",
                changes=unit_change(u.id, hit=None),
                visible_to=(u.side,),
            )
        ctx.emit(
            "rally",
            side=u.side,
            unit=u.id,
            result="rallied",
            detail=detail,
            changes=unit_change(u.id, marker=None, marked=None),
        )

    def rally_bonus(self, state: GameState, u: Unit) -> int:
        """+1 in cover, +1 per un-hit friendly unit in the hex (§7.6.1)."""
        assert u.hex is not None
        b = 1 if self.board.cover(u.hex) else 0
        b += sum(
            1
            for x in state.units_at(u.hex)
            if x.side == u.side and x.id != u.id and not x.attrs.get("marked")
        )
        return b

    def do_rally(self, ctx: RuleContext, side: str, a: Rally) -> None:
        """Pay once; each unit rolls 2d6 + bonus against its marker's rally number."""
        st = ctx.state
        problem, cost = self.rally_problem(st, side, a)
        assert problem is None, problem
        self.reveal_actors(ctx, a.units, "rallies")
        self.pay(ctx, side, a.units, a.pay, cost, "rally")
        self.rally_rolls(ctx, side, a.units)

    def rally_rolls(self, ctx: RuleContext, side: str, units: tuple[str, ...]) -> None:
        """Each unit rolls 2d6 + bonus against its marker's rally number (§7.6;
        one roll each in a group, seed 003 §9.13); the results land after a
        Luck! window (card #12) if one opens."""
        st = ctx.state
        plan: list[PlanEntry] = []
        for uid in units:
            u = st.units[uid]
            m = self.marker(u)
            assert m is not None and m.rally is not None
            self.reveal_marker(
                ctx, u, "always"
            )  # ASSUMPTION: the roll shows the number
            bonus = self.rally_bonus(st, u)
            dice = ctx.roll(
                2,
                kind="rally",
                side=side,
                unit=uid,
                needed=int(m.rally) - bonus,
                detail=f"2d6 + {bonus} against rally {m.rally} (§7.6)",
            )
            plan.append(["rally", uid, sum(dice) + bonus, int(m.rally)])
        if not self.offer_luck(ctx, side, plan, None):
            self.land_rolls(ctx, side, plan)

    def land_rally(
        self, ctx: RuleContext, side: str, uid: str, total: int, need: int
    ) -> None:
        """A rally roll's result: the marker goes, or the unit stays hit (§7.6)."""
        if total >= need:
            self.remove_marker(ctx, ctx.state.units[uid], "")
        else:
            ctx.emit(
                "rally",
                side=side,
                unit=uid,
                result="failed",
                detail=f"{total} < rally {need}",
            )
