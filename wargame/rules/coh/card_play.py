"""Playing the cards of the hand (CoH 2e §8.0-8.5 and the card list, S1 p.17;
seed 003 §8, §9.2, §10.0 #1; research/coh.md §5.3).

* An action or weapon card is the turn's action (``PlayCard``, §2.2, §8.1,
  §8.4); a bonus card is not (§8.2): Swift Action is a ``PlayCard`` that leaves
  the turn with the player, Careful Aiming rides on an attack
  (``Fire/IndirectFire/Flame(..., card="careful_aiming")``, +2 FP), Luck! is
  played in the window after an own roll (:mod:`.luck`).
* Off-board artillery cards are plotted in the pre-round (``PlotArtillery``,
  :mod:`.artillery`), Close Call as the opponent's strike lands
  (:mod:`.veterans`): neither is a ``PlayCard`` of the player's turn.
* The cost is the card's (data ``cost``/``pay``, §8.0): a blue icon in CAPs, a
  green one from the side's activation pool, which the units the card is played
  on join (CAPs top up a short pool, §3.2.1), a split icon either way.
  ASSUMPTION: a split cost is paid all from the pool (``pay="ap"``, CAPs topping
  it up) or all in CAPs (``pay="command"``, the default), not in a chosen mix.
* Units a card is played on keep their status: fresh ones stay fresh (seed 003
  §8.1, §9.2), unless the card's APs activate them.  A group is units in the
  same or continuously adjacent hexes (§9.2).  Own hidden units a card is
  played on are revealed (seed 003 §10.0 #1), except by Rapid Deployment, whose
  text names hidden units: ASSUMPTION: they move hidden.
* The hand is secret: a card leaves the hand in an event its owner alone sees,
  then lies face up on the public ``discard`` pile, its play logged for all
  (§8.2: action and bonus cards are discarded after play; §8.4 weapon cards
  after use).
* Command Action (#2): ASSUMPTION: playing it leaves the turn with the player,
  whose next action is the card's free one (``pay="card"``: no cost, status
  unchanged); passing instead forfeits it.
* Swift Action (#10): announced before the first action (card text): the
  next action does not end the turn, the one after it does.
* Yellow cards are played when drawn (seed 003 §8.1): Game Ends ends the game;
  Score and Firefight Event have no effect (no firefight here sets one) and a
  new card is drawn; an Objective card has no effect (no secret objectives).

:data:`GAPS` lists the cards never offered, and why.

Examples:
    >>> sorted(GAPS)  # every 2nd-edition card of the research list is built
    []
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("coh_partisans", seed=1)
    >>> game.state.decks["hand:german"]
    ('rapid_deployment', 'sniper_fire')
    >>> [a.card for a in game.legal_actions() if a.type == "play_card"]
    ['sniper_fire']
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from wargame.engine import (
    Action,
    GameState,
    RuleContext,
    Unit,
    deck_change,
    var_change,
)

from ._core import Mixin
from .actions import Fire, Flame, IndirectFire, PlayCard
from .card_effects import CardEffects, label
from .card_weapons import WEAPONS, CardWeapons
from .cards import Card, cards_by_id

__all__ = ["CAREFUL_AIMING_FP", "GAPS", "GROUP_MAX", "CardPlay"]

#: The attacks a bonus card rides on (CoH 2e §8.2).
ATTACKS = (Fire, IndirectFire, Flame)
Attack = Fire | IndirectFire | Flame
#: The largest group ``legal_actions`` offers a group card to (any is legal).
GROUP_MAX = 4
#: Careful Aiming adds 2 FP to the attack (S1 card list #9).
CAREFUL_AIMING_FP = 2
#: Cards never offered, with the reason.
GAPS: dict[str, str] = {}
#: Cards not played with PlayCard on the player's own turn: bonus cards ride
#: on an attack or a roll (§8.2), OBA cards are plotted in the pre-round
#: (§12.3), Close Call is played as the opponent's artillery lands (seed §8.3).
_NOT_ON_THEIR_OWN = ("careful_aiming", "luck", "oba", "close_call")
_EVENTS = ("score", "objective", "firefight_event", "game_ends")
#: Cards whose play does not end the turn.
_TURN_GOES_ON = ("command_action", "swift_action")
_COST_WORDS = {
    "free": "is free: give no pay",
    "cap": "costs {n} CAP (blue icon): pay='command' or no pay",
    "ap": "costs {n} AP of the activated unit (green icon): pay='ap' or no pay",
    "ap_or_cap": "costs {n} AP or CAP (split icon): pay='ap', 'command' or none",
}
_ALLOWED: dict[str, tuple[str | None, ...]] = {
    "free": (None,),
    "cap": (None, "command"),
    "ap": (None, "ap"),
    "ap_or_cap": (None, "ap", "command"),
}


class CardPlay(CardEffects, CardWeapons, Mixin):
    """Mixin: which card plays are legal, which are offered, what they do."""

    board: Any
    specs: dict[str, Any]
    sides: tuple[str, str]

    # -- queries ------------------------------------------------------------ #
    def hand(self, state: GameState, side: str) -> tuple[str, ...]:
        """The cards in ``side``'s hand (``"?"`` each in another side's view)."""
        return tuple(state.decks.get(f"hand:{side}", ()))

    def free_action(self, state: GameState, side: str) -> bool:
        """Whether a Command Action card's free action is yet to be taken."""
        return bool(state.vars.get(f"free_action:{side}"))

    @staticmethod
    def card_payment(cd: Card, pay: str | None) -> tuple[str | None, str | None]:
        """(payment mode or ``None`` for free, why ``pay`` is not allowed)."""
        if pay not in _ALLOWED[cd.pay]:
            return None, f"{cd.name} " + _COST_WORDS[cd.pay].format(n=cd.cost) + (
                " (CoH 2e §8.0)"
            )
        if cd.pay == "free":
            return None, None
        if pay is None:
            return ("ap" if cd.pay == "ap" else "command"), None
        return pay, None

    # -- legality ----------------------------------------------------------- #
    def card_play_problem(self, state: GameState, side: str, a: PlayCard) -> str | None:
        """Why ``a`` may not be played now (``None``: it may)."""
        if not isinstance(a.card, str) or a.card not in self.hand(state, side):
            return f"{a.card!r} is not in {side}'s hand (seed 003 §8.1)"
        cd = cards_by_id().get(a.card)
        if cd is None:
            return f"{a.card!r} is no coh-2e card"
        if cd.effect == "careful_aiming":
            return (
                "Careful Aiming (#9) is played with a fire: "
                "Fire(..., card='careful_aiming') (CoH 2e §8.2)"
            )
        if cd.effect in GAPS:
            return f"{label(cd)} cannot be played in this engine: {GAPS[cd.effect]}"
        if cd.effect == "close_call":
            return (
                "Close Call is played in the pre-round, as the opponent's artillery "
                "is about to land (seed 003 §8.3)"
            )
        if cd.effect == "oba":
            return (
                f"{cd.name} is played in the pre-round: write its target down with "
                "PlotArtillery (CoH 2e §12.3, card list)"
            )
        if cd.effect == "luck":
            return (
                "Luck! (#12) is played after one of your own rolls, when the game "
                "stops for it (a Luck window: PlayCard('luck') or KeepRoll)"
            )
        if cd.effect in _EVENTS:
            return f"{label(cd)} is played when drawn (seed 003 §8.1)"
        units = a.units
        if not isinstance(units, tuple) or not all(isinstance(x, str) for x in units):
            return "units must be a list of unit ids"
        if len(set(units)) != len(units):
            return "a unit is named twice"
        mode, why = self.card_payment(cd, a.pay)
        if why is not None:
            return why
        if cd.effect in WEAPONS:
            why = self.weapon_problem(state, side, a, cd)
        else:
            why = getattr(self, f"_{cd.effect}_problem")(state, side, a, cd)
        if why is not None or mode is None:
            return why
        problem = self.pay_problem(state, side, units, mode, int(cd.cost or 0))
        return None if problem is None else str(problem)

    def pending_card_problem(
        self, state: GameState, side: str, action: Action
    ) -> str | None:
        """While a Command Action card's free action is due, only it (or a
        pass) may follow (ASSUMPTION, module docstring)."""
        if not self.free_action(state, side):
            return None
        if not isinstance(action, PlayCard) and getattr(action, "pay", None) == "card":
            return None  # any unit action (move, fire, load, smoke...) paid by the card
        return (
            "the Command Action card's free action comes first: take it with "
            "pay='card', or pass (card #2)"
        )

    def fire_card_problem(self, state: GameState, side: str, a: Attack) -> str | None:
        """Why the bonus card of an attack (fire, indirect fire, flamethrower)
        may not be played."""
        cd = cards_by_id().get(str(a.card))
        if cd is None or cd.effect != "careful_aiming":
            return (
                f"{a.card!r}: only Careful Aiming (#9) is played with a fire "
                "(CoH 2e §8.2)"
            )
        if a.card not in self.hand(state, side):
            return f"{a.card!r} is not in {side}'s hand (seed 003 §8.1)"
        return None

    def fire_card_fp(self, a: Attack) -> int:
        """The FP an attack's bonus card adds (Careful Aiming +2, S1 card list #9)."""
        return CAREFUL_AIMING_FP if a.card == "careful_aiming" else 0

    # -- what is offered ---------------------------------------------------- #
    def card_options(
        self, state: GameState, side: str, fires: Sequence[Action] = ()
    ) -> list[Action]:
        """Every legal card play: each card in the hand on each unit, group
        (up to :data:`GROUP_MAX` units) and hex it may take; attacks with
        Careful Aiming."""
        hand = sorted(set(self.hand(state, side)))
        out: list[Action] = []
        cat = cards_by_id()
        if "careful_aiming" in hand:
            for f in fires:
                if isinstance(f, ATTACKS) and f.card is None:
                    g = replace(f, card="careful_aiming")
                    if self.why_not(state, g) is None:
                        out.append(g)
        if self.free_action(state, side):
            return out
        for cid in hand:
            cd = cat.get(cid)
            if cd is None or cd.effect in GAPS or cd.effect in _NOT_ON_THEIR_OWN:
                continue
            cands = self._candidates(state, side, cd)
            if cd.effect == "rapid_deployment":
                out += self._deploy_options(state, cands)
                continue
            for a in cands:
                if self.why_not(state, a) is None:
                    out.append(a)
        return out

    def _deploy_options(
        self, state: GameState, cands: Sequence[PlayCard]
    ) -> list[PlayCard]:
        """The legal ones of Rapid Deployment's candidates (card #5), in order,
        without asking :meth:`why_not` of every hex (a speed-up only, issue
        #23).  A candidate's hex is 1 or 2 hexes from its group's one stack
        (:meth:`_deploy_candidates`), so the hex only matters through each
        unit's way there (:meth:`_path`): with every way open, the play is
        legal for every such hex of the group or for none."""
        out: list[PlayCard] = []
        legal: dict[tuple[str, ...], bool] = {}
        for a in cands:
            to = a.hex
            assert isinstance(to, str)  # _deploy_candidates names a hex
            if any(self._path(state, state.units[x], to) is None for x in a.units):
                continue  # _rapid_deployment_problem refuses it
            ok = legal.get(a.units)
            if ok is None:
                ok = legal[a.units] = self.why_not(state, a) is None
            if ok:
                out.append(a)
        return out

    def _candidates(self, state: GameState, side: str, cd: Card) -> list[PlayCard]:
        e, cid = cd.effect, cd.id
        mine = sorted(
            (
                u
                for u in state.units.values()
                if u.side == side and not u.destroyed and u.hex is not None
            ),
            key=lambda u: u.id,
        )
        theirs = [
            u
            for u in sorted(state.units.values(), key=lambda u: u.id)
            if u.side != side and not u.destroyed and u.hex is not None
        ]
        if e in WEAPONS:
            return self.weapon_candidates(state, side, cd)
        if e in ("command_action", "swift_action", "sniper_fire"):
            return [PlayCard(cid)]
        if e in ("auto_rally", "rally_up"):
            pay = "command" if cd.pay == "cap" else None
            hit = [u for u in mine if u.attrs.get("marked")]
            return [PlayCard(cid, g, None, pay) for g in self._groups(hit)]
        if e == "seek_cover":
            free = [u for u in mine if not u.attrs.get("hasty")]
            return [PlayCard(cid, g) for g in self._groups(free)]
        if e == "rapid_deployment":
            return self._deploy_candidates(cid, mine)
        if e == "mine_laying":  # card #40 (card_obstacles.py)
            laid: list[PlayCard] = self.lay_candidates(state, side, cd)
            return laid
        if e in ("battlefield_confusion", "bogged_down"):
            return [PlayCard(cid, (u.id,)) for u in theirs]
        pays: list[str | None] = [p for p in _ALLOWED[cd.pay] if p is not None]
        pays = pays or [None]
        return [PlayCard(cid, (u.id,), None, p) for u in mine for p in pays]

    def _groups(self, units: Sequence[Unit]) -> list[tuple[str, ...]]:
        """Each unit alone and each group of 2 to GROUP_MAX contiguous ones."""
        where = {u.id: u.hex for u in units}
        ids = sorted(where)
        out: list[tuple[str, ...]] = []
        for k in range(1, min(GROUP_MAX, len(ids)) + 1):
            for combo in itertools.combinations(ids, k):
                if k == 1 or self.group_ok([where[i] for i in combo]):
                    out.append(combo)
        return out

    def _deploy_candidates(self, cid: str, mine: Sequence[Unit]) -> list[PlayCard]:
        stacks: dict[str, list[Unit]] = {}
        for u in mine:
            assert u.hex is not None
            stacks.setdefault(u.hex, []).append(u)
        out = []
        for h, us in sorted(stacks.items()):
            to = sorted(x for x in self.board.within(h, 2) if x != h)
            groups: list[tuple[str, ...]] = [(u.id,) for u in us if u.hidden]
            groups += self._groups([u for u in us if not u.hidden])
            out += [PlayCard(cid, g, t) for g in groups for t in to]
        return out

    # -- resolution --------------------------------------------------------- #
    def do_play_card(self, ctx: RuleContext, side: str, a: PlayCard) -> bool:
        """Play a legal card; whether the turn ends (not after a Command Action
        or a Swift Action card)."""
        st = ctx.state
        cd = cards_by_id()[a.card]
        mode, _ = self.card_payment(cd, a.pay)
        units = tuple(a.units)
        if cd.effect in WEAPONS:
            self.do_weapon(ctx, side, a, cd, mode)
            return True
        own = [x for x in units if st.units[x].side == side]
        if cd.effect != "rapid_deployment":
            self.reveal_actors(ctx, own, f"has {cd.name} played on it")
        if any(st.units[x].hidden for x in units):  # a hidden move: name nothing
            self.card_played(ctx, side, cd)
        else:
            shown_hex = self.shown_card_hex(st, side, a, cd)  # card_obstacles.py
            self.card_played(ctx, side, cd, units, shown_hex)
        if mode is not None:
            self.pay(ctx, side, units, mode, int(cd.cost or 0), cd.name)
        getattr(self, f"_do_{cd.effect}")(ctx, side, a, cd)
        return cd.effect not in _TURN_GOES_ON

    def card_played(
        self,
        ctx: RuleContext,
        side: str,
        cd: Card,
        units: Sequence[str] = (),
        hex_: str | None = None,
        how: str = "",
    ) -> None:
        """The card leaves the hand (its owner sees which) and lies face up on
        the discard pile (everybody sees it, CoH 2e §8.2)."""
        st = ctx.state
        hand = list(self.hand(st, side))
        hand.remove(cd.id)
        ctx.emit(
            "card",
            side=side,
            detail=f"{label(cd)} leaves the hand",
            changes=deck_change(f"hand:{side}", hand),
            visible_to=(side,),
        )
        names = " + ".join(st.units[x].name for x in units)
        own = [x for x in units if st.units[x].side == side]
        foe = [x for x in units if st.units[x].side != side]
        ctx.emit(
            "card",
            side=side,
            unit=own[0] if len(own) == 1 else None,
            target=foe[0] if len(foe) == 1 else None,
            hex_to=hex_,
            result=cd.id,
            detail=f"{side} plays {label(cd)}"
            + (f" on {names}" if names else "")
            + (f" at {hex_}" if hex_ else "")
            + (f" {how}" if how else ""),
            changes=deck_change("discard", (*st.decks.get("discard", ()), cd.id)),
        )

    def play_bonus_card(self, ctx: RuleContext, side: str, card_id: str) -> None:
        """A bonus card played with an action, not as one (CoH 2e §8.2)."""
        self.card_played(ctx, side, cards_by_id()[card_id], how="with the fire (§8.2)")

    # -- drawn cards and turns ------------------------------------------------ #
    def on_draw(self, ctx: RuleContext, side: str, card: str) -> None:
        """A yellow card is played at once (seed 003 §8.1; module docstring)."""
        cd = cards_by_id().get(card)
        if cd is None or cd.colour != "yellow":
            return
        self.card_played(ctx, side, cd, how="when drawn (seed 003 §8.1)")
        if cd.effect == "game_ends":
            self._game_over(ctx, "Game Ends card")
            return
        # ASSUMPTION: no firefight here sets a scoring, an event or objectives,
        # so these cards are logged as played with no effect.
        what = {
            "score": "no mid-game scoring",
            "firefight_event": "no event",
            "objective": "no secret objective",
        }[cd.effect]
        ctx.emit(
            "card",
            side=side,
            result="no effect",
            detail=f"{cd.name}: no effect, the firefight sets {what}",
        )
        if cd.effect != "objective":  # the others say: draw a new card
            nxt = self.draw_one(ctx, side)
            if nxt is not None:
                self.on_draw(ctx, side, nxt)

    def next_turn(self, ctx: RuleContext, side: str, *, passed: bool = False) -> None:
        """After a Swift Action the same side acts again (card #10); a pass
        forfeits a pending Swift Action or Command Action card."""
        st = ctx.state
        if passed:
            lost = [k for k in (f"free_action:{side}", f"swift:{side}") if k in st.vars]
            if lost:
                ctx.emit(
                    "card",
                    side=side,
                    detail="passes: the card's extra action is lost",
                    changes=var_change(**dict.fromkeys(lost)),
                )
        elif st.vars.get(f"swift:{side}"):
            ctx.emit(
                "turn",
                side=side,
                detail="Swift Action: a second action in a row (card #10)",
                changes=var_change(
                    side=side,
                    passes=0,
                    turn_no=int(st.vars.get("turn_no", 0)) + 1,
                    **{f"swift:{side}": None},
                ),
            )
            return
        super().next_turn(ctx, side, passed=passed)
