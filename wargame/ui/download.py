"""The "download log (CSV)" button: the shown log as a CSV link in the page.

ipywidgets has no download widget, so the button writes a ``data:`` link with
the CSV (dice as JSON lists, as ``wargame run --out log.csv`` writes it, read
back with ``pandas.read_csv``) and the browser saves it when it is clicked.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from wargame.render.export import log_csv

__all__ = ["LogDownload"]


class LogDownload(w.HBox):  # type: ignore[misc]
    """A button that makes a download link of ``get_log()`` as CSV.

    Args:
        get_log: the log to save (e.g. the view's shown log).
        filename: the name the browser saves it under.
    """

    def __init__(self, get_log: Callable[[], Any], filename: str = "log.csv") -> None:
        self.get_log = get_log
        self.filename = filename
        self.button = w.Button(
            description="download log (CSV)",
            icon="download",
            tooltip="the log shown, as a CSV file",
            layout=w.Layout(width="auto"),
        )
        self.button.add_class("wargame-download")
        self.link = w.HTML()
        self.link.add_class("wargame-download-link")
        self.button.on_click(lambda _: self.prepare())
        super().__init__([self.button, self.link])
        self.layout.align_items = "center"

    def prepare(self) -> bytes:
        """Write the link for the log as it is now; returns the CSV bytes."""
        log = self.get_log()
        data = log_csv(log)
        url = "data:text/csv;base64," + base64.b64encode(data).decode("ascii")
        name = html.escape(self.filename)
        self.link.value = (
            f"<a href='{url}' download='{name}' class='wargame-csv-link'>"
            f"save {name} ({len(log)} rows)</a>"
        )
        return data
