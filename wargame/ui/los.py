"""LOSInspector: click two points for a sight line and its profile, one for a viewshed.

Every answer comes from the map (:meth:`~wargame.geo.maps.Map.los`,
:meth:`~wargame.geo.maps.Map.viewshed`); the inspector draws it, keeps a table of
what was inspected (:attr:`LOSInspector.history`) and re-computes the viewshed
when the radius or eye-height sliders move.

Examples:
    >>> import wargame
    >>> inspector = LOSInspector(wargame.load_map(window="Remagen"))
    >>> inspector.inspect_line("Z8", "Q11").visible   # Erpeler Ley -> Remagen
    True
    >>> list(inspector.history["kind"])
    ['line']
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import shapely

from wargame.render.geojson import EMPTY, geometry_feature, geometry_geojson
from wargame.render.los import los_html, profile_png, sight_line_geojson, simplified

from .common import error_html, info_html
from .layers import overlay
from .mapview import MapView

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.geo.maps import Map

__all__ = ["LOSInspector"]

Where = str | tuple[float, float]


class LOSInspector(w.VBox):  # type: ignore[misc]
    """Line of sight and viewsheds on a map, by clicking.

    Args:
        game_map: the map (a window of it or the whole map).
        mode: ``"line"`` (two clicks: observer, then target) or ``"viewshed"``
            (one click: the observer).
        height: CSS height of the map.

    From code: :meth:`inspect_line` and :meth:`inspect_viewshed` take hex labels
    or ``(x, y)`` map metres.
    """

    def __init__(
        self, game_map: Map, *, mode: str = "line", height: str = "520px"
    ) -> None:
        self.map = game_map
        self.mapview = MapView(game_map, height=height)
        self.message = self.mapview.message
        self.viewshed_layer = overlay(
            "viewshed",
            {
                "weight": 0,
                "fillColor": "#2f7fd6",
                "fillOpacity": 0.3,
                "className": "wargame-viewshed",
            },
        )
        self.line_layer = overlay("sight line")
        self.points_layer = overlay("points")
        self.points_layer.point_style = {
            "radius": 6,
            "color": "#111",
            "weight": 2,
            "fillColor": "#ffd23f",
            "fillOpacity": 1.0,
        }
        for layer in (self.viewshed_layer, self.line_layer, self.points_layer):
            self.mapview.leaflet.add(layer)
        self.mapview.on_point_click(self._clicked)
        self.mode = w.ToggleButtons(
            options=[
                ("Sight line (2 clicks)", "line"),
                ("Viewshed (1 click)", "viewshed"),
            ],
            value=mode,
        )
        xmin, ymin, xmax, ymax = game_map.bounds
        diag = math.hypot(xmax - xmin, ymax - ymin)
        top = int(min(10_000, diag) // 250 * 250)
        self.radius = w.IntSlider(
            value=min(2000, top),
            min=250,
            max=max(top, 250),
            step=250,
            description="radius m",
            continuous_update=False,
        )
        self.eye = w.FloatSlider(
            value=2.5,
            min=0.5,
            max=50.0,
            step=0.5,
            description="eye m",
            continuous_update=False,
        )
        self.target_height = w.FloatSlider(
            value=2.0,
            min=0.0,
            max=20.0,
            step=0.5,
            description="target m",
            continuous_update=False,
        )
        self.obstacles = w.Checkbox(
            value=True, description="woods and towns block", indent=False
        )
        for c in (self.radius, self.eye, self.target_height, self.obstacles):
            c.observe(lambda _: self._guard(self._redo), "value")
        self.mode.observe(lambda _: self._start_over(), "value")
        self.answer = w.HTML()
        self.answer.add_class("wargame-los-answer-panel")
        self.profile = w.Image(format="png", layout=w.Layout(width="100%"))
        self.table = w.HTML(
            layout=w.Layout(max_height="220px", overflow="auto", width="100%")
        )
        self.table.add_class("wargame-los-history")
        self._rows: list[dict[str, Any]] = []
        self._observer: tuple[float, float] | None = None
        self._last: tuple[str, Any] | None = None
        right = w.VBox(
            [self.answer, self.profile, self.mapview.info],
            layout=w.Layout(flex="2 1 0%", min_width="320px", padding="0 0 0 8px"),
        )
        self.mapview.leaflet.layout.flex = "3 1 0%"
        self.mapview.leaflet.layout.width = "auto"
        super().__init__(
            [
                self.mode,
                w.HBox(
                    [self.radius, self.eye, self.target_height, self.obstacles],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.mapview.message,
                w.HBox([self.mapview.leaflet, right], layout=w.Layout(width="100%")),
                self.table,
            ],
            layout=w.Layout(width="100%"),
        )
        self.add_class("wargame-los-inspector")
        self._start_over()

    # ------------------------------------------------------------------ #
    @property
    def history(self) -> pd.DataFrame:
        """One row per inspection: kind, where, heights, the answer."""
        import pandas as pd

        return pd.DataFrame(self._rows)

    def _start_over(self) -> None:
        self._observer = None
        self._last = None
        self.points_layer.data = dict(EMPTY)
        self.line_layer.data = dict(EMPTY)
        self.viewshed_layer.data = dict(EMPTY)
        self.answer.value = info_html(
            "Click the observer, then the target."
            if self.mode.value == "line"
            else "Click a point to see what can be seen from there."
        )

    def _clicked(self, lon: float, lat: float, label: str) -> None:
        x, y = self.map.to_xy(lon, lat)
        p = (float(x), float(y))
        if self.mode.value == "viewshed":
            self._guard(lambda: self.inspect_viewshed(p))
        elif self._observer is None:
            self._observer = p
            self._show_points([p])
            self.line_layer.data = dict(EMPTY)
            self.answer.value = info_html(f"Observer in {label}: now click the target.")
        else:
            a = self._observer
            self._observer = None
            self._guard(lambda: self.inspect_line(a, p))

    def _show_points(self, pts: list[tuple[float, float]]) -> None:
        feats = [
            geometry_feature(self.map, shapely.Point(p), {"role": role})
            for p, role in zip(pts, ("observer", "target"), strict=False)
        ]
        self.points_layer.data = {"type": "FeatureCollection", "features": feats}

    def _xy(self, where: Where) -> tuple[float, float]:
        if isinstance(where, str):
            return self.map.hex_center(where)
        return float(where[0]), float(where[1])

    def _label(self, p: tuple[float, float]) -> str | None:
        try:
            return self.map.hex_at_xy(*p)
        except ValueError:
            return None

    # ------------------------------------------------------------------ #
    def inspect_line(self, a: Where, b: Where) -> Any:
        """Sight line from ``a`` to ``b``: draw it, chart its profile, log it.

        Returns:
            The :class:`wargame.geo.los.LOSResult`.
        """
        pa, pb = self._xy(a), self._xy(b)
        r = self.map.los(
            pa,
            pb,
            observer_height_m=self.eye.value,
            target_height_m=self.target_height.value,
            obstacles=bool(self.obstacles.value),
        )
        self.message.value = ""
        self._show_points([pa, pb])
        self.line_layer.data = sight_line_geojson(self.map, r)
        self.answer.value = los_html(
            r,
            observer=str(r.observer_hex or "observer"),
            target=str(r.target_hex or "target"),
        )
        self.profile.value = profile_png(r)
        self._last = ("line", (pa, pb))
        self._rows.append(
            {
                "kind": "line",
                "from_hex": r.observer_hex,
                "to_hex": r.target_hex,
                "distance_m": round(r.distance_m, 1),
                "eye_m": self.eye.value,
                "target_m": self.target_height.value,
                "obstacles": bool(self.obstacles.value),
                "visible": bool(r.visible),
                "blocker": r.blocker.kind if r.blocker else None,
                "blocked_at_m": round(r.blocked_at.distance_m, 1)
                if r.blocked_at
                else None,
                "radius_m": None,
                "visible_km2": None,
                "share_visible": None,
            }
        )
        self._refresh_table()
        return r

    def inspect_viewshed(self, where: Where) -> Any:
        """Viewshed from a point with the sliders' radius and eye height.

        Returns:
            The visible area as a shapely geometry in map metres.
        """
        p = self._xy(where)
        radius = float(self.radius.value)
        geom = self.map.viewshed(
            p,
            radius,
            observer_height_m=self.eye.value,
            obstacles=bool(self.obstacles.value),
        )
        self.message.value = ""
        self._show_points([p])
        self.line_layer.data = dict(EMPTY)
        circle = (
            shapely.Point(p).buffer(radius).intersection(shapely.box(*self.map.bounds))
        )
        share = float(geom.area / circle.area) if circle.area else 0.0
        self.viewshed_layer.data = geometry_geojson(
            self.map, simplified(geom), {"radius_m": radius, "share": share}
        )
        hexlabel = self._label(p)
        self.answer.value = (
            f"<b>Viewshed from {hexlabel or 'the point'}</b>: "
            f"{geom.area / 1e6:.2f} km² visible, {share:.0%} of the "
            f"{radius:.0f} m circle on the map "
            f"(eye {self.eye.value:g} m)."
        )
        self.profile.value = b""
        self._last = ("viewshed", p)
        self._rows.append(
            {
                "kind": "viewshed",
                "from_hex": hexlabel,
                "to_hex": None,
                "distance_m": None,
                "eye_m": self.eye.value,
                "target_m": 0.0,
                "obstacles": bool(self.obstacles.value),
                "visible": None,
                "blocker": None,
                "blocked_at_m": None,
                "radius_m": radius,
                "visible_km2": round(geom.area / 1e6, 4),
                "share_visible": round(share, 4),
            }
        )
        self._refresh_table()
        return geom

    def _redo(self) -> None:
        if self._last is None:
            return
        kind, where = self._last
        if kind == "viewshed":
            self.inspect_viewshed(where)
        else:
            self.inspect_line(*where)

    def _refresh_table(self) -> None:
        df = self.history.tail(20).iloc[::-1]
        df = df.astype(object).where(df.notna(), "")
        self.table.value = "<div><b>Inspected</b> (newest first)</div>" + df.to_html(
            index=False,
            na_rep="",
            float_format=lambda v: f"{v:g}",
            border=0,
            classes="wargame-history",
        )

    def _guard(self, fn: Any) -> Any:
        try:
            return fn()
        except ValueError as exc:
            self.message.value = error_html(str(exc))
            return None
