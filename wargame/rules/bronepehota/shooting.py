"""Virtual shooting of Бронепехота (official rules 05.08.08, §7; §11.1).

The rules, in our own words (sections of ``official_rules.md``, research notes
``research/bronepehota.md §2``):

* Distances are measured in steps of 5 cm on the table (§4, seed 002); for a
  shot the distance to the target is rounded **up** to whole steps: a little
  over 4 steps counts as 5 (§7.4 I.1).
* Range roll: roll the weapon's range die and add its bonus; a result at least
  the distance hits, below it misses (§7.4 I.2-3).
* Damage: roll the power dice; each face **strictly above** the target's armour
  is one damage, a face equal to or below it does nothing (§7.4 II).  Infantry
  armour is Бр; a machine's or gun's armour is the number of the durability
  cell its slider is on (§5.2).
* Cover by how much of the target the shooter sees (§7.3, Table 5): all of it,
  armour unchanged; more than half, armour +1; less than half, armour +3; none,
  no shot.
* A machine that took at least one damage from a shot makes its pilot take one
  survival test Д6, however many damages (§7.4 III; see :mod:`.damage`).
* Special properties (optional rule): a blast weapon that hits attacks every
  gun, machine and infantryman, friend or foe, within N steps of the target
  with its blast dice, each resolved on its own by §7.4 II-III (§7.4 IV).
* Rate of fire (§7.6): an infantryman fires his personal weapon once a turn (or
  throws one grenade); firing a gun, up to the gun's rate; a machine up to its
  rate, each weapon at most once.
* Limited ammunition (optional, §7.7): infantry never run out; a machine or gun
  has one track for all its weapons, and before each shot the slider goes down
  by the number of power dice of the weapon; at 0 it never fires again.
* Grenades (optional, §7.8): every infantryman has them: range Д6, power 1Д20,
  blast 1 step 1Д20.  The range face is how many steps from the thrower toward
  the target the grenade bursts; all within 1 step of the burst take a 1Д20
  attack.  A 1 puts the thrower in his own blast.
* Aimed fire (optional, §11.1): an infantryman who only shoots this turn doubles
  his range result (die plus bonus); never for grenades, machines or guns.

Every function takes faces already rolled; none draws random numbers.

Examples:
    >>> shot = resolve_shot("Д12", "4Д12", 4.2, armour=7, range_face=9,
    ...                     power_faces=[3, 7, 8, 11], machine=True)
    >>> shot.steps, shot.hit, shot.damage, shot.pilot_test
    (5, True, 2, True)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from wargame.engine.errors import IllegalActionError

from .dice import Dice, _int, as_dice, check_face

__all__ = [
    "COVER_BONUS",
    "GRENADE_BLAST",
    "GRENADE_POWER",
    "GRENADE_RANGE",
    "STEP_CM",
    "VISIBILITIES",
    "Blast",
    "Shot",
    "ammo_cost",
    "check_rate_of_fire",
    "cover_bonus",
    "damage_from",
    "grenade_burst",
    "hits",
    "in_blast",
    "parse_blast",
    "pierces",
    "range_result",
    "resolve_shot",
    "spend_ammo",
    "steps",
    "steps_from_cm",
    "visibility_of",
]

#: One step is 5 cm on the table (§4, seed 002).
STEP_CM: Final = 5.0

#: How much of the target the shooter sees (§7.3, Table 5).
VISIBILITIES: Final = ("full", "more_than_half", "less_than_half", "none")
#: Armour bonus by visibility (§7.3, Table 5); ``"none"`` allows no shot.
COVER_BONUS: Final[Mapping[str, int]] = MappingProxyType(
    {"full": 0, "more_than_half": 1, "less_than_half": 3}
)

#: The grenade every infantryman carries (§7.8, Fig. 44).
GRENADE_RANGE: Final = Dice(1, 6)
GRENADE_POWER: Final = Dice(1, 20)

# ASSUMPTION: a float tolerance of 1e-9 steps before rounding up, so a distance
# that is 4 steps up to floating-point noise stays 4 (§7.4 I only says "up").
_EPS = 1e-9


def steps(distance_steps: float) -> int:
    """A shot's distance in whole steps, rounded up (§7.4 I.1).

    Examples:
        >>> steps(4.1), steps(4.0), steps(0.2)
        (5, 4, 1)
    """
    d = float(distance_steps)
    if not math.isfinite(d) or d < 0:
        raise ValueError(f"distance_steps must be a finite distance >= 0, got {d}")
    return max(0, math.ceil(d - _EPS))


def steps_from_cm(distance_cm: float) -> float:
    """Table centimetres to steps (1 step = 5 cm, §4).

    >>> steps_from_cm(21.0)
    4.2
    """
    return float(distance_cm) / STEP_CM


def visibility_of(fraction: float) -> str:
    """Table 5's row for the visible fraction (0..1) of the target.

    ASSUMPTION: exactly half visible is *less than half* (+3): the table gives +1
    only when *more* than half is seen (§7.3), and exactly half is not more.

    Examples:
        >>> [visibility_of(f) for f in (1.0, 0.8, 0.5, 0.1, 0.0)]
        ['full', 'more_than_half', 'less_than_half', 'less_than_half', 'none']
    """
    f = float(fraction)
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"visible fraction must be within 0..1, got {f}")
    if f >= 1.0:
        return "full"
    if f > 0.5:
        return "more_than_half"
    if f > 0.0:
        return "less_than_half"
    return "none"


def cover_bonus(visibility: str) -> int:
    """Armour bonus of a target seen that much (§7.3, Table 5).

    Raises:
        IllegalActionError: the target is not visible (no shot).
        ValueError: not one of :data:`VISIBILITIES`.

    Examples:
        >>> cover_bonus("full"), cover_bonus("more_than_half"), cover_bonus("less_than_half")
        (0, 1, 3)
    """  # noqa: E501
    if visibility == "none":
        raise IllegalActionError("§7.3 Table 5: the target is not visible, no shot")
    try:
        return COVER_BONUS[visibility]
    except KeyError:
        raise ValueError(
            f"visibility must be one of {list(VISIBILITIES)}, got {visibility!r}"
        ) from None


def _range_dice(range_die: str | Dice) -> Dice:
    d = as_dice(range_die, "range_die")
    if d.count != 1:
        raise ValueError(f"range_die: a range roll is one die (§7.1), got {d}")
    return d


def range_result(
    range_die: str | Dice, face: int, *, range_bonus: int = 0, aimed: bool = False
) -> int:
    """The aiming distance a range roll reaches, in steps (§7.4 I.2; §11.1).

    Args:
        range_die: the weapon's range, e.g. ``"Д6+2"``.
        face: the face rolled on its die.
        range_bonus: a further bonus added like the printed one (0 for the
            official weapons; for a caller that keeps ``"Д6"`` and ``+2`` apart).
        aimed: aimed fire doubles die plus bonus (§11.1, optional rule).

    Examples:
        >>> range_result("Д6+2", 2)  # §7.4 I: 2 + 2 = 4
        4
        >>> range_result("Д6+1", 5, aimed=True)  # §11.1: (5 + 1) x 2
        12
    """
    d = _range_dice(range_die)
    f = check_face("range face", face, d.sides)
    total = f + d.bonus + _int("range_bonus", range_bonus, 0)
    return 2 * total if aimed else total


def hits(range_total: int, distance_steps: float) -> bool:
    """Does a range result reach the target?  At least the rounded-up distance
    hits (§7.4 I.3).

    >>> hits(4, 4.2), hits(5, 4.2), hits(4, 4.0)
    (False, True, True)
    """
    return _int("range_total", range_total) >= steps(distance_steps)


def pierces(face: int, armour: int) -> bool:
    """Does one power die pierce?  Only a face strictly above the armour
    (cover included) does; equal does not (§7.4 II, Fig. 41).

    >>> pierces(8, 7), pierces(7, 7), pierces(3, 7)
    (True, False, False)
    """
    return _int("face", face) > _int("armour", armour, 0)


def damage_from(
    power: str | Dice, faces: Sequence[int], armour: int, cover: int = 0
) -> int:
    """Damage of a hit: the power faces strictly above armour + cover (§7.4 II).

    Examples:
        >>> damage_from("4Д12", [3, 7, 8, 11], 7)  # §7.4 III: SALAMANDER
        2
        >>> damage_from("2Д6", [4, 5], 2, cover=3)  # less than half visible
        0
    """
    d = as_dice(power, "power")
    got = d.faces(faces, "power faces")
    a = _int("armour", armour, 0) + _int("cover", cover, 0)
    return sum(pierces(f, a) for f in got)


@dataclass(frozen=True)
class Shot:
    """One resolved virtual shot (§7.4).

    Attributes:
        steps: the distance rounded up (§7.4 I.1).
        range_total: the range result (die + bonus, doubled if aimed).
        hit: the range result reached the target.
        armour: the target's armour with the cover bonus included.
        power_faces: the power dice rolled (empty on a miss).
        damage: damages dealt (0 on a miss).
        pilot_test: the target is a machine and took damage: its pilot takes
            one survival test Д6 (§7.4 III).
    """

    steps: int
    range_total: int
    hit: bool
    armour: int
    power_faces: tuple[int, ...]
    damage: int
    pilot_test: bool


def resolve_shot(
    range_die: str | Dice,
    power: str | Dice,
    distance_steps: float,
    armour: int,
    *,
    range_face: int,
    power_faces: Sequence[int] | None,
    cover: int = 0,
    range_bonus: int = 0,
    aimed: bool = False,
    machine: bool = False,
) -> Shot:
    """Resolve one shot from its faces: range roll, then power dice (§7.4 I-III).

    The caller rolls the range die first and rolls the power dice only on a
    hit: ``power_faces`` must be ``None`` (or empty) after a miss and exactly
    the power dice after a hit.

    Raises:
        ValueError: faces missing, extra or out of range.

    Examples:
        >>> resolve_shot("Д6+2", "1Д12", 4.2, 2, range_face=2, power_faces=None).hit
        False
        >>> s = resolve_shot("Д6+2", "1Д12", 4.2, 2, range_face=3, power_faces=[5])
        >>> s.hit, s.damage, s.pilot_test
        (True, 1, False)
    """
    st = steps(distance_steps)
    total = range_result(range_die, range_face, range_bonus=range_bonus, aimed=aimed)
    hit = total >= st
    a = _int("armour", armour, 0) + _int("cover", cover, 0)
    got = tuple(power_faces or ())
    if not hit:
        if got:
            raise ValueError("power_faces: a missed shot rolls no power dice (§7.4 I)")
        return Shot(st, total, False, a, (), 0, False)
    dmg = damage_from(power, got, a)
    return Shot(st, total, True, a, tuple(got), dmg, bool(machine and dmg > 0))


# -- rate of fire and ammunition ---------------------------------------------


def check_rate_of_fire(fired: Iterable[str], weapon: str, fire_rate: int) -> None:
    """May ``weapon`` fire now?  Each weapon once a turn, at most ``fire_rate``
    shots in all (§7.6).  ``fired`` names the weapons fired this turn.

    Two copies of a weapon on a sheet are two weapons (§6.4: T-REX, rate 2, one
    shot from each launcher); give them distinct names (``"launcher#2"``).

    Raises:
        IllegalActionError: the weapon already fired, or the rate is used up.

    Examples:
        >>> check_rate_of_fire(["cannon"], "mg", 2)
        >>> check_rate_of_fire(["cannon", "mg"], "laser", 2)
        Traceback (most recent call last):
        ...
        wargame.engine.errors.IllegalActionError: §7.6: rate of fire 2 used up (cannon, mg); laser may not fire this turn
    """  # noqa: E501
    done = list(fired)
    rate = _int("fire_rate", fire_rate, 0)
    if weapon in done:
        raise IllegalActionError(f"§7.6: {weapon} already fired this turn")
    if len(done) >= rate:
        raise IllegalActionError(
            f"§7.6: rate of fire {rate} used up ({', '.join(done)}); "
            f"{weapon} may not fire this turn"
        )


def ammo_cost(power: str | Dice) -> int:
    """Cells of the ammunition track a shot costs: its number of power dice
    (§7.7).

    >>> ammo_cost("3Д20"), ammo_cost("2Д12")
    (3, 2)
    """
    return as_dice(power, "power").count


def spend_ammo(track: int, power: str | Dice) -> int:
    """The ammunition track after one shot (§7.7, optional limited ammunition).

    ASSUMPTION: a shot needs as many cells as it costs; a track with fewer left
    cannot fire that weapon (the slider has no cells below 0, §7.7).

    Raises:
        IllegalActionError: the track is empty or too low for this weapon.

    Examples:
        >>> spend_ammo(spend_ammo(20, "3Д20"), "2Д12")  # §7.7, Fig. 43
        15
    """
    left = _int("track", track, 0)
    cost = ammo_cost(power)
    if left == 0:
        raise IllegalActionError("§7.7: ammunition spent, no more shots this game")
    if left < cost:
        raise IllegalActionError(
            f"§7.7: {as_dice(power)} needs {cost} ammunition cells, {left} left"
        )
    return left - cost


# -- blasts and grenades ------------------------------------------------------


@dataclass(frozen=True)
class Blast:
    """A blast property (§7.4 IV): everything within ``radius_steps`` of the
    target takes a ``power`` attack."""

    radius_steps: int
    power: Dice

    def __str__(self) -> str:
        return f"взрыв: {self.radius_steps} шг. - {self.power}"


#: The grenade's blast (§7.8, Fig. 44).
GRENADE_BLAST: Final = Blast(1, GRENADE_POWER)

_BLAST = re.compile(r"взрыв:\s*(\d+)\s*ш[а-я]*\.?\s*-\s*(\S+)", re.IGNORECASE)


def parse_blast(special: str | None) -> Blast | None:
    """The blast in a weapon's special text (``"взрыв: 2 шг. - 1Д20"``), if any.

    Examples:
        >>> parse_blast("взрыв: 2 шг. - 1Д20")
        Blast(radius_steps=2, power=Dice(count=1, sides=20, bonus=0))
        >>> parse_blast("взрыв: 1 шг - 1Д20").radius_steps  # the mortar's sheet
        1
        >>> parse_blast("3 выстрела в 3х направлениях") is None
        True
    """
    if not special:
        return None
    m = _BLAST.search(special)
    if m is None:
        return None
    return Blast(int(m.group(1)), as_dice(m.group(2), "blast power"))


def in_blast(distance_steps: float, blast: Blast) -> bool:
    """Is a model ``distance_steps`` from the blast centre inside it?

    ASSUMPTION: "within N steps" (§7.4 IV, §7.8) includes exactly N and uses the
    measured distance (not rounded up as for a shot's range).

    >>> in_blast(2.0, Blast(2, Dice(1, 20))), in_blast(2.01, Blast(2, Dice(1, 20)))
    (True, False)
    """
    d = float(distance_steps)
    if not math.isfinite(d) or d < 0:
        raise ValueError(f"distance_steps must be a finite distance >= 0, got {d}")
    return d <= blast.radius_steps + _EPS


def grenade_burst(
    thrower: tuple[float, float], target: tuple[float, float], face: int
) -> tuple[float, float]:
    """Where a grenade bursts: ``face`` steps from the thrower toward the target
    (§7.8 I), whether or not that reaches the target.  Positions are in steps.

    Examples:
        >>> grenade_burst((0.0, 0.0), (6.0, 0.0), 4)  # §7.8, Fig. 45
        (4.0, 0.0)
    """
    f = check_face("grenade face", face, GRENADE_RANGE.sides)
    dx, dy = target[0] - thrower[0], target[1] - thrower[1]
    length = math.hypot(dx, dy)
    if length == 0:
        raise ValueError("grenade target: the target stands on the thrower")
    return (thrower[0] + dx / length * f, thrower[1] + dy / length * f)
