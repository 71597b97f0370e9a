"""Exact odds of Бронепехота shots and melees, from the same rule code as the dice.

Every probability here is counted over the faces of the dice through the
dice-path functions of :mod:`.shooting` and :mod:`.melee` (``range_result``,
``hits``, ``pierces``, ``resolve_melee``), in :class:`fractions.Fraction`; the
``*_odds`` functions give the same numbers as a pandas Series of floats.

* :func:`shot_odds`: damage of one shot (§7.4 I-II): P(miss) plus, on a hit, a
  binomial over the power dice, each die on its own above armour + cover.
  For an infantryman any damage means destroyed (§5.1); for a machine or gun
  it is the number of cells the slider moves.
* :func:`melee_odds`: the melee margin (§8.2): 0 = repelled, k > 0 = the
  attacker won by k (an infantryman destroyed; a machine or gun takes k
  damages, Table 7).

Examples:
    >>> shot_odds("Д6+2", 4.2, "1Д12", 2).round(4).tolist()  # §7.4 I's shooter
    [0.4444, 0.5556]
    >>> melee_pmf("Д6+2", "Д6+3")[0]  # §8.2: a tie is repelled
    Fraction(13, 18)
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from math import comb

import pandas as pd

from .dice import Dice, _int, as_dice, best_of_two_pmf, die_pmf
from .melee import melee_attack_dice, melee_defence, resolve_melee
from .shooting import hits, pierces, range_result, steps

__all__ = [
    "damage_pmf",
    "hit_probability",
    "melee_odds",
    "melee_pmf",
    "pierce_probability",
    "shot_odds",
    "shot_pmf",
]


def hit_probability(
    range_die: str | Dice,
    distance_steps: float,
    *,
    range_bonus: int = 0,
    aimed: bool = False,
) -> Fraction:
    """P(the range roll reaches the target) (§7.4 I; aimed fire §11.1).

    Examples:
        >>> hit_probability("Д6+2", 4.2)  # §7.4 I: faces 3-6 hit at 5 steps
        Fraction(2, 3)
        >>> hit_probability("Д6+1", 12, aimed=True)  # §11.1: only a 5 or a 6
        Fraction(1, 3)
    """
    d = as_dice(range_die, "range_die")
    st = steps(distance_steps)
    if type(range_bonus) is int and type(aimed) is bool:
        return _hit_probability(d, st, range_bonus, aimed)
    return _hit_probability.__wrapped__(d, st, range_bonus, aimed)


@lru_cache(maxsize=4096)
def _hit_probability(d: Dice, st: int, range_bonus: int, aimed: bool) -> Fraction:
    """:func:`hit_probability` of a die at whole steps ``st``, remembered (the
    AI asks it for the same dice and distances again and again; issue 23)."""
    return sum(
        (
            p
            for face, p in die_pmf(d.sides).items()
            if hits(range_result(d, face, range_bonus=range_bonus, aimed=aimed), st)
        ),
        Fraction(0),
    )


def pierce_probability(sides: int, armour: int) -> Fraction:
    """P(one power die of ``sides`` pierces ``armour``) (§7.4 II).

    >>> pierce_probability(12, 7), pierce_probability(6, 6)
    (Fraction(5, 12), Fraction(0, 1))
    """
    return sum(
        (p for face, p in die_pmf(sides).items() if pierces(face, armour)), Fraction(0)
    )


def damage_pmf(power: str | Dice, armour: int, cover: int = 0) -> tuple[Fraction, ...]:
    """P(damage = k), k = 0..n, of a hit with ``n`` power dice (§7.4 II).

    Examples:
        >>> damage_pmf("2Д6", 4)
        (Fraction(4, 9), Fraction(4, 9), Fraction(1, 9))
    """
    d = as_dice(power, "power")
    a = _int("armour", armour, 0) + _int("cover", cover, 0)
    p = pierce_probability(d.sides, a)
    n = d.count
    return tuple(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


def shot_pmf(
    range_die: str | Dice,
    distance_steps: float,
    power: str | Dice,
    armour: int,
    *,
    range_bonus: int = 0,
    cover: int = 0,
    aimed: bool = False,
) -> tuple[Fraction, ...]:
    """Exact P(damage = k), k = 0..n, of one shot (§7.4 I-II).

    Examples:
        >>> shot_pmf("Д12", 5, "4Д12", 7)[2]  # §7.4 III's SALAMANDER, 2 damages
        Fraction(1225, 5184)
    """
    hit = hit_probability(
        range_die, distance_steps, range_bonus=range_bonus, aimed=aimed
    )
    dmg = damage_pmf(power, armour, cover)
    return (1 - hit + hit * dmg[0], *(hit * q for q in dmg[1:]))


def shot_odds(
    range_die: str | Dice,
    distance_steps: float,
    power: str | Dice,
    armour: int,
    *,
    range_bonus: int = 0,
    cover: int = 0,
    aimed: bool = False,
) -> pd.Series:
    """:func:`shot_pmf` as floats, index ``damage`` = 0..n; sums to 1.

    Args:
        range_die: the weapon's range as on the armlist (``"Д6+2"``, ``"D20"``).
        distance_steps: the measured distance in steps (1 step = 5 cm on the
            table); rounded up here (§7.4 I.1).
        power: the power dice (``"2Д12"``, ``"2D12"``).
        armour: the target's Бр, or a machine's or gun's current durability cell
            (§5.2).
        range_bonus: added to the range result like a printed bonus.
        cover: the armour bonus of Table 5 (0, +1 more than half visible, +3
            less than half, see :func:`~.shooting.cover_bonus`).
        aimed: aimed fire doubles the range result (§11.1; infantry only).

    Examples:
        >>> shot_odds("Д6", 7, "1Д6", 2).tolist()  # out of reach of a Д6
        [1.0, 0.0]
        >>> shot_odds("D12", 5, "4D12", 7).index.name
        'damage'
    """
    pmf = shot_pmf(
        range_die,
        distance_steps,
        power,
        armour,
        range_bonus=range_bonus,
        cover=cover,
        aimed=aimed,
    )
    s = pd.Series(
        [float(p) for p in pmf], index=pd.RangeIndex(len(pmf), name="damage"), name="p"
    )
    s.attrs.update(
        range_die=str(as_dice(range_die)),
        distance_steps=float(distance_steps),
        steps=steps(distance_steps),
        power=str(as_dice(power)),
        armour=int(armour),
        range_bonus=int(range_bonus),
        cover=int(cover),
        aimed=bool(aimed),
    )
    return s


def _attack_faces(d: Dice, surprise: bool) -> Mapping[int, Fraction]:
    return best_of_two_pmf(d.sides) if surprise else die_pmf(d.sides)


def melee_pmf(
    attack: str | Dice, defence: str | Dice | int, *, surprise: bool = False
) -> dict[int, Fraction]:
    """Exact P(margin = k) of one melee: 0 = repelled, k > 0 = won by k (§8.2).

    Args:
        attack: the attacker's strength, one die plus bonus: ``"Д6+2"`` for an
            infantryman with ББ 2, ``"Д6+12"`` for Fig. 49's machine.
        defence: the defender's strength: ``"Д6+3"`` (infantryman Бр 3; a
            piloted machine Д6+armour+ББ) or an int (a gun or pilotless
            machine: armour alone, Table 6).
        surprise: the attacker keeps the better of two dice (§8.3); the
            defending machine's lost ББ belongs in ``defence``
            (:func:`~.melee.machine_strength` with ``surprised=True``).

    Examples:
        >>> melee_pmf("Д6+12", 9)  # §8.1 Fig. 49: always wins, by 4 to 9
        {0: Fraction(0, 1), 4: Fraction(1, 6), 5: Fraction(1, 6), \
6: Fraction(1, 6), 7: Fraction(1, 6), 8: Fraction(1, 6), 9: Fraction(1, 6)}
    """
    a = melee_attack_dice(attack)
    d = melee_defence(defence)
    out: dict[int, Fraction] = {0: Fraction(0)}
    attack_faces = _attack_faces(a, surprise)
    defence_faces: dict[int | None, Fraction] = {None: Fraction(1)}
    if not isinstance(d, int):
        defence_faces = dict(die_pmf(d.sides).items())
    for af, pa in attack_faces.items():
        faces = [af, af] if surprise else [af]
        for df, pd_ in defence_faces.items():
            m = resolve_melee(a, faces, d, df, surprise=surprise)
            out[m.damage] = out.get(m.damage, Fraction(0)) + pa * pd_
    return dict(sorted(out.items()))


def melee_odds(
    attack: str | Dice, defence: str | Dice | int, *, surprise: bool = False
) -> pd.Series:
    """:func:`melee_pmf` as floats over margin 0..max, index ``damage``.

    ``damage`` 0 is "repelled"; any value above 0 destroys an infantryman, and
    is the damage a machine or gun takes (Table 7).

    Examples:
        >>> s = melee_odds("Д6+2", "Д6+3")  # §8.2 Fig. 50's fighters
        >>> round(float(s[0]), 4), round(float(s.iloc[1:].sum()), 4)
        (0.7222, 0.2778)
    """
    pmf = melee_pmf(attack, defence, surprise=surprise)
    top = max(pmf)
    vals = [float(pmf.get(k, Fraction(0))) for k in range(top + 1)]
    s = pd.Series(vals, index=pd.RangeIndex(top + 1, name="damage"), name="p")
    d = melee_defence(defence)
    s.attrs.update(
        attack=str(melee_attack_dice(attack)),
        defence=d if isinstance(d, int) else str(d),
        surprise=bool(surprise),
    )
    return s
