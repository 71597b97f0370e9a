"""Flames of War v3: moving At the Double.

The sources give only part of the rule (research/fow.md §2.3): shooters roll
double the dice against a team that moved At the Double [A-v2/v3: S12].  The
rest is the stop-gap of research §10.2, every part an ASSUMPTION:

* the platoon moves **double** its distance in the going of the move (as a
  body or in column, like any move);
* it may **not shoot** (nor bombard) in this turn's Shooting Step;
* it may **not assault** this turn (the Assault Step should refuse a platoon
  with ``attrs["at_double"]``);
* until its next Starting Step, enemy teams shooting at it roll **double
  dice** (the S12 rule, applied to the ROF after the moving and pinned rules).

Teams that are Unreliable break down on a 1 At the Double (research §2.1, S10
[B]) and infantry may not go At the Double through anti-tank obstacles (§2.1,
S8 [B]): neither occurs in the data and map (no Unreliable team, no obstacle),
so neither is built.

Examples:
    >>> DOUBLE_FACTOR
    2
    >>> AtTheDouble("us_1pl", Point(0.0, 0.0)).to_dict()["type"]
    'double'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from wargame.engine import Action, GameState, Point, Unit, candidate_moves

from .movement import move_distance_in
from .shooting import ShotPlan

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "DOUBLE_FACTOR",
    "AtTheDouble",
    "double_dice",
    "double_moves",
    "no_shooting",
]

#: How much farther a platoon goes At the Double (research §10.2 stop-gap).
DOUBLE_FACTOR: Final = 2


@dataclass(frozen=True)
class AtTheDouble(Action):
    """Move a platoon At the Double: as :class:`~.ruleset.Move`, twice as far,
    and it may not shoot or assault this turn (module docstring)."""

    type = "double"
    unit: str
    to: Point
    column: bool = False


def no_shooting(u: Unit) -> str | None:
    """Why ``u`` may not shoot or bombard because it went At the Double."""
    if u.attrs.get("at_double"):
        return (
            f"{u.id} moved At the Double this turn and may not shoot "
            "(ASSUMPTION, research/fow.md §10.2 stop-gap)"
        )
    return None


def double_dice(plan: ShotPlan, target: Unit) -> ShotPlan:
    """The plan with every shooter's dice doubled if ``target`` moved At the
    Double (research §2.3, S12 [A-v2/v3])."""
    if not target.attrs.get("at_double"):
        return plan
    shooters = tuple(dataclasses.replace(s, dice=2 * s.dice) for s in plan.shooters)
    return dataclasses.replace(plan, shooters=shooters)


def double_moves(
    rs: FowRuleset, state: GameState, u: Unit, targets: dict[str, Point]
) -> list[AtTheDouble]:
    """A few moves At the Double to offer: toward each objective and to the
    nearest cover, at twice the platoon's cross-country distance (no eight
    directions, to keep the list of legal actions short)."""
    origin = u.position
    assert isinstance(origin, Point)
    reach = (
        min(move_distance_in(rs.team(m), "cross_country") for m in u.models)
        * rs.scale
        * DOUBLE_FACTOR
    )
    return [
        AtTheDouble(u.id, c.point)
        for c in candidate_moves(
            origin,
            reach,
            game_map=rs.map,
            objectives=targets,
            cover=("woods", "town"),
            directions=0,
            keep=lambda p: rs.move_problem(state, u, p, double=True) is None,
        )
    ]
