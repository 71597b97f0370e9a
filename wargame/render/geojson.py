"""Map data to GeoJSON dicts and HTML snippets for the widgets (pure functions).

Everything returned is plain data in WGS84 longitude/latitude, ready for
``ipyleaflet.GeoJSON(data=...)``; nothing here imports a widget library.

Examples:
    >>> import wargame
    >>> m = wargame.load_map(window="Remagen")
    >>> fc = hexes_geojson(m, [m.hex_of_place("Remagen")])
    >>> fc["features"][0]["id"], fc["features"][0]["geometry"]["type"]
    ('Q11', 'Polygon')
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

EMPTY: dict[str, Any] = {"type": "FeatureCollection", "features": []}


def _round_coords(geom: shapely.Geometry, decimals: int = 6) -> dict[str, Any]:
    g = shapely.transform(geom, lambda c: np.round(c, decimals))
    return shapely.geometry.mapping(g)  # type: ignore[no-any-return]


def geometry_feature(
    m: Map,
    geom: shapely.Geometry,
    properties: Mapping[str, Any] | None = None,
    feature_id: str | None = None,
) -> dict[str, Any]:
    """One GeoJSON feature (lon/lat) from a geometry in map metres."""
    f: dict[str, Any] = {
        "type": "Feature",
        "properties": dict(properties or {}),
        "geometry": _round_coords(m.to_lonlat_geometry(geom)),
    }
    if feature_id is not None:
        f["id"] = feature_id
    return f


def hexes_geojson(
    m: Map,
    labels: Sequence[str],
    properties: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Hexagons of some hexes as a FeatureCollection (``id`` = the label)."""
    polys: Iterable[shapely.Geometry] = (
        m.hex_polygons(list(labels)) if len(labels) else []
    )
    feats = [
        geometry_feature(m, p, (properties or {}).get(lab, {"label": lab}), lab)
        for lab, p in zip(labels, polys, strict=True)
    ]
    return {"type": "FeatureCollection", "features": feats}


def geometry_geojson(
    m: Map, geom: shapely.Geometry | None, properties: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A geometry in map metres as a one-feature FeatureCollection (empty if None)."""
    if geom is None or geom.is_empty:
        return dict(EMPTY)
    return {
        "type": "FeatureCollection",
        "features": [geometry_feature(m, geom, properties)],
    }


def hex_info_html(
    m: Map, label: str, extra_rows: Iterable[tuple[str, str]] = ()
) -> str:
    """A small HTML table describing a hex (terrain, elevation, road, water, place)."""
    h = m.hexes.loc[label]
    water = []
    if h["river_crossing"]:
        water.append(f"{h['waterway']} crossing")
    if h["rhine_bridge"]:
        water.append("Rhine bridge")
    elif h["bridge"]:
        water.append("bridge")
    if h["ferry"]:
        water.append("ferry")
    hex_cell = f"<b>{html.escape(label)}</b>"
    if m.window is not None:  # the window's own label, and the whole map's
        full, same = m.full_map_label(label)
        hex_cell += (
            f" <span style='color:#666'>({'' if same else '≈ '}"
            f"{html.escape(full)} on the whole map)</span>"
        )
    rows = [
        ("hex", hex_cell),
        (
            "terrain",
            f"{h['terrain']} (woods {h['share_woods']:.0%}, "
            f"town {h['share_town']:.0%}, water {h['share_water']:.0%})",
        ),
        ("elevation", f"{h['elevation_m']:.0f} m (max {h['elevation_max_m']:.0f} m)"),
        (
            "road",
            str(h["road"])
            if h["road"] is not None and h["road"] == h["road"]
            else "none",
        ),
        ("rail", "yes" if h["rail"] else "no"),
        ("water", ", ".join(water) or "none"),
        ("near", f"{html.escape(str(h['place']))} ({h['place_distance_m']:.0f} m)"),
        ("lon, lat", f"{h['lon']:.5f}, {h['lat']:.5f}"),
        *extra_rows,
    ]
    body = "".join(
        f"<tr><th style='text-align:left;padding-right:8px'>{k}</th><td>{v}</td></tr>"
        for k, v in rows
    )
    return f"<table class='wargame-hex-info'>{body}</table>"
