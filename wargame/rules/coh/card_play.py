"""Playing the cards of the hand (CoH 2e §8.0-8.5 and the card list, S1 p.17;
seed 003 §8, §9.2, §10.0 #1; research/coh.md §5.3).

* An action or weapon card is the turn's action (``PlayCard``, §2.2, §8.1,
  §8.4); a bonus card is not (§8.2): Swift Action is a ``PlayCard`` that leaves
  the turn with the player, Careful Aiming rides on a fire
  (``Fire(..., card="careful_aiming")``, +2 FP).
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
    >>> sorted(GAPS)[:3]
    ['close_call', 'luck', 'mine_laying']
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
    pool_change,
    unit_change,
    var_change,
)

from ._core import Mixin, status_of
from .actions import Fire, Hide, Move, Pivot, PlayCard, Rally
from .card_weapons import WEAPONS, CardWeapons
from .cards import Card, cards_by_id

__all__ = ["CAREFUL_AIMING_FP", "GAPS", "GROUP_MAX", "CardPlay"]

#: The largest group ``legal_actions`` offers a group card to (any is legal).
GROUP_MAX = 4
#: Careful Aiming adds 2 FP to the attack (S1 card list #9).
CAREFUL_AIMING_FP = 2
#: Cards never offered, with the reason.
GAPS = {
    "luck": "it is played after a die roll, and the engine rolls an action's "
    "dice with no pause for the player to decide",
    "mine_laying": "there are no mines on the board yet (CoH 2e §18.3.3)",
    "obstacle_clearing": "there are no wire, road blocks or mines on the board "
    "yet (CoH 2e §18.3)",
    "oba": "off-board artillery is plotted and resolved in the pre-round "
    "(CoH 2e §12.3), which is not built",
    "close_call": "veteran cards (seed 003 §8.3) are given by no firefight, "
    "and its move needs off-board artillery",
}
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


def label(cd: Card) -> str:
    """A card as the log names it.

    >>> from .cards import card
    >>> label(card("auto_rally")), label(card("magnetic_mine"))
    ('#3 Auto-Rally', 'Magnetic Mine')
    """
    return f"#{cd.number} {cd.name}" if cd.printed_number else cd.name


class CardPlay(CardWeapons, Mixin):
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
        if isinstance(action, Move | Pivot | Fire | Rally | Hide) and (
            action.pay == "card"
        ):
            return None
        return (
            "the Command Action card's free action comes first: take it with "
            "pay='card', or pass (card #2)"
        )

    def fire_card_problem(self, state: GameState, side: str, a: Fire) -> str | None:
        """Why the bonus card of a fire may not be played."""
        cd = cards_by_id().get(str(a.card))
        if cd is None or cd.effect != "careful_aiming":
            return (
                f"{a.card!r}: only Careful Aiming (#9) is played with a fire "
                "(CoH 2e §8.2)"
            )
        if a.card not in self.hand(state, side):
            return f"{a.card!r} is not in {side}'s hand (seed 003 §8.1)"
        return None

    def fire_card_fp(self, a: Fire) -> int:
        """The FP a fire's bonus card adds (Careful Aiming +2, S1 card list #9)."""
        return CAREFUL_AIMING_FP if a.card == "careful_aiming" else 0

    def _own(
        self, state: GameState, side: str, ids: Sequence[str], what: str
    ) -> tuple[list[Unit], str | None]:
        us = []
        for x in ids:
            u = state.units.get(x)
            if u is None or u.side != side or u.destroyed or u.hex is None:
                return [], f"{x!r} is not a unit of {side} on the map"
            us.append(u)
        if not us:
            return [], f"name the unit(s) {what}"
        return us, None

    def _enemy(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> tuple[Unit | None, str | None]:
        if len(a.units) != 1 or a.hex is not None:
            return None, f"{label(cd)} is played on one enemy unit, not a group"
        u = state.units.get(a.units[0])
        if u is None or u.side == side or u.destroyed or u.hidden:
            return None, f"{a.units[0]!r} is no enemy unit {side} can see"
        if u.hex is None:
            return None, f"{u.name} is off the map (card list: not off-board units)"
        return u, None

    def _nothing(self, a: PlayCard, cd: Card) -> str | None:
        if a.units or a.hex is not None:
            return f"{label(cd)} is played on no unit or hex"
        return None

    def _command_action_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        return self._nothing(a, cd)

    def _sniper_fire_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        return self._nothing(a, cd)

    def _swift_action_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        if state.vars.get(f"swift:{side}"):
            return "a Swift Action is under way already (card #10)"
        return self._nothing(a, cd)

    def _auto_rally_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        if a.hex is not None:
            return f"{label(cd)} names no hex"
        _us, why = self._own(state, side, a.units, f"{cd.name} rallies")
        if why is not None:
            return why
        problem, _cost = self.rally_problem(state, side, Rally(tuple(a.units)))
        return None if problem is None else str(problem)

    _rally_up_problem = _auto_rally_problem

    def _seek_cover_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        us, why = self._own(state, side, a.units, "to take cover")
        if why is not None or a.hex is not None:
            return why or f"{label(cd)} names no hex"
        for u in us:
            assert u.hex is not None
            if u.attrs.get("hasty"):
                return f"{u.name} has a hasty defence counter already"
            if self.enemy_in(state, u.hex, side):
                return f"{u.name} is in close combat: no hasty defence (card #11)"
        if len(us) > 1 and not self.group_ok([u.hex for u in us if u.hex]):
            return (
                "a group needs units in the same or continuously adjacent hexes "
                "(seed 003 §9.2, §9.14)"
            )
        return None

    def _rapid_deployment_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        us, why = self._own(state, side, a.units, "to move")
        if why is not None:
            return why
        if not isinstance(a.hex, str) or a.hex not in self.board.labels:
            return f"give the hex {label(cd)} moves to"
        starts = {u.hex for u in us}
        if len(starts) > 1:
            # ASSUMPTION: a group moves from one hex to one hex here.
            return "a group on Rapid Deployment moves from one hex: name one stack"
        if len(us) > 1 and any(u.hidden for u in us):
            return "hidden units move one at a time here"
        (frm,) = starts
        assert frm is not None
        d = self.board.distance(frm, a.hex)
        if not 1 <= d <= 2:
            return f"{a.hex} is {d} hexes from {frm}: the card moves 1 or 2 hexes"
        for u in us:
            ut = self.specs[u.id].type
            m = self.marker(u)
            if ut.move_cost is None:
                return f"{u.name} cannot move (CoH 2e §1.1)"
            if m is not None and (m.no_move or m.rally_only):
                return f"{u.name} is {m.name}: not pinned, stunned or immobilised units"
            if u.attrs.get("bogged") == state.turn:
                return f"{u.name} is bogged down this round (card #20)"
            if self._path(state, u, a.hex) is None:
                return (
                    f"{u.name} has no way to {a.hex} in 2 hexes (prohibited "
                    "terrain, or an enemy hex on the way)"
                )
        return None

    def _path(self, state: GameState, u: Unit, to: str) -> tuple[str, ...] | None:
        """Up to 2 hexes to ``to``, into hexes the unit may enter (card #5),
        through no hex with a seen enemy (entering one ends a move, §7.7.3)."""
        frm = u.hex
        assert frm is not None
        mob = str(self.specs[u.id].type.mobility)
        mob = "foot" if mob == "none" else mob
        nb = self.board.neighbors

        def ok(x: str, y: str) -> bool:
            return self.board.move_extra(x, y, mob) is not None

        if to in nb(frm) and ok(frm, to):
            return (to,)
        for mid in sorted(nb(frm)):
            if (
                mid != to
                and to in nb(mid)
                and ok(frm, mid)
                and ok(mid, to)
                and not self.enemy_in(state, mid, u.side)
            ):
                return (mid, to)
        return None

    def _battlefield_confusion_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        u, why = self._enemy(state, side, a, cd)
        if u is not None and status_of(u) == "spent":
            return f"{u.name} is spent already"
        return why

    def _bogged_down_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        u, why = self._enemy(state, side, a, cd)
        if u is None:
            return why
        ut = self.specs[u.id].type
        if ut.kind != "vehicle" or ut.move_cost is None:
            return f"{u.name} is not a vehicle that moves (card #20)"
        if status_of(u) == "active":
            return f"{u.name} is activated: the card takes a fresh or spent vehicle"
        if u.attrs.get("bogged") == state.turn:
            return f"{u.name} is bogged down already"
        return None

    def _one_own(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> tuple[Unit | None, str | None]:
        if len(a.units) != 1 or a.hex is not None:
            return None, f"{label(cd)} is played on one unit of yours"
        us, why = self._own(state, side, a.units, "")
        return (us[0] if us else None), why

    def _experienced_sergeant_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        u, why = self._one_own(state, side, a, cd)
        if u is not None and (status_of(u) != "active" or self.pool(state, side) <= 0):
            return f"{u.name} is not activated (card #7 adds APs to an activated unit)"
        return why

    def _frontline_officer_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        return self._one_own(state, side, a, cd)[1]

    _scout_teams_problem = _frontline_officer_problem

    # -- what is offered ---------------------------------------------------- #
    def card_options(
        self, state: GameState, side: str, fires: Sequence[Action] = ()
    ) -> list[Action]:
        """Every legal card play: each card in the hand on each unit, group
        (up to :data:`GROUP_MAX` units) and hex it may take; fires with
        Careful Aiming."""
        hand = sorted(set(self.hand(state, side)))
        out: list[Action] = []
        cat = cards_by_id()
        if "careful_aiming" in hand:
            for f in fires:
                if isinstance(f, Fire) and f.card is None:
                    g = replace(f, card="careful_aiming")
                    if self.why_not(state, g) is None:
                        out.append(g)
        if self.free_action(state, side):
            return out
        for cid in hand:
            cd = cat.get(cid)
            if cd is None or cd.effect in GAPS or cd.effect == "careful_aiming":
                continue
            for a in self._candidates(state, side, cd):
                if self.why_not(state, a) is None:
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
            self.card_played(ctx, side, cd, units, a.hex)
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

    def _do_command_action(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        ctx.emit(
            "card",
            side=side,
            detail="the next action is free: pay='card' (card #2)",
            changes=var_change(**{f"free_action:{side}": True}),
        )

    def _do_swift_action(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        ctx.emit(
            "card",
            side=side,
            detail="two actions in a row, the opponent's turn skipped (card #10)",
            changes=var_change(**{f"swift:{side}": True}),
        )

    def _do_sniper_fire(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        enemy = self.other(side)
        (d,) = ctx.roll(1, kind="card", side=side, detail="Sniper Fire: 1d6")
        loss = min(int(cd.d6_table[d - 1]), self.caps(ctx.state, enemy))
        ctx.emit(
            "caps",
            side=enemy,
            result=f"-{loss}",
            detail=f"{enemy} loses {loss} CAP this round (card #13)",
            changes=pool_change(f"caps:{enemy}", self.caps(ctx.state, enemy) - loss),
        )

    def _do_auto_rally(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        for uid in a.units:
            self.reveal_marker(ctx, ctx.state.units[uid], "always")  # shown (§7.6)
            self.remove_marker(
                ctx, ctx.state.units[uid], "rallies without a roll (card #3)"
            )

    def _do_rally_up(self, ctx: RuleContext, side: str, a: PlayCard, cd: Card) -> None:
        self.rally_rolls(ctx, side, tuple(a.units))

    def _do_seek_cover(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        for uid in a.units:
            ctx.emit(
                "card",
                side=side,
                unit=uid,
                result="hasty defence",
                detail="a hasty defence counter, +1 DM (card #11, §18.1.3)",
                changes=unit_change(uid, hasty=True),
            )

    def _do_battlefield_confusion(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        (uid,) = a.units
        ctx.emit(
            "spend",
            side=ctx.state.units[uid].side,
            unit=uid,
            detail="marked spent by Battlefield Confusion (card #6)",
            changes=unit_change(uid, status="spent"),
        )

    def _do_bogged_down(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        (uid,) = a.units
        ctx.emit(
            "card",
            side=ctx.state.units[uid].side,
            unit=uid,
            result="bogged down",
            detail="immobilised until the round ends (card #20)",
            changes=unit_change(uid, bogged=ctx.state.turn),
        )

    def _do_experienced_sergeant(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        (d,) = ctx.roll(1, kind="card", side=side, detail="Experienced Sergeant: 1d6")
        pool = self.pool(ctx.state, side) + d
        ctx.emit(
            "card",
            side=side,
            result=f"+{d} AP",
            detail=f"the pool has {pool} AP (card #7)",
            changes=pool_change(f"ap:{side}", pool),
        )

    def _do_frontline_officer(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        (d,) = ctx.roll(1, kind="card", side=side, detail="Frontline Officer: 1d6")
        caps = self.caps(ctx.state, side) + d
        ctx.emit(
            "caps",
            side=side,
            result=f"+{d} CAP",
            detail=f"{side} has {caps} CAP (card #8)",
            changes=pool_change(f"caps:{side}", caps),
        )

    def _do_scout_teams(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        st = ctx.state
        u = st.units[a.units[0]]
        assert u.hex is not None
        found = [
            x
            for x in sorted(st.units.values(), key=lambda x: x.id)
            if x.side != side
            and x.hidden
            and not x.destroyed
            and x.hex is not None
            and self.board.distance(u.hex, x.hex) <= 2
            and self.sight(st, u.hex, x.hex).clear
        ]
        self.reveal(ctx, found, "is found by Scout Teams (card #30)")
        ctx.emit(
            "card",
            side=side,
            result=f"{len(found)} revealed",
            detail="hidden enemies within 2 hexes in sight revealed (card #30)",
        )

    def _do_rapid_deployment(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        st = ctx.state
        assert a.hex is not None
        for uid in a.units:
            u = st.units[uid]
            path = self._path(st, u, a.hex) or ()
            for h in path:
                u = st.units[uid]
                frm = u.hex
                assert frm is not None
                facing = self.board.direction(frm, h)
                if u.hidden:
                    ctx.emit(
                        "hidden_move",
                        side=side,
                        unit=uid,
                        hex_from=frm,
                        hex_to=h,
                        detail="Rapid Deployment, hidden (card #5)",
                        changes=unit_change(uid, position=h) + self.hasty_lost(u),
                        visible_to=(side,),
                    )
                else:
                    ctx.emit(
                        "move",
                        side=side,
                        unit=uid,
                        hex_from=frm,
                        hex_to=h,
                        detail="Rapid Deployment (card #5)",
                        changes=unit_change(uid, position=h, facing=facing)
                        + self.hasty_lost(u),
                    )
                self.after_move(ctx, uid)
                if st.units[uid].destroyed or self.enemy_in(st, h, side):
                    break

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
