"""The :class:`Game` facade: a scenario, a seed, a rule system and its event log.

Events are the single source of truth.  A game keeps its initial state, the list of
actions applied and the events they produced; the current state is the initial
state with every event's changes applied.  Because the dice come from a
``numpy.random.Generator`` seeded with the game seed and only the rules draw from
it, the scenario, the seed and the actions are enough to rebuild everything:
:meth:`Game.undo` and :meth:`Game.load` do exactly that.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=7)
    >>> game.current_side in game.state.sides
    True
    >>> first = game.step()                   # the side's policy plays one action
    >>> game.actions[-1] == first
    True
    >>> undone = game.undo()
    >>> game.apply(undone) and game.actions[-1] == first
    True
    >>> list(game.log.columns[:6])
    ['seq', 'turn', 'phase', 'side', 'formation', 'unit']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .actions import Action, ActionFormatError
from .errors import IllegalActionError, SaveFileError
from .events import Event, events_frame
from .policy import Decision, Policy, RandomPolicy
from .ruleset import Outcome, RuleContext, Ruleset, get_ruleset
from .scenario import Scenario, load_scenario
from .state import GameState, Point

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["SAVE_FORMAT", "SAVE_VERSION", "Game", "Listener"]

SAVE_FORMAT = "wargame-save"
#: Version 2: the state digest of ``check`` is of the state without World at
#: War's fields on the engine ``Unit`` (they are in ``attrs``).  Version-1 saves
#: still load: their replay is checked by its event count only.
SAVE_VERSION = 2

#: Called after every event with the event and the state it produced.
Listener = Callable[[Event, GameState], None]


class Game:
    """One game: build it with :meth:`from_scenario` or :meth:`load`.

    Attributes:
        scenario: the scenario.
        seed: the seed of the dice (and of :class:`RandomPolicy` by default).
        map: the map (or ``None`` for map-less rule systems).
        ruleset: the rule system bound to this scenario and map.
        policies: the policy playing each side in :meth:`step` and :meth:`run`.
    """

    def __init__(
        self,
        scenario: Scenario,
        *,
        seed: int = 0,
        policies: Mapping[str, Policy] | None = None,
        listeners: Sequence[Listener] = (),
        game_map: Any = None,
    ) -> None:
        if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a whole number >= 0, not {seed!r}")
        self.scenario = scenario
        self.seed = int(seed)
        self.map = game_map if game_map is not None else scenario.load_map()
        cls = get_ruleset(scenario.ruleset)
        self.ruleset: Ruleset = cls(scenario, self.map)
        self._listeners: list[Listener] = list(listeners)
        self.policies: dict[str, Policy] = {
            side["id"]: RandomPolicy() for side in scenario.sides
        }
        self.policies.update(policies or {})
        self._frame: tuple[int, pd.DataFrame] | None = None
        self._version = 0
        self._rebuild([])

    # -- construction ------------------------------------------------------- #
    @classmethod
    def from_scenario(
        cls,
        scenario: str | Path | Mapping[str, Any] | Scenario,
        *,
        seed: int = 0,
        policies: Mapping[str, Policy] | None = None,
        listeners: Sequence[Listener] = (),
    ) -> Game:
        """Start a game from a scenario file, a dict or a :class:`Scenario`.

        Args:
            scenario: TOML/JSON path, dict, or loaded scenario.
            seed: dice seed (an integer >= 0).
            policies: policy per side id (default: :class:`RandomPolicy`).
            listeners: callables ``(event, state)`` run after every event.
        """
        if not isinstance(scenario, Scenario):
            scenario = load_scenario(scenario)
        return cls(scenario, seed=seed, policies=policies, listeners=listeners)

    def _rebuild(self, actions: Sequence[Action], *, notify: bool = True) -> None:
        """Reset to the initial state and re-apply ``actions`` with the seed."""
        self.rng = np.random.default_rng(self.seed)
        self.state = self.ruleset.initial_state()
        self._initial = self.state.copy()
        self._events: list[Event] = []
        self._actions: list[Action] = []
        self._version += 1
        listeners = self._listeners
        if not notify:
            self._listeners = []
        try:
            self.ruleset.advance(self._context(None, -1))
            for action in actions:
                self._apply_checked(action)
        finally:
            self._listeners = listeners

    def _sink(self, event: Event) -> None:
        self._events.append(event)
        for fn in self._listeners:
            fn(event, self.state)

    def _context(self, action: Action | None, index: int) -> RuleContext:
        return RuleContext(self.state, self.rng, self.map, self._sink, action, index)

    # -- playing ------------------------------------------------------------ #
    @property
    def current_side(self) -> str | None:
        """The side to decide next (``None`` once the game is over)."""
        return None if self.is_over else self.ruleset.current_side(self.state)

    def legal_actions(self) -> list[Action]:
        """Every action the current side may take now (empty when over).

        They are found on the side's own view of the state, so that no action
        names a unit the side cannot see.
        """
        if self.is_over:
            return []
        return self.ruleset.legal_actions(self._decider_view())

    def _decider_view(self) -> GameState:
        """The state as the current side knows it (the state itself when the
        rule system hides nothing)."""
        if not getattr(self.ruleset, "hidden_information", False):
            return self.state
        side = self.ruleset.current_side(self.state)
        return self.state if side is None else self.ruleset.view(self.state, side)

    def apply(self, action: Action | Mapping[str, Any]) -> list[Event]:
        """Apply an action of the current side; return the events it produced.

        Raises:
            IllegalActionError: the rules do not allow it now (the message says
                why); the game is left exactly as it was.
        """
        if isinstance(action, Mapping):
            try:
                action = self.ruleset.action_from_dict(action)
            except ActionFormatError as exc:
                raise IllegalActionError(str(exc)) from None
        n0 = len(self._events)
        self._apply_checked(action)
        self._version += 1
        return self._events[n0:]

    def _apply_checked(self, action: Action) -> None:
        if self.is_over:
            raise IllegalActionError("the game is over")
        # Checked on the deciding side's view: an action naming a unit it cannot
        # see is refused exactly as one naming a unit that does not exist.
        self.ruleset.check(self._decider_view(), action)
        index = len(self._actions)
        try:
            ctx = self._context(action, index)
            self.ruleset.apply(ctx, action)
            ctx.action = None
            self.ruleset.advance(ctx)
        except BaseException:
            # The rules failed half-way: put the game back as it was.
            self._rebuild(self._actions, notify=False)
            raise
        self._actions.append(action)

    def step(self) -> Action | None:
        """Let the current side's policy choose and apply one action.

        Returns:
            The action applied, or ``None`` if the game is over.
        """
        side = self.current_side
        if side is None:
            return None
        actions = self.legal_actions()
        decision = Decision(
            side=side,
            legal_actions=actions,
            number=len(self._actions),
            seed=self.seed,
            view=lambda: self.ruleset.view(self.state, side),
            rules=self.ruleset,
        )
        action = self.policies[side].choose(decision)
        self.apply(action)
        return action  # type: ignore[no-any-return]

    def run(
        self, turns: int | None = None, *, max_actions: int = 1_000_000
    ) -> Outcome | None:
        """Step until the game is over (or ``turns`` more turns have begun).

        Returns:
            The outcome, or ``None`` if stopped before the end.
        """
        stop = None if turns is None else self.state.turn + turns
        for _ in range(max_actions):
            if self.is_over or (stop is not None and self.state.turn >= stop):
                return self.outcome
            self.step()
        raise RuntimeError(f"no end after {max_actions} actions; a policy loops?")

    def undo(self) -> Action:
        """Take back the last action (and everything that followed from it).

        Returns:
            The action taken back (apply it again to redo).

        Raises:
            IndexError: nothing to undo.
        """
        if not self._actions:
            raise IndexError("nothing to undo: no action has been applied")
        last = self._actions[-1]
        self._rebuild(self._actions[:-1], notify=False)
        return last

    # -- results ------------------------------------------------------------ #
    @property
    def actions(self) -> tuple[Action, ...]:
        """The actions applied so far."""
        return tuple(self._actions)

    @property
    def events(self) -> tuple[Event, ...]:
        """The events so far (the log as objects)."""
        return tuple(self._events)

    @property
    def initial_state(self) -> GameState:
        """A copy of the state before any event."""
        return self._initial.copy()

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.ruleset.outcome(self.state) is not None

    @property
    def outcome(self) -> Outcome | None:
        """Winner, termination and victory points, or ``None`` while running."""
        return self.ruleset.outcome(self.state)

    @property
    def log(self) -> pd.DataFrame:
        """Every event as a DataFrame (columns :data:`~wargame.engine.LOG_COLUMNS`)."""
        if self._frame is None or self._frame[0] != self._version:
            self._frame = (self._version, self._frame_of(self._events))
        return self._frame[1].copy()

    def _frame_of(self, events: Sequence[Event]) -> pd.DataFrame:
        cats = {
            "phase": self.ruleset.phases,
            "side": [s["id"] for s in self.scenario.sides],
            "formation": [f["id"] for f in self.scenario.formations],
            "action": tuple(self.ruleset.action_types),
            "kind": self.ruleset.event_kinds,
        }
        return events_frame(events, categories=cats)

    @property
    def units(self) -> pd.DataFrame:
        """Current units, one row per unit (index ``unit``).

        Engine columns: ``name``, ``side``, ``formation``, ``type``, ``hex``, ``x``,
        ``y``, ``strength``, ``facing``, ``hidden`` and ``status`` (``"destroyed"``
        or ``"ok"``), then the rule system's :meth:`~.ruleset.Ruleset.unit_columns`
        (World at War: ``disrupted``, ``ops_complete``, ``carried_by``, a
        ``status`` that also says ``"disrupted"``, ``unit_class``...).
        """
        import pandas as pd

        rows = []
        for u in self.state.units.values():
            pos = u.position
            rows.append(
                {
                    "unit": u.id,
                    "name": u.name,
                    "side": u.side,
                    "formation": u.formation,
                    "type": u.type,
                    "hex": pos if isinstance(pos, str) else None,
                    "x": pos.x if isinstance(pos, Point) else np.nan,
                    "y": pos.y if isinstance(pos, Point) else np.nan,
                    "strength": u.strength,
                    "facing": u.facing,
                    "hidden": u.hidden,
                    "status": "destroyed" if u.destroyed else "ok",
                }
            )
        df = pd.DataFrame(rows).set_index("unit")
        # the rule system's columns: an engine column of the same name (e.g.
        # ``status``) is replaced in place, the others follow in the hook's order;
        # a column of only true/false values is boolean, the others are objects
        for col, values in self.ruleset.unit_columns(self.state).items():
            column = pd.Series(values, dtype=object).reindex(df.index)
            if len(column) and all(isinstance(v, bool) for v in column):
                column = column.astype(bool)
            df[col] = column
        for col in ("side", "formation", "strength", "status"):
            df[col] = df[col].astype("category")
        return df

    def state_for(self, side: str) -> GameState:
        """One side's view of the current state (hidden enemy units removed)."""
        self._known_side(side)
        return self.ruleset.view(self.state, side)

    def _known_side(self, side: str) -> None:
        if side not in self.state.sides:
            raise ValueError(f"unknown side {side!r}; sides: {list(self.state.sides)}")

    def events_for(self, side: str | None) -> tuple[Event, ...]:
        """The events ``side`` may see (``None``: the umpire's, every event)."""
        if side is None:
            return self.events
        self._known_side(side)
        return tuple(e for e in self._events if e.visible(side))

    def log_for(self, side: str | None) -> pd.DataFrame:
        """The log as ``side`` may see it (``None``: the umpire's whole log).

        Same columns and categories as :attr:`log`; events about what the side
        may not know (a hidden unit's moves, the other side's cards) are left
        out.  Saves always keep everything.
        """
        if side is None:
            return self.log
        return self._frame_of(self.events_for(side))

    def describe(self, action: Action) -> str:
        """An action in game terms."""
        return self.ruleset.describe(self.state, action)

    def view(self, **kwargs: Any) -> Any:
        """The game on an interactive map (:class:`wargame.ui.GameView`)."""
        from wargame.ui import GameView  # the engine never imports ui at load time

        return GameView(self, **kwargs)

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(event, state)`` after every future event."""
        self._listeners.append(listener)

    def replay(
        self, side: str | None = None
    ) -> Iterator[tuple[Event, GameState]]:
        """The states of this game event by event: ``(event, state after it)``.

        Rebuilt from the initial state and the events' changes only (no rules,
        no dice); each state yielded is an independent copy.  With ``side``, only
        the events that side may see, each with the side's view of the state.
        """
        if side is not None:
            self._known_side(side)
        state = self._initial.copy()
        for event in list(self._events):
            state.apply(event.changes)
            state.seq = event.seq
            if side is None:
                yield event, state.copy()
            elif event.visible(side):
                yield event, self.ruleset.view(state, side)

    # -- saving ------------------------------------------------------------- #
    def save(self, path: str | Path) -> Path:
        """Write a versioned JSON save (scenario, seed and actions).

        Returns:
            The path written.
        """
        from wargame import __version__

        path = Path(path)
        data = {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "wargame": __version__,
            "ruleset": self.scenario.ruleset,
            "seed": self.seed,
            "scenario_source": self.scenario.source,
            "scenario": self.scenario.to_dict(),
            "actions": [a.to_dict() for a in self._actions],
            "check": {"events": len(self._events), "state": self.state.digest()},
        }
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        policies: Mapping[str, Policy] | None = None,
        listeners: Sequence[Listener] = (),
    ) -> Game:
        """Load a save written by :meth:`save` and replay it to the same state.

        Raises:
            SaveFileError: the file is missing, not a wargame save, from a newer
                format, damaged, or does not replay (the message names the file
                and the problem).
        """
        path = Path(path)

        def fail(problem: str) -> SaveFileError:
            return SaveFileError(f"save file {path}: {problem}")

        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise fail("no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise fail(f"cannot be read ({exc})") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise fail(f"is not a wargame save (not valid JSON: {exc})") from None
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise fail(f'is not a wargame save (no "format": "{SAVE_FORMAT}")')
        version = data.get("version")
        if not isinstance(version, int) or version < 1:
            raise fail(f"has a bad format version {version!r}")
        if version > SAVE_VERSION:
            raise fail(
                f"uses save format version {version}, newer than this wargame "
                f"supports ({SAVE_VERSION}); upgrade wargame"
            )
        seed = data.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise fail(f"field 'seed' must be a whole number >= 0, not {seed!r}")
        if not isinstance(data.get("scenario"), dict):
            raise fail("field 'scenario' is missing or not a table")
        actions = data.get("actions")
        if not isinstance(actions, list):
            raise fail("field 'actions' is missing or not a list")
        try:
            scenario = load_scenario(data["scenario"])
        except ValueError as exc:
            raise fail(f"the stored scenario is invalid: {exc}") from None
        scenario = Scenario(scenario.data, str(data.get("scenario_source", path)))
        if data.get("ruleset", scenario.ruleset) != scenario.ruleset:
            raise fail(
                f"ruleset {data.get('ruleset')!r} does not match the scenario's "
                f"{scenario.ruleset!r}"
            )
        try:
            game = cls(scenario, seed=seed, policies=policies)
        except ValueError as exc:
            raise fail(str(exc)) from None
        decoded: list[Action] = []
        for i, raw in enumerate(actions):
            try:
                decoded.append(game.ruleset.action_from_dict(raw))
            except ActionFormatError as exc:
                raise fail(f"action #{i} is not a valid action: {exc}") from None
        for i, action in enumerate(decoded):
            try:
                game._apply_checked(action)
            except IllegalActionError as exc:
                raise fail(
                    f"action #{i} ({action.to_dict()}) does not replay: {exc}; "
                    "the file is damaged or was written by another version"
                ) from None
        check = data.get("check")
        if isinstance(check, dict):
            events = check.get("events")
            if events is not None and events != len(game._events):
                raise fail(
                    f"replaying the actions gives {len(game._events)} events, the "
                    f"save has {events!r}; the file is damaged or was written by "
                    "another version"
                )
            # Version 1 digested another state layout (World at War's disrupted,
            # ops_complete and carried_by were engine Unit fields; they are in
            # Unit.attrs since version 2): that digest cannot be reproduced, so a
            # version-1 save is checked by its event count alone.
            if version >= 2 and check.get("state") not in (None, game.state.digest()):
                raise fail(
                    "replaying the actions does not give the saved state (checksum "
                    "mismatch); the file is damaged or was written by another "
                    "version"
                )
        game._version += 1
        for fn in listeners:
            game.add_listener(fn)
        return game

    def __repr__(self) -> str:
        out = self.outcome
        status = f"over: {out.winner or 'draw'}" if out else f"turn {self.state.turn}"
        return (
            f"<Game {self.scenario.id!r} ({self.scenario.ruleset}) seed={self.seed} "
            f"{status}, {len(self._actions)} actions, {len(self._events)} events>"
        )
