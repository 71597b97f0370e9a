"""Бронепехота 2008: how the AI players value the optional rules' actions
(:mod:`.ai` calls these).

* A grenade (§7.8): the mean over the Д6 burst points of the figures each
  would catch within 1 step, every one facing a 1Д20 against its armour: an
  enemy's loss counts for the thrower's side (times the doctrine's focus), a
  friend's (the thrower's own included, on a 1) against it.
* An aimed shot (§11.1): the shot's value with the range doubled, less
  :data:`AIMED_COST` for the move it gives up.
* A jump (§9.4) is a move and scored as one.

ASSUMPTION (docs, numbered): :data:`AIMED_COST` and the grenade's valuation
are a choice, measured only by the balance runs.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .actions import Fig
from .shooting import GRENADE_BLAST, GRENADE_RANGE

__all__ = ["AIMED_COST", "throw_value"]

#: ASSUMPTION: what giving up the turn's move for an aimed shot costs.
AIMED_COST = 0.05


def throw_value(
    rules: Any,
    view: Any,
    a: Any,
    side: str,
    value: Callable[[Fig, tuple[Fraction, ...]], float],
    focus: Callable[[Fig], float],
) -> float:
    """Expected worth of grenade ``a`` (a :class:`~.grenades.Throw`) for
    ``side``; ``value`` prices a damage distribution on a figure, ``focus``
    weighs an enemy target."""
    f = rules.fig(view, a.unit, a.soldier)
    t = rules.fig(view, a.target, a.target_soldier)
    start, goal = rules.position(f), rules.position(t)
    power = GRENADE_BLAST.power
    total = 0.0
    for face in range(1, GRENADE_RANGE.sides + 1):
        burst = rules.burst_point(start, goal, face)
        for g in rules.caught(view, burst, GRENADE_BLAST, airborne=False):
            p = Fraction(max(0, power.sides - g.armour), power.sides)
            v = value(g, (1 - p, p))
            total += v * focus(g) if g.unit.side != side else -v
    return total / GRENADE_RANGE.sides
