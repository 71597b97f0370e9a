"""World at War (classic) actions: the decisions a player makes.

Sequence of play (WaW Operations phase): when one of your formation chits is
drawn, :class:`Activate` or :class:`Defer` it.  During the formation's action
phase, each of its units may act once - :class:`Move` hex by hex (then possibly
fire on the move or assault), :class:`Fire`, :class:`Assault`, :class:`Rally`,
:class:`Mount` / :class:`Dismount`, or an HQ's :class:`MoveHQ` - and the
formation's owner ends the phase with :class:`EndActivation`.  When an enemy
unit moves in sight and range, the other side may take opportunity :class:`Fire`
or :class:`Pass`.

Examples:
    >>> Move("T72-1", "K12").to_dict()
    {'type': 'move', 'unit': 'T72-1', 'to': 'K12', 'with_hq': False}
"""

from __future__ import annotations

from dataclasses import dataclass

from wargame.engine import Action

__all__ = [
    "ACTION_TYPES",
    "Activate",
    "Assault",
    "Defer",
    "Dismount",
    "EndActivation",
    "Fire",
    "Mount",
    "Move",
    "MoveHQ",
    "Pass",
    "Rally",
]


@dataclass(frozen=True)
class Activate(Action):
    """Activate the formation whose chit was just drawn (its action phase)."""

    type = "activate"
    formation: str


@dataclass(frozen=True)
class Defer(Action):
    """Put the drawn formation chit back in the cup (once per turn)."""

    type = "defer"
    formation: str


@dataclass(frozen=True)
class Move(Action):
    """Move a unit one hex; ``with_hq`` takes its HQ along (first step only)."""

    type = "move"
    unit: str
    to: str
    with_hq: bool = False


@dataclass(frozen=True)
class MoveHQ(Action):
    """Move an HQ on its own to another friendly stack (cheapest path)."""

    type = "move_hq"
    hq: str
    to: str


@dataclass(frozen=True)
class Fire(Action):
    """Ranged fire (WaW 6.1) or opportunity fire (6.2) with AP, HE or AA."""

    type = "fire"
    unit: str
    target: str
    weapon: str
    with_hq: bool = False


@dataclass(frozen=True)
class Assault(Action):
    """Assault (or overrun) the enemy stack in an adjacent hex."""

    type = "assault"
    unit: str
    hex: str
    with_hq: bool = False


@dataclass(frozen=True)
class Rally(Action):
    """Try to rally a disrupted unit (2d6 - HQ leadership <= morale)."""

    type = "rally"
    unit: str


@dataclass(frozen=True)
class Mount(Action):
    """Infantry boards a friendly carrier in its hex."""

    type = "mount"
    unit: str
    carrier: str


@dataclass(frozen=True)
class Dismount(Action):
    """Infantry leaves its carrier, into the carrier's hex."""

    type = "dismount"
    unit: str


@dataclass(frozen=True)
class EndActivation(Action):
    """End the active formation's action phase."""

    type = "end_activation"


@dataclass(frozen=True)
class Pass(Action):
    """Decline (further) opportunity fire at the unit that just moved."""

    type = "pass"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.type: cls
    for cls in (
        Activate,
        Defer,
        Move,
        MoveHQ,
        Fire,
        Assault,
        Rally,
        Mount,
        Dismount,
        EndActivation,
        Pass,
    )
}
