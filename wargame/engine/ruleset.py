"""The rule-system protocol, the context rules act through, and the registry.

A rule system (World at War, Conflict of Heroes, Flames of War, Бронепехота) is a
class implementing :class:`Ruleset`, registered under an id that names the edition:
``waw-classic``, ``coh-2e``, ``fow-v3``, ``bronepehota-2008``.  The engine creates
one instance per game from the scenario and the map, then drives it:

1. :meth:`Ruleset.initial_state` builds the state from the scenario;
2. :meth:`Ruleset.advance` plays every automatic step (chance draws, phase
   changes, clean-up) until some side must decide or the game is over;
3. :meth:`Ruleset.current_side` / :meth:`Ruleset.legal_actions` say who decides
   and what they may do; :meth:`Ruleset.check` explains why an action is not
   allowed (raising :class:`~wargame.engine.errors.IllegalActionError`) without
   touching anything;
4. :meth:`Ruleset.apply` resolves an action, changing the state only through
   :meth:`RuleContext.emit` and rolling dice only with :attr:`RuleContext.rng`;
5. :meth:`Ruleset.outcome` is ``None`` until the game is over.

:meth:`Ruleset.view` gives one side's view of the state (hidden units removed), for
systems with hidden information.  Positions may be hex labels or free points,
units may carry facing and soldier-level models, and the state has decks and point
pools (see :mod:`wargame.engine.state`).

Rule systems register themselves with :func:`register_ruleset`; the built-in ones
are found by importing :mod:`wargame.rules` (or through the ``wargame.rulesets``
entry-point group) the first time an id is looked up, so the engine never imports
a rule system by itself.

Examples:
    >>> "waw-classic" in available_rulesets()
    True
    >>> get_ruleset("waw-classic").id
    'waw-classic'
"""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from .actions import Action, action_from_dict
from .errors import UnknownRulesetError
from .events import Event
from .present import Area, Going, Panel, PanelItem, PanelSection, Reach, UnitLook
from .state import Change, GameState, Point, Unit

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "Outcome",
    "RuleContext",
    "Ruleset",
    "RulesetBase",
    "available_rulesets",
    "get_ruleset",
    "register_ruleset",
]


