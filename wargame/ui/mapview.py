"""MapView: the Rhine map in a notebook, offline, with a click-to-inspect hex panel.

The terrain picture is one image overlay (never thousands of vector hexes); the hex
under a click is found by arithmetic; the selection is a one-feature layer.  The
place names are labels of a fixed screen size over the picture, kept clear of
the unit counters (:mod:`wargame.render.places`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipyleaflet
import ipywidgets as w

from wargame.render.geojson import EMPTY, hex_info_html, hexes_geojson
from wargame.render.places import FONT_PX, Label, declutter, place_names
from wargame.render.symbols import SYMBOL_SIZE
from wargame.render.terrain import map_picture

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

OSM_TILES = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
#: Leaflet puts div icons in a white box that catches clicks: none for a place
#: name (carried in each label, so it holds wherever the map is shown).
PLACE_CSS = (
    "<style>.leaflet-div-icon:has(> .wargame-place)"
    "{background:none;border:none;pointer-events:none}</style>"
)


class MapView(w.VBox):  # type: ignore[misc]
    """An ipyleaflet map of a :class:`~wargame.geo.maps.Map` with a hex info panel.

    Args:
        game_map: the map to show.
        hex_outlines: draw the hex grid into the terrain picture.
        web_tiles: also offer OpenStreetMap web tiles under the picture (needs the
            internet; the picture alone always works offline).
        height: CSS height of the map.
        zoom: initial zoom (default: a window fits the map box, the whole map 12).
        names: write the place names as labels that keep their size at every
            zoom and give way to the counters (``False``: the names drawn into
            the picture, as before).

    Clicking the map selects the hex there; :meth:`select_hex` does it from code.
    Register callbacks with :meth:`on_hex_click`; :meth:`avoid` tells the names
    where the counters are.
    """

    def __init__(
        self,
        game_map: Map,
        *,
        hex_outlines: bool = False,
        web_tiles: bool = False,
        height: str = "560px",
        zoom: float | None = None,
        names: bool = True,
    ) -> None:
        self.game_map = game_map
        self._names = names
        self._callbacks: list[Callable[[str], None]] = []
        self._point_callbacks: list[Callable[[float, float, str], None]] = []
        #: Extra rows for the hex info panel: ``info_rows(label) -> [(name, html)]``.
        self.info_rows: Callable[[str], list[tuple[str, str]]] | None = None
        pic = map_picture(game_map, hex_outlines=hex_outlines, labels=not names)
        (s, west), (n, e) = pic.latlon_corners
        layers: list[Any] = []
        self.note = w.HTML()
        if web_tiles:
            layers.append(
                ipyleaflet.TileLayer(
                    url=OSM_TILES,
                    name="OpenStreetMap",
                    attribution="© OpenStreetMap contributors",
                )
            )
            self.note.value = (
                "<i>Web tiles need the internet; the terrain picture works offline.</i>"
            )
        self.terrain = ipyleaflet.ImageOverlay(
            url=pic.data_url(),
            bounds=((s, west), (n, e)),
            name="terrain",
            attribution=game_map.meta.get("attribution", ""),
        )
        layers.append(self.terrain)
        #: The place-name labels (one marker per name shown, reused).
        self.names = ipyleaflet.LayerGroup(name="place names")
        self._places = place_names(game_map) if names else []
        self._name_markers: dict[tuple[str, float, float], ipyleaflet.Marker] = {}
        self._name_looks: dict[tuple[str, float, float], tuple[float, ...]] = {}
        self._counters: list[tuple[float, float]] = []
        self._counter_px: tuple[float, float] = (
            float(SYMBOL_SIZE[0]),
            float(SYMBOL_SIZE[1]),
        )
        #: The labels shown now (after :meth:`relabel`).
        self.labels: list[Label] = []
        layers.append(self.names)
        self.selection = ipyleaflet.GeoJSON(
            data=dict(EMPTY),
            name="selection",
            style={"color": "#d62728", "weight": 3, "fillOpacity": 0.1},
        )
        layers.append(self.selection)
        lon_c, lat_c = game_map.to_lonlat(*_centre(game_map))
        if zoom is None:
            zoom = 12 if game_map.window is None else fit_zoom(game_map, height)
        self.leaflet = ipyleaflet.Map(
            center=(float(lat_c), float(lon_c)),
            zoom=zoom,
            zoom_snap=0.25,
            zoom_delta=0.5,
            layers=tuple(layers),
            scroll_wheel_zoom=True,
            layout=w.Layout(height=height, width="100%"),
        )
        self.leaflet.add(ipyleaflet.ScaleControl(position="bottomleft"))
        self.leaflet.on_interaction(self._on_interaction)
        self.leaflet.observe(lambda _: self.relabel(), ["zoom", "center"])
        self.info = w.HTML(
            value="<i>Click the map to inspect a hex.</i>",
            layout=w.Layout(min_width="260px"),
        )
        self.info.add_class("wargame-hex-info-panel")
        #: Draw the hex grid over the whole map (the picture with hex outlines,
        #: made on first use and cached).
        self.grid_toggle = w.Checkbox(
            value=hex_outlines, description="hex grid", indent=False
        )
        self.grid_toggle.add_class("wargame-grid-toggle")
        self._pictures = {hex_outlines: self.terrain.url}
        self.grid_toggle.observe(lambda ch: self.show_grid(ch["new"]), "value")
        # a fixed height: the map does not jump down when a message appears
        self.message = w.HTML(layout=w.Layout(min_height="22px"))
        self.message.add_class("wargame-message")
        self.selected: str | None = None
        #: A click outlines the hex under it and shows its info (a view of
        #: units at free points turns this off: the click is about the point).
        self.select_on_click = True
        super().__init__(
            [w.HBox([self.leaflet, self.info]), self.message, self.note],
            layout=w.Layout(width="100%"),
        )
        self.relabel()

    # -- place names ----------------------------------------------------------- #
    def avoid(
        self,
        counters: list[tuple[float, float]],
        counter_px: tuple[float, float] | None = None,
    ) -> None:
        """Keep the place names off these counters: (lat, lon) of each, and
        their size on the screen in CSS pixels (default: a unit counter's)."""
        px = counter_px if counter_px is not None else self._counter_px
        if list(counters) == self._counters and px == self._counter_px:
            return  # nothing moved (most steps): the names stay where they are
        self._counters = list(counters)
        self._counter_px = px
        self.relabel()

    def relabel(self) -> None:
        """Place the names again for the zoom and counters of now; only the
        labels that moved, appeared or went are sent."""
        if not self._names:
            return
        self.labels = declutter(
            self._places,
            zoom=float(self.leaflet.zoom),
            counters=self._counters,
            counter_px=self._counter_px,
            centre=(float(self.leaflet.center[0]), float(self.leaflet.center[1])),
        )
        shown = set()
        for lab in self.labels:
            key = (lab.name, lab.lat, lab.lon)
            shown.add(key)
            look = (lab.dx, lab.dy)
            mk = self._name_markers.get(key)
            if mk is not None and self._name_looks.get(key) == look and mk.visible:
                continue
            icon = ipyleaflet.DivIcon(
                html=(
                    PLACE_CSS + f"<div class='wargame-place wargame-place-{lab.kind}' "
                    f"style='font:600 {FONT_PX.get(lab.kind, 12)}px sans-serif;"
                    "color:#281e1e;white-space:nowrap;text-align:center;"
                    "text-shadow:0 0 3px #fff,0 0 3px #fff,0 0 2px #fff;"
                    f"pointer-events:none'>{html.escape(lab.name)}</div>"
                ),
                icon_size=[round(lab.w), round(lab.h)],
                icon_anchor=[round(lab.w / 2 - lab.dx), round(lab.h / 2 - lab.dy)],
            )
            if mk is None:
                mk = ipyleaflet.Marker(
                    location=(lab.lat, lab.lon),
                    draggable=False,
                    keyboard=False,
                    title=lab.name,
                    name="place",
                    z_index_offset=-1000,  # under the unit counters
                )
                self._name_markers[key] = mk
                self.names.add(mk)
            with mk.hold_sync():
                mk.icon = icon
                mk.visible = True
            self._name_looks[key] = look
        for key, mk in self._name_markers.items():
            if key not in shown and mk.visible:
                mk.visible = False

    def show_grid(self, on: bool = True) -> None:
        """Show (or hide) the hex grid over the terrain."""
        url = self._pictures.get(on)
        if url is None:
            url = map_picture(
                self.game_map, hex_outlines=on, labels=not self._names
            ).data_url()
            self._pictures[on] = url
        self.terrain.url = url
        if self.grid_toggle.value != on:
            self.grid_toggle.value = on

    # -- interaction ----------------------------------------------------------- #
    def on_hex_click(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(label)`` whenever a hex is selected."""
        self._callbacks.append(callback)

    def on_point_click(self, callback: Callable[[float, float, str], None]) -> None:
        """Call ``callback(lon, lat, label)`` for every click on the map."""
        self._point_callbacks.append(callback)

    def _on_interaction(self, **kw: Any) -> None:
        if kw.get("type") != "click":
            return
        lat, lon = kw["coordinates"]
        self.click_lonlat(lon, lat)

    def click_lonlat(self, lon: float, lat: float) -> str | None:
        """Select the hex at a WGS84 point, as a click would; None off the map."""
        try:
            label = self.game_map.hex_at(lon=lon, lat=lat)
        except ValueError:
            self.message.value = (
                f"<span style='color:#a00'>That point ({lat:.4f}, {lon:.4f}) "
                "is off the map.</span>"
            )
            return None
        if self.select_on_click:
            self.select_hex(label)
        for cb in self._point_callbacks:
            cb(lon, lat, label)
        return label

    def select_hex(self, label: str, *, notify: bool = True) -> None:
        """Highlight a hex, show its info, and (if ``notify``) tell the callbacks."""
        if not self.game_map.grid.contains_label(label):
            self.message.value = (
                f"<span style='color:#a00'>No hex {html.escape(str(label))} "
                "here.</span>"
            )
            return
        self.selected = label
        self.message.value = ""
        self.selection.data = hexes_geojson(self.game_map, [label])
        self.refresh_info()
        if notify:
            for cb in self._callbacks:
                cb(label)

    def refresh_info(self) -> None:
        """Redraw the info panel of the selected hex (e.g. after units moved)."""
        if self.selected is None:
            return
        extra = self.info_rows(self.selected) if self.info_rows is not None else []
        self.info.value = hex_info_html(self.game_map, self.selected, extra)


def fit_zoom(m: Map, height: str = "560px", width_px: float = 760.0) -> float:
    """The Leaflet zoom (in quarter steps) that shows the whole map in a box.

    ``height`` is the CSS height of the map (pixels; anything else counts as
    560 px); the width is a typical notebook map width.  Between 10 and 16.
    """
    try:
        h_px = float(str(height).removesuffix("px"))
    except ValueError:
        h_px = 560.0
    xmin, ymin, xmax, ymax = m.bounds
    lat = math.radians((m.lonlat_bounds[1] + m.lonlat_bounds[3]) / 2)
    # metres per pixel at zoom 0 with 256-px tiles, on the ground at this latitude
    base = 156_543.033_92 * math.cos(lat)
    z = min(
        math.log2(base * width_px / (xmax - xmin)),
        math.log2(base * h_px / (ymax - ymin)),
    )
    return max(10.0, min(16.0, math.floor(z * 4) / 4))


def _centre(m: Map) -> tuple[float, float]:
    xmin, ymin, xmax, ymax = m.bounds
    return (xmin + xmax) / 2, (ymin + ymax) / 2
