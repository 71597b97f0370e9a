"""A static HTML picture of a map with its units (pure; no widgets, no network).

The fallback when the interactive widgets cannot be shown: the offline terrain
picture with each unit stack's NATO-style symbol placed on it, and a note.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> page = static_map_html(game.map, game=game, note="static picture")
    >>> page.count("<img") == 1 + len(unit_stacks(game))
    True
"""

from __future__ import annotations

import base64
import html
import math
from typing import TYPE_CHECKING, Any

from .game import unit_stacks
from .symbols import SYMBOL_SIZE, svg_data_url
from .terrain import map_picture

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

__all__ = ["picture_fraction", "static_map_html"]


def _merc_y(lat: float) -> float:
    return math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))


def picture_fraction(
    bounds: tuple[tuple[float, float], tuple[float, float]], lon: float, lat: float
) -> tuple[float, float]:
    """Where a lon/lat falls in a Web Mercator picture with corners ``bounds``
    (``((south, west), (north, east))``, as ``TerrainImage.latlon_corners``),
    as fractions (left, top).

    Examples:
        >>> picture_fraction(((50.0, 7.0), (51.0, 8.0)), 7.5, 51.0)
        (0.5, 0.0)
    """
    (s, w), (n, e) = bounds
    fx = (lon - w) / (e - w)
    fy = (_merc_y(n) - _merc_y(lat)) / (_merc_y(n) - _merc_y(s))
    return fx, fy


def static_map_html(
    m: Map, *, game: Any = None, note: str = "", width: str = "100%"
) -> str:
    """The terrain picture as an HTML block, with the game's units if given.

    Args:
        m: the map.
        game: a :class:`~wargame.engine.Game` on that map (optional).
        note: HTML shown above the picture (e.g. why it is static).
        width: CSS width of the picture.
    """
    pic = map_picture(m)
    src = "data:image/png;base64," + base64.b64encode(pic.png).decode("ascii")
    marks = []
    if game is not None:
        w, h = SYMBOL_SIZE
        for s in unit_stacks(game):
            fx, fy = picture_fraction(pic.latlon_corners, s.lon, s.lat)
            marks.append(
                f"<img src='{svg_data_url(s.svg)}' title='{html.escape(s.title)}' "
                f"style='position:absolute;left:calc({fx:.2%} - {w // 2}px);"
                f"top:calc({fy:.2%} - {h // 2}px);width:{w}px;height:{h}px'>"
            )
    max_w = f"{pic.size[0] * 1.5:.0f}px"
    return (
        f"<div class='wargame-static-map'><div style='color:#8a5a00'>{note}</div>"
        f"<div style='position:relative;width:{width};max-width:{max_w}'>"
        f"<img src='{src}' style='width:100%;display:block' alt='terrain picture'>"
        f"{''.join(marks)}</div></div>"
    )
