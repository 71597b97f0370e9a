"""Damage, death, survival tests and repair in Бронепехота (rules 05.08.08).

The rules, in our own words (sections of ``official_rules.md``; research notes
``research/bronepehota.md §4``):

* An infantryman whose armour is pierced (one damage) is destroyed (§5.1).
* A machine or gun marks damage on its durability track: the slider moves one
  cell toward smaller numbers per damage (9 with two damages is 7); at 0 it is
  destroyed and removed, and a surviving pilot is put where it stood (§5.1).
* The number of the cell is the machine's or gun's armour (§5.2).
* Survival test ДN (usually Д6): a face at or below the soldier's Бр, he
  survives; above it, he dies (§5.3, Fig. 27).  With the optional panic rule a
  face equal to Бр survives but panics (§11.2).
* A pilot takes a survival test Д6 after a shot that damaged his machine, once
  per shot (§7.4 III), and after a lost melee (§8.2, Table 7).
* A flier whose pilot dies in the air crash-lands where it is: its owner rolls
  Д6 and marks that many damages (§4.3).
* Repair: one damage per skipped turn of a repairer (Рм) touching the item, two
  per repair of the HELIX platform, never above the maximum; destroyed items
  are not repaired (§9.3, §10.1).
* Pilots and gunners: a soldier may pilot a machine, or fire a gun, if his rank
  is at least the one on its armlist (§2.3, §6.1, §7.5).
* Jump packs (optional, §9.4): ПрN allows one jump a turn instead of walking,
  straight, length plus height at most N steps from the take-off point.

Examples:
    >>> survival_test(3, 3, panic=True), apply_damage(9, 2)
    ('panics', 7)
"""

from __future__ import annotations

from typing import Final

from wargame.engine.errors import IllegalActionError

from .dice import SIDES, _int, check_face

__all__ = [
    "SURVIVAL_RESULTS",
    "apply_damage",
    "can_fire_gun",
    "can_pilot",
    "crash_landing",
    "destroyed",
    "jump_allowed",
    "repair",
    "survival_test",
]

#: Results of a survival test (§5.3; "panics" only with the §11.2 option).
SURVIVAL_RESULTS: Final = ("survives", "panics", "dies")


def survival_test(
    face: int, armour: int, *, sides: int = 6, panic: bool = False
) -> str:
    """A survival test ДN against the soldier's Бр (§5.3; panic §11.2).

    Examples:
        >>> [survival_test(f, 3) for f in (2, 3, 4)]  # §5.3, Fig. 27
        ['survives', 'survives', 'dies']
        >>> survival_test(3, 3, panic=True)  # §11.2: equal -> alive, panicking
        'panics'
    """
    if sides not in SIDES:
        raise ValueError(f"a survival test uses Д6, Д12 or Д20 (§5.3), got Д{sides}")
    f = check_face("survival face", face, sides)
    a = _int("armour", armour, 0)
    if f > a:
        return "dies"
    return "panics" if panic and f == a else "survives"


def apply_damage(durability: int, damage: int) -> int:
    """The durability cell after ``damage`` damages; 0 = destroyed (§5.1).

    >>> apply_damage(9, 2), apply_damage(3, 5)
    (7, 0)
    """
    return max(0, _int("durability", durability, 0) - _int("damage", damage, 0))


def destroyed(durability: int) -> bool:
    """A machine or gun at cell 0 is destroyed and removed (§5.1).

    >>> destroyed(0), destroyed(1)
    (True, False)
    """
    return _int("durability", durability, 0) == 0


def repair(durability: int, maximum: int, amount: int = 1) -> int:
    """The durability after a repair of ``amount`` (1 by a Рм soldier §9.3, 2 by
    the HELIX platform §10.1), never above the maximum (§9.3 note 1).

    Raises:
        IllegalActionError: the item is destroyed (§9.3 note 2).

    Examples:
        >>> repair(5, 12, 2), repair(11, 12, 2)
        (7, 12)
    """
    d = _int("durability", durability, 0)
    top = _int("maximum", maximum, 1)
    if d == 0:
        raise IllegalActionError("§9.3: a destroyed machine or gun cannot be repaired")
    return min(top, d + _int("amount", amount, 0))


def crash_landing(durability: int, face: int) -> int:
    """A flier whose pilot died in the air takes Д6 damages (§4.3).

    >>> crash_landing(10, 4)
    6
    """
    return apply_damage(durability, check_face("crash landing face", face, 6))


def can_pilot(soldier_rank: int, machine_rank: int) -> bool:
    """A soldier may pilot a machine if his rank is at least its rank (§2.3).

    >>> can_pilot(2, 2), can_pilot(3, 2), can_pilot(1, 2)  # GRYPHON, rank 2
    (True, True, False)
    """
    return _int("soldier_rank", soldier_rank, 0) >= _int(
        "machine_rank", machine_rank, 0
    )


def can_fire_gun(soldier_rank: int, gun_rank: int) -> bool:
    """A soldier touching a gun may fire it if his rank is at least the gun's
    (§6.1, §7.5).  Anyone may capture a gun (§9.2).

    >>> can_fire_gun(2, 2), can_fire_gun(1, 2)  # Спаренная Пушка, rank 2
    (True, False)
    """
    return _int("soldier_rank", soldier_rank, 0) >= _int("gun_rank", gun_rank, 0)


def jump_allowed(length_steps: float, height_steps: float, jump: int) -> bool:
    """Can a ПрN soldier make this jump?  Length plus height at most N (§9.4,
    Table 8), both measured from the take-off point.

    >>> jump_allowed(2, 2, 5), jump_allowed(4, 2, 5), jump_allowed(4, 1, 5)
    (True, False, True)
    """
    length, height = float(length_steps), float(height_steps)
    if length < 0 or height < 0:
        raise ValueError(f"jump length and height must be >= 0, got {length}, {height}")
    return length + height <= _int("jump", jump, 0) + 1e-9
