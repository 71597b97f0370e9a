"""Veteran cards (orange, seed 003 §8.3): given by the firefight
(``[[sides]] veteran_cards``), held in the hand from the first pre-round.

The seed names one, **Close Call**: a unit may move one hex during the
opponent's artillery fire, in the pre-round sequence; the move is not an
action.  Here: when an opponent's off-board artillery strike has been
announced (its seven hexes, CoH 2e §12.3) and before its attacks, the game
stops in a *Close Call window* (public var ``close_call``: the deciding side)
in which the side decides ``PlayCard("close_call", units=(unit,), hex=to)``
or ``Pass()`` (let the strike land).

* ASSUMPTION (frequency, which the seed leaves to the card): once per game,
  then face up on the discard pile.
* ASSUMPTION: the unit is one of the side's units in the seven hexes about to
  be hit; it moves into an adjacent hex it may enter (not prohibited terrain,
  not a hex with a seen enemy: no close combat out of the pre-round), not if
  pinned, stunned, immobilised or transported; it faces the way it moved; a
  vehicle's cargo moves with it and a mine there attacks (the move's own
  step, ``Movement.emit_step``).  A hidden unit moves hidden (the card is
  logged without naming it, as Rapid Deployment's hidden move).
* ASSUMPTION (the hand is secret, though the firefight's deal is not): the
  window opens on public facts only: the firefight gave the side Close Call,
  it is not yet on the discard pile, and the strike is HE (smoke harms
  nobody, §13); never on where the side's hidden units are.  A smoke strike
  and the side's own artillery open none.

Examples:
    >>> from .cards import card
    >>> card("close_call").type, card("close_call").colour
    ('veteran', 'orange')
"""

from __future__ import annotations

from typing import Any

from wargame.engine import (
    Action,
    GameState,
    RuleContext,
    state_change,
    var_change,
)

from ._core import Mixin
from .actions import Pass, PlayCard
from .cards import card

__all__ = ["CLOSE_CALL", "Veterans"]

#: The card's id.
CLOSE_CALL = "close_call"


class Veterans(Mixin):
    """Mixin: the veteran cards (module docstring)."""

    veteran_cards: dict[str, tuple[str, ...]]
    hand: Any

    def close_call_open(self, state: GameState) -> str | None:
        """The side deciding on a Close Call now (``None``: no window)."""
        side = state.vars.get("close_call")
        return str(side) if side else None

    def _may_close_call(self, state: GameState, side: str) -> bool:
        """Public facts (module docstring): dealt and not yet played."""
        given = self.veteran_cards.get(side, ()).count(CLOSE_CALL)
        played = tuple(state.decks.get("discard", ())).count(CLOSE_CALL)
        return given > played

    def open_close_call(self, ctx: RuleContext, striker: str, h: str) -> bool:
        """After ``striker``'s strike on ``h`` is announced: open the other
        side's Close Call window if it may hold the card (``True``)."""
        st = ctx.state
        side = self.other(striker)
        if not self._may_close_call(st, side):
            return False
        ctx.emit(
            "card",
            side=side,
            hex_to=h,
            detail="Close Call (veteran card): a unit may move one hex before "
            "the artillery hits (seed 003 §8.3), or Pass",
            changes=state_change(phase="artillery") + var_change(close_call=side),
        )
        return True

    def _strike_hexes(self, state: GameState) -> set[str]:
        pending = state.vars.get("strike")
        if not pending:
            return set()
        h = str(pending[1])
        return {h, *self.board.neighbors(h)}

    def close_call_problem(self, state: GameState, side: str, a: Action) -> str | None:
        """Why ``a`` is not a decision of the open window (``None``: it is)."""
        if isinstance(a, Pass):
            return None
        if not isinstance(a, PlayCard) or a.card != CLOSE_CALL:
            return (
                "the artillery waits: play Close Call (PlayCard('close_call', "
                "units=(unit,), hex=to)) or Pass (seed 003 §8.3)"
            )
        if CLOSE_CALL not in self.hand(state, side):
            return f"Close Call is not in {side}'s hand (seed 003 §8.3)"
        if a.pay is not None:
            return "Close Call is free: the move is not an action (seed 003 §8.3)"
        if len(a.units) != 1:
            return "Close Call moves one unit (seed 003 §8.3)"
        u = state.units.get(a.units[0])
        if u is None or u.side != side or u.destroyed or u.hex is None:
            return f"{a.units[0]!r} is not a unit of {side} on the map"
        if u.hex not in self._strike_hexes(state):
            return f"{u.name} is not in the hexes the artillery is about to hit"
        ut = self.specs[u.id].type
        m = self.marker(u)
        if u.attrs.get("carried_by"):
            return f"{u.name} is transported: it goes with its vehicle (§17.0)"
        if ut.move_cost is None or u.attrs.get("immobilised"):
            return f"{u.name} cannot move (CoH 2e §1.1, §14.5)"
        if m is not None and (m.no_move or m.rally_only):
            return f"{u.name} is {m.name}: it may not move (§7.5)"
        if not isinstance(a.hex, str) or a.hex not in self.board.neighbors(u.hex):
            return f"Close Call moves {u.name} one hex: name an adjacent hex"
        mob = str(ut.mobility)
        if (
            self.board.move_extra(u.hex, a.hex, "foot" if mob == "none" else mob)
            is None
        ):
            return f"{u.name} may not enter {a.hex} (prohibited terrain)"
        if self.enemy_in(state, a.hex, side):
            return f"{a.hex} holds an enemy: no close combat from a Close Call"
        return None

    def close_call_options(self, state: GameState, side: str) -> list[Action]:
        """Pass, or each unit in the hexes about to be hit to each hex it may
        enter."""
        out: list[Action] = [Pass()]
        if CLOSE_CALL not in self.hand(state, side):
            return out
        hexes = self._strike_hexes(state)
        for u in sorted(state.units.values(), key=lambda x: x.id):
            if u.side != side or u.destroyed or u.hex not in hexes:
                continue
            assert u.hex is not None
            for to in sorted(self.board.neighbors(u.hex)):
                a = PlayCard(CLOSE_CALL, (u.id,), to)
                if self.close_call_problem(state, side, a) is None:
                    out.append(a)
        return out

    def do_close_call(self, ctx: RuleContext, side: str, a: Action) -> None:
        """Move the unit (or let the strike come), close the window; the
        pre-round goes on (the strike's attacks) when the game advances."""
        st = ctx.state
        if isinstance(a, PlayCard):
            cd = card(CLOSE_CALL)
            uid = a.units[0]
            u = st.units[uid]
            assert u.hex is not None and a.hex is not None
            if u.hidden:  # a hidden move names nothing (seed 003 §10.1)
                self.card_played(ctx, side, cd, how="(seed 003 §8.3)")
            else:
                self.card_played(ctx, side, cd, (uid,), a.hex, how="(seed 003 §8.3)")
            self.emit_step(
                ctx,
                side,
                uid,
                a.hex,
                self.board.direction(u.hex, a.hex),
                "Close Call, hidden (seed 003 §8.3)"
                if u.hidden
                else "Close Call: out of the artillery's way (seed 003 §8.3)",
            )
        else:
            ctx.emit("card", side=side, detail=f"{side} plays no Close Call")
        ctx.emit("card", changes=var_change(close_call=None))
