"""wargame: tactical wargames on real geography.

Load the Middle Rhine map, cut into the board game's ~150 m hexes:

>>> import wargame
>>> "rhine-remagen" in wargame.available_maps()
True

Play a scenario under one of the registered rule systems:

>>> wargame.get_ruleset("waw-classic").title  # doctest: +ELLIPSIS
'World at War...'
>>> game = wargame.Game.from_scenario("test_remagen", seed=1)
>>> game.ruleset.id
'waw-classic'

The heavy modules (pandas, shapely, pyproj) load on first use, so
``import wargame.rules.waw`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Game",
    "Map",
    "__version__",
    "available_maps",
    "available_rulesets",
    "get_ruleset",
    "load_map",
]

if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import Game, available_rulesets, get_ruleset
    from wargame.geo.maps import Map, available_maps, load_map

_LAZY = {
    "Map": "wargame.geo.maps",
    "available_maps": "wargame.geo.maps",
    "load_map": "wargame.geo.maps",
    "Game": "wargame.engine",
    "get_ruleset": "wargame.engine",
    "available_rulesets": "wargame.engine",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        import importlib

        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'wargame' has no attribute {name!r}")