@dataclass(frozen=True)
class Outcome:
    """How a game ended.

    Attributes:
        winner: the winning side id, or ``None`` for a draw.
        termination: why it ended, e.g. ``"turn limit"`` or ``"annihilation"``.
        victory_points: final victory points per side.
        turn: the turn in which it ended.
    """

    winner: str | None
    termination: str
    victory_points: Mapping[str, int] = field(default_factory=dict)
    turn: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict."""
        return {
            "winner": self.winner,
            "termination": self.termination,
            "victory_points": dict(self.victory_points),
            "turn": self.turn,
        }


class RuleContext:
    """What a rule system gets while it resolves actions: state, dice and the log.

    Rules must change the state only with :meth:`emit` (each call appends one
    :class:`~wargame.engine.events.Event` and applies its changes) and draw
    randomness only from :attr:`rng`, the game's ``numpy.random.Generator``.
    """

    __slots__ = ("_sink", "action", "action_index", "map", "rng", "state")

    def __init__(
        self,
        state: GameState,
        rng: np.random.Generator,
        game_map: Any,
        sink: Callable[[Event], None],
        action: Action | None = None,
        action_index: int = -1,
    ) -> None:
        self.state = state
        self.rng = rng
        self.map = game_map
        self.action = action
        self.action_index = action_index
        self._sink = sink

    def emit(
        self,
        kind: str,
        *,
        side: str | None = None,
        formation: str | None = None,
        unit: str | None = None,
        target: str | None = None,
        hex_from: str | None = None,
        hex_to: str | None = None,
        dice: Sequence[int] | None = None,
        needed: int | None = None,
        hits: int | None = None,
        result: str | None = None,
        detail: str = "",
        changes: Sequence[Change] = (),
        visible_to: Sequence[str] | None = None,
        point_from: Point | None = None,
        point_to: Point | None = None,
    ) -> Event:
        """Apply the changes to the state and append the event.

        The event's ``turn`` and ``phase`` are those in effect after its changes
        (so "turn 2 begins" is logged in turn 2).  ``visible_to`` names the
        sides that may see it (default: every side); say it for anything about
        a hidden unit or a secret hand.  ``point_from`` / ``point_to`` fill the
        log's ``x_from``, ``y_from``, ``x_to``, ``y_to`` columns (map metres)
        for a move or a shot between free points, as ``hex_from`` / ``hex_to``
        do on a hex map.
        """
        st = self.state
        changes = tuple(changes)
        st.apply(changes)
        ev = Event(
            st.seq + 1,
            st.turn,
            st.phase,
            side,
            formation,
            unit,
            self.action.type if self.action is not None else None,
            kind,
            target,
            hex_from,
            hex_to,
            tuple(dice) if dice is not None else None,
            needed,
            hits,
            result,
            detail,
            self.action_index,
            changes,
            None if visible_to is None else tuple(visible_to),
            None if point_from is None else point_from.x,
            None if point_from is None else point_from.y,
            None if point_to is None else point_to.x,
            None if point_to is None else point_to.y,
        )
        st.seq = ev.seq
        self._sink(ev)
        return ev

    def roll(
        self,
        n: int,
        *,
        sides: int = 6,
        needed: int | None = None,
        kind: str = "roll",
        **columns: Any,
    ) -> tuple[int, ...]:
        """Roll ``n`` dice from the game's generator and log them as one event.

        A die is ``floor(sides * u) + 1`` of one ``rng.random()`` draw (the same
        convention as :func:`wargame.rules.waw.roll_d6`).  With ``needed``, the
        event's ``hits`` counts the faces at or above it.
        """
        faces = tuple(int(u * sides) + 1 for u in self.rng.random(n).tolist())
        hits = None if needed is None else sum(1 for f in faces if f >= needed)
        self.emit(kind, dice=faces, needed=needed, hits=hits, **columns)
        return faces


@runtime_checkable
class Ruleset(Protocol):
    """A rule system bound to one scenario and map (see the module docstring).

    Class attributes: ``id`` (with the edition, e.g. ``"waw-classic"``),
    ``title``, ``positions`` (``"hex"`` or ``"point"``), and the vocabularies
    ``phases``, ``event_kinds`` and ``action_types`` (type name -> class) used for
    stable log categories and for decoding saved actions.  Optional (see
    :class:`RulesetBase`): ``scenario_keys`` and ``hex_size_m``.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    positions: ClassVar[str]
    phases: ClassVar[tuple[str, ...]]
    event_kinds: ClassVar[tuple[str, ...]]
    action_types: ClassVar[Mapping[str, type[Action]]]

    def initial_state(self) -> GameState:
        """The state before anything happened (built from the scenario)."""
        ...

    def advance(self, ctx: RuleContext) -> None:
        """Play automatic steps until a side must decide or the game is over."""
        ...

    def current_side(self, state: GameState) -> str | None:
        """The side that decides next (``None`` when the game is over)."""
        ...

    def legal_actions(self, state: GameState) -> list[Action]:
        """Every action the current side may take now."""
        ...

    def check(self, state: GameState, action: Action) -> None:
        """Raise ``IllegalActionError`` (reason in game terms) if not allowed."""
        ...

    def apply(self, ctx: RuleContext, action: Action) -> None:
        """Resolve a legal action through ``ctx`` (events and dice)."""
        ...

    def outcome(self, state: GameState) -> Outcome | None:
        """How the game ended, or ``None`` while it runs."""
        ...

    def view(self, state: GameState, side: str) -> GameState:
        """What one side may know of the state (hidden enemy units removed)."""
        ...

    def describe(self, state: GameState, action: Action) -> str:
        """The action in game terms, e.g. ``"T-72 platoon 1/74 moves to K12"``."""
        ...

    def action_from_dict(self, data: Mapping[str, Any]) -> Action:
        """Decode :meth:`Action.to_dict` output of this rule system's actions."""
        ...

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        """Extra columns for :attr:`Game.units` (column -> unit id -> value).

        One named like an engine column (``status``) replaces it; the others
        follow the engine's columns in this order.
        """
        ...

    # -- presentation and analysis hooks (wargame.engine.present) ----------- #
    def unit_look(self, state: GameState, unit: Unit) -> UnitLook:
        """How a unit is drawn: symbol, colour, state words, markers."""
        ...

    def unit_reach(self, state: GameState, unit_id: str) -> tuple[Reach, ...]:
        """Range rings of a unit in metres (weapon reach, move), longest last."""
        ...

    def unit_going(self, state: GameState, unit_id: str) -> Going | None:
        """A point unit's move allowance and going (``None``: none to show)."""
        ...

    def model_marks(
        self, state: GameState, unit: Unit
    ) -> Mapping[str, tuple[str, ...]]:
        """Markers on single models of a unit in the rule system's words (a
        tank Bailed Out), by model id; models without one are left out."""
        ...

    def map_areas(self, state: GameState) -> tuple[Area, ...]:
        """Pieces of the table the rules mark for now (smoke, templates)."""
        ...

    def sight_options(
        self, state: GameState, observer: str, target: str | None
    ) -> dict[str, Any]:
        """Keyword arguments of :meth:`~wargame.geo.maps.Map.los` for what a unit
        sees (eye and target heights, the hex rule): a unit, or a bare point."""
        ...

    def odds_table(
        self, state: GameState, shooter: str, target: str
    ) -> pd.DataFrame | None:
        """Exact odds of ``shooter`` attacking ``target``, or ``None``."""
        ...

    def panels(self, state: GameState, side: str | None) -> tuple[Panel, ...]:
        """Side panels (World at War: the chit cup) as seen by ``side``."""
        ...

    def objective_control(self, state: GameState) -> dict[str, str | None]:
        """Objective id -> the side holding it (``None``: nobody)."""
        ...

    def victory_points(self, state: GameState) -> dict[str, int]:
        """Victory points per side now."""
        ...


