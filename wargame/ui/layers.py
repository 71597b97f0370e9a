"""Map layers the views share: the unit markers and small GeoJSON overlays.

The unit layer is ONE ``ipyleaflet.LayerGroup`` with one marker per occupied hex
or free point (a few dozen at most; never one widget per map hex).  Markers are
reused: after a step only the markers whose place, symbol or tooltip changed are
sent, and the SVG icons are shared between markers with the same symbol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import ipyleaflet

from wargame.render.geojson import EMPTY
from wargame.render.symbols import SYMBOL_SIZE, svg_data_url

__all__ = ["UnitLayer", "overlay"]


def overlay(name: str, style: dict[str, Any] | None = None) -> ipyleaflet.GeoJSON:
    """An empty GeoJSON layer for a small overlay (viewshed, sight line, rings)."""
    return ipyleaflet.GeoJSON(data=dict(EMPTY), name=name, style=style or {})


class UnitLayer:
    """Unit stacks drawn as NATO-style markers.

    Args:
        on_click: called with the hex label when a marker is clicked (for a
            stack at a free point: the hex the point lies in, if any).
        scale: counter size relative to :data:`SYMBOL_SIZE` (a projector: 1.5).
        on_point_click: called with the :class:`~wargame.render.game.Stack`
            instead of ``on_click`` when a stack at a free point is clicked.

    Attributes:
        group: the ``LayerGroup`` to add to a map.
        stacks: the :class:`~wargame.render.game.Stack` shown, by
            :attr:`~wargame.render.game.Stack.key` (the hex label for a hex).
        sent: how many markers the last :meth:`update` changed.
    """

    def __init__(
        self,
        on_click: Callable[[str], None] | None = None,
        *,
        scale: float = 1.0,
        on_point_click: Callable[[Any], None] | None = None,
    ) -> None:
        self.scale = scale
        self._on_point_click = on_point_click
        self.group = ipyleaflet.LayerGroup(name="units")
        self._on_click = on_click
        self._markers: dict[str, ipyleaflet.Marker] = {}
        self._hex_of: dict[int, str] = {}
        self._spare: list[ipyleaflet.Marker] = []
        self._icons: dict[str, ipyleaflet.Icon] = {}
        self._shown: dict[str, tuple[Any, ...]] = {}
        self.stacks: dict[str, Any] = {}
        self.sent = 0

    def _icon(self, svg: str) -> ipyleaflet.Icon:
        icon = self._icons.get(svg)
        if icon is None:
            w, h = (round(v * self.scale) for v in SYMBOL_SIZE)
            icon = ipyleaflet.Icon(
                icon_url=svg_data_url(svg),
                icon_size=[w, h],
                icon_anchor=[w // 2, h // 2],
            )
            self._icons[svg] = icon
        return icon

    def _new_marker(self) -> ipyleaflet.Marker:
        mk = ipyleaflet.Marker(
            location=(0.0, 0.0),
            draggable=False,
            keyboard=False,
            rise_on_hover=True,
            name="unit",
        )
        key = id(mk)

        def clicked(**_: Any) -> None:
            s = self.stacks.get(self._hex_of.get(key, ""))
            if s is not None and s.point is not None and self._on_point_click:
                self._on_point_click(s)
                return
            h = s.hex if s is not None else None
            if h is not None and self._on_click is not None:
                self._on_click(h)

        mk.on_click(clicked)
        self.group.add(mk)
        return mk

    def update(self, stacks: Iterable[Any]) -> int:
        """Show these stacks; send only what changed.

        Returns:
            The number of markers whose traits changed.
        """
        new = {s.key: s for s in stacks}
        changed = 0
        for h in list(self._markers):
            if h not in new:
                mk = self._markers.pop(h)
                self._hex_of.pop(id(mk), None)
                self._shown.pop(h, None)
                mk.visible = False
                self._spare.append(mk)
                changed += 1
        for h, s in new.items():
            look = (s.lat, s.lon, s.svg, s.title)
            if self._shown.get(h) == look:
                continue
            mk = self._markers.get(h)
            if mk is None:
                mk = self._spare.pop() if self._spare else self._new_marker()
                self._markers[h] = mk
                self._hex_of[id(mk)] = h
            with mk.hold_sync():
                mk.location = (s.lat, s.lon)
                mk.icon = self._icon(s.svg)
                mk.title = s.title
                mk.visible = True
            self._shown[h] = look
            changed += 1
        self.stacks = new
        self.sent = changed
        return changed

    @property
    def counter_px(self) -> tuple[float, float]:
        """A counter's width and height on the screen (CSS pixels)."""
        w, h = SYMBOL_SIZE
        return float(round(w * self.scale)), float(round(h * self.scale))

    def places(self) -> list[tuple[float, float]]:
        """(lat, lon) of every counter shown (for names to keep off them)."""
        return [(s.lat, s.lon) for s in self.stacks.values()]

    def marker_at(self, label: str) -> ipyleaflet.Marker | None:
        """The marker of a hex or a point stack's key (``None``: no unit there)."""
        return self._markers.get(label)

    def click(self, label: str) -> None:
        """Click the marker of a hex (or a stack key), as the browser would."""
        mk = self._markers.get(label)
        if mk is None:
            raise KeyError(f"no unit marker at {label}")
        mk._handle_mouse_events(
            None,
            {"event": "interaction", "type": "click", "coordinates": list(mk.location)},
            None,
        )
