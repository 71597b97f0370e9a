"""ReplayView: a slider and a play button over a game's event log.

The states come from :meth:`wargame.engine.Game.replay` (the events' changes
applied to the initial state: no rules, no dice), so the replay shows exactly
what happened.  Moving the slider re-sends only the unit markers that differ.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> _ = game.run(turns=1)
    >>> replay = ReplayView(game)
    >>> replay.show(5)
    >>> replay.state.digest() == list(game.replay())[4][1].digest()
    True
"""

from __future__ import annotations

import html
import os
from typing import TYPE_CHECKING, Any

import ipyleaflet
import ipywidgets as w

from wargame.render.game import (
    dice_html,
    log_table_html,
    panels_html,
    status_html,
    unit_stacks,
    units_html,
)
from wargame.render.geojson import EMPTY
from wargame.render.points import MODEL_STYLE, models_geojson

from .layers import UnitLayer
from .mapview import MapView
from .marks import StepMarksLayer

if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import Game, GameState

__all__ = ["ReplayView"]


class ReplayView(w.VBox):  # type: ignore[misc]
    """Step through a finished (or running) game event by event.

    Args:
        game_or_save: a :class:`~wargame.engine.Game` or the path of a save file
            written by :meth:`~wargame.engine.Game.save`.
        interval_ms: time between events when playing.
        height: CSS height of the map.
        side: replay what this side knew (its view of each state and only the
            events it saw); ``None``, the default, replays everything.

    Raises:
        SaveFileError: the save file cannot be loaded (the message says why).
        ValueError: ``side`` is not a side of the game.

    Position 0 is the set-up; position ``i`` is the state after event ``i``
    (``game.log`` row ``i - 1``).  :meth:`show` moves there from code.
    """

    def __init__(
        self,
        game_or_save: Game | str | os.PathLike[str],
        *,
        interval_ms: int = 500,
        height: str = "520px",
        side: str | None = None,
    ) -> None:
        from wargame.engine import Game

        if isinstance(game_or_save, Game):
            game = game_or_save
        else:
            game = Game.load(os.fspath(game_or_save))
        self.game = game
        #: the side whose knowledge is replayed (``None``: the umpire's, all)
        self.side = side
        self.events_log = game.log_for(side)
        initial = game.initial_state
        if side is not None:
            initial = game.ruleset.view(initial, side)
        self.states: list[GameState] = [initial] + [s for _, s in game.replay(side)]
        self.mapview = MapView(game.map, height=height)
        self.mapview.info_rows = lambda label: [
            ("units", units_html(self.game, label, self.state))
        ]
        self.units = UnitLayer(on_click=self.mapview.select_hex)
        #: What the last actions up to the position did (trails, fire lines, dice).
        self.marks = StepMarksLayer()
        self.mapview.leaflet.add(self.marks.lines)
        #: Every model at its point, with its facing (rule systems whose units
        #: stand at points; ``None`` on hexes).
        self.models_layer: ipyleaflet.GeoJSON | None = None
        if getattr(game.ruleset, "positions", "hex") == "point":
            self.models_layer = ipyleaflet.GeoJSON(
                data=dict(EMPTY),
                name="models",
                style={"className": "wargame-model"},
                point_style=dict(MODEL_STYLE),
            )
            self.mapview.leaflet.add(self.models_layer)
        self.mapview.leaflet.add(self.units.group)
        self.mapview.leaflet.add(self.marks.dice)
        n = len(self.states) - 1
        self.position = -1
        self.slider = w.IntSlider(
            value=0,
            min=0,
            max=n,
            description="event",
            continuous_update=False,
            layout=w.Layout(width="60%"),
        )
        self.slider.add_class("wargame-replay-slider")
        self.play = w.Play(
            value=0, min=0, max=n, interval=interval_ms, description="play"
        )
        w.jslink((self.play, "value"), (self.slider, "value"))
        self.prev_button = w.Button(description="◀", layout=w.Layout(width="40px"))
        self.next_button = w.Button(description="▶", layout=w.Layout(width="40px"))
        self.prev_button.on_click(lambda _: self.show(self.position - 1))
        self.next_button.on_click(lambda _: self.show(self.position + 1))
        self.event = w.HTML()
        self.event.add_class("wargame-replay-event")
        self.status = w.HTML()
        self.dice = w.HTML()
        self.panels = w.HTML()
        self.log_table = w.HTML(
            layout=w.Layout(max_height="240px", overflow="auto", width="100%")
        )
        self.slider.observe(lambda ch: self.show(ch["new"]), "value")
        right = w.VBox(
            [self.event, self.dice, self.mapview.info, self.panels],
            layout=w.Layout(flex="2 1 0%", min_width="320px", padding="0 0 0 8px"),
        )
        self.mapview.leaflet.layout.flex = "3 1 0%"
        self.mapview.leaflet.layout.width = "auto"
        super().__init__(
            [
                self.status,
                w.HBox([self.play, self.prev_button, self.slider, self.next_button]),
                self.mapview.message,
                w.HBox([self.mapview.leaflet, right], layout=w.Layout(width="100%")),
                self.log_table,
            ],
            layout=w.Layout(width="100%"),
        )
        self.add_class("wargame-replayview")
        self.show(0)

    @property
    def state(self) -> GameState:
        """The state shown."""
        return self.states[self.position]

    def show(self, position: int) -> None:
        """Show the state after event ``position`` (0: the set-up); clamped."""
        position = max(0, min(int(position), len(self.states) - 1))
        if position == self.position:
            return
        self.position = position
        if self.slider.value != position:
            self.slider.value = position  # the observer comes back here: no-op
        state = self.states[position]
        self.units.update(unit_stacks(self.game, state))
        self.mapview.avoid(self.units.places(), self.units.counter_px)
        if self.models_layer is not None:
            self.models_layer.data = models_geojson(self.game, state)
        self.status.value = status_html(self.game, state=state)
        self.panels.value = "".join(
            f"<div><b>{html.escape(title)}</b>{body}</div>"
            for title, body in panels_html(self.game, state, self.side)
        )
        if position == 0:
            self.event.value = "<b>Set-up</b>: the scenario's starting positions."
            self.dice.value = ""
            seen = self.events_log.iloc[:0]
        else:
            row = self.events_log.iloc[position - 1]
            self.event.value = _event_html(row, position, len(self.states) - 1)
            rolls = self.events_log.iloc[position - 1 : position]
            rolls = rolls[rolls["dice"].notna()]
            self.dice.value = dice_html(rolls, title="Dice") if len(rolls) else ""
            seen = self.events_log.iloc[:position]
        self.log_table.value = log_table_html(seen, limit=15)
        self.marks.update(self.game.map, seen)
        self.mapview.refresh_info()


def _event_html(row: Any, position: int, total: int) -> str:
    import pandas as pd

    side = "" if pd.isna(row["side"]) else row["side"]
    return (
        f"<div><b>Event {position}/{total}</b> · turn {int(row['turn'])} · "
        f"{html.escape(str(row['phase']))} · {html.escape(str(side))} · "
        f"<b>{html.escape(str(row['kind']))}</b><br>"
        f"{html.escape(str(row['detail']))}</div>"
    )
