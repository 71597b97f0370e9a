"""The classroom page for Voila: shown at once, the app built while the page loads.

Voila sends the page only when the notebook's cells have run, and the browser
starts its own (long) work on the widgets only then.  So under Voila the cell
returns a light box with a note at once, and the app is built just after the
cell, in the kernel's own event loop, while the browser loads Voila's front
end.  The browser asks the kernel for the widgets when it is ready; the kernel
answers once the app is built (messages are handled one after the other), so
the browser gets the whole app in one go.  Elsewhere (JupyterLab, nbmake,
plain Python) the app is built before the cell returns, as usual.

This module imports only ipywidgets: the heavy imports (pandas, ipyleaflet, the
rules, the map) happen in the build.
"""

from __future__ import annotations

import asyncio
import html
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import ipywidgets as w

__all__ = ["classroom_page", "deferred_box", "under_voila"]

#: Seconds between the cell's end and the build: Voila has the cell's reply by
#: then, so it sends the page without waiting for the build.
BUILD_DELAY_S = 0.05


def under_voila() -> bool:
    """Whether this kernel was started by Voila (it sets ``VOILA_*`` variables)."""
    return "VOILA_BASE_URL" in os.environ or "VOILA_PREHEAT" in os.environ


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _as_widget(obj: Any) -> w.Widget:
    """A widget as it is; anything with ``_repr_html_`` (a static view) as HTML."""
    if isinstance(obj, w.Widget):
        return obj
    return w.HTML(obj._repr_html_() if hasattr(obj, "_repr_html_") else str(obj))


def deferred_box(
    build: Callable[[], Any],
    *,
    note: str = "Loading…",
    defer: bool | None = None,
) -> w.VBox:
    """A box whose content ``build()`` makes, now or just after the cell.

    Args:
        build: makes the widget to show.
        note: text shown until the widget is there.
        defer: build after the cell (default: under Voila, when the kernel's
            event loop runs; otherwise build now).

    An error in a deferred build is shown in the box as one line (and printed
    with its traceback to the kernel's log); an error in a build done now is
    raised as usual.
    """
    box = w.VBox(layout=w.Layout(width="100%"))
    box.add_class("wargame-page")
    loop = _running_loop()
    if defer is None:
        defer = under_voila()
    if not defer or loop is None:
        box.children = [_as_widget(build())]
        return box
    placeholder = w.HTML(f"<p style='color:#555'><i>{html.escape(note)}</i></p>")
    box.children = [placeholder]

    def fill() -> None:
        try:
            box.children = [_as_widget(build())]
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            why = f"The app could not start: {type(exc).__name__}: {exc}"
            placeholder.value = f"<span style='color:#a00'>{html.escape(why)}</span>"

    loop.call_later(BUILD_DELAY_S, fill)
    return box


def classroom_page(*, defer: bool | None = None, **kwargs: Any) -> w.VBox:
    """The classroom app (:class:`~wargame.ui.ClassroomApp`) in a page box.

    Args:
        defer: see :func:`deferred_box` (default: deferred under Voila only).
        **kwargs: passed to :class:`~wargame.ui.ClassroomApp`.

    The app, once built, is ``box.children[0]``.
    """

    def build() -> Any:
        # through wargame.ui: without ipyleaflet, the static picture and a note
        from wargame.ui import ClassroomApp

        return ClassroomApp(**kwargs)

    return deferred_box(
        build, note="Loading the Middle Rhine map and the scenario…", defer=defer
    )
