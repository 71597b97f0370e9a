"""Conflict of Heroes 2nd edition actions: one action per turn (CoH 2e §2.2).

Turns alternate one action at a time.  Each action names how it is paid
(``pay``, CoH 2e §2.2 and §3.0-3.2, seed 003 §9.2):

* ``"ap"``: a unit (AP) action out of the side's one 7 AP pool.  A fresh unit
  acting this way is activated; with a pool already open it joins the shared
  activation (seed 003 §9.0).  CAPs top up a pool that is short (§3.2);
* ``"opportunity"``: fresh, non-activated units take one action free, then are
  spent (§3.1; group opportunity actions, seed 003 §9.2);
* ``"command"``: any units, paid wholly in CAPs, status unchanged (§3.2);
* ``"card"``: the one action a Command Action card (#2) grants, at no cost,
  status unchanged (S1 card list; seed 003 §8.1, :mod:`.card_play`).

Every action that several units take together lists them in ``units``: the
first is the fire leader of a firegroup (seed 003 §9.12).

Examples:
    >>> Move(("de-rifles-1",), ("G9",)).to_dict()["to"]
    ['G9']
    >>> Fire(("de-hmg", "de-rifles-1"), "H12", caps=1).type
    'fire'
"""

from __future__ import annotations

from dataclasses import dataclass

from wargame.engine import Action

__all__ = [
    "ACTION_TYPES",
    "PAY_MODES",
    "Fire",
    "Flame",
    "HastyDefence",
    "Hide",
    "IndirectFire",
    "InitiativeBid",
    "KeepRoll",
    "Load",
    "Move",
    "Pass",
    "Pivot",
    "PlayCard",
    "PlotArtillery",
    "Rally",
    "SmokeFire",
    "Spend",
    "Stall",
    "Unload",
]

#: How an action is paid (module docstring).
PAY_MODES = ("ap", "opportunity", "command", "card")


@dataclass(frozen=True)
class Move(Action):
    """Units move one hex (CoH 2e §5.0; a group move, seed 003 §9.11).

    ``to``: one hex for all the units, or one hex per unit (a group move whose
    units go to different hexes, seed 003 Figure 14).  ``facing``: the hexside
    faced on arrival (free after entering a hex, §5.1);
    ``None`` faces the way moved, or keeps the facing on a backwards move
    (§5.2).  ``hidden``: a hidden unit's hidden move (seed 003 §10.1).
    Entering an enemy hex starts close combat (§7.7.3).  ``then``: the hexes a
    single vehicle goes on to with its bonus moves, free, in the same action
    (§14.1).
    """

    type = "move"
    units: tuple[str, ...]
    to: tuple[str, ...]
    pay: str = "ap"
    facing: int | None = None
    hidden: bool = False
    then: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pivot(Action):
    """Units turn in place to face another hexside (CoH 2e §5.3: 1 AP)."""

    type = "pivot"
    units: tuple[str, ...]
    facing: int
    pay: str = "ap"


@dataclass(frozen=True)
class Fire(Action):
    """Fire at one hex (CoH 2e §7.0; a firegroup, seed 003 §9.12).

    ``units[0]`` is the fire leader, the others support it.  Every unit in the
    hex is rolled against (§7.5.1), hidden ones included whether or not the
    firer knows they are there (seed 003 §10.0 #3).  ``caps``: CAPs added to
    each attack roll, declared before rolling (§3.2, at most 2).  ``card``: a
    bonus card from the hand played with the fire, not an action of its own
    (CoH 2e §8.2): only ``"careful_aiming"`` (+2 FP, card #9).
    """

    type = "fire"
    units: tuple[str, ...]
    hex: str
    pay: str = "ap"
    caps: int = 0
    card: str | None = None


@dataclass(frozen=True)
class IndirectFire(Action):
    """A mortar with an indirect fire cost fires at a hex through a spotting
    hex (CoH 2e §12.0): ``spotter`` ``None`` takes the best one (the highest,
    then the least smoke on its line, then the nearest, then by label).
    ``card``: a bonus card played with it, as with :class:`Fire`."""

    type = "indirect_fire"
    units: tuple[str, ...]
    hex: str
    spotter: str | None = None
    pay: str = "ap"
    caps: int = 0
    card: str | None = None


@dataclass(frozen=True)
class SmokeFire(Action):
    """Fire +2 smoke at a hex (CoH 2e §13.1): a mortar of 8 cm or more
    directly, or indirectly through ``spotter`` (``None``: directly when the
    hex is in sight, else through the best spotting hex); pioneers into their
    own or an adjacent hex for 2 AP (§19.0)."""

    type = "smoke_fire"
    units: tuple[str, ...]
    hex: str
    pay: str = "ap"
    spotter: str | None = None


