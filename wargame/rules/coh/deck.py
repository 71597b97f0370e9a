"""Cards (seed 003 §8): the deck a firefight names, the draw, secret hands.

The firefight's card number makes the deck: every green and yellow card of the
2nd-edition set whose corner number is at most it (seed 003 §8.1), plus the
event cards it names (``rules.extra_cards``, CoH 2e §8.3).  Each pre-round each
side draws its cards from the top (the firefight says how many: ``cards`` in
round 1, ``cards_per_round`` after).  Yellow cards are played at once
(:meth:`on_draw`, :mod:`.card_play`); green cards go to the side's secret hand
(deck ``hand:<side>``).  Weapon cards the firefight gives a side
(``weapon_cards``) and veteran cards (``veteran_cards``, seed 003 §8.3) are in
its hand from the first pre-round (CoH 2e §8.4).  The
draw pile is secret from both sides (deck ``cards``); played cards lie face up
on the discard pile (deck ``discard``, CoH 2e §8.2).  Fresh units acting
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
    extra_cards: tuple[str, ...]
    weapon_cards: dict[str, tuple[str, ...]]
    veteran_cards: dict[str, tuple[str, ...]]

    def deck_viewers(self, state: GameState, name: str) -> frozenset[str] | None:
        """Hands are their owner's; the draw pile nobody's (seed 003 §8.1);
        hidden mines (``mines:<side>``, CoH 2e §18.3.3) and plotted artillery
        (``oba:<side>``, §12.3) and rolls waiting for a Luck! card
        (``roll:<side>``, card #12) their owner's."""
        for prefix in ("hand:", "mines:", "oba:", "roll:"):
            if name.startswith(prefix):
                return frozenset({name[len(prefix) :]})
        if name == "cards":
            return frozenset()
        return None

    def draw_cards(self, ctx: RuleContext, rnd: int) -> None:
        """Each side draws its cards for the round (seed 003 §8.1)."""
        if rnd == 1:
            self._deal_weapon_cards(ctx)
        if not self.card_limit and not self.extra_cards:
            return
        st = ctx.state
        if rnd == 1:
            what = f"cards numbered up to {self.card_limit}"
            if self.extra_cards:
                what += " and " + ", ".join(self.extra_cards)
            ctx.emit("card", detail=f"the deck: {what}")
            ctx.emit(
                "card",
                detail="the deck, shuffled",
                visible_to=(),
                changes=deck_change(
                    "cards", deck_for(self.card_limit, extra=self.extra_cards)
                ),
            )
        for side in self.sides:
            n = self.cards_start[side] if rnd == 1 else self.cards_round[side]
            for _ in range(n):
                if st.vars.get("over"):
                    return
                card = self.draw_one(ctx, side)
                if card is None:
                    break
                self.on_draw(ctx, side, card)

    def draw_one(self, ctx: RuleContext, side: str) -> str | None:
        """``side`` draws the top card into its hand (``None``: the pile is empty)."""
        st = ctx.state
        pile = list(st.decks.get("cards", ()))
        if not pile:
            return None
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
        return card

    def _deal_weapon_cards(self, ctx: RuleContext) -> None:
        """The weapon and veteran cards the firefight gives each side (CoH 2e
        §8.4; seed 003 §8.3)."""
        st = ctx.state
        for side in self.sides:
            cards = (
                *self.weapon_cards.get(side, ()),
                *self.veteran_cards.get(side, ()),
            )
            if not cards:
                continue
            ctx.emit(
                "card",
                side=side,
                detail="weapon and veteran cards from the firefight",
                changes=deck_change(
                    f"hand:{side}", (*st.decks.get(f"hand:{side}", ()), *cards)
                ),
                visible_to=(side,),
            )
            ctx.emit(
                "card",
                side=side,
                detail=f"{side} receives {len(cards)} weapon or veteran card(s) "
                "(§8.4, seed 003 §8.3)",
            )

    def on_draw(self, ctx: RuleContext, side: str, card: str) -> None:
        """A drawn yellow card is played at once (seed 003 §8.1; the rules are
        in :mod:`.card_play`)."""
        return None
