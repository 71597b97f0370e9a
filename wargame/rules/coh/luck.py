"""Luck! (card #12, a bonus card: S1 p.17 card list; research/coh.md §5.3).

The card: after one of his own dice rolls, during his turn, a player may roll
1d6 to change the roll's result: a 1 changes it by -3, a 2 to 6 by +2
(``d6_table`` in ``data/cards.toml``); playing it is not an action (§8.2).

**The window.**  The rolls of an attack or a rally are made first and their
results wait (:mod:`.attack_rolls`): the game stops in a *Luck window*
(public var ``luck_window``: the rolls Luck may change) in which the roller
decides ``PlayCard("luck", units=(unit,))`` (a roll against a seen unit, or a
unit's rally roll), ``PlayCard("luck", hex=hex)`` (the roll at a hex that may
hide enemies) or :class:`~.actions.KeepRoll`.  Then every result lands, the
chosen roll changed.  The waiting rolls sit in the roller's secret deck
``roll:<side>`` (the attack, the hidden sniper that fired), so saves, undo and
replay go through the window as through any decision.

* Rolls it takes: attack rolls (fire, indirect fire, flamethrowers, weapon
  cards) and rally rolls (Rally, Rally Up!) during the roller's own turn.
  ASSUMPTION: initiative and off-board artillery rolls (the pre-round: the
  card is played "during a player's turn"), mine attacks (the opponent's
  turn), the 1d6 of cards and the 2d6 immobilisation check (§14.5) are not
  offered.
* ASSUMPTION (the hand is secret): the window opens on what both sides know,
  never on whether the roller holds Luck: Luck is in the firefight's deck
  (cards numbered 12 or more), not every copy is on the face-up discard
  pile, the roller's hand is not empty (its size is public), and +2 or -3
  would change a result (for a roll at a hex that may hide enemies the firer
  cannot know, so it always may).  A side holding no Luck is offered only
  ``KeepRoll``; the opponent cannot tell the two apart.
* ASSUMPTION (several rolls in one attack, §7.5.1, or a group rally, seed
  003 §9.13): one window after all of the action's rolls, and one Luck card
  on one roll of them; a roll Luck cannot change is not offered.

Examples:
    >>> from .cards import card
    >>> outcome_could_change([-3, 2], lambda x: x >= 8, 7)  # a miss by one
    True
    >>> outcome_could_change(card("luck").d6_table, lambda x: x >= 12, 3)
    False
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from wargame.engine import (
    Action,
    Decision,
    GameState,
    RuleContext,
    deck_change,
    var_change,
)

from ._core import Mixin
from .actions import KeepRoll, PlayCard
from .attack_rolls import PlanEntry
from .cards import card
from .odds import fire_result

__all__ = ["LUCK", "Luck", "luck_choice", "outcome_could_change"]

#: The card's id.
LUCK = "luck"
_RANK = {"miss": 0, "hit": 1, "destroyed": 2}


def outcome_could_change(
    table: Iterable[int], outcome: Callable[[int], object], total: int
) -> bool:
    """Whether some Luck result (``table``) changes ``outcome(total)``."""
    now = outcome(total)
    return any(outcome(total + int(m)) != now for m in set(table))


class Luck(Mixin):
    """Mixin: the Luck window (module docstring)."""

    card_limit: int
    current_side: Any
    land_rolls: Any
    hand: Any
    action_from_dict: Any

    # -- when the window opens ------------------------------------------------ #
    def luck_copies(self) -> int:
        """Copies of Luck in this firefight's deck (every card numbered at most
        the firefight's number, S1 FF1; seed 003 §8.1)."""
        cd = card(LUCK)
        return int(cd.count) if self.card_limit >= cd.number else 0

    def luck_may_be_held(self, state: GameState, side: str) -> bool:
        """Whether, for all the other side knows, ``side`` may hold Luck
        (module docstring: the deck, the discard pile, the hand's size)."""
        copies = self.luck_copies()
        if copies == 0:
            return False
        if tuple(state.decks.get("discard", ())).count(LUCK) >= copies:
            return False
        return bool(state.decks.get(f"hand:{side}"))

    def _entry_value(self, state: GameState, e: PlanEntry) -> Callable[[int], int]:
        """A roll's result as a number, as a function of its total."""
        if e[0] == "seen":
            dv = int(e[3])
            marked = bool(state.units[str(e[1])].attrs.get("marked"))

            def seen(av: int) -> int:
                r = _RANK[fire_result(av, dv)]
                return 2 if marked and r == 1 else r  # a second hit destroys (§7.5)

            return seen
        if e[0] == "rally":
            need = int(e[3])
            return lambda total: int(total >= need)
        return lambda total: 0

    def _may_change(self, state: GameState, e: PlanEntry) -> bool:
        if e[0] == "blind":
            return True  # the firer cannot know what may hide there
        if e[0] not in ("seen", "rally"):
            return False
        return outcome_could_change(
            card(LUCK).d6_table, self._entry_value(state, e), int(e[2])
        )

    @staticmethod
    def luck_key(e: PlanEntry) -> str | None:
        """The window's name for a roll: ``unit:<id>`` or ``hex:<label>``."""
        if e[0] in ("seen", "rally"):
            return f"unit:{e[1]}"
        if e[0] == "blind":
            return f"hex:{e[1]}"
        return None

    @staticmethod
    def _action_key(a: PlayCard) -> str | None:
        if len(a.units) == 1 and a.hex is None:
            return f"unit:{a.units[0]}"
        if not a.units and isinstance(a.hex, str):
            return f"hex:{a.hex}"
        return None

    def offer_luck(
        self, ctx: RuleContext, side: str, plan: Sequence[PlanEntry], attack: Any
    ) -> bool:
        """Open a Luck window on ``plan`` if it may matter (``True``: the rolls
        wait for ``side``'s decision, :meth:`resolve_luck`)."""
        st = ctx.state
        # Card #12: during the player's own turn, after his own roll.
        if st.phase != "play" or self.current_side(st) != side:
            return False
        if not self.luck_may_be_held(st, side):
            return False
        keys = [
            k
            for e in plan
            if self._may_change(st, e) and (k := self.luck_key(e)) is not None
        ]
        if not keys:
            return False
        ctx.emit(
            "luck",
            side=side,
            detail="Luck! (card #12) may change a roll: PlayCard('luck') or KeepRoll",
            changes=var_change(luck_window=tuple(dict.fromkeys(keys))),
        )
        items = [json.dumps(e) for e in plan]
        if attack is not None:
            items.insert(0, json.dumps(["attack", attack.to_dict()]))
        ctx.emit(
            "luck",
            side=side,
            detail="the rolls wait",
            changes=deck_change(f"roll:{side}", items),
            visible_to=(side,),
        )
        return True

    # -- in the window --------------------------------------------------------- #
    def luck_window(self, state: GameState) -> tuple[str, ...]:
        """The rolls a Luck card may change now (empty: no window)."""
        return tuple(state.vars.get("luck_window") or ())

    def luck_problem(self, state: GameState, side: str, a: Action) -> str | None:
        """Why ``a`` is not a decision of the open window (``None``: it is)."""
        if isinstance(a, KeepRoll):
            return None
        if not isinstance(a, PlayCard) or a.card != LUCK:
            return (
                "the rolls wait for Luck! (card #12): KeepRoll() or "
                "PlayCard('luck', units=(unit,)) / PlayCard('luck', hex=hex)"
            )
        if LUCK not in self.hand(state, side):
            return f"Luck! (#12) is not in {side}'s hand (seed 003 §8.1)"
        if a.pay is not None:
            return "Luck! (#12) is free: give no pay"
        key = self._action_key(a)
        keys = self.luck_window(state)
        if key not in keys:
            return f"name one roll Luck! may change: {', '.join(keys)} (card #12)"
        return None

    def luck_options(self, state: GameState, side: str) -> list[Action]:
        """Keep the rolls, or play Luck on each roll it may change."""
        out: list[Action] = [KeepRoll()]
        if LUCK in self.hand(state, side):
            for k in self.luck_window(state):
                what, _, name = k.partition(":")
                if what == "unit":
                    out.append(PlayCard(LUCK, (name,)))
                else:
                    out.append(PlayCard(LUCK, (), name))
        return out

    def waiting_rolls(
        self, state: GameState, side: str
    ) -> tuple[dict[str, Any] | None, list[PlanEntry]]:
        """The window's attack (as a dict) and its rolls, from the roller's
        secret deck (``roll:<side>``)."""
        plan = [json.loads(x) for x in state.decks.get(f"roll:{side}", ())]
        attack = None
        if plan and plan[0][0] == "attack":
            attack = plan.pop(0)[1]
        return attack, plan

    def resolve_luck(self, ctx: RuleContext, side: str, a: Action) -> None:
        """Play Luck on the chosen roll (or keep the rolls), close the window
        and land every result."""
        st = ctx.state
        raw, plan = self.waiting_rolls(st, side)
        attack = self.action_from_dict(raw) if raw is not None else None
        mods: dict[int, int] = {}
        if isinstance(a, PlayCard):
            key = self._action_key(a)
            i = next(j for j, e in enumerate(plan) if self.luck_key(e) == key)
            cd = card(LUCK)
            e = plan[i]
            units = (str(e[1]),) if e[0] != "blind" else ()
            hex_ = str(e[1]) if e[0] == "blind" else None
            self.card_played(ctx, side, cd, units, hex_, how="on the roll (§8.2)")
            (d,) = ctx.roll(1, kind="card", side=side, detail="Luck!: 1d6 (card #12)")
            mods[i] = int(cd.d6_table[d - 1])
            ctx.emit(
                "card",
                side=side,
                result=f"{mods[i]:+d}",
                detail=f"the roll changes by {mods[i]:+d} (card #12)",
            )
        else:
            ctx.emit("luck", side=side, detail="the rolls stand")
        ctx.emit(
            "luck",
            side=side,
            detail="the rolls land",
            changes=deck_change(f"roll:{side}", ()),
            visible_to=(side,),
        )
        ctx.emit("luck", changes=var_change(luck_window=None))
        self.land_rolls(ctx, side, plan, attack, mods)

    def luck_gain(self, state: GameState, e: PlanEntry) -> float:
        """The expected change of a roll's result if Luck is played on it (0
        for a roll at a hex that may hide enemies: its target is unknown)."""
        if e[0] not in ("seen", "rally"):
            return 0.0
        value = self._entry_value(state, e)
        table = card(LUCK).d6_table
        total = int(e[2])
        return sum(value(total + int(m)) for m in table) / len(table) - value(total)


def luck_choice(decision: Decision) -> Action:
    """An AI's decision in a Luck window: play Luck on the roll it helps
    most on average (a miss turned into a hit 5 times in 6), else keep the
    rolls.  For the players of :mod:`.ai`."""
    rules: Any = decision.rules
    view, side = decision.state, decision.side
    acts = list(decision.legal_actions)
    keep = next(a for a in acts if isinstance(a, KeepRoll))
    _attack, plan = rules.waiting_rolls(view, side)
    by_key: Mapping[str | None, PlanEntry] = {rules.luck_key(e): e for e in plan}
    best: Action = keep
    gain = 0.0
    for a in acts:
        if isinstance(a, PlayCard):
            e = by_key.get(rules._action_key(a))
            g = rules.luck_gain(view, e) if e is not None else 0.0
            if g > gain:
                best, gain = a, g
    return best
