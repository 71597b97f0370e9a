"""What the views degrade to without ipyleaflet/ipywidgets: a static picture + a note.

Imports no widget library, so it works in any Jupyter (or none).
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable
from typing import Any

__all__ = ["StaticView", "static_view_factory"]


class StaticView:
    """The offline terrain picture (with the units of a game) and a note.

    Shown by Jupyter through ``_repr_html_``; ``html`` holds the same text.
    """

    def __init__(self, html_text: str) -> None:
        self.html = html_text

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return "<StaticView: the interactive map needs ipyleaflet and ipywidgets>"


def static_view_factory(name: str, missing: str) -> Callable[..., StaticView]:
    """A stand-in for a view class when a widget library is missing."""

    def make(obj: Any = None, *args: Any, **kwargs: Any) -> StaticView:
        from wargame.render.static import static_map_html

        note = (
            f"The interactive {name} needs {missing}: "
            "<code>pip install 'wargame[lab]'</code>. This is the offline picture."
        )
        game = obj if hasattr(obj, "ruleset") else None
        game_map = getattr(obj, "map", None) if game is not None else obj
        if game_map is None and isinstance(obj, str | os.PathLike):
            from wargame.engine import Game

            game = Game.load(os.fspath(obj))  # a save file, as ReplayView takes
            game_map = game.map
        if game_map is None:
            return StaticView(f"<p>{note}</p>")
        return StaticView(static_map_html(game_map, game=game, note=note))

    make.__name__ = name
    make.__doc__ = f"Static stand-in for {name} ({html.escape(missing)} missing)."
    return make
