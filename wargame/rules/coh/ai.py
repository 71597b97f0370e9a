"""Conflict of Heroes players: greedy and doctrine, each deciding from its own
side's view only (the engine's :class:`~wargame.engine.Decision` carries it).

* :class:`GreedyPolicy` scores every legal action by its expected result per
  AP, from the exact odds (the same FP and DV the dice use, so facing, cover
  and cards count): expected hits and kills for fire, the rally chance for
  rally, AP saved on the cheapest way to the objective (or cover held) for
  moves, the worth of a card play (:mod:`.ai_cards`), and passes when nothing
  is worth its points.
* :class:`DoctrinePolicy` (:mod:`.ai_doctrine`) follows the rulebook's
  solitaire doctrine (CoH 2e §20.2-20.3, research/coh.md §1.12) and, where it
  is silent, sound small-unit tactics.

Tie-breaks use a hash of the game seed and decision number, never the game's
dice, so a game replays identically (:mod:`.ai_scorer`).

Example:
    >>> from wargame.engine import Game
    >>> g = Game.from_scenario("coh_partisans", seed=1,
    ...     policies={"german": GreedyPolicy(), "soviet": DoctrinePolicy()})
    >>> g.step().type
    'move'
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from wargame.engine import Action, Decision

from .actions import (
    Fire,
    InitiativeBid,
    KeepRoll,
    Move,
    Pass,
    Pivot,
    PlayCard,
    PlotArtillery,
    Rally,
    Spend,
    Stall,
)
from .ai_cards import card_plays, careful_aiming_worth
from .ai_doctrine import DoctrinePolicy
from .ai_scorer import ATTACKS, Scorer, jitter, plot_choice
from .luck import luck_choice
from .odds import rally_odds

__all__ = ["DoctrinePolicy", "GreedyPolicy"]


class GreedyPolicy:
    """Expected result per AP from the exact odds (module docstring)."""

    def choose(self, decision: Decision) -> Any:
        """The action with the best score (see the module docstring)."""
        acts = list(decision.legal_actions)
        if isinstance(acts[0], InitiativeBid):
            return acts[0]
        if isinstance(acts[0], PlotArtillery):
            return plot_choice(decision)
        if isinstance(acts[0], KeepRoll):
            return luck_choice(decision)  # a Luck! window (card #12)
        s = Scorer(decision)
        posture = s.rules.scenario.posture(s.side) or "attack"
        goal = s.goal()
        cards = {id(a): w for w, a in card_plays(s, acts)}
        best, best_score = acts[0], float("-inf")
        for i, a in enumerate(acts):
            if isinstance(a, PlayCard):
                score = cards.get(id(a), -1.0)
            else:
                score = self._score(s, a, posture, goal)
            score += jitter(decision, i)
            if score > best_score:
                best, best_score = a, score
        return best

    def _score(self, s: Scorer, a: Action, posture: str, goal: str | None) -> float:
        pay_pen = {"ap": 0.0, "opportunity": 0.02, "command": 0.15, "card": -0.1}.get(
            str(getattr(a, "pay", "ap")), 0.0
        )
        if isinstance(a, Pass):
            return 0.01
        if isinstance(a, Spend | Stall):
            return -1.0
        if isinstance(a, ATTACKS):
            value, need = s.fire_value(a)
            if isinstance(a, Fire) and a.card:
                # Careful Aiming only where it turns a doubtful shot good
                base, base_need = s.fire_value(replace(a, card=None))
                if not careful_aiming_worth(base_need, need):
                    return -1.0
                value = base + 0.5 * (value - base)
            return value / s.cost(a) * 3 - pay_pen
        if isinstance(a, Rally):
            u = s.view.units[a.units[0]]
            m = s.rules.marker(u)
            p = rally_odds(m.rally if m else None, s.rules.rally_bonus(s.view, u))
            return p * 0.5 / s.cost(a) * 3 - pay_pen
        if isinstance(a, Move):
            u = s.view.units[a.units[0]]
            to = a.then[-1] if a.then else a.to[0]
            gain = s.ap_to_goal(u.hex, goal) - s.ap_to_goal(to, goal) if u.hex else 1.0
            gain = max(-2.0, min(gain, 3.0))
            cover = 0.05 if s.rules.board.cover(to) else 0.0
            if posture == "defend" and u.hex is not None:
                return (0.02 * gain + cover - 0.05) / s.cost(a) - pay_pen
            return (0.06 * gain + cover) / s.cost(a) - pay_pen
        if isinstance(a, Pivot):
            u = s.view.units[a.units[0]]
            if u.hex is None:
                return -1.0
            near = [e for e in s.enemies if s.rules.board.distance(u.hex, e.hex) <= 6]
            facing_now = sum(
                1 for e in near if s.rules.board.in_arc(u.hex, u.facing, e.hex)
            )
            facing_new = sum(
                1 for e in near if s.rules.board.in_arc(u.hex, a.facing, e.hex)
            )
            return 0.05 * (facing_new - facing_now) - pay_pen
        return -0.5
