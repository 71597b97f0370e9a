"""World at War (classic) morale, rally and HQ risk rolls.

Examples:
    >>> from wargame.rules.waw import FixedDice
    >>> morale_check(FixedDice([3, 4]), 7).passed
    True
    >>> hq_move_check(FixedDice([2]), start_end_adjacent=True).hit
    False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from .combat import FRESH, Strength, UnitState
from .dice import roll_d6

__all__ = [
    "Exposure",
    "HQCheck",
    "MoraleCheck",
    "hq_move_check",
    "hq_stack_check",
    "morale_check",
    "rally_check",
]


@dataclass(frozen=True)
class MoraleCheck:
    """A 2d6 roll against morale.

    Attributes:
        dice: the two faces.
        leadership: HQ leadership subtracted from the roll (rally only).
        total: dice sum minus leadership.
        morale: the formation's morale (from its HQ counter).
        passed: total <= morale.
    """

    dice: tuple[int, ...]
    leadership: int
    total: int
    morale: int
    passed: bool


def morale_check(rng: np.random.Generator, morale: int) -> MoraleCheck:
    """Morale check: roll 2d6; a total at or under morale passes.

    WaW Morale (seed 000, 74th GTR example): every unit uses its HQ's morale.

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> morale_check(FixedDice([4, 4]), 7).passed
        False
    """
    # WaW Morale (seed 000): 2d6 <= the HQ's morale passes.
    return _two_d6_check(rng, morale, 0)


def rally_check(
    rng: np.random.Generator, morale: int, *, leadership: int = 0
) -> MoraleCheck:
    """Rally a disrupted unit: 2d6 minus the HQ's leadership, at or under morale.

    WaW HQ leadership (seed 000): an HQ's leadership is subtracted from rally rolls
    in its hex.  ASSUMPTION (RULES_NOTES 1.3): the rally roll is the 2d6 morale
    check; pass ``leadership`` only when the HQ is in the rallying unit's hex.  A
    carrier and its passengers rally together (WaW 5.2, seed 001).

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> rally_check(FixedDice([5, 4]), 7, leadership=2).passed
        True
    """
    if leadership < 0:
        raise ValueError("leadership must be >= 0")
    # WaW HQ leadership (seed 000): leadership is subtracted from the rally roll.
    # ASSUMPTION: the rally roll is 2d6 against morale.
    return _two_d6_check(rng, morale, leadership)


def _two_d6_check(
    rng: np.random.Generator, morale: int, leadership: int
) -> MoraleCheck:
    if not 2 <= morale <= 12:
        raise ValueError(f"morale must be 2..12 (got {morale})")
    dice = roll_d6(rng, 2)
    total = sum(dice) - leadership
    # WaW Morale: 2d6 <= morale passes.
    return MoraleCheck(dice, leadership, total, morale, total <= morale)


class Exposure(StrEnum):
    """How an HQ is exposed in one path hex: enemy LOS and range, cover or not."""

    NONE = "none"
    COVER = "cover"  # in enemy LOS and range, in covering terrain
    OPEN = "open"  # in enemy LOS and range, in the open


@dataclass(frozen=True)
class HQCheck:
    """An HQ risk roll (independent move or its stack hit).

    Attributes:
        die: the d6, or None when no roll was needed.
        modifiers: (reason, modifier) pairs added to the die.
        total: die plus modifiers.
        hit: the HQ loses a step.
        before: HQ state before.
        after: HQ state after (HQs are never disrupted).
    """

    die: int | None
    modifiers: tuple[tuple[str, int], ...]
    total: int | None
    hit: bool
    before: UnitState
    after: UnitState


def _hq_loses_step(state: UnitState) -> UnitState:
    # WaW HQ in combat (seed 000): flip to reduced, or destroyed if already reduced.
    # WaW HQ movement (seed 000) only says a failed move roll "reduces" the HQ; a
    # reduced HQ failing it is destroyed, read from the HQ-in-combat sentence (the
    # only place the seeds reduce a reduced HQ), which the general step ladder
    # agrees with (seed 000 unarmored targets: the second hit destroys).
    if state.strength is Strength.FULL:
        return UnitState(Strength.REDUCED)
    return UnitState(Strength.DESTROYED)


def hq_move_check(
    rng: np.random.Generator,
    *,
    start_end_adjacent: bool,
    path_exposure: Sequence[Exposure | str] = (),
    hq_state: UnitState = FRESH,
) -> HQCheck:
    """Risk roll after an HQ moves on its own from one friendly stack to another.

    WaW HQ movement (seed 000): roll a d6 after the move; 1-2 reduces the HQ
    (an HQ already reduced is destroyed, as in the seed's HQ in combat).
    +1 if the start and end hexes are adjacent; -1 if the path crosses enemy LOS
    and range in cover, -2 if in the open; each applied once; only hexes between
    start and end count.  ASSUMPTION: the -1 and -2 can both apply (-3).

    Args:
        rng: the game's random generator.
        start_end_adjacent: start and end hexes are neighbours (e.g. L1 and M1).
        path_exposure: exposure of every hex of the path, start and end included
            (those two are ignored).
        hq_state: the HQ's state before the move.

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> c = hq_move_check(FixedDice([4]), start_end_adjacent=False,
        ...                   path_exposure=["none", "open", "cover", "none"])
        >>> c.total, c.hit, c.after.strength.value
        (1, True, 'reduced')
        >>> from wargame.rules.waw import Strength, UnitState
        >>> hq_move_check(FixedDice([2]), start_end_adjacent=False,
        ...               hq_state=UnitState(Strength.REDUCED)).after.destroyed
        True
    """
    if hq_state.destroyed:
        raise ValueError("a destroyed HQ does not move")
    # WaW HQ movement (d): only hexes between start and end count.
    between = [Exposure(e) for e in path_exposure][1:-1]
    mods: list[tuple[str, int]] = []
    # WaW HQ movement (a): +1 if start and end hexes are adjacent.
    if start_end_adjacent:
        mods.append(("start and end adjacent", +1))
    # WaW HQ movement (b), (c): -1 in cover, -2 in the open, each once.
    # ASSUMPTION: both may apply to one path.
    if Exposure.COVER in between:
        mods.append(("crossed enemy LOS in cover", -1))
    if Exposure.OPEN in between:
        mods.append(("crossed enemy LOS in the open", -2))
    (die,) = roll_d6(rng, 1)
    total = die + sum(m for _, m in mods)
    # WaW HQ movement: a modified 1-2 reduces the HQ.
    hit = total <= 2
    after = _hq_loses_step(hq_state) if hit else hq_state
    return HQCheck(die, tuple(mods), total, hit, hq_state, after)


def hq_stack_check(
    rng: np.random.Generator,
    *,
    unit_destroyed: bool = False,
    stack_destroyed: bool = False,
    hq_state: UnitState = FRESH,
) -> HQCheck:
    """Risk roll for an HQ whose stack was disrupted or took losses in an attack.

    WaW HQ in combat (seed 000): roll a d6; 1 reduces the HQ (or destroys it if
    already reduced); -2 if a unit of the stack was destroyed; if the whole stack
    is destroyed the HQ dies with it (no roll).  HQs are never disrupted and
    cannot be attacked directly.

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> hq_stack_check(FixedDice([3]), unit_destroyed=True).hit
        True
        >>> hq_stack_check(FixedDice([]), stack_destroyed=True).after.destroyed
        True
    """
    if hq_state.destroyed:
        raise ValueError("the HQ is already destroyed")
    if stack_destroyed:
        # WaW HQ in combat: if every unit of the stack dies, the HQ dies too.
        return HQCheck(None, (), None, True, hq_state, UnitState(Strength.DESTROYED))
    # WaW HQ in combat: d6, -2 if a unit of the stack died; 1 (or less) hits the HQ.
    mods = (("unit in stack destroyed", -2),) if unit_destroyed else ()
    (die,) = roll_d6(rng, 1)
    total = die + sum(m for _, m in mods)
    hit = total <= 1
    after = _hq_loses_step(hq_state) if hit else hq_state
    return HQCheck(die, mods, total, hit, hq_state, after)
