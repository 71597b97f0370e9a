"""The doctrine player's combined arms: transports, passengers and batteries.

Helpers for :class:`~.doctrine.DoctrinePolicy`, each a judgement of the
project (ASSUMPTION, ``docs/rules/fow-v3.md`` D1-D4), built on the rules of
:mod:`.transport` (research/fow.md §1.2: passengers get out at the start of
their move) and :mod:`.artillery` (§3.8: a spotter must see the aiming point):

* **Ride to the fight, get out before contact**: a transport platoon that
  carries passengers does not end a move within :data:`ASSAULT_REACH_IN` of an
  enemy team in its side's view (an enemy infantry team's 6" move and 4"
  charge, research §2.2 and §4: closer, its passengers could be caught aboard,
  saving only on 5+, §3.4).
* **Dismount** when the transport has an enemy team in view within
  :data:`DISMOUNT_IN` (the riflemen's 16" range, §3.9: they get out where they
  can shoot), stands within :data:`DISMOUNT_IN` of an objective its side does
  not hold (only teams on foot take it), or in the game's last two turns;
  otherwise the passengers stay aboard and ride on.
* **Empty transports go back**: a transport platoon whose passengers got out
  (every team a ``transport``) keeps out of the fight: standing within
  :data:`HANG_BACK_IN` of an enemy team in view it moves only to beyond that
  distance (cover preferred); standing beyond it, it stays (half-tracks of
  1/0/0 armour, §6.2, are no fighting vehicles; the armored infantry's
  half-tracks stayed in Remagen in 1945).
* **A battery that can bombard stays**: a platoon with a bombardment weapon
  that has a bombardment on offer now (an enemy team in range that a team of it
  sees, :func:`.artillery.bombard_actions`) does not move, so that it may fire
  (a platoon that moved does not bombard, assumption B1); one that has none
  moves as any platoon, to find a target.

Examples:
    >>> ASSAULT_REACH_IN, DISMOUNT_IN, HANG_BACK_IN
    (10.0, 16.0, 24.0)
"""

from __future__ import annotations

import math
from typing import Any, Final

from wargame.engine import Point

from .ai import _enemy_within
from .artillery import bombard_actions, bombard_weapon

__all__ = [
    "ASSAULT_REACH_IN",
    "DISMOUNT_IN",
    "HANG_BACK_IN",
    "can_bombard",
    "carries",
    "empty_transport_move",
    "enemy_near",
    "should_dismount",
    "unsafe_for_passengers",
]

#: An enemy infantry team's move (6") and charge (4"): research §2.2, §4.
ASSAULT_REACH_IN: Final = 10.0
#: The passengers' rifle range (research §3.9): where they get out to fight.
DISMOUNT_IN: Final = 16.0
#: How far an empty transport keeps from the enemy: the MG42 HMG's 24", the
#: longest machine-gun range of research §3.9.
HANG_BACK_IN: Final = 24.0


def carries(view: Any, tid: str) -> bool:
    """Whether platoon ``tid`` has passengers aboard (:mod:`.transport`)."""
    return any(u.attrs.get("mounted_in") == tid for u in view.units.values())


def enemy_near(rules: Any, view: Any, side: str, at: Point, reach_in: float) -> bool:
    """Whether an enemy team in ``side``'s view stands within ``reach_in``
    inches of ``at`` (centre to centre): the greedy player's test, in inches."""
    return _enemy_within(rules, view, side, at, reach_in * rules.scale)


def unsafe_for_passengers(
    rules: Any, view: Any, uid: str, side: str, to: Point
) -> bool:
    """A move of transport platoon ``uid`` to ``to`` that would bring its
    passengers into an enemy's assault reach (module docstring)."""
    return carries(view, uid) and enemy_near(rules, view, side, to, ASSAULT_REACH_IN)


def should_dismount(rules: Any, view: Any, uid: str, side: str) -> bool:
    """Whether the passengers ``uid`` get out now (module docstring)."""
    tid = view.units[uid].attrs.get("mounted_in")
    t = view.units.get(str(tid)) if tid is not None else None
    if t is None:
        return False
    if view.turn >= rules.scenario.turns - 1:
        return True
    spots = [m.position for m in t.models if isinstance(m.position, Point)]
    reach = DISMOUNT_IN * rules.scale
    goals = [
        p for name, (p, _) in rules.objectives.items() if view.control.get(name) != side
    ]
    for q in spots:
        if enemy_near(rules, view, side, q, DISMOUNT_IN):
            return True
        if any(math.hypot(p.x - q.x, p.y - q.y) <= reach for p in goals):
            return True
    return False


def can_bombard(rules: Any, view: Any, uid: str) -> bool:
    """Whether platoon ``uid`` has a bombardment weapon and a bombardment on
    offer now (an enemy in range that its spotter sees)."""
    u = view.units[uid]
    if not any(bombard_weapon(rules.team(m)) is not None for m in u.models):
        return False
    return bool(bombard_actions(rules, view, u))


def empty_transport_move(
    rules: Any, view: Any, uid: str, side: str, to: Point, cover: float
) -> float | None:
    """The doctrine's score of a move of an empty transport platoon ``uid``
    to ``to`` (``cover``: the worth of ending in concealing ground), or
    ``None`` when ``uid`` is not an empty transport platoon (module
    docstring)."""
    u = view.units[uid]
    if not u.models or not all(rules.team(m).has("transport") for m in u.models):
        return None
    if carries(view, uid) or not isinstance(u.position, Point):
        return None
    if not enemy_near(rules, view, side, u.position, HANG_BACK_IN):
        return -1.0  # out of the fight already: stays
    if enemy_near(rules, view, side, to, HANG_BACK_IN):
        return -1.0
    return 0.1 + cover
