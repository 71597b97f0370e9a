"""The round: pre-round, initiative, alternating turns, passes, round end and
victory (CoH 2e §2.0-2.5, §3.2.4).

Pre-round, in the rulebook's order (§2.0): spent units turn fresh; smoke thins
(+2 to +1, +1 gone, §13); CAPs are reset to the firefight's number less one per
unit of the side on its CAP track (§7.4, leftovers lost); cards are drawn (seed
003 §8.1); reinforcements of the round become available (§5.5); then
initiative.  Round 1's initiative is the firefight's; later rounds each side
rolls 2d6 (ties rolled again) plus the 0-2 CAPs it announced, the side with
more CAPs announcing first, the Soviets on a tie (§2.1).  The high roll takes
the first turn; turns alternate one action at a time (§2.2); two passes in a
row end the round (§2.3); control markers score at the end of each round
(§2.5.2); after the last round the higher VP total wins and a tie means both
lose (§2.4).
"""

from __future__ import annotations

from typing import Any

from wargame.engine import (
    GameState,
    Outcome,
    RuleContext,
    pool_change,
    state_change,
    unit_change,
    var_change,
)

from ._core import Mixin, status_of
from .actions import InitiativeBid

__all__ = ["RoundSequence"]


class RoundSequence(Mixin):
    """Mixin: the round's automatic steps and its end."""

    sides: tuple[str, str]
    scenario: Any

    def advance(self, ctx: RuleContext) -> None:
        """Play the automatic steps until a side must decide."""
        st = ctx.state
        for _ in range(100):
            if st.vars.get("over"):
                return
            if st.phase == "setup":
                self._start_round(ctx, 1)
                continue
            if st.phase == "initiative" and not st.vars.get("bidder"):
                self._roll_initiative(ctx)
                continue
            if (
                st.phase == "artillery"
                and not st.vars.get("plotter")
                and not st.vars.get("close_call")  # a veteran card's window
            ):
                self.finish_pre_round(ctx, st.turn)
                continue
            if st.phase == "play" and int(st.vars.get("passes", 0)) >= 2:
                self._end_round(ctx)
                continue
            return

    def current_side(self, state: GameState) -> str | None:
        """Who decides: the bidder during initiative, else the side whose turn it is."""
        if state.vars.get("over"):
            return None
        if state.phase == "initiative":
            return state.vars.get("bidder")
        if state.phase == "artillery":
            return state.vars.get("close_call") or state.vars.get("plotter")
        return state.vars.get("side")

    # -- pre-round -------------------------------------------------------- #
    def _start_round(self, ctx: RuleContext, rnd: int) -> None:
        st = ctx.state
        ctx.emit(
            "round",
            result=f"round {rnd}",
            detail="pre-round (§2.0)",
            changes=state_change(turn=rnd, phase="pre-round"),
        )
        fresh: list[Any] = []
        private: list[Any] = []
        for u in st.units.values():
            if not u.destroyed and status_of(u) != "fresh":
                (private if u.hidden else fresh).extend(
                    unit_change(u.id, status="fresh")
                )
        if fresh:
            ctx.emit("fresh", detail="spent units turn fresh (§2.0)", changes=fresh)
        for side in self.sides:
            if private:
                mine = [c for c in private if st.units[c[1]].side == side]
                if mine:
                    ctx.emit(
                        "fresh",
                        side=side,
                        detail="hidden units turn fresh",
                        changes=mine,
                        visible_to=(side,),
                    )
        self.thin_smoke(ctx)
        for side in self.sides:
            caps = self.caps_start[side] - int(st.vars.get(f"losses:{side}", 0))
            ctx.emit(
                "caps",
                side=side,
                result=str(max(caps, 0)),
                detail="CAPs reset: the firefight's less the CAP track's losses (§7.4)",
                changes=pool_change(f"caps:{side}", max(caps, 0))
                + pool_change(f"ap:{side}", 0),
            )
        self.draw_cards(ctx, rnd)
        if st.vars.get("over"):  # a Game Ends card was drawn (S1 card list)
            return
        if self.begin_plotting(ctx, rnd):  # OBA targets (§2.0, §12.3)
            return
        self.finish_pre_round(ctx, rnd)

    def finish_pre_round(self, ctx: RuleContext, rnd: int) -> None:
        """The pre-round after the artillery targets: last round's strikes,
        reinforcements, initiative (§2.0)."""
        st = ctx.state
        if not self.resolve_oba(ctx, rnd):
            return  # a strike waits for a Close Call decision (seed 003 §8.3)
        self.check_annihilation(ctx)
        if st.vars.get("over"):
            return
        due = sorted(
            u.id
            for u in st.units.values()
            if u.hex is None
            and not u.destroyed
            and int(u.attrs.get("arrives", 0)) == rnd
        )
        if due:
            ctx.emit(
                "reinforcements",
                detail="may enter this round (§5.5): " + ", ".join(due),
            )
        if rnd == 1 and self.first_initiative is not None:
            first = self.first_initiative
            ctx.emit(
                "initiative",
                side=first,
                result=first,
                detail="the firefight gives round 1's initiative",
                changes=state_change(phase="play")
                + var_change(side=first, first=first, passes=0),
            )
            return
        order = sorted(
            self.sides,
            key=lambda s: (-self.caps(st, s), self.nation.get(s) != "soviet", s),
        )
        ctx.emit(
            "initiative",
            detail=f"{order[0]} announces its CAPs first (§2.1)",
            changes=state_change(phase="initiative")
            + var_change(bidder=order[0], bid_order=tuple(order)),
        )

    # -- initiative ------------------------------------------------------- #
    def bid_options(self, state: GameState) -> list[InitiativeBid]:
        """0, 1 or 2 CAPs, as many as the bidder has (§2.1, §3.2)."""
        side = state.vars.get("bidder")
        if side is None:
            return []
        most = min(2, self.caps(state, side))
        return [InitiativeBid(n) for n in range(most + 1)]

    def bid_problem(self, state: GameState, a: InitiativeBid) -> str | None:
        """Why an initiative bid is not allowed."""
        side = state.vars.get("bidder")
        if state.phase != "initiative" or side is None:
            return "no initiative roll is under way"
        if not isinstance(a.caps, int) or not 0 <= a.caps <= 2:
            return f"{a.caps!r}: 0-2 CAPs modify the initiative roll (§2.1, §3.2)"
        if a.caps > self.caps(state, side):
            return f"{side} has {self.caps(state, side)} CAPs"
        return None

    def do_bid(self, ctx: RuleContext, a: InitiativeBid) -> None:
        """Announce, pay, and pass the word to the other side (or roll)."""
        st = ctx.state
        side = str(st.vars["bidder"])
        order = tuple(st.vars.get("bid_order", self.sides))
        nxt = (
            order[1] if side == order[0] and f"bid:{order[1]}" not in st.vars else None
        )
        ctx.emit(
            "initiative",
            side=side,
            result=f"{a.caps} CAP",
            detail=f"{side} adds {a.caps} CAP to its initiative roll",
            changes=pool_change(f"caps:{side}", self.caps(st, side) - a.caps)
            + var_change(**{f"bid:{side}": a.caps, "bidder": nxt}),
        )

    def _roll_initiative(self, ctx: RuleContext) -> None:
        st = ctx.state
        a, b = self.sides
        for _ in range(1000):
            ra = ctx.roll(2, kind="initiative", side=a, detail="initiative 2d6 (§2.1)")
            rb = ctx.roll(2, kind="initiative", side=b, detail="initiative 2d6 (§2.1)")
            ta = sum(ra) + int(st.vars.get(f"bid:{a}", 0))
            tb = sum(rb) + int(st.vars.get(f"bid:{b}", 0))
            if ta != tb:
                break
        first = a if ta > tb else b
        ctx.emit(
            "initiative",
            side=first,
            result=first,
            detail=f"{a} {ta}, {b} {tb}: {first} takes the first turn",
            changes=state_change(phase="play")
            + var_change(
                side=first,
                first=first,
                passes=0,
                bid_order=None,
                **{f"bid:{a}": None, f"bid:{b}": None},
            ),
        )

    # -- turns ------------------------------------------------------------ #
    def next_turn(self, ctx: RuleContext, side: str, *, passed: bool = False) -> None:
        """The other side's turn (§2.2); count passes in a row (§2.3)."""
        st = ctx.state
        passes = int(st.vars.get("passes", 0)) + 1 if passed else 0
        ctx.emit(
            "pass" if passed else "turn",
            side=side,
            detail="passes" if passed else "turn ends",
            changes=var_change(
                side=self.other(side),
                passes=passes,
                turn_no=int(st.vars.get("turn_no", 0)) + 1,
            ),
        )

    def _end_round(self, ctx: RuleContext) -> None:
        st = ctx.state
        for _oid, h, vp, _by in self.objectives:
            holder = st.control.get(h)
            if holder is not None and vp:
                ctx.emit(
                    "vp",
                    side=holder,
                    hex_to=h,
                    result=f"+{vp}",
                    detail=f"holds {h} at the end of round {st.turn} (§2.5.2)",
                    changes=var_change(
                        **{f"vp:{holder}": int(st.vars.get(f"vp:{holder}", 0)) + vp}
                    ),
                )
        ctx.emit(
            "round_end",
            result=f"round {st.turn} ends",
            detail="two passes in a row (§2.3)",
            changes=var_change(passes=0),
        )
        if st.turn >= self.scenario.turns:
            self._game_over(ctx, "last round")
        else:
            self._start_round(ctx, st.turn + 1)

    def _game_over(self, ctx: RuleContext, why: str) -> None:
        ctx.emit(
            "game_end",
            result=why,
            detail="the game ends (§2.4)",
            changes=state_change(phase="over") + var_change(over=why),
        )

    def check_annihilation(self, ctx: RuleContext) -> None:
        """The game ends when a side has no unit left to play (§2.4: its
        victory conditions are met)."""
        st = ctx.state
        if st.vars.get("over"):
            return
        for side in self.sides:
            if not any(u.side == side and not u.destroyed for u in st.units.values()):
                self._game_over(ctx, "annihilation")
                return

    def victory_points(self, state: GameState) -> dict[str, int]:
        """VP per side now (§2.5)."""
        return {s: int(state.vars.get(f"vp:{s}", 0)) for s in self.sides}

    def outcome(self, state: GameState) -> Outcome | None:
        """The higher VP total wins; a tie means both lose (§2.4)."""
        why = state.vars.get("over")
        if not why:
            return None
        vp = self.victory_points(state)
        a, b = self.sides
        if vp[a] == vp[b]:
            return Outcome(None, f"{why}: tie, both lose (§2.4)", vp, state.turn)
        return Outcome(a if vp[a] > vp[b] else b, str(why), vp, state.turn)
