"""Exact odds and the dice path of Flames of War v3 shooting: hits, armour, saves.

The rules, in our own words, with their sources:

* Roll one die per shot; each die that makes the to-hit score is a hit, and each
  die is judged on its own.  A score above 6 never hits.  With a re-roll, each
  failed die is rolled once more and the second result stands.  FoW v3 p. 20
  (seed 004); research/fow.md §3.2.
* Armour (one hit): the target rolls a die and adds its armour facing the
  shooter.  More than the weapon's anti-tank: no effect.  Equal: Bailed Out.
  Less: penetrated, and the shooter takes a Firepower test: pass = Destroyed,
  fail = Bailed Out.  research/fow.md §3.5 [B: S8 parts 5-6].  (v4 differs: it
  adds +1 armour at long range and takes a Firepower test on "equal" too; that
  is *not* used here.)
* Saves of teams without armour (infantry 3+, guns 5+ or 3+ Gone to Ground,
  unarmoured vehicles 5+ ...): a passed save is no effect, a failed one destroys
  the team; but dug-in teams, teams in Bulletproof Cover and gun-shielded guns hit
  from the front make the shooter pass a Firepower test after the failed save:
  pass = Destroyed, fail = the team survives.  research/fow.md §3.4 [A: S12, S1;
  B: S8 part 5].  A team with no save at all (a portee gun, [A: S1]) is given a
  save above 6 (e.g. 7), which never passes.

Each rule is written once as a *dice-path* function that takes faces
(:func:`hits_from`, :func:`armour_result`, :func:`save_result`) and once as an
exact distribution in :class:`fractions.Fraction` (:func:`hit_pmf`,
:func:`armour_pmf`, :func:`save_pmf`); the ``*_odds`` functions give the same
numbers as a pandas Series of floats.

Examples:
    >>> hit_odds(2, 4).tolist()
    [0.25, 0.5, 0.25]
    >>> armour_pmf(6, 12, 3)["destroyed"]  # research §8 E1
    Fraction(5, 9)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import Final

import pandas as pd

from .dice import _face, _int, p_success, passes

__all__ = [
    "ARMOUR_OUTCOMES",
    "SAVE_OUTCOMES",
    "armour_odds",
    "armour_pmf",
    "armour_result",
    "hit_odds",
    "hit_pmf",
    "hits_from",
    "penetrates",
    "rerolls_needed",
    "save_odds",
    "save_pmf",
    "save_result",
]

#: Results of one hit on an armoured team (research/fow.md §3.5).
ARMOUR_OUTCOMES: Final = ("no effect", "bailed out", "destroyed")
#: Results of one hit on a team without armour (research/fow.md §3.4):
#: "saved" = the save passed; "survived" = the save failed but so did the
#: shooter's Firepower test (Bulletproof Cover, dug in, gun shield).
SAVE_OUTCOMES: Final = ("saved", "survived", "destroyed")


def _optional_score(name: str, value: object) -> int | None:
    return None if value is None else _int(name, value, 1)


# -- hits -------------------------------------------------------------------


def _p_hit(to_hit: int, reroll: bool) -> Fraction:
    p = p_success(to_hit)
    return p + (1 - p) * p if reroll else p


def hit_pmf(dice: int, to_hit: int, *, reroll: bool = False) -> tuple[Fraction, ...]:
    """Exact P(hits = k) for k = 0..``dice``: a binomial, each die on its own.

    Args:
        dice: dice rolled (one per ROF point), >= 0.
        to_hit: the score after modifiers (:func:`~wargame.rules.fow.dice.needed`);
            above 6 never hits (p. 20).
        reroll: each failed die is rolled once more (p. 20).

    Examples:
        >>> hit_pmf(2, 4)
        (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
        >>> hit_pmf(1, 4, reroll=True)
        (Fraction(1, 4), Fraction(3, 4))
    """
    n = _int("dice", dice, 0)
    p = _p_hit(_int("to_hit", to_hit), bool(reroll))
    return tuple(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


def hit_odds(dice: int, to_hit: int, *, reroll: bool = False) -> pd.Series:
    """:func:`hit_pmf` as floats, index ``hits`` = 0..``dice``; sums to 1.

    Examples:
        >>> hit_odds(3, 7).tolist()  # 7+ never hits (p. 20)
        [1.0, 0.0, 0.0, 0.0]
        >>> hit_odds(1, 6, reroll=True).round(4).tolist()
        [0.6944, 0.3056]
    """
    pmf = hit_pmf(dice, to_hit, reroll=reroll)
    s = pd.Series(
        [float(p) for p in pmf], index=pd.RangeIndex(len(pmf), name="hits"), name="p"
    )
    s.attrs.update(dice=int(dice), to_hit=int(to_hit), reroll=bool(reroll))
    return s


def rerolls_needed(faces: Sequence[int], to_hit: int) -> int:
    """How many re-roll faces :func:`hits_from` takes when a re-roll is allowed.

    One per failed die; none when ``to_hit`` is above 6 (an automatic failure,
    p. 20, that no re-roll can change).

    Examples:
        >>> rerolls_needed([1, 4, 6, 2], 4), rerolls_needed([6, 6], 7)
        (2, 0)
    """
    t = _int("to_hit", to_hit)
    return _misses([_face(f"faces[{i}]", f) for i, f in enumerate(faces)], t)


def _misses(faces: list[int], to_hit: int) -> int:
    """Failed dice among checked ``faces`` that a re-roll could still turn."""
    return 0 if to_hit > 6 else sum(f < to_hit for f in faces)


def hits_from(
    faces: Sequence[int], to_hit: int, reroll_faces: Sequence[int] | None = None
) -> int:
    """Count the hits of a roll to hit (FoW v3 p. 20, seed 004).

    Args:
        faces: one face per die rolled.
        to_hit: the score after modifiers; above 6 never hits.
        reroll_faces: ``None`` = no re-roll; otherwise exactly
            ``rerolls_needed(faces, to_hit)`` faces, used in order for the failed
            dice (the second result stands).

    Raises:
        ValueError: a face is not 1..6, or ``reroll_faces`` has the wrong length.

    Examples:
        >>> hits_from([1, 4, 6, 2], 4)
        2
        >>> hits_from([1, 4, 6, 2], 4, reroll_faces=[5, 3])
        3
        >>> hits_from([6, 6], 7, reroll_faces=[])
        0
    """
    t = _int("to_hit", to_hit)
    got = [_face(f"faces[{i}]", f) for i, f in enumerate(faces)]
    hits = 0 if t > 6 else sum(f >= t for f in got)  # passes(), faces checked
    if reroll_faces is None:
        return hits
    again = [_face(f"reroll_faces[{i}]", f) for i, f in enumerate(reroll_faces)]
    want = _misses(got, t)
    if len(again) != want:
        raise ValueError(
            f"reroll_faces: {want} die/dice failed {t}+ and may be re-rolled, "
            f"got {len(again)} face(s)"
        )
    return hits + sum(f >= t for f in again)


# -- armour -----------------------------------------------------------------


def _armour_args(armour: object, anti_tank: object) -> tuple[int, int]:
    return _int("armour", armour, 0), _int("anti_tank", anti_tank, 0)


def penetrates(face: int, armour: int, anti_tank: int) -> bool:
    """Is die + armour below the anti-tank rating?  Then a Firepower test follows.

    research/fow.md §3.5.  The caller rolls the Firepower die only when this is
    True and passes it to :func:`armour_result`.

    Examples:
        >>> penetrates(5, 6, 12), penetrates(6, 6, 12)
        (True, False)
    """
    a, at = _armour_args(armour, anti_tank)
    return _face("face", face) + a < at


def armour_result(
    face: int, armour: int, anti_tank: int, fp_face: int | None, firepower: int
) -> str:
    """Result of one hit on an armoured team (research/fow.md §3.5 [B: S8 5-6]).

    Args:
        face: the target's armour die.
        armour: the armour facing the shooter (front, side or top), >= 0.
        anti_tank: the weapon's anti-tank rating.
        fp_face: the shooter's Firepower die; required exactly when
            :func:`penetrates` is True, otherwise it must be ``None``.
        firepower: the weapon's Firepower score (3 for "3+").

    Returns:
        One of :data:`ARMOUR_OUTCOMES`.

    Examples:
        >>> armour_result(6, 6, 12, None, 3)  # 12 = AT 12: bailed out
        'bailed out'
        >>> armour_result(2, 6, 12, 3, 3), armour_result(2, 6, 12, 2, 3)
        ('destroyed', 'bailed out')
        >>> armour_result(3, 10, 12, None, 3)
        'no effect'
    """
    a, at = _armour_args(armour, anti_tank)
    fp = _int("firepower", firepower, 1)
    total = _face("face", face) + a
    if total >= at:
        if fp_face is not None:
            raise ValueError(
                f"fp_face must be None: {face} + armour {a} = {total} does not "
                f"penetrate anti_tank {at}, so no Firepower test is taken"
            )
        return "no effect" if total > at else "bailed out"
    if fp_face is None:
        raise ValueError(
            f"fp_face is required: {face} + armour {a} = {total} < anti_tank {at} "
            "penetrates, and a Firepower test follows"
        )
    return "destroyed" if passes(_face("fp_face", fp_face), fp) else "bailed out"


def armour_pmf(armour: int, anti_tank: int, firepower: int) -> dict[str, Fraction]:
    """Exact result odds of one hit on an armoured team, over :data:`ARMOUR_OUTCOMES`.

    Examples:
        >>> [str(p) for p in armour_pmf(4, 12, 3).values()]  # E1, side armour
        ['0', '1/3', '2/3']
    """
    a, at = _armour_args(armour, anti_tank)
    p_fp = p_success(_int("firepower", firepower, 1))
    out = dict.fromkeys(ARMOUR_OUTCOMES, Fraction(0))
    sixth = Fraction(1, 6)
    for face in range(1, 7):
        if face + a > at:
            out["no effect"] += sixth
        elif face + a == at:
            out["bailed out"] += sixth
        else:
            out["destroyed"] += sixth * p_fp
            out["bailed out"] += sixth * (1 - p_fp)
    return out


def armour_odds(armour: int, anti_tank: int, firepower: int) -> pd.Series:
    """:func:`armour_pmf` as floats indexed by :data:`ARMOUR_OUTCOMES`.

    Examples:
        >>> armour_odds(6, 12, 3).round(4).tolist()  # research §8 E1, front
        [0.0, 0.4444, 0.5556]
    """
    pmf = armour_pmf(armour, anti_tank, firepower)
    s = pd.Series(
        [float(p) for p in pmf.values()],
        index=pd.Index(ARMOUR_OUTCOMES, name="result"),
        name="p",
    )
    s.attrs.update(armour=int(armour), anti_tank=int(anti_tank), firepower=firepower)
    return s


# -- saves ------------------------------------------------------------------


def save_result(
    face: int, save: int, fp_face: int | None = None, firepower: int | None = None
) -> str:
    """Result of one hit on a team without armour (research/fow.md §3.4).

    Args:
        face: the target's save die.
        save: its save score (infantry 3, guns 5 ...); above 6 = no save.
        fp_face: the shooter's Firepower die; required exactly when the save
            failed and ``firepower`` is given, otherwise ``None``.
        firepower: the weapon's Firepower score when the target is dug in, in
            Bulletproof Cover or behind a gun shield from the front; ``None``
            when a failed save destroys the team outright.

    Returns:
        One of :data:`SAVE_OUTCOMES`.

    Examples:
        >>> save_result(3, 3), save_result(2, 3)
        ('saved', 'destroyed')
        >>> save_result(2, 3, 6, 6), save_result(2, 3, 5, 6)  # dug in, FP 6
        ('destroyed', 'survived')
    """
    s = _int("save", save, 1)
    fp = _optional_score("firepower", firepower)
    saved = passes(_face("face", face), s)
    if saved or fp is None:
        if fp_face is not None:
            why = "the save passed" if saved else "firepower is None"
            raise ValueError(f"fp_face must be None: {why}, so no Firepower test")
        return "saved" if saved else "destroyed"
    if fp_face is None:
        raise ValueError(
            f"fp_face is required: the {s}+ save failed and a Firepower {fp}+ "
            "test follows"
        )
    return "destroyed" if passes(_face("fp_face", fp_face), fp) else "survived"


def save_pmf(save: int, firepower: int | None = None) -> dict[str, Fraction]:
    """Exact result odds of one hit on a team without armour (:data:`SAVE_OUTCOMES`).

    Examples:
        >>> [str(p) for p in save_pmf(3).values()]  # research §8 E2, in the open
        ['2/3', '0', '1/3']
        >>> save_pmf(3, 6)["destroyed"]  # E2, dug in: failed save, then FP 6
        Fraction(1, 18)
    """
    p_save = p_success(_int("save", save, 1))
    fp = _optional_score("firepower", firepower)
    p_fp = Fraction(1) if fp is None else p_success(fp)
    failed = 1 - p_save
    return {
        "saved": p_save,
        "survived": failed * (1 - p_fp),
        "destroyed": failed * p_fp,
    }


def save_odds(save: int, firepower: int | None = None) -> pd.Series:
    """:func:`save_pmf` as floats indexed by :data:`SAVE_OUTCOMES`.

    Examples:
        >>> save_odds(5).round(4).tolist()  # a gun team in the open
        [0.3333, 0.0, 0.6667]
    """
    pmf = save_pmf(save, firepower)
    s = pd.Series(
        [float(p) for p in pmf.values()],
        index=pd.Index(SAVE_OUTCOMES, name="result"),
        name="p",
    )
    s.attrs.update(save=int(save), firepower=firepower)
    return s
