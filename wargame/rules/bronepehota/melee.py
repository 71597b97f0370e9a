"""Melee (ближний бой) of Бронепехота (official rules 05.08.08, §8).

The rules, in our own words (sections of ``official_rules.md``; research notes
``research/bronepehota.md §3``):

* Melee comes only from movement: an infantryman touches an enemy infantryman,
  machine or gun, or a machine touches one.  The one who moved is the
  attacker (§8, §8.1).  Fliers never melee (§3.2).
* Strengths (§8.1, Table 6): an infantryman attacks with Д6+ББ and defends with
  Д6+Бр; a machine attacks and defends with Д6+armour+ББ, its ББ the sum of the
  power numbers of all its melee weapons (range box "ББ"); a gun or a machine
  without pilot never attacks and defends with its armour alone, no die.
* Result (§8.2, Table 7): an attack at or below the defence is repelled and
  nothing happens; above it the defender loses: an infantryman is destroyed, a
  machine or gun takes damages equal to the difference and its pilot takes a
  survival test Д6.
* Surprise attack (§8.3): from outside the defender's field of view the
  attacker rolls his die twice and keeps the higher, and a machine defender
  loses its melee weapons' ББ in defence.

Strengths are written as dice, as the rulebook does ("Д6+12"): see
:func:`soldier_attack`, :func:`machine_strength`; a defence without a die is an
int.

Examples:
    >>> m = resolve_melee(soldier_attack(2), [5], soldier_defence(3), 2)
    >>> m.attack, m.defence, m.won
    (7, 5, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .dice import Dice, _int, as_dice, check_face

__all__ = [
    "Melee",
    "frozen_defence",
    "machine_strength",
    "melee_attack_dice",
    "melee_defence",
    "resolve_melee",
    "soldier_attack",
    "soldier_defence",
]

#: The melee die of every strength in Table 6 (§8.1).
_MELEE_SIDES = 6


def soldier_attack(melee: int) -> Dice:
    """An infantryman's attack strength Д6+ББ (§8.1, Table 6).

    >>> str(soldier_attack(2))
    'Д6+2'
    """
    return Dice(1, _MELEE_SIDES, _int("melee", melee, 0))


def soldier_defence(armour: int) -> Dice:
    """An infantryman's defence strength Д6+Бр (§8.1, Table 6).

    >>> str(soldier_defence(3))
    'Д6+3'
    """
    return Dice(1, _MELEE_SIDES, _int("armour", armour, 0))


def machine_strength(
    armour: int, melee_weapons: Iterable[int] = (), *, surprised: bool = False
) -> Dice:
    """A piloted machine's strength Д6+armour+ББ, attacking or defending (§8.1).

    Args:
        armour: the durability cell the slider is on (§5.2).
        melee_weapons: the power numbers of its melee weapons (vibrosaw 2,
            combat claw 1 ...); their sum is the machine's ББ.
        surprised: defending against a surprise attack: the ББ does not count
            (§8.3, Fig. 52).

    Examples:
        >>> str(machine_strength(9, [2, 1]))  # §8.1, Fig. 49
        'Д6+12'
        >>> str(machine_strength(9, [2, 1], surprised=True))
        'Д6+9'
    """
    bb = sum(_int("melee weapon", w, 0) for w in melee_weapons)
    return Dice(1, _MELEE_SIDES, _int("armour", armour, 0) + (0 if surprised else bb))


def frozen_defence(armour: int) -> int:
    """A gun's or pilotless machine's defence: its armour, no die (Table 6).

    >>> frozen_defence(8)
    8
    """
    return _int("armour", armour, 0)


def melee_attack_dice(attack: str | Dice) -> Dice:
    """An attack strength as one die plus bonus ("Д6+12"); ValueError otherwise."""
    d = as_dice(attack, "attack")
    if d.count != 1:
        raise ValueError(f"attack: a melee strength is one die plus a bonus, got {d}")
    return d


def melee_defence(defence: str | Dice | int) -> Dice | int:
    """A defence strength: one die plus bonus, or a plain armour (no die)."""
    if isinstance(defence, int) and not isinstance(defence, bool):
        return frozen_defence(defence)
    d = as_dice(defence, "defence")  # type: ignore[arg-type]
    if d.count != 1:
        raise ValueError(f"defence: a melee strength is one die plus a bonus, got {d}")
    return d


@dataclass(frozen=True)
class Melee:
    """One resolved melee (§8.2).

    Attributes:
        attack: the attacker's strength (die kept + bonus).
        defence: the defender's strength.
        won: the attacker won (strictly more than the defence).
        damage: the difference when won, else 0: damages to a machine or gun
            (Table 7); an infantryman who loses is destroyed whatever it is.
    """

    attack: int
    defence: int
    won: bool
    damage: int


def resolve_melee(
    attack: str | Dice,
    attack_faces: Sequence[int],
    defence: str | Dice | int,
    defence_face: int | None,
    *,
    surprise: bool = False,
) -> Melee:
    """Resolve one melee from its faces (§8.1-8.3).

    Args:
        attack: the attacker's strength, e.g. ``"Д6+2"`` or
            :func:`machine_strength`.
        attack_faces: one face; two on a surprise attack, the higher kept
            (§8.3).
        defence: the defender's strength: dice (``"Д6+3"``) or an int for a gun
            or pilotless machine (its armour, no die).
        defence_face: the defender's face, ``None`` when the defence has no die.
        surprise: the attack comes from outside the defender's field of view.

    Raises:
        ValueError: faces missing, extra or out of range.

    Examples:
        >>> resolve_melee("Д6+12", [1], 9, None)  # §8.1 Fig. 49: 13 > 9
        Melee(attack=13, defence=9, won=True, damage=4)
        >>> resolve_melee("Д6+2", [3], "Д6+3", 2).won  # tie 5 = 5: repelled
        False
        >>> resolve_melee("Д6", [1, 6], "Д6+4", 2, surprise=True).attack
        6
    """
    a = melee_attack_dice(attack)
    faces = tuple(attack_faces)
    want = 2 if surprise else 1
    if len(faces) != want:
        raise ValueError(
            f"attack_faces: {'a surprise attack rolls twice (§8.3)' if surprise else 'one die'}"  # noqa: E501
            f", need {want} face(s), got {len(faces)}"
        )
    kept = max(
        check_face(f"attack_faces[{i}]", f, a.sides) for i, f in enumerate(faces)
    )
    att = kept + a.bonus
    d = melee_defence(defence)
    if isinstance(d, int):
        if defence_face is not None:
            raise ValueError("defence_face: a defence of armour alone rolls no die")
        dfn = d
    else:
        if defence_face is None:
            raise ValueError(f"defence_face: the defence {d} needs its die face")
        dfn = check_face("defence_face", defence_face, d.sides) + d.bonus
    won = att > dfn
    return Melee(att, dfn, won, att - dfn if won else 0)
