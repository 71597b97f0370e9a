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

Save files (:meth:`Game.save`, :meth:`Game.load`) are JSON tables with the fields
of :data:`SAVE_FIELDS` plus, from version 3, ``digest``: the SHA-256 of the
canonical JSON (``sort_keys``, no spaces) of each of those fields.  It covers
everything that decides the game (the stored scenario, the seed, the rule system,
the actions, and ``check``: the event count and the state digest the replay must
reach), so an edited objective's VP or turn count is refused, naming the field.
Only version-3 saves cover the stored scenario: versions 1 and 2 (written before
the digest) still load, with their ``check`` required and compared (version 1:
its event count only, see :data:`SAVE_VERSION`), but an edit of their stored
scenario that keeps it valid cannot be detected.  Every refusal is a
:class:`~wargame.engine.SaveFileError` of one line,
``save file <path>: <field>: <problem>; <fix>``; nothing is built, changed or
registered by a save that is refused.

    >>> import tempfile, pathlib
    >>> path = game.save(pathlib.Path(tempfile.mkdtemp()) / "g.json")
    >>> Game.load(path).state.digest() == game.state.digest()
    True
    >>> sorted(json.loads(path.read_text())["digest"]) == sorted(SAVE_FIELDS)
    True
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .actions import Action, ActionFormatError
from .errors import IllegalActionError, SaveFileError
from .events import Event, events_frame
from .files import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    InputFileError,
    parse_json,
    path_text,
    read_limited,
    write_atomic,
)
from .policy import Decision, Policy, RandomPolicy
from .ruleset import Outcome, RuleContext, Ruleset, get_ruleset
from .scenario import Scenario, load_scenario, shown
from .state import GameState, Point

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "SAVE_FIELDS",
    "SAVE_FORMAT",
    "SAVE_MAX_BYTES",
    "SAVE_VERSION",
    "Game",
    "Listener",
]

