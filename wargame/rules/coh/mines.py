"""Mines (CoH 2e §18.3.3, §19.0; research/coh.md §1.11): see
:mod:`.fortifications` for the rules as played and their assumptions.

Public mines are ``("mine", hex, owner)`` entries of ``vars["forts"]``; hidden
ones the hex labels in the deck ``mines:<owner>``, which only the owner sees.
"""

from __future__ import annotations

from wargame.engine import RuleContext, deck_change, var_change

from ._core import Mixin

__all__ = ["MINE_HIT", "Mines"]

#: A mine hits on 2d6 >= 8 (§18.3.3).
MINE_HIT = 8


class Mines(Mixin):
    """Mixin: mines going off under units that enter or act in their hex."""

    sides: tuple[str, str]

    def mines_go_off(self, ctx: RuleContext, uid: str, h: str) -> None:
        st = ctx.state
        found = [(o, False) for k, x, o in self.forts(st) if k == "mine" and x == h]
        found += [(s, True) for s in self.sides if h in st.decks.get(f"mines:{s}", ())]
        for owner, hidden in found:
            u = st.units[uid]
            if u.destroyed:
                return
            if hidden and not u.hidden:
                self._reveal_mine(ctx, owner, h, f"{u.name} comes upon it")
                hidden = False
            if self.is_pioneer(uid):
                ctx.emit(
                    "mine",
                    side=u.side,
                    unit=uid,
                    hex_to=h,
                    detail="pioneers do not set off mines (§19.0)",
                    visible_to=(u.side,) if u.hidden else None,
                )
                continue
            self._mine_attack(ctx, uid, h, owner, hidden)

    def _reveal_mine(self, ctx: RuleContext, owner: str, h: str, why: str) -> None:
        st = ctx.state
        left = [x for x in st.decks.get(f"mines:{owner}", ()) if x != h]
        ctx.emit(
            "mine",
            side=owner,
            detail="a hidden mine leaves the written list",
            changes=deck_change(f"mines:{owner}", left),
            visible_to=(owner,),
        )
        ctx.emit(
            "mine",
            side=owner,
            hex_to=h,
            result="mine revealed",
            detail=f"a hidden mine at {h}: {why} (§18.3.3)",
            changes=var_change(forts=(*self.forts(st), ("mine", h, owner))),
        )

    def _mine_attack(
        self, ctx: RuleContext, uid: str, h: str, owner: str, hidden_mine: bool
    ) -> None:
        st = ctx.state
        u = st.units[uid]
        vis = (u.side,) if u.hidden else None
        dice = ctx.roll(
            2,
            kind="mine",
            side=owner,
            target=uid,
            hex_to=h,
            needed=MINE_HIT,
            detail="a mine attacks: 2d6, 8 or more hits; no DMs (§18.3.3)",
            visible_to=vis,
        )
        total = sum(dice)
        if total < MINE_HIT:
            ctx.emit(
                "mine",
                side=owner,
                target=uid,
                hex_to=h,
                result="miss",
                detail=f"{total} < {MINE_HIT}: no hit",
                visible_to=vis,
            )
            return
        if u.hidden:
            self.reveal_hex(ctx, h, u.side, "is hit by a mine (§18.3.3)")
        if hidden_mine:
            self._reveal_mine(ctx, owner, h, "it goes off")
        t = st.units[uid]
        if t.attrs.get("marked"):
            self.destroy(ctx, t, f"a mine hits ({total}) a hit unit (§7.5, §18.3.3)")
        else:
            self.draw_marker(ctx, t, f"mine: {total} >= {MINE_HIT}, hit (§18.3.3)")
