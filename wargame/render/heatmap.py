"""A heat-map layer of hexes as GeoJSON (pure function, no widgets).

Used for the hexes where units were destroyed over a batch of games
(:func:`wargame.batch.destroyed_hexes`), or any other value per hex.  Each
feature carries its value, the value scaled to 0-1 and a fill colour, so a
widget only copies the collection into an ``ipyleaflet.GeoJSON`` layer with a
style callback reading ``fill``.

Examples:
    >>> import wargame
    >>> m = wargame.load_map(window="Remagen")
    >>> fc = heat_geojson(m, {"Q11": 4.0, "N16": 1.0})
    >>> [f["id"] for f in fc["features"]]
    ['Q11', 'N16']
    >>> [f["properties"]["scaled"] for f in fc["features"]]
    [1.0, 0.25]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .geojson import hexes_geojson

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

__all__ = ["heat_geojson", "heat_legend_html"]


def heat_geojson(
    m: Map,
    values: Mapping[str, float] | Any,
    *,
    cmap: str = "YlOrRd",
    opacity: float = 0.7,
) -> dict[str, Any]:
    """Hexes coloured by a value, as a GeoJSON FeatureCollection (lon/lat).

    Args:
        m: the map (or window) the hex labels belong to.
        values: hex label -> value (a dict, or a pandas Series such as
            ``destroyed_hexes(frame)["per_game"]``); zero or missing values are
            left out.
        cmap: a matplotlib colour map name.
        opacity: the ``fill_opacity`` property of every feature.

    Returns:
        Features with ``id`` = label and properties ``label``, ``value``,
        ``scaled`` (value / largest value), ``fill`` (``#rrggbb``) and
        ``fill_opacity``.
    """
    import matplotlib as mpl

    items = [(str(k), float(v)) for k, v in dict(values).items() if v and v > 0]
    if not items:
        return {"type": "FeatureCollection", "features": []}
    top = max(v for _, v in items)
    colours = mpl.colormaps[cmap]
    props = {}
    for label, v in items:
        scaled = v / top
        props[label] = {
            "label": label,
            "value": v,
            "scaled": round(scaled, 6),
            "fill": mpl.colors.to_hex(colours(0.15 + 0.85 * scaled)),
            "fill_opacity": opacity,
        }
    return hexes_geojson(m, [k for k, _ in items], props)


def heat_legend_html(
    values: Mapping[str, float] | Any,
    title: str,
    *,
    cmap: str = "YlOrRd",
    unit: str = "",
) -> str:
    """A legend for a :func:`heat_geojson` layer: the same colour scale as a
    bar from the smallest shown value to the largest, with the title.

    Examples:
        >>> html = heat_legend_html({"Q11": 4.0, "N16": 1.0}, "units lost a game")
        >>> "units lost a game" in html and "4" in html and "linear-gradient" in html
        True
        >>> heat_legend_html({}, "nothing")
        '<div><b>nothing</b>: no hex has a value</div>'
    """
    import html as _html

    import matplotlib as mpl

    items = [float(v) for v in dict(values).values() if v and v > 0]
    name = _html.escape(title)
    if not items:
        return f"<div><b>{name}</b>: no hex has a value</div>"
    lo, top = min(items), max(items)
    colours = mpl.colormaps[cmap]
    stops = ", ".join(
        mpl.colors.to_hex(colours(0.15 + 0.85 * f)) for f in (lo / top, 0.5, 1.0)
    )
    suffix = f" {_html.escape(unit)}" if unit else ""
    return (
        '<div style="background:white;padding:4px 8px;font-size:13px">'
        f"<b>{name}</b>"
        f'<div style="width:160px;height:12px;background:linear-gradient(to right, '
        f'{stops})"></div>'
        '<div style="display:flex;justify-content:space-between;width:160px">'
        f"<span>{lo:g}{suffix}</span><span>{top:g}{suffix}</span></div></div>"
    )