SAVE_FORMAT = "wargame-save"
#: Version 3: a required ``digest`` of every field (the stored scenario included).
#: Version 2: the state digest of ``check`` is of the state without World at
#: War's fields on the engine ``Unit`` (they are in ``attrs``).  Version-1 saves
#: still load: their replay is checked by its event count only.
SAVE_VERSION = 3
#: The fields of every save, in the order written (all required, in every
#: version: every writer since version 1 wrote all of them); version 3 adds
#: ``digest``, a table of the SHA-256 of each of these.
SAVE_FIELDS = (
    "format",
    "version",
    "wargame",
    "ruleset",
    "seed",
    "scenario_source",
    "scenario",
    "actions",
    "check",
)
#: The largest save read: the engine's file limit (64 MiB); a 1,000-action save
#: is ~200 kB, so this refuses a wrong file (``/dev/zero``, a disk image) at once.
SAVE_MAX_BYTES = MAX_FILE_BYTES
#: The deepest nesting read: a stored scenario's limit plus the save's own table.
_SAVE_MAX_DEPTH = MAX_DEPTH + 1
#: Values are shown in messages up to this many characters (a 1 MB value is cut).
_SHOW_CHARS = 60
_HEX64 = re.compile(r"[0-9a-f]{64}")
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.-]{1,40}")
_PART_NAMES = {
    "format": "the format",
    "version": "the version",
    "wargame": "the wargame version",
    "ruleset": "the rule system",
    "seed": "the seed",
    "scenario_source": "the scenario source",
    "scenario": "the stored scenario",
    "actions": "the actions",
    "check": "the check (event count or state digest)",
}
_DAMAGED = "the file is damaged or was edited; use an unedited copy of the save"

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
            raise ValueError(
                f"Game: seed: must be a whole number >= 0, not {shown(seed)}"
            )
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
        action = self._decoded(action, "Game.apply")
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
        if turns is not None and (
            not isinstance(turns, int) or isinstance(turns, bool) or turns < 0
        ):
            raise ValueError(
                f"Game.run: turns: must be a whole number >= 0 or None, not "
                f"{shown(turns)}"
            )
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
        return events_frame(events)

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
        columns = ["unit", "name", "side", "formation", "type", "hex", "x", "y"]
        columns += ["strength", "facing", "hidden", "status"]
        # columns named: a scenario with no units gives an empty frame, not a
        # KeyError
        df = pd.DataFrame(rows, columns=columns).set_index("unit")
        # the rule system's columns: an engine column of the same name (e.g.
        # ``status``) is replaced in place, the others follow in the hook's order;
        # a column of only true/false values is boolean, the others are objects
        for col, values in self.ruleset.unit_columns(self.state).items():
            column = pd.Series(values, dtype=object).reindex(df.index)
            if len(column) and all(isinstance(v, bool) for v in column):
                column = column.astype(bool)
            df[col] = column
        # one missing-value convention, pd.NA: text columns are pandas strings,
        # numbers nullable floats, other objects hold pd.NA where missing
        for col in df.columns:
            c = df[col]
            if c.dtype == bool:
                continue
            present = [v for v in c if v is not None and v == v]
            if c.dtype.kind == "f" or (
                present
                and all(
                    isinstance(v, int | float) and not isinstance(v, bool)
                    for v in present
                )
            ):
                df[col] = pd.array(
                    [pd.NA if v is None or v != v else float(v) for v in c],
                    dtype="Float64",
                )
            elif present and all(isinstance(v, str) for v in present):
                df[col] = pd.array(
                    [pd.NA if v is None else v for v in c], dtype="string"
                )
            else:
                df[col] = pd.Series(
                    [pd.NA if v is None else v for v in c], index=df.index, dtype=object
                )
        return df

    @property
    def models(self) -> pd.DataFrame:
        """The models (teams, soldiers) of the units in play, one row each, with
        their points, facing and base radius
        (:func:`wargame.engine.points.models_frame`)."""
        from .points import models_frame

        return models_frame(self.state)

    def state_for(self, side: str) -> GameState:
        """One side's view of the current state (hidden enemy units removed)."""
        self._known_side(side, "Game.state_for")
        return self.ruleset.view(self.state, side)

    def _known_side(self, side: str, fn: str = "Game") -> None:
        if not isinstance(side, str) or side not in self.state.sides:
            raise ValueError(
                f"{fn}: side: unknown side {shown(side)}; give one of "
                f"{list(self.state.sides)} (or None: the umpire's view)"
            )

    def events_for(self, side: str | None) -> tuple[Event, ...]:
        """The events ``side`` may see (``None``: the umpire's, every event)."""
        if side is None:
            return self.events
        self._known_side(side, "Game.events_for")
        return tuple(e for e in self._events if e.visible(side))

    def log_for(self, side: str | None) -> pd.DataFrame:
        """The log as ``side`` may see it (``None``: the umpire's whole log).

        Same columns and categories as :attr:`log`; events about what the side
        may not know (a hidden unit's moves, the other side's cards) are left
        out.  Saves always keep everything.
        """
        if side is None:
            return self.log
        self._known_side(side, "Game.log_for")
        return self._frame_of(self.events_for(side))

    def describe(self, action: Action) -> str:
        """An action in game terms.

        Raises:
            IllegalActionError: ``action`` is not a well-formed action of this
                rule system (checked as :meth:`apply` checks it).
        """
        return self.ruleset.describe(self.state, self._decoded(action, "Game.describe"))

    def _decoded(self, action: Any, fn: str) -> Action:
        """``action`` (an Action or its ``to_dict()``) checked as a save decodes
        it: field types and sizes; so whatever is applied can be saved."""
        if not isinstance(action, Mapping | Action):
            raise IllegalActionError(
                f"{fn}: action: {shown(action)} is not an action; give an "
                "Action or its to_dict() table"
            )
        try:
            raw = action if isinstance(action, Mapping) else action.to_dict()
            return self.ruleset.action_from_dict(raw)
        except ActionFormatError as exc:
            raise IllegalActionError(f"{fn}: action: {exc}") from None

    def view(self, **kwargs: Any) -> Any:
        """The game on an interactive map (:class:`wargame.ui.GameView`)."""
        from wargame.ui import GameView  # the engine never imports ui at load time

        return GameView(self, **kwargs)

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(event, state)`` after every future event."""
        self._listeners.append(listener)

    def replay(self, side: str | None = None) -> Iterator[tuple[Event, GameState]]:
        """The states of this game event by event: ``(event, state after it)``.

        Rebuilt from the initial state and the events' changes only (no rules,
        no dice); each state yielded is an independent copy.  With ``side``, only
        the events that side may see, each with the side's view of the state.
        """
        if side is not None:
            self._known_side(side, "Game.replay")
        state = self._initial.copy()
        for event in list(self._events):
            state.apply(event.changes)
            state.seq = event.seq
            if side is None:
                yield event, state.copy()
            elif event.visible(side):
                yield event, self.ruleset.view(state, side)

    # -- saving ------------------------------------------------------------- #
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write a versioned JSON save (scenario, seed, actions, check, digest).

        The file is written atomically (a temporary file in the same folder,
        renamed over ``path``): a full disk or a read-only folder leaves the old
        file, or none, and no temporary file.

        Returns:
            The path written.

        Raises:
            SaveFileError: the file cannot be written (the message names the
                path, the reason and the fix; the ``OSError`` is its
                ``__cause__``).
        """
        from wargame import __version__

        if not isinstance(path, str | os.PathLike):
            raise SaveFileError(
                f"Game.save: path: must be a file path (str or os.PathLike), not "
                f"{_show(path)}; give the path of the save file to write"
            )
        path = Path(path)
        body = {
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
        # Digest what a reader will parse (tuples become lists, and so on).
        data = json.loads(json.dumps(body))
        data["digest"] = _field_digests(data)
        text = json.dumps(data, indent=1) + "\n"
        try:
            write_atomic(path, text.encode("utf-8"))
        except OSError as exc:
            raise SaveFileError(
                f"save file {path_text(path)}: cannot be written "
                f"({exc.strerror or exc}); "
                "choose an existing folder you may write to, on a disk with room"
            ) from exc
        return path

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        policies: Mapping[str, Policy] | None = None,
        listeners: Sequence[Listener] = (),
    ) -> Game:
        """Load a save written by :meth:`save` and replay it to the same state.

        The file is read with a size limit (:data:`SAVE_MAX_BYTES`; a device or
        FIFO is refused at once), every field is checked, a version-3 save's
        digest is compared before anything is built, and the replay must reach
        the saved event count and state digest.

        Raises:
            SaveFileError: the file is missing, not a regular file, too large,
                not a wargame save, from a newer format, has a missing, unknown
                or bad field, was edited after saving (digest mismatch), or does
                not replay; one line ``save file <path>: <field>: <problem>;
                <fix>``.  Nothing is left half-built and nothing global changes.

        Examples:
            >>> Game.load("/dev/null")
            Traceback (most recent call last):
            ...
            wargame.engine.errors.SaveFileError: save file /dev/null: is not a \
regular file (a device, pipe or socket); give a file
        """
        if not isinstance(path, str | os.PathLike):
            raise SaveFileError(
                f"Game.load: path: must be a file path (str or os.PathLike), not "
                f"{_show(path)}; give the path of a file written by Game.save"
            )
        path = Path(path)
        data, version = _read_save(path)

        def fail(field: str, problem: str, fix: str = _DAMAGED) -> SaveFileError:
            return SaveFileError(
                f"save file {path_text(path)}: {field}: {problem}; {fix}"
            )

        try:
            scenario = load_scenario(data["scenario"])
        except ValueError as exc:
            lines = getattr(exc, "problems", None) or (str(exc),)
            first = _show(str(lines[0]).removeprefix("<dict>: "), 200, quote=False)
            more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
            raise fail(
                "scenario", f"the stored scenario is invalid: {first}{more}"
            ) from None
        scenario = Scenario(scenario.data, data["scenario_source"])
        if data["ruleset"] != scenario.ruleset:
            raise fail(
                "ruleset",
                f"{_show(data['ruleset'])} does not match the stored scenario's "
                f"{scenario.ruleset!r}",
            )
        try:
            game = cls(scenario, seed=data["seed"], policies=policies)
        except ValueError as exc:
            raise fail("scenario", _show(str(exc), 200, quote=False)) from None
        decoded: list[Action] = []
        for i, raw in enumerate(data["actions"]):
            try:
                decoded.append(game.ruleset.action_from_dict(raw))
            except ActionFormatError as exc:
                raise fail(
                    f"actions[{i}]",
                    f"is not a valid action: {_show(str(exc), 200, quote=False)}",
                ) from None
        for i, action in enumerate(decoded):
            try:
                game._apply_checked(action)
            except IllegalActionError as exc:
                raise fail(
                    f"actions[{i}]",
                    f"action #{i} ({_show(action.to_dict(), 120, quote=False)}) "
                    f"does not replay: {_show(str(exc), 200, quote=False)}",
                    "the file is damaged or was written by another version",
                ) from None
        check = data["check"]
        if check["events"] != len(game._events):
            raise fail(
                "check.events",
                f"replaying the actions gives {len(game._events)} events, the "
                f"save has {check['events']}",
                "the file is damaged or was written by another version",
            )
        # Version 1 digested another state layout (World at War's disrupted,
        # ops_complete and carried_by were engine Unit fields; they are in
        # Unit.attrs since version 2): that digest cannot be reproduced, so a
        # version-1 save is checked by its event count alone.
        if version >= 2 and check["state"] != game.state.digest():
            raise fail(
                "check.state",
                "replaying the actions does not give the saved state (checksum "
                "mismatch)",
                "the file is damaged or was written by another version",
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


# --------------------------------------------------------------------------- #
# save files                                                                  #
# --------------------------------------------------------------------------- #


def _show(value: Any, limit: int = _SHOW_CHARS, *, quote: bool = True) -> str:
    """``repr(value)`` (or the text itself) cut to ``limit`` characters."""
    text = repr(value) if quote else " ".join(str(value).split("\n"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _key(key: str) -> str:
    """A field name as shown in a message: plain if it looks like one."""
    return key if _PLAIN_KEY.fullmatch(key) else _show(key)


def _canonical_digest(value: Any) -> str:
    """SHA-256 of the canonical JSON of ``value`` (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _field_digests(data: Mapping[str, Any]) -> dict[str, str]:
    """The ``digest`` table of a save: each of :data:`SAVE_FIELDS` digested."""
    return {name: _canonical_digest(data[name]) for name in SAVE_FIELDS}


def _is_count(value: Any) -> bool:
    """A whole number >= 0 (JSON ``true`` and ``1.0`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _read_save(path: Path) -> tuple[dict[str, Any], int]:
    """Read and check a save's fields; return the table and its version.

    Builds nothing: a version-3 save's digest is compared here, before the
    scenario is loaded or a game is made.
    """

    def fail(field: str | None, problem: str, fix: str = _DAMAGED) -> SaveFileError:
        where = f"{field}: " if field else ""
        return SaveFileError(f"save file {path_text(path)}: {where}{problem}; {fix}")

    try:
        raw = read_limited(path, limit=SAVE_MAX_BYTES)
    except InputFileError as exc:
        problem = exc.problem
        if ";" not in problem:
            problem += "; give the path of a file written by Game.save"
        raise SaveFileError(f"save file {path_text(path)}: {problem}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise fail(
            None,
            f"is not a wargame save (not UTF-8 text: byte {exc.start} is invalid)",
            "give a file written by Game.save",
        ) from None
    try:
        data = parse_json(text, limit=_SAVE_MAX_DEPTH)
    except json.JSONDecodeError as exc:
        raise fail(
            None,
            "is not a wargame save "
            f"(not valid JSON: {_show(str(exc), 120, quote=False)})",
            "give a file written by Game.save",
        ) from None
    except ValueError as exc:  # nesting too deep, a number too long...
        problem = str(exc).split(";")[0]
        raise fail(
            None,
            f"is not a wargame save: {_show(problem, 120, quote=False)}",
            "give a file written by Game.save",
        ) from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise fail(
            "format" if isinstance(data, dict) else None,
            f'is not a wargame save (no "format": "{SAVE_FORMAT}")',
            "give a file written by Game.save",
        )
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise fail(
            "version",
            f"has a bad format version {_show(version)} (a whole number from 1 "
            f"to {SAVE_VERSION} is expected)",
        )
    if version > SAVE_VERSION:
        raise fail(
            "version",
            f"uses save format version {_show(version)}, newer than this wargame "
            f"supports ({SAVE_VERSION})",
            "upgrade wargame",
        )
    expected = SAVE_FIELDS + (("digest",) if version >= 3 else ())
    if version < 3 and "digest" in data:
        raise fail(
            "version",
            f"is {version}, but the save has a digest (saves have one from "
            "version 3): the version was edited",
            "set it back to 3, or use an unedited copy of the save",
        )
    for key in data:
        if key not in expected:
            raise fail(
                _key(key),
                f"unknown field in a version-{version} save",
                f"remove it (a save has only {', '.join(expected)})",
            )
    for key in expected:
        if key not in data:
            raise fail(key, "is missing", _DAMAGED)
    for key in ("wargame", "ruleset", "scenario_source"):
        if not isinstance(data[key], str):
            raise fail(key, f"must be text, not {_show(data[key])}")
    if not _is_count(data["seed"]):
        raise fail("seed", f"must be a whole number >= 0, not {_show(data['seed'])}")
    if not isinstance(data["scenario"], dict):
        raise fail("scenario", f"must be a table, not {_show(data['scenario'])}")
    actions = data["actions"]
    if not isinstance(actions, list):
        raise fail("actions", f"must be a list of actions, not {_show(actions)}")
    for i, action in enumerate(actions):
        if not isinstance(action, dict):
            raise fail(f"actions[{i}]", f"must be a table, not {_show(action)}")
    _check_table(fail, "check", data["check"], ("events", "state"))
    if not _is_count(data["check"]["events"]):
        raise fail(
            "check.events",
            f"must be a whole number >= 0, not {_show(data['check']['events'])}",
        )
    state = data["check"]["state"]
    if not isinstance(state, str) or not _HEX64.fullmatch(state):
        raise fail(
            "check.state", f"must be a SHA-256 in 64 hex digits, not {_show(state)}"
        )
    if version >= 3:
        stored = data["digest"]
        _check_table(fail, "digest", stored, SAVE_FIELDS)
        for key in SAVE_FIELDS:
            if not isinstance(stored[key], str) or not _HEX64.fullmatch(stored[key]):
                raise fail(
                    f"digest.{key}",
                    f"must be a SHA-256 in 64 hex digits, not {_show(stored[key])}",
                )
        actual = _field_digests(data)
        changed = [key for key in SAVE_FIELDS if stored[key] != actual[key]]
        if changed:
            what = " and ".join(_PART_NAMES[key] for key in changed)
            raise fail(
                ", ".join(changed),
                f"{what} {'was' if len(changed) == 1 else 'were'} changed after "
                "saving (digest mismatch)",
                "use an unedited copy of the save, or start again from the scenario",
            )
    return data, version


def _check_table(
    fail: Callable[..., SaveFileError],
    field: str,
    value: Any,
    keys: Sequence[str],
) -> None:
    """Refuse a ``field`` that is not a table with exactly ``keys``."""
    if not isinstance(value, dict):
        raise fail(field, f"must be a table with {', '.join(keys)}, not {_show(value)}")
    for key in value:
        if key not in keys:
            raise fail(
                f"{field}.{_key(key)}",
                "unknown field",
                f"remove it ({field} has only {', '.join(keys)})",
            )
    for key in keys:
        if key not in value:
            raise fail(f"{field}.{key}", "is missing", _DAMAGED)
