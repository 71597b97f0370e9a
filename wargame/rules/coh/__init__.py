"""Conflict of Heroes: Awakening the Bear!, 2nd edition (``coh-2e``).

Platoon-and-squad fire and movement on 50 m hexes of the real map: the 7 AP
activation pool shared by any fresh units, opportunity and command actions,
CAPs, group actions, AV = FP + 2d6 against DV, face-down hit markers, hidden
units and snipers, cards.  Sources: seed 003 (§8-10, the later printing; it
wins) and the June 2012 rulebook as summarised in ``research/coh.md``; the
section-by-section table is ``docs/rules/coh-2e.md``.

Examples:
    >>> from wargame.rules.coh import fire_odds
    >>> round(float(fire_odds(5, 14)["hit"] + fire_odds(5, 14)["destroyed"]), 4)
    0.2778
"""

from __future__ import annotations

from .odds import fire_odds
from .odds_map import unit_odds

__all__ = ["fire_odds", "unit_odds"]
