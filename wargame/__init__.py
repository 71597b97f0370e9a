"""wargame: tactical wargames on real geography.

Load the Middle Rhine map, cut into the board game's ~150 m hexes:

>>> import wargame
>>> "rhine-remagen" in wargame.available_maps()
True

The heavy modules (pandas, shapely, pyproj) load on first use, so
``import wargame.rules.waw`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Map", "__version__", "available_maps", "load_map"]

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map, available_maps, load_map


def __getattr__(name: str) -> Any:
    if name in ("Map", "available_maps", "load_map"):
        from wargame.geo import maps

        return getattr(maps, name)
    raise AttributeError(f"module 'wargame' has no attribute {name!r}")
