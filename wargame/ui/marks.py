"""The map layer of what the last actions did: trails, fire lines, dice.

One GeoJSON layer for the lines (from :func:`wargame.render.trail.step_marks_geojson`)
and a few reused markers with the dice faces beside them; only sent when the
marks changed.
"""

from __future__ import annotations

from typing import Any

import ipyleaflet

from wargame.render.game import dice_svg
from wargame.render.trail import FADE_STEPS, step_marks_geojson

from .layers import overlay

__all__ = ["StepMarksLayer"]


class StepMarksLayer:
    """Trails and fire lines of the last :data:`FADE_STEPS` actions, with dice.

    Attributes:
        lines: the GeoJSON layer (class ``wargame-marks`` on its SVG paths).
        dice: the ``LayerGroup`` of dice markers.
        data: the last FeatureCollection drawn.
    """

    def __init__(self, steps: int = FADE_STEPS) -> None:
        self.steps = steps
        self.lines = overlay("last actions", {"className": "wargame-marks"})
        self.dice = ipyleaflet.LayerGroup(name="dice")
        self._markers: list[ipyleaflet.Marker] = []
        self.data: dict[str, Any] = {"type": "FeatureCollection", "features": []}

    def update(self, game_map: Any, log: Any) -> bool:
        """Draw the marks of the log's last actions; whether anything changed."""
        fc = step_marks_geojson(game_map, log, steps=self.steps)
        if fc == self.data:
            return False
        self.data = fc
        lines = [f for f in fc["features"] if f["geometry"]["type"] == "LineString"]
        self.lines.data = {"type": "FeatureCollection", "features": lines}
        points = [f for f in fc["features"] if f["geometry"]["type"] == "Point"]
        while len(self._markers) < len(points):
            mk = ipyleaflet.Marker(
                location=(0.0, 0.0), draggable=False, keyboard=False, name="dice"
            )
            self._markers.append(mk)
            self.dice.add(mk)
        for mk, f in zip(self._markers, points, strict=False):
            p = f["properties"]
            lon, lat = f["geometry"]["coordinates"]
            faces = "".join(dice_svg(int(d), 18) for d in p["dice"])
            html = (
                f"<div class='wargame-map-dice' style='opacity:{p['opacity']};"
                "white-space:nowrap;background:rgba(255,255,255,0.85);"
                "border-radius:4px;padding:1px 2px;display:inline-block'>"
                f"{faces}</div>"
            )
            n = max(1, len(p["dice"]))
            with mk.hold_sync():
                mk.location = (lat, lon)
                mk.icon = ipyleaflet.DivIcon(
                    html=html, icon_size=[21 * n + 6, 24], icon_anchor=[0, -6]
                )
                mk.visible = True
        for mk in self._markers[len(points) :]:
            mk.visible = False
        return True
