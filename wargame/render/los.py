"""Line of sight as display data: sight lines, range rings, profiles (pure functions).

Examples:
    >>> import wargame
    >>> m = wargame.load_map(window="Remagen")
    >>> fc = range_rings_geojson(m, "N17", {"normal": 9, "extended": 17})
    >>> [f["properties"]["ring"] for f in fc["features"]]
    ['normal', 'extended']
    >>> r = m.los("N17", "H17")
    >>> [f["properties"]["part"] for f in sight_line_geojson(m, r)["features"]]
    ['seen']
    >>> profile_png(r)[:4] == b"\\x89PNG"
    True
"""

from __future__ import annotations

import html
import io
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from .geojson import EMPTY, geometry_feature

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

__all__ = [
    "LOS_COLOURS",
    "RING_STYLES",
    "hex_range_polygon",
    "los_html",
    "profile_png",
    "range_rings_geojson",
    "sight_line_geojson",
    "simplified",
]

#: Colours of a sight line: the part seen and the part behind the first blocker.
LOS_COLOURS: dict[str, str] = {"seen": "#1a9850", "blocked": "#d73027"}
#: Leaflet path styles of the range rings.
RING_STYLES: dict[str, dict[str, Any]] = {
    "normal": {"color": "#08306b", "weight": 2, "dashArray": "6 4", "fill": False},
    "extended": {"color": "#08306b", "weight": 1.5, "dashArray": "2 4", "fill": False},
}


def hex_range_polygon(m: Map, label: str, distance: int) -> shapely.Geometry:
    """The hexes within ``distance`` steps of a hex, as one polygon (map metres).

    Hexes off the grid count too (the ring keeps its shape at the map edge); clip
    with the map's bounds if needed.
    """
    from wargame.geo.hexgrid import axial_range
    from wargame.geo.los import hexes_union

    q, r = m.grid.axial_of_label(label)
    cells = np.array(axial_range(q, r, int(distance)), dtype=np.int64)
    return hexes_union(m.grid, cells[:, 0], cells[:, 1])


def range_rings_geojson(
    m: Map, label: str, ranges: Mapping[str, int]
) -> dict[str, Any]:
    """Outlines of the hexes within each range of a hex, clipped to the map.

    Args:
        m: the map.
        label: the centre hex.
        ranges: ring name -> hex distance, e.g. ``{"normal": 9, "extended": 17}``.

    Returns:
        A FeatureCollection of (Multi)LineStrings with ``ring``, ``hexes`` and a
        ``style`` (:data:`RING_STYLES`) in their properties.
    """
    box = shapely.box(*m.bounds)
    feats = []
    for name, d in ranges.items():
        if d < 1:
            continue
        ring = hex_range_polygon(m, label, d).boundary.intersection(box)
        if ring.is_empty:
            continue
        style = dict(RING_STYLES.get(name, RING_STYLES["normal"]))
        style["className"] = f"wargame-range-ring wargame-range-{name}"
        feats.append(
            geometry_feature(m, ring, {"ring": name, "hexes": int(d), "style": style})
        )
    return {"type": "FeatureCollection", "features": feats}


def sight_line_geojson(m: Map, result: Any) -> dict[str, Any]:
    """A sight line coloured by the answer: green up to the first blocker, then red.

    Args:
        m: the map.
        result: a :class:`wargame.geo.los.LOSResult`.
    """
    a, b = result.observer, result.target
    feats = []
    if result.visible or result.blocked_at is None:
        parts = [("seen", shapely.LineString([a, b]))]
    else:
        p = (result.blocked_at.x, result.blocked_at.y)
        parts = [
            ("seen", shapely.LineString([a, p])),
            ("blocked", shapely.LineString([p, b])),
        ]
    for name, line in parts:
        if line.length == 0:
            continue
        style = {
            "color": LOS_COLOURS[name],
            "weight": 4,
            "opacity": 0.9,
            "className": f"wargame-los-line wargame-los-{name}",
        }
        feats.append(
            geometry_feature(
                m, line, {"part": name, "visible": bool(result.visible), "style": style}
            )
        )
    return {"type": "FeatureCollection", "features": feats} if feats else dict(EMPTY)


def profile_png(result: Any, *, title: str | None = None, dpi: int = 80) -> bytes:
    """The terrain profile chart of a sight line (``LOSResult.plot``) as PNG bytes."""
    fig = result.plot(title=title)
    fig.set_size_inches(6.4, 2.6)
    fig.set_layout_engine("tight")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def los_html(result: Any, *, observer: str = "", target: str = "") -> str:
    """The answer in words: seen or blocked, by what, where, how far."""
    colour = LOS_COLOURS["seen" if result.visible else "blocked"]
    head = "can see" if result.visible else "cannot see"
    who = f"{html.escape(observer or str(result.observer_hex))} {head} " + html.escape(
        target or str(result.target_hex)
    )
    return (
        f"<div class='wargame-los-answer'><b style='color:{colour}'>{who}</b>"
        f" ({result.distance_m:.0f} m)<br><span style='font-size:90%'>"
        f"{html.escape(result.explain())}</span></div>"
    )


def simplified(geom: shapely.Geometry, tolerance_m: float = 5.0) -> shapely.Geometry:
    """A polygon simplified for drawing (keeps topology; metres)."""
    return geom.simplify(tolerance_m, preserve_topology=True)
