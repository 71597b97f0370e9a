"""The close-combat retreat restriction (CoH 2e §7.7.3, §5.4).

A unit that moves into a hex held by the enemy starts close combat (§5.4).
The defenders may react on their next turn by attacking back or retreating;
a defender that retreats out of the hex on that turn may not enter the hex the
advancing unit came from nor either of the two hexes next to both it and the
close-combat hex (§7.7.3).  Later actions may enter them.

The advance is public: ``vars["cc_advance"]`` holds ``(hex, from, side,
turn_no)`` for each recent advance (``side``: the advancing side).

* ASSUMPTION: "the defending unit" is every unit of the other side in the hex
  when the advance ends there, and "that turn" is the defending side's first
  turn after the advance (its very next turn, or the one after a Swift
  Action's second action, card #10).
* ASSUMPTION: a hidden unit's advance (a hidden move, seen by nobody) sets no
  restriction; nor does a reinforcement entering from off the map (it has no
  hex it came from).
"""

from __future__ import annotations

from typing import Any

from wargame.engine import GameState, RuleContext, Unit, var_change

from ._core import Mixin

__all__ = ["CcRetreat"]

#: How many turns an advance is kept in the state (the reaction turn is at
#: most two turns after it: a Swift Action gives the mover a second one).
_KEEP_TURNS = 2


class CcRetreat(Mixin):
    """Mixin: recording close-combat advances and the defenders' retreat."""

    board: Any

    def _advances(self, state: GameState) -> list[tuple[str, str, str, int]]:
        return [
            (str(h), str(f), str(s), int(t))
            for h, f, s, t in state.vars.get("cc_advance") or ()
        ]

    def note_advance(self, ctx: RuleContext, uid: str, frm: str | None, h: str) -> None:
        """Record a unit's move from ``frm`` into a hex held by the enemy
        (§7.7.3); older advances drop out."""
        st = ctx.state
        u = st.units[uid]
        if frm is None or u.hidden:
            return
        if not any(x.side != u.side and not x.destroyed for x in st.units_at(h)):
            return
        now = int(st.vars.get("turn_no", 0))
        keep = [
            rec
            for rec in self._advances(st)
            if now - rec[3] <= _KEEP_TURNS and rec[0] != h
        ]
        ctx.emit(
            "move",
            side=u.side,
            unit=uid,
            hex_from=frm,
            hex_to=h,
            result="close combat",
            detail=f"advances into the enemy's hex from {frm} (§5.4, §7.7.3)",
            changes=var_change(cc_advance=(*keep, (h, frm, u.side, now))),
        )

    def retreat_problem(self, state: GameState, u: Unit, to: str) -> str | None:
        """Why ``u`` may not retreat into ``to`` on its side's reaction turn
        (§7.7.3); ``None``: it may."""
        if u.hex is None:
            return None
        now = int(state.vars.get("turn_no", 0))
        for h, frm, side, t in self._advances(state):
            # the defenders' next turn is the one after the advance, or the
            # one after that when a Swift Action gave the mover two in a row
            if h != u.hex or side == u.side or not 0 < now - t <= _KEEP_TURNS:
                continue
            barred = {frm} | (
                set(self.board.neighbors(frm)) & set(self.board.neighbors(h))
            )
            if to in barred:
                return (
                    f"{u.name} retreats out of close combat at {h}: not into "
                    f"{to}, the hex the enemy advanced from ({frm}) or one next "
                    "to both, on this turn (CoH 2e §7.7.3)"
                )
        return None
