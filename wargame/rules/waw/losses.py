"""Knock-on losses in World at War (classic): passengers, support weapons, ATGMs.

Examples:
    >>> from wargame.rules.waw import FixedDice, UnitState, Strength
    >>> t = transport_losses(FixedDice([4]), carrier_before=UnitState(),
    ...                      carrier_after=UnitState(Strength.DESTROYED))
    >>> t.carrier_effect, t.die, t.after.destroyed
    ('destroyed', 4, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from .combat import FRESH, Damage, FireRoll, UnitState, apply_damage
from .dice import roll_d6

__all__ = [
    "SupportWeaponLoss",
    "TransportLoss",
    "atgm_expended",
    "transport_losses",
    "unplaced_sw_loss",
]

CarrierEffect = Literal["none", "disrupted", "reduced", "destroyed"]


@dataclass(frozen=True)
class TransportLoss:
    """What a hit on a carrier did to the infantry it carries.

    Attributes:
        carrier_effect: the worst thing that happened to the carrier.
        die: the d6 rolled (None when no roll is needed).
        before: passengers' state before.
        after: passengers' state after.
    """

    carrier_effect: CarrierEffect
    die: int | None
    before: UnitState
    after: UnitState


def transport_losses(
    rng: np.random.Generator,
    *,
    carrier_before: UnitState,
    carrier_after: UnitState,
    passengers: UnitState = FRESH,
) -> TransportLoss:
    """Passengers' fate when their carrier is hit (WaW 5.2, seed 001).

    Carrier disrupted: passengers disrupted.  Carrier reduced: passengers
    disrupted too (a reduced carrier is also disrupted) and, on an even d6,
    reduced.  Carrier destroyed: even d6, passengers destroyed; odd, disrupted and
    reduced.  ASSUMPTION: "reduced" on reduced passengers destroys them (see
    :func:`~wargame.rules.waw.combat.apply_damage`).

    Examples:
        >>> from wargame.rules.waw import FixedDice, Strength
        >>> t = transport_losses(FixedDice([3]), carrier_before=UnitState(),
        ...     carrier_after=UnitState(Strength.REDUCED, disrupted=True))
        >>> t.after
        UnitState(strength=<Strength.FULL: 'full'>, disrupted=True)
    """
    if passengers.destroyed:
        raise ValueError("the passengers are already destroyed")
    die: int | None = None
    if carrier_after.destroyed and not carrier_before.destroyed:
        effect: CarrierEffect = "destroyed"
        (die,) = roll_d6(rng, 1)
        # WaW 5.2: carrier destroyed - even: passengers destroyed; odd: disrupted
        # and reduced.
        # (two steps destroy any two-sided unit)
        after = apply_damage(passengers, Damage(True, 2 if die % 2 == 0 else 1))
    elif carrier_after.reduced and not carrier_before.reduced:
        effect = "reduced"
        (die,) = roll_d6(rng, 1)
        # WaW 5.2: carrier takes losses - even: passengers take losses too.
        # WaW 5.2: a disrupted carrier disrupts its passengers.
        after = apply_damage(passengers, Damage(True, 1 if die % 2 == 0 else 0))
    elif carrier_after.disrupted and not carrier_before.disrupted:
        effect = "disrupted"
        # WaW 5.2: a disrupted carrier disrupts its passengers.
        after = apply_damage(passengers, Damage(True, 0))
    else:
        effect = "none"
        after = passengers
    return TransportLoss(effect, die, passengers, after)


@dataclass(frozen=True)
class SupportWeaponLoss:
    """The roll to see if the enemy deletes one unplaced support weapon.

    Attributes:
        die: the d6.
        modifier: -1 for each infantry platoon lost after the first.
        total: die plus modifier.
        lost: total <= 1: the enemy removes one unplaced SW of its choice.
    """

    die: int
    modifier: int
    total: int
    lost: bool


def unplaced_sw_loss(
    rng: np.random.Generator, infantry_platoons_lost: int
) -> SupportWeaponLoss:
    """Roll when an infantry platoon dies while the side has unplaced SWs.

    WaW 1.3.5 (seed 000, lost Sagger example): roll a d6; on a 1 the enemy may
    remove any one unplaced SW; subtract 1 for each infantry platoon destroyed so
    far after the first.

    Args:
        rng: the game's random generator.
        infantry_platoons_lost: infantry platoons this side has lost in the
            scenario, including the one just destroyed.

    Examples:
        >>> from wargame.rules.waw import FixedDice
        >>> unplaced_sw_loss(FixedDice([2]), 2).lost
        True
    """
    if infantry_platoons_lost < 1:
        raise ValueError("roll only when an infantry platoon has been destroyed")
    # WaW 1.3.5: d6, -1 per infantry platoon lost after the first; 1 = SW lost.
    (die,) = roll_d6(rng, 1)
    modifier = -(infantry_platoons_lost - 1)
    total = die + modifier
    return SupportWeaponLoss(die, modifier, total, total <= 1)


def atgm_expended(roll: FireRoll) -> bool:
    """A tank-fired ATGM (Songster/Sniper) that scored no hit is out of missiles.

    WaW 1.3.5 tank SW (seed 000): remove the ATGM marker if the shot scores no
    hits.  ASSUMPTION: "hits" are the firepower dice that reached to-hit, before
    the target's saves.

    Examples:
        >>> from wargame.rules.waw import FixedDice, roll_fire, fire_factors
        >>> from wargame.rules.waw import save_factors
        >>> atgm_expended(roll_fire(FixedDice([1, 2]), fire_factors(2, 3),
        ...                         save_factors(armor_dice=2, save=5)))
        True
    """
    # WaW 1.3.5 tank SW: no hits = out of missiles (ASSUMPTION: before saves).
    return roll.hits == 0
