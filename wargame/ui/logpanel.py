"""The log panel of a game view: turn, side and unit filters, the table and the
"download log (CSV)" button.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> _ = [game.step() for _ in range(5)]
    >>> panel = LogPanel(game.state, lambda: game.log)
    >>> panel.refresh(game.state)
    >>> panel.table.value.count("<tr>") - 1 == len(game.log)
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from wargame.render.game import filter_log, log_table_html

from .download import LogDownload

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.engine import GameState

__all__ = ["ALL", "LogPanel"]

ALL = "all"


class LogPanel(w.VBox):  # type: ignore[misc]
    """Filters over the log, the table, and the CSV download of the log shown.

    Args:
        state: a state of the game (for the sides and units offered).
        get_log: the log to show (e.g. the person's side's).
    """

    def __init__(self, state: GameState, get_log: Callable[[], pd.DataFrame]) -> None:
        self.get_log = get_log
        self.turn = w.Dropdown(
            options=[("all turns", ALL)],
            value=ALL,
            description="turn",
            layout=w.Layout(width="170px"),
        )
        self.side = w.Dropdown(
            options=[
                ("all sides", ALL),
                *[(s.name, sid) for sid, s in state.sides.items()],
            ],
            value=ALL,
            description="side",
            layout=w.Layout(width="220px"),
        )
        self.unit = w.Dropdown(
            options=[
                ("all units", ALL),
                *[(f"{u.name} ({uid})", uid) for uid, u in state.units.items()],
            ],
            value=ALL,
            description="unit",
            layout=w.Layout(width="320px"),
        )
        for dd in (self.turn, self.side, self.unit):
            dd.observe(lambda _: self.refresh_table(), "value")
        self.table = w.HTML(
            layout=w.Layout(max_height="280px", overflow="auto", width="100%")
        )
        self.table.add_class("wargame-log-panel")
        self.download = LogDownload(get_log)
        super().__init__(
            [
                w.HBox(
                    [self.turn, self.side, self.unit, self.download],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.table,
            ],
            layout=w.Layout(width="100%"),
        )

    def filters(self) -> dict[str, Any]:
        """The chosen filters, as :func:`~wargame.render.game.filter_log` takes them."""
        return {
            "turn": None if self.turn.value == ALL else int(self.turn.value),
            "side": None if self.side.value == ALL else self.side.value,
            "unit": None if self.unit.value == ALL else self.unit.value,
        }

    def frame(self) -> pd.DataFrame:
        """The log shown with the filters."""
        return filter_log(self.get_log(), **self.filters())

    def refresh(self, state: GameState, log: pd.DataFrame | None = None) -> None:
        """Offer the turns and units of ``state``; redraw the table."""
        turns = [
            ("all turns", ALL),
            *[(f"turn {t}", str(t)) for t in range(1, state.turn + 1)],
        ]
        _set_options(self.turn, turns)
        units = [
            ("all units", ALL),
            *[(f"{u.name} ({uid})", uid) for uid, u in state.units.items()],
        ]
        _set_options(self.unit, units)
        self.refresh_table(log)

    def refresh_table(self, log: pd.DataFrame | None = None) -> None:
        """Redraw the table (with the filters)."""
        log = self.get_log() if log is None else log
        self.table.value = log_table_html(log, **self.filters())


def _set_options(dd: w.Dropdown, options: list[tuple[str, str]]) -> None:
    if tuple(dd.options) != tuple(options):
        keep = dd.value
        dd.options = options
        dd.value = keep if keep in dict(options).values() else ALL
