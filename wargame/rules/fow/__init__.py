"""Flames of War, 3rd edition (Battlefront 2011), rule system ``fow-v3`` (issue #20).

Sources: the seed pages (``shared/seeds/004``, rulebook pp. 20-24 in Russian
translation) and ``shared/research/fow.md``; every module cites the page or
section of each rule it carries.  Modules: :mod:`.dice` (N+ rolls, re-rolls,
ratings, halves), :mod:`.odds` (exact hit, armour and save odds and their dice
path), :mod:`.allocation` (the target's owner spreads the hits).

Examples:
    >>> hit_odds(4, needed(TO_BE_HIT["trained"], 1)).round(4).tolist()
    [0.0625, 0.25, 0.375, 0.25, 0.0625]
"""

from .allocation import allocate
from .dice import (
    MOTIVATION_TEST,
    MOTIVATIONS,
    SKILL_TEST,
    SKILLS,
    TO_BE_HIT,
    Test,
    at_least_half,
    faces_needed,
    needed,
    p_success,
    passes,
    resolve_test,
    roll_off,
    roll_test,
    up_to_half,
    worst,
)
from .odds import (
    ARMOUR_OUTCOMES,
    SAVE_OUTCOMES,
    armour_odds,
    armour_pmf,
    armour_result,
    hit_odds,
    hit_pmf,
    hits_from,
    penetrates,
    rerolls_needed,
    save_odds,
    save_pmf,
    save_result,
)

__all__ = [
    "ARMOUR_OUTCOMES",
    "MOTIVATIONS",
    "MOTIVATION_TEST",
    "SAVE_OUTCOMES",
    "SKILLS",
    "SKILL_TEST",
    "TO_BE_HIT",
    "Test",
    "allocate",
    "armour_odds",
    "armour_pmf",
    "armour_result",
    "at_least_half",
    "faces_needed",
    "hit_odds",
    "hit_pmf",
    "hits_from",
    "needed",
    "p_success",
    "passes",
    "penetrates",
    "rerolls_needed",
    "resolve_test",
    "roll_off",
    "roll_test",
    "save_odds",
    "save_pmf",
    "save_result",
    "up_to_half",
    "worst",
]
