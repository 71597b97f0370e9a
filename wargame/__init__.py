"""wargame: tactical wargames on real geography.

Load the Middle Rhine map, cut into the board game's ~150 m hexes:

>>> import wargame
>>> "rhine-remagen" in wargame.available_maps()
True
"""

from __future__ import annotations

__version__ = "0.1.0"

from wargame.geo.maps import Map, available_maps, load_map

__all__ = ["Map", "__version__", "available_maps", "load_map"]