@dataclass(frozen=True)
class Flame(Action):
    """Fire a flamethrower at the own or an adjacent hex (CoH 2e §19.1).
    ``card``: a bonus card played with it, as with :class:`Fire`."""

    type = "flame"
    units: tuple[str, ...]
    hex: str
    pay: str = "ap"
    caps: int = 0
    card: str | None = None


@dataclass(frozen=True)
class HastyDefence(Action):
    """Foot units prepare hasty defences: 7 AP, +1 DM all round until the unit
    moves or pivots (CoH 2e §18.1.3; a group action, seed 003 §9.2)."""

    type = "hasty_defence"
    units: tuple[str, ...]
    pay: str = "ap"


@dataclass(frozen=True)
class Rally(Action):
    """Units try to remove their hit markers (CoH 2e §7.6: 5 AP; group rally,
    seed 003 §9.13: each rolls)."""

    type = "rally"
    units: tuple[str, ...]
    pay: str = "ap"


@dataclass(frozen=True)
class Hide(Action):
    """Un-hit squads out of enemy LOS hide again, within one hex (seed 003
    §10.2: 7 AP; as a group with the group action rules)."""

    type = "hide"
    units: tuple[str, ...]
    to: str
    pay: str = "ap"


@dataclass(frozen=True)
class Load(Action):
    """Units mount a vehicle in their hex (CoH 2e §17.0): ``units[0]`` is the
    vehicle, the others get on (one foot unit or one gun; a German Rifle and
    an LMG together) or, an immobilised or stunned vehicle, are taken in tow
    (§14.5).  A group action costing the loading units' open-ground move cost.
    """

    type = "load"
    units: tuple[str, ...]
    pay: str = "ap"


@dataclass(frozen=True)
class Unload(Action):
    """Units get off their vehicle ``units[0]`` into its hex (CoH 2e §17.0): a
    group action costing their open-ground move cost.  ``facing``: the hexside
    they face (``None``: the vehicle's)."""

    type = "unload"
    units: tuple[str, ...]
    pay: str = "ap"
    facing: int | None = None


@dataclass(frozen=True)
class Stall(Action):
    """Spend 1 AP (or 1 CAP with ``pay="command"``) and do nothing (§2.2)."""

    type = "stall"
    pay: str = "ap"


@dataclass(frozen=True)
class Pass(Action):
    """Pass the turn: free; an activated pool with APs left is lost (§2.2).
    Two passes in a row end the round (§2.3)."""

    type = "pass"


@dataclass(frozen=True)
class Spend(Action):
    """Mark the activated units spent and lose the pool's APs, so that another
    unit may be activated this turn (activation is not an action, §3.0)."""

    type = "spend"


@dataclass(frozen=True)
class InitiativeBid(Action):
    """CAPs (0-2) added to this side's initiative roll, announced before the
    dice (CoH 2e §2.1)."""

    type = "initiative_bid"
    caps: int = 0


@dataclass(frozen=True)
class PlayCard(Action):
    """Play a card from the hand (seed 003 §8) on ``units`` (may be empty),
    with ``hex`` where the card needs a target hex.  Fresh units acting through
    a card stay fresh (§8.1).  ``pay``: how a card with a cost is paid,
    ``"command"`` (CAPs) or ``"ap"`` (the activation pool, CAPs topping it up);
    ``None`` pays as the card's cost icon says, CAPs for a split icon
    (:mod:`.card_play`)."""

    type = "play_card"
    card: str
    units: tuple[str, ...] = ()
    hex: str | None = None
    pay: str | None = None


@dataclass(frozen=True)
class KeepRoll(Action):
    """Let the waiting rolls stand: play no Luck! card on them (card #12,
    :mod:`.luck`).  Offered in every Luck window, whatever the hand holds."""

    type = "keep_roll"


@dataclass(frozen=True)
class PlotArtillery(Action):
    """Write down the off-board artillery's target hex for the next pre-round
    (CoH 2e §12.3); ``hex`` ``None``: no strike plotted this round."""

    type = "plot_artillery"
    hex: str | None = None
    smoke: bool = False


ACTION_TYPES: dict[str, type[Action]] = {
    c.type: c
    for c in (
        Move,
        Pivot,
        Fire,
        Rally,
        Hide,
        Stall,
        Pass,
        Spend,
        InitiativeBid,
        PlayCard,
        IndirectFire,
        SmokeFire,
        Flame,
        HastyDefence,
        Load,
        Unload,
        PlotArtillery,
        KeepRoll,
    )
}
