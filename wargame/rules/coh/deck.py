"""Cards (seed 003 §8): the deck a firefight names, the draw, secret hands.

The firefight's card number makes the deck: every green and yellow card of the
2nd-edition set whose corner number is at most it (seed 003 §8.1).  Each
pre-round each side draws its cards from the top (the firefight says how many:
``cards`` in round 1, ``cards_per_round`` after).  Yellow cards are played at
once; green cards go to the side's secret hand (deck ``hand:<side>``).  The
draw pile is secret from both sides (deck ``cards``).  Fresh units acting
through a card stay fresh (§8.1).
"""

from __future__ import annotations

from wargame.engine import GameState, RuleContext, deck_change

from ._core import Mixin
from .cards import deck_for

__all__ = ["Cards"]


class Cards(Mixin):
    """Mixin: the deck, the draw and the hands."""

    sides: tuple[str, str]
    card_limit: int
    cards_start: dict[str, int]
    cards_round: dict[str, int]

    def deck_viewers(self, state: GameState, name: str) -> frozenset[str] | None:
        """Hands are their owner's; the draw pile nobody's (seed 003 §8.1);
        hidden mines (``mines:<side>``, CoH 2e §18.3.3) and plotted artillery
        (``oba:<side>``, §12.3) their owner's."""
        for prefix in ("hand:", "mines:", "oba:"):
            if name.startswith(prefix):
                return frozenset({name[len(prefix) :]})
        if name == "cards":
            return frozenset()
        return None

    def draw_cards(self, ctx: RuleContext, rnd: int) -> None:
        """Each side draws its cards for the round (seed 003 §8.1)."""
        if not self.card_limit:
            return
        st = ctx.state
        if rnd == 1:
            ctx.emit("card", detail=f"the deck: cards numbered up to {self.card_limit}")
            ctx.emit(
                "card",
                detail="the deck, shuffled",
                visible_to=(),
                changes=deck_change("cards", deck_for(self.card_limit)),
            )
        for side in self.sides:
            n = self.cards_start[side] if rnd == 1 else self.cards_round[side]
            for _ in range(n):
                pile = list(st.decks.get("cards", ()))
                if not pile:
                    break
                (i,) = ctx.roll(
                    1,
                    sides=len(pile),
                    kind="draw",
                    side=side,
                    detail="a card drawn",
                    visible_to=(side,),
                )
                card = pile.pop(i - 1)
                hand = (*st.decks.get(f"hand:{side}", ()), card)
                ctx.emit(
                    "draw",
                    detail="the pile",
                    visible_to=(),
                    changes=deck_change("cards", pile),
                )
                ctx.emit(
                    "draw",
                    side=side,
                    result=card,
                    detail="card drawn into the hand",
                    changes=deck_change(f"hand:{side}", hand),
                    visible_to=(side,),
                )
                ctx.emit("draw", side=side, detail=f"{side} draws a card")
                self.on_draw(ctx, side, card)

    def on_draw(self, ctx: RuleContext, side: str, card: str) -> None:
        """A drawn yellow card is played at once (seed 003 §8.1)."""
        return None
