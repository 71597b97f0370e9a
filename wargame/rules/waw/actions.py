"""World at War (classic) actions: the decisions a player makes.

Sequence of play (WaW Operations phase): when one of your formation chits is
drawn, :class:`Activate` or :class:`Defer` it.  During the formation's action
phase, each of its units may act once - :class:`Move` hex by hex (then possibly
fire on the move or assault), :class:`Fire`, :class:`Assault`, :class:`Rally`,
:class:`Mount` / :class:`Dismount`, or an HQ's :class:`MoveHQ` - and the
formation's owner ends the phase with :class:`EndActivation`.  When an enemy
unit moves in sight and range, the other side may take opportunity :class:`Fire`
or :class:`Pass`.  In the Clean-up phase the owner of a destroyed HQ chooses
where it comes back (:class:`ReplaceHQ`, WaW 1.3.3.3).

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
    "CallSupport",
    "Defer",
    "Dismount",
    "EndActivation",
    "Fire",
    "Hide",
    "HoldSupport",
    "IndirectFire",
    "LayBridge",
    "Mount",
    "Move",
    "MoveHQ",
    "Pass",
    "Rally",
    "RecoverBridge",
    "RemoveSW",
    "ReplaceHQ",
    "SetMode",
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
    """Move an HQ on its own to another friendly stack (WaW HQ movement).

    ``path``: the hexes the HQ enters, in order, from its first step to ``to``
    (included; its own start hex is not part of it), or ``None`` for the
    cheapest path (ties by label order).  The path sets the risk roll's -1/-2
    (enemy LOS and range on the hexes between start and end).

    Examples:
        >>> MoveHQ("A-HQ", "L17", ("M18", "L17")).to_dict()
        {'type': 'move_hq', 'hq': 'A-HQ', 'to': 'L17', 'path': ['M18', 'L17']}
        >>> MoveHQ("A-HQ", "L17").path is None  # the cheapest path
        True
    """

    type = "move_hq"
    hq: str
    to: str
    path: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Fire(Action):
    """Ranged fire (WaW 6.1) or opportunity fire (6.2) with AP, HE or AA.

    ``sw_target``: an infantry platoon fires its support weapon in the same
    action at this target (the same or another unit, WaW 6.1 / 1.3.5), in its
    formation's action phase only; left empty, the SW is lost for that phase
    (the platoon is then Ops Complete).  An infantry SW never fires alone;
    ``weapon="sw"`` is a tank firing its ATGM instead of its gun.
    """

    type = "fire"
    unit: str
    target: str
    weapon: str
    with_hq: bool = False
    sw_target: str | None = None


@dataclass(frozen=True)
class IndirectFire(Action):
    """A mortar fires at a hex out of its own sight, seen by a spotter (1.3.4.3).

    ``spotter``: a friendly HQ or recon unit with the hex in its line of sight.
    """

    type = "indirect_fire"
    unit: str
    hex: str
    spotter: str


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
class CallSupport(Action):
    """Call the drawn off-map fire support chit on a hex (WaW 1.7 chits).

    ``spotter``: a friendly HQ or recon unit that sees the hex (1.3.4.4);
    ``smoke``: artillery fires smoke instead of HE.
    """

    type = "call_support"
    support: str
    hex: str
    spotter: str
    smoke: bool = False


@dataclass(frozen=True)
class HoldSupport(Action):
    """Let the drawn fire support chit go unused this turn."""

    type = "hold_support"
    support: str


@dataclass(frozen=True)
class LayBridge(Action):
    """An MTU-55 in a river or stream hex lays its bridge (2 MP)."""

    type = "lay_bridge"
    unit: str


@dataclass(frozen=True)
class RecoverBridge(Action):
    """An MTU-55 takes its bridge up again (2 MP); it may then move on."""

    type = "recover_bridge"
    unit: str


@dataclass(frozen=True)
class Hide(Action):
    """A unit in cover hides (WaW 6.1.5): an extra defence die until it acts."""

    type = "hide"
    unit: str


@dataclass(frozen=True)
class SetMode(Action):
    """A helicopter turns its counter to ``"low"`` or ``"high"`` mode (WaW 9.0)."""

    type = "set_mode"
    unit: str
    mode: str


@dataclass(frozen=True)
class ReplaceHQ(Action):
    """Place a destroyed HQ, reduced, in ``hex`` (WaW 1.3.3.3, Clean-up phase).

    The hex must hold a unit of the HQ's formation of the matching type and no
    other HQ; the owner chooses when there are several such hexes.

    Examples:
        >>> ReplaceHQ("SU-HQ", "Z9").to_dict()
        {'type': 'replace_hq', 'hq': 'SU-HQ', 'hex': 'Z9'}
    """

    type = "replace_hq"
    hq: str
    hex: str


@dataclass(frozen=True)
class RemoveSW(Action):
    """Remove the enemy's unplaced support weapon carried by ``unit`` (WaW 1.3.5).

    Offered when an enemy infantry platoon's loss roll failed: the side that
    destroyed it chooses which unplaced SW of the enemy is lost.

    Examples:
        >>> RemoveSW("SU-INF1").to_dict()
        {'type': 'remove_sw', 'unit': 'SU-INF1'}
    """

    type = "remove_sw"
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
        IndirectFire,
        Assault,
        Rally,
        Mount,
        Dismount,
        SetMode,
        Hide,
        CallSupport,
        HoldSupport,
        LayBridge,
        RecoverBridge,
        ReplaceHQ,
        RemoveSW,
        EndActivation,
        Pass,
    )
}
