"""World at War, classic edition (Eisenbach Gap / Blood and Bridges): rules layer.

Pure rule functions: unit and terrain data (TOML, validated), ranged fire with
every die recorded, hit results, assault, morale, HQ and knock-on loss rolls, and
exact odds computed from the same rule code.  On top of them, :class:`WawRuleset`
(ruleset id ``waw-classic``) plays the game with :mod:`wargame.engine`: sequence
of play, movement on the real map, fire and opportunity fire, assaults, HQs,
command, hex capture and victory points; :func:`unit_odds` gives the exact odds
between two units of a game.  See ``docs/rules/waw-classic.md`` for each rule,
its source and the assumptions made where the seeds are silent.

Examples:
    >>> import numpy as np
    >>> from wargame.rules import waw
    >>> shot = waw.resolve_fire(np.random.default_rng(3), "t72", "m60",
    ...                         range_hexes=6, terrain="woods")
    >>> shot.plan.fire.to_hit, shot.plan.defence.dice
    (5, 3)
    >>> round(float(waw.odds("t72", "m60", 6, "woods").sum()), 12)
    1.0
"""

from __future__ import annotations

from .actions import (
    Activate,
    Assault,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
)
from .board import WawBoard, board_for
from .catalog import (
    AttackKind,
    DataError,
    Mobility,
    Nation,
    TargetType,
    TerrainChart,
    UnitClass,
    UnitSide,
    UnitType,
    Weapon,
    get_unit,
    load_terrain,
    load_units,
    terrain_chart,
    unit_catalog,
)
from .combat import (
    ASSAULT_TO_HIT,
    FRESH,
    MOVING_FIRE_PENALTY,
    AssaultResult,
    AssaultRoll,
    AssaultType,
    Damage,
    FireFactors,
    FirePlan,
    FireResult,
    FireRoll,
    HitResult,
    IllegalFireError,
    RangeBand,
    SaveFactors,
    Strength,
    UnitState,
    apply_damage,
    assault_type,
    check_fire_kind,
    default_attack_kind,
    defence_factors,
    fire_factors,
    hit_damage,
    hit_result,
    plan_fire,
    range_band,
    resolve_assault,
    resolve_fire,
    roll_fire,
    rule_range,
    save_factors,
    spread_hits,
    weapon_fire_factors,
)
from .command import (
    Exposure,
    HQCheck,
    MoraleCheck,
    hq_move_check,
    hq_stack_check,
    morale_check,
    rally_check,
)
from .dice import FixedDice, roll_d6
from .losses import (
    SupportWeaponLoss,
    TransportLoss,
    atgm_expended,
    transport_losses,
    unplaced_sw_loss,
)
from .odds import (
    OUTCOMES,
    fire_odds,
    net_hit_pmf,
    odds,
    result_odds,
    result_probabilities,
)
from .ruleset import WawRuleset, unit_odds

RULESET_ID = "waw-classic"

__all__ = [
    "ASSAULT_TO_HIT",
    "FRESH",
    "MOVING_FIRE_PENALTY",
    "OUTCOMES",
    "RULESET_ID",
    "Activate",
    "Assault",
    "AssaultResult",
    "AssaultRoll",
    "AssaultType",
    "AttackKind",
    "Damage",
    "DataError",
    "Defer",
    "Dismount",
    "EndActivation",
    "Exposure",
    "Fire",
    "FireFactors",
    "FirePlan",
    "FireResult",
    "FireRoll",
    "FixedDice",
    "HQCheck",
    "HitResult",
    "IllegalFireError",
    "Mobility",
    "MoraleCheck",
    "Mount",
    "Move",
    "MoveHQ",
    "Nation",
    "Pass",
    "Rally",
    "RangeBand",
    "SaveFactors",
    "Strength",
    "SupportWeaponLoss",
    "TargetType",
    "TerrainChart",
    "TransportLoss",
    "UnitClass",
    "UnitSide",
    "UnitState",
    "UnitType",
    "WawBoard",
    "WawRuleset",
    "Weapon",
    "apply_damage",
    "assault_type",
    "atgm_expended",
    "board_for",
    "check_fire_kind",
    "default_attack_kind",
    "defence_factors",
    "fire_factors",
    "fire_odds",
    "get_unit",
    "hit_damage",
    "hit_result",
    "hq_move_check",
    "hq_stack_check",
    "load_terrain",
    "load_units",
    "morale_check",
    "net_hit_pmf",
    "odds",
    "plan_fire",
    "rally_check",
    "range_band",
    "resolve_assault",
    "resolve_fire",
    "result_odds",
    "result_probabilities",
    "roll_d6",
    "roll_fire",
    "rule_range",
    "save_factors",
    "spread_hits",
    "terrain_chart",
    "transport_losses",
    "unit_catalog",
    "unit_odds",
    "unplaced_sw_loss",
    "weapon_fire_factors",
]
