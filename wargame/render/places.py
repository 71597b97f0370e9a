"""Place names as labels over the map, kept clear of the counters.

The terrain picture of a map view carries no names (``map_picture(m,
labels=False)``): the names are labels at a fixed size on the screen, so they
stay readable at every zoom, and each one is placed where no unit counter and
no bigger name covers it.  :func:`declutter` does the placing in screen pixels
(Web Mercator at the view's zoom): a name goes on its place if that is free,
else just above, below, right or left of it, else it is left out until the
view changes.  Towns are placed before villages, and villages are named from
zoom 12.5 on (:data:`MIN_ZOOM`: on the whole Rhine map at zoom 12 their 186
names would cover the valley), as web maps do.

Examples:
    >>> towns = [Place("Remagen", "town", 50.5792, 7.2287),
    ...          Place("Kripp", "village", 50.5609, 7.2691)]
    >>> [(p.name, p.dx, p.dy) for p in declutter(towns, zoom=13)]
    [('Remagen', 0.0, 0.0), ('Kripp', 0.0, 0.0)]
    >>> # a counter on Remagen pushes its name off the counter (here: above it)
    >>> on_remagen = [(50.5792, 7.2287)]
    >>> [(p.name, p.dy < 0) for p in declutter(towns, zoom=13, counters=on_remagen)]
    [('Remagen', True), ('Kripp', False)]
    >>> [p.name for p in declutter(towns, zoom=12)]  # villages from zoom 12.5
    ['Remagen']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

__all__ = ["FONT_PX", "Label", "Place", "declutter", "label_size", "place_names"]

#: Screen size of the names (CSS pixels) by kind of place.
FONT_PX: dict[str, int] = {"town": 15, "village": 12}
#: Place classes of the map's ``places`` layer that get a name (as the picture
#: drew them before: hamlets and suburbs stay unnamed).
NAMED = ("town", "village")
#: The lowest zoom at which each kind of place is named.
MIN_ZOOM: dict[str, float] = {"town": 0.0, "village": 12.5}
#: At most this many names at once (each is a marker widget in the page).
MAX_LABELS = 80


@dataclass(frozen=True)
class Place:
    """A named place: its name, kind (``"town"``/``"village"``) and lat/lon."""

    name: str
    kind: str
    lat: float
    lon: float


@dataclass(frozen=True)
class Label:
    """Where a place's name is drawn: ``dx``/``dy`` screen pixels from the place
    to the centre of the name (``dy`` < 0 is above), ``w``/``h`` its size."""

    name: str
    kind: str
    lat: float
    lon: float
    dx: float
    dy: float
    w: float
    h: float


def place_names(m: Map) -> list[Place]:
    """The towns and villages inside the map (a window: inside the window),
    towns first, each group by name.

    Examples:
        >>> from wargame.geo.maps import load_map
        >>> names = [p.name for p in place_names(load_map("rhine-remagen"))]
        >>> "Remagen" in names and "Linz" in names and len(names) > 100
        True
    """
    pl = m.layer("places")
    if not len(pl):
        return []
    pl = pl[pl["class"].isin(NAMED)]
    xs = [float(g.x) for g in pl["geometry"]]
    ys = [float(g.y) for g in pl["geometry"]]
    if not xs:
        return []
    inside = m.contains_xy(xs, ys)
    lon, lat = m.to_lonlat(xs, ys)
    out = [
        Place(str(name), str(kind), float(la), float(lo))
        for name, kind, la, lo, ok in zip(
            pl["name"], pl["class"], lat, lon, inside, strict=True
        )
        if ok
    ]
    out.sort(key=lambda p: (NAMED.index(p.kind), p.name))
    return out


def label_size(name: str, kind: str) -> tuple[float, float]:
    """Width and height (CSS pixels) a name takes on the screen, with a margin.

    ASSUMPTION: a sans-serif letter is about 0.6 of the font size wide (bold
    names run a little wider; the margin takes the difference).

    Examples:
        >>> label_size("Linz", "town")
        (44.0, 19.0)
    """
    px = FONT_PX.get(kind, 12)
    return float(round(0.6 * px * len(name)) + 8), float(px + 4)


def _pixel(lat: float, lon: float, zoom: float) -> tuple[float, float]:
    """Web Mercator pixel coordinates of a point at a zoom (Leaflet's own)."""
    scale = 256.0 * 2.0**zoom
    x = scale * (lon + 180.0) / 360.0
    phi = math.radians(lat)
    y = scale * (1.0 - math.log(math.tan(phi) + 1.0 / math.cos(phi)) / math.pi) / 2.0
    return x, y


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in screen pixels


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def declutter(
    places: Iterable[Place],
    *,
    zoom: float,
    counters: Sequence[tuple[float, float]] = (),
    counter_px: tuple[float, float] = (34.0, 28.0),
    centre: tuple[float, float] | None = None,
) -> list[Label]:
    """Place every name where it covers no counter and no name placed before.

    Args:
        places: the places, most important first (as :func:`place_names`).
        zoom: the map view's zoom.
        counters: (lat, lon) of each unit counter on the map.
        counter_px: a counter's width and height on the screen (CSS pixels).
        centre: (lat, lon) the view looks at: within a kind, the places
            nearest to it are named first (the :data:`MAX_LABELS` go to them).

    Returns:
        One :class:`Label` for each name that found a free spot (at most
        :data:`MAX_LABELS`, kinds below their :data:`MIN_ZOOM` left out).
    """
    cw, ch = counter_px
    blocked: list[Box] = []
    for lat, lon in counters:
        x, y = _pixel(lat, lon, zoom)
        blocked.append((x - cw / 2, y - ch / 2, x + cw / 2, y + ch / 2))
    out: list[Label] = []
    order = list(places)
    if centre is not None:
        rank = {k: i for i, k in enumerate(NAMED)}
        clat, clon = centre
        order.sort(
            key=lambda q: (
                rank.get(q.kind, len(NAMED)),
                (q.lat - clat) ** 2
                + ((q.lon - clon) * math.cos(math.radians(clat))) ** 2,
            )
        )
    for p in order:
        if len(out) >= MAX_LABELS:
            break
        if zoom < MIN_ZOOM.get(p.kind, 0.0):
            continue
        w, h = label_size(p.name, p.kind)
        x, y = _pixel(p.lat, p.lon, zoom)
        gap = 2.0
        tries = (
            (0.0, 0.0),
            (0.0, -(ch + h) / 2 - gap),  # above
            (0.0, (ch + h) / 2 + gap),  # below
            ((cw + w) / 2 + gap, 0.0),  # right
            (-(cw + w) / 2 - gap, 0.0),  # left
        )
        for dx, dy in tries:
            box = (x + dx - w / 2, y + dy - h / 2, x + dx + w / 2, y + dy + h / 2)
            if not any(_overlaps(box, b) for b in blocked):
                blocked.append(box)
                out.append(Label(p.name, p.kind, p.lat, p.lon, dx, dy, w, h))
                break
    return out
