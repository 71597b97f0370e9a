"""Exact odds and the dice path for Conflict of Heroes 2e attacks and rallies.

An attack rolls 2D6: AV = FP + 2D6 + CAPs (at most 2 CAPs per roll, §3.2, §7.2);
it hits when AV >= DV and destroys outright when AV >= DV + 4 (CoH 2e §7.0,
research/coh.md §1.7).  :func:`fire_result` is the one place of that test: the
exact odds (:func:`fire_odds`, counted over the 36 outcomes in fractions) and the
dice (:func:`resolve_fire`) both call it, so they cannot drift apart.

Examples:
    >>> fire_odds(5, 14).round(4).tolist()  # seed 003 §10.0: HMG vs hidden rifle
    [0.7222, 0.2778, 0.0]
    >>> fire_result(5 + 8, 14)  # it rolls 8: AV 13 misses
    'miss'
    >>> round(rally_odds(7), 4), rally_odds(None)
    (0.5833, 0.0)
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pandas as pd

__all__ = [
    "CRITICAL_MARGIN",
    "MAX_CAPS_PER_ROLL",
    "OUTCOMES",
    "fire_odds",
    "fire_result",
    "rally_odds",
    "resolve_fire",
    "roll_2d6",
    "two_d6_at_least",
]

#: The outcomes of one attack roll, in order.
OUTCOMES = ("miss", "hit", "destroyed")
#: AV >= DV + 4 destroys the target at once (a critical hit, CoH 2e §7.0).
CRITICAL_MARGIN = 4
#: CAPs modify a roll by one each, at most two per roll (CoH 2e §3.2, §7.2).
MAX_CAPS_PER_ROLL = 2

_TWO_D6 = tuple(a + b for a, b in product(range(1, 7), repeat=2))


def _check_caps(caps: int) -> None:
    if (
        isinstance(caps, bool)
        or not isinstance(caps, int)
        or not 0 <= caps <= MAX_CAPS_PER_ROLL
    ):
        raise ValueError(
            f"caps = {caps!r}: an attacker adds 0 to {MAX_CAPS_PER_ROLL} CAPs to one "
            "roll (CoH 2e §3.2, §7.2)"
        )


def _check_int(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} = {value!r} must be an integer")


def fire_result(av: int, dv: int) -> str:
    """``"miss"``, ``"hit"`` or ``"destroyed"`` for an attack value against a DV.

    >>> fire_result(13, 13), fire_result(17, 13), fire_result(12, 13)
    ('hit', 'destroyed', 'miss')
    """
    if av >= dv + CRITICAL_MARGIN:  # CoH 2e §7.0: critical hit, destroyed at once
        return "destroyed"
    if av >= dv:  # CoH 2e §7.0: AV equal to or greater than DV hits
        return "hit"
    return "miss"


def _fire_fractions(fp: int, dv: int, caps: int) -> dict[str, Fraction]:
    counts = dict.fromkeys(OUTCOMES, 0)
    for roll in _TWO_D6:
        counts[fire_result(fp + roll + caps, dv)] += 1
    return {k: Fraction(n, 36) for k, n in counts.items()}


def fire_odds(fp: int, dv: int, *, caps: int = 0) -> pd.Series:
    """Exact chance of a miss, a hit and a kill for one attack roll.

    ``fp`` is the firepower of the colour matching the target's DR after every
    modifier (range, hit markers, firegroup, close combat); ``dv`` the defence
    value (DR + DMs); ``caps`` the CAPs (0-2) added to the attacker's roll.

    >>> fire_odds(5, 14).tolist() == [26 / 36, 10 / 36, 0.0]
    True
    >>> fire_odds(3, 12, caps=2).round(4).tolist()  # needs 7 to hit, 11 to kill
    [0.4167, 0.5, 0.0833]
    """
    _check_int("fp", fp)
    _check_int("dv", dv)
    _check_caps(caps)
    p = _fire_fractions(fp, dv, caps)
    s = pd.Series(
        [float(p[k]) for k in OUTCOMES],
        index=pd.Index(OUTCOMES, name="result"),
        name="p",
    )
    s.attrs.update(fp=fp, dv=dv, caps=caps)
    return s


def two_d6_at_least(n: int) -> float:
    """P(2D6 >= n), exact.

    >>> two_d6_at_least(9), two_d6_at_least(2), two_d6_at_least(13)
    (0.2777777777777778, 1.0, 0.0)
    """
    _check_int("n", n)
    return float(Fraction(sum(1 for r in _TWO_D6 if r >= n), 36))


def rally_odds(rally_number: int | None, bonus: int = 0, caps: int = 0) -> float:
    """Chance that a rally roll succeeds: 2D6 + bonus + CAPs >= the marker's number.

    ``bonus`` is the rally roll modifier (+1 in cover terrain, +1 per friendly
    un-hit unit in the hex, CoH 2e §7.6.1); ``caps`` 0-2.  A marker without a
    rally number (No Rally, §7.6) never rallies.

    >>> round(rally_odds(8, bonus=1), 4), round(rally_odds(9, caps=2), 4)
    (0.5833, 0.5833)
    """
    _check_caps(caps)
    _check_int("bonus", bonus)
    if bonus < 0:
        raise ValueError(
            f"bonus = {bonus}: rally modifiers are 0 or more (CoH 2e §7.6.1)"
        )
    if rally_number is None:
        return 0.0
    _check_int("rally_number", rally_number)
    return two_d6_at_least(rally_number - bonus - caps)


def roll_2d6(rng: np.random.Generator) -> tuple[int, int]:
    """Two dice from the game's generator: each ``int(u * 6) + 1`` of ``rng.random(2)``.

    The engine's die convention (:meth:`wargame.engine.ruleset.Ruleset.roll`).

    >>> roll_2d6(np.random.default_rng(1))
    (4, 6)
    """
    u = rng.random(2).tolist()
    return int(u[0] * 6.0) + 1, int(u[1] * 6.0) + 1


def resolve_fire(
    fp: int, dv: int, rng: np.random.Generator, caps: int = 0
) -> tuple[tuple[int, int], str]:
    """Roll one attack: the two dice and ``"miss"``, ``"hit"`` or ``"destroyed"``.

    >>> resolve_fire(5, 14, np.random.default_rng(1))  # rolls 10: AV 15 hits
    ((4, 6), 'hit')
    """
    _check_int("fp", fp)
    _check_int("dv", dv)
    _check_caps(caps)
    dice = roll_2d6(rng)
    return dice, fire_result(fp + dice[0] + dice[1] + caps, dv)  # CoH 2e §7.2
