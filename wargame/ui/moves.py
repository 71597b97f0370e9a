"""Moves on the map: legal destinations highlighted, a path in one confirm.

When the person selects one of their units on their decision, the hexes it may
reach now are drawn (one step: strong; farther, along a chain of legal moves:
light; :func:`wargame.render.moves.reachable`).  Clicking one of them draws the
path; "Move along path" plays its moves one by one, stopping (and saying so) if
a step is refused or the rules hand the decision to the other side (e.g.
opportunity fire).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from wargame.render.game import hex_lonlat
from wargame.render.geojson import EMPTY, hexes_geojson
from wargame.render.moves import destination_of, reachable

from .common import error_html, info_html
from .layers import overlay

if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import Action

    from .gameview import GameView

__all__ = ["MovePlanner"]

NEAR_STYLE = {
    "color": "#2ca02c",
    "weight": 2,
    "fillColor": "#2ca02c",
    "fillOpacity": 0.35,
}
FAR_STYLE = {
    "color": "#2ca02c",
    "weight": 1,
    "fillColor": "#98df8a",
    "fillOpacity": 0.2,
}


class MovePlanner:
    """The destinations, the planned path and its button, for a :class:`GameView`.

    Attributes:
        paths: hex -> the legal moves that take the selected unit there.
        planned: the hex of the planned path (``None``: none).
    """

    def __init__(self, view: GameView) -> None:
        self.view = view
        self.dest_layer = overlay("destinations", {"className": "wargame-dest"})
        self.path_layer = overlay("path", {"className": "wargame-path"})
        self.unit: str | None = None
        self.paths: dict[str, list[Action]] = {}
        self.planned: str | None = None
        self._key: tuple[int, str] | None = None
        self.button = w.Button(
            description="Move along path",
            icon="route",
            disabled=True,
            tooltip="play the moves of the path shown, one after the other",
            layout=w.Layout(width="auto"),
        )
        self.button.add_class("wargame-move-path")
        self.button.on_click(lambda _: self.view._guard(self.execute))

    @property
    def destinations(self) -> list[str]:
        """The hexes highlighted (one-step ones first)."""
        return sorted(self.paths, key=lambda h: (len(self.paths[h]), h))

    def clear(self) -> None:
        """No unit, no destinations, no path."""
        self.unit = None
        self._key = None
        self.paths = {}
        self.planned = None
        self.dest_layer.data = dict(EMPTY)
        self.path_layer.data = dict(EMPTY)
        self.button.disabled = True

    def show(self, unit: str) -> None:
        """Highlight where ``unit`` may go now (nothing unless it is the person's)."""
        v = self.view
        game = v.game
        self.clear()
        u = game.state.units.get(unit)
        if (
            v.human is None
            or game.current_side != v.human
            or u is None
            or u.side != v.human
        ):
            return
        self.unit = unit
        self._key = (len(game.actions), unit)
        self.paths = reachable(game, unit)
        labels = self.destinations
        props = {
            h: {
                "label": h,
                "steps": len(self.paths[h]),
                "style": NEAR_STYLE if len(self.paths[h]) == 1 else FAR_STYLE,
            }
            for h in labels
        }
        self.dest_layer.data = hexes_geojson(game.map, labels, props)

    def follow(self) -> None:
        """After the game moved on: the selected unit's destinations, now."""
        v = self.view
        sel = v.selected_unit
        if sel is None or v.human is None or v.game.current_side != v.human:
            if self.unit is not None:
                self.clear()
            return
        if self._key != (len(v.game.actions), sel):
            self.show(sel)

    def path_hexes(self, label: str) -> list[str]:
        """The hexes walked to ``label``, from the unit's hex."""
        u = self.view.game.state.units[self.unit]  # type: ignore[index]
        return [str(u.hex)] + [
            str(destination_of(a)) for a in self.paths.get(label, [])
        ]

    def plan(self, label: str) -> bool:
        """Draw the path to ``label``; whether there is one."""
        if label not in self.paths:
            return False
        self.planned = label
        centres = hex_lonlat(self.view.game.map)
        hexes = self.path_hexes(label)
        self.path_layer.data = {
            "type": "FeatureCollection",
            "features": [
                {
                    "type": "Feature",
                    "geometry": {
                        "type": "LineString",
                        "coordinates": [list(centres[h]) for h in hexes],
                    },
                    "properties": {
                        "hexes": hexes,
                        "style": {"color": "#2ca02c", "weight": 6, "dashArray": "10 6"},
                    },
                }
            ],
        }
        self.button.disabled = False
        name = self.view.game.state.units[self.unit].name  # type: ignore[index]
        n = len(hexes) - 1
        self.view.message.value = info_html(
            f"{name} to {label}: {n} hex{'es' if n != 1 else ''} "
            f"({' → '.join(hexes)}). Press 'Move along path' to go."
        )
        return True

    def execute(self) -> int:
        """Play the planned path; returns the hexes moved (a message says where
        and why it stopped short)."""
        from wargame.engine import IllegalActionError

        v = self.view
        if self.planned is None or self.unit is None:
            v.message.value = error_html("Click a highlighted hex first.")
            return 0
        target, unit = self.planned, self.unit
        path = list(self.paths.get(target, []))
        name = v.game.state.units[unit].name
        done = 0
        why = ""
        for a in path:
            if v.game.current_side != v.human:
                side = v.game.current_side
                who = v.game.state.sides[side].name if side else "nobody"
                why = f"the decision passed to {who} (e.g. opportunity fire)"
                break
            try:
                v.game.apply(a)
            except IllegalActionError as exc:
                why = f"the next step is not allowed: {exc}"
                break
            done += 1
        self.clear()
        at = v.game.state.units[unit].hex
        if done == len(path):
            text = info_html(f"{name} moved {done} hex(es) to {target}.")
        else:
            text = error_html(
                f"{name} stopped at {at} after {done} of {len(path)} hexes: {why}."
            )
        if v.auto_ai and v.human is not None:
            v._ai_until_human()
        v.refresh()
        v.message.value = text
        return done

    def layers(self) -> tuple[Any, Any]:
        """The two map layers (destinations under the path)."""
        return self.dest_layer, self.path_layer
