"""Бронепехота, official Tekhnolog rules of 05.08.08, rule system ``bronepehota-2008``
(issue #21, in progress: the core rules, and a first cut on the map in
:mod:`.ruleset`).

Sources: seed 002 (§1-4.1), the official text (``official_rules.md`` of
``bronepehota/bronepehota.github.io``, research/bronepehota.md §0 A1m; sections
cited as "§7.4") and ``research/bronepehota.md``.  The 2025 fan edition is
another rule system: none of its numbers are here (RULES_NOTES §0).

Modules: :mod:`.dice` (notation Д6/2Д12/Д6+2, exact sums), :mod:`.shooting`
(§7 virtual fire: range roll, power dice, cover, rate of fire, ammunition,
blasts, grenades, aimed fire), :mod:`.melee` (§8), :mod:`.damage` (§5, §9,
§4.3: survival tests, durability, repair, crash landing, ranks, jumps),
:mod:`.odds` (exact shot and melee odds), :mod:`.data` (the official 2008
armlists), :mod:`.movement` (Tables 1-2), :mod:`.ruleset` (squads on the real
map, registered as ``bronepehota-2008``), :mod:`.guns` (guns served by
infantry and their capture on the map, §2.4, §4.1, §7.5, §9.2) and
:mod:`.repairs` (repair on the map, §9.3).

Examples:
    >>> shot_odds("Д6+2", 4.2, "1Д12", 2).round(4).tolist()
    [0.4444, 0.5556]
    >>> float(melee_odds("Д6+12", 9)[0])  # §8.1 Fig. 49: the gun always loses
    0.0
"""

from .damage import (
    SURVIVAL_RESULTS,
    apply_damage,
    can_fire_gun,
    can_pilot,
    crash_landing,
    destroyed,
    jump_allowed,
    repair,
    survival_test,
)
from .data import (
    Armlists,
    BronepehotaDataError,
    Gun,
    Machine,
    Soldier,
    SpeedSector,
    Squad,
    Weapon,
    choose_loadout,
    load_armlists,
)
from .dice import Dice, DiceNotationError, parse_dice
from .melee import (
    Melee,
    frozen_defence,
    machine_strength,
    resolve_melee,
    soldier_attack,
    soldier_defence,
)
from .odds import (
    damage_pmf,
    hit_probability,
    melee_odds,
    melee_pmf,
    pierce_probability,
    shot_odds,
    shot_pmf,
)
from .shooting import (
    COVER_BONUS,
    GRENADE_BLAST,
    STEP_CM,
    Blast,
    Shot,
    ammo_cost,
    check_rate_of_fire,
    cover_bonus,
    damage_from,
    grenade_burst,
    hits,
    in_blast,
    parse_blast,
    pierces,
    range_result,
    resolve_shot,
    spend_ammo,
    steps,
    visibility_of,
)

__all__ = [
    "COVER_BONUS",
    "GRENADE_BLAST",
    "STEP_CM",
    "SURVIVAL_RESULTS",
    "Armlists",
    "Blast",
    "BronepehotaDataError",
    "Dice",
    "DiceNotationError",
    "Gun",
    "Machine",
    "Melee",
    "Shot",
    "Soldier",
    "SpeedSector",
    "Squad",
    "Weapon",
    "ammo_cost",
    "apply_damage",
    "can_fire_gun",
    "can_pilot",
    "check_rate_of_fire",
    "choose_loadout",
    "cover_bonus",
    "crash_landing",
    "damage_from",
    "damage_pmf",
    "destroyed",
    "frozen_defence",
    "grenade_burst",
    "hit_probability",
    "hits",
    "in_blast",
    "jump_allowed",
    "load_armlists",
    "machine_strength",
    "melee_odds",
    "melee_pmf",
    "parse_blast",
    "parse_dice",
    "pierce_probability",
    "pierces",
    "range_result",
    "repair",
    "resolve_melee",
    "resolve_shot",
    "shot_odds",
    "shot_pmf",
    "soldier_attack",
    "soldier_defence",
    "spend_ammo",
    "steps",
    "survival_test",
    "visibility_of",
]