class RulesetBase:
    """Defaults shared by rule systems: per-side views, action decoding, names.

    Scenario validation hooks (optional for any rule system):

    * ``scenario_keys``: the scenario keys the rule system adds or plays, per
      table (``"scenario"`` for the top level, ``"units"``, ``"formations"``,
      ``"rules"``, ``"victory"``, ``"overrides"``...); with it, any other key is
      reported as unknown.  ``None`` (the default) accepts any extra key.
    * ``hex_size_m``: the only hex size the rule system plays (World at War:
      150 m), checked before any map is built, so a scenario's ``hex_size_m =
      1`` is a message rather than a map of billions of hexes; ``None`` (the
      default) plays any size the engine allows.
    * :meth:`scenario_problems`: every rule-specific problem of a scenario on
      its map, as ``<file>: <field>: <problem>`` lines.
    """

    id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    positions: ClassVar[str] = "hex"
    phases: ClassVar[tuple[str, ...]] = ()
    event_kinds: ClassVar[tuple[str, ...]] = ()
    action_types: ClassVar[Mapping[str, type[Action]]] = {}
    scenario_keys: ClassVar[Mapping[str, frozenset[str]] | None] = None
    #: The hex size (metres) scenarios of this rule system must use, or None.
    hex_size_m: ClassVar[float | None] = None
    #: The policy ``wargame run`` gives a side when none is named.
    default_policy: ClassVar[str] = "random"
    #: Whether ``wargame odds <id>`` exists (:meth:`odds_arguments`,
    #: :meth:`odds_report`).
    odds_command: ClassVar[bool] = False

    @classmethod
    def odds_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Add the options of ``wargame odds <id>`` to ``parser``."""

    @classmethod
    def odds_report(cls, args: argparse.Namespace) -> str:
        """The text ``wargame odds <id>`` prints (``ValueError``: bad option)."""
        raise ValueError(f"{cls.id} has no odds table")

    @classmethod
    def scenario_problems(cls, scenario: Any, game_map: Any) -> list[str]:
        """Rule-specific problems of a scenario (default: build it and see).

        Returns:
            One line per problem (empty when the scenario can be played).
        """
        from .errors import ScenarioError

        try:
            cls(scenario, game_map)  # type: ignore[call-arg]
        except ScenarioError as exc:
            return list(exc.problems)
        return []

    # -- secret information --------------------------------------------------- #
    #: Whether some side may not know everything (hidden units, hands, secret
    #: unit attributes).  When ``False`` a side's view is the whole state and the
    #: engine skips making views for legal actions.
    hidden_information: ClassVar[bool] = False
    #: Unit ``attrs`` only the unit's own side may see (e.g. a face-down hit
    #: marker); other sides' views lack them.
    secret_attrs: ClassVar[frozenset[str]] = frozenset()

    def deck_viewers(self, state: GameState, name: str) -> frozenset[str] | None:
        """The sides that may see a deck's contents (``None``: every side).

        Others see one ``"?"`` per item (how many cards, not which).  Default: a
        deck named ``hand:<side>`` is that side's secret hand, any other deck
        is public.
        """
        if name.startswith("hand:"):
            return frozenset({name[5:]})
        return None

    def view(self, state: GameState, side: str) -> GameState:
        """What ``side`` may know: other sides' hidden units, their secret unit
        attributes and the contents of decks it may not see are left out."""
        out = state.copy()
        if not self.hidden_information:
            return out
        units = {}
        for k, u in out.units.items():
            if u.side != side:
                if u.hidden:
                    continue
                for key in self.secret_attrs & u.attrs.keys():
                    del u.attrs[key]
            units[k] = u
        out.units = units
        for name, items in state.decks.items():
            viewers = self.deck_viewers(state, name)
            if viewers is not None and side not in viewers:
                out.decks[name] = ("?",) * len(items)
        return out

    def describe(self, state: GameState, action: Action) -> str:
        """Fallback description: the action type and its fields, in words.

        Examples:
            >>> from wargame.engine.actions import Action
            >>> from dataclasses import dataclass
            >>> @dataclass(frozen=True)
            ... class HideAction(Action):
            ...     type = "hide"
            ...     unit: str
            >>> RulesetBase().describe(None, HideAction("U1"))  # type: ignore[arg-type]
            'hide: unit U1'
        """

        def word(v: Any) -> str:
            if isinstance(v, dict) and set(v) == {"x", "y"}:
                return f"({v['x']:.1f}, {v['y']:.1f})"  # a point, in metres
            return str(v)

        parts = []
        for key, value in action.to_dict().items():
            if key == "type" or value in (None, False, []):
                continue
            name = str(key).replace("_", " ")
            if value is True:
                parts.append(name)
            elif isinstance(value, list):
                parts.append(f"{name} {' '.join(word(v) for v in value)}")
            else:
                parts.append(f"{name} {word(value)}")
        words = action.type.replace("_", " ")
        return f"{words}: {', '.join(parts)}" if parts else words

    # -- presentation and analysis hooks: defaults -------------------------- #
    def unit_look(self, state: GameState, unit: Unit) -> UnitLook:
        """Default look: the unit's ``unit_class`` attribute (else its type) as
        the symbol word, the side's colour, the strength word unless ``"full"``.

        Examples:
            >>> from wargame.engine.state import Unit
            >>> u = Unit("A1", "Rifles", "red", None, "infantry", strength="worn")
            >>> look = RulesetBase().unit_look(None, u)  # type: ignore[arg-type]
            >>> look.symbol, look.colour, look.words
            ('infantry', None, ('worn',))
        """
        words = () if unit.strength in ("full", "") else (unit.strength,)
        cls = unit.attrs.get("unit_class") or unit.type
        return UnitLook(str(cls), None, unit.type, words=words)

    def unit_reach(self, state: GameState, unit_id: str) -> tuple[Reach, ...]:
        """No range rings."""
        return ()

    def unit_going(self, state: GameState, unit_id: str) -> Going | None:
        """No move area to shade."""
        return None

    def model_marks(
        self, state: GameState, unit: Unit
    ) -> Mapping[str, tuple[str, ...]]:
        """No marker on any single model.

        Examples:
            >>> from wargame.engine.state import Unit
            >>> u = Unit("A1", "Rifles", "red", None, "infantry")
            >>> RulesetBase().model_marks(None, u)  # type: ignore[arg-type]
            {}
        """
        return {}

    def map_areas(self, state: GameState) -> tuple[Area, ...]:
        """No marked area.

        Examples:
            >>> RulesetBase().map_areas(None)  # type: ignore[arg-type]
            ()
        """
        return ()

    def sight_options(
        self, state: GameState, observer: str, target: str | None
    ) -> dict[str, Any]:
        """The map's own line of sight: the hex rule on a hex map, the free-point
        rule (no hex grid) where units stand at points.

        Examples:
            >>> RulesetBase().sight_options(None, "a", None)  # type: ignore[arg-type]
            {}
        """
        return {"hex_rule": False} if self.positions == "point" else {}

    def odds_table(
        self, state: GameState, shooter: str, target: str
    ) -> pd.DataFrame | None:
        """No odds."""
        return None

    def panels(self, state: GameState, side: str | None) -> tuple[Panel, ...]:
        """One panel listing the decks of the state (as ``side`` may see them)."""
        if not state.decks:
            return ()
        seen = state if side is None else self.view(state, side)
        owner = {f.id: f.side for f in state.formations.values()}
        sections = tuple(
            PanelSection(name, tuple(PanelItem(i, owner.get(i)) for i in items))
            for name, items in seen.decks.items()
        )
        return (Panel("Decks", sections),)

    def objective_control(self, state: GameState) -> dict[str, str | None]:
        """Who holds what: the state's ``control`` entries."""
        return dict(sorted(state.control.items()))

    def victory_points(self, state: GameState) -> dict[str, int]:
        """No victory points until the game ends (then the outcome's)."""
        return {}

    def action_from_dict(self, data: Mapping[str, Any]) -> Action:
        """Decode with :attr:`action_types`."""
        return action_from_dict(data, self.action_types)

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        """No extra unit columns."""
        return {}


