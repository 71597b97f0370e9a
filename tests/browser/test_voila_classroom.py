"""The Voila classroom app in a real browser: terrain, units, LOS polygon, stepping."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from uihelpers import (
    ARTIFACTS,
    free_port,
    start_server,
    stop_server,
    two_frames,
    voila_argv,
)

from wargame.cli import classroom_env, classroom_url, new_token

MARKERS = "img.leaflet-marker-icon"
LOG_ROWS = ".wargame-log tbody tr"


@pytest.fixture(scope="module")
def voila_server(artifacts: str) -> Iterator[tuple[str, str]]:
    """The classroom app behind a token, as ``wargame classroom`` serves it.

    Yields ``(url without token, token URL)``.
    """
    port = free_port()
    token = new_token()
    argv = voila_argv(port, "notebooks/classroom.ipynb", token=True)
    env = classroom_env(token)
    proc = start_server(argv, port, ARTIFACTS / "voila.log", env=env)
    try:
        yield classroom_url(port, None), classroom_url(port, token)
    finally:
        stop_server(proc)


@pytest.fixture(scope="module")
def voila_url(voila_server: tuple[str, str]) -> str:
    """The classroom's token URL (the one ``wargame classroom`` prints)."""
    return voila_server[1]


def _click_a_unit(page: Any) -> None:
    markers = page.locator(MARKERS)
    for i in range(markers.count()):
        try:
            markers.nth(i).click(timeout=3_000)
            return
        except Exception:  # covered by a neighbouring stack: try the next one
            continue
    markers.first.dispatch_event("click")


def test_classroom_app_renders_terrain_and_units_clicks_and_steps(
    offline_page, voila_url, timings
):
    page = offline_page
    page.set_viewport_size({"width": 1400, "height": 1000})
    t0 = time.time()
    page.goto(voila_url, wait_until="commit", timeout=120_000)
    terrain = page.locator("img.leaflet-image-layer").first
    terrain.wait_for(timeout=120_000)
    page.wait_for_function(
        f"document.querySelectorAll('{MARKERS}').length >= 3", timeout=60_000
    )
    timings["voila_classroom_open_to_map_s"] = round(time.time() - t0, 2)
    assert terrain.get_attribute("src").startswith("data:image/png;base64,")
    icons = page.locator(MARKERS)
    assert icons.first.get_attribute("src").startswith("data:image/svg+xml;base64,")
    two_frames(page)

    # click a unit: its line-of-sight polygon and range rings appear
    _click_a_unit(page)
    page.locator("path.wargame-los").first.wait_for(timeout=30_000)
    assert page.locator("path.wargame-los").count() >= 1
    assert "hexes within" in page.locator(".wargame-unit-info").first.inner_text()
    two_frames(page)
    page.screenshot(path=str(ARTIFACTS / "voila_classroom_los.png"))

    # step: the log table grows
    rows = page.locator(LOG_ROWS).count()
    for _ in range(3):
        t1 = time.time()
        page.locator("button.wargame-step").click()
        page.wait_for_function(
            f"document.querySelectorAll('{LOG_ROWS}').length > {rows}", timeout=30_000
        )
        timings.setdefault("voila_step_to_log_row_s", []).append(
            round(time.time() - t1, 3)
        )
        rows = page.locator(LOG_ROWS).count()
    two_frames(page)
    page.screenshot(path=str(ARTIFACTS / "voila_classroom.png"))

    assert not page.errors, page.errors
    # offline: only the template's icon-font CSS (a CDN) is asked for, and refused
    assert all("fontawesome" in u for u in page.blocked), page.blocked
    unexplained = [m for m in page.console_errors if "net::ERR_FAILED" not in m]
    assert not unexplained, unexplained
    assert len(page.console_errors) <= len(page.blocked)


def test_classroom_page_without_the_token_asks_for_it(offline_page, voila_server):
    """No token, no game: the server sends the browser to its login page."""
    bare, _ = voila_server
    page = offline_page
    page.goto(bare, timeout=60_000)
    assert "/login" in page.url
    assert page.locator("input[type=password], input#password_input").count() >= 1
    assert page.locator(".leaflet-container").count() == 0
