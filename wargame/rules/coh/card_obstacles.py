"""Cards that lay and clear obstacles: Mine-Laying (#40), Obstacle-Clearing
(#41) and the Tellermine laid as a mine (the card list, S1 p.17; CoH 2e
§18.3.3; research/coh.md §5.3).

* **Mine-Laying** (#40, ``PlayCard("mine_laying", (unit,), hex)``): one fresh,
  activated or spent, un-hit, unburdened foot unit not in close combat lays a
  mine in its own or an adjacent hex holding no seen enemy (card text and
  front).  The mine is laid hidden if no enemy unit sees the hex (card text:
  "may be placed as hidden if out of enemy LOS"); ASSUMPTION: a player always
  lays it hidden when he may, and "enemy LOS" is that of the enemy units his
  side can see (hidden ones would betray themselves).  A hidden mine is
  written in the deck ``mines:<side>`` (its owner alone sees it); the card's
  play names the unit but not the hex.  A mine seen laid is a public counter.
* **Tellermine** (weapon card, 2 AP/CAP): ``PlayCard("tellermine", (unit,),
  hex)`` at a hex within one of the unit with no seen enemy lays it as a mine
  by the rules of card #40 (card list); at the unit's own hex with an enemy
  vehicle it attacks (:mod:`.card_weapons`).
* **Obstacle-Clearing** (#41, ``PlayCard("obstacle_clearing", (unit,))``): one
  fresh, activated or spent, un-hit, unburdened foot unit not in close combat,
  not a group, removes one obstacle counter (wire, road block or mine) from
  its own hex (card text and front).  ASSUMPTION: with several, the mine goes
  first, then the wire, then the road block (the action names no counter);
  hidden mines are not counters on the map and stay.
* At most one mine per hex (§18.0): ASSUMPTION: a side may not lay one where
  a mine is seen or where it has a hidden one; an enemy's hidden mine it cannot
  know of does not stop it (both then lie there).
* ASSUMPTION: "an available mine" is not counted (the game's counter mix is
  not known); a newly laid mine attacks only units entering later (§18.3.3:
  units already in the hex are not attacked), and the card's action sets off
  no mine in the unit's hex.
"""

from __future__ import annotations

from typing import Any

from wargame.engine import GameState, RuleContext, Unit, deck_change, var_change

from ._core import Mixin
from .actions import PlayCard
from .cards import Card

__all__ = ["CLEAR_ORDER", "CardObstacles"]

#: What Obstacle-Clearing removes first (ASSUMPTION, module docstring).
CLEAR_ORDER = ("mine", "wire", "roadblock")
_WORDS = {"mine": "mine", "wire": "barbed wire", "roadblock": "road block"}


