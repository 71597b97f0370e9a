"""Jupyter widgets (ipywidgets + ipyleaflet). Thin: they copy `wargame.render` output.

Needs the ``lab`` extra: ``pip install 'wargame[lab]'``.
"""

from wargame.ui.mapview import MapView

__all__ = ["MapView"]
