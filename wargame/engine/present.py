"""What a rule system tells the layers above it: looks, reach, panels, odds.

The render, UI, AI, batch and command-line layers never name a rule system.  They
ask the game's :class:`~wargame.engine.Ruleset` through the small hooks below
(python-chess's ``variant.py`` is the model: one engine, small named hooks), and
draw or tabulate whatever comes back.  Every hook has a default in
:class:`~wargame.engine.RulesetBase`, so a new rule system is drawn, described
and tabulated from its first day, and can refine each hook when it needs to.

The values are plain frozen dataclasses: no widget, no HTML, no colour maths.

Examples:
    >>> look = UnitLook("armour", type_name="T-72", words=("reduced",), reduced=True)
    >>> look.colour is None, look.state_text
    (True, 'reduced')
    >>> Reach("extended range", 2550.0).metres
    2550.0
    >>> Reach("command", 250.0, around="r-hq").around
    'r-hq'
    >>> Going(150.0, {"clear": 1.0, "woods": 2.0, "water": None}).factor("woods")
    2.0
    >>> cup = Panel("Chit cup", (PanelSection("cup", (PanelItem("A/1-32", "nato"),)),))
    >>> cup.sections[0].items[0].side
    'nato'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "Area",
    "Going",
    "Panel",
    "PanelItem",
    "PanelSection",
    "Reach",
    "UnitLook",
]


@dataclass(frozen=True)
class Area:
    """A piece of the table a rule system marks for a while (a smoke screen, a
    template), drawn under the units.

    Attributes:
        label: what it is, in the rule system's words (``"smoke (2nd Mortars)"``).
        coords: its outline, ``((x, y), ...)`` in map metres (closed or not).
        kind: a word the renderer colours by (``"smoke"``, ``"template"``;
            anything else: a neutral outline).
    """

    label: str
    coords: tuple[tuple[float, float], ...]
    kind: str = "area"


@dataclass(frozen=True)
class UnitLook:
    """How a unit is drawn and named on the map.

    Attributes:
        symbol: the role of the unit, as a word the symbol renderer knows
            (``"armour"``, ``"infantry"``, ``"mech_infantry"``, ``"recon"``,
            ``"hq"``, ``"mortar"``, ``"air_defence"``, ``"helicopter"``,
            ``"anti_tank"``, ``"bridge"``...); anything else draws as unknown.
        colour: the counter's fill (CSS colour), or ``None`` for the side's
            colour.
        type_name: the unit type in words (``"T-72 platoon"``).
        nation: the nation, when the rule system has one.
        words: the unit's state in the rule system's words, in order
            (``("reduced", "disrupted", "Ops Complete")``); empty when fresh.
        markers: rule markers worth a tooltip (``"helicopter: high"``).
        reduced: draw the counter's weakened side (a band).
        suppressed: draw a suppression marker (WaW disrupted, CoH hit).
        spent: draw the unit as done for the turn (WaW Ops Complete).
        rank: stacking order in a hex, lowest on top (combat units 0, HQs 1,
            passengers 2 by convention).
    """

    symbol: str
    colour: str | None = None
    type_name: str = ""
    nation: str | None = None
    words: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    reduced: bool = False
    suppressed: bool = False
    spent: bool = False
    rank: int = 0

    @property
    def state_text(self) -> str:
        """The state words joined (``"fresh"`` when there are none)."""
        return ", ".join(self.words) or "fresh"


@dataclass(frozen=True)
class Reach:
    """A distance a unit reaches, for a range ring on the map.

    Attributes:
        label: what the ring means (``"normal range"``, ``"move"``).
        metres: its radius in map metres.
        around: the unit the ring is centred on (``None``: the unit itself); a
            command radius is drawn around the unit's HQ.
    """

    label: str
    metres: float
    around: str | None = None


@dataclass(frozen=True)
class Going:
    """What one move of a unit may spend, and what the ground costs it.

    The views shade the ground a unit may reach with it
    (:meth:`wargame.geo.maps.Map.reach_polygon`) and price a planned path
    (:meth:`wargame.geo.maps.Map.terrain_along`); the rule system's ``check``
    still decides whether a move is legal.

    Attributes:
        allowance_m: metres of clear going the move may spend.
        cost_per_class: map terrain class (``"clear"``, ``"woods"``...) ->
            metres of allowance per metre (1 = clear, 2 = half speed), ``None``
            where the unit may not go; a class not named costs 1.
        road_cost: road class -> factor on a road (overrides the ground it
            crosses), or ``None`` for no road bonus.
        label: what the shaded area is called (``"move"``, ``"dash"``).
    """

    allowance_m: float
    cost_per_class: Mapping[str, float | None]
    road_cost: Mapping[str, float] | None = None
    label: str = "move"

    def factor(self, terrain_class: str) -> float:
        """Allowance per metre on a class (``inf`` where the unit may not go)."""
        f = self.cost_per_class.get(terrain_class, 1.0)
        return math.inf if f is None else float(f)


@dataclass(frozen=True)
class PanelItem:
    """One entry of a panel: a chit, a card, a counter in a pool.

    Attributes:
        text: what is shown (``"A/1-32"``; ``"?"`` for a card not seen).
        side: the side it belongs to (its colour), if any.
        title: a longer tooltip text.
    """

    text: str
    side: str | None = None
    title: str = ""


@dataclass(frozen=True)
class PanelSection:
    """A titled row of items (the cup, a hand, the chits set aside)."""

    title: str
    items: tuple[PanelItem, ...] = ()


@dataclass(frozen=True)
class Panel:
    """A side panel of the rule system (World at War: the chit cup)."""

    title: str
    sections: tuple[PanelSection, ...] = ()
