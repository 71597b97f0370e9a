"""Exact odds for World at War (classic) ranged fire.

The distributions are computed exactly (binomial convolutions in rational
arithmetic) from the same :class:`~wargame.rules.waw.combat.FireFactors` and
:class:`~wargame.rules.waw.combat.SaveFactors` that the dice path rolls, so the
odds and the dice cannot drift apart.

Examples:
    >>> fire_odds(3, 4).tolist()
    [0.125, 0.375, 0.375, 0.125]
    >>> odds("m48", "t64", 5, "town").round(3).tolist()
    [0.593, 0.259, 0.123, 0.025]
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import comb

import pandas as pd

from .catalog import AttackKind, TerrainChart, UnitType
from .combat import (
    FRESH,
    FireFactors,
    HitResult,
    SaveFactors,
    UnitState,
    _support_factors,
    fire_factors,
    hit_result,
    plan_fire,
    save_factors,
)

__all__ = [
    "OUTCOMES",
    "fire_odds",
    "net_hit_pmf",
    "odds",
    "result_odds",
    "result_probabilities",
    "support_result_probabilities",
]

OUTCOMES = ("no effect", "disrupted", "reduced", "destroyed")


def _binomial(n: int, p: Fraction) -> list[Fraction]:
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def net_hit_pmf(fire: FireFactors, defence: SaveFactors) -> tuple[Fraction, ...]:
    """Exact probability of 0..``fire.firepower`` net hits.

    Hits ~ Binomial(firepower, P(d6 >= to-hit)), saves ~ Binomial(save dice,
    P(d6 >= save)); net hits = max(hits - saves, 0) (WaW 6.1).

    Examples:
        >>> net_hit_pmf(fire_factors(1, 4), save_factors(terrain_dice=1))
        (Fraction(2, 3), Fraction(1, 3))
    """
    key = (fire.firepower, fire.hit_probability, defence.dice, defence.save_probability)
    hit = _PMFS.get(key)
    if hit is None:
        hit = _PMFS[key] = _net_hit_pmf(*key)
    return hit


#: :func:`net_hit_pmf` by what it reads (dice and chances): a few dozen
#: distinct ones, asked for by every new shot the AI weighs.
_PMFS: dict[tuple[int, Fraction, int, Fraction], tuple[Fraction, ...]] = {}


def _net_hit_pmf(
    firepower: int, p_hit: Fraction, save_dice: int, p_save: Fraction
) -> tuple[Fraction, ...]:
    """:func:`net_hit_pmf` worked out (WaW 6.1: hits less saves, at least 0)."""
    hits = _binomial(firepower, p_hit)
    saves = _binomial(save_dice, p_save)
    out = [Fraction(0)] * (firepower + 1)
    for h, p_h in enumerate(hits):
        for s, p_s in enumerate(saves):
            out[max(h - s, 0)] += p_h * p_s
    return tuple(out)


def _series(
    pmf: tuple[Fraction, ...], size: int, fire: FireFactors, defence: SaveFactors
) -> pd.Series:
    values = [float(p) for p in pmf] + [0.0] * (size + 1 - len(pmf))
    s = pd.Series(values, index=pd.RangeIndex(size + 1, name="net_hits"), name="p")
    s.attrs.update(
        firepower=fire.firepower,
        to_hit=fire.to_hit,
        firepower_lost=fire.firepower_lost,
        save_dice=defence.dice,
        save=defence.save,
    )
    return s


def fire_odds(
    firepower: int,
    to_hit: int,
    *,
    armor_dice: int = 0,
    save: int | None = None,
    terrain_dice: int = 0,
) -> pd.Series:
    """Exact distribution of net hits of one shot.

    Args:
        firepower: dice rolled.
        to_hit: modified to-hit; above 6 each extra point costs a die (WaW 6.1.3).
        armor_dice: the target's armor dice.
        save: its save number; ``None`` = unarmored target (terrain dice save on
            5+, no cap).
        terrain_dice: terrain defence dice (capped at 2 when ``save`` is given).

    Returns:
        P(net hits = k) for k = 0..firepower (index ``net_hits``); sums to 1.
        ``attrs`` holds the effective dice.

    Examples:
        >>> fire_odds(4, 7).attrs["firepower"], float(fire_odds(4, 7)[4])
        (3, 0.0)
        >>> round(float(fire_odds(3, 4, armor_dice=2, save=5, terrain_dice=3)[0]), 4)
        0.5926
    """
    fire = fire_factors(firepower, to_hit)
    defence = save_factors(armor_dice=armor_dice, save=save, terrain_dice=terrain_dice)
    return _series(net_hit_pmf(fire, defence), firepower, fire, defence)


def odds(
    attacker: UnitType | str,
    target: UnitType | str,
    range_hexes: int,
    terrain: str = "clear",
    *,
    kind: AttackKind | str | None = None,
    moving: bool = False,
    attacker_reduced: bool = False,
    target_reduced: bool = False,
    leadership: int = 0,
    concealment_dice: int = 0,
    adjacent: bool = False,
    chart: TerrainChart | None = None,
    attacker_mode: str | None = None,
) -> pd.Series:
    """Exact net-hit distribution of one unit type firing at another.

    Same arguments as :func:`~wargame.rules.waw.combat.plan_fire` (``range_hexes``
    is counted as in :func:`~wargame.rules.waw.combat.rule_range``); AA fire at
    helicopters (``kind="aa"``) and a helicopter's mode (``attacker_mode``) are
    covered like any other shot.

    Returns:
        P(net hits = k), k = 0..printed firepower + leadership.

    Examples:
        >>> odds("t72", "tow_jeep", 6, "woods").round(4).tolist()
        [0.3292, 0.3621, 0.2305, 0.07, 0.0082]
        >>> odds("zsu23_4", "mi24", 10, kind="aa").round(4).tolist()
        [0.1875, 0.375, 0.3333, 0.1042]
    """
    plan = plan_fire(
        attacker,
        target,
        range_hexes=range_hexes,
        terrain=terrain,
        kind=kind,
        moving=moving,
        attacker_reduced=attacker_reduced,
        target_reduced=target_reduced,
        leadership=leadership,
        concealment_dice=concealment_dice,
        adjacent=adjacent,
        chart=chart,
        attacker_mode=attacker_mode,
    )
    size = plan.fire.printed_firepower + plan.fire.firepower_bonus
    return _series(net_hit_pmf(plan.fire, plan.defence), size, plan.fire, plan.defence)


def result_odds(
    attacker: UnitType | str,
    target: UnitType | str,
    range_hexes: int,
    terrain: str = "clear",
    *,
    target_state: UnitState = FRESH,
    kind: AttackKind | str | None = None,
    moving: bool = False,
    attacker_reduced: bool = False,
    leadership: int = 0,
    concealment_dice: int = 0,
    adjacent: bool = False,
    chart: TerrainChart | None = None,
    attacker_mode: str | None = None,
) -> pd.Series:
    """Exact chances of each result on the target: no effect ... destroyed.

    Net hits are turned into results by the same
    :func:`~wargame.rules.waw.combat.hit_result` the dice path uses.

    Examples:
        >>> result_odds("m48", "t64", 5, "town").round(3).to_dict()
        {'no effect': 0.593, 'disrupted': 0.259, 'reduced': 0.123, 'destroyed': 0.025}
    """
    probs = result_probabilities(
        attacker,
        target,
        range_hexes,
        terrain,
        target_state=target_state,
        kind=kind,
        moving=moving,
        attacker_reduced=attacker_reduced,
        leadership=leadership,
        concealment_dice=concealment_dice,
        adjacent=adjacent,
        chart=chart,
        attacker_mode=attacker_mode,
    )
    s = pd.Series({k: float(v) for k, v in probs.items()}, name="p")
    s.index.name = "result"
    return s


def result_probabilities(
    attacker: UnitType | str,
    target: UnitType | str,
    range_hexes: int,
    terrain: str = "clear",
    *,
    target_state: UnitState = FRESH,
    kind: AttackKind | str | None = None,
    moving: bool = False,
    attacker_reduced: bool = False,
    leadership: int = 0,
    concealment_dice: int = 0,
    adjacent: bool = False,
    chart: TerrainChart | None = None,
    attacker_mode: str | None = None,
) -> dict[str, Fraction]:
    """:func:`result_odds` as a plain dict of exact fractions (no pandas).

    For code that asks many times (AI policies); same rule code, same numbers.

    Examples:
        >>> p = result_probabilities("m48", "t64", 5, "town")
        >>> sum(p.values()) == 1, round(float(p["destroyed"]), 3)
        (True, 0.025)
    """
    plan = plan_fire(
        attacker,
        target,
        range_hexes=range_hexes,
        terrain=terrain,
        kind=kind,
        moving=moving,
        attacker_reduced=attacker_reduced,
        target_reduced=target_state.reduced,
        leadership=leadership,
        concealment_dice=concealment_dice,
        adjacent=adjacent,
        chart=chart,
        attacker_mode=attacker_mode,
    )
    return _outcome_odds(
        plan.fire,
        plan.defence,
        lambda k: hit_result(
            k,
            plan.target_type,
            plan.kind,
            target_state,
            one_sided=plan.target_one_sided,
            fragile=plan.target_fragile,
        ),
    )


def _outcome_odds(
    fire: FireFactors, defence: SaveFactors, hit: Callable[[int], HitResult]
) -> dict[str, Fraction]:
    """Exact odds of each outcome, ``hit`` giving the result of ``k`` net hits."""
    totals = dict.fromkeys(OUTCOMES, Fraction(0))
    for k, p in enumerate(net_hit_pmf(fire, defence)):
        r = hit(k)
        if r.after.destroyed:
            label = "destroyed"
        elif r.after.strength is not r.before.strength:
            label = "reduced"
        elif r.after.disrupted and not r.before.disrupted:
            label = "disrupted"
        else:
            label = "no effect"
        totals[label] += p
    return totals


def support_result_probabilities(
    firepower: int,
    to_hit: int,
    target: UnitType | str,
    *,
    kind: AttackKind | str = AttackKind.HE,
    terrain_dice: int = 0,
    target_state: UnitState = FRESH,
) -> dict[str, Fraction]:
    """Exact result odds of off-map or indirect fire at one unit.

    The same steps as :func:`~wargame.rules.waw.combat.resolve_support_fire`
    (firepower and to-hit, the target's defence dice), without dice.

    Examples:
        >>> p = support_result_probabilities(3, 5, "ussr_infantry")
        >>> sum(p.values()) == 1, round(float(p["no effect"]), 4)
        (True, 0.2963)
    """
    fire, defence, hit = _support_factors(
        firepower, to_hit, target, kind, terrain_dice, target_state
    )
    return _outcome_odds(fire, defence, hit)
