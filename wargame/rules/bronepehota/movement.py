"""Movement costs of Бронепехота (official rules 05.08.08, §4.1-4.2, Tables 1-2).

The rules, in our own words (sections of ``official_rules.md``; research notes
``research/bronepehota.md §1``):

* Distances are in steps of 5 cm; an infantryman spends one speed point per
  step, up to his Ск a turn, by any route (§4, §4.1, seed 002).
* Table 1: a step on the flat, up a ladder or a slope of at most 45°: 1 point;
  an obstacle at most half a step high (or deep): free; more than half a step up
  to one step: 2 points; climbing a climbable wall or support: 2 points a step;
  a step moving a mobile gun: 2 points (half speed).  Smooth faces higher than a
  step, and slopes of 45° or more that cannot be climbed, are impassable (§4.1).
* Table 2, per speed point of a machine: forward 1 step (all four kinds);
  backward 1 step wheeled or tracked, half a step walking, never flying;
  sideways half a step walking only; a turn on the spot any angle, a flier at
  most 90° (§4.2).
* A machine moves only with a pilot; its speed is that of the durability
  sector its slider is in (§4.2; :meth:`.data.Machine.speed_at`).

Examples:
    >>> machine_move_cost("tracked", [("backward", 1), ("turn", 90), ("forward", 2)])
    4.0
    >>> infantry_move_cost(climb_steps=1.5)  # §4.1 Fig. 19
    3.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Final

from wargame.engine.errors import IllegalActionError

__all__ = [
    "MACHINE_STEPS_PER_POINT",
    "MANOEUVRES",
    "check_slope",
    "gun_steps",
    "infantry_move_cost",
    "machine_move_cost",
    "obstacle_cost",
]

#: The manoeuvres of Table 2 (§4.2).
MANOEUVRES: Final = ("forward", "backward", "sideways", "turn")

#: Steps per speed point by locomotion and manoeuvre; ``None`` = not allowed
#: (§4.2, Table 2).  Turns are per turn, not per step (see :func:`machine_move_cost`).
MACHINE_STEPS_PER_POINT: Final[Mapping[str, Mapping[str, float | None]]] = (
    MappingProxyType(
        {
            "wheeled": MappingProxyType(
                {"forward": 1.0, "backward": 1.0, "sideways": None}
            ),
            "tracked": MappingProxyType(
                {"forward": 1.0, "backward": 1.0, "sideways": None}
            ),
            "walking": MappingProxyType(
                {"forward": 1.0, "backward": 0.5, "sideways": 0.5}
            ),
            "flying": MappingProxyType(
                {"forward": 1.0, "backward": None, "sideways": None}
            ),
        }
    )
)

_EPS = 1e-9


def obstacle_cost(height_steps: float) -> int:
    """Points an infantryman spends to cross a vertical obstacle (§4.1, Table 1).

    Raises:
        IllegalActionError: higher than one step (impassable, go round).

    Examples:
        >>> obstacle_cost(0.5), obstacle_cost(0.8), obstacle_cost(1.0)
        (0, 2, 2)
    """
    h = abs(float(height_steps))  # a depth counts like a height (§4.1)
    if h <= 0.5 + _EPS:
        return 0
    if h <= 1.0 + _EPS:
        return 2
    raise IllegalActionError(
        f"§4.1: an obstacle of {h:g} steps (over 1 step) is impassable on foot"
    )


def check_slope(angle_deg: float) -> None:
    """Slopes and ramps of at most 45° are walked (and driven) at normal cost
    (§4.1, §4.2); steeper ones are impassable unless climbable (§4.1).

    >>> check_slope(45.0)
    >>> check_slope(50.0)
    Traceback (most recent call last):
    ...
    wargame.engine.errors.IllegalActionError: §4.1-4.2: a slope of 50° is over 45°
    """
    if float(angle_deg) > 45.0 + _EPS:
        raise IllegalActionError(
            f"§4.1-4.2: a slope of {float(angle_deg):g}° is over 45°"
        )


def infantry_move_cost(
    flat_steps: float = 0.0,
    *,
    climb_steps: float = 0.0,
    gun_steps: float = 0.0,
    obstacles: Iterable[float] = (),
) -> float:
    """Speed points of an infantry move (§4.1, Table 1).

    Args:
        flat_steps: steps on the flat, ladders and slopes of at most 45° (1 each).
        climb_steps: steps climbing a wall or support (2 each).
        gun_steps: steps moving a mobile gun (2 each).
        obstacles: heights in steps of the obstacles crossed.

    Examples:
        >>> infantry_move_cost(1, gun_steps=1.5)  # §4.1 Fig. 20: 1 + 3
        4.0
        >>> infantry_move_cost(2, obstacles=[0.3, 0.7])
        4.0
    """
    parts = (float(flat_steps), float(climb_steps), float(gun_steps))
    if any(p < 0 for p in parts):
        raise ValueError(f"steps must be >= 0, got {parts}")
    return (
        parts[0]
        + 2 * parts[1]
        + 2 * parts[2]
        + sum(obstacle_cost(h) for h in obstacles)
    )


def gun_steps(points: float) -> float:
    """Steps a soldier moves a mobile gun with ``points`` (half speed, §4.1).

    >>> gun_steps(3)  # §4.1 Fig. 20: 3 points = 1.5 steps = 7.5 cm
    1.5
    """
    return float(points) / 2


def machine_move_cost(locomotion: str, moves: Sequence[tuple[str, float]]) -> float:
    """Speed points of a machine's move (§4.2, Table 2).

    Args:
        locomotion: ``"wheeled"``, ``"tracked"``, ``"walking"`` or ``"flying"``.
        moves: ``(manoeuvre, amount)`` in order: steps for forward, backward and
            sideways; degrees for a turn on the spot.

    Raises:
        IllegalActionError: a manoeuvre this kind cannot make (a flier backing,
            a tracked machine sidestepping).

    Examples:
        >>> machine_move_cost("walking", [("sideways", 1)])
        2.0
        >>> machine_move_cost("flying", [("turn", 135), ("forward", 3)])
        5.0
    """
    table = MACHINE_STEPS_PER_POINT.get(locomotion)
    if table is None:
        raise ValueError(f"locomotion must be one of {list(MACHINE_STEPS_PER_POINT)}")
    cost = 0.0
    for k, (what, amount) in enumerate(moves):
        a = abs(float(amount))
        if what == "turn":
            # any angle for one point; a flier at most 90° a point (Table 2)
            cost += math.ceil(a / 90.0 - _EPS) if locomotion == "flying" else 1.0
            continue
        if what not in MANOEUVRES:
            raise ValueError(f"moves[{k}]: {what!r} must be one of {list(MANOEUVRES)}")
        rate = table[what]
        if rate is None:
            raise IllegalActionError(
                f"§4.2 Table 2: a {locomotion} machine cannot move {what}"
            )
        cost += a / rate
    return float(cost)