class CardObstacles(Mixin):
    """Mixin: cards #40, #41 and the Tellermine laid as a mine."""

    board: Any
    specs: dict[str, Any]

    # -- who may work ------------------------------------------------------- #
    def _sapper(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> tuple[Unit | None, str | None]:
        """The one un-hit, unburdened foot unit not in close combat a card is
        played on (cards #40, #41)."""
        name = f"#{cd.number} {cd.name}" if cd.printed_number else cd.name
        if len(a.units) != 1:
            return None, f"{name} is played on one unit, not a group (card list)"
        u = state.units.get(a.units[0])
        if u is None or u.side != side or u.destroyed or u.hex is None:
            return None, f"{a.units[0]!r} is not a unit of {side} on the map"
        ut = self.specs[u.id].type
        if ut.kind != "foot" or not ut.unburdened:
            return None, f"{u.name} is no unburdened foot unit ({name}, card list)"
        if u.attrs.get("marked"):
            return None, f"{u.name} is hit: {name} needs an un-hit unit (card list)"
        if self.enemy_in(state, u.hex, side):
            return None, f"{u.name} is in close combat: no {name} (card list)"
        return u, None

    # -- laying a mine (card #40, the Tellermine) ----------------------------- #
    def lay_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        """Why ``a`` may not lay a mine (``None``: it may; card #40)."""
        u, why = self._sapper(state, side, a, cd)
        if u is None or why is not None:
            return why
        assert u.hex is not None
        h = a.hex
        if not isinstance(h, str) or h not in self.board.labels:
            return f"give the hex the mine is laid in (own or adjacent to {u.name})"
        if self.board.distance(u.hex, h) > 1:
            return f"{h} is not {u.name}'s hex or next to it (card #40)"
        if self.enemy_in(state, h, side):
            return f"no mine is laid in {h}: an enemy holds it (card #40)"
        if self.has_fort(state, "mine", h) or h in state.decks.get(f"mines:{side}", ()):
            return f"{h} has a mine already: one per hex (§18.0)"
        return None

    def lay_hidden(self, state: GameState, side: str, h: str) -> bool:
        """Whether a mine laid in ``h`` is hidden: no enemy unit ``side`` can
        see has a clear LOS to it (card #40, ASSUMPTION: module docstring)."""
        return not any(
            x.side != side
            and not x.destroyed
            and not x.hidden
            and x.hex is not None
            and self.sight(state, x.hex, h).clear
            for x in state.units.values()
        )

    def shown_card_hex(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        """The hex a card's public play names: not a hidden mine's (card #40)."""
        hidden = (
            cd.effect == "mine_laying"
            and isinstance(a.hex, str)
            and self.lay_hidden(state, side, a.hex)
        )
        return None if hidden else a.hex

    def lay_mine(self, ctx: RuleContext, side: str, uid: str, h: str, how: str) -> None:
        """Put the mine in ``h``, hidden if no enemy sees the hex (card #40)."""
        st = ctx.state
        name = st.units[uid].name
        if self.lay_hidden(st, side, h):
            ctx.emit(
                "mine",
                side=side,
                unit=uid,
                detail=f"{name} lays a hidden mine within one hex ({how})",
            )
            ctx.emit(
                "mine",
                side=side,
                hex_to=h,
                result="hidden mine laid",
                detail=f"the hidden mine at {h}, written down (card #40)",
                changes=deck_change(
                    f"mines:{side}", (*st.decks.get(f"mines:{side}", ()), h)
                ),
                visible_to=(side,),
            )
            return
        ctx.emit(
            "mine",
            side=side,
            unit=uid,
            hex_to=h,
            result="mine laid",
            detail=f"{name} lays a mine at {h} in the enemy's sight ({how})",
            changes=var_change(forts=(*self.forts(st), ("mine", h, side))),
        )

    def _mine_laying_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        return self.lay_problem(state, side, a, cd)

    def _do_mine_laying(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        assert a.hex is not None
        self.lay_mine(ctx, side, a.units[0], a.hex, "card #40")

    def lay_candidates(self, state: GameState, side: str, cd: Card) -> list[PlayCard]:
        """Each own unit at each hex it may mine, each way to pay."""
        pays = {"ap_or_cap": ("ap", "command"), "ap": ("ap",), "cap": ("command",)}
        out = []
        for u in sorted(state.units.values(), key=lambda x: x.id):
            if u.side != side or u.destroyed or u.hex is None:
                continue
            for h in sorted({u.hex, *self.board.neighbors(u.hex)}):
                for p in pays.get(cd.pay, (None,)):
                    a = PlayCard(cd.id, (u.id,), h, p)
                    if self.lay_problem(state, side, a, cd) is None:
                        out.append(a)
        return out

    # -- the Tellermine laid as a mine ---------------------------------------- #
    def lays_tellermine(self, state: GameState, side: str, a: PlayCard) -> bool:
        """Whether a Tellermine play lays the mine (a hex with no seen enemy)
        rather than attacking (card list)."""
        return isinstance(a.hex, str) and not self.enemy_in(state, a.hex, side)

    def do_lay_tellermine(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card, mode: str | None
    ) -> None:
        """Play the card (not naming a hidden mine's hex), pay, lay the mine."""
        st = ctx.state
        assert a.hex is not None
        uid = a.units[0]
        self.reveal_actors(ctx, (uid,), f"lays {cd.name}")
        hidden = self.lay_hidden(st, side, a.hex)
        self.card_played(ctx, side, cd, (uid,), None if hidden else a.hex)
        if mode is not None:
            self.pay(ctx, side, (uid,), mode, int(cd.cost or 0), cd.name)
        self.lay_mine(ctx, side, uid, a.hex, f"{cd.name} laid as a mine")

    # -- Obstacle-Clearing (card #41) --------------------------------------- #
    def _clearable(self, state: GameState, h: str) -> str | None:
        for kind in CLEAR_ORDER:
            if self.has_fort(state, kind, h):
                return kind
        return None

    def _obstacle_clearing_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        u, why = self._sapper(state, side, a, cd)
        if u is None or why is not None:
            return why
        assert u.hex is not None
        if a.hex is not None and a.hex != u.hex:
            return f"Obstacle-Clearing works in {u.name}'s own hex {u.hex} (card #41)"
        if self._clearable(state, u.hex) is None:
            return f"no wire, road block or mine counter in {u.hex} (card #41)"
        return None

    def _do_obstacle_clearing(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        st = ctx.state
        u = st.units[a.units[0]]
        assert u.hex is not None
        kind = self._clearable(st, u.hex)
        assert kind is not None
        self.remove_fort(ctx, side, kind, u.hex, f"cleared by {u.name} (card #41)")
