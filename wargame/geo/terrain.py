"""Generic terrain vocabulary shared by the map and every rule system.

Maps carry *generic* classes; each rule system translates them into its own terrain
effects (movement cost, defence dice, LOS blocking) in its data files.

Examples:
    >>> TERRAIN_CLASSES[0], TERRAIN_CLASSES.index("woods")
    ('clear', 4)
    >>> road_rank("motorway") < road_rank("track")
    True
"""

from __future__ import annotations

# Codes in the land-cover raster are indices into this tuple; 0 ("clear") is open
# ground: farmland, meadow, grass and anything OSM does not map.
TERRAIN_CLASSES: tuple[str, ...] = (
    "clear",
    "park",  # parks, gardens, allotments, cemeteries, sports grounds
    "orchard",  # orchards, vineyards, nurseries
    "wetland",
    "woods",
    "town",  # built-up: residential, commercial, industrial
    "water",
)

# Best first. "primary" includes OSM trunk roads.
ROAD_CLASSES: tuple[str, ...] = (
    "motorway",
    "primary",
    "secondary",
    "tertiary",
    "minor",
    "track",
)

# Waterway line classes kept on the map, biggest first.
WATERWAY_CLASSES: tuple[str, ...] = ("river", "canal", "stream")

# Codes of water crossings in the map's line arrays.
CROSSING_CODES: tuple[str, ...] = ("bridge", "rhine_bridge", "ferry")

# Default obstacle heights above ground for line of sight, metres (documented
# defaults, configurable per call and per map; not from any rulebook).
DEFAULT_OBSTACLE_HEIGHTS_M: dict[str, float] = {
    "woods": 20.0,
    "town": 10.0,
}


def road_rank(road_class: str | None) -> int:
    """Rank of a road class, 0 for the best; ``len(ROAD_CLASSES)`` for no road."""
    if road_class is None:
        return len(ROAD_CLASSES)
    return ROAD_CLASSES.index(road_class)
