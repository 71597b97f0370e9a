"""World at War (classic) combat: ranged fire, saves, hit results and assaults.

Every function is pure: dice come from the ``numpy.random.Generator`` passed in and
every result is a small frozen dataclass that keeps each die rolled, the numbers it
had to reach and what followed, so an engine can log it as is.

The pieces, in the order a shot is resolved (WaW 6.1, seed 001):

1. :func:`range_band` - half / normal / extended range (or illegal);
2. :func:`fire_factors` - firepower and to-hit after modifiers, including the
   6.1.3 rule that to-hit above 6 costs firepower dice;
3. :func:`save_factors` - armor dice + terrain dice (max 2) or terrain dice only;
4. :func:`roll_fire` - the dice;
5. :func:`hit_damage` / :func:`apply_damage` - disrupted / reduced / destroyed.

:func:`plan_fire` chains 1-3 for two unit types; :func:`resolve_fire` adds 4-5.
The exact odds in :mod:`wargame.rules.waw.odds` use the same steps 1-3.

Examples:
    >>> from wargame.rules.waw import FixedDice, resolve_fire
    >>> shot = resolve_fire(FixedDice([4, 5, 6, 1, 3, 4, 6]), "m48", "t64",
    ...                     range_hexes=5, terrain="town", concealment_dice=1)
    >>> shot.roll.hits, shot.roll.save_dice, shot.roll.net_hits
    (3, (1, 3, 4, 6), 2)
    >>> shot.result.after
    UnitState(strength=<Strength.REDUCED: 'reduced'>, disrupted=True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

import numpy as np

from .catalog import (
    AttackKind,
    TargetType,
    TerrainChart,
    UnitClass,
    UnitSide,
    UnitType,
    Weapon,
    get_unit,
    terrain_chart,
)
from .dice import roll_d6

__all__ = [
    "ARMORED_TERRAIN_DICE_CAP",
    "ASSAULT_TO_HIT",
    "FRESH",
    "MOVING_FIRE_PENALTY",
    "UNARMORED_SAVE",
    "AssaultResult",
    "AssaultRoll",
    "AssaultType",
    "Damage",
    "FireFactors",
    "FirePlan",
    "FireResult",
    "FireRoll",
    "HitResult",
    "IllegalFireError",
    "RangeBand",
    "SaveFactors",
    "Strength",
    "UnitState",
    "apply_damage",
    "assault_type",
    "check_fire_kind",
    "count_successes",
    "default_attack_kind",
    "defence_factors",
    "effective_weapon",
    "fire_factors",
    "hit_damage",
    "hit_result",
    "plan_fire",
    "range_band",
    "resolve_assault",
    "resolve_fire",
    "resolve_support_fire",
    "roll_fire",
    "rule_range",
    "spread_hits",
    "weapon_fire_factors",
]

# WaW 6.1 (seed 001): armored targets add at most two terrain dice.
ARMORED_TERRAIN_DICE_CAP = 2
# WaW 6.1 (seed 001): each terrain die of an unarmored target saves on 5+.
UNARMORED_SAVE = 5
# ASSUMPTION: the fire-on-the-move penalty is on the player aid, not in the seeds;
# +1 to-hit, the same size as the extended-range penalty.
MOVING_FIRE_PENALTY = 1
# ASSUMPTION: the assault hit number is not in the seeds or the notes; 5+ per die.
ASSAULT_TO_HIT = 5


class IllegalFireError(ValueError):
    """The attack is not allowed by the rules (range, target type, state...)."""


# ---------------------------------------------------------------------------
# range


class RangeBand(StrEnum):
    """Range band of a shot and its to-hit modifier (WaW 6.1.1)."""

    HALF = "half"
    NORMAL = "normal"
    EXTENDED = "extended"

    @property
    def to_hit_modifier(self) -> int:
        """-1 at half range, +1 at extended range, 0 otherwise."""
        return {"half": -1, "normal": 0, "extended": 1}[self.value]


def rule_range(hex_distance: int, *, count_target_hex: bool = False) -> int:
    """Convert a grid distance (hex steps) into the range the rules compare.

    WaW 6.1 (seed 001, "Радиус поражения рассчитывается без учета ячейки
    атакующего и атакуемого"): range counts neither the firer's nor the target's
    hex, so it is the number of hexes in between: distance - 1.  Set
    ``count_target_hex`` for the usual hex-game count (the target hex counts, the
    firer's does not), which the English text may use (RULES_NOTES 1.3 flags it).

    Args:
        hex_distance: grid distance, 1 for adjacent hexes.
        count_target_hex: count the target hex too.

    Examples:
        >>> rule_range(1), rule_range(10)
        (0, 9)
        >>> rule_range(10, count_target_hex=True)
        10
    """
    if hex_distance < 1:
        raise ValueError(f"units in the same hex do not fire (distance {hex_distance})")
    # WaW 6.1: neither the firing unit's hex nor the target hex is counted.
    return hex_distance if count_target_hex else hex_distance - 1


def range_band(
    range_hexes: int,
    weapon_range: int,
    *,
    range_underlined: bool = False,
    adjacent: bool = False,
) -> RangeBand:
    """Which range band a shot falls in; raises if it is out of range.

    Args:
        range_hexes: range as counted by :func:`rule_range`.
        weapon_range: printed range.
        range_underlined: the printed range is underlined (hard maximum).
        adjacent: target in an adjacent hex (always allowed, WaW 6.1).

    Raises:
        IllegalFireError: beyond the printed range of an underlined weapon, or
            beyond twice the printed range.

    Examples:
        >>> [range_band(r, 9).value for r in (4, 9, 18)]
        ['half', 'normal', 'extended']
        >>> try:
        ...     range_band(10, 9, range_underlined=True)
        ... except IllegalFireError as exc:
        ...     print(exc)
        range 10 is beyond the underlined (maximum) range 9
    """
    if range_hexes < 0:
        raise ValueError(f"range cannot be negative ({range_hexes})")
    # WaW 6.1.1 (seed 001 half range): at half range or less, to-hit -1, but only
    # for weapons whose range is not underlined.
    if not range_underlined and 2 * range_hexes <= weapon_range:
        return RangeBand.HALF
    if range_hexes <= weapon_range:
        return RangeBand.NORMAL
    # WaW 6.1: a unit may always fire at an adjacent hex.
    if adjacent:
        return RangeBand.NORMAL
    # WaW 6.1.1: an underlined range is a hard maximum.
    if range_underlined:
        raise IllegalFireError(
            f"range {range_hexes} is beyond the underlined (maximum) range "
            f"{weapon_range}"
        )
    # WaW 6.1.1: extended range up to twice the printed range, to-hit +1.
    if range_hexes <= 2 * weapon_range:
        return RangeBand.EXTENDED
    raise IllegalFireError(
        f"range {range_hexes} is beyond twice the printed range {weapon_range}"
    )


# ---------------------------------------------------------------------------
# firepower, to-hit and saves: shared by the dice path and the exact odds


@dataclass(frozen=True)
class FireFactors:
    """The dice an attack rolls after all modifiers (WaW 6.1-6.1.3).

    Attributes:
        firepower: dice actually rolled.
        to_hit: each die >= to_hit is a hit (1..6).
        printed_firepower: firepower before bonuses and losses.
        printed_to_hit: to-hit before modifiers.
        to_hit_modifiers: (reason, modifier) pairs applied to to-hit.
        firepower_bonus: dice added (HQ leadership).
        firepower_lost: dice lost because to-hit went above 6 (WaW 6.1.3).
    """

    firepower: int
    to_hit: int
    printed_firepower: int
    printed_to_hit: int
    to_hit_modifiers: tuple[tuple[str, int], ...] = ()
    firepower_bonus: int = 0
    firepower_lost: int = 0

    @property
    def hit_probability(self) -> Fraction:
        """Chance that one die hits."""
        return Fraction(7 - self.to_hit, 6)


def fire_factors(
    firepower: int,
    to_hit: int,
    *,
    to_hit_modifiers: Sequence[tuple[str, int]] = (),
    firepower_bonus: int = 0,
) -> FireFactors:
    """Apply to-hit modifiers and the WaW 6.1.3 conversion of to-hit above 6.

    Args:
        firepower: printed firepower (dice).
        to_hit: printed to-hit, or an already modified one (may exceed 6).
        to_hit_modifiers: (reason, modifier) pairs, e.g. ``("extended range", 1)``.
        firepower_bonus: extra dice (HQ leadership adds to one unit's attack).

    Examples:
        >>> f = fire_factors(4, 5, to_hit_modifiers=[("extended range", 1),
        ...                                          ("moving", 1)])
        >>> f.firepower, f.to_hit, f.firepower_lost
        (3, 6, 1)
    """
    if firepower < 0 or firepower_bonus < 0:
        raise ValueError("firepower and bonus must be >= 0")
    if to_hit < 1:
        raise ValueError(f"to-hit must be >= 1 (got {to_hit})")
    modified = to_hit + sum(m for _, m in to_hit_modifiers)
    # WaW 6.1.3: each point of to-hit above 6 costs one firepower die; to-hit stays 6.
    lost = max(modified - 6, 0)
    # ASSUMPTION: no natural-1 miss rule in the seeds; to-hit bottoms out at 1.
    effective = min(max(modified, 1), 6)
    return FireFactors(
        firepower=max(firepower + firepower_bonus - lost, 0),
        to_hit=effective,
        printed_firepower=firepower,
        printed_to_hit=to_hit,
        to_hit_modifiers=tuple(to_hit_modifiers),
        firepower_bonus=firepower_bonus,
        firepower_lost=lost,
    )


def weapon_fire_factors(
    weapon: Weapon,
    range_hexes: int,
    *,
    moving: bool = False,
    leadership: int = 0,
    adjacent: bool = False,
    extra_to_hit: Sequence[tuple[str, int]] = (),
) -> tuple[RangeBand, FireFactors]:
    """Range band and fire factors of one counter weapon at a given range.

    Args:
        weapon: the AP, HE or AA block of the firing side.
        range_hexes: range as counted by :func:`rule_range`.
        moving: fire on the move (needs underlined firepower, WaW 6.1.3).
        leadership: HQ leadership added as dice (WaW 1.3.3, HQ in combat).
        adjacent: target in an adjacent hex.

    Raises:
        IllegalFireError: out of range, or moving fire without underlined FP.

    Examples:
        >>> from wargame.rules.waw import get_unit
        >>> band, f = weapon_fire_factors(get_unit("t80").full.ap, 4)
        >>> band.value, f.to_hit
        ('half', 3)
    """
    band = range_band(
        range_hexes,
        weapon.range,
        range_underlined=weapon.range_underlined,
        adjacent=adjacent,
    )
    mods: list[tuple[str, int]] = []
    if band is not RangeBand.NORMAL:
        # WaW 6.1.1: extended range to-hit +1; half range to-hit -1.
        mods.append((f"{band.value} range", band.to_hit_modifier))
    if moving:
        # WaW 6.1.3: only underlined firepower may fire on the move, with a penalty.
        if not weapon.fp_underlined:
            raise IllegalFireError("firepower not underlined: cannot fire on the move")
        mods.append(("moving", MOVING_FIRE_PENALTY))
    if leadership < 0:
        raise ValueError("leadership must be >= 0")
    mods += list(extra_to_hit)
    return band, fire_factors(
        weapon.fp, weapon.to_hit, to_hit_modifiers=mods, firepower_bonus=leadership
    )


@dataclass(frozen=True)
class SaveFactors:
    """The save dice a target rolls (WaW 6.1).

    Attributes:
        armor_dice: armor dice (0 for unarmored targets).
        terrain_dice: terrain dice rolled (after the armored cap of 2).
        terrain_dice_uncapped: terrain dice before the cap.
        save: each die >= save cancels one hit.
        armored: the target saves as an armored target.
    """

    armor_dice: int
    terrain_dice: int
    terrain_dice_uncapped: int
    save: int
    armored: bool

    @property
    def dice(self) -> int:
        """Total save dice."""
        return self.armor_dice + self.terrain_dice

    @property
    def save_probability(self) -> Fraction:
        """Chance that one save die cancels a hit."""
        return Fraction(7 - self.save, 6)


def save_factors(
    *, armor_dice: int = 0, save: int | None = None, terrain_dice: int = 0
) -> SaveFactors:
    """Save dice of a target (WaW 6.1).

    Args:
        armor_dice: the target's armor.
        save: its save number; ``None`` for an unarmored target.
        terrain_dice: terrain defence dice (terrain chart plus concealment).

    Examples:
        >>> save_factors(armor_dice=2, save=5, terrain_dice=3).dice
        4
        >>> s = save_factors(terrain_dice=3)
        >>> s.dice, s.save
        (3, 5)
    """
    if armor_dice < 0 or terrain_dice < 0:
        raise ValueError("dice counts must be >= 0")
    if save is None:
        if armor_dice:
            raise ValueError("armor dice need a save number")
        # WaW 6.1: unarmored targets roll terrain dice only; each 5+ cancels a
        # hit; there is no limit on terrain dice.
        return SaveFactors(0, terrain_dice, terrain_dice, UNARMORED_SAVE, False)
    if not 1 <= save <= 6:
        raise ValueError(f"save must be 1..6 (got {save})")
    # WaW 6.1: armored targets roll armor dice plus terrain dice, at most two
    # terrain dice whatever the terrain or concealment; each die >= save cancels.
    capped = min(terrain_dice, ARMORED_TERRAIN_DICE_CAP)
    return SaveFactors(armor_dice, capped, terrain_dice, save, True)


def defence_factors(
    target: UnitType, *, reduced: bool = False, terrain_dice: int = 0
) -> SaveFactors:
    """Save dice of a unit type, given the terrain dice of its hex.

    Light-armored targets save with their armor even against HE.

    Examples:
        >>> from wargame.rules.waw import get_unit
        >>> defence_factors(get_unit("tow_jeep"), terrain_dice=1).dice
        1
    """
    side = target.side(reduced)
    kind = target.target_type(reduced)
    if kind is TargetType.AIRCRAFT:
        # ASSUMPTION: aircraft get no terrain dice (WaW 9.0 helicopter rules GAP).
        return save_factors(armor_dice=side.armor or 0, save=side.save)
    if kind in (TargetType.ARMORED, TargetType.LIGHT_ARMORED):
        # WaW 1.3.4.2 / 6.1: HE at a light-armored vehicle is resolved per 6.1,
        # i.e. it still saves with armor dice (ASSUMPTION on the reading).
        return save_factors(
            armor_dice=side.armor or 0, save=side.save, terrain_dice=terrain_dice
        )
    # WaW 1.3.4.2: unarmored vehicles save like unarmored targets (terrain only).
    return save_factors(terrain_dice=terrain_dice)


# WaW 6.1 / 1.3.4.2 / 1.3.4.5: which firepower may be used against what.
# AP: armored targets and unarmored vehicles (T-72 vs TOW jeep example);
# HE: unarmored targets, light-armored and unarmored vehicles, helicopters;
# AA: aircraft only.  ASSUMPTION: AP at infantry/aircraft and HE at full armor
# are not allowed (the seed ties each colour to those target types).
_ALLOWED: dict[AttackKind, frozenset[TargetType]] = {
    AttackKind.AP: frozenset(
        {TargetType.ARMORED, TargetType.LIGHT_ARMORED, TargetType.UNARMORED_VEHICLE}
    ),
    AttackKind.HE: frozenset(
        {
            TargetType.LIGHT_ARMORED,
            TargetType.UNARMORED_VEHICLE,
            TargetType.UNARMORED,
            TargetType.AIRCRAFT,
        }
    ),
    AttackKind.AA: frozenset({TargetType.AIRCRAFT}),
}


def check_fire_kind(kind: AttackKind | str, target_type: TargetType | str) -> None:
    """Raise :class:`IllegalFireError` if ``kind`` fire may not hit that target.

    Examples:
        >>> check_fire_kind("he", "light_armored")
        >>> try:
        ...     check_fire_kind("he", "armored")
        ... except IllegalFireError as exc:
        ...     print(exc)
        HE fire cannot be used against armored targets
    """
    kind, target_type = AttackKind(kind), TargetType(target_type)
    # WaW 6.1 / 1.3.4.2 / 1.3.4.5: see _ALLOWED above (exclusions are ASSUMPTIONs).
    if kind is AttackKind.ASSAULT:
        raise IllegalFireError("assault is resolved with resolve_assault")
    if target_type not in _ALLOWED[kind]:
        raise IllegalFireError(
            f"{kind.name} fire cannot be used against {target_type.value} targets"
        )


def default_attack_kind(side: UnitSide, target_type: TargetType) -> AttackKind:
    """The firepower a unit would normally use against a target type.

    AP against armor; HE against unarmored targets; against light armor and
    unarmored vehicles AP if the counter has it, else HE; AA against aircraft if
    the counter has it, else HE.
    """
    # WaW 6.1: AP is normally used against armored targets, HE against the rest.
    if target_type is TargetType.ARMORED:
        return AttackKind.AP
    if target_type is TargetType.UNARMORED:
        return AttackKind.HE
    if target_type is TargetType.AIRCRAFT:
        return AttackKind.AA if side.aa is not None else AttackKind.HE
    return AttackKind.AP if side.ap is not None else AttackKind.HE


def effective_weapon(
    weapon: Weapon, kind: AttackKind | str, target_type: TargetType | str
) -> Weapon:
    """The weapon as it fires at this target type (ranges against aircraft).

    WaW 1.3.4.5 (seed 000): AA fire at aircraft does *not* halve its range, which
    implies that other fire at aircraft does.  ASSUMPTION 43 (the player aid is not
    in the seeds): AP and HE fire at a helicopter uses half the printed range
    (rounded down); AA fire uses the full range.

    Examples:
        >>> from wargame.rules.waw import get_unit
        >>> effective_weapon(get_unit("zsu23_4").full.he, "he", "aircraft").range
        3
        >>> effective_weapon(get_unit("zsu23_4").full.aa, "aa", "aircraft").range
        13
    """
    if TargetType(target_type) is TargetType.AIRCRAFT and AttackKind(kind) in (
        AttackKind.AP,
        AttackKind.HE,
    ):
        return weapon.model_copy(update={"range": weapon.range // 2})
    return weapon


@dataclass(frozen=True)
class FirePlan:
    """Everything about a shot that is known before any die is rolled."""

    attacker: str
    target: str
    kind: AttackKind
    target_type: TargetType
    target_one_sided: bool
    target_fragile: bool
    range_hexes: int
    band: RangeBand
    terrain: str
    moving: bool
    fire: FireFactors
    defence: SaveFactors

    def hit_result(self, net_hits: int, target_state: UnitState) -> HitResult:
        """What ``net_hits`` of this shot do to a target in ``target_state``
        (:func:`hit_result` with the plan's target type, attack kind and
        counter traits)."""
        return hit_result(
            net_hits,
            self.target_type,
            self.kind,
            target_state,
            one_sided=self.target_one_sided,
            fragile=self.target_fragile,
        )


def plan_fire(
    attacker: UnitType | str,
    target: UnitType | str,
    *,
    range_hexes: int,
    terrain: str = "clear",
    kind: AttackKind | str | None = None,
    moving: bool = False,
    attacker_reduced: bool = False,
    target_reduced: bool = False,
    leadership: int = 0,
    concealment_dice: int = 0,
    adjacent: bool = False,
    chart: TerrainChart | None = None,
    attacker_mode: str | None = None,
    extra_to_hit: Sequence[tuple[str, int]] = (),
) -> FirePlan:
    """Work out the fire and save dice of one unit type firing at another.

    Args:
        attacker: firing unit type (or its id).
        target: target unit type (or its id).
        range_hexes: range as counted by :func:`rule_range`.
        terrain: generic terrain class of the target hex (terrain chart row).
        kind: ``"ap"``, ``"he"`` or ``"aa"``; default from
            :func:`default_attack_kind`.
        moving: fire on the move.
        attacker_reduced: the attacker shows its reduced side.
        target_reduced: the target shows its reduced side.
        leadership: HQ leadership dice added to this attack.
        concealment_dice: extra defence dice beyond the terrain chart (the
            "cover" bonus of the seed's M48 example; hiding 6.1.5 is a GAP).
        adjacent: the target is in an adjacent hex.
        chart: terrain chart (default: the shipped one).
        attacker_mode: a helicopter's mode, ``"low"`` (default) or ``"high"``
            (WaW 9.0: each side of the counter has its own firepower).
        extra_to_hit: further (reason, modifier) pairs, e.g. Artillery Shock.

    Raises:
        IllegalFireError: no such weapon, wrong target type, or out of range.

    Examples:
        >>> p = plan_fire("chieftain", "t72", range_hexes=12)
        >>> p.band.value, p.fire.to_hit, p.defence.dice
        ('extended', 4, 2)
    """
    att, tgt = get_unit(attacker), get_unit(target)
    # WaW 9.0: a helicopter fires with the values of the side (mode) it shows.
    side = att.side(attacker_reduced, attacker_mode)
    target_type = tgt.target_type(target_reduced)
    if kind is None:
        kind = default_attack_kind(side, target_type)
    kind = AttackKind(kind)
    check_fire_kind(kind, target_type)
    weapon = side.weapon(kind)
    if weapon is None or weapon.fp == 0:
        raise IllegalFireError(f"{att.id} has no {kind.name} firepower")
    # WaW 1.3.4.5: only AA fire keeps its full range against aircraft.
    weapon = effective_weapon(weapon, kind, target_type)
    band, fire = weapon_fire_factors(
        weapon,
        range_hexes,
        moving=moving,
        leadership=leadership,
        adjacent=adjacent,
        extra_to_hit=extra_to_hit,
    )
    if concealment_dice < 0:
        raise ValueError("concealment_dice must be >= 0")
    chart = chart if chart is not None else terrain_chart()
    # WaW 6.1: the target rolls the terrain dice of its hex (TEC, GAP: see
    # terrain.toml) plus any concealment dice.
    defence = defence_factors(
        tgt,
        reduced=target_reduced,
        terrain_dice=chart.defence_dice(terrain) + concealment_dice,
    )
    return FirePlan(
        attacker=att.id,
        target=tgt.id,
        kind=kind,
        target_type=target_type,
        target_one_sided=tgt.one_sided,
        target_fragile=tgt.unit_class is UnitClass.BRIDGE_LAYER,
        range_hexes=range_hexes,
        band=band,
        terrain=terrain,
        moving=moving,
        fire=fire,
        defence=defence,
    )


# ---------------------------------------------------------------------------
# the dice


def count_successes(faces: Sequence[int], target: int) -> int:
    """Number of faces >= target (hits against to-hit, saves against save)."""
    return len([f for f in faces if f >= target])


@dataclass(frozen=True)
class FireRoll:
    """The dice of one shot: attack dice, save dice and the net hits."""

    fire: FireFactors
    defence: SaveFactors
    attack_dice: tuple[int, ...]
    hits: int
    save_dice: tuple[int, ...]
    saves: int
    net_hits: int


def roll_fire(
    rng: np.random.Generator, fire: FireFactors, defence: SaveFactors
) -> FireRoll:
    """Roll a shot: firepower dice, then (if anything hit) the save dice.

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> r = roll_fire(FixedDice([3, 3, 4, 5, 6]), fire_factors(4, 5),
        ...               save_factors(terrain_dice=1))
        >>> r.hits, r.save_dice, r.net_hits
        (1, (6,), 0)
    """
    # WaW 6.1: roll firepower dice; each die >= to-hit is a hit.
    attack = roll_d6(rng, fire.firepower)
    hits = count_successes(attack, fire.to_hit)
    # WaW 6.1: the owner of the target rolls save dice; each die >= save cancels
    # one hit.  Nothing to cancel, nothing rolled.
    saves_rolled = roll_d6(rng, defence.dice) if hits else ()
    saves = count_successes(saves_rolled, defence.save)
    return FireRoll(
        fire=fire,
        defence=defence,
        attack_dice=attack,
        hits=hits,
        save_dice=saves_rolled,
        saves=saves,
        net_hits=max(hits - saves, 0),
    )


# ---------------------------------------------------------------------------
# hit results


class Strength(StrEnum):
    """Counter strength."""

    FULL = "full"
    REDUCED = "reduced"
    DESTROYED = "destroyed"


@dataclass(frozen=True)
class UnitState:
    """The combat state of one counter: strength and disruption."""

    strength: Strength = Strength.FULL
    disrupted: bool = False

    @property
    def reduced(self) -> bool:
        """Showing its reduced side."""
        return self.strength is Strength.REDUCED

    @property
    def destroyed(self) -> bool:
        """Gone (a wreck marker, for vehicles)."""
        return self.strength is Strength.DESTROYED


FRESH = UnitState()
_DESTROYED = UnitState(Strength.DESTROYED)


@dataclass(frozen=True)
class Damage:
    """What a set of hits does: disrupt, and how many strength steps are lost."""

    disrupt: bool = False
    steps: int = 0


def hit_damage(
    net_hits: int, target_type: TargetType | str, kind: AttackKind | str
) -> Damage:
    """Damage done by ``net_hits`` hits that got through.

    Examples:
        >>> hit_damage(2, "armored", "ap")
        Damage(disrupt=True, steps=1)
        >>> hit_damage(1, "unarmored_vehicle", "ap")
        Damage(disrupt=True, steps=1)
        >>> hit_damage(1, "unarmored_vehicle", "he")
        Damage(disrupt=True, steps=0)
    """
    target_type, kind = TargetType(target_type), AttackKind(kind)
    if net_hits <= 0:
        return Damage()
    if target_type is TargetType.UNARMORED_VEHICLE and kind in (
        AttackKind.AP,
        AttackKind.ASSAULT,
    ):
        # WaW 1.3.4.2: each AP hit on an unarmored vehicle reduces and disrupts
        # it; the second destroys it.  ASSUMPTION: assault hits count like AP.
        return Damage(disrupt=True, steps=net_hits)
    # WaW 6.1 (M48 example) and 1.3.4.2 (HE table): 1 hit disrupts; 2 hits
    # disrupt and reduce.  ASSUMPTION: each hit beyond the second costs one more
    # step, so 3 hits destroy a full-strength unit.
    return Damage(disrupt=True, steps=net_hits - 1)


def apply_damage(
    state: UnitState, damage: Damage, *, one_sided: bool = False
) -> UnitState:
    """New state of a unit after damage.

    ASSUMPTION (reduced units hit again is a GAP, RULES_NOTES 1.3): a reduced unit
    that loses another step is destroyed, as the seed states for HQs; a one-sided
    counter (AA, SW, helicopter) has a single step, so reduction = wreck
    (WaW 1.3.4.5).  ASSUMPTION: disrupting a disrupted unit has no further effect.

    Examples:
        >>> apply_damage(UnitState(Strength.REDUCED), Damage(True, 1)).strength.value
        'destroyed'
    """
    if damage.steps < 0:
        raise ValueError("steps must be >= 0")
    if state.destroyed:
        return state
    # ASSUMPTION: reduced (or one-sided, WaW 1.3.4.5) units have one step left.
    steps_left = 1 if (one_sided or state.reduced) else 2
    left = steps_left - damage.steps
    if left <= 0:
        return _DESTROYED
    strength = Strength.FULL if (left == 2 or one_sided) else Strength.REDUCED
    # ASSUMPTION: disruption does not stack (a disrupted unit stays disrupted).
    return UnitState(strength, state.disrupted or damage.disrupt)


@dataclass(frozen=True)
class HitResult:
    """Hits that got through, the damage, and the unit's state before/after."""

    net_hits: int
    damage: Damage
    before: UnitState
    after: UnitState

    @property
    def destroyed(self) -> bool:
        """The unit was destroyed by this result."""
        return self.after.destroyed and not self.before.destroyed

    @property
    def reduced(self) -> bool:
        """The unit flipped to its reduced side."""
        return self.after.reduced and not self.before.reduced


def hit_result(
    net_hits: int,
    target_type: TargetType | str,
    kind: AttackKind | str,
    state: UnitState = FRESH,
    *,
    one_sided: bool = False,
    fragile: bool = False,
) -> HitResult:
    """Apply ``net_hits`` of ``kind`` fire to a unit in ``state``.

    ``fragile``: an MTU-55 bridge (seed 000 bridge units): one hit disrupts it,
    a second one removes it, also when it comes in a later attack.

    Examples:
        >>> hit_result(2, "unarmored", "he").after
        UnitState(strength=<Strength.REDUCED: 'reduced'>, disrupted=True)
        >>> hit_result(1, "light_armored", "he", UnitState(disrupted=True),
        ...            one_sided=True, fragile=True).after.destroyed
        True
    """
    damage = hit_damage(net_hits, target_type, kind)
    after = apply_damage(state, damage, one_sided=one_sided)
    if fragile and state.disrupted and net_hits > 0:
        # seed 000 bridge units: the second hit removes the bridge
        after = _DESTROYED
    return HitResult(net_hits, damage, state, after)


@dataclass(frozen=True)
class FireResult:
    """A resolved shot: the plan, the dice and the result on the target."""

    plan: FirePlan
    roll: FireRoll
    result: HitResult


def resolve_fire(
    rng: np.random.Generator,
    attacker: UnitType | str,
    target: UnitType | str,
    *,
    range_hexes: int,
    terrain: str = "clear",
    kind: AttackKind | str | None = None,
    moving: bool = False,
    attacker_state: UnitState = FRESH,
    target_state: UnitState = FRESH,
    leadership: int = 0,
    concealment_dice: int = 0,
    adjacent: bool = False,
    chart: TerrainChart | None = None,
    attacker_mode: str | None = None,
    extra_to_hit: Sequence[tuple[str, int]] = (),
) -> FireResult:
    """Resolve one ranged attack (WaW 6.1) between two unit types.

    LOS, Ops Complete and opportunity fire are the engine's business; this checks
    what the counters decide: weapon, target type, range, moving fire and that
    the attacker is not disrupted.

    Args:
        rng: the game's random generator.
        attacker: firing unit type or id.
        target: target unit type or id.
        range_hexes: range as counted by :func:`rule_range`.
        terrain: terrain class of the target hex.
        kind: ``"ap"``, ``"he"`` or ``"aa"`` (default: :func:`default_attack_kind`).
        moving: fire on the move.
        attacker_state: the attacker's state (its side is used; disrupted units
            may not fire).
        target_state: the target's state before the shot.
        leadership: HQ leadership dice added.
        concealment_dice: extra defence dice (see :func:`plan_fire`).
        adjacent: target in an adjacent hex.
        chart: terrain chart (default: the shipped one).
        attacker_mode: a helicopter's mode (see :func:`plan_fire`).

    Returns:
        The plan, every die rolled, and the target's state after the shot.

    Examples:
        >>> import numpy as np
        >>> r = resolve_fire(np.random.default_rng(7), "m1", "t72", range_hexes=6)
        >>> r.plan.fire.to_hit, len(r.roll.attack_dice)
        (3, 4)
    """
    # WaW 6.1: only units that are not disrupted may fire.
    if attacker_state.destroyed or attacker_state.disrupted:
        raise IllegalFireError("a disrupted or destroyed unit cannot fire")
    if target_state.destroyed:
        raise IllegalFireError("the target is already destroyed")
    plan = plan_fire(
        attacker,
        target,
        range_hexes=range_hexes,
        terrain=terrain,
        kind=kind,
        moving=moving,
        attacker_reduced=attacker_state.reduced,
        target_reduced=target_state.reduced,
        leadership=leadership,
        concealment_dice=concealment_dice,
        adjacent=adjacent,
        chart=chart,
        attacker_mode=attacker_mode,
        extra_to_hit=extra_to_hit,
    )
    roll = roll_fire(rng, plan.fire, plan.defence)
    return FireResult(plan, roll, plan.hit_result(roll.net_hits, target_state))


def resolve_support_fire(
    rng: np.random.Generator,
    firepower: int,
    to_hit: int,
    target: UnitType | str,
    *,
    kind: AttackKind | str = AttackKind.HE,
    terrain_dice: int = 0,
    target_state: UnitState = FRESH,
) -> tuple[FireRoll, HitResult]:
    """Off-map artillery or air support firing at one unit (WaW 1.7 chits).

    ASSUMPTION 51 (the artillery rules are not in the seeds): resolved like ranged
    fire (6.1) with the support's firepower and to-hit, no range modifier; the
    target saves as usual (terrain dice, armor).

    Raises:
        IllegalFireError: the fire kind cannot hit that target.

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> roll, res = resolve_support_fire(FixedDice([5, 5, 1]), 3, 5,
        ...                                  "ussr_infantry")
        >>> roll.net_hits, res.after.reduced
        (2, True)
    """
    fire, defence, hit = _support_factors(
        firepower, to_hit, target, kind, terrain_dice, target_state
    )
    roll = roll_fire(rng, fire, defence)
    return roll, hit(roll.net_hits)


def _support_factors(
    firepower: int,
    to_hit: int,
    target: UnitType | str,
    kind: AttackKind | str,
    terrain_dice: int,
    target_state: UnitState,
) -> tuple[FireFactors, SaveFactors, Callable[[int], HitResult]]:
    """Fire and defence of support fire at one unit, and its hit result by net hits.

    The steps of :func:`resolve_support_fire` before and after the dice (shared
    with :func:`~wargame.rules.waw.odds.support_result_probabilities`).

    Raises:
        IllegalFireError: the fire kind cannot hit that target.
    """
    tgt = get_unit(target)
    target_type = tgt.target_type(target_state.reduced)
    check_fire_kind(kind, target_type)
    fire = fire_factors(firepower, to_hit)
    defence = defence_factors(
        tgt, reduced=target_state.reduced, terrain_dice=terrain_dice
    )

    def hit(net_hits: int) -> HitResult:
        return hit_result(
            net_hits,
            target_type,
            kind,
            target_state,
            one_sided=tgt.one_sided,
            fragile=tgt.unit_class is UnitClass.BRIDGE_LAYER,
        )

    return fire, defence, hit


# ---------------------------------------------------------------------------
# assault and overrun (rules text absent from the seeds; RULES_NOTES 1.2 FOUND)


class AssaultType(StrEnum):
    """Close combat in one hex (FOUND: hexsides.com WaW primer, [B])."""

    ASSAULT = "assault"
    OVERRUN = "overrun"


def assault_type(
    *,
    attackers_are_vehicles: bool,
    defenders_are_infantry: bool,
    defender_terrain_open: bool,
) -> AssaultType:
    """Overrun when vehicles attack infantry in open terrain; else assault.

    FOUND [B] (RULES_NOTES 1.2): assault = vehicles vs vehicles anywhere, vehicles
    vs infantry in defensive terrain, infantry vs infantry; overrun = vehicles vs
    infantry in open (or open hill) terrain.

    Examples:
        >>> assault_type(attackers_are_vehicles=True, defenders_are_infantry=True,
        ...              defender_terrain_open=True).value
        'overrun'
    """
    # FOUND [B] (hexsides.com primer): overrun = vehicles vs infantry in the open.
    if attackers_are_vehicles and defenders_are_infantry and defender_terrain_open:
        return AssaultType.OVERRUN
    return AssaultType.ASSAULT


def spread_hits(
    rng: np.random.Generator, hits: int, n_units: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Spread hits evenly over a stack (top unit first); a d6 places odd hits.

    FOUND [B] (RULES_NOTES 1.2): assault hits cannot be aimed; they are spread
    evenly, one per unit from the top.  The primer has a d6 decide an odd hit;
    ASSUMPTION on the mapping: the die picks unit ``(d6 - 1) * n_units // 6``.

    Returns:
        Hits per unit (top first) and the d6 rolled for odd hits.

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> spread_hits(FixedDice([5]), 3, 2)
        ((1, 2), (5,))
    """
    if n_units < 1:
        raise ValueError("a stack has at least one unit")
    if hits < 0:
        raise ValueError("hits must be >= 0")
    # FOUND [B]: hits are spread one per unit from the top; ASSUMPTION: a d6 per
    # left-over hit picks the unit.
    each, extra = divmod(hits, n_units)
    alloc = [each] * n_units
    dice = roll_d6(rng, extra)
    for face in dice:
        alloc[(face - 1) * n_units // 6] += 1
    return tuple(alloc), dice


@dataclass(frozen=True)
class AssaultRoll:
    """One side's assault dice and where its hits landed on the enemy stack."""

    dice: tuple[int, ...]
    to_hit: int
    hits: int
    allocation: tuple[int, ...]
    allocation_dice: tuple[int, ...]


@dataclass(frozen=True)
class AssaultResult:
    """Both sides' rolls; results apply simultaneously."""

    kind: AssaultType
    attacker: AssaultRoll
    defender: AssaultRoll

    @property
    def attacker_hits_taken(self) -> int:
        """Hits scored on the attacking stack."""
        return self.defender.hits

    @property
    def defender_hits_taken(self) -> int:
        """Hits scored on the defending stack."""
        return self.attacker.hits

    @property
    def defender_holds(self) -> bool:
        """FOUND [B]: the defender keeps the hex unless it took more hits.

        Otherwise it retreats one hex straight back along the assault path or is
        destroyed; a held defence sends the attacker back where it came from.
        """
        return self.defender_hits_taken <= self.attacker_hits_taken


def resolve_assault(
    rng: np.random.Generator,
    attacker_dice: Sequence[int],
    defender_dice: Sequence[int],
    *,
    attacker_leadership: int = 0,
    defender_leadership: int = 0,
    kind: AssaultType | str = AssaultType.ASSAULT,
    to_hit: int = ASSAULT_TO_HIT,
) -> AssaultResult:
    """Resolve an assault or overrun: both sides roll, hits land simultaneously.

    Apply each unit's hits with :func:`hit_result` (kind ``"assault"``, no saves:
    FOUND [B], terrain does not modify assault rolls).

    Args:
        rng: the game's random generator.
        attacker_dice: assault dice of each attacking unit, top of stack first.
        defender_dice: assault dice of each defending unit, top first.
        attacker_leadership: HQ leadership added (WaW 1.3.3: to an attack or
            assault; FOUND [B]: if the HQ's stack is not Ops Complete).
        defender_leadership: same for the defender.
        kind: assault or overrun (see :func:`assault_type`).  ASSUMPTION: an
            overrun is rolled the same way; its own modifiers and the infantry-
            in-city exception are not in any reachable source (GAP).
        to_hit: number each assault die must reach (ASSUMPTION: 5).

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> r = resolve_assault(FixedDice([6, 5, 2, 1, 1, 6]), [4], [2])
        >>> r.defender_hits_taken, r.attacker_hits_taken, r.defender_holds
        (2, 1, False)
    """
    if not attacker_dice or not defender_dice:
        raise ValueError("both stacks need at least one unit")
    if min(*attacker_dice, *defender_dice) < 0:
        raise ValueError("assault dice must be >= 0")
    if attacker_leadership < 0 or defender_leadership < 0:
        raise ValueError("leadership must be >= 0")
    # FOUND [B]: each side adds up the assault dice of its units and rolls them;
    # results take effect only after both have rolled.
    a_faces = roll_d6(rng, sum(attacker_dice) + attacker_leadership)
    d_faces = roll_d6(rng, sum(defender_dice) + defender_leadership)
    a_hits = count_successes(a_faces, to_hit)
    d_hits = count_successes(d_faces, to_hit)
    a_alloc, a_alloc_dice = spread_hits(rng, a_hits, len(defender_dice))
    d_alloc, d_alloc_dice = spread_hits(rng, d_hits, len(attacker_dice))
    return AssaultResult(
        kind=AssaultType(kind),
        attacker=AssaultRoll(a_faces, to_hit, a_hits, a_alloc, a_alloc_dice),
        defender=AssaultRoll(d_faces, to_hit, d_hits, d_alloc, d_alloc_dice),
    )