# --------------------------------------------------------------------------- #
# registry                                                                    #
# --------------------------------------------------------------------------- #

_ID_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9.]+)+$")
_REGISTRY: dict[str, type[Any] | str] = {}
_DISCOVERED = False


def register_ruleset(ruleset_id: str, target: type[Any] | str) -> None:
    """Register a rule system class (or a lazy ``"module:Class"`` reference).

    The id must name the edition: ``system-edition`` such as ``waw-classic``.

    Examples:
        >>> register_ruleset("waw", "x:y")
        Traceback (most recent call last):
        ...
        ValueError: ruleset id 'waw' must name the edition, e.g. 'waw-classic'
    """
    if not _ID_RE.match(ruleset_id):
        raise ValueError(
            f"ruleset id {ruleset_id!r} must name the edition, e.g. 'waw-classic'"
        )
    _REGISTRY[ruleset_id] = target


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    from importlib.metadata import entry_points

    for ep in entry_points(group="wargame.rulesets"):
        _REGISTRY.setdefault(ep.name, ep.value)
    # The built-in rule systems register themselves in wargame/rules/__init__.py.
    importlib.import_module("wargame.rules")


def available_rulesets() -> list[str]:
    """Ids of the registered rule systems."""
    _discover()
    return sorted(_REGISTRY)


def get_ruleset(ruleset_id: str) -> type[Any]:
    """The rule-system class registered under an id.

    Raises:
        UnknownRulesetError: no such id (the message lists the known ones).
    """
    _discover()
    target = _REGISTRY.get(ruleset_id)
    if target is None:
        known = ", ".join(sorted(_REGISTRY)) or "(none)"
        raise UnknownRulesetError(f"unknown ruleset {ruleset_id!r}; available: {known}")
    if isinstance(target, str):
        module, _, name = target.partition(":")
        target = getattr(importlib.import_module(module), name)
        _REGISTRY[ruleset_id] = target
    return target
