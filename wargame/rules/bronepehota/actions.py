"""Бронепехота 2008: the actions a player takes, and a figure on the table.

A unit acts figure by figure (§3.2 note 1): :class:`Move` (§4), :class:`Shoot`
(§7), :class:`Leave` (a pilot gets out, §4.3), :class:`Board` (a soldier takes
a pilotless machine, §9.1) and :class:`EndSquad` (the rest skip).  A
:class:`Fig` is one soldier, or one machine with its pilot (§1.6, §2.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from wargame.engine import (
    Action,
    Model,
    Point,
    Unit,
)
from wargame.engine.points import bearing, distance

from .data import Gun, Machine, Soldier, Weapon


@dataclass(frozen=True)
class Move(Action):
    """A soldier (or a machine: ``soldier`` = its model id) moves in a straight
    line to ``to``, then faces ``facing`` (compass degrees; default: the way he
    went).  A machine pays a point for each turn (Table 2)."""

    type = "move"
    unit: str
    soldier: str
    to: Point
    facing: float | None = None


@dataclass(frozen=True)
class Shoot(Action):
    """A soldier shoots his personal weapon, or a machine its ``weapon``
    (``"name#k"``, the k-th of that name in its loadout), at an enemy figure."""

    type = "shoot"
    unit: str
    soldier: str
    target: str
    target_soldier: str
    weapon: str = ""


@dataclass(frozen=True)
class Leave(Action):
    """The pilot of machine ``unit`` gets out (§4.3): his figure is set down
    touching the machine on the way to ``to`` and, if the machine has not moved
    this turn, walks on to ``to`` as an infantryman (§4.1), then faces
    ``facing`` (default: the way he went).  The machine is left pilotless and
    its unit's turn ends."""

    type = "leave"
    unit: str
    to: Point
    facing: float | None = None


@dataclass(frozen=True)
class Board(Action):
    """Soldier ``soldier`` of ``unit``, touching the pilotless machine
    ``machine`` (a unit id), becomes its pilot (§9.1); an enemy's machine is
    captured and passes to his side with its tracks as they are."""

    type = "board"
    unit: str
    soldier: str
    machine: str


@dataclass(frozen=True)
class EndSquad(Action):
    """The unit has acted (its remaining soldiers skip); the next side's unit."""

    type = "end_squad"
    unit: str


class Fig(NamedTuple):
    """A figure on the table: a soldier, a machine with its pilot (or none), or
    a gun (:mod:`.guns`; not a unit, §2)."""

    unit: Unit
    model: Model
    soldier: Soldier | None  # the infantryman, or the machine's pilot
    machine: Machine | None
    gun: Gun | None = None

    @property
    def infantry(self) -> bool:
        """An infantryman on foot (not a machine, nor a gun)."""
        return self.machine is None and self.gun is None

    @property
    def armour(self) -> int:
        """Бр of a soldier; a machine's or gun's durability cell (§5.2)."""
        if self.machine is not None or self.gun is not None:
            return int(self.unit.attrs["durability"])
        assert self.soldier is not None
        return self.soldier.armour

    @property
    def airborne(self) -> bool:
        """A piloted flier is in the air (§4.2-4.3)."""
        return bool(
            self.machine is not None and self.machine.flier and self.soldier is not None
        )


def angle_off(facing: float | None, a: Point, b: Point) -> float:
    """Degrees between ``facing`` and the bearing from ``a`` to ``b`` (0..180)."""
    if facing is None or distance(a, b) == 0:
        return 0.0
    d = (bearing(a, b) - facing) % 360.0
    return min(d, 360.0 - d)


def loadout_keys(loadout: Sequence[Weapon]) -> list[str]:
    """``name#k`` for each weapon of a loadout (k counts copies of a name)."""
    seen: dict[str, int] = {}
    out = []
    for w in loadout:
        seen[w.name] = seen.get(w.name, 0) + 1
        out.append(f"{w.name}#{seen[w.name]}")
    return out


__all__ = [
    "Board",
    "EndSquad",
    "Fig",
    "Leave",
    "Move",
    "Shoot",
    "angle_off",
    "loadout_keys",
]
