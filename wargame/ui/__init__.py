"""Jupyter widgets (ipywidgets + ipyleaflet). Thin: they copy `wargame.render` output.

Needs the ``lab`` extra: ``pip install 'wargame[lab]'``.

* :class:`MapView`: the offline terrain picture with click-to-inspect hexes;
* :class:`GameView`: a game on the map with a turn stepper, line of sight, odds,
  dice, the log and the rule system's panels (World at War: the chit cup; also
  ``game.view()``);
* :class:`ReplayView`: a slider over a game's event log;
* :class:`LOSInspector`: sight lines, profiles and viewsheds anywhere on a map;
* :class:`ClassroomApp`: the Voila app (pick a scenario, play a side, see the log);
* :func:`classroom_page`: the app as ``notebooks/classroom.ipynb`` shows it (under
  Voila it is built while the browser loads the page).

Without ipyleaflet/ipywidgets these names give a static picture of the map (with
the units, for a game) and a note saying what to install, instead of failing.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ClassroomApp",
    "GameView",
    "LOSInspector",
    "MapView",
    "ReplayView",
    "classroom_page",
]

_WHERE = {
    "MapView": "wargame.ui.mapview",
    "GameView": "wargame.ui.gameview",
    "ReplayView": "wargame.ui.replay",
    "LOSInspector": "wargame.ui.los",
    "ClassroomApp": "wargame.ui.classroom",
    "classroom_page": "wargame.ui.page",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'wargame.ui' has no attribute {name!r}")
    import importlib

    try:
        module = importlib.import_module(where)
    except ImportError as exc:
        missing = getattr(exc, "name", None) or str(exc)
        if str(missing).split(".")[0] not in ("ipyleaflet", "ipywidgets", "traitlets"):
            raise
        from wargame.ui.fallback import static_view_factory

        return static_view_factory(name, str(missing))
    value = getattr(module, name)
    globals()[name] = value
    return value
